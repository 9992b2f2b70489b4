// RUN: hetc-opt %s | hetc-opt | FileCheck %s

// Tests that every hgraph op prints and parses back unchanged.
// CHECK-LABEL: func.func @ops
func.func @ops(%x: tensor<4x8xf32> {hgraph.name = "x"}, %b: tensor<8xf32>) -> tensor<4x3xf32> {
  // CHECK: hgraph.constant dense<5.000000e-01> : tensor<8x3xf32>
  %w = hgraph.constant dense<0.5> : tensor<8x3xf32>
  // CHECK: hgraph.add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = hgraph.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: hgraph.sub
  %1 = hgraph.sub %0, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: hgraph.mul
  %2 = hgraph.mul %1, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: hgraph.div
  %3 = hgraph.div %2, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: hgraph.relu %{{.*}} : tensor<4x8xf32>
  %4 = hgraph.relu %3 : tensor<4x8xf32>
  // CHECK: hgraph.sigmoid
  %5 = hgraph.sigmoid %4 : tensor<4x8xf32>
  // CHECK: hgraph.tanh
  %6 = hgraph.tanh %5 : tensor<4x8xf32>
  // CHECK: hgraph.softmax %{{.*}} {axis = -1 : i64} : tensor<4x8xf32>
  %7 = hgraph.softmax %6 {axis = -1 : i64} : tensor<4x8xf32>
  // CHECK: hgraph.reshape %{{.*}} : tensor<4x8xf32> -> tensor<2x2x8xf32>
  %8 = hgraph.reshape %7 : tensor<4x8xf32> -> tensor<2x2x8xf32>
  // CHECK: hgraph.transpose %{{.*}} {perm = array<i64: 1, 0, 2>} : tensor<2x2x8xf32> -> tensor<2x2x8xf32>
  %9 = hgraph.transpose %8 {perm = array<i64: 1, 0, 2>} : tensor<2x2x8xf32> -> tensor<2x2x8xf32>
  // CHECK: hgraph.matmul %{{.*}}, %{{.*}} : (tensor<2x2x8xf32>, tensor<8x3xf32>) -> tensor<2x2x3xf32>
  %10 = hgraph.matmul %9, %w : (tensor<2x2x8xf32>, tensor<8x3xf32>) -> tensor<2x2x3xf32>
  // CHECK: hgraph.gemm %{{.*}}, %{{.*}}, %{{.*}} {alpha = 2.000000e+00 : f32, trans_b = true} : (tensor<4x8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %wt = hgraph.constant dense<0.25> : tensor<3x8xf32>
  %c = hgraph.constant dense<1.0> : tensor<3xf32>
  %11 = hgraph.gemm %x, %wt, %c {alpha = 2.0 : f32, trans_b = true} : (tensor<4x8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: hgraph.linear %{{.*}}, %{{.*}}, %{{.*}} activation(relu) : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %12 = hgraph.linear %x, %w, %c activation(relu) : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: hgraph.linear %{{.*}}, %{{.*}} transposed activation(none) : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x3xf32>
  %w3 = hgraph.transpose %w {perm = array<i64: 1, 0>} : tensor<8x3xf32> -> tensor<3x8xf32>
  %lt = hgraph.linear %x, %w3 transposed activation(none) : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x3xf32>
  // CHECK: hgraph.linear %{{.*}}, %{{.*}} activation(none)
  %13 = hgraph.linear %x, %w activation(none) : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  // CHECK: hgraph.linear %{{.*}}, %{{.*}}, %{{.*}} scale(%{{.*}} : tensor<3xf32>) activation(none) : (tensor<4x8xf16>, tensor<8x3xi8>, tensor<3xf32>) -> tensor<4x3xf32>
  %x16 = hgraph.cast %x : tensor<4x8xf32> -> tensor<4x8xf16>
  %q = hgraph.constant dense<3> : tensor<8x3xi8>
  %14 = hgraph.linear %x16, %q, %c scale(%c : tensor<3xf32>) activation(none) : (tensor<4x8xf16>, tensor<8x3xi8>, tensor<3xf32>) -> tensor<4x3xf32>
  return %13 : tensor<4x3xf32>
}
