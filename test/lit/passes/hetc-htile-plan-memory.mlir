// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-htile-plan-memory=chip=%S/../Inputs/tiny-sram.chip | FileCheck %s

// Tests that buffers spread over slices (8 vectors each), that a kernel's
// operands land in different slices, and that a buffer whose life ended is
// reused: %e takes the slice of %a, dead after the first unary.
// CHECK-LABEL: func.func @main()
// CHECK-SAME: hetc.sram_peak_vectors = 24
func.func @main() {
  // CHECK: htile.input "x" {address = 0 : i64} : memref<8x16xf32>
  %x = htile.input "x" : memref<8x16xf32>
  // CHECK: %[[A:.*]] = htile.alloc {address = 8 : i64} : memref<8x16xf32>
  %a = htile.alloc : memref<8x16xf32>
  htile.unary relu ins(%x) outs(%a) : memref<8x16xf32>, memref<8x16xf32>
  // CHECK: htile.alloc {address = 16 : i64} : memref<8x16xf32>
  %b = htile.alloc : memref<8x16xf32>
  htile.unary exp ins(%a) outs(%b) : memref<8x16xf32>, memref<8x16xf32>
  // CHECK: htile.alloc {address = 24 : i64} : memref<8x16xf32>
  %c = htile.alloc : memref<8x16xf32>
  htile.binary add ins(%b, %x) outs(%c) : memref<8x16xf32>, memref<8x16xf32>, memref<8x16xf32>
  // CHECK: htile.alloc {address = 8 : i64} : memref<8x16xf32>
  %e = htile.alloc : memref<8x16xf32>
  htile.unary tanh ins(%c) outs(%e) : memref<8x16xf32>, memref<8x16xf32>
  htile.output "y", %e : memref<8x16xf32>
  return
}

// -----

// Tests that a model that does not fit reports the buffer and the demand.
func.func @main() {
  %x = htile.input "x" : memref<16x16xf32>
  %a = htile.alloc : memref<16x16xf32>
  htile.unary relu ins(%x) outs(%a) : memref<16x16xf32>, memref<16x16xf32>
  // expected-error @+1 {{SRAM is full: this buffer needs 16 vectors while 32 are in use; chip 'tiny-sram' has 32 vectors (2048 bytes)}}
  %b = htile.alloc : memref<16x16xf32>
  htile.unary exp ins(%a) outs(%b) : memref<16x16xf32>, memref<16x16xf32>
  htile.output "y", %b : memref<16x16xf32>
  return
}
