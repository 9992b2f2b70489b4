// RUN: hetc-opt %s --hetc-set-chip=file=%chips/tsp-v1.chip --hetc-htile-plan-memory | FileCheck %s

// Tests that the buffers of a matmul, or of a unary kernel, are not kept
// apart: no instruction of theirs reads two of them in one cycle (the
// input goes into the planes, every other buffer alone into an instruction
// that takes the products). The small input and result then lie near the
// vector unit, in slices 42 to 44 of tsp-v1 (runs of 64 vectors: 8320,
// 8384 and 8448 are runs 130 to 132, slices 42 to 44), although the
// weight, at the low end, holds rows in slices 0 to 49, those among them;
// kept apart from it, they went to slices 50 to 52, seven hops or more
// from the vector unit, on every trip.
// CHECK-LABEL: func.func @main()
func.func @main() {
  // CHECK: htile.input "in" {address = 8384 : i64}
  %in = htile.input "in" : memref<1x320xf32>
  // CHECK: htile.constant {{.*}} {address = 0 : i64} : memref<320x3200xf32>
  %w = htile.constant dense<0.5> : tensor<320x3200xf32> : memref<320x3200xf32>
  // CHECK: htile.alloc {address = 8448 : i64} : memref<1x320xf32>
  %x = htile.alloc : memref<1x320xf32>
  htile.unary relu ins(%in) outs(%x) : memref<1x320xf32>, memref<1x320xf32>
  // CHECK: htile.alloc {address = 8320 : i64} : memref<1x3200xf32>
  %y = htile.alloc : memref<1x3200xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 320, 320>} : memref<1x320xf32>, memref<320x3200xf32>, memref<1x3200xf32>
  htile.output "y", %y : memref<1x3200xf32>
  return
}
