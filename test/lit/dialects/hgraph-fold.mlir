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

// -----

// Tests that reductions of an empty set fold to the identity: for max and
// min of integers and booleans the type's end of range (not an infinity
// converted to an integer), for floats -inf and +inf, for sum 0.
// CHECK-LABEL: func.func @empty_reductions
// CHECK-DAG: hgraph.constant dense<false> : tensor<2xi1>
// CHECK-DAG: hgraph.constant dense<true> : tensor<2xi1>
// CHECK-DAG: hgraph.constant dense<-2147483648> : tensor<2xi32>
// CHECK-DAG: hgraph.constant dense<255> : tensor<2xui8>
// CHECK-DAG: hgraph.constant dense<0xFF800000> : tensor<2xf32>
// CHECK-DAG: hgraph.constant dense<0.000000e+00> : tensor<2xf32>
func.func @empty_reductions() -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi32>, tensor<2xui8>, tensor<2xf32>, tensor<2xf32>) {
  %b = hgraph.constant dense<> : tensor<2x0xi1>
  %i = hgraph.constant dense<> : tensor<2x0xi32>
  %u = hgraph.constant dense<> : tensor<2x0xui8>
  %f = hgraph.constant dense<> : tensor<2x0xf32>
  %0 = hgraph.reduce max %b {axes = array<i64: 1>, keepdims = false} : tensor<2x0xi1> -> tensor<2xi1>
  %1 = hgraph.reduce min %b {axes = array<i64: 1>, keepdims = false} : tensor<2x0xi1> -> tensor<2xi1>
  %2 = hgraph.reduce max %i {axes = array<i64: 1>, keepdims = false} : tensor<2x0xi32> -> tensor<2xi32>
  %3 = hgraph.reduce min %u {axes = array<i64: 1>, keepdims = false} : tensor<2x0xui8> -> tensor<2xui8>
  %4 = hgraph.reduce max %f {axes = array<i64: 1>, keepdims = false} : tensor<2x0xf32> -> tensor<2xf32>
  %5 = hgraph.reduce sum %f {axes = array<i64: 1>, keepdims = false} : tensor<2x0xf32> -> tensor<2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2xi1>, tensor<2xi1>, tensor<2xi32>, tensor<2xui8>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Tests that a bitcast of a constant folds to the same bits read as the
// other type: 1.0f is 0x3F800000.
// CHECK-LABEL: func.func @bitcast
// CHECK-NEXT: %[[C:.*]] = hgraph.constant dense<[1065353216, 0]> : tensor<2xi32>
// CHECK-NEXT: return %[[C]]
func.func @bitcast() -> tensor<2xi32> {
  %a = hgraph.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %0 = hgraph.bitcast %a : tensor<2xf32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}
