// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-htile-to-hisa

// Tests that a buffer of a type the chip cannot hold is reported.
func.func @main() {
  // expected-error @+1 {{buffer of element type 'f80' cannot be held by the chip (f32, f16, bf16, i8, ui8, i32, i1; moved and converted only: f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ, f8E8M0FNU, f4E2M1FN, i4, ui4, i2, ui2; held as i32: i64, i16, ui16, ui32, ui64; as f32: f64)}}
  %x = htile.input "x" {address = 0 : i64} : memref<1x8xf80>
  htile.output "x", %x : memref<1x8xf80>
  return
}

// -----

// Tests that a view of rows must start an SRAM row: an f16 row of one
// vector is half of one.
func.func @main() {
  %h = htile.input "h" {address = 0 : i64} : memref<4x8xf16>
  // expected-error @+1 {{rows from row 1 of 'memref<4x8xf16>' start inside an SRAM row, which holds 2 vectors of its type}}
  %w = htile.view %h rows 1 : memref<4x8xf16> to memref<2x8xf16>
  htile.output "w", %w : memref<2x8xf16>
  return
}
