// RUN: hetc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hetc-hgraph-narrow-weights))' | FileCheck %s
// RUN: hetc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hetc-hgraph-narrow-weights{type=bf16}))' | FileCheck %s --check-prefix=BF16
// RUN: hetc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hetc-hgraph-narrow-weights{type=i8}))' | FileCheck %s --check-prefix=I8
// RUN: hetc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hetc-hgraph-narrow-weights{type=i8}))' | FileCheck %s --check-prefix=I8-GONE
// The pipelines take the weight type too: the whole compilation narrows.
// RUN: hetc-opt %s --split-input-file --hetc-hgraph-pipeline=weights=bf16 | FileCheck %s --check-prefix=BF16
// RUN: hetc-opt %s --split-input-file --hetc-compile-pipeline='chip=%chips/test-chip.chip weights=f16' --mlir-print-ir-after=hetc-hgraph-narrow-weights -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMPILE
// COMPILE: hgraph.constant {{.*}} : tensor<1x2xf16>

// Tests that a constant f32 weight is rounded to f16 (1.0001 is 1.0 in
// f16, 0.1 is 0.0999755859375), the input is cast to f16 before the
// linear, and the result, the bias and the activation stay f32.
// CHECK-LABEL: func.func @linear
// CHECK: %[[W:.*]] = hgraph.constant dense<{{\[}}[1.000000e+00, 9.997550e-02]]> : tensor<1x2xf16>
// CHECK: %[[X:.*]] = hgraph.cast %arg0 : tensor<4x1xf32> -> tensor<4x1xf16>
// CHECK: %[[Y:.*]] = hgraph.linear %[[X]], %[[W]], %arg1 activation(relu) : (tensor<4x1xf16>, tensor<1x2xf16>, tensor<2xf32>) -> tensor<4x2xf32>
// CHECK: return %[[Y]]
// BF16-LABEL: func.func @linear
// BF16: hgraph.constant dense<{{\[}}[1.000000e+00, 1.000980e-01]]> : tensor<1x2xbf16>
// BF16: hgraph.cast %arg0 : tensor<4x1xf32> -> tensor<4x1xbf16>
func.func @linear(%x: tensor<4x1xf32>, %b: tensor<2xf32>) -> tensor<4x2xf32> {
  %w = hgraph.constant dense<[[1.0001, 0.1]]> : tensor<1x2xf32>
  %y = hgraph.linear %x, %w, %b activation(relu) : (tensor<4x1xf32>, tensor<1x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Tests that a weight two layers share is rounded once, and that a weight
// that is not a constant is left alone.
// CHECK-LABEL: func.func @shared
// CHECK-COUNT-1: hgraph.constant {{.*}} : tensor<2x2xf16>
// CHECK-NOT: hgraph.constant
// CHECK: hgraph.linear {{.*}} : (tensor<1x2xf16>, tensor<2x2xf16>) -> tensor<1x2xf32>
// CHECK: hgraph.linear {{.*}} : (tensor<1x2xf16>, tensor<2x2xf16>) -> tensor<1x2xf32>
// CHECK: hgraph.linear %arg0, %arg1 activation(none) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
func.func @shared(%x: tensor<1x2xf32>, %v: tensor<2x2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) {
  %w = hgraph.constant dense<0.5> : tensor<2x2xf32>
  %a = hgraph.linear %x, %w activation(none) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %b = hgraph.linear %a, %w activation(none) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %c = hgraph.linear %x, %v activation(none) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %a, %b, %c : tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>
}

// -----

// Tests int8 weights with a scale per output column: column 0's largest
// magnitude, 2.54, maps to 127 (scale 0.02, so 1.0 is 50 and -2.54 is
// -127); column 1 of zeros keeps scale 1. Both layers take the int8
// weight and the scales; the inputs are cast to f16.
// I8-LABEL: func.func @int8
// I8-DAG: %[[Q:.*]] = hgraph.constant dense<{{\[}}[50, 0], [-127, 0]]> : tensor<2x2xi8>
// I8-DAG: %[[S:.*]] = hgraph.constant dense<[2.000000e-02, 1.000000e+00]> : tensor<2xf32>
// I8: %[[X:.*]] = hgraph.cast %arg0 : tensor<1x2xf32> -> tensor<1x2xf16>
// I8: %[[A:.*]] = hgraph.linear %[[X]], %[[Q]] scale(%[[S]] : tensor<2xf32>) activation(none) : (tensor<1x2xf16>, tensor<2x2xi8>) -> tensor<1x2xf32>
// I8: %[[A16:.*]] = hgraph.cast %[[A]] : tensor<1x2xf32> -> tensor<1x2xf16>
// I8: hgraph.linear %[[A16]], %[[Q]] scale(%[[S]] : tensor<2xf32>) activation(none) : (tensor<1x2xf16>, tensor<2x2xi8>) -> tensor<1x2xf32>
// I8: return
// The f32 original is gone.
// I8-GONE-NOT: -2.54
func.func @int8(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = hgraph.constant dense<[[1.0, 0.0], [-2.54, 0.0]]> : tensor<2x2xf32>
  %a = hgraph.linear %x, %w activation(none) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %b = hgraph.linear %a, %w activation(none) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %b : tensor<1x2xf32>
}

// -----

// Tests that a layer that scales its sums already keeps its weight, and
// that no constant is made for it.
// I8-LABEL: func.func @scaled
// I8-NOT: xi8>
// I8: hgraph.linear %arg0, %{{.*}} scale(%{{.*}} : tensor<2xf32>) activation(none) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
func.func @scaled(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = hgraph.constant dense<0.5> : tensor<2x2xf32>
  %s = hgraph.constant dense<2.0> : tensor<2xf32>
  %y = hgraph.linear %x, %w scale(%s : tensor<2xf32>) activation(none) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// Tests that a convolution's constant weight is rounded to f16 (f16 too at
// i8: the weight rows stream through the planes, where only installed rows
// are converted) with its input cast before it, the bias and the result
// staying f32; and that a depthwise convolution, which runs on the vector
// unit, keeps its f32 weight.
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[W:.*]] = hgraph.constant dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}9.997550e-02]]]]> : tensor<2x1x1x1xf16>
// CHECK-DAG: %[[D:.*]] = hgraph.constant dense<2.500000e-01> : tensor<2x1x1x1xf32>
// CHECK: %[[X:.*]] = hgraph.cast %arg0 : tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf16>
// CHECK: %[[C:.*]] = hgraph.conv %[[X]], %[[W]], %arg1 {{.*}} : (tensor<1x1x2x2xf16>, tensor<2x1x1x1xf16>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK: hgraph.conv %[[C]], %[[D]] {{.*}} : (tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
// BF16-LABEL: func.func @conv
// BF16: hgraph.conv {{.*}} : (tensor<1x1x2x2xbf16>, tensor<2x1x1x1xbf16>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// I8-LABEL: func.func @conv
// I8: hgraph.conv {{.*}} : (tensor<1x1x2x2xf16>, tensor<2x1x1x1xf16>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// I8-NOT: xi8>
func.func @conv(%x: tensor<1x1x2x2xf32>, %b: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  %w = hgraph.constant dense<[[[[1.0001]]], [[[0.1]]]]> : tensor<2x1x1x1xf32>
  %d = hgraph.constant dense<0.25> : tensor<2x1x1x1xf32>
  %c = hgraph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %y = hgraph.conv %c, %d {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}
