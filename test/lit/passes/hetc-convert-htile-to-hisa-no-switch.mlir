// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-set-chip=file=%S/../Inputs/no-switch.chip --hetc-convert-htile-to-hisa

// Tests that spreading a one-element bool row needs a SWITCH unit: the
// vector unit does not reduce i1 lanes.
func.func @main() {
  %c = htile.input "c" {address = 0 : i64} : memref<1x1xi1>
  %a = htile.input "a" {address = 64 : i64} : memref<1x8xi1>
  %y = htile.alloc {address = 128 : i64} : memref<1x8xi1>
  // expected-error @+1 {{chip 'no-switch' has no SWITCH unit to spread 'i1' lanes with}}
  htile.binary and ins(%c, %a) outs(%y) : memref<1x1xi1>, memref<1x8xi1>, memref<1x8xi1>
  htile.output "y", %y : memref<1x8xi1>
  return
}

// -----

// Tests that a one-element f32 row is spread by the vector unit, with no
// SWITCH unit needed.
func.func @main() {
  %c = htile.input "c" {address = 0 : i64} : memref<1x1xf32>
  %a = htile.input "a" {address = 64 : i64} : memref<1x8xf32>
  %y = htile.alloc {address = 128 : i64} : memref<1x8xf32>
  htile.binary add ins(%c, %a) outs(%y) : memref<1x1xf32>, memref<1x8xf32>, memref<1x8xf32>
  htile.output "y", %y : memref<1x8xf32>
  return
}
