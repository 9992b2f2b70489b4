// RUN: hetc-opt %s --hetc-set-chip=file=%chips/tsp-v1.chip --hetc-hgraph-channels-last | FileCheck %s
// RUN: hetc-opt %s --hetc-hgraph-channels-last | FileCheck %s --check-prefix=NOCHIP

// A module without a chip keeps its convolutions.
// NOCHIP-LABEL: func.func @three_by_three
// NOCHIP: hgraph.conv
// NOCHIP-NOT: hgraph.transpose
// NOCHIP-LABEL: func.func @stage

// Tests that a 3x3 convolution of a 7x7 map of 512 channels (15 K tiles of
// windows against 512 weight rows channels-first) becomes the products of
// 49 positions by the weight as [4608, 512]: the map transposed to
// channels-last, padded, nine slices (one per kernel element) side by side
// along the channels, the bias added as a row, and the result transposed
// back.
// CHECK-LABEL: func.func @three_by_three
// CHECK-DAG: %[[W:.*]] = hgraph.constant dense<5.000000e-01> : tensor<4608x512xf32>
// CHECK-DAG: %[[B:.*]] = hgraph.constant dense<1.000000e+00> : tensor<512xf32>
// CHECK: %[[T:.*]] = hgraph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x512x7x7xf32> -> tensor<1x7x7x512xf32>
// CHECK: %[[P:.*]] = hgraph.pad %[[T]] {mode = "constant", pads = array<i64: 0, 1, 1, 0, 0, 1, 1, 0>} : (tensor<1x7x7x512xf32>) -> tensor<1x9x9x512xf32>
// CHECK: %[[S0:.*]] = hgraph.slice %[[P]] {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>}
// CHECK: %[[S8:.*]] = hgraph.slice %[[P]] {starts = array<i64: 0, 2, 2, 0>, steps = array<i64: 1, 1, 1, 1>}
// CHECK: %[[C:.*]] = hgraph.concat %[[S0]], {{.*}}, %[[S8]] {axis = 3 : i64}
// CHECK-SAME: -> tensor<1x7x7x4608xf32>
// CHECK: %[[R:.*]] = hgraph.reshape %[[C]] : tensor<1x7x7x4608xf32> -> tensor<49x4608xf32>
// CHECK: %[[M:.*]] = hgraph.matmul %[[R]], %[[W]] : (tensor<49x4608xf32>, tensor<4608x512xf32>) -> tensor<49x512xf32>
// CHECK: %[[A:.*]] = hgraph.add %[[M]], %[[B]]
// CHECK: %[[Y:.*]] = hgraph.reshape %[[A]] : tensor<49x512xf32> -> tensor<1x7x7x512xf32>
// CHECK: %[[O:.*]] = hgraph.transpose %[[Y]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: return %[[O]]
func.func @three_by_three(%x: tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32> {
  %w = hgraph.constant dense<0.5> : tensor<512x512x3x3xf32>
  %b = hgraph.constant dense<1.0> : tensor<512xf32>
  %y = hgraph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>, tensor<512xf32>) -> tensor<1x512x7x7xf32>
  return %y : tensor<1x512x7x7xf32>
}

// Tests a stage: the 1x1 convolution alone would not pay for its
// transposes (@alone), but it reads the 3x3 one's result through a relu,
// so both run channels-last with one transpose in; the relu and the
// residual add run channels-last between them, and the global mean at the
// end is a row of 1/49 times the positions: no transpose out.
// CHECK-LABEL: func.func @stage
// CHECK-DAG: %[[ROW:.*]] = hgraph.constant dense<0.0204081628> : tensor<1x49xf32>
// CHECK-DAG: %[[W1:.*]] = hgraph.constant dense<2.500000e-01> : tensor<512x512xf32>
// CHECK: hgraph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NOT: hgraph.transpose
// CHECK: %[[Y:.*]] = hgraph.reshape %{{.*}} : tensor<49x512xf32> -> tensor<1x7x7x512xf32>
// CHECK: %[[RELU:.*]] = hgraph.relu %[[Y]] : tensor<1x7x7x512xf32>
// CHECK: %[[X1:.*]] = hgraph.reshape %[[RELU]] : tensor<1x7x7x512xf32> -> tensor<49x512xf32>
// CHECK: %[[M1:.*]] = hgraph.matmul %[[X1]], %[[W1]]
// CHECK: %[[Z:.*]] = hgraph.reshape %[[M1]] : tensor<49x512xf32> -> tensor<1x7x7x512xf32>
// CHECK: %[[S:.*]] = hgraph.add %[[Z]], %[[RELU]] : (tensor<1x7x7x512xf32>, tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
// CHECK: %[[SR:.*]] = hgraph.reshape %[[S]] : tensor<1x7x7x512xf32> -> tensor<49x512xf32>
// CHECK: %[[MEAN:.*]] = hgraph.matmul %[[ROW]], %[[SR]] : (tensor<1x49xf32>, tensor<49x512xf32>) -> tensor<1x512xf32>
// CHECK: %[[OUT:.*]] = hgraph.reshape %[[MEAN]] : tensor<1x512xf32> -> tensor<1x512x1x1xf32>
// CHECK-NOT: hgraph.transpose
// CHECK: return %[[OUT]]
func.func @stage(%x: tensor<1x512x7x7xf32>) -> tensor<1x512x1x1xf32> {
  %w = hgraph.constant dense<0.5> : tensor<512x512x3x3xf32>
  %w1 = hgraph.constant dense<0.25> : tensor<512x512x1x1xf32>
  %y = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32>
  %r = hgraph.relu %y : tensor<1x512x7x7xf32>
  %z = hgraph.conv %r, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x512x7x7xf32>, tensor<512x512x1x1xf32>) -> tensor<1x512x7x7xf32>
  %s = hgraph.add %z, %r : (tensor<1x512x7x7xf32>, tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32>
  %p = hgraph.reduce mean %s {axes = array<i64: 2, 3>, keepdims = true} : tensor<1x512x7x7xf32> -> tensor<1x512x1x1xf32>
  return %p : tensor<1x512x1x1xf32>
}

// Tests that a convolution that takes fewer rows channels-last but not
// enough to pay for its two transposes stays as it is.
// CHECK-LABEL: func.func @alone
// CHECK: hgraph.conv
// CHECK-NOT: hgraph.transpose
func.func @alone(%x: tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32> {
  %w1 = hgraph.constant dense<0.25> : tensor<512x512x1x1xf32>
  %z = hgraph.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x512x7x7xf32>, tensor<512x512x1x1xf32>) -> tensor<1x512x7x7xf32>
  return %z : tensor<1x512x7x7xf32>
}

// Tests that a convolution of a large map with few channels stays
// channels-first.
// CHECK-LABEL: func.func @large_map
// CHECK: hgraph.conv
// CHECK-NOT: hgraph.transpose
func.func @large_map(%x: tensor<1x16x56x56xf32>) -> tensor<1x16x56x56xf32> {
  %w = hgraph.constant dense<0.5> : tensor<16x16x3x3xf32>
  %y = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x56x56xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x56x56xf32>
  return %y : tensor<1x16x56x56xf32>
}

// Tests that a strided 1x1 convolution takes every second position by a
// slice before its transpose, and that the slice moves past the transpose
// that ends the 3x3 convolution before it: both run channels-last with no
// transpose between them, the slice on the channels-last map.
// CHECK-LABEL: func.func @strided
// CHECK: hgraph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NOT: hgraph.transpose
// CHECK: %[[RELU:.*]] = hgraph.relu %{{.*}} : tensor<1x14x14x512xf32>
// CHECK: %[[S:.*]] = hgraph.slice %[[RELU]] {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 2, 2, 1>} : tensor<1x14x14x512xf32> -> tensor<1x7x7x512xf32>
// CHECK: %[[R:.*]] = hgraph.reshape %[[S]] : tensor<1x7x7x512xf32> -> tensor<49x512xf32>
// CHECK: hgraph.matmul %[[R]], %{{.*}} : (tensor<49x512xf32>, tensor<512x1024xf32>) -> tensor<49x1024xf32>
// CHECK-NOT: hgraph.transpose
// CHECK: return
func.func @strided(%x: tensor<1x512x14x14xf32>) -> tensor<1x1024x1x1xf32> {
  %w = hgraph.constant dense<0.5> : tensor<512x512x3x3xf32>
  %w1 = hgraph.constant dense<0.25> : tensor<1024x512x1x1xf32>
  %y = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x512x14x14xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x14x14xf32>
  %r = hgraph.relu %y : tensor<1x512x14x14xf32>
  %z = hgraph.conv %r, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x512x14x14xf32>, tensor<1024x512x1x1xf32>) -> tensor<1x1024x7x7xf32>
  %p = hgraph.reduce mean %z {axes = array<i64: 2, 3>, keepdims = true} : tensor<1x1024x7x7xf32> -> tensor<1x1024x1x1xf32>
  return %p : tensor<1x1024x1x1xf32>
}

// Tests that a depthwise 3x3 convolution of a 7x7 map of 960 channels
// (channels-first: nine gathers of 960 rows of 49 through a switch unit)
// becomes one depthwise_conv_nhwc of its channels-last map, with the
// weights as a row of channels per kernel element ([3, 3, 960]) and the
// bias as it is; the global mean after it takes its result channels-last,
// so only the transpose in is paid.
// CHECK-LABEL: func.func @depthwise
// CHECK-DAG: %[[ROW:.*]] = hgraph.constant dense<0.0204081628> : tensor<1x49xf32>
// CHECK-DAG: %[[B:.*]] = hgraph.constant dense<1.000000e+00> : tensor<960xf32>
// CHECK-DAG: %[[W:.*]] = hgraph.constant dense<5.000000e-01> : tensor<3x3x960xf32>
// CHECK: %[[T:.*]] = hgraph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x960x7x7xf32> -> tensor<1x7x7x960xf32>
// CHECK: %[[Y:.*]] = hgraph.depthwise_conv_nhwc %[[T]], %[[W]], %[[B]] {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x7x7x960xf32>, tensor<3x3x960xf32>, tensor<960xf32>) -> tensor<1x7x7x960xf32>
// CHECK: %[[R:.*]] = hgraph.reshape %[[Y]] : tensor<1x7x7x960xf32> -> tensor<49x960xf32>
// CHECK: hgraph.matmul %[[ROW]], %[[R]]
// CHECK-NOT: hgraph.transpose
// CHECK: return
func.func @depthwise(%x: tensor<1x960x7x7xf32>) -> tensor<1x960x1x1xf32> {
  %w = hgraph.constant dense<0.5> : tensor<960x1x3x3xf32>
  %b = hgraph.constant dense<1.0> : tensor<960xf32>
  %y = hgraph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 960 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x960x7x7xf32>, tensor<960x1x3x3xf32>, tensor<960xf32>) -> tensor<1x960x7x7xf32>
  %p = hgraph.reduce mean %y {axes = array<i64: 2, 3>, keepdims = true} : tensor<1x960x7x7xf32> -> tensor<1x960x1x1xf32>
  return %p : tensor<1x960x1x1xf32>
}

// Tests that the layouts are chosen together: the 1x1 projection to 96
// channels of a 14x14 map takes fewer plane rows channels-first (96 rows
// through two K tiles, against 196), but between two 5x5 depthwise
// convolutions that pay channels-last it would need a transpose on each
// side, so it runs channels-last with them, as does the expansion after
// it. The clip (max, min with single elements) between them takes the
// map as it is.
// CHECK-LABEL: func.func @projection_joins
// CHECK-NOT: hgraph.conv
// CHECK: hgraph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NOT: hgraph.transpose
// CHECK: %[[LO:.*]] = hgraph.max %{{.*}}, %{{.*}} : (tensor<1x14x14x576xf32>, tensor<f32>) -> tensor<1x14x14x576xf32>
// CHECK: %[[HI:.*]] = hgraph.min %[[LO]], %{{.*}} : (tensor<1x14x14x576xf32>, tensor<f32>) -> tensor<1x14x14x576xf32>
// CHECK: %[[X:.*]] = hgraph.reshape %[[HI]] : tensor<1x14x14x576xf32> -> tensor<196x576xf32>
// CHECK: %[[PROJ:.*]] = hgraph.matmul %[[X]], %{{.*}} : (tensor<196x576xf32>, tensor<576x96xf32>) -> tensor<196x96xf32>
// CHECK: hgraph.matmul %[[PROJ]], %{{.*}} : (tensor<196x96xf32>, tensor<96x576xf32>) -> tensor<196x576xf32>
// CHECK-NOT: hgraph.transpose
// CHECK: return
func.func @projection_joins(%x: tensor<1x576x14x14xf32>) -> tensor<1x576x1x1xf32> {
  %zero = hgraph.constant dense<0.0> : tensor<f32>
  %six = hgraph.constant dense<6.0> : tensor<f32>
  %wd = hgraph.constant dense<0.25> : tensor<576x1x5x5xf32>
  %wp = hgraph.constant dense<0.125> : tensor<96x576x1x1xf32>
  %we = hgraph.constant dense<0.5> : tensor<576x96x1x1xf32>
  %d = hgraph.conv %x, %wd {dilations = array<i64: 1, 1>, group = 576 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<1x576x14x14xf32>, tensor<576x1x5x5xf32>) -> tensor<1x576x14x14xf32>
  %d1 = hgraph.max %d, %zero : (tensor<1x576x14x14xf32>, tensor<f32>) -> tensor<1x576x14x14xf32>
  %d2 = hgraph.min %d1, %six : (tensor<1x576x14x14xf32>, tensor<f32>) -> tensor<1x576x14x14xf32>
  %p = hgraph.conv %d2, %wp {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x576x14x14xf32>, tensor<96x576x1x1xf32>) -> tensor<1x96x14x14xf32>
  %e = hgraph.conv %p, %we {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x96x14x14xf32>, tensor<576x96x1x1xf32>) -> tensor<1x576x14x14xf32>
  %f = hgraph.conv %e, %wd {dilations = array<i64: 1, 1>, group = 576 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<1x576x14x14xf32>, tensor<576x1x5x5xf32>) -> tensor<1x576x14x14xf32>
  %m = hgraph.reduce mean %f {axes = array<i64: 2, 3>, keepdims = true} : tensor<1x576x14x14xf32> -> tensor<1x576x1x1xf32>
  return %m : tensor<1x576x1x1xf32>
}

// Tests a squeeze-and-excitation block channels-last: the mean of the
// map is a product with a row of 1/49, the two convolutions of its one
// position are products of one row (their transposes only move unit
// dimensions, so they are reshapes, and the reshapes fold), and the
// scale, [1, 672, 1, 1] channels-first, multiplies the map as a row of
// channels.
// CHECK-LABEL: func.func @squeeze_excite
// CHECK-NOT: hgraph.conv
// CHECK: hgraph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NOT: hgraph.transpose
// CHECK: %[[ACT:.*]] = hgraph.mul %[[D:.*]], %{{.*}} : (tensor<1x7x7x672xf32>, tensor<1x7x7x672xf32>) -> tensor<1x7x7x672xf32>
// CHECK: hgraph.matmul %{{.*}}, %{{.*}} : (tensor<1x49xf32>, tensor<49x672xf32>) -> tensor<1x672xf32>
// CHECK: hgraph.matmul %{{.*}}, %{{.*}} : (tensor<1x672xf32>, tensor<672x28xf32>) -> tensor<1x28xf32>
// CHECK: hgraph.matmul %{{.*}}, %{{.*}} : (tensor<1x28xf32>, tensor<28x672xf32>) -> tensor<1x672xf32>
// CHECK: %[[SCALE:.*]] = hgraph.sigmoid %{{.*}} : tensor<1x1x1x672xf32>
// CHECK: %[[Y:.*]] = hgraph.mul %[[SCALE]], %[[ACT]] : (tensor<1x1x1x672xf32>, tensor<1x7x7x672xf32>) -> tensor<1x7x7x672xf32>
// CHECK: %[[OUT:.*]] = hgraph.transpose %[[Y]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: return %[[OUT]]
func.func @squeeze_excite(%x: tensor<1x672x7x7xf32>) -> tensor<1x672x7x7xf32> {
  %wd = hgraph.constant dense<0.25> : tensor<672x1x5x5xf32>
  %w1 = hgraph.constant dense<0.5> : tensor<28x672x1x1xf32>
  %w2 = hgraph.constant dense<0.5> : tensor<672x28x1x1xf32>
  %d = hgraph.conv %x, %wd {dilations = array<i64: 1, 1>, group = 672 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<1x672x7x7xf32>, tensor<672x1x5x5xf32>) -> tensor<1x672x7x7xf32>
  %g = hgraph.sigmoid %d : tensor<1x672x7x7xf32>
  %a = hgraph.mul %d, %g : (tensor<1x672x7x7xf32>, tensor<1x672x7x7xf32>) -> tensor<1x672x7x7xf32>
  %r = hgraph.reshape %a : tensor<1x672x7x7xf32> -> tensor<1x672x49xf32>
  %m = hgraph.reduce mean %r {axes = array<i64: 2>, keepdims = true} : tensor<1x672x49xf32> -> tensor<1x672x1xf32>
  %m4 = hgraph.reshape %m : tensor<1x672x1xf32> -> tensor<1x672x1x1xf32>
  %s1 = hgraph.conv %m4, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x672x1x1xf32>, tensor<28x672x1x1xf32>) -> tensor<1x28x1x1xf32>
  %s2 = hgraph.conv %s1, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x28x1x1xf32>, tensor<672x28x1x1xf32>) -> tensor<1x672x1x1xf32>
  %sc = hgraph.sigmoid %s2 : tensor<1x672x1x1xf32>
  %y = hgraph.mul %sc, %a : (tensor<1x672x1x1xf32>, tensor<1x672x7x7xf32>) -> tensor<1x672x7x7xf32>
  return %y : tensor<1x672x7x7xf32>
}

// Tests a ConvNeXt block: the model's own transposes around its
// pointwise layers (a permute to channels-last after the depthwise
// convolution, one back before the layer scale) cancel against the
// convolutions' own, the layer scale ([C, 1, 1]) multiplies as a row of
// channels, and the residual add reads the block input's transpose, made
// for the first convolution. One transpose in, one out.
// CHECK-LABEL: func.func @convnext_block
// CHECK-DAG: %[[GAMMA:.*]] = hgraph.constant dense<1.000000e-01> : tensor<1x1x1x384xf32>
// CHECK: %[[IN:.*]] = hgraph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x384x14x14xf32> -> tensor<1x14x14x384xf32>
// CHECK-NOT: hgraph.transpose
// CHECK: %[[O:.*]] = hgraph.matmul %{{.*}}, %{{.*}} : (tensor<1x14x14x1536xf32>, tensor<1536x384xf32>) -> tensor<1x14x14x384xf32>
// CHECK: %[[S:.*]] = hgraph.mul %[[GAMMA]], %[[O]] : (tensor<1x1x1x384xf32>, tensor<1x14x14x384xf32>) -> tensor<1x14x14x384xf32>
// CHECK: %[[R:.*]] = hgraph.add %[[S]], %[[IN]] : (tensor<1x14x14x384xf32>, tensor<1x14x14x384xf32>) -> tensor<1x14x14x384xf32>
// CHECK: hgraph.depthwise_conv_nhwc %[[R]]
// CHECK-NOT: hgraph.conv
// CHECK: %[[OUT:.*]] = hgraph.transpose %{{.*}} {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: hgraph.transpose
// CHECK: return %[[OUT]]
func.func @convnext_block(%x: tensor<1x384x14x14xf32>) -> tensor<1x384x14x14xf32> {
  %wd = hgraph.constant dense<0.25> : tensor<384x1x7x7xf32>
  %w1 = hgraph.constant dense<0.5> : tensor<384x1536xf32>
  %w2 = hgraph.constant dense<0.5> : tensor<1536x384xf32>
  %g = hgraph.constant dense<0.1> : tensor<384x1x1xf32>
  %d = hgraph.conv %x, %wd {dilations = array<i64: 1, 1>, group = 384 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 1, 1>} : (tensor<1x384x14x14xf32>, tensor<384x1x7x7xf32>) -> tensor<1x384x14x14xf32>
  %t = hgraph.transpose %d {perm = array<i64: 0, 2, 3, 1>} : tensor<1x384x14x14xf32> -> tensor<1x14x14x384xf32>
  %h = hgraph.matmul %t, %w1 : (tensor<1x14x14x384xf32>, tensor<384x1536xf32>) -> tensor<1x14x14x1536xf32>
  %a = hgraph.relu %h : tensor<1x14x14x1536xf32>
  %o = hgraph.matmul %a, %w2 : (tensor<1x14x14x1536xf32>, tensor<1536x384xf32>) -> tensor<1x14x14x384xf32>
  %b = hgraph.transpose %o {perm = array<i64: 0, 3, 1, 2>} : tensor<1x14x14x384xf32> -> tensor<1x384x14x14xf32>
  %s = hgraph.mul %g, %b : (tensor<384x1x1xf32>, tensor<1x384x14x14xf32>) -> tensor<1x384x14x14xf32>
  %r = hgraph.add %s, %x : (tensor<1x384x14x14xf32>, tensor<1x384x14x14xf32>) -> tensor<1x384x14x14xf32>
  %d2 = hgraph.conv %r, %wd {dilations = array<i64: 1, 1>, group = 384 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 1, 1>} : (tensor<1x384x14x14xf32>, tensor<384x1x7x7xf32>) -> tensor<1x384x14x14xf32>
  return %d2 : tensor<1x384x14x14xf32>
}

// Tests an integer convolution (hetc-hgraph-fuse-quantized's), which goes
// channels-last as a matmul_integer, and whose sums' cast, per-channel
// scaling, ReLU and requantisation (one scale) the transpose back moves
// through: the i8 map it feeds the next convolution is channels-last too,
// and the two meet with no transpose between them.
// CHECK-LABEL: func.func @integer
// CHECK: %[[T:.*]] = hgraph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x512x7x7xi8> -> tensor<1x7x7x512xi8>
// CHECK: %[[M:.*]] = hgraph.matmul_integer %{{.*}}, %{{.*}} : (tensor<49x4608xi8>, tensor<4608x512xi8>) -> tensor<49x512xi32>
// CHECK: %[[F:.*]] = hgraph.cast %{{.*}} : tensor<1x7x7x512xi32> -> tensor<1x7x7x512xf32>
// CHECK: hgraph.mul %[[F]], %{{.*}} : (tensor<1x7x7x512xf32>, tensor<1x1x1x512xf32>)
// CHECK: hgraph.relu
// CHECK: %[[Q:.*]] = hgraph.quantize_linear {{.*}} -> tensor<1x7x7x512xi8>
// CHECK-NOT: hgraph.transpose %[[Q]]
// CHECK: hgraph.matmul_integer
// CHECK: return
func.func @integer(%x: tensor<1x512x7x7xi8>) -> tensor<1x512x7x7xi32> {
  %w = hgraph.constant dense<3> : tensor<512x512x3x3xi8>
  %s = hgraph.constant dense<0.25> : tensor<1x512x1x1xf32>
  %one = hgraph.constant dense<1.0> : tensor<f32>
  %y = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x512x7x7xi8>, tensor<512x512x3x3xi8>) -> tensor<1x512x7x7xi32>
  %f = hgraph.cast %y : tensor<1x512x7x7xi32> -> tensor<1x512x7x7xf32>
  %m = hgraph.mul %f, %s : (tensor<1x512x7x7xf32>, tensor<1x512x1x1xf32>) -> tensor<1x512x7x7xf32>
  %r = hgraph.relu %m : tensor<1x512x7x7xf32>
  %q = hgraph.quantize_linear %r, %one {axis = 1 : i64} : (tensor<1x512x7x7xf32>, tensor<f32>) -> tensor<1x512x7x7xi8>
  %z = hgraph.conv %q, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x512x7x7xi8>, tensor<512x512x3x3xi8>) -> tensor<1x512x7x7xi32>
  return %z : tensor<1x512x7x7xi32>
}
