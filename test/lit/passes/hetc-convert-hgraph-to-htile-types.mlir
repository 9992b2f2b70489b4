// RUN: hetc-opt %s --split-input-file --hetc-convert-hgraph-to-htile=chip=%chips/test-chip.chip | FileCheck %s

// Tests that f16 tensors lower to kernels on f16 buffers, with a scalar f16
// constant expanded to a row, and that a cast becomes htile.cast.
// CHECK-LABEL: func.func @main()
func.func @main(%x: tensor<4x20xf16> {hgraph.name = "x"}) -> (tensor<4x20xf32> {hgraph.name = "y"}) {
  // CHECK: %[[X:.*]] = htile.input "x" : memref<4x20xf16>
  // CHECK: %[[TWO:.*]] = htile.constant dense<2.000000e+00> : tensor<20xf16> : memref<20xf16>
  // CHECK: htile.binary mul ins(%[[X]], %[[TWO]]) outs(%[[M:.*]]) : memref<4x20xf16>, memref<20xf16>, memref<4x20xf16>
  // CHECK: htile.unary exp ins(%[[M]]) outs(%[[E:.*]]) : memref<4x20xf16>, memref<4x20xf16>
  // CHECK: htile.cast ins(%[[E]]) outs(%[[Y:.*]]) : memref<4x20xf16>, memref<4x20xf32>
  // CHECK: htile.output "y", %[[Y]] : memref<4x20xf32>
  %two = hgraph.constant dense<2.0> : tensor<f16>
  %0 = hgraph.mul %x, %two : (tensor<4x20xf16>, tensor<f16>) -> tensor<4x20xf16>
  %1 = hgraph.exp %0 : tensor<4x20xf16>
  %2 = hgraph.cast %1 : tensor<4x20xf16> -> tensor<4x20xf32>
  return %2 : tensor<4x20xf32>
}

// -----

// Tests that comparisons write i1 buffers, that the logical ops and Not run
// on them, and that where becomes htile.select.
// CHECK-LABEL: func.func @main()
func.func @main(%a: tensor<2x8xi32> {hgraph.name = "a"}, %b: tensor<2x8xi32> {hgraph.name = "b"}) -> (tensor<2x8xi32> {hgraph.name = "y"}) {
  // CHECK: htile.binary greater ins(%{{.*}}, %{{.*}}) outs(%[[G:.*]]) : memref<2x8xi32>, memref<2x8xi32>, memref<2x8xi1>
  // CHECK: htile.binary equal ins
  // CHECK: htile.unary not ins
  // CHECK: htile.binary or ins
  // CHECK: htile.select ins(%{{.*}}, %{{.*}}, %{{.*}}) outs(%{{.*}}) : memref<2x8xi1>, memref<2x8xi32>, memref<2x8xi32>, memref<2x8xi32>
  %0 = hgraph.greater %a, %b : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi1>
  %1 = hgraph.equal %a, %b : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi1>
  %2 = hgraph.not %1 : tensor<2x8xi1>
  %3 = hgraph.or %0, %2 : (tensor<2x8xi1>, tensor<2x8xi1>) -> tensor<2x8xi1>
  %4 = hgraph.where %3, %a, %b : (tensor<2x8xi1>, tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi32>
  return %4 : tensor<2x8xi32>
}

// -----

// Tests that int64 tensors are accepted (the chip holds them as i32) and
// that an i32 swap of the innermost dimensions is a gather, as the matrix
// unit does not multiply i32.
// CHECK-LABEL: func.func @main()
func.func @main(%x: tensor<3x5xi64> {hgraph.name = "x"}) -> (tensor<5x3xi64> {hgraph.name = "y"}) {
  // CHECK: %[[X:.*]] = htile.input "x" : memref<3x5xi64>
  // CHECK: htile.binary add ins(%[[X]], %[[X]]) outs(%[[S:.*]]) : memref<3x5xi64>
  // CHECK: htile.gather ins(%[[S]]) outs(%{{.*}}) indices [0, 5, 10, 1, 6, 11, 2, 7, 12, 3, 8, 13, 4, 9, 14] : (memref<3x5xi64>) -> memref<5x3xi64>
  %0 = hgraph.add %x, %x : (tensor<3x5xi64>, tensor<3x5xi64>) -> tensor<3x5xi64>
  %1 = hgraph.transpose %0 {perm = array<i64: 1, 0>} : tensor<3x5xi64> -> tensor<5x3xi64>
  return %1 : tensor<5x3xi64>
}
