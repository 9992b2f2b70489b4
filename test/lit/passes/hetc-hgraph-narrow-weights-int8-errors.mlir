// RUN: hetc-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(hetc-hgraph-narrow-weights{type=i8}))'

// Tests that int8 refuses a weight that is not finite: no scale maps an
// infinity to int8.
func.func @infinite(%x: tensor<1x2xf32>) -> tensor<1x1xf32> {
  %w = hgraph.constant dense<[[1.0], [0x7F800000]]> : tensor<2x1xf32>
  // expected-error @+1 {{a weight of this layer is not finite; int8 holds finite values only, compile it at --precision fp32}}
  %y = hgraph.linear %x, %w activation(none) : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}

// -----

// Tests that int8 refuses a weight beyond f16's range (65504), as fp16
// does: the matrix unit multiplies in f16.
func.func @overflow(%x: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %w = hgraph.constant dense<1.0e6> : tensor<1x1xf32>
  // expected-error @+1 {{a weight of this layer is beyond the range of 'f16', in which the matrix unit multiplies; compile it at --precision fp32}}
  %y = hgraph.linear %x, %w activation(none) : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}
