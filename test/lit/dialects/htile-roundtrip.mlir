// RUN: hetc-opt %s | hetc-opt | FileCheck %s

// Tests that every htile op prints and parses back unchanged.
// CHECK-LABEL: func.func @main
func.func @main() {
  // CHECK: htile.input "x" {address = 0 : i64} : memref<4x32xf32>
  %x = htile.input "x" {address = 0 : i64} : memref<4x32xf32>
  // CHECK: htile.constant dense<5.000000e-01> : tensor<32x10xf32> {address = 8 : i64} : memref<32x10xf32>
  %w = htile.constant dense<0.5> : tensor<32x10xf32> {address = 8 : i64} : memref<32x10xf32>
  %b = htile.constant dense<0.1> : tensor<10xf32> : memref<10xf32>
  // CHECK: htile.alloc : memref<4x10xf32>
  %y = htile.alloc : memref<4x10xf32>
  // CHECK: htile.matmul ins(%{{.*}}, %{{.*}}) bias(%{{.*}} : memref<10xf32>) outs(%{{.*}}) activation(relu) {tile = array<i64: 1, 16, 16>} : memref<4x32xf32>, memref<32x10xf32>, memref<4x10xf32>
  htile.matmul ins(%x, %w) bias(%b : memref<10xf32>) outs(%y) activation(relu) {tile = array<i64: 1, 16, 16>} : memref<4x32xf32>, memref<32x10xf32>, memref<4x10xf32>
  // CHECK: htile.matmul ins(%{{.*}}, %{{.*}}) bias(%{{.*}} : memref<10xf32>) scale(%{{.*}} : memref<10xf32>) outs(%{{.*}}) activation(none) : memref<4x32xf16>, memref<32x10xi8>, memref<4x10xf32>
  %x16 = htile.alloc : memref<4x32xf16>
  %q = htile.constant dense<3> : tensor<32x10xi8> : memref<32x10xi8>
  htile.matmul ins(%x16, %q) bias(%b : memref<10xf32>) scale(%b : memref<10xf32>) outs(%y) activation(none) : memref<4x32xf16>, memref<32x10xi8>, memref<4x10xf32>
  // CHECK: htile.matmul ins(%{{.*}}, %{{.*}}) transposed outs(%{{.*}}) activation(none) : memref<4x32xf32>, memref<10x32xf32>, memref<4x10xf32>
  %k = htile.alloc : memref<10x32xf32>
  htile.matmul ins(%x, %k) transposed outs(%y) activation(none) : memref<4x32xf32>, memref<10x32xf32>, memref<4x10xf32>
  // CHECK: htile.matmul ins(%{{.*}}, %{{.*}}) transposed outs(%{{.*}}) activation(none) : memref<1x8xf64>, memref<3x8xf64>, memref<1x3xf64>
  %q64 = htile.alloc : memref<1x8xf64>
  %k64 = htile.alloc : memref<3x8xf64>
  %s64 = htile.alloc : memref<1x3xf64>
  htile.matmul ins(%q64, %k64) transposed outs(%s64) activation(none) : memref<1x8xf64>, memref<3x8xf64>, memref<1x3xf64>
  %z = htile.alloc : memref<4x10xf32>
  // CHECK: htile.binary sub ins(%{{.*}}, %{{.*}}) outs(%{{.*}}) : memref<4x10xf32>, memref<10xf32>, memref<4x10xf32>
  htile.binary sub ins(%y, %b) outs(%z) : memref<4x10xf32>, memref<10xf32>, memref<4x10xf32>
  // A packed column of 4 rows, once and in two copies, either side.
  %c1 = htile.alloc : memref<4xf32>
  %c2 = htile.alloc : memref<2x4xf32>
  // CHECK: htile.binary mul ins(%{{.*}}, %{{.*}}) column(rhs) outs(%{{.*}}) : memref<4x10xf32>, memref<4xf32>, memref<4x10xf32>
  htile.binary mul ins(%z, %c1) column(rhs) outs(%z) : memref<4x10xf32>, memref<4xf32>, memref<4x10xf32>
  // CHECK: htile.binary div ins(%{{.*}}, %{{.*}}) column(lhs) outs(%{{.*}}) : memref<2x4xf32>, memref<4x10xf32>, memref<4x10xf32>
  htile.binary div ins(%c2, %z) column(lhs) outs(%z) : memref<2x4xf32>, memref<4x10xf32>, memref<4x10xf32>
  // CHECK: htile.unary exp ins(%{{.*}}) outs(%{{.*}}) : memref<4x10xf32>, memref<4x10xf32>
  htile.unary exp ins(%z) outs(%y) : memref<4x10xf32>, memref<4x10xf32>
  %s = htile.alloc : memref<4x10xf32>
  // CHECK: htile.softmax ins(%{{.*}}) outs(%{{.*}}) scratch(%{{.*}}) : memref<4x10xf32>, memref<4x10xf32>, memref<4x10xf32>
  htile.softmax ins(%y) outs(%z) scratch(%s) : memref<4x10xf32>, memref<4x10xf32>, memref<4x10xf32>
  // CHECK: htile.view %{{.*}} : memref<4x10xf32> to memref<2x2x10xf32>
  %v = htile.view %z : memref<4x10xf32> to memref<2x2x10xf32>
  // CHECK: htile.view %{{.*}} : memref<4x10xf32> to memref<4x10xi32>
  %bits = htile.view %z : memref<4x10xf32> to memref<4x10xi32>
  // CHECK: htile.view %{{.*}} rows 2 : memref<4x10xf32> to memref<1x2x10xf32>
  %run = htile.view %z rows 2 : memref<4x10xf32> to memref<1x2x10xf32>
  %eye = htile.constant dense<1.0> : tensor<16x16xf32> : memref<16x16xf32>
  %t = htile.alloc : memref<2x10x2xf32>
  // CHECK: htile.transpose ins(%{{.*}}) outs(%{{.*}}) identity(%{{.*}}) {perm = array<i64: 0, 2, 1>} : memref<2x2x10xf32>, memref<2x10x2xf32>, memref<16x16xf32>
  htile.transpose ins(%v) outs(%t) identity(%eye) {perm = array<i64: 0, 2, 1>} : memref<2x2x10xf32>, memref<2x10x2xf32>, memref<16x16xf32>
  %map = htile.alloc : memref<6x5x8xf32>
  %dw0 = htile.constant dense<0.5> : tensor<3x3x8xf32> : memref<3x3x8xf32>
  %dw1 = htile.constant dense<0.5> : tensor<3x3x8xf32> : memref<3x3x8xf32>
  %dwb = htile.constant dense<1.0> : tensor<8xf32> : memref<8xf32>
  %dwy = htile.alloc : memref<3x5x8xf32>
  // CHECK: htile.depthwise_conv ins(%{{.*}}, [%{{.*}}, %{{.*}}], %{{.*}}) outs(%{{.*}}) {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 1>} : memref<6x5x8xf32>, [memref<3x3x8xf32>, memref<3x3x8xf32>], memref<8xf32> -> memref<3x5x8xf32>
  htile.depthwise_conv ins(%map, [%dw0, %dw1], %dwb) outs(%dwy) {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 1>} : memref<6x5x8xf32>, [memref<3x3x8xf32>, memref<3x3x8xf32>], memref<8xf32> -> memref<3x5x8xf32>
  // CHECK: htile.depthwise_conv ins(%{{.*}}, [%{{.*}}]) outs(%{{.*}})
  htile.depthwise_conv ins(%map, [%dw0]) outs(%dwy) {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 1>} : memref<6x5x8xf32>, [memref<3x3x8xf32>] -> memref<3x5x8xf32>
  %cf = htile.alloc : memref<1x2x8xf32>
  %tap = htile.constant dense<0.5> : tensor<2x1xf32> : memref<2x1xf32>
  %cfy = htile.alloc : memref<1x2x8xf32>
  // CHECK: htile.plan_depthwise_conv ins(%{{.*}}, [%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}) outs(%{{.*}}) {dilations = array<i64: 1>, input_shape = array<i64: 1, 2, 8>, kernel = array<i64: 3>, pads = array<i64: 1, 1>, strides = array<i64: 1>} : memref<1x2x8xf32>, [memref<2x1xf32>, memref<2x1xf32>, memref<2x1xf32>], memref<2x1xf32> -> memref<1x2x8xf32>
  htile.plan_depthwise_conv ins(%cf, [%tap, %tap, %tap], %tap) outs(%cfy) {dilations = array<i64: 1>, input_shape = array<i64: 1, 2, 8>, kernel = array<i64: 3>, pads = array<i64: 1, 1>, strides = array<i64: 1>} : memref<1x2x8xf32>, [memref<2x1xf32>, memref<2x1xf32>, memref<2x1xf32>], memref<2x1xf32> -> memref<1x2x8xf32>
  // CHECK: htile.plan_depthwise_conv ins(%{{.*}}, [%{{.*}}]) outs(%{{.*}}) {{.*}} : memref<1x2x8xf32>, [memref<2x1xf32>] -> memref<1x2x8xf32>
  htile.plan_depthwise_conv ins(%cf, [%tap]) outs(%cfy) {dilations = array<i64: 1>, input_shape = array<i64: 1, 2, 8>, kernel = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : memref<1x2x8xf32>, [memref<2x1xf32>] -> memref<1x2x8xf32>
  %convx = htile.alloc : memref<1x4x64xf32>
  %convw = htile.constant dense<0.5> : tensor<3x19xf32> : memref<3x19xf32>
  %convy = htile.alloc : memref<1x6x64xf32>
  // CHECK: htile.plan_conv ins(%{{.*}}, [%{{.*}}, %{{.*}}]) outs(%{{.*}}) {dilations = array<i64: 1, 1>, input_shape = array<i64: 1, 4, 8, 8>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : memref<1x4x64xf32>, [memref<3x19xf32>, memref<3x19xf32>] -> memref<1x6x64xf32>
  htile.plan_conv ins(%convx, [%convw, %convw]) outs(%convy) {dilations = array<i64: 1, 1>, input_shape = array<i64: 1, 4, 8, 8>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : memref<1x4x64xf32>, [memref<3x19xf32>, memref<3x19xf32>] -> memref<1x6x64xf32>
  // CHECK: htile.plan_gather ins(%{{.*}}, %{{.*}}) outs(%{{.*}}) indices [0, 1, 4, 2, 3, 5] : (memref<2x2xf32>, memref<2x1xf32>) -> memref<2x3xf32>
  %pga = htile.alloc : memref<2x2xf32>
  %pgb = htile.alloc : memref<2x1xf32>
  %pgc = htile.alloc : memref<2x3xf32>
  htile.plan_gather ins(%pga, %pgb) outs(%pgc) indices [0, 1, 4, 2, 3, 5] : (memref<2x2xf32>, memref<2x1xf32>) -> memref<2x3xf32>
  // CHECK: htile.output "y", %{{.*}} : memref<2x2x10xf32>
  htile.output "y", %v : memref<2x2x10xf32>
  %g0 = htile.alloc : memref<2x2xf32>
  %g1 = htile.alloc : memref<2x1xf32>
  %g = htile.alloc : memref<2x3xf32>
  %table = htile.alloc : memref<10x2x8xf32>
  %ids = htile.alloc : memref<3xi64>
  %rows = htile.alloc : memref<3x2x8xf32>
  // CHECK: htile.gather_rows ins(%{{.*}}, %{{.*}}) outs(%{{.*}}) : (memref<10x2x8xf32>, memref<3xi64>) -> memref<3x2x8xf32>
  htile.gather_rows ins(%table, %ids) outs(%rows) : (memref<10x2x8xf32>, memref<3xi64>) -> memref<3x2x8xf32>
  // CHECK: htile.scatter_rows ins(%{{.*}}, %{{.*}}) outs(%{{.*}}) : (memref<3x2x8xf32>, memref<3xi64>) -> memref<10x2x8xf32>
  htile.scatter_rows ins(%rows, %ids) outs(%table) : (memref<3x2x8xf32>, memref<3xi64>) -> memref<10x2x8xf32>
  // CHECK: htile.gather ins(%{{.*}}, %{{.*}}) outs(%{{.*}}) indices [0, 1, 4, 2, -1, 5] : (memref<2x2xf32>, memref<2x1xf32>) -> memref<2x3xf32>
  htile.gather ins(%g0, %g1) outs(%g) indices [0, 1, 4, 2, -1, 5] : (memref<2x2xf32>, memref<2x1xf32>) -> memref<2x3xf32>
  // CHECK: htile.gather ins(%{{.*}}, %{{.*}}) outs(%{{.*}}) indices [2, -1, 5] first_row 1 : (memref<2x2xf32>, memref<2x1xf32>) -> memref<2x3xf32>
  htile.gather ins(%g0, %g1) outs(%g) indices [2, -1, 5] first_row 1 : (memref<2x2xf32>, memref<2x1xf32>) -> memref<2x3xf32>
  %c8 = htile.alloc : memref<2x2xf8E4M3FN>
  // CHECK: htile.cast ins(%{{.*}}) outs(%{{.*}}) overflow no_saturate : memref<2x2xf32>, memref<2x2xf8E4M3FN>
  htile.cast ins(%g0) outs(%c8) overflow no_saturate : memref<2x2xf32>, memref<2x2xf8E4M3FN>
  %e8 = htile.alloc : memref<2x2xf8E8M0FNU>
  // CHECK: htile.cast ins(%{{.*}}) outs(%{{.*}}) rounding nearest : memref<2x2xf32>, memref<2x2xf8E8M0FNU>
  htile.cast ins(%g0) outs(%e8) rounding nearest : memref<2x2xf32>, memref<2x2xf8E8M0FNU>
  %i4 = htile.alloc : memref<2x2xi4>
  // CHECK: htile.cast ins(%{{.*}}) outs(%{{.*}}) overflow wrap : memref<2x2xf32>, memref<2x2xi4>
  htile.cast ins(%g0) outs(%i4) overflow wrap : memref<2x2xf32>, memref<2x2xi4>
  return
}
