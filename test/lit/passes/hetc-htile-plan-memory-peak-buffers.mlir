// RUN: hetc-opt %s --hetc-set-chip=file=%chips/test-chip.chip --hetc-htile-plan-memory=peak-buffers=2 | FileCheck %s
// RUN: hetc-opt %s --hetc-set-chip=file=%chips/test-chip.chip --hetc-htile-plan-memory | FileCheck %s --check-prefix=NONE

// Tests that the buffers live at the peak with the most padding are
// recorded, most first, two of them: the column (8 vectors of 16 lanes for
// 8 values: 480 bytes of padding), then the 8 x 20 input (16 vectors for
// 160 values: 384 bytes), which comes before the product of its size.
// Without the option nothing is recorded.
// CHECK-LABEL: func.func @main()
// CHECK-SAME: hetc.sram_peak_buffers = [{node = "Scale", tensor_bytes = 32 : i64, type = memref<8x1xf32>, vectors = 8 : i64}, {node = "input 'x'", tensor_bytes = 640 : i64, type = memref<8x20xf32>, vectors = 16 : i64}]
// NONE-NOT: hetc.sram_peak_buffers
func.func @main() {
  %c = htile.constant dense<2.0> : tensor<8x1xf32> : memref<8x1xf32> loc("Scale")
  %x = htile.input "x" : memref<8x20xf32>
  %y = htile.alloc : memref<8x20xf32> loc("Mul")
  htile.binary mul ins(%x, %c) outs(%y) : memref<8x20xf32>, memref<8x1xf32>, memref<8x20xf32> loc("Mul")
  htile.output "y", %y : memref<8x20xf32>
  return
}

// Tests that a packed column in two copies counts one copy as its tensor
// (8 values, 32 bytes), while the 2-D operand it is spread over counts all
// of its own (8 x 20, 640 bytes): 640 + 640 + 32 at the peak; the two
// 8 x 20 buffers (384 bytes of padding each) come before the column (96).
// CHECK-LABEL: func.func @packed()
// CHECK-SAME: hetc.sram_peak_buffers = [{node = "input 'x'", tensor_bytes = 640 : i64, type = memref<8x20xf32>, vectors = 16 : i64}, {node = "Mul", tensor_bytes = 640 : i64, type = memref<8x20xf32>, vectors = 16 : i64}]
// CHECK-SAME: hetc.sram_peak_tensor_bytes = 1312
func.func @packed() {
  %c = htile.constant dense<2.0> : tensor<2x8xf32> : memref<2x8xf32> loc("Scale")
  %x = htile.input "x" : memref<8x20xf32>
  %y = htile.alloc : memref<8x20xf32> loc("Mul")
  htile.binary mul ins(%x, %c) column(rhs) outs(%y) : memref<8x20xf32>, memref<2x8xf32>, memref<8x20xf32> loc("Mul")
  htile.output "y", %y : memref<8x20xf32>
  return
}
