// RUN: hetc-opt %s --split-input-file --canonicalize | FileCheck %s

// Tests that transposes and reshapes of constants fold.
// CHECK-LABEL: func.func @fold_transpose_reshape
func.func @fold_transpose_reshape() -> tensor<3x2xf32> {
  // CHECK: %[[C:.*]] = hgraph.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
  // CHECK-NEXT: return %[[C]]
  %0 = hgraph.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %1 = hgraph.reshape %0 : tensor<6xf32> -> tensor<2x3xf32>
  %2 = hgraph.transpose %1 {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}

// -----

// Tests that elementwise ops of constants fold with broadcasting.
// CHECK-LABEL: func.func @fold_binary
func.func @fold_binary() -> tensor<2x2xf32> {
  // CHECK: %[[C:.*]] = hgraph.constant dense<{{\[\[}}1.100000e+01, 2.200000e+01], [1.300000e+01, 2.400000e+01]]> : tensor<2x2xf32>
  // CHECK-NEXT: return %[[C]]
  %a = hgraph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = hgraph.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %0 = hgraph.add %a, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Tests that identity transposes and same-shape reshapes disappear.
// CHECK-LABEL: func.func @identities
func.func @identities(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: return %{{.*}} : tensor<2x3xf32>
  %0 = hgraph.transpose %x {perm = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = hgraph.reshape %0 : tensor<2x3xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
