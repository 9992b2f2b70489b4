// RUN: hetc-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(hetc-hgraph-narrow-weights))'
// RUN: not hetc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hetc-hgraph-narrow-weights{type=f8}))' 2>&1 | FileCheck %s --check-prefix=TYPE

// Tests that the type is f16, bf16 or i8.
// TYPE: hetc-hgraph-narrow-weights: type 'f8' is not f16, bf16 or i8

// Tests that a weight beyond f16's range (65504) is an error, not an
// infinity.
func.func @overflow(%x: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %w = hgraph.constant dense<1.0e6> : tensor<1x1xf32>
  // expected-error @+1 {{a weight of this layer is beyond the range of 'f16'; compile it at --precision fp32}}
  %y = hgraph.linear %x, %w activation(none) : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}
