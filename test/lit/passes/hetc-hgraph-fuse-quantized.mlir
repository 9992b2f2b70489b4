// RUN: hetc-opt %s --split-input-file --hetc-hgraph-fuse-quantized | FileCheck %s

// Tests that a QDQ convolution becomes an integer one: the i8 activation
// and weight multiplied into i32, the sums cast to f32 and scaled by
// sx * sw per channel (0.5 * [0.25, 2]), then the bias added.
// CHECK-LABEL: func.func @conv
func.func @conv(%xq: tensor<1x2x4x4xi8>, %b: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK-DAG: %[[S:.*]] = hgraph.constant dense<{{\[\[\[\[}}1.250000e-01]], {{\[\[}}1.000000e+00]]]]> : tensor<1x2x1x1xf32>
  // CHECK-DAG: %[[W:.*]] = hgraph.constant dense<{{.*}}> : tensor<2x2x1x1xi8>
  // CHECK: %[[C:.*]] = hgraph.conv %arg0, %[[W]] {{.*}} : (tensor<1x2x4x4xi8>, tensor<2x2x1x1xi8>) -> tensor<1x2x4x4xi32>
  // CHECK: %[[F:.*]] = hgraph.cast %[[C]] : tensor<1x2x4x4xi32> -> tensor<1x2x4x4xf32>
  // CHECK: %[[M:.*]] = hgraph.mul %[[F]], %[[S]]
  // CHECK: %[[B:.*]] = hgraph.reshape %arg1 : tensor<2xf32> -> tensor<1x2x1x1xf32>
  // CHECK: %[[A:.*]] = hgraph.add %[[M]], %[[B]]
  // CHECK: return %[[A]]
  // CHECK-NOT: dequantize_linear
  %sx = hgraph.constant dense<0.5> : tensor<f32>
  %wq = hgraph.constant dense<[[[[1]], [[-2]]], [[[3]], [[127]]]]> : tensor<2x2x1x1xi8>
  %sw = hgraph.constant dense<[0.25, 2.0]> : tensor<2xf32>
  %x = hgraph.dequantize_linear %xq, %sx {axis = 1 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %w = hgraph.dequantize_linear %wq, %sw {axis = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<2xf32>) -> tensor<2x2x1x1xf32>
  %y = hgraph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Tests that the quantisation of the result, through a ReLU between a
// quantise-dequantise pair, takes its scale (4) into the columns: sums
// times 0.5 * [0.25, 2] / 4, plus the constant bias [1, -2] / 4, the ReLU,
// and a quantisation of scale 1. The next convolution reads those
// integers as they are.
// CHECK-LABEL: func.func @requantize
func.func @requantize(%xq: tensor<1x2x4x4xi8>) -> tensor<1x2x4x4xi8> {
  // CHECK-DAG: %[[S:.*]] = hgraph.constant dense<{{\[\[\[\[}}3.125000e-02]], {{\[\[}}2.500000e-01]]]]> : tensor<1x2x1x1xf32>
  // CHECK-DAG: %[[B:.*]] = hgraph.constant dense<{{\[\[\[\[}}2.500000e-01]], {{\[\[}}-5.000000e-01]]]]> : tensor<1x2x1x1xf32>
  // CHECK-DAG: %[[ONE:.*]] = hgraph.constant dense<1.000000e+00> : tensor<f32>
  // CHECK: %[[C:.*]] = hgraph.conv %arg0
  // CHECK: %[[F:.*]] = hgraph.cast %[[C]]
  // CHECK: %[[M:.*]] = hgraph.mul %[[F]], %[[S]]
  // CHECK: %[[A:.*]] = hgraph.add %[[M]], %[[B]]
  // CHECK: %[[R:.*]] = hgraph.relu %[[A]]
  // CHECK: %[[Q:.*]] = hgraph.quantize_linear %[[R]], %[[ONE]]
  // CHECK: %[[N:.*]] = hgraph.conv %[[Q]]
  // CHECK-SAME: -> tensor<1x2x4x4xi32>
  %sx = hgraph.constant dense<0.5> : tensor<f32>
  %sy = hgraph.constant dense<4.0> : tensor<f32>
  %wq = hgraph.constant dense<[[[[1]], [[-2]]], [[[3]], [[127]]]]> : tensor<2x2x1x1xi8>
  %sw = hgraph.constant dense<[0.25, 2.0]> : tensor<2xf32>
  %b = hgraph.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %x = hgraph.dequantize_linear %xq, %sx {axis = 1 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %w = hgraph.dequantize_linear %wq, %sw {axis = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<2xf32>) -> tensor<2x2x1x1xf32>
  %y = hgraph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %q = hgraph.quantize_linear %y, %sy {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xi8>
  %d = hgraph.dequantize_linear %q, %sy {axis = 1 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %r = hgraph.relu %d : tensor<1x2x4x4xf32>
  %q2 = hgraph.quantize_linear %r, %sy {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xi8>
  %d2 = hgraph.dequantize_linear %q2, %sy {axis = 1 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %y2 = hgraph.conv %d2, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %q3 = hgraph.quantize_linear %y2, %sy {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xi8>
  return %q3 : tensor<1x2x4x4xi8>
}

// -----

// Tests that an activation with a zero point other than 0 keeps the float
// convolution (padding would read the zero point), and that the weight's
// dequantisation is then folded: (q - 0) * s per output channel.
// CHECK-LABEL: func.func @zero_point
func.func @zero_point(%xq: tensor<1x2x4x4xi8>) -> tensor<1x2x4x4xf32> {
  // CHECK: %[[W:.*]] = hgraph.constant dense<{{\[\[\[\[}}2.500000e-01]], {{\[\[}}-5.000000e-01]]], {{\[\[\[}}6.000000e+00]], {{\[\[}}2.540000e+02]]]]> : tensor<2x2x1x1xf32>
  // CHECK: %[[X:.*]] = hgraph.dequantize_linear %arg0
  // CHECK: hgraph.conv %[[X]], %[[W]] {{.*}} -> tensor<1x2x4x4xf32>
  %sx = hgraph.constant dense<0.5> : tensor<f32>
  %zx = hgraph.constant dense<3> : tensor<i8>
  %wq = hgraph.constant dense<[[[[1]], [[-2]]], [[[3]], [[127]]]]> : tensor<2x2x1x1xi8>
  %sw = hgraph.constant dense<[0.25, 2.0]> : tensor<2xf32>
  %x = hgraph.dequantize_linear %xq, %sx, %zx {axis = 1 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %w = hgraph.dequantize_linear %wq, %sw {axis = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<2xf32>) -> tensor<2x2x1x1xf32>
  %y = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
