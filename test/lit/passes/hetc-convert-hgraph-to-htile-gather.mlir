// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-hgraph-to-htile | FileCheck %s

// Tests the index maps of concat (along the row), slice with negative
// steps and a concat of rows: every element of the result names the
// element of the inputs (taken as one list) it copies. A reshape moves
// nothing: the concat reads the slice as it lies, and only the output of
// another row length is regrouped, at the end.
// CHECK-LABEL: func.func @main()
// CHECK: %[[A:.*]] = htile.input "a" : memref<2x3xf32>
// CHECK: %[[B:.*]] = htile.input "b" : memref<2x2xf32>
// CHECK: %[[CAT:.*]] = htile.alloc : memref<2x5xf32>
// CHECK: htile.gather ins(%[[A]], %[[B]]) outs(%[[CAT]]) indices [0, 1, 2, 6, 7, 3, 4, 5, 8, 9] : (memref<2x3xf32>, memref<2x2xf32>) -> memref<2x5xf32>
// CHECK: %[[SL:.*]] = htile.alloc : memref<2x3xf32>
// CHECK: htile.gather ins(%[[CAT]]) outs(%[[SL]]) indices [9, 7, 5, 4, 2, 0] : (memref<2x5xf32>) -> memref<2x3xf32>
// CHECK: %[[ROWS:.*]] = htile.alloc : memref<5x2xf32>
// CHECK: htile.gather ins(%[[SL]], %[[B]]) outs(%[[ROWS]]) indices [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] : (memref<2x3xf32>, memref<2x2xf32>) -> memref<5x2xf32>
// CHECK: htile.output "cat", %[[CAT]]
// CHECK: htile.output "rows", %[[ROWS]]
// CHECK: %[[FLAT:.*]] = htile.alloc : memref<10xf32>
// CHECK: htile.gather ins(%[[CAT]]) outs(%[[FLAT]]) indices [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] : (memref<2x5xf32>) -> memref<10xf32>
// CHECK: htile.output "flat", %[[FLAT]]
func.func @main(%a: tensor<2x3xf32> {hgraph.name = "a"}, %b: tensor<2x2xf32> {hgraph.name = "b"}) -> (tensor<2x5xf32> {hgraph.name = "cat"}, tensor<5x2xf32> {hgraph.name = "rows"}, tensor<10xf32> {hgraph.name = "flat"}) {
  %0 = hgraph.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  %1 = hgraph.slice %0 {starts = array<i64: 1, 4>, steps = array<i64: -1, -2>} : tensor<2x5xf32> -> tensor<2x3xf32>
  %2 = hgraph.reshape %0 : tensor<2x5xf32> -> tensor<10xf32>
  %3 = hgraph.reshape %1 : tensor<2x3xf32> -> tensor<3x2xf32>
  %4 = hgraph.concat %3, %b {axis = 0 : i64} : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<5x2xf32>
  return %0, %4, %2 : tensor<2x5xf32>, tensor<5x2xf32>, tensor<10xf32>
}

// -----

// Tests that a transpose moving the innermost dimension elsewhere than
// second-innermost is, once its unit axis is dropped and adjacent axes
// merge, a swap of [2, 3] on the matrix plane, whose [3, 2] rows hold the
// [3, 2, 1] result as it lies (the split reads them so); that a swap of
// the two innermost dimensions stays a matrix-plane transpose; and that
// split gives one gather per piece.
// CHECK-LABEL: func.func @main()
// CHECK: %[[X:.*]] = htile.input "x" : memref<2x1x3xf32>
// CHECK: %[[V:.*]] = htile.view %[[X]] : memref<2x1x3xf32> to memref<2x3xf32>
// CHECK: %[[S:.*]] = htile.alloc : memref<3x2xf32>
// CHECK: htile.transpose ins(%[[V]]) outs(%[[S]]) identity(%{{.*}}) {perm = array<i64: 1, 0>}
// CHECK: %[[P0:.*]] = htile.alloc : memref<1x2x1xf32>
// CHECK: htile.gather ins(%[[S]]) outs(%[[P0]]) indices [0, 1]
// CHECK: %[[P1:.*]] = htile.alloc : memref<2x2x1xf32>
// CHECK: htile.gather ins(%[[S]]) outs(%[[P1]]) indices [2, 3, 4, 5]
// CHECK: htile.transpose ins(%[[P1]]) outs(%{{.*}}) identity(%{{.*}}) {perm = array<i64: 0, 2, 1>}
func.func @main(%x: tensor<2x1x3xf32> {hgraph.name = "x"}) -> (tensor<1x2x1xf32>, tensor<2x1x2xf32>) {
  %0 = hgraph.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x1x3xf32> -> tensor<3x2x1xf32>
  %1:2 = hgraph.split %0 {axis = 0 : i64} : tensor<3x2x1xf32> -> (tensor<1x2x1xf32>, tensor<2x2x1xf32>)
  %2 = hgraph.transpose %1#1 {perm = array<i64: 0, 2, 1>} : tensor<2x2x1xf32> -> tensor<2x1x2xf32>
  return %1#0, %2 : tensor<1x2x1xf32>, tensor<2x1x2xf32>
}

// -----

// Tests pad: zero fill needs no data (-1), another fill value is one more
// input whose element the padding copies, and reflect mirrors without
// repeating the edge.
// CHECK-LABEL: func.func @main()
// CHECK: %[[X:.*]] = htile.input "x" : memref<1x3xf32>
// CHECK: %[[Z:.*]] = htile.alloc : memref<1x5xf32>
// CHECK: htile.gather ins(%[[X]]) outs(%[[Z]]) indices [-1, 0, 1, 2, -1] : (memref<1x3xf32>) -> memref<1x5xf32>
// CHECK: %[[FILL:.*]] = htile.constant dense<1.500000e+00> : tensor<f32> : memref<f32>
// CHECK: %[[F:.*]] = htile.alloc : memref<2x3xf32>
// CHECK: htile.gather ins(%[[X]], %[[FILL]]) outs(%[[F]]) indices [0, 1, 2, 3, 3, 3] : (memref<1x3xf32>, memref<f32>) -> memref<2x3xf32>
// CHECK: %[[M:.*]] = htile.alloc : memref<1x7xf32>
// CHECK: htile.gather ins(%[[X]]) outs(%[[M]]) indices [2, 1, 0, 1, 2, 1, 0] : (memref<1x3xf32>) -> memref<1x7xf32>
func.func @main(%x: tensor<1x3xf32> {hgraph.name = "x"}) -> (tensor<1x5xf32>, tensor<2x3xf32>, tensor<1x7xf32>) {
  %zero = hgraph.constant dense<0.0> : tensor<f32>
  %fill = hgraph.constant dense<1.5> : tensor<f32>
  %0 = hgraph.pad %x, %zero {mode = "constant", pads = array<i64: 0, 1, 0, 1>} : (tensor<1x3xf32>, tensor<f32>) -> tensor<1x5xf32>
  %1 = hgraph.pad %x, %fill {mode = "constant", pads = array<i64: 0, 0, 1, 0>} : (tensor<1x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = hgraph.pad %x {mode = "reflect", pads = array<i64: 0, 2, 0, 2>} : (tensor<1x3xf32>) -> tensor<1x7xf32>
  return %0, %1, %2 : tensor<1x5xf32>, tensor<2x3xf32>, tensor<1x7xf32>
}

// -----

// Tests tile, expand, gather and gather_elements with constant indices
// (negative ones count from the end); the integer indices stay on the host.
// CHECK-LABEL: func.func @main()
// CHECK: %[[X:.*]] = htile.input "x" : memref<2x3xf32>
// CHECK: htile.gather ins(%[[X]]) outs(%{{.*}}) indices [0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5] : (memref<2x3xf32>) -> memref<2x6xf32>
// CHECK: htile.gather ins(%{{.*}}) outs(%{{.*}}) indices [0, 0, 1, 1, 0, 0, 1, 1] : (memref<2x1xf32>) -> memref<2x2x2xf32>
// CHECK: htile.gather ins(%[[X]]) outs(%{{.*}}) indices [3, 4, 5, 0, 1, 2] : (memref<2x3xf32>) -> memref<2x3xf32>
// CHECK: htile.gather ins(%[[X]]) outs(%{{.*}}) indices [2, 0, 4, 4] : (memref<2x3xf32>) -> memref<2x2xf32>
// CHECK-NOT: htile.constant
func.func @main(%x: tensor<2x3xf32> {hgraph.name = "x"}, %c: tensor<2x1xf32> {hgraph.name = "c"}) -> (tensor<2x6xf32>, tensor<2x2x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>) {
  %ids = hgraph.constant dense<[-1, 0]> : tensor<2xi64>
  %eids = hgraph.constant dense<[[2, 0], [1, 1]]> : tensor<2x2xi64>
  %0 = hgraph.tile %x {repeats = array<i64: 1, 2>} : tensor<2x3xf32> -> tensor<2x6xf32>
  %1 = hgraph.expand %c : tensor<2x1xf32> -> tensor<2x2x2xf32>
  %2 = hgraph.gather %x, %ids {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %3 = hgraph.gather_elements %x, %eids {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return %0, %1, %2, %3 : tensor<2x6xf32>, tensor<2x2x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>
}

// -----

// Tests NCHW to NHWC, [0, 2, 3, 1] of [1, 4, 2, 3]: H and W merge, so it is
// a swap of [4, 6] on the matrix plane between a regrouping of the input's
// rows (3 to 6 elements) and a view of the result ([6, 4] as [1, 2, 3, 4]
// keeps its rows). No element-by-element gather of the whole tensor.
// CHECK-LABEL: func.func @nchw_to_nhwc()
// CHECK: %[[X:.*]] = htile.input "x" : memref<1x4x2x3xf32>
// CHECK: %[[R:.*]] = htile.alloc : memref<4x6xf32>
// CHECK: htile.gather ins(%[[X]]) outs(%[[R]]) indices [0, 1, 2, {{.*}}, 23] : (memref<1x4x2x3xf32>) -> memref<4x6xf32>
// CHECK: %[[S:.*]] = htile.alloc : memref<6x4xf32>
// CHECK: htile.transpose ins(%[[R]]) outs(%[[S]]) identity(%{{.*}}) {perm = array<i64: 1, 0>}
// CHECK: %[[Y:.*]] = htile.view %[[S]] : memref<6x4xf32> to memref<1x2x3x4xf32>
// CHECK: htile.output "y", %[[Y]]
func.func @nchw_to_nhwc(%x: tensor<1x4x2x3xf32> {hgraph.name = "x"}) -> (tensor<1x2x3x4xf32> {hgraph.name = "y"}) {
  %0 = hgraph.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x4x2x3xf32> -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}
