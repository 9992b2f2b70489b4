// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-hgraph-to-htile | FileCheck %s

// Tests that a slice of whole rows is a view of them, read in place: one
// matrix of a batch ([1, 3, 8] of [4, 3, 8] from matrix 1: rows 3 to 5),
// and a range of rows inside one matrix ([1, 3, 8] of [2, 6, 8] from
// matrix 1, row 2: rows 8 to 10).
// CHECK-LABEL: func.func @main(
// CHECK: %[[A:.*]] = htile.input "a" : memref<4x3x8xf32>
// CHECK: %[[B:.*]] = htile.input "b" : memref<2x6x8xf32>
// The views are rows of the buffers as they lie; the add reads them in
// its own shape through plain views.
// CHECK: %[[VA:.*]] = htile.view %[[A]] rows 3 : memref<4x3x8xf32> to memref<3x8xf32>
// CHECK: %[[VB:.*]] = htile.view %[[B]] rows 8 : memref<2x6x8xf32> to memref<3x8xf32>
// CHECK-DAG: %[[SA:.*]] = htile.view %[[VA]] : memref<3x8xf32> to memref<1x3x8xf32>
// CHECK-DAG: %[[SB:.*]] = htile.view %[[VB]] : memref<3x8xf32> to memref<1x3x8xf32>
// CHECK-NOT: htile.gather
// CHECK: htile.binary add ins(%[[SA]], %[[SB]])
func.func @main(%a: tensor<4x3x8xf32> {hgraph.name = "a"}, %b: tensor<2x6x8xf32> {hgraph.name = "b"}) -> (tensor<1x3x8xf32> {hgraph.name = "y"}) {
  %0 = hgraph.slice %a {starts = array<i64: 1, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<4x3x8xf32> -> tensor<1x3x8xf32>
  %1 = hgraph.slice %b {starts = array<i64: 1, 2, 0>, steps = array<i64: 1, 1, 1>} : tensor<2x6x8xf32> -> tensor<1x3x8xf32>
  %2 = hgraph.add %0, %1 : (tensor<1x3x8xf32>, tensor<1x3x8xf32>) -> tensor<1x3x8xf32>
  return %2 : tensor<1x3x8xf32>
}

// -----

// Tests that slices whose elements are not a run of whole rows are
// gathered: part of each row, rows of two matrices that leave a gap, rows
// two apart.
// CHECK-LABEL: func.func @main(
// CHECK-NOT: htile.view
// CHECK: htile.gather ins(%{{.*}}) outs(%{{.*}}) indices [1, 2, 3, 5, 6, 7
// CHECK: htile.gather ins(%{{.*}}) outs(%{{.*}}) indices [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25
// CHECK: htile.gather ins(%{{.*}}) outs(%{{.*}}) indices [0, 1, 2, 3, 4, 5, 6, 7, 16, 17
func.func @main(%a: tensor<4x3x4xf32> {hgraph.name = "a"}, %b: tensor<4x3x8xf32> {hgraph.name = "b"}) -> (tensor<4x3x3xf32> {hgraph.name = "cols"}, tensor<2x2x8xf32> {hgraph.name = "gap"}, tensor<4x2x8xf32> {hgraph.name = "strided"}) {
  %0 = hgraph.slice %a {starts = array<i64: 0, 0, 1>, steps = array<i64: 1, 1, 1>} : tensor<4x3x4xf32> -> tensor<4x3x3xf32>
  %1 = hgraph.slice %b {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<4x3x8xf32> -> tensor<2x2x8xf32>
  %2 = hgraph.slice %b {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 2, 1>} : tensor<4x3x8xf32> -> tensor<4x2x8xf32>
  return %0, %1, %2 : tensor<4x3x3xf32>, tensor<2x2x8xf32>, tensor<4x2x8xf32>
}

// -----

// Tests that a row scatter into a view of rows writes a copy: a view of
// rows is only read, and the rows it sees still belong to its source.
// CHECK-LABEL: func.func @main(
// CHECK: %[[T:.*]] = htile.input "t" : memref<4x8xf32>
// CHECK: %[[V:.*]] = htile.view %[[T]] rows 2 : memref<4x8xf32> to memref<2x8xf32>
// CHECK: %[[C:.*]] = htile.alloc : memref<2x8xf32>
// CHECK: htile.gather ins(%[[V]]) outs(%[[C]])
// CHECK: htile.scatter_rows ins(%{{.*}}, %{{.*}}) outs(%[[C]])
func.func @main(%t: tensor<4x8xf32> {hgraph.name = "t"}, %i: tensor<1xi64> {hgraph.name = "i"}, %u: tensor<1x8xf32> {hgraph.name = "u"}) -> (tensor<2x8xf32> {hgraph.name = "y"}) {
  %0 = hgraph.slice %t {starts = array<i64: 2, 0>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<2x8xf32>
  %1 = hgraph.scatter_rows %0, %i, %u : (tensor<2x8xf32>, tensor<1xi64>, tensor<1x8xf32>) -> tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

// -----

// Tests that the rows of a view are those of the buffer as it lies: a
// 1x1 convolution's result, held a map a row ([1, 4, 3, 3] as [4, 9]),
// sliced by channels 1 and 2 is rows 1 and 2 of 9 elements, with no copy
// of the maps into rows of 3 first.
// CHECK-LABEL: func.func @main(
// CHECK: %[[C:.*]] = htile.alloc : memref<4x9xf32>
// CHECK: htile.matmul ins(%{{.*}}, %{{.*}}) outs(%[[C]])
// CHECK-NEXT: %[[H:.*]] = htile.view %[[C]] : memref<4x9xf32> to memref<1x4x9xf32>
// CHECK-NEXT: %[[S:.*]] = htile.view %[[H]] rows 1 : memref<1x4x9xf32> to memref<2x9xf32>
// CHECK-NOT: htile.gather
// CHECK: htile.unary relu ins(%[[S]])
func.func @main(%x: tensor<1x1x3x3xf32> {hgraph.name = "x"}) -> (tensor<1x2x3x3xf32> {hgraph.name = "y"}) {
  %w = hgraph.constant dense<0.5> : tensor<4x1x1x1xf32>
  %0 = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<4x1x1x1xf32>) -> tensor<1x4x3x3xf32>
  %1 = hgraph.slice %0 {starts = array<i64: 0, 1, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x4x3x3xf32> -> tensor<1x2x3x3xf32>
  %2 = hgraph.relu %1 : tensor<1x2x3x3xf32>
  return %2 : tensor<1x2x3x3xf32>
}
