// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-hgraph-decompose

// Tests that a transposed convolution of an empty map is an error naming
// the dimension, not a division by zero (a fuzzed model found it).
func.func @conv_transpose_empty_map(%x: tensor<1x1x0xf32>, %w: tensor<1x2x3xf32>) -> tensor<1x2x5xf32> {
  // expected-error @+1 {{transposed convolution of an empty map (spatial dimension 0 has no elements) is not supported}}
  %0 = hgraph.conv_transpose %x, %w {dilations = array<i64: 1>, group = 1 : i64, output_padding = array<i64: 0>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x1x0xf32>, tensor<1x2x3xf32>) -> tensor<1x2x5xf32>
  return %0 : tensor<1x2x5xf32>
}
