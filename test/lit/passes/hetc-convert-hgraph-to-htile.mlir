// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-hgraph-to-htile | FileCheck %s

// Tests that a linear op becomes a matrix kernel tiled to the chip's planes,
// that constants become SRAM buffers on first use, a scalar constant
// operand becomes a broadcast row, and reshapes move nothing: the unary
// kernel reads and writes the rows its operand lies in.
// CHECK-LABEL: func.func @main()
func.func @main(%x: tensor<4x20xf32> {hgraph.name = "x"}) -> (tensor<4x20xf32> {hgraph.name = "y"}) {
  // CHECK: %[[X:.*]] = htile.input "x" : memref<4x20xf32>
  // CHECK: %[[W:.*]] = htile.constant dense<5.000000e-01> : tensor<20x20xf32> : memref<20x20xf32>
  // CHECK: %[[B:.*]] = htile.constant dense<2.500000e-01> : tensor<20xf32> : memref<20xf32>
  // CHECK: %[[L:.*]] = htile.alloc : memref<4x20xf32>
  // CHECK: htile.matmul ins(%[[X]], %[[W]]) bias(%[[B]] : memref<20xf32>) outs(%[[L]]) activation(tanh) {tile = array<i64: 1, 16, 16>}
  // CHECK: %[[TWO:.*]] = htile.constant dense<2.000000e+00> : tensor<20xf32> : memref<20xf32>
  // CHECK: %[[M:.*]] = htile.alloc : memref<4x20xf32>
  // CHECK: htile.binary mul ins(%[[L]], %[[TWO]]) outs(%[[M]])
  // CHECK: %[[S:.*]] = htile.alloc : memref<4x20xf32>
  // CHECK: htile.binary sub ins(%[[M]], %[[X]]) outs(%[[S]])
  // CHECK-NOT: htile.view
  // CHECK: %[[G:.*]] = htile.alloc : memref<4x20xf32>
  // CHECK: htile.unary sigmoid ins(%[[S]]) outs(%[[G]])
  // CHECK: htile.output "y", %[[G]] : memref<4x20xf32>
  // CHECK-NOT: htile.constant
  %w = hgraph.constant dense<0.5> : tensor<20x20xf32>
  %b = hgraph.constant dense<0.25> : tensor<20xf32>
  %two = hgraph.constant dense<2.0> : tensor<f32>
  %0 = hgraph.linear %x, %w, %b activation(tanh) : (tensor<4x20xf32>, tensor<20x20xf32>, tensor<20xf32>) -> tensor<4x20xf32>
  %1 = hgraph.mul %0, %two : (tensor<4x20xf32>, tensor<f32>) -> tensor<4x20xf32>
  %2 = hgraph.sub %1, %x : (tensor<4x20xf32>, tensor<4x20xf32>) -> tensor<4x20xf32>
  %3 = hgraph.reshape %2 : tensor<4x20xf32> -> tensor<2x2x20xf32>
  %4 = hgraph.sigmoid %3 : tensor<2x2x20xf32>
  %5 = hgraph.reshape %4 : tensor<2x2x20xf32> -> tensor<4x20xf32>
  return %5 : tensor<4x20xf32>
}

// -----

// Tests that softmax gets a scratch buffer and that either operand of a
// binary kernel may broadcast.
// CHECK-LABEL: func.func @main()
func.func @main(%x: tensor<3x10xf32> {hgraph.name = "x"}, %b: tensor<10xf32> {hgraph.name = "b"}) -> (tensor<3x10xf32> {hgraph.name = "y"}) {
  // CHECK: %[[X:.*]] = htile.input "x"
  // CHECK: %[[B:.*]] = htile.input "b" : memref<10xf32>
  // CHECK: htile.binary add ins(%[[B]], %[[X]]) outs(%[[A:.*]]) : memref<10xf32>, memref<3x10xf32>, memref<3x10xf32>
  // CHECK: htile.softmax ins(%[[A]]) outs(%{{.*}}) scratch(%{{.*}}) : memref<3x10xf32>, memref<3x10xf32>, memref<3x10xf32>
  %0 = hgraph.add %b, %x : (tensor<10xf32>, tensor<3x10xf32>) -> tensor<3x10xf32>
  %1 = hgraph.softmax %0 {axis = -1 : i64} : tensor<3x10xf32>
  return %1 : tensor<3x10xf32>
}

// -----

// Tests that a constant scalar operand is expanded to one row, while a
// computed column operand is passed on to broadcast on the chip.
// CHECK-LABEL: func.func @main()
func.func @main(%x: tensor<3x10xf32> {hgraph.name = "x"}, %c: tensor<3x1xf32> {hgraph.name = "c"}) -> (tensor<3x10xf32> {hgraph.name = "y"}) {
  // CHECK: %[[X:.*]] = htile.input "x"
  // CHECK: %[[C:.*]] = htile.input "c" : memref<3x1xf32>
  // CHECK: %[[K:.*]] = htile.constant dense<3.000000e+00> : tensor<10xf32> : memref<10xf32>
  // CHECK: htile.binary sub ins(%[[K]], %[[X]]) outs(%[[S:.*]]) : memref<10xf32>, memref<3x10xf32>, memref<3x10xf32>
  // CHECK: htile.binary div ins(%[[S]], %[[C]]) outs(%{{.*}}) : memref<3x10xf32>, memref<3x1xf32>, memref<3x10xf32>
  %k = hgraph.constant dense<3.0> : tensor<1x1xf32>
  %0 = hgraph.sub %k, %x : (tensor<1x1xf32>, tensor<3x10xf32>) -> tensor<3x10xf32>
  %1 = hgraph.div %0, %c : (tensor<3x10xf32>, tensor<3x1xf32>) -> tensor<3x10xf32>
  return %1 : tensor<3x10xf32>
}

// -----

// Tests that a matrix transpose gets the chip's 16 x 16 identity, created
// once at the top of the function, and a row permutation gets none.
// CHECK-LABEL: func.func @main()
// CHECK-NEXT: %[[EYE:.*]] = htile.constant dense<{{.*}}> : tensor<16x16xf32> : memref<16x16xf32>
// CHECK: htile.transpose ins(%{{.*}}) outs(%{{.*}}) identity(%[[EYE]]) {perm = array<i64: 0, 2, 1>} : memref<2x3x20xf32>, memref<2x20x3xf32>, memref<16x16xf32>
// CHECK: htile.transpose ins(%{{.*}}) outs(%{{.*}}) {perm = array<i64: 1, 0, 2>} : memref<2x3x20xf32>, memref<3x2x20xf32>
// CHECK-NOT: tensor<16x16xf32>
func.func @main(%x: tensor<2x3x20xf32> {hgraph.name = "x"}) -> (tensor<2x20x3xf32> {hgraph.name = "y"}, tensor<3x2x20xf32> {hgraph.name = "z"}) {
  %0 = hgraph.transpose %x {perm = array<i64: 0, 2, 1>} : tensor<2x3x20xf32> -> tensor<2x20x3xf32>
  %1 = hgraph.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<2x3x20xf32> -> tensor<3x2x20xf32>
  return %0, %1 : tensor<2x20x3xf32>, tensor<3x2x20xf32>
}

// -----

// Tests the elementwise math ops the vector unit runs.
// CHECK-LABEL: func.func @main()
// CHECK: htile.unary sqrt
// CHECK: htile.unary log
// CHECK: htile.unary abs
// CHECK: htile.binary min
// CHECK: htile.binary pow
func.func @main(%x: tensor<2x8xf32> {hgraph.name = "x"}) -> (tensor<2x8xf32> {hgraph.name = "y"}) {
  %0 = hgraph.sqrt %x : tensor<2x8xf32>
  %1 = hgraph.log %0 : tensor<2x8xf32>
  %2 = hgraph.abs %1 : tensor<2x8xf32>
  %3 = hgraph.min %2, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = hgraph.pow %3, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// Tests reductions over the innermost axis: with keepdims the row results
// stay a column; without, they are transposed into one row and viewed; a
// mean divides the sum by the count.
// CHECK-LABEL: func.func @main()
// CHECK: htile.reduce max ins(%[[X:.*]]) outs(%[[M:.*]]) : memref<3x20xf32>, memref<3x1xf32>
// CHECK: htile.reduce sum ins(%[[X]]) outs(%[[S:.*]]) : memref<3x20xf32>, memref<3x1xf32>
// CHECK: %[[N:.*]] = htile.constant dense<2.000000e+01> : tensor<1xf32> : memref<1xf32>
// CHECK: htile.binary div ins(%[[S]], %[[N]]) outs(%[[MEAN:.*]]) : memref<3x1xf32>, memref<1xf32>, memref<3x1xf32>
// CHECK: htile.transpose ins(%[[MEAN]]) outs(%[[T:.*]]) identity(%{{.*}}) {perm = array<i64: 1, 0>} : memref<3x1xf32>, memref<1x3xf32>
// CHECK: htile.view %[[T]] : memref<1x3xf32> to memref<3xf32>
func.func @main(%x: tensor<3x20xf32> {hgraph.name = "x"}) -> (tensor<3x1xf32> {hgraph.name = "m"}, tensor<3xf32> {hgraph.name = "a"}) {
  %0 = hgraph.reduce max %x {axes = array<i64: 1>, keepdims = true} : tensor<3x20xf32> -> tensor<3x1xf32>
  %1 = hgraph.reduce mean %x {axes = array<i64: 1>, keepdims = false} : tensor<3x20xf32> -> tensor<3xf32>
  return %0, %1 : tensor<3x1xf32>, tensor<3xf32>
}

// -----

// Tests that a transpose of a batch of one, which holds its result as
// [C, H*W] (a 2-D transpose), sets the rows of the elementwise kernels
// after it: the add runs on a view of them as [1, C, H*W], and only the
// output is regrouped into [1, C, H, W] (not the add's operands).
// CHECK-LABEL: func.func @held_without_the_batch
func.func @held_without_the_batch(%x: tensor<1x8x8x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: %[[T:.*]] = htile.alloc : memref<4x64xf32>
  // CHECK: htile.transpose ins(%{{.*}}) outs(%[[T]])
  // CHECK: %[[V:.*]] = htile.view %[[T]] : memref<4x64xf32> to memref<1x4x64xf32>
  // CHECK: %[[S:.*]] = htile.alloc : memref<1x4x64xf32>
  // CHECK: htile.binary add ins(%[[V]], %[[V]]) outs(%[[S]])
  // CHECK: %[[O:.*]] = htile.alloc : memref<1x4x8x8xf32>
  // CHECK: htile.gather ins(%[[S]]) outs(%[[O]])
  // CHECK: htile.output "output0", %[[O]]
  %0 = hgraph.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x8x8x4xf32> -> tensor<1x4x8x8xf32>
  %1 = hgraph.add %0, %0 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %1 : tensor<1x4x8x8xf32>
}
