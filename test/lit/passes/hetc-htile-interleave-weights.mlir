// RUN: hetc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hetc-htile-interleave-weights))' | FileCheck %s

// Tests that an f16 weight (K = 3, N = 5, tiles of 4) gets rows 0 and 1 of
// each column tile side by side, row 2 beside zeros, the columns past N
// zero, and that the matmul takes it interleaved by 2.
// CHECK-LABEL: func.func @f16_pairs
// CHECK: %[[W:.*]] = htile.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 5.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+01, 0.000000e+00, 0.000000e+00, 0.000000e+00], [1.100000e+01, 1.200000e+01, 1.300000e+01, 1.400000e+01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.500000e+01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<2x16xf16> : memref<2x16xf16>
// CHECK-NOT: htile.constant
// CHECK: htile.matmul ins(%{{.*}}, %[[W]]) interleave 2 outs
// CHECK-SAME: memref<1x3xf16>, memref<2x16xf16>, memref<1x5xf32>
func.func @f16_pairs() {
  %x = htile.input "x" : memref<1x3xf16>
  %w = htile.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0], [11.0, 12.0, 13.0, 14.0, 15.0]]> : tensor<3x5xf16> : memref<3x5xf16>
  %y = htile.alloc : memref<1x5xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 4, 4>} : memref<1x3xf16>, memref<3x5xf16>, memref<1x5xf32>
  htile.output "y", %y : memref<1x5xf32>
  return
}

// -----

// Tests that an i8 weight of an i8 matmul takes four rows of a tile to an
// SRAM row, and that two matmuls sharing the weight both take it so.
// CHECK-LABEL: func.func @i8_quads
// CHECK: %[[W:.*]] = htile.constant dense<{{\[}}[1, 3, 5, 7, 2, 4, 6, 8]]> : tensor<1x8xi8> : memref<1x8xi8>
// CHECK: htile.matmul ins(%{{.*}}, %[[W]]) interleave 4 outs
// CHECK: htile.matmul ins(%{{.*}}, %[[W]]) interleave 4 outs
func.func @i8_quads() {
  %x = htile.input "x" : memref<2x4xi8>
  %w = htile.constant dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi8> : memref<4x2xi8>
  %y = htile.alloc : memref<2x2xi32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 4, 1>} : memref<2x4xi8>, memref<4x2xi8>, memref<2x2xi32>
  %z = htile.alloc : memref<2x2xi32>
  htile.matmul ins(%x, %w) outs(%z) activation(none) {tile = array<i64: 1, 4, 1>} : memref<2x4xi8>, memref<4x2xi8>, memref<2x2xi32>
  htile.output "y", %y : memref<2x2xi32>
  htile.output "z", %z : memref<2x2xi32>
  return
}

// -----

// Tests that an i8 weight converted to the f16 input's type interleaves by
// two, the vectors of f16 an SRAM row holds: its rows hold two pairs.
// CHECK-LABEL: func.func @i8_to_f16
// CHECK: %[[Q:.*]] = htile.constant dense<{{\[}}[1, 3, 2, 4], [5, 0, 6, 0]]> : tensor<2x4xi8> : memref<2x4xi8>
// CHECK: htile.matmul ins(%{{.*}}, %[[Q]]) interleave 2 scale
func.func @i8_to_f16() {
  %h = htile.input "h" : memref<1x3xf16>
  %q = htile.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8> : memref<3x2xi8>
  %s = htile.constant dense<0.5> : tensor<2xf32> : memref<2xf32>
  %z = htile.alloc : memref<1x2xf32>
  htile.matmul ins(%h, %q) scale(%s : memref<2xf32>) outs(%z) activation(none) {tile = array<i64: 1, 2, 1>} : memref<1x3xf16>, memref<3x2xi8>, memref<1x2xf32>
  htile.output "z", %z : memref<1x2xf32>
  return
}

// -----

// Tests what stays as it is: an f32 weight (one vector a row already), a
// weight another kernel reads too, and a weight used as a matmul's input.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: interleave
func.func @kept() {
  %x = htile.input "x" : memref<1x4xf32>
  %w = htile.constant dense<1.0> : tensor<4x4xf32> : memref<4x4xf32>
  %y = htile.alloc : memref<1x4xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 4, 4>} : memref<1x4xf32>, memref<4x4xf32>, memref<1x4xf32>
  %h = htile.input "h" : memref<1x4xf16>
  %v = htile.constant dense<2.0> : tensor<4x4xf16> : memref<4x4xf16>
  %u = htile.alloc : memref<1x4xf32>
  htile.matmul ins(%h, %v) outs(%u) activation(none) {tile = array<i64: 1, 4, 4>} : memref<1x4xf16>, memref<4x4xf16>, memref<1x4xf32>
  %t = htile.alloc : memref<4x4xf16>
  htile.cast ins(%v) outs(%t) : memref<4x4xf16>, memref<4x4xf16>
  %r = htile.alloc : memref<4x4xf32>
  htile.matmul ins(%v, %v) outs(%r) activation(none) {tile = array<i64: 1, 4, 4>} : memref<4x4xf16>, memref<4x4xf16>, memref<4x4xf32>
  htile.output "y", %y : memref<1x4xf32>
  htile.output "u", %u : memref<1x4xf32>
  htile.output "t", %t : memref<4x4xf16>
  htile.output "r", %r : memref<4x4xf32>
  return
}
