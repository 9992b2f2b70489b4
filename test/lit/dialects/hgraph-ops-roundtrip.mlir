// RUN: hetc-opt %s | hetc-opt | FileCheck %s

// Tests that the elementwise, shape, reduction and network ops print and
// parse back unchanged.
// CHECK-LABEL: func.func @ops
func.func @ops(%x: tensor<4x8xf32>, %i: tensor<2xi64>, %c: tensor<4x8xi1>, %s: tensor<f32>) -> tensor<4x8xf32> {
  // CHECK: hgraph.neg %{{.*}} : tensor<4x8xf32>
  %0 = hgraph.neg %x : tensor<4x8xf32>
  // CHECK: hgraph.leaky_relu %{{.*}} {alpha = 1.000000e-01 : f32} : tensor<4x8xf32>
  %1 = hgraph.leaky_relu %0 {alpha = 0.1 : f32} : tensor<4x8xf32>
  // CHECK: hgraph.gelu %{{.*}} {approximate = "none"} : tensor<4x8xf32>
  %2 = hgraph.gelu %1 {approximate = "none"} : tensor<4x8xf32>
  // CHECK: hgraph.cast %{{.*}} : tensor<2xi64> -> tensor<2xf32>
  %3 = hgraph.cast %i : tensor<2xi64> -> tensor<2xf32>
  // CHECK: hgraph.bitcast %{{.*}} : tensor<4x8xf32> -> tensor<4x8xi32>
  %bits = hgraph.bitcast %x : tensor<4x8xf32> -> tensor<4x8xi32>
  // CHECK: hgraph.clip %{{.*}}, min %{{.*}} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %4 = hgraph.clip %2, min %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  // CHECK: hgraph.less %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xi1>
  %5 = hgraph.less %4, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xi1>
  // CHECK: hgraph.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %6 = hgraph.where %5, %4, %s : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  // CHECK: hgraph.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %7 = hgraph.concat %6, %x {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  // CHECK: hgraph.split %{{.*}} {axis = 1 : i64} : tensor<4x16xf32> -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %8:2 = hgraph.split %7 {axis = 1 : i64} : tensor<4x16xf32> -> (tensor<4x8xf32>, tensor<4x8xf32>)
  // CHECK: hgraph.slice %{{.*}} {starts = array<i64: 0, 7>, steps = array<i64: 1, -1>} : tensor<4x8xf32> -> tensor<4x8xf32>
  %9 = hgraph.slice %8#0 {starts = array<i64: 0, 7>, steps = array<i64: 1, -1>} : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: hgraph.gather %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  %10 = hgraph.gather %9, %i {axis = 0 : i64} : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  // CHECK: hgraph.gather_rows %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  %rows = hgraph.gather_rows %9, %i : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  // CHECK: hgraph.scatter_rows %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<2xi64>, tensor<2x8xf32>) -> tensor<4x8xf32>
  %written = hgraph.scatter_rows %9, %i, %rows : (tensor<4x8xf32>, tensor<2xi64>, tensor<2x8xf32>) -> tensor<4x8xf32>
  // CHECK: hgraph.tile %{{.*}} {repeats = array<i64: 2, 1>} : tensor<2x8xf32> -> tensor<4x8xf32>
  %11 = hgraph.tile %10 {repeats = array<i64: 2, 1>} : tensor<2x8xf32> -> tensor<4x8xf32>
  // CHECK: hgraph.reduce max %{{.*}} {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  %12 = hgraph.reduce max %11 {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  // CHECK: hgraph.expand %{{.*}} : tensor<4x1xf32> -> tensor<4x8xf32>
  %13 = hgraph.expand %12 : tensor<4x1xf32> -> tensor<4x8xf32>
  // CHECK: hgraph.pad %{{.*}} {mode = "edge", pads = array<i64: 0, 1, 0, -1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %14 = hgraph.pad %13 {mode = "edge", pads = array<i64: 0, 1, 0, -1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: hgraph.trilu %{{.*}} {k = 0 : i64, upper = true} : tensor<4x8xf32>
  %15 = hgraph.trilu %14 {k = 0 : i64, upper = true} : tensor<4x8xf32>
  // CHECK: hgraph.arg_max %{{.*}} {axis = 1 : i64, keepdims = false, min = false, select_last_index = false} : tensor<4x8xf32> -> tensor<4xi64>
  %16 = hgraph.arg_max %15 {axis = 1 : i64, keepdims = false, min = false, select_last_index = false} : tensor<4x8xf32> -> tensor<4xi64>
  // CHECK: hgraph.log_softmax %{{.*}} {axis = 1 : i64} : tensor<4x8xf32>
  %17 = hgraph.log_softmax %15 {axis = 1 : i64} : tensor<4x8xf32>
  // CHECK: hgraph.rms_norm %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %18 = hgraph.rms_norm %17, %x {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %18 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @nn
func.func @nn(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %v: tensor<3xf32>, %q: tensor<4x8xui8>, %qs: tensor<f32>) -> tensor<4x8xf32> {
  // CHECK: hgraph.conv %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %0 = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  // CHECK: hgraph.depthwise_conv_nhwc %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  %nhwc = hgraph.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x8x8xf32> -> tensor<1x8x8x3xf32>
  %dw = hgraph.constant dense<0.5> : tensor<3x3x3xf32>
  %dwy = hgraph.depthwise_conv_nhwc %nhwc, %dw, %v {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  // CHECK: hgraph.batch_norm
  %1 = hgraph.batch_norm %x, %v, %v, %v, %v {epsilon = 1.0e-05 : f32} : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x8x8xf32>
  // CHECK: hgraph.max_pool %{{.*}} {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  %2 = hgraph.max_pool %1 {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  // CHECK: hgraph.resize
  %3 = hgraph.resize %2 {coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, mode = "nearest", nearest_mode = "round_prefer_floor", scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  // CHECK: hgraph.dequantize_linear %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<4x8xui8>, tensor<f32>) -> tensor<4x8xf32>
  %4 = hgraph.dequantize_linear %q, %qs {axis = 1 : i64} : (tensor<4x8xui8>, tensor<f32>) -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @pointwise
func.func @pointwise(%x: tensor<2x3xf32>, %i: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>) {
  // CHECK: hgraph.pointwise selu %{{.*}} {alpha = 1.500000e+00 : f32, beta = 2.000000e+00 : f32} : tensor<2x3xf32>
  %0 = hgraph.pointwise selu %x {alpha = 1.5 : f32, beta = 2.0 : f32} : tensor<2x3xf32>
  // CHECK: hgraph.pointwise atan %{{.*}} : tensor<2x3xf32>
  %1 = hgraph.pointwise atan %x : tensor<2x3xf32>
  // CHECK: hgraph.pointwise sign %{{.*}} : tensor<4xi32>
  %2 = hgraph.pointwise sign %i : tensor<4xi32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @cumulative
func.func @cumulative(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  // CHECK: hgraph.cumulative prod %{{.*}} {axis = 1 : i64, exclusive = false, reverse = true} : tensor<2x5xf32>
  %0 = hgraph.cumulative prod %x {axis = 1 : i64, exclusive = false, reverse = true} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// Tests that casts to the narrow types keep no_saturate and round_mode.
// CHECK-LABEL: func.func @narrow_casts
func.func @narrow_casts(%x: tensor<4xf32>) -> (tensor<4xf8E5M2>, tensor<4xf8E8M0FNU>, tensor<4xi4>) {
  // CHECK: hgraph.cast %{{.*}} {no_saturate} : tensor<4xf32> -> tensor<4xf8E5M2>
  %0 = hgraph.cast %x {no_saturate} : tensor<4xf32> -> tensor<4xf8E5M2>
  // CHECK: hgraph.cast %{{.*}} {round_mode = "down"} : tensor<4xf32> -> tensor<4xf8E8M0FNU>
  %1 = hgraph.cast %x {round_mode = "down"} : tensor<4xf32> -> tensor<4xf8E8M0FNU>
  // CHECK: hgraph.cast %{{.*}} : tensor<4xf32> -> tensor<4xi4>
  %2 = hgraph.cast %x : tensor<4xf32> -> tensor<4xi4>
  return %0, %1, %2 : tensor<4xf8E5M2>, tensor<4xf8E8M0FNU>, tensor<4xi4>
}
