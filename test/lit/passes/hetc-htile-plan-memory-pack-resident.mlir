// RUN: hetc-opt %s --hetc-set-chip=file=%S/../Inputs/tiny-sram.chip "--hetc-htile-plan-memory=pack-resident=true" | FileCheck %s

// Tests pack-resident: the inputs and constants go to the two ends of SRAM
// (4 slices of 8 vectors), largest first, keeping the free run between
// them centred on the vector unit (between slices 1 and 2), and the
// intermediate takes that run.
// CHECK-LABEL: func.func @main()
func.func @main() {
  // CHECK: htile.input "x" {address = 0 : i64} : memref<8x16xf32>
  %x = htile.input "x" : memref<8x16xf32>
  // CHECK: htile.constant {{.*}} {address = 24 : i64} : memref<8x16xf32>
  %w = htile.constant dense<1.0> : tensor<8x16xf32> : memref<8x16xf32>
  // CHECK: htile.alloc {address = {{8|16}} : i64} : memref<8x16xf32>
  %y = htile.alloc : memref<8x16xf32>
  htile.binary add ins(%x, %w) outs(%y) : memref<8x16xf32>, memref<8x16xf32>, memref<8x16xf32>
  htile.output "y", %y : memref<8x16xf32>
  return
}
