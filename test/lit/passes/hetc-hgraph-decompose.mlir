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

// -----

// Tests LeakyRelu as max(x, alpha * x) (min for alpha above 1).
// CHECK-LABEL: func.func @leaky_relu
func.func @leaky_relu(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK-DAG: %[[A:.*]] = hgraph.constant dense<1.000000e-01> : tensor<f32>
  // CHECK-DAG: %[[B:.*]] = hgraph.constant dense<2.000000e+00> : tensor<f32>
  // CHECK: %[[S:.*]] = hgraph.mul %{{.*}}, %[[A]]
  // CHECK: hgraph.max %{{.*}}, %[[S]]
  // CHECK: %[[T:.*]] = hgraph.mul %{{.*}}, %[[B]]
  // CHECK: hgraph.min %{{.*}}, %[[T]]
  %0 = hgraph.leaky_relu %x {alpha = 0.1 : f32} : tensor<4xf32>
  %1 = hgraph.leaky_relu %x {alpha = 2.0 : f32} : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests Clip as max with the lower bound, then min with the upper.
// CHECK-LABEL: func.func @clip
func.func @clip(%x: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<4xf32> {
  // CHECK: %[[M:.*]] = hgraph.max %arg0, %arg1
  // CHECK: %[[N:.*]] = hgraph.min %[[M]], %arg2
  // CHECK: return %[[N]]
  %0 = hgraph.clip %x, min %lo, max %hi : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests Gelu through erf.
// CHECK-LABEL: func.func @gelu
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: hgraph.mul %arg0
  // CHECK: hgraph.erf
  // CHECK: hgraph.add
  // CHECK: hgraph.mul %arg0
  // CHECK: hgraph.mul
  // CHECK-NOT: hgraph.gelu
  %0 = hgraph.gelu %x {approximate = "none"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests LayerNormalization over the last axis in ONNX's order of operations.
// CHECK-LABEL: func.func @layer_norm
func.func @layer_norm(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[M:.*]] = hgraph.reduce mean %arg0 {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  // CHECK: %[[D:.*]] = hgraph.sub %arg0, %[[M]]
  // CHECK: %[[SQ:.*]] = hgraph.mul %[[D]], %[[D]]
  // CHECK: %[[V:.*]] = hgraph.reduce mean %[[SQ]]
  // CHECK: %[[E:.*]] = hgraph.add %[[V]], %{{.*}} : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  // CHECK: %[[S:.*]] = hgraph.sqrt %[[E]]
  // CHECK: %[[N:.*]] = hgraph.div %[[D]], %[[S]]
  // CHECK: %[[G:.*]] = hgraph.mul %[[N]], %arg1
  // CHECK: hgraph.add %[[G]], %arg2
  %0 = hgraph.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests RMSNormalization: no centring, no bias.
// CHECK-LABEL: func.func @rms_norm
func.func @rms_norm(%x: tensor<4x8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[SQ:.*]] = hgraph.mul %arg0, %arg0
  // CHECK: hgraph.reduce mean %[[SQ]]
  // CHECK: hgraph.sqrt
  // CHECK: hgraph.div %arg0
  // CHECK-NOT: hgraph.sub
  %0 = hgraph.rms_norm %x, %g {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
