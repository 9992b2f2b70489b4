// RUN: hetc-opt %s --split-input-file --verify-diagnostics

// Tests that a view may not change the row length.
func.func @bad_view() {
  %a = htile.alloc : memref<4x8xf32>
  // expected-error @+1 {{the innermost dimension (row length) must not change}}
  %v = htile.view %a : memref<4x8xf32> to memref<8x4xf32>
  return
}

// -----

// Tests that a view keeps the element type, but for f32 and i32 (one
// 32-bit lane word each).
func.func @bad_view_type() {
  %a = htile.alloc : memref<4x8xf32>
  // expected-error @+1 {{element type (or f32 as i32 and the reverse) and count must match}}
  %v = htile.view %a : memref<4x8xf32> to memref<4x8xf16>
  return
}

// -----

// Tests that a view of rows stays inside its source.
func.func @bad_view_rows() {
  %a = htile.alloc : memref<4x8xf32>
  // expected-error @+1 {{rows [3, 5) are not rows of 'memref<4x8xf32>', which has 4}}
  %v = htile.view %a rows 3 : memref<4x8xf32> to memref<2x8xf32>
  return
}

// -----

// Tests that a view of rows keeps the row length too.
func.func @bad_view_rows_length() {
  %a = htile.alloc : memref<4x8xf32>
  // expected-error @+1 {{the innermost dimension (row length) must not change}}
  %v = htile.view %a rows 1 : memref<4x8xf32> to memref<4x4xf32>
  return
}

// -----

// Tests that a constant must fit its buffer.
func.func @bad_constant() {
  // expected-error @+1 {{value of type 'tensor<3xf32>' does not fit buffer 'memref<4xf32>'}}
  %c = htile.constant dense<1.0> : tensor<3xf32> {address = 0 : i64} : memref<4xf32>
  return
}

// -----

// Tests that matmul checks its output shape.
func.func @bad_matmul() {
  %x = htile.alloc : memref<4x8xf32>
  %w = htile.alloc : memref<8x3xf32>
  %y = htile.alloc : memref<4x4xf32>
  // expected-error @+1 {{output must be 4x3}}
  htile.matmul ins(%x, %w) outs(%y) activation(none) : memref<4x8xf32>, memref<8x3xf32>, memref<4x4xf32>
  return
}

// -----

// Tests that a transposed weight is N x K.
func.func @transposed_shape() {
  %x = htile.alloc : memref<1x64xf32>
  %w = htile.alloc : memref<64x128xf32>
  %y = htile.alloc : memref<1x128xf32>
  // expected-error @+1 {{contraction dimensions differ: input has 64, weight has 128 (transposed: N x K)}}
  htile.matmul ins(%x, %w) transposed outs(%y) activation(none) : memref<1x64xf32>, memref<64x128xf32>, memref<1x128xf32>
  return
}

// -----

// Tests that a transposed weight is a float of the input's type.
func.func @transposed_integer() {
  %x = htile.alloc : memref<1x64xi8>
  %w = htile.alloc : memref<128x64xi8>
  %y = htile.alloc : memref<1x128xi32>
  // expected-error @+1 {{a transposed weight must be a float of the input's type ('i8'), without a scale}}
  htile.matmul ins(%x, %w) transposed outs(%y) activation(none) : memref<1x64xi8>, memref<128x64xi8>, memref<1x128xi32>
  return
}

// -----

// Tests that a K spanning several tiles needs an output that holds the
// f32 partial sums.
func.func @narrow_partial_sums() {
  %x = htile.alloc : memref<1x20xf16>
  %w = htile.alloc : memref<20x4xf16>
  %y = htile.alloc : memref<1x4xf16>
  // expected-error @+1 {{output of 'f16' cannot hold the f32 or i32 partial sums of a K (20) spanning several tiles of 16; give it a 32-bit output and cast}}
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 16, 16>} : memref<1x20xf16>, memref<20x4xf16>, memref<1x4xf16>
  return
}

// -----

// Tests that a matmul's scale is one f32 row of the output.
func.func @bad_scale() {
  %x = htile.alloc : memref<4x8xf16>
  %w = htile.alloc : memref<8x3xi8>
  %s = htile.alloc : memref<3xf16>
  %y = htile.alloc : memref<4x3xf32>
  // expected-error @+1 {{scale must be one f32 row of 3 elements}}
  htile.matmul ins(%x, %w) scale(%s : memref<3xf16>) outs(%y) activation(none) : memref<4x8xf16>, memref<8x3xi8>, memref<4x3xf32>
  return
}

// -----

// Tests that an i8 weight of a float matmul needs a scale and an f16 or
// bf16 input.
func.func @int8_weight_f32_input() {
  %x = htile.alloc : memref<4x8xf32>
  %w = htile.alloc : memref<8x3xi8>
  %s = htile.alloc : memref<3xf32>
  %y = htile.alloc : memref<4x3xf32>
  // expected-error @+1 {{an i8 weight of a float matmul needs a scale and an f16 or bf16 input, to which its rows are converted}}
  htile.matmul ins(%x, %w) scale(%s : memref<3xf32>) outs(%y) activation(none) : memref<4x8xf32>, memref<8x3xi8>, memref<4x3xf32>
  return
}

// -----

// Tests that matmul tiles have three positive sizes.
func.func @bad_tile() {
  %x = htile.alloc : memref<4x8xf32>
  %w = htile.alloc : memref<8x3xf32>
  %y = htile.alloc : memref<4x3xf32>
  // expected-error @+1 {{tile must be three positive sizes [rows, k, n]}}
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 0, 16>} : memref<4x8xf32>, memref<8x3xf32>, memref<4x3xf32>
  return
}

// -----

// Tests that binary kernel operands must broadcast to the output.
func.func @bad_binary() {
  %a = htile.alloc : memref<4x8xf32>
  %b = htile.alloc : memref<3x8xf32>
  // expected-error @+1 {{operands 'memref<4x8xf32>' and 'memref<3x8xf32>' do not broadcast to the output 'memref<4x8xf32>'}}
  htile.binary add ins(%a, %b) outs(%a) : memref<4x8xf32>, memref<3x8xf32>, memref<4x8xf32>
  return
}

// -----

// Tests that softmax buffers share one shape.
func.func @bad_softmax() {
  %a = htile.alloc : memref<4x8xf32>
  %b = htile.alloc : memref<4x4xf32>
  // expected-error @+1 {{output and scratch must have the input's shape}}
  htile.softmax ins(%a) outs(%a) scratch(%b) : memref<4x8xf32>, memref<4x8xf32>, memref<4x4xf32>
  return
}

// -----

// Tests that a transpose may only move rows or swap the innermost dimensions.
func.func @bad_transpose() {
  %a = htile.alloc : memref<2x3x4xf32>
  %b = htile.alloc : memref<4x2x3xf32>
  // expected-error @+1 {{perm must keep the innermost dimension last or swap the two innermost dimensions}}
  htile.transpose ins(%a) outs(%b) {perm = array<i64: 2, 0, 1>} : memref<2x3x4xf32>, memref<4x2x3xf32>
  return
}

// -----

// Tests that a matrix transpose needs the identity.
func.func @no_identity() {
  %a = htile.alloc : memref<3x4xf32>
  %b = htile.alloc : memref<4x3xf32>
  // expected-error @+1 {{a matrix transpose needs an identity operand}}
  htile.transpose ins(%a) outs(%b) {perm = array<i64: 1, 0>} : memref<3x4xf32>, memref<4x3xf32>
  return
}

// -----

// Tests that a gather has one index per output element.
func.func @gather_count() {
  %a = htile.alloc : memref<2x2xf32>
  %b = htile.alloc : memref<3xf32>
  // expected-error @+1 {{has 2 indices, but the output has 3 elements}}
  htile.gather ins(%a) outs(%b) indices [0, 1] : (memref<2x2xf32>) -> memref<3xf32>
  return
}

// -----

// Tests that gather indices stay within the inputs.
func.func @gather_range() {
  %a = htile.alloc : memref<2x2xf32>
  %b = htile.alloc : memref<1x2xf32>
  %c = htile.alloc : memref<3xf32>
  // expected-error @+1 {{index 6 at output element 2 is outside the inputs' 6 elements (or -1)}}
  htile.gather ins(%a, %b) outs(%c) indices [0, 5, 6] : (memref<2x2xf32>, memref<1x2xf32>) -> memref<3xf32>
  return
}

// -----

// Tests that a band of rows is made of whole rows.
func.func @gather_band_rows() {
  %a = htile.alloc : memref<2x2xf32>
  %c = htile.alloc : memref<3x2xf32>
  // expected-error @+1 {{has 3 indices, not whole rows of 2 elements}}
  htile.gather ins(%a) outs(%c) indices [0, 1, 2] first_row 1 : (memref<2x2xf32>) -> memref<3x2xf32>
  return
}

// -----

// Tests that a band of rows lies within the output.
func.func @gather_band_range() {
  %a = htile.alloc : memref<2x2xf32>
  %c = htile.alloc : memref<3x2xf32>
  // expected-error @+1 {{fills rows 2 to 3 of an output of 3 rows}}
  htile.gather ins(%a) outs(%c) indices [0, 1, 2, 3] first_row 2 : (memref<2x2xf32>) -> memref<3x2xf32>
  return
}

// -----

// Tests that a gather moves elements of one type.
func.func @gather_types() {
  %a = htile.alloc : memref<2xi32>
  %c = htile.alloc : memref<2xf32>
  // expected-error @+1 {{input element type 'i32' differs from the output's 'f32'}}
  htile.gather ins(%a) outs(%c) indices [1, 0] : (memref<2xi32>) -> memref<2xf32>
  return
}

// -----

// Tests that a gather has an input.
func.func @gather_no_input() {
  %c = htile.alloc : memref<2xf32>
  // expected-error @+1 {{needs at least one input}}
  "htile.gather"(%c) <{indices = array<i64: -1, -1>}> : (memref<2xf32>) -> ()
  return
}

// -----

// Tests that a cast's overflow and rounding fit its output type.
func.func @cast_modes(%a: memref<4xf32>, %b: memref<4xi8>) {
  // expected-error @+1 {{overflow no_saturate needs an 8- or 4-bit float output, not 'i8'}}
  htile.cast ins(%a) outs(%b) overflow no_saturate : memref<4xf32>, memref<4xi8>
  return
}

// -----

// Tests that only a cast to f8E8M0FNU takes a rounding.
func.func @cast_rounding(%a: memref<4xf32>, %b: memref<4xf8E4M3FN>) {
  // expected-error @+1 {{rounding applies to f8E8M0FNU outputs only, not 'f8E4M3FN'}}
  htile.cast ins(%a) outs(%b) rounding up : memref<4xf32>, memref<4xf8E4M3FN>
  return
}

// -----

// Tests that a row lookup's output is the indices' shape then a row's.
func.func @bad_gather_rows_shape() {
  %t = htile.alloc : memref<10x8xf32>
  %i = htile.alloc : memref<3xi64>
  %o = htile.alloc : memref<3x4xf32>
  // expected-error @+1 {{output shape must be the indices' shape followed by the table's row shape}}
  htile.gather_rows ins(%t, %i) outs(%o) : (memref<10x8xf32>, memref<3xi64>) -> memref<3x4xf32>
  return
}

// -----

// Tests that the indices of a row lookup are integers.
func.func @bad_gather_rows_indices() {
  %t = htile.alloc : memref<10x8xf32>
  %i = htile.alloc : memref<3xf32>
  %o = htile.alloc : memref<3x8xf32>
  // expected-error @+1 {{indices must be i32 or i64, got 'f32'}}
  htile.gather_rows ins(%t, %i) outs(%o) : (memref<10x8xf32>, memref<3xf32>) -> memref<3x8xf32>
  return
}

// -----

// Tests that a row scatter's updates are the indices' shape then a row's.
func.func @bad_scatter_rows_shape() {
  %t = htile.alloc : memref<10x8xf32>
  %i = htile.alloc : memref<3xi64>
  %u = htile.alloc : memref<3x4xf32>
  // expected-error @+1 {{updates shape must be the indices' shape followed by the table's row shape}}
  htile.scatter_rows ins(%u, %i) outs(%t) : (memref<3x4xf32>, memref<3xi64>) -> memref<10x8xf32>
  return
}

// -----

// Tests that a row scatter writes updates of the table's element type.
func.func @bad_scatter_rows_type() {
  %t = htile.alloc : memref<10x8xf32>
  %i = htile.alloc : memref<3xi32>
  %u = htile.alloc : memref<3x8xf16>
  // expected-error @+1 {{table element type 'f32' differs from the updates' 'f16'}}
  htile.scatter_rows ins(%u, %i) outs(%t) : (memref<3x8xf16>, memref<3xi32>) -> memref<10x8xf32>
  return
}

// -----

// Tests that a depthwise convolution's copies of the weight agree.
func.func @depthwise_copies() {
  %x = htile.alloc : memref<4x4x8xf32>
  %w0 = htile.alloc : memref<3x3x8xf32>
  %w1 = htile.alloc : memref<1x1x8xf32>
  %y = htile.alloc : memref<4x4x8xf32>
  // expected-error @+1 {{copies of the weight must have one type, got 'memref<3x3x8xf32>' and 'memref<1x1x8xf32>'}}
  htile.depthwise_conv ins(%x, [%w0, %w1]) outs(%y) {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : memref<4x4x8xf32>, [memref<3x3x8xf32>, memref<1x1x8xf32>] -> memref<4x4x8xf32>
  return
}

// -----

// Tests that a depthwise convolution runs on f32.
func.func @depthwise_type() {
  %x = htile.alloc : memref<4x4x8xf16>
  %w = htile.alloc : memref<3x3x8xf16>
  %y = htile.alloc : memref<4x4x8xf16>
  // expected-error @+1 {{runs on f32, got 'f16'}}
  htile.depthwise_conv ins(%x, [%w]) outs(%y) {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : memref<4x4x8xf16>, [memref<3x3x8xf16>] -> memref<4x4x8xf16>
  return
}

// -----

// Tests that a depthwise convolution's window gives the output's positions.
func.func @depthwise_window() {
  %x = htile.alloc : memref<4x4x8xf32>
  %w = htile.alloc : memref<3x3x8xf32>
  %y = htile.alloc : memref<4x4x8xf32>
  // expected-error @+1 {{the window gives 2 output columns, the result has 4}}
  htile.depthwise_conv ins(%x, [%w]) outs(%y) {dilations = array<i64: 1, 1>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 1, 1>} : memref<4x4x8xf32>, [memref<3x3x8xf32>] -> memref<4x4x8xf32>
  return
}

// -----

// Tests that a depthwise convolution needs a weight.
func.func @depthwise_no_weight() {
  %x = htile.alloc : memref<4x4x8xf32>
  %y = htile.alloc : memref<4x4x8xf32>
  // expected-error @+1 {{needs at least one copy of the weight}}
  "htile.depthwise_conv"(%x, %y) <{dilations = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 1, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}> : (memref<4x4x8xf32>, memref<4x4x8xf32>) -> ()
  return
}

// -----

// Tests that a channels-first depthwise convolution of the kernel plan
// has a column per kernel element.
func.func @plan_depthwise_taps() {
  %x = htile.alloc : memref<1x2x8xf32>
  %t = htile.alloc : memref<2x1xf32>
  %y = htile.alloc : memref<1x2x8xf32>
  // expected-error @+1 {{needs a column per kernel element (3), got 2}}
  htile.plan_depthwise_conv ins(%x, [%t, %t]) outs(%y) {dilations = array<i64: 1>, input_shape = array<i64: 1, 2, 8>, kernel = array<i64: 3>, pads = array<i64: 1, 1>, strides = array<i64: 1>} : memref<1x2x8xf32>, [memref<2x1xf32>, memref<2x1xf32>] -> memref<1x2x8xf32>
  return
}

// -----

// Tests that its output holds the positions its window gives: a stride of
// 2 over 8 positions gives 4 per channel.
func.func @plan_depthwise_output() {
  %x = htile.alloc : memref<1x2x8xf32>
  %t = htile.alloc : memref<2x1xf32>
  %y = htile.alloc : memref<1x2x8xf32>
  // expected-error @+1 {{output must hold 8 f32 values, got 'memref<1x2x8xf32>'}}
  htile.plan_depthwise_conv ins(%x, [%t]) outs(%y) {dilations = array<i64: 1>, input_shape = array<i64: 1, 2, 8>, kernel = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : memref<1x2x8xf32>, [memref<2x1xf32>] -> memref<1x2x8xf32>
  return
}

// -----

// Tests that its input shape names N, C and the kernel's spatial extents.
func.func @plan_depthwise_rank() {
  %x = htile.alloc : memref<1x2x8xf32>
  %t = htile.alloc : memref<2x1xf32>
  %y = htile.alloc : memref<1x2x8xf32>
  // expected-error @+1 {{input_shape must be N x C x the kernel's 2 spatial extents, got 3 extents}}
  htile.plan_depthwise_conv ins(%x, [%t]) outs(%y) {dilations = array<i64: 1, 1>, input_shape = array<i64: 1, 2, 8>, kernel = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : memref<1x2x8xf32>, [memref<2x1xf32>] -> memref<1x2x8xf32>
  return
}

// -----

// Tests that its window's attributes agree in rank.
func.func @plan_depthwise_window() {
  %x = htile.alloc : memref<1x2x8xf32>
  %t = htile.alloc : memref<2x1xf32>
  %y = htile.alloc : memref<1x2x8xf32>
  // expected-error @+1 {{the map, the kernel, the strides and the dilations need one to three dimensions alike, and the pads twice as many}}
  htile.plan_depthwise_conv ins(%x, [%t]) outs(%y) {dilations = array<i64: 1>, input_shape = array<i64: 1, 2, 8>, kernel = array<i64: 1>, pads = array<i64: 0>, strides = array<i64: 1>} : memref<1x2x8xf32>, [memref<2x1xf32>] -> memref<1x2x8xf32>
  return
}

// -----

// Tests that its columns hold a weight per channel.
func.func @plan_depthwise_column() {
  %x = htile.alloc : memref<1x2x8xf32>
  %t = htile.alloc : memref<3x1xf32>
  %y = htile.alloc : memref<1x2x8xf32>
  // expected-error @+1 {{each column must hold 2 f32 values, got 'memref<3x1xf32>'}}
  htile.plan_depthwise_conv ins(%x, [%t]) outs(%y) {dilations = array<i64: 1>, input_shape = array<i64: 1, 2, 8>, kernel = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : memref<1x2x8xf32>, [memref<3x1xf32>] -> memref<1x2x8xf32>
  return
}

// -----

// Tests that input extents whose product passes 2^63 are an error, not an
// overflow.
func.func @plan_depthwise_overflow() {
  %x = htile.alloc : memref<1x2x8xf32>
  %t = htile.alloc : memref<2x1xf32>
  %y = htile.alloc : memref<1x2x8xf32>
  // expected-error @+1 {{input_shape and kernel overflow 64 bits}}
  htile.plan_depthwise_conv ins(%x, [%t]) outs(%y) {dilations = array<i64: 1>, input_shape = array<i64: 4611686018427387904, 4, 8>, kernel = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : memref<1x2x8xf32>, [memref<2x1xf32>] -> memref<1x2x8xf32>
  return
}

// -----

// Tests that a convolution of the kernel plan has weight rows of C/G x K values (and
// the bias): 2 channels of 3 kernel elements are 6 or 7, not 5.
func.func @plan_conv_row() {
  %x = htile.alloc : memref<1x2x8xf32>
  %w = htile.alloc : memref<4x5xf32>
  %y = htile.alloc : memref<1x4x8xf32>
  // expected-error @+1 {{each weight row must hold the group's 2 channels x 3 kernel elements (6 values, and the bias after them), got 5}}
  htile.plan_conv ins(%x, [%w]) outs(%y) {dilations = array<i64: 1>, input_shape = array<i64: 1, 2, 8>, kernel = array<i64: 3>, pads = array<i64: 1, 1>, strides = array<i64: 1>} : memref<1x2x8xf32>, [memref<4x5xf32>] -> memref<1x4x8xf32>
  return
}

// -----

// Tests that its groups divide the input channels.
func.func @plan_conv_groups() {
  %x = htile.alloc : memref<1x3x8xf32>
  %w = htile.alloc : memref<2x3xf32>
  %y = htile.alloc : memref<1x4x8xf32>
  // expected-error @+1 {{needs a weight buffer per group, and the groups (2) must divide the 3 input channels}}
  htile.plan_conv ins(%x, [%w, %w]) outs(%y) {dilations = array<i64: 1>, input_shape = array<i64: 1, 3, 8>, kernel = array<i64: 3>, pads = array<i64: 1, 1>, strides = array<i64: 1>} : memref<1x3x8xf32>, [memref<2x3xf32>, memref<2x3xf32>] -> memref<1x4x8xf32>
  return
}

// -----

// Tests that its output holds the output channels (the groups' rows) at the
// positions its window gives: 2 x 2 rows, 4 positions (stride 2).
func.func @plan_conv_output() {
  %x = htile.alloc : memref<1x2x8xf32>
  %w = htile.alloc : memref<2x3xf32>
  %y = htile.alloc : memref<1x4x8xf32>
  // expected-error @+1 {{output must hold 16 f32 values, got 'memref<1x4x8xf32>'}}
  htile.plan_conv ins(%x, [%w, %w]) outs(%y) {dilations = array<i64: 1>, input_shape = array<i64: 1, 2, 8>, kernel = array<i64: 3>, pads = array<i64: 1, 1>, strides = array<i64: 2>} : memref<1x2x8xf32>, [memref<2x3xf32>, memref<2x3xf32>] -> memref<1x4x8xf32>
  return
}

// -----

// Tests that its input holds the map its input_shape names.
func.func @plan_conv_input() {
  %x = htile.alloc : memref<1x2x7xf32>
  %w = htile.alloc : memref<4x6xf32>
  %y = htile.alloc : memref<1x4x8xf32>
  // expected-error @+1 {{input must hold 16 f32 values, got 'memref<1x2x7xf32>'}}
  htile.plan_conv ins(%x, [%w]) outs(%y) {dilations = array<i64: 1>, input_shape = array<i64: 1, 2, 8>, kernel = array<i64: 3>, pads = array<i64: 1, 1>, strides = array<i64: 1>} : memref<1x2x7xf32>, [memref<4x6xf32>] -> memref<1x4x8xf32>
  return
}

// -----

// Tests that input extents whose product passes 2^63 are an error, not an
// overflow.
func.func @plan_conv_overflow() {
  %x = htile.alloc : memref<1x2x8xf32>
  %w = htile.alloc : memref<4x6xf32>
  %y = htile.alloc : memref<1x4x8xf32>
  // expected-error @+1 {{input_shape, kernel and weights overflow 64 bits}}
  htile.plan_conv ins(%x, [%w]) outs(%y) {dilations = array<i64: 1>, input_shape = array<i64: 4611686018427387904, 2, 8>, kernel = array<i64: 3>, pads = array<i64: 1, 1>, strides = array<i64: 1>} : memref<1x2x8xf32>, [memref<4x6xf32>] -> memref<1x4x8xf32>
  return
}

// -----

// Tests that a gather of the kernel plan fills its whole output.
func.func @plan_gather_count() {
  %a = htile.alloc : memref<2x2xf32>
  %c = htile.alloc : memref<2x3xf32>
  // expected-error @+1 {{has 4 indices, but the output has 6 elements}}
  htile.plan_gather ins(%a) outs(%c) indices [0, 1, 2, 3] : (memref<2x2xf32>) -> memref<2x3xf32>
  return
}

// -----

// Tests that its indices name elements of its inputs.
func.func @plan_gather_index() {
  %a = htile.alloc : memref<2x2xf32>
  %c = htile.alloc : memref<2x2xf32>
  // expected-error @+1 {{index 4 at output element 3 is outside the inputs' 4 elements (or -1)}}
  htile.plan_gather ins(%a) outs(%c) indices [0, 1, 2, 4] : (memref<2x2xf32>) -> memref<2x2xf32>
  return
}

// -----

// Tests that a packed column broadcasts as R x 1: 8 rows do not meet 4.
func.func @column_rows() {
  %a = htile.alloc : memref<4x16xf32>
  %c = htile.alloc : memref<8xf32>
  // expected-error @+1 {{operands 'memref<4x16xf32>' and 'memref<8xf32>' (the column as R x 1) do not broadcast to the output 'memref<4x16xf32>'}}
  htile.binary mul ins(%a, %c) column(rhs) outs(%a) : memref<4x16xf32>, memref<8xf32>, memref<4x16xf32>
  return
}

// -----

// Tests that a packed column holds 32-bit lanes, in at most two dimensions.
func.func @column_type() {
  %a = htile.alloc : memref<4x16xf16>
  %c = htile.alloc : memref<4xf16>
  // expected-error @+1 {{a packed column is a 1-D buffer of f32 or i32, or 2-D (copies of it), not 'memref<4xf16>'}}
  htile.binary mul ins(%a, %c) column(rhs) outs(%a) : memref<4x16xf16>, memref<4xf16>, memref<4x16xf16>
  return
}

// -----

func.func @column_rank() {
  %a = htile.alloc : memref<4x16xf32>
  %c = htile.alloc : memref<1x2x4xf32>
  // expected-error @+1 {{a packed column is a 1-D buffer of f32 or i32, or 2-D (copies of it), not 'memref<1x2x4xf32>'}}
  htile.binary mul ins(%c, %a) column(lhs) outs(%a) : memref<1x2x4xf32>, memref<4x16xf32>, memref<4x16xf32>
  return
}
