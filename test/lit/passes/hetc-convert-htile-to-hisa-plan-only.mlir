// RUN: hetc-opt %s --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-htile-to-hisa | FileCheck %s

// Tests that the chip runs nothing for ops of the kernel plan only, and
// that the buffers only they used (no address: memory planning placed
// none), and views of those, go with them: what is left is the relu's
// reads and writes.
// CHECK-LABEL: func.func @plan_only
// CHECK-NOT: htile.
// CHECK: hisa.read 0
// CHECK-NEXT: hisa.vunary relu
// CHECK-NEXT: hisa.write {{.*}} to 16
// CHECK-NOT: htile.
// CHECK: return
func.func @plan_only() {
  %x = htile.input "x" {address = 0 : i64} : memref<1x16xf32>
  %p = htile.alloc : memref<1x16xf32>
  htile.plan_gather ins(%x) outs(%p) indices [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0] : (memref<1x16xf32>) -> memref<1x16xf32>
  %v = htile.view %p : memref<1x16xf32> to memref<1x1x16xf32>
  %w = htile.constant dense<0.5> : tensor<1x1xf32> {address = 8 : i64} : memref<1x1xf32>
  %y = htile.alloc {address = 16 : i64} : memref<1x16xf32>
  htile.unary relu ins(%x) outs(%y) : memref<1x16xf32>, memref<1x16xf32>
  htile.plan_conv ins(%v, [%w]) outs(%y) {dilations = array<i64: 1>, input_shape = array<i64: 1, 1, 16>, kernel = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : memref<1x1x16xf32>, [memref<1x1xf32>] -> memref<1x16xf32>
  htile.output "y", %y : memref<1x16xf32>
  return
}
