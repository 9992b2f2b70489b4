// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-hgraph-to-htile | FileCheck %s

// Tests that f16 tensors lower to kernels on f16 buffers, with a scalar f16
// constant expanded to a row, and that a cast becomes htile.cast.
// CHECK-LABEL: func.func @main()
func.func @main(%x: tensor<4x20xf16> {hgraph.name = "x"}) -> (tensor<4x20xf32> {hgraph.name = "y"}) {
  // CHECK: %[[X:.*]] = htile.input "x" : memref<4x20xf16>
  // CHECK: %[[TWO:.*]] = htile.constant dense<2.000000e+00> : tensor<20xf16> : memref<20xf16>
  // CHECK: htile.binary mul ins(%[[X]], %[[TWO]]) outs(%[[M:.*]]) : memref<4x20xf16>, memref<20xf16>, memref<4x20xf16>
  // CHECK: htile.unary exp ins(%[[M]]) outs(%[[E:.*]]) : memref<4x20xf16>, memref<4x20xf16>
  // CHECK: htile.cast ins(%[[E]]) outs(%[[Y:.*]]) : memref<4x20xf16>, memref<4x20xf32>
  // CHECK: htile.output "y", %[[Y]] : memref<4x20xf32>
  %two = hgraph.constant dense<2.0> : tensor<f16>
  %0 = hgraph.mul %x, %two : (tensor<4x20xf16>, tensor<f16>) -> tensor<4x20xf16>
  %1 = hgraph.exp %0 : tensor<4x20xf16>
  %2 = hgraph.cast %1 : tensor<4x20xf16> -> tensor<4x20xf32>
  return %2 : tensor<4x20xf32>
}

// -----

// Tests that comparisons write i1 buffers, that the logical ops and Not run
// on them, and that where becomes htile.select.
// CHECK-LABEL: func.func @main()
func.func @main(%a: tensor<2x8xi32> {hgraph.name = "a"}, %b: tensor<2x8xi32> {hgraph.name = "b"}) -> (tensor<2x8xi32> {hgraph.name = "y"}) {
  // CHECK: htile.binary greater ins(%{{.*}}, %{{.*}}) outs(%[[G:.*]]) : memref<2x8xi32>, memref<2x8xi32>, memref<2x8xi1>
  // CHECK: htile.binary equal ins
  // CHECK: htile.unary not ins
  // CHECK: htile.binary or ins
  // CHECK: htile.select ins(%{{.*}}, %{{.*}}, %{{.*}}) outs(%{{.*}}) : memref<2x8xi1>, memref<2x8xi32>, memref<2x8xi32>, memref<2x8xi32>
  %0 = hgraph.greater %a, %b : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi1>
  %1 = hgraph.equal %a, %b : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi1>
  %2 = hgraph.not %1 : tensor<2x8xi1>
  %3 = hgraph.or %0, %2 : (tensor<2x8xi1>, tensor<2x8xi1>) -> tensor<2x8xi1>
  %4 = hgraph.where %3, %a, %b : (tensor<2x8xi1>, tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi32>
  return %4 : tensor<2x8xi32>
}

// -----

// Tests that int64 tensors are accepted (the chip holds them as i32) and
// that an i32 swap of the innermost dimensions is a gather, as the matrix
// unit does not multiply i32.
// CHECK-LABEL: func.func @main()
func.func @main(%x: tensor<3x5xi64> {hgraph.name = "x"}) -> (tensor<5x3xi64> {hgraph.name = "y"}) {
  // CHECK: %[[X:.*]] = htile.input "x" : memref<3x5xi64>
  // CHECK: htile.binary add ins(%[[X]], %[[X]]) outs(%[[S:.*]]) : memref<3x5xi64>
  // CHECK: htile.gather ins(%[[S]]) outs(%{{.*}}) indices [0, 5, 10, 1, 6, 11, 2, 7, 12, 3, 8, 13, 4, 9, 14] : (memref<3x5xi64>) -> memref<5x3xi64>
  %0 = hgraph.add %x, %x : (tensor<3x5xi64>, tensor<3x5xi64>) -> tensor<3x5xi64>
  %1 = hgraph.transpose %0 {perm = array<i64: 1, 0>} : tensor<3x5xi64> -> tensor<5x3xi64>
  return %1 : tensor<5x3xi64>
}

// -----

// Tests QuantizeLinear as divide, round, add of the widened zero point and
// a saturating cast, and DequantizeLinear as cast, subtract and multiply;
// a per-axis scale becomes a column by a gather.
// CHECK-LABEL: func.func @main()
func.func @main(%x: tensor<2x3x4xf32> {hgraph.name = "x"}) -> (tensor<2x3x4xf32> {hgraph.name = "y"}) {
  // CHECK: %[[X:.*]] = htile.input "x" : memref<2x3x4xf32>
  // CHECK: %[[S:.*]] = htile.constant dense<[5.000000e-01, 2.500000e-01, 1.000000e+00]> : tensor<3xf32> : memref<3xf32>
  // CHECK: htile.gather ins(%[[S]]) outs(%[[SC:.*]]) indices [0, 1, 2] : (memref<3xf32>) -> memref<3x1xf32>
  // CHECK: htile.constant dense<[1, 2, 3]> : tensor<3xui8> : memref<3xui8>
  // CHECK: htile.gather
  // CHECK: htile.cast ins(%{{.*}}) outs(%[[ZF:.*]]) : memref<3x1xui8>, memref<3x1xf32>
  // CHECK: htile.binary div ins(%[[X]], %[[SC]]) outs(%[[Q:.*]]) : memref<2x3x4xf32>, memref<3x1xf32>, memref<2x3x4xf32>
  // CHECK: htile.unary round ins(%[[Q]]) outs(%[[R:.*]])
  // CHECK: htile.binary add ins(%[[R]], %[[ZF]]) outs(%[[A:.*]])
  // CHECK: htile.cast ins(%[[A]]) outs(%[[QU:.*]]) : memref<2x3x4xf32>, memref<2x3x4xui8>
  // CHECK: htile.cast ins(%[[QU]]) outs(%[[QF:.*]]) : memref<2x3x4xui8>, memref<2x3x4xf32>
  // CHECK: htile.binary sub ins(%[[QF]], %{{.*}}) outs(%[[D:.*]])
  // CHECK: htile.binary mul ins(%[[D]], %{{.*}}) outs(%[[Y:.*]])
  // CHECK: htile.output "y", %[[Y]]
  %s = hgraph.constant dense<[0.5, 0.25, 1.0]> : tensor<3xf32>
  %z = hgraph.constant dense<[1, 2, 3]> : tensor<3xui8>
  %q = hgraph.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3x4xui8>
  %y = hgraph.dequantize_linear %q, %s, %z {axis = 1 : i64} : (tensor<2x3x4xui8>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// Tests MatMulInteger with zero points: the i32 product on the matrix unit,
// minus za times the column sums (ones x B) and zb times the row sums
// (A x ones), plus K za zb.
// CHECK-LABEL: func.func @main()
func.func @main(%a: tensor<4x3xui8> {hgraph.name = "a"}, %b: tensor<3x2xui8> {hgraph.name = "b"}, %za: tensor<ui8> {hgraph.name = "za"}, %zb: tensor<ui8> {hgraph.name = "zb"}) -> (tensor<4x2xi32> {hgraph.name = "y"}) {
  // CHECK: htile.cast ins(%{{.*}}) outs(%[[ZA:.*]]) : memref<ui8>, memref<i32>
  // CHECK: htile.cast ins(%{{.*}}) outs(%[[ZB:.*]]) : memref<ui8>, memref<i32>
  // CHECK: htile.matmul ins(%{{.*}}, %{{.*}}) outs(%[[P:[0-9]+]]) activation(none) {{.*}} : memref<4x3xui8>, memref<3x2xui8>, memref<4x2xi32>
  // CHECK: %[[ONES:.*]] = htile.constant dense<1> : tensor<1x3xui8>
  // CHECK: htile.matmul ins(%[[ONES]], %{{.*}}) outs(%[[CS:[0-9]+]]) {{.*}} : memref<1x3xui8>, memref<3x2xui8>, memref<1x2xi32>
  // CHECK: htile.binary mul ins(%[[CS]], %[[ZA]])
  // CHECK: htile.binary sub ins(%[[P]], %{{.*}})
  // CHECK: htile.constant dense<1> : tensor<3x1xui8>
  // CHECK: htile.matmul {{.*}} : memref<4x3xui8>, memref<3x1xui8>, memref<4x1xi32>
  // CHECK: htile.binary mul
  // CHECK: htile.binary sub
  // CHECK: htile.constant dense<3> : tensor<i32>
  // CHECK: htile.binary mul
  // CHECK: htile.binary mul
  // CHECK: htile.binary add ins(%{{.*}}, %{{.*}}) outs(%[[Y:.*]]) : memref<4x2xi32>, memref<i32>, memref<4x2xi32>
  // CHECK: htile.output "y", %[[Y]]
  %0 = hgraph.matmul_integer %a, %b, zero_points(%za, %zb) : (tensor<4x3xui8>, tensor<3x2xui8>, tensor<ui8>, tensor<ui8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// Tests a zero point per row of A (a column [4, 1], moved by a gather) and
// one per column of B (a row [2] that broadcasts): each correction is an
// outer product to [4, 2], and K za zb is one too.
// CHECK-LABEL: func.func @main()
func.func @main(%a: tensor<4x3xui8> {hgraph.name = "a"}, %b: tensor<3x2xi8> {hgraph.name = "b"}, %za: tensor<4xui8> {hgraph.name = "za"}, %zb: tensor<2xi8> {hgraph.name = "zb"}) -> (tensor<4x2xi32> {hgraph.name = "y"}) {
  // CHECK: htile.gather {{.*}} : (memref<4xui8>) -> memref<4x1xui8>
  // CHECK: htile.cast ins(%{{.*}}) outs(%[[ZA:.*]]) : memref<4x1xui8>, memref<4x1xi32>
  // CHECK: htile.cast ins(%{{.*}}) outs(%[[ZB:.*]]) : memref<2xi8>, memref<2xi32>
  // CHECK: htile.binary mul ins(%{{.*}}, %[[ZA]]) outs(%{{.*}}) : memref<1x2xi32>, memref<4x1xi32>, memref<4x2xi32>
  // CHECK: htile.binary mul ins(%{{.*}}, %[[ZB]]) outs(%{{.*}}) : memref<4x1xi32>, memref<2xi32>, memref<4x2xi32>
  // CHECK: htile.binary mul ins(%{{.*}}, %[[ZB]]) outs(%{{.*}}) : memref<4x1xi32>, memref<2xi32>, memref<4x2xi32>
  // CHECK: htile.binary add ins(%{{.*}}, %{{.*}}) outs(%[[Y:.*]]) : memref<4x2xi32>, memref<4x2xi32>, memref<4x2xi32>
  // CHECK: htile.output "y", %[[Y]]
  %0 = hgraph.matmul_integer %a, %b, zero_points(%za, %zb) : (tensor<4x3xui8>, tensor<3x2xi8>, tensor<4xui8>, tensor<2xi8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// Tests that max on int8 computes in i32 and narrows back, which is exact.
// CHECK-LABEL: func.func @main()
func.func @main(%a: tensor<2x8xi8> {hgraph.name = "a"}) -> (tensor<2x8xi8> {hgraph.name = "y"}) {
  // CHECK: htile.cast ins(%{{.*}}) outs(%[[R:.*]]) : memref<2x8xi8>, memref<2x8xi32>
  // CHECK: htile.cast ins(%{{.*}}) outs(%[[L:.*]]) : memref<2x8xi8>, memref<2x8xi32>
  // CHECK: htile.binary max ins(%[[L]], %[[R]]) outs(%[[M:.*]]) : memref<2x8xi32>, memref<2x8xi32>, memref<2x8xi32>
  // CHECK: htile.cast ins(%[[M]]) outs(%[[Y:.*]]) : memref<2x8xi32>, memref<2x8xi8>
  %0 = hgraph.max %a, %a : (tensor<2x8xi8>, tensor<2x8xi8>) -> tensor<2x8xi8>
  return %0 : tensor<2x8xi8>
}

// -----

// Tests ArgMax over a leading axis with select_last_index: the axis is
// moved innermost by a gather, the lanes equal to the row's max select
// their index (else -1), and a max reduction into the i64 result picks the
// last one; without keepdims the column is gathered into the output shape.
// CHECK-LABEL: func.func @main()
func.func @main(%x: tensor<3x4xf32> {hgraph.name = "x"}) -> (tensor<4xi64> {hgraph.name = "y"}) {
  // CHECK: htile.gather ins(%{{.*}}) outs(%[[T:.*]]) indices [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11] : (memref<3x4xf32>) -> memref<4x3xf32>
  // CHECK: htile.reduce max ins(%[[T]]) outs(%[[M:.*]]) : memref<4x3xf32>, memref<4x1xf32>
  // CHECK: htile.binary equal ins(%[[T]], %[[M]]) outs(%[[H:.*]]) : memref<4x3xf32>, memref<4x1xf32>, memref<4x3xi1>
  // CHECK: %[[I:.*]] = htile.constant dense<[0, 1, 2]> : tensor<3xi32>
  // CHECK: %[[S:.*]] = htile.constant dense<-1> : tensor<3xi32>
  // CHECK: htile.select ins(%[[H]], %[[I]], %[[S]]) outs(%[[C:.*]])
  // CHECK: htile.reduce max ins(%[[C]]) outs(%[[R:.*]]) : memref<4x3xi32>, memref<4x1xi64>
  // CHECK: htile.gather ins(%[[R]]) outs(%[[Y:.*]]) indices [0, 1, 2, 3] : (memref<4x1xi64>) -> memref<4xi64>
  // CHECK: htile.output "y", %[[Y]] : memref<4xi64>
  %0 = hgraph.arg_max %x {axis = 0 : i64, keepdims = false, min = false, select_last_index = true} : tensor<3x4xf32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Tests that an int8 add computes in i32 and wraps back into the int8
// range: (x + 128) mod 256 - 128, with i32 rows of constants.
// CHECK-LABEL: func.func @main()
func.func @main(%a: tensor<2x8xi8> {hgraph.name = "a"}) -> (tensor<2x8xi8> {hgraph.name = "y"}) {
  // CHECK: htile.binary add ins(%{{.*}}, %{{.*}}) outs(%[[S:.*]]) : memref<2x8xi32>, memref<2x8xi32>, memref<2x8xi32>
  // CHECK: %[[H:.*]] = htile.constant dense<128> : tensor<8xi32>
  // CHECK: htile.binary add ins(%[[S]], %[[H]])
  // CHECK: htile.constant dense<256> : tensor<8xi32>
  // CHECK: htile.binary mod
  // CHECK: htile.constant dense<128> : tensor<8xi32>
  // CHECK: htile.binary sub
  // CHECK: htile.cast ins(%{{.*}}) outs(%[[Y:.*]]) : memref<2x8xi32>, memref<2x8xi8>
  // CHECK: htile.output "y", %[[Y]]
  %0 = hgraph.add %a, %a : (tensor<2x8xi8>, tensor<2x8xi8>) -> tensor<2x8xi8>
  return %0 : tensor<2x8xi8>
}

// -----

// Tests BitwiseNot on uint8: xor with -1 in i32, wrapped back into the
// uint8 range by a modulo 256, then narrowed.
// CHECK-LABEL: func.func @main()
func.func @main(%a: tensor<2x8xui8> {hgraph.name = "a"}) -> (tensor<2x8xui8> {hgraph.name = "y"}) {
  // CHECK: htile.cast ins(%{{.*}}) outs(%[[W:.*]]) : memref<2x8xui8>, memref<2x8xi32>
  // CHECK: %[[M:.*]] = htile.constant dense<-1> : tensor<8xi32>
  // CHECK: htile.binary xor ins(%[[W]], %[[M]])
  // CHECK: htile.constant dense<256> : tensor<8xi32>
  // CHECK: htile.binary mod
  // CHECK: htile.cast ins(%{{.*}}) outs(%[[Y:.*]]) : memref<2x8xi32>, memref<2x8xui8>
  // CHECK: htile.output "y", %[[Y]]
  %0 = hgraph.bitwise_not %a : tensor<2x8xui8>
  return %0 : tensor<2x8xui8>
}

// -----

// Tests an integer convolution (i8 by i8, as hetc-hgraph-fuse-quantized
// makes one): its windows gathered as i8, the weight rows i8, and the
// product into i32 sums, with no plan convolution of its own; and a
// quantisation of scale 1 and zero point 0 (a requantisation) as round and
// saturating cast alone, while a constant scale of one element is a full
// row of it. Its rows are one vector each (twelve rows of 4), so the
// kernels run as [6, 2, 4] and the scale is two copies of its row, read
// from both banks of its slice in turn; the result is seen as the tensor.
// CHECK-LABEL: func.func @main()
func.func @main(%x: tensor<1x2x4x4xi8> {hgraph.name = "x"}, %f: tensor<1x3x4x4xf32> {hgraph.name = "f"}) -> (tensor<1x3x4x4xi32> {hgraph.name = "y"}, tensor<1x3x4x4xi8> {hgraph.name = "q"}, tensor<1x3x4x4xi8> {hgraph.name = "h"}) {
  // CHECK: %[[X:.*]] = htile.input "x" : memref<1x2x4x4xi8>
  // CHECK: %[[W:.*]] = htile.constant {{.*}} : tensor<3x18xi8> : memref<3x18xi8>
  // CHECK: htile.gather ins(%[[X]]) outs(%[[WIN:.*]]) {{.*}} -> memref<18x16xi8>
  // CHECK: htile.matmul ins(%[[W]], %[[WIN]]) outs(%[[P:.*]]) {{.*}} : memref<3x18xi8>, memref<18x16xi8>, memref<3x16xi32>
  // CHECK-NOT: htile.plan_conv
  // CHECK: %[[F:.*]] = htile.view %[[IN:.*]] : memref<1x3x4x4xf32> to memref<6x2x4xf32>
  // CHECK-NEXT: htile.alloc
  // CHECK-NEXT: htile.unary round ins(%[[F]]) outs(%[[R:.*]])
  // CHECK-NEXT: htile.alloc
  // CHECK-NEXT: htile.cast ins(%[[R]]) outs(%[[Q:.*]]) : memref<6x2x4xf32>, memref<6x2x4xi8>
  // CHECK-NEXT: %[[QV:.*]] = htile.view %[[Q]] : memref<6x2x4xi8> to memref<1x3x4x4xi8>
  // CHECK: %[[HALF:.*]] = htile.constant dense<5.000000e-01> : tensor<2x4xf32> : memref<2x4xf32>
  // CHECK: htile.binary div ins(%{{.*}}, %[[HALF]]) {{.*}} : memref<6x2x4xf32>, memref<2x4xf32>, memref<6x2x4xf32>
  // CHECK: htile.output "q", %[[QV]]
  %w = hgraph.constant dense<1> : tensor<3x2x3x3xi8>
  %y = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>, tensor<3x2x3x3xi8>) -> tensor<1x3x4x4xi32>
  %one = hgraph.constant dense<1.0> : tensor<f32>
  %half = hgraph.constant dense<0.5> : tensor<f32>
  %z = hgraph.constant dense<0> : tensor<i8>
  %q = hgraph.quantize_linear %f, %one, %z {axis = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x3x4x4xi8>
  %h = hgraph.quantize_linear %f, %half, %z {axis = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x3x4x4xi8>
  return %y, %q, %h : tensor<1x3x4x4xi32>, tensor<1x3x4x4xi8>, tensor<1x3x4x4xi8>
}

// -----

// Tests a binary kernel by a constant of one value: over rows of one vector
// (test-chip's 16 lanes) it runs as [R / 2, 2, L] with two copies of the
// constant's row, read from both banks in turn; over rows of two vectors,
// which alternate banks by themselves, with one row; an odd number of rows
// has no halves to pair.
// CHECK-LABEL: func.func @main()
func.func @main(%x: tensor<4x8xf32> {hgraph.name = "x"}, %w: tensor<4x20xf32> {hgraph.name = "w"}, %o: tensor<3x8xf32> {hgraph.name = "o"}) -> (tensor<4x8xf32> {hgraph.name = "y"}, tensor<4x20xf32> {hgraph.name = "v"}, tensor<3x8xf32> {hgraph.name = "p"}) {
  // CHECK: %[[X:.*]] = htile.input "x" : memref<4x8xf32>
  // CHECK-DAG: %[[XV:.*]] = htile.view %[[X]] : memref<4x8xf32> to memref<2x2x8xf32>
  // CHECK-DAG: %[[C:.*]] = htile.constant dense<5.000000e-01> : tensor<2x8xf32> : memref<2x8xf32>
  // CHECK: htile.binary mul ins(%[[XV]], %[[C]]) outs(%[[Y:.*]]) : memref<2x2x8xf32>, memref<2x8xf32>, memref<2x2x8xf32>
  // CHECK: %[[YV:.*]] = htile.view %[[Y]] : memref<2x2x8xf32> to memref<4x8xf32>
  // CHECK: %[[C2:.*]] = htile.constant dense<5.000000e-01> : tensor<20xf32> : memref<20xf32>
  // CHECK: htile.binary mul ins(%{{.*}}, %[[C2]]) {{.*}} : memref<4x20xf32>, memref<20xf32>, memref<4x20xf32>
  // CHECK: %[[C3:.*]] = htile.constant dense<5.000000e-01> : tensor<8xf32> : memref<8xf32>
  // CHECK: htile.binary mul ins(%{{.*}}, %[[C3]]) {{.*}} : memref<3x8xf32>, memref<8xf32>, memref<3x8xf32>
  // CHECK: htile.output "y", %[[YV]]
  %c = hgraph.constant dense<0.5> : tensor<f32>
  %y = hgraph.mul %x, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %v = hgraph.mul %w, %c : (tensor<4x20xf32>, tensor<f32>) -> tensor<4x20xf32>
  %p = hgraph.mul %o, %c : (tensor<3x8xf32>, tensor<f32>) -> tensor<3x8xf32>
  return %y, %v, %p : tensor<4x8xf32>, tensor<4x20xf32>, tensor<3x8xf32>
}
