// RUN: hetc-opt %s --split-input-file --canonicalize | FileCheck %s

// Tests that a shape computation on constants folds to one constant.
// CHECK-LABEL: func.func @shape_math
// CHECK-NEXT: %[[C:.*]] = hgraph.constant dense<[2, 12]> : tensor<2xi64>
// CHECK-NEXT: return %[[C]]
func.func @shape_math() -> tensor<2xi64> {
  %s = hgraph.constant dense<[2, 3, 4]> : tensor<3xi64>
  %i = hgraph.constant dense<0> : tensor<1xi64>
  %b = hgraph.gather %s, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %rest = hgraph.slice %s {starts = array<i64: 1>, steps = array<i64: 1>} : tensor<3xi64> -> tensor<2xi64>
  %p = hgraph.reduce prod %rest {axes = array<i64: 0>, keepdims = true} : tensor<2xi64> -> tensor<1xi64>
  %r = hgraph.concat %b, %p {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// -----

// Tests that float elementwise ops, casts and comparisons fold.
// CHECK-LABEL: func.func @elementwise
// CHECK-NEXT: %[[C:.*]] = hgraph.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT: return %[[C]]
func.func @elementwise() -> tensor<2xi1> {
  %a = hgraph.constant dense<[4.0, 9.0]> : tensor<2xf32>
  %s = hgraph.sqrt %a : tensor<2xf32>
  %n = hgraph.neg %s : tensor<2xf32>
  %i = hgraph.cast %n : tensor<2xf32> -> tensor<2xi64>
  %k = hgraph.constant dense<-2> : tensor<i64>
  %e = hgraph.equal %i, %k : (tensor<2xi64>, tensor<i64>) -> tensor<2xi1>
  return %e : tensor<2xi1>
}
