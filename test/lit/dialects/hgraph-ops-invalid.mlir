// RUN: hetc-opt %s --split-input-file --verify-diagnostics

// Tests that concat checks the summed axis size.
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x9xf32> {
  // expected-error @+1 {{result shape [2, 9] should be [2, 8]}}
  %0 = hgraph.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// -----

// Tests that slice windows stay inside the input.
func.func @slice(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{dimension 1 reads indices 6 to 12, outside [0, 8)}}
  %0 = hgraph.slice %x {starts = array<i64: 0, 6>, steps = array<i64: 1, 2>} : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Tests that comparisons produce booleans.
func.func @compare(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{result must hold i1, got 'f32'}}
  %0 = hgraph.equal %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that reduction axes are sorted and in range.
func.func @reduce(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{axes must be sorted, unique and in [0, 2), got [2]}}
  %0 = hgraph.reduce sum %x {axes = array<i64: 2>, keepdims = false} : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that conv checks channels against the weight and group.
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{channels do not match: input has 3, weight [4, 2, 3, 3], group 1}}
  %0 = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// Tests that gelu names its two approximations.
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{approximate must be "none" or "tanh", got "fast"}}
  %0 = hgraph.gelu %x {approximate = "fast"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that the float functions of pointwise refuse integer tensors.
func.func @pointwise_elu_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'elu' is not defined on 'i32' elements}}
  %0 = hgraph.pointwise elu %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Tests that cast checks its round_mode.
func.func @cast_round_mode(%x: tensor<4xf32>) -> tensor<4xf8E8M0FNU> {
  // expected-error @+1 {{round_mode must be "up", "down" or "nearest", got "even"}}
  %0 = hgraph.cast %x {round_mode = "even"} : tensor<4xf32> -> tensor<4xf8E8M0FNU>
  return %0 : tensor<4xf8E8M0FNU>
}

// -----

// Tests that sign refuses booleans.
func.func @pointwise_sign_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'sign' is not defined on 'i1' elements}}
  %0 = hgraph.pointwise sign %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Tests that an unknown function name is a parse error.
func.func @pointwise_unknown(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{containing one of the following enum values for attribute 'fn'}}
  %0 = hgraph.pointwise gamma %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that tf_crop_and_resize needs a start and an end per dimension.
func.func @resize_roi(%x: tensor<2x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{tf_crop_and_resize needs a roi of 4 values (a start and an end per dimension)}}
  %0 = hgraph.resize %x {coordinate_transformation_mode = "tf_crop_and_resize", cubic_coeff_a = -7.500000e-01 : f32, mode = "linear", nearest_mode = "round_prefer_floor", scales = array<f64: 1.5, 1.0>, roi = array<f64: 0.0, 2.0>} : tensor<2x4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Tests that cumulative only sums or multiplies.
func.func @cumulative_max(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{kind must be sum or prod, got max}}
  %0 = hgraph.cumulative max %x {axis = 0 : i64, exclusive = false, reverse = false} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that quantisation takes a scalar scale with a one-element zero
// point, but not zero points of another length.
func.func @quant_zero_point(%x: tensor<4x3xf32>, %s: tensor<f32>, %z: tensor<1xi8>, %s3: tensor<3xf32>, %z2: tensor<2xi8>) -> tensor<4x3xi8> {
  %0 = hgraph.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<4x3xf32>, tensor<f32>, tensor<1xi8>) -> tensor<4x3xi8>
  // expected-error @+1 {{zero point and scale shapes differ}}
  %1 = hgraph.quantize_linear %x, %s3, %z2 {axis = 1 : i64} : (tensor<4x3xf32>, tensor<3xf32>, tensor<2xi8>) -> tensor<4x3xi8>
  return %0 : tensor<4x3xi8>
}

// -----

// Tests that gather_rows gives the indices' shape followed by a row's.
func.func @gather_rows(%t: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<3x5xf32> {
  // expected-error @+1 {{result shape [3, 5] should be [3, 4]}}
  %0 = hgraph.gather_rows %t, %i : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Tests that gather_rows reads rows of a table of rank 2 or more.
func.func @gather_rows_rank(%t: tensor<10xf32>, %i: tensor<3xi64>) -> tensor<3xf32> {
  // expected-error @+1 {{table must have rank 2 or more}}
  %0 = hgraph.gather_rows %t, %i : (tensor<10xf32>, tensor<3xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Tests that scatter_rows takes updates of the indices' shape followed by
// a row's.
func.func @scatter_rows(%t: tensor<10x4xf32>, %i: tensor<3xi64>, %u: tensor<3x5xf32>) -> tensor<10x4xf32> {
  // expected-error @+1 {{updates must have the indices' shape followed by the table's row shape, got 'tensor<3x5xf32>' for indices 'tensor<3xi64>' and table 'tensor<10x4xf32>'}}
  %0 = hgraph.scatter_rows %t, %i, %u : (tensor<10x4xf32>, tensor<3xi64>, tensor<3x5xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

// Tests that scatter_rows gives the table's shape.
func.func @scatter_rows_result(%t: tensor<10x4xf32>, %i: tensor<3xi64>, %u: tensor<3x4xf32>) -> tensor<11x4xf32> {
  // expected-error @+1 {{result shape [11, 4] should be [10, 4]}}
  %0 = hgraph.scatter_rows %t, %i, %u : (tensor<10x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<11x4xf32>
  return %0 : tensor<11x4xf32>
}

// -----

// Tests that edge, reflect and wrap padding cannot grow an empty dimension:
// there is nothing to repeat.
func.func @pad_wrap_empty(%x: tensor<3x0xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{mode wrap has nothing to repeat along dimension 1, which is empty; only constant padding can grow it}}
  %0 = hgraph.pad %x {mode = "wrap", pads = array<i64: 0, 1, 0, 1>} : (tensor<3x0xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Tests that bitcast reinterprets only f32 and i32, the chip's 32-bit words.
func.func @bitcast_f16(%x: tensor<4xf16>) -> tensor<4xi16> {
  // expected-error @+1 {{reinterprets f32 and i32 elements only, not 'f16' as 'i16'}}
  %0 = hgraph.bitcast %x : tensor<4xf16> -> tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

// Tests that bitcast keeps the shape.
func.func @bitcast_shape(%x: tensor<4xf32>) -> tensor<2x2xi32> {
  // expected-error @+1 {{input shape [4] and result shape [2, 2] differ}}
  %0 = hgraph.bitcast %x : tensor<4xf32> -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

// Tests that a channels-last depthwise convolution's weight has a row of
// the map's channels per kernel element.
func.func @depthwise_channels(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x4xf32>) -> tensor<1x8x8x3xf32> {
  // expected-error @+1 {{weight must be kh x kw x 3 and the result have 3 channels, got weight [3, 3, 4] and result [1, 8, 8, 3]}}
  %0 = hgraph.depthwise_conv_nhwc %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x4xf32>) -> tensor<1x8x8x3xf32>
  return %0 : tensor<1x8x8x3xf32>
}

// -----

// Tests that the result's positions follow from the window.
func.func @depthwise_positions(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3xf32>) -> tensor<1x8x8x3xf32> {
  // expected-error @+1 {{the window gives 4 output rows, the result has 8}}
  %0 = hgraph.depthwise_conv_nhwc %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3xf32>) -> tensor<1x8x8x3xf32>
  return %0 : tensor<1x8x8x3xf32>
}

// -----

// Tests that no output position's window lies wholly in the padding.
func.func @depthwise_padding(%x: tensor<1x2x2x3xf32>, %w: tensor<1x1x3xf32>) -> tensor<1x4x2x3xf32> {
  // expected-error @+1 {{the window of output position 0 along the rows lies wholly in the padding}}
  %0 = hgraph.depthwise_conv_nhwc %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x3xf32>, tensor<1x1x3xf32>) -> tensor<1x4x2x3xf32>
  return %0 : tensor<1x4x2x3xf32>
}

// -----

// Tests that dilations wider than the map leave holes that are checked
// position by position.
func.func @depthwise_dilated(%x: tensor<1x3x3x3xf32>, %w: tensor<2x1x3xf32>) -> tensor<1x6x3x3xf32> {
  // expected-error @+1 {{the window of output position 2 along the rows lies wholly in the padding}}
  %0 = hgraph.depthwise_conv_nhwc %x, %w {dilations = array<i64: 5, 1>, pads = array<i64: 4, 0, 4, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x3x3xf32>, tensor<2x1x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

// Tests that an integer convolution gives i32 from an 8-bit input and an
// i8 weight.
func.func @conv_integer_result(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{an integer convolution takes an i8 or ui8 input and an i8 weight, gives i32 and has no bias; got 'i8' by 'i8' to 'f32'}}
  %0 = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// Tests that an integer convolution takes no bias (its sums are exact; the
// bias is added after they are scaled).
func.func @conv_integer_bias(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) -> tensor<1x4x6x6xi32> {
  // expected-error @+1 {{got 'i8' by 'i8' to 'i32' with a bias}}
  %0 = hgraph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>) -> tensor<1x4x6x6xi32>
  return %0 : tensor<1x4x6x6xi32>
}

// -----

// Tests that an integer convolution's weight is i8.
func.func @conv_integer_weight(%x: tensor<1x3x8x8xui8>, %w: tensor<4x3x3x3xui8>) -> tensor<1x4x6x6xi32> {
  // expected-error @+1 {{got 'ui8' by 'ui8' to 'i32'}}
  %0 = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xui8>, tensor<4x3x3x3xui8>) -> tensor<1x4x6x6xi32>
  return %0 : tensor<1x4x6x6xi32>
}

// -----

// Tests that a convolution's bias has one value per output channel.
func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<5xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{bias must have 4 values (one per output channel), got 'tensor<5xf32>'}}
  %0 = hgraph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<5xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}
