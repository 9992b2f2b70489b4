// RUN: hetc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hetc-htile-pack-columns))' | FileCheck %s

// Tests that a constant column of 3 rows, spread over rows of 9 by two
// kernels (as either operand), is held packed in two copies, and that
// the kernels take it as a column.
// CHECK-LABEL: func.func @spread
// CHECK: %[[C:.*]] = htile.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<2x3xf32> : memref<2x3xf32>
// CHECK-NOT: htile.constant
// CHECK: htile.binary mul ins(%{{.*}}, %[[C]]) column(rhs) outs(%{{.*}}) : memref<1x3x9xf32>, memref<2x3xf32>, memref<1x3x9xf32>
// CHECK: htile.binary sub ins(%[[C]], %{{.*}}) column(lhs) outs(%{{.*}}) : memref<2x3xf32>, memref<1x3x9xf32>, memref<1x3x9xf32>
func.func @spread() {
  %x = htile.input "x" : memref<1x3x9xf32>
  %c = htile.constant dense<[[1.0], [2.0], [3.0]]> : tensor<3x1xf32> : memref<3x1xf32>
  %y = htile.alloc : memref<1x3x9xf32>
  htile.binary mul ins(%x, %c) outs(%y) : memref<1x3x9xf32>, memref<3x1xf32>, memref<1x3x9xf32>
  %z = htile.alloc : memref<1x3x9xf32>
  htile.binary sub ins(%c, %y) outs(%z) : memref<3x1xf32>, memref<1x3x9xf32>, memref<1x3x9xf32>
  htile.output "z", %z : memref<1x3x9xf32>
  return
}

// -----

// Tests that the kernel plan's depthwise convolution reads the first copy
// of the packed taps through a view of its rows, while the chip's kernels
// read both copies.
// CHECK-LABEL: func.func @depthwise_taps
// CHECK: %[[T:.*]] = htile.constant dense<2.000000e+00> : tensor<2x2xf32> : memref<2x2xf32>
// CHECK: %[[V:.*]] = htile.view %[[T]] rows 0 : memref<2x2xf32> to memref<2xf32>
// CHECK: htile.binary mul ins(%{{.*}}, %[[T]]) column(rhs) outs
// CHECK: htile.plan_depthwise_conv ins(%{{.*}}, [%[[V]]], %[[V]]) outs
func.func @depthwise_taps() {
  %x = htile.input "x" : memref<1x2x4xf32>
  %t = htile.constant dense<2.0> : tensor<2x1xf32> : memref<2x1xf32>
  %y = htile.alloc : memref<1x2x4xf32>
  htile.binary mul ins(%x, %t) outs(%y) : memref<1x2x4xf32>, memref<2x1xf32>, memref<1x2x4xf32>
  htile.plan_depthwise_conv ins(%x, [%t], %t) outs(%y) {dilations = array<i64: 1>, input_shape = array<i64: 1, 2, 4>, kernel = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : memref<1x2x4xf32>, [memref<2x1xf32>], memref<2x1xf32> -> memref<1x2x4xf32>
  htile.output "y", %y : memref<1x2x4xf32>
  return
}

// -----

// Tests what stays as it is: a column read by a kernel that does not
// spread it (rows of one), one a unary kernel reads, one that is both
// operands, a single row, an f16 column and a column computed at run time.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: column(
func.func @kept() {
  %x = htile.input "x" : memref<4x1xf32>
  %a = htile.constant dense<1.0> : tensor<4x1xf32> : memref<4x1xf32>
  %y0 = htile.alloc : memref<4x1xf32>
  htile.binary add ins(%x, %a) outs(%y0) : memref<4x1xf32>, memref<4x1xf32>, memref<4x1xf32>
  %w = htile.input "w" : memref<4x8xf32>
  %b = htile.constant dense<1.0> : tensor<4x1xf32> : memref<4x1xf32>
  %y1 = htile.alloc : memref<4x8xf32>
  htile.binary add ins(%w, %b) outs(%y1) : memref<4x8xf32>, memref<4x1xf32>, memref<4x8xf32>
  %y2 = htile.alloc : memref<4x1xf32>
  htile.unary relu ins(%b) outs(%y2) : memref<4x1xf32>, memref<4x1xf32>
  %c = htile.constant dense<1.0> : tensor<4x1xf32> : memref<4x1xf32>
  %y3 = htile.alloc : memref<4x1xf32>
  htile.binary mul ins(%c, %c) outs(%y3) : memref<4x1xf32>, memref<4x1xf32>, memref<4x1xf32>
  %d = htile.constant dense<1.0> : tensor<1x1xf32> : memref<1x1xf32>
  %y4 = htile.alloc : memref<4x8xf32>
  htile.binary add ins(%w, %d) outs(%y4) : memref<4x8xf32>, memref<1x1xf32>, memref<4x8xf32>
  %h = htile.input "h" : memref<4x8xf16>
  %e = htile.constant dense<1.0> : tensor<4x1xf16> : memref<4x1xf16>
  %y5 = htile.alloc : memref<4x8xf16>
  htile.binary add ins(%h, %e) outs(%y5) : memref<4x8xf16>, memref<4x1xf16>, memref<4x8xf16>
  %y6 = htile.alloc : memref<4x8xf32>
  htile.binary add ins(%w, %y0) outs(%y6) : memref<4x8xf32>, memref<4x1xf32>, memref<4x8xf32>
  htile.output "y1", %y1 : memref<4x8xf32>
  htile.output "y2", %y2 : memref<4x1xf32>
  htile.output "y3", %y3 : memref<4x1xf32>
  htile.output "y4", %y4 : memref<4x8xf32>
  htile.output "y5", %y5 : memref<4x8xf16>
  htile.output "y6", %y6 : memref<4x8xf32>
  return
}
