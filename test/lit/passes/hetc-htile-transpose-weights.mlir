// RUN: hetc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hetc-htile-transpose-weights))' | FileCheck %s

// Tests that a weight of 4 rows of 6 (two 4-lane vectors a row, 8 in all)
// is held as 6 rows of 4 (6 vectors), element [n][k] = W[k][n], and the
// matmul takes it transposed.
// CHECK-LABEL: func.func @narrow_rows
// CHECK: %[[W:.*]] = htile.constant dense<{{\[}}[0.000000e+00, 6.000000e+00, 1.200000e+01, 1.800000e+01], [1.000000e+00, 7.000000e+00, 1.300000e+01, 1.900000e+01], [2.000000e+00, 8.000000e+00, 1.400000e+01, 2.000000e+01], [3.000000e+00, 9.000000e+00, 1.500000e+01, 2.100000e+01], [4.000000e+00, 1.000000e+01, 1.600000e+01, 2.200000e+01], [5.000000e+00, 1.100000e+01, 1.700000e+01, 2.300000e+01]]> : tensor<6x4xf32> : memref<6x4xf32>
// CHECK-NOT: htile.constant {{.*}}4x6
// CHECK: htile.matmul ins(%{{.*}}, %[[W]]) transposed bias(%{{.*}} : memref<6xf32>) outs(%{{.*}}) activation(relu) {tile = array<i64: 1, 4, 4>} : memref<2x4xf32>, memref<6x4xf32>, memref<2x6xf32>
func.func @narrow_rows() {
  %x = htile.input "x" : memref<2x4xf32>
  %w = htile.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0], [18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<4x6xf32> : memref<4x6xf32>
  %b = htile.constant dense<1.0> : tensor<6xf32> : memref<6xf32>
  %y = htile.alloc : memref<2x6xf32>
  htile.matmul ins(%x, %w) bias(%b : memref<6xf32>) outs(%y) activation(relu) {tile = array<i64: 1, 4, 4>} : memref<2x4xf32>, memref<4x6xf32>, memref<2x6xf32>
  htile.output "y", %y : memref<2x6xf32>
  return
}

// -----

// Tests that a splat weight shared by two matmuls is transposed for both
// (3 x 5: 6 vectors, 5 held 5 x 3).
// CHECK-LABEL: func.func @shared_splat
// CHECK: %[[W:.*]] = htile.constant dense<5.000000e-01> : tensor<5x3xf32> : memref<5x3xf32>
// CHECK: htile.matmul ins(%{{.*}}, %[[W]]) transposed outs
// CHECK: htile.matmul ins(%{{.*}}, %[[W]]) transposed outs
func.func @shared_splat() {
  %x = htile.input "x" : memref<1x3xf32>
  %w = htile.constant dense<0.5> : tensor<3x5xf32> : memref<3x5xf32>
  %y = htile.alloc : memref<1x5xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 4, 4>} : memref<1x3xf32>, memref<3x5xf32>, memref<1x5xf32>
  %z = htile.alloc : memref<1x5xf32>
  htile.matmul ins(%x, %w) outs(%z) activation(none) {tile = array<i64: 1, 4, 4>} : memref<1x3xf32>, memref<3x5xf32>, memref<1x5xf32>
  htile.output "y", %y : memref<1x5xf32>
  htile.output "z", %z : memref<1x5xf32>
  return
}

// -----

// Tests what stays as it is: a weight no smaller transposed (6 x 6: 12
// vectors either way), one read by another kernel too, an f16 weight
// (interleaved instead), one without a tile, and one already transposed.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: transposed outs
// CHECK: htile.matmul ins(%{{.*}}, %{{.*}}) transposed outs(%{{.*}}) activation(none) : memref<1x6xf32>, memref<5x6xf32>
// CHECK-NOT: transposed
func.func @kept() {
  %x = htile.input "x" : memref<1x6xf32>
  %square = htile.constant dense<1.0> : tensor<6x6xf32> : memref<6x6xf32>
  %y0 = htile.alloc : memref<1x6xf32>
  htile.matmul ins(%x, %square) outs(%y0) activation(none) {tile = array<i64: 1, 4, 4>} : memref<1x6xf32>, memref<6x6xf32>, memref<1x6xf32>
  %shared = htile.constant dense<1.0> : tensor<6x2xf32> : memref<6x2xf32>
  %y1 = htile.alloc : memref<1x2xf32>
  htile.matmul ins(%x, %shared) outs(%y1) activation(none) {tile = array<i64: 1, 4, 4>} : memref<1x6xf32>, memref<6x2xf32>, memref<1x2xf32>
  %y2 = htile.alloc : memref<6x2xf32>
  htile.unary relu ins(%shared) outs(%y2) : memref<6x2xf32>, memref<6x2xf32>
  %h = htile.input "h" : memref<1x6xf16>
  %half = htile.constant dense<1.0> : tensor<6x2xf16> : memref<6x2xf16>
  %y3 = htile.alloc : memref<1x2xf32>
  htile.matmul ins(%h, %half) outs(%y3) activation(none) {tile = array<i64: 1, 4, 4>} : memref<1x6xf16>, memref<6x2xf16>, memref<1x2xf32>
  %untiled = htile.constant dense<1.0> : tensor<6x2xf32> : memref<6x2xf32>
  %y4 = htile.alloc : memref<1x2xf32>
  htile.matmul ins(%x, %untiled) outs(%y4) activation(none) : memref<1x6xf32>, memref<6x2xf32>, memref<1x2xf32>
  %already = htile.constant dense<1.0> : tensor<5x6xf32> : memref<5x6xf32>
  %y5 = htile.alloc : memref<1x5xf32>
  htile.matmul ins(%x, %already) transposed outs(%y5) activation(none) : memref<1x6xf32>, memref<5x6xf32>, memref<1x5xf32>
  htile.output "y0", %y0 : memref<1x6xf32>
  htile.output "y1", %y1 : memref<1x2xf32>
  htile.output "y2", %y2 : memref<6x2xf32>
  htile.output "y3", %y3 : memref<1x2xf32>
  htile.output "y4", %y4 : memref<1x2xf32>
  htile.output "y5", %y5 : memref<1x5xf32>
  return
}
