// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-hgraph-to-htile

// Tests that a constant gather index out of range is reported at its node.
func.func @main(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
  %i = hgraph.constant dense<[0, 5]> : tensor<2xi64>
  // expected-error @+1 {{gather index out of range for axis 0 of 'tensor<4x8xf32>'}}
  %0 = hgraph.gather %x, %i {axis = 0 : i64} : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests that data movement into more elements than the chip's SRAM holds
// (test-chip: 8192 vectors of 16 lanes) is reported before its index map
// is built.
func.func @main(%x: tensor<1xf32>) -> tensor<131073xf32> {
  // expected-error @+1 {{moving 131073 elements into 'tensor<131073xf32>' is more than the chip's SRAM holds (131072 elements of 4 bytes)}}
  %0 = hgraph.tile %x {repeats = array<i64: 131073>} : tensor<1xf32> -> tensor<131073xf32>
  return %0 : tensor<131073xf32>
}

// -----

// Tests that every unsupported op of a function is reported, not only the first.
func.func @main(%x: tensor<4x8xf32>) -> (tensor<1x8xf32>, tensor<4x8xf32>) {
  // expected-error @+1 {{reduce sum over axes [0] is not supported on the chip yet}}
  %0 = hgraph.reduce sum %x {axes = array<i64: 0>, keepdims = true} : tensor<4x8xf32> -> tensor<1x8xf32>
  // expected-error @+1 {{softmax along axis 0 of 'tensor<4x8xf32>' is not supported on the chip yet}}
  %1 = hgraph.softmax %x {axis = 0 : i64} : tensor<4x8xf32>
  return %0, %1 : tensor<1x8xf32>, tensor<4x8xf32>
}


// -----

// Tests that softmax along an inner axis is rejected.
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{softmax along axis 0 of 'tensor<2x4xf32>' is not supported on the chip yet; only the last axis is}}
  %0 = hgraph.softmax %x {axis = 0 : i64} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that users of an op that failed to lower are skipped (not a crash),
// and that later independent problems are still reported.
func.func @main(%x: tensor<4x8xf32>) -> (tensor<1x8xf32>, tensor<4x8xf32>) {
  // expected-error @+1 {{reduce sum over axes [0]}}
  %0 = hgraph.reduce sum %x {axes = array<i64: 0>, keepdims = true} : tensor<4x8xf32> -> tensor<1x8xf32>
  %1 = hgraph.relu %0 : tensor<1x8xf32>
  // expected-error @+1 {{softmax along axis 0}}
  %2 = hgraph.softmax %x {axis = 0 : i64} : tensor<4x8xf32>
  return %1, %2 : tensor<1x8xf32>, tensor<4x8xf32>
}

// -----

// Tests that reductions over other axes are reported.
func.func @main(%x: tensor<3x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{reduce sum over axes [0] is not supported on the chip yet; supported: sum, mean, max or min over the innermost axis}}
  %0 = hgraph.reduce sum %x {axes = array<i64: 0>, keepdims = true} : tensor<3x4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Tests that a model input of a type the chip does not hold is reported.
// expected-error @+1 {{model input 'i' has element type 'f80', which the chip does not hold yet; supported: f32, f16, bf16, i8, ui8, i32, i1; moved and converted only: f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ, f8E8M0FNU, f4E2M1FN, i4, ui4, i2, ui2; held as i32: i64, i16, ui16, ui32, ui64; as f32: f64}}
func.func @main(%x: tensor<3x4xf80> {hgraph.name = "i"}) -> tensor<3x4xf80> {
  return %x : tensor<3x4xf80>
}

// -----

// Tests that arithmetic that could leave the range of a type held as i32
// is reported.
func.func @main(%x: tensor<3x4xui32>) -> tensor<3x4xui32> {
  // expected-error @+1 {{'add' on 'ui32' is not supported on the chip: the chip holds 'ui32' as i32 and would not wrap or saturate as 'ui32' does}}
  %0 = hgraph.add %x, %x : (tensor<3x4xui32>, tensor<3x4xui32>) -> tensor<3x4xui32>
  return %0 : tensor<3x4xui32>
}

// -----

// Tests that pow on 8-bit integers is reported.
func.func @main(%x: tensor<3x4xi8>) -> tensor<3x4xi8> {
  // expected-error @+1 {{'pow' on 'i8' is not supported on the chip; it runs on f32, f16 and bf16}}
  %0 = hgraph.pow %x, %x : (tensor<3x4xi8>, tensor<3x4xi8>) -> tensor<3x4xi8>
  return %0 : tensor<3x4xi8>
}

// -----

// Tests that transcendental functions on integers are reported.
func.func @main(%x: tensor<3x4xi32>) -> tensor<3x4xi32> {
  // expected-error @+1 {{'exp' on 'i32' is not supported on the chip; it runs on f32, f16 and bf16}}
  %0 = hgraph.exp %x : tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// -----

// Tests that a cast to a type the chip does not hold is reported.
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x4xf80> {
  // expected-error @+1 {{element type 'f80' (of 'tensor<3x4xf80>') is not supported on the chip yet; supported: f32, f16, bf16, i8, ui8, i32, i1; moved and converted only: f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ, f8E8M0FNU, f4E2M1FN, i4, ui4, i2, ui2; held as i32: i64, i16, ui16, ui32, ui64; as f32: f64}}
  %0 = hgraph.cast %x : tensor<3x4xf32> -> tensor<3x4xf80>
  return %0 : tensor<3x4xf80>
}

// -----

// Tests that pooling on a type other than f32, f16 and bf16 (and 8-bit
// integers for a maximum) is refused at its node, not misread as f32.
func.func @main(%x: tensor<1x1x4x4xi32>) -> tensor<1x1x3x3xi32> {
  // expected-error @+1 {{max pooling on 'i32' is not supported on the chip yet; it runs on f32, f16 and bf16, i8 and ui8 (cast around the pool)}}
  %0 = hgraph.max_pool %x {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x4x4xi32> -> tensor<1x1x3x3xi32>
  return %0 : tensor<1x1x3x3xi32>
}


// -----

// Tests that bitwise ops on floats and shifts of booleans are refused.
func.func @main(%x: tensor<4xf32>, %b: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi1>) {
  // expected-error @+1 {{bitwise and on 'f32' is not supported; it takes integers}}
  %0 = hgraph.bitwise_and %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{'shift_left' on 'i1' is not supported on the chip; it runs on i8, ui8, i16, ui16 and i32}}
  %1 = hgraph.shift_left %b, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0, %1 : tensor<4xf32>, tensor<4xi1>
}

// -----

// Tests that an op of another dialect left in the function is reported.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hisa.input' cannot be lowered to htile; run hetc-hgraph-pipeline first}}
  hisa.input "x" at 0 : tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

// Tests that a transposed convolution that hetc-hgraph-decompose rewrites
// (its kernel is not its strides) is refused if it reaches the lowering.
func.func @main(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x7x7xf32> {
  %w = hgraph.constant dense<1.0> : tensor<1x1x3x3xf32>
  // expected-error @+1 {{this transposed convolution is lowered by hetc-hgraph-decompose, which must run first}}
  %0 = hgraph.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x7x7xf32>
  return %0 : tensor<1x1x7x7xf32>
}
