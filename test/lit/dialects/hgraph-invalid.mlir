// RUN: hetc-opt %s --split-input-file --verify-diagnostics

// Tests that operands that do not broadcast are rejected.
func.func @bad_broadcast(%a: tensor<4x8xf32>, %b: tensor<3xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{operand shapes [4, 8] and [3] do not broadcast}}
  %0 = hgraph.add %a, %b : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that a wrong broadcast result shape is rejected.
func.func @bad_result(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{result shape [8, 8] should be the broadcast shape [4, 8]}}
  %0 = hgraph.mul %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// Tests that matmul checks its contraction dimension.
func.func @bad_matmul(%a: tensor<4x8xf32>, %b: tensor<7x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{contraction dimensions differ: lhs [4, 8] has 8, rhs [7, 3] has 7}}
  %0 = hgraph.matmul %a, %b : (tensor<4x8xf32>, tensor<7x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests that gemm checks C against the result.
func.func @bad_gemm(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{C of shape [4] does not broadcast to [4, 3]}}
  %0 = hgraph.gemm %a, %b, %c : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests that softmax rejects an axis outside the rank.
func.func @bad_axis(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{axis -3 is out of range for rank 2}}
  %0 = hgraph.softmax %a {axis = -3 : i64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that reshape keeps the element count.
func.func @bad_reshape(%a: tensor<4x8xf32>) -> tensor<5x8xf32> {
  // expected-error @+1 {{cannot reshape [4, 8] (32 elements) to [5, 8] (40 elements)}}
  %0 = hgraph.reshape %a : tensor<4x8xf32> -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}

// -----

// Tests that transpose needs a permutation.
func.func @bad_perm(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{perm [1, 1] is not a permutation of [0, 2)}}
  %0 = hgraph.transpose %a {perm = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Tests that linear checks its bias.
func.func @bad_bias(%a: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{bias shape [4] should be [3] or [1, 3]}}
  %0 = hgraph.linear %a, %w, %b activation(none) : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests that linear checks its scale: f32, one per output column.
func.func @bad_scale(%a: tensor<4x8xf16>, %w: tensor<8x3xi8>, %s: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{scale must be f32 of shape [3] or [1, 3], not 'tensor<4xf32>'}}
  %0 = hgraph.linear %a, %w scale(%s : tensor<4xf32>) activation(none) : (tensor<4x8xf16>, tensor<8x3xi8>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests that a transposed weight (N x K) meets the input on its K.
func.func @transposed_contraction(%q: tensor<1x64xf32>, %k: tensor<64x128xf32>) -> tensor<1x64xf32> {
  // expected-error @+1 {{contraction dimensions differ: input has 64, weight has 128 (transposed: N x K)}}
  %0 = hgraph.linear %q, %k transposed activation(none) : (tensor<1x64xf32>, tensor<64x128xf32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// -----

// Tests that a transposed weight has the input's type.
func.func @transposed_type(%q: tensor<1x64xf16>, %k: tensor<128x64xf32>) -> tensor<1x128xf32> {
  // expected-error @+1 {{a transposed weight must be a float of the input's type ('f16'), without a scale}}
  %0 = hgraph.linear %q, %k transposed activation(none) : (tensor<1x64xf16>, tensor<128x64xf32>) -> tensor<1x128xf32>
  return %0 : tensor<1x128xf32>
}

// -----

// Tests that an i8 weight needs a scale and an f16 or bf16 input.
func.func @int8_weight_without_scale(%a: tensor<4x8xf16>, %w: tensor<8x3xi8>) -> tensor<4x3xf32> {
  // expected-error @+1 {{an i8 weight needs a scale and an f16 or bf16 input, to which its rows are converted}}
  %0 = hgraph.linear %a, %w activation(none) : (tensor<4x8xf16>, tensor<8x3xi8>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
