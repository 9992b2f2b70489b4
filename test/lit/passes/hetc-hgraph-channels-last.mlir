// RUN: hetc-opt %s --hetc-set-chip=file=%chips/tsp-v1.chip --hetc-hgraph-channels-last | FileCheck %s
// RUN: hetc-opt %s --hetc-hgraph-channels-last | FileCheck %s --check-prefix=NOCHIP

// A module without a chip keeps its convolutions.
// NOCHIP-LABEL: func.func @three_by_three
// NOCHIP: hgraph.conv
// NOCHIP-NOT: hgraph.transpose

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
