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

// -----

// Tests that casts to and from the narrow types do not fold: only the
// chip's V_CAST implements their rounding.
// CHECK-LABEL: func.func @narrow_cast
// CHECK: hgraph.cast %{{.*}} : tensor<2xf32> -> tensor<2xf8E4M3FN>
// CHECK: hgraph.cast %{{.*}} : tensor<2xi4> -> tensor<2xf32>
func.func @narrow_cast() -> (tensor<2xf8E4M3FN>, tensor<2xf32>) {
  %a = hgraph.constant dense<[100.0, 1.0e6]> : tensor<2xf32>
  %0 = hgraph.cast %a : tensor<2xf32> -> tensor<2xf8E4M3FN>
  %b = hgraph.constant dense<[3, -2]> : tensor<2xi4>
  %1 = hgraph.cast %b : tensor<2xi4> -> tensor<2xf32>
  return %0, %1 : tensor<2xf8E4M3FN>, tensor<2xf32>
}
