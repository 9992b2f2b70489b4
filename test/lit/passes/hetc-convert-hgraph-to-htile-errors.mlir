// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-convert-hgraph-to-htile=chip=%chips/test-chip.chip

// Tests that a transpose moving the innermost dimension elsewhere than
// second-innermost is reported at its node.
func.func @main(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = hgraph.relu %x : tensor<2x3x4xf32>
  // expected-error @+1 {{transpose with perm [2, 0, 1] is not supported on the chip yet: it must keep the innermost dimension last or swap the two innermost dimensions}}
  %1 = hgraph.transpose %0 {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// Tests that every unsupported op of a function is reported, not only the first.
func.func @main(%x: tensor<4x8xf32>) -> (tensor<2x16xf32>, tensor<4x8xf32>) {
  // expected-error @+1 {{reshape from 'tensor<4x8xf32>' to 'tensor<2x16xf32>' changes the row length}}
  %0 = hgraph.reshape %x : tensor<4x8xf32> -> tensor<2x16xf32>
  // expected-error @+1 {{softmax along axis 0 of 'tensor<4x8xf32>' is not supported on the chip yet}}
  %1 = hgraph.softmax %x {axis = 0 : i64} : tensor<4x8xf32>
  return %0, %1 : tensor<2x16xf32>, tensor<4x8xf32>
}

// -----

// Tests that softmax rows must fit one vector of the chip.
func.func @main(%x: tensor<2x20xf32>) -> tensor<2x20xf32> {
  // expected-error @+1 {{softmax over rows of 20 elements is not supported on the chip yet; rows must fit one vector (16 lanes on 'test-chip')}}
  %0 = hgraph.softmax %x {axis = 1 : i64} : tensor<2x20xf32>
  return %0 : tensor<2x20xf32>
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
func.func @main(%x: tensor<4x8xf32>) -> (tensor<2x16xf32>, tensor<4x8xf32>) {
  // expected-error @+1 {{changes the row length}}
  %0 = hgraph.reshape %x : tensor<4x8xf32> -> tensor<2x16xf32>
  %1 = hgraph.relu %0 : tensor<2x16xf32>
  // expected-error @+1 {{softmax along axis 0}}
  %2 = hgraph.softmax %x {axis = 0 : i64} : tensor<4x8xf32>
  return %1, %2 : tensor<2x16xf32>, tensor<4x8xf32>
}

// -----

// Tests that reductions over other axes are reported.
func.func @main(%x: tensor<3x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{reduce sum over axes [0] is not supported on the chip yet; supported: sum, mean, max or min over the innermost axis}}
  %0 = hgraph.reduce sum %x {axes = array<i64: 0>, keepdims = true} : tensor<3x4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Tests that a model input of another element type is reported.
// expected-error @+1 {{model input 'i' has element type 'i8'; only float32 tensors run on the chip yet}}
func.func @main(%x: tensor<3x4xi8> {hgraph.name = "i"}) -> tensor<3x4xi8> {
  return %x : tensor<3x4xi8>
}
