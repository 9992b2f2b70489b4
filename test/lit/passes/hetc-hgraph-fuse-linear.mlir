// RUN: hetc-opt %s --split-input-file --hetc-hgraph-fuse-linear | FileCheck %s

// Tests that matmul + row bias + relu fuse into one linear op.
// CHECK-LABEL: func.func @matmul_bias_relu
func.func @matmul_bias_relu(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  // CHECK: %[[L:.*]] = hgraph.linear %{{.*}}, %{{.*}}, %{{.*}} activation(relu)
  // CHECK-NOT: hgraph.add
  // CHECK: return %[[L]]
  %0 = hgraph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %1 = hgraph.add %b, %0 : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %2 = hgraph.relu %1 : tensor<4x3xf32>
  return %2 : tensor<4x3xf32>
}

// -----

// Tests that a bias of full shape is not a row bias and stays an add.
// CHECK-LABEL: func.func @full_bias
func.func @full_bias(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // CHECK: %[[L:.*]] = hgraph.linear %{{.*}}, %{{.*}} activation(none)
  // CHECK: hgraph.add %[[L]], %{{.*}}
  %0 = hgraph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %1 = hgraph.add %0, %b : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// -----

// Tests that a matmul with a second use is not fused with its bias.
// CHECK-LABEL: func.func @shared_matmul
func.func @shared_matmul(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  // CHECK: %[[L:.*]] = hgraph.linear %{{.*}}, %{{.*}} activation(none)
  // CHECK: %[[A:.*]] = hgraph.add %[[L]], %{{.*}}
  // CHECK: return %[[A]], %[[L]]
  %0 = hgraph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %1 = hgraph.add %0, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %1, %0 : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// Tests that a batched left operand is flattened to rows and reshaped back.
// CHECK-LABEL: func.func @batched
func.func @batched(%x: tensor<2x5x8xf32>, %w: tensor<8x3xf32>) -> tensor<2x5x3xf32> {
  // CHECK: %[[R:.*]] = hgraph.reshape %{{.*}} : tensor<2x5x8xf32> -> tensor<10x8xf32>
  // CHECK: %[[L:.*]] = hgraph.linear %[[R]], %{{.*}} activation(sigmoid) : (tensor<10x8xf32>, tensor<8x3xf32>) -> tensor<10x3xf32>
  // CHECK: %[[B:.*]] = hgraph.reshape %[[L]] : tensor<10x3xf32> -> tensor<2x5x3xf32>
  // CHECK: return %[[B]]
  %0 = hgraph.matmul %x, %w : (tensor<2x5x8xf32>, tensor<8x3xf32>) -> tensor<2x5x3xf32>
  %1 = hgraph.sigmoid %0 : tensor<2x5x3xf32>
  return %1 : tensor<2x5x3xf32>
}

// -----

// Tests that the fused op is located at every ONNX node it replaces.
// RUN: hetc-opt %s --split-input-file --hetc-hgraph-fuse-linear --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=LOC
// LOC-LABEL: func.func @locations
// LOC: hgraph.linear {{.*}} loc(fused["mm", "bias", "act"])
func.func @locations(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %0 = hgraph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32> loc("mm")
  %1 = hgraph.add %0, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32> loc("bias")
  %2 = hgraph.tanh %1 : tensor<4x3xf32> loc("act")
  return %2 : tensor<4x3xf32>
}

// -----

// Tests that the fused op goes where the chain ends, so that a bias
// computed after the matmul dominates it.
// CHECK-LABEL: func.func @late_bias
func.func @late_bias(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[B:.*]] = hgraph.neg %arg2
  // CHECK-NEXT: %[[R:.*]] = hgraph.linear %arg0, %arg1, %[[B]] activation(none)
  // CHECK-NEXT: return %[[R]]
  %m = hgraph.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %nb = hgraph.neg %b : tensor<3xf32>
  %0 = hgraph.add %m, %nb : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that a computed weight that is a 2-D transpose is taken as it was,
// as a transposed weight, and the transpose goes.
// CHECK-LABEL: func.func @transposed_keys
func.func @transposed_keys(%q: tensor<1x64xf32>, %k: tensor<128x64xf32>) -> tensor<1x128xf32> {
  // CHECK-NOT: hgraph.transpose
  // CHECK: %[[L:.*]] = hgraph.linear %{{.*}}, %{{.*}} transposed activation(none) : (tensor<1x64xf32>, tensor<128x64xf32>) -> tensor<1x128xf32>
  // CHECK: return %[[L]]
  %t = hgraph.transpose %k {perm = array<i64: 1, 0>} : tensor<128x64xf32> -> tensor<64x128xf32>
  %0 = hgraph.matmul %q, %t : (tensor<1x64xf32>, tensor<64x128xf32>) -> tensor<1x128xf32>
  return %0 : tensor<1x128xf32>
}

// -----

// Tests that a constant weight behind a transpose is not taken transposed:
// it is folded (and may be narrowed) as a plain weight.
// CHECK-LABEL: func.func @constant_transpose
func.func @constant_transpose(%x: tensor<1x2xf32>) -> tensor<1x3xf32> {
  // CHECK: %[[W:.*]] = hgraph.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00]
  // CHECK: hgraph.linear %{{.*}}, %[[W]] activation(none) : (tensor<1x2xf32>, tensor<2x3xf32>)
  %w = hgraph.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %t = hgraph.transpose %w {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
  %0 = hgraph.matmul %x, %t : (tensor<1x2xf32>, tensor<2x3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}
