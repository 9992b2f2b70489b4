// RUN: hetc-opt %s --split-input-file --hetc-hgraph-decompose | FileCheck %s

// Tests that a Gemm with transB, alpha and beta becomes transpose, matmul,
// scaling muls and an add.
// CHECK-LABEL: func.func @gemm_full
func.func @gemm_full(%a: tensor<4x8xf32>, %b: tensor<3x8xf32>, %c: tensor<3xf32>) -> tensor<4x3xf32> {
  // CHECK-DAG: %[[ALPHA:.*]] = hgraph.constant dense<5.000000e-01> : tensor<f32>
  // CHECK-DAG: %[[BETA:.*]] = hgraph.constant dense<2.000000e+00> : tensor<f32>
  // CHECK: %[[T:.*]] = hgraph.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<3x8xf32> -> tensor<8x3xf32>
  // CHECK: %[[M:.*]] = hgraph.matmul %{{.*}}, %[[T]] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  // CHECK: %[[S:.*]] = hgraph.mul %[[M]], %[[ALPHA]]
  // CHECK: %[[C:.*]] = hgraph.mul %{{.*}}, %[[BETA]]
  // CHECK: %[[R:.*]] = hgraph.add %[[S]], %[[C]] : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: return %[[R]]
  %0 = hgraph.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, trans_b = true} : (tensor<4x8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests that a plain Gemm without C is just a matmul.
// CHECK-LABEL: func.func @gemm_plain
func.func @gemm_plain(%a: tensor<8x4xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  // CHECK: hgraph.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: hgraph.matmul
  // CHECK-NEXT: return
  %0 = hgraph.gemm %a, %b {trans_a = true} : (tensor<8x4xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests that beta = 0 drops C.
// CHECK-LABEL: func.func @gemm_beta_zero
func.func @gemm_beta_zero(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<3xf32>) -> tensor<4x3xf32> {
  // CHECK: hgraph.matmul
  // CHECK-NOT: hgraph.add
  // CHECK: return
  %0 = hgraph.gemm %a, %b, %c {beta = 0.0 : f32} : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
