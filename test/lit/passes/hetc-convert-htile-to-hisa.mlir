// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-htile-to-hisa | FileCheck %s

// Tests the instructions of a matmul with K = 20 on 16-lane planes: two
// weight tiles on planes 0 and 1 (16 rows, then 4), each loaded into its
// plane's weight buffer and installed, the second tile's
// partial product added to the first through the output buffer, then the
// bias and relu epilogue on the vector unit, all on 4 lanes.
// CHECK-LABEL: func.func @main()
// CHECK: hisa.input "x" at 0 : tensor<1x20xf32>
// CHECK: hisa.constant at 256 dense<5.000000e-01> : tensor<20x4xf32>
// CHECK: hisa.constant at 512 dense<1.000000e+00> : tensor<4xf32>
// CHECK: hisa.output "y" at 768 : tensor<1x4xf32>
// CHECK: %[[W0:.*]] = hisa.read 256
// CHECK-NEXT: hisa.load_weights %[[W0]] plane 0 row 0 buffered
// CHECK: hisa.load_weights %{{.*}} plane 0 row 15 buffered
// CHECK-NEXT: hisa.install_weights plane 0
// CHECK-NEXT: %[[X0:.*]] = hisa.read 0
// CHECK-NEXT: %[[P0:.*]] = hisa.matmul %[[X0]] plane 0
// CHECK-NEXT: hisa.write %[[P0]] to 768
// CHECK-NEXT: %[[W16:.*]] = hisa.read 272
// CHECK-NEXT: hisa.load_weights %[[W16]] plane 1 row 0 buffered
// CHECK: hisa.load_weights %{{.*}} plane 1 row 3 buffered
// CHECK-NEXT: hisa.install_weights plane 1
// CHECK-NEXT: %[[X1:.*]] = hisa.read 1
// CHECK-NEXT: %[[P1:.*]] = hisa.matmul %[[X1]] plane 1
// CHECK-NEXT: %[[ACC:.*]] = hisa.read 768
// CHECK-NEXT: %[[SUM:.*]] = hisa.vbinary add %[[P1]], %[[ACC]] lanes 4
// CHECK-NEXT: %[[B:.*]] = hisa.read 512
// CHECK-NEXT: %[[BIASED:.*]] = hisa.vbinary add %[[SUM]], %[[B]] lanes 4
// CHECK-NEXT: %[[R:.*]] = hisa.vunary relu %[[BIASED]] lanes 4
// CHECK-NEXT: hisa.write %[[R]] to 768
// CHECK-NEXT: return
func.func @main() {
  %x = htile.input "x" {address = 0 : i64} : memref<1x20xf32>
  %w = htile.constant dense<0.5> : tensor<20x4xf32> {address = 256 : i64} : memref<20x4xf32>
  %b = htile.constant dense<1.0> : tensor<4xf32> {address = 512 : i64} : memref<4xf32>
  %y = htile.alloc {address = 768 : i64} : memref<1x4xf32>
  htile.matmul ins(%x, %w) bias(%b : memref<4xf32>) outs(%y) activation(relu) {tile = array<i64: 1, 16, 16>} : memref<1x20xf32>, memref<20x4xf32>, memref<1x4xf32>
  htile.output "y", %y : memref<1x4xf32>
  return
}

// -----

// Tests a matmul of an f16 input by an i8 weight with column scales: each
// weight row is read as i8 and converted to f16 on its way to the plane,
// and the sum is scaled before the bias.
// CHECK-LABEL: func.func @int8_weight()
// CHECK: %[[Q:.*]] = hisa.read 256 as i8
// CHECK-NEXT: %[[H:.*]] = hisa.vcast %[[Q]] from i8 to f16 lanes 4
// CHECK-NEXT: hisa.load_weights %[[H]] plane 0 row 0 buffered as f16
// CHECK: %[[X:.*]] = hisa.read 0 as f16
// CHECK-NEXT: %[[P:.*]] = hisa.matmul %[[X]] plane 0 as f16
// CHECK-NEXT: %[[S:.*]] = hisa.read 640
// CHECK-NEXT: %[[SCALED:.*]] = hisa.vbinary mul %[[P]], %[[S]] lanes 4
// CHECK-NEXT: %[[B:.*]] = hisa.read 512
// CHECK-NEXT: hisa.vbinary add %[[SCALED]], %[[B]] lanes 4
func.func @int8_weight() {
  %x = htile.input "x" {address = 0 : i64} : memref<1x8xf16>
  %w = htile.constant dense<3> : tensor<8x4xi8> {address = 256 : i64} : memref<8x4xi8>
  %b = htile.constant dense<1.0> : tensor<4xf32> {address = 512 : i64} : memref<4xf32>
  %s = htile.constant dense<0.5> : tensor<4xf32> {address = 640 : i64} : memref<4xf32>
  %y = htile.alloc {address = 768 : i64} : memref<1x4xf32>
  htile.matmul ins(%x, %w) bias(%b : memref<4xf32>) scale(%s : memref<4xf32>) outs(%y) activation(none) {tile = array<i64: 1, 16, 16>} : memref<1x8xf16>, memref<8x4xi8>, memref<1x4xf32>
  htile.output "y", %y : memref<1x4xf32>
  return
}

// -----

// Tests softmax on one row of 10: max reduction, subtract, exp into the
// scratch buffer, then sum reduction and divide.
// CHECK-LABEL: func.func @softmax()
// CHECK: %[[X:.*]] = hisa.read 0
// CHECK-NEXT: %[[M:.*]] = hisa.vreduce max %[[X]] lanes 10
// CHECK-NEXT: %[[X2:.*]] = hisa.read 0
// CHECK-NEXT: %[[D:.*]] = hisa.vbinary sub %[[X2]], %[[M]] lanes 10
// CHECK-NEXT: %[[E:.*]] = hisa.vunary exp %[[D]] lanes 10
// CHECK-NEXT: hisa.write %[[E]] to 2
// CHECK-NEXT: %[[E1:.*]] = hisa.read 2
// CHECK-NEXT: %[[S:.*]] = hisa.vreduce sum %[[E1]] lanes 10
// CHECK-NEXT: %[[E2:.*]] = hisa.read 2
// CHECK-NEXT: %[[Y:.*]] = hisa.vbinary div %[[E2]], %[[S]] lanes 10
// CHECK-NEXT: hisa.write %[[Y]] to 1
func.func @softmax() {
  %x = htile.input "x" {address = 0 : i64} : memref<1x10xf32>
  %y = htile.alloc {address = 1 : i64} : memref<1x10xf32>
  %s = htile.alloc {address = 2 : i64} : memref<1x10xf32>
  htile.softmax ins(%x) outs(%y) scratch(%s) : memref<1x10xf32>, memref<1x10xf32>, memref<1x10xf32>
  htile.output "y", %y : memref<1x10xf32>
  return
}

// -----

// Tests softmax over a row of 20 on test-chip (two vectors of 16 and 4
// lanes): the vectors' maxima are combined over all lanes and parked in
// output vector 0, each vector is shifted, exponentiated into scratch and
// summed, the sums combined and parked in output vector 1, and the
// divisions write vector 0 before vector 1, whose sum they all read.
// CHECK-LABEL: func.func @wide_softmax()
// CHECK: %[[M0:.*]] = hisa.vreduce max %{{.*}} lanes 16
// CHECK: %[[M1:.*]] = hisa.vreduce max %{{.*}} lanes 4
// CHECK-NEXT: %[[M:.*]] = hisa.vbinary max %[[M0]], %[[M1]] lanes 16
// CHECK-NEXT: hisa.write %[[M]] to 10
// CHECK-NEXT: %[[X:.*]] = hisa.read 0
// CHECK-NEXT: %[[MR:.*]] = hisa.read 10
// CHECK-NEXT: %[[MC:.*]] = hisa.vcast %[[MR]] from f32 to f32 lanes 16
// CHECK-NEXT: hisa.vbinary sub %[[X]], %[[MC]] lanes 16
// CHECK-NEXT: hisa.vunary exp %{{.*}} lanes 16
// CHECK-NEXT: hisa.write %{{.*}} to 20
// CHECK: hisa.vbinary sub %{{.*}}, %{{.*}} lanes 4
// CHECK: hisa.write %{{.*}} to 21
// CHECK: %[[S:.*]] = hisa.vbinary add %{{.*}}, %{{.*}} lanes 16
// CHECK-NEXT: hisa.write %[[S]] to 11
// CHECK: hisa.vbinary div %{{.*}}, %{{.*}} lanes 16
// CHECK-NEXT: hisa.write %{{.*}} to 10
// CHECK: hisa.vbinary div %{{.*}}, %{{.*}} lanes 4
// CHECK-NEXT: hisa.write %{{.*}} to 11
func.func @wide_softmax() {
  %x = htile.input "x" {address = 0 : i64} : memref<1x20xf32>
  %y = htile.alloc {address = 10 : i64} : memref<1x20xf32>
  %s = htile.alloc {address = 20 : i64} : memref<1x20xf32>
  htile.softmax ins(%x) outs(%y) scratch(%s) : memref<1x20xf32>, memref<1x20xf32>, memref<1x20xf32>
  htile.output "y", %y : memref<1x20xf32>
  return
}

// -----

// Tests an elementwise kernel over rows of two vectors with a row operand.
// The operands lie in one bank of slice 0 (even addresses, then odd):
// each second operand passes through a V_CAST so that the two reads need
// not share the bank's port in one cycle.
// CHECK-LABEL: func.func @rows()
// CHECK: %[[A:.*]] = hisa.read 0
// CHECK-NEXT: %[[B:.*]] = hisa.read 100
// CHECK-NEXT: %[[BC:.*]] = hisa.vcast %[[B]] from f32 to f32 lanes 16
// CHECK-NEXT: %[[C:.*]] = hisa.vbinary mul %[[A]], %[[BC]] lanes 16
// CHECK-NEXT: hisa.write %[[C]] to 200
// CHECK-NEXT: hisa.read 1
// CHECK-NEXT: hisa.read 101
// CHECK-NEXT: hisa.vcast
// CHECK-NEXT: hisa.vbinary mul %{{.*}}, %{{.*}} lanes 4
// CHECK-NEXT: hisa.write %{{.*}} to 201
// CHECK-NEXT: hisa.read 2
// CHECK-NEXT: hisa.read 100
// CHECK: hisa.write %{{.*}} to 203
// CHECK-NEXT: return
func.func @rows() {
  %a = htile.input "a" {address = 0 : i64} : memref<2x20xf32>
  %b = htile.input "b" {address = 100 : i64} : memref<20xf32>
  %c = htile.alloc {address = 200 : i64} : memref<2x20xf32>
  htile.binary mul ins(%a, %b) outs(%c) : memref<2x20xf32>, memref<20xf32>, memref<2x20xf32>
  htile.output "c", %c : memref<2x20xf32>
  return
}

// -----

// Tests broadcasting reads: output row r of [2, 3, 16] reads row r % 3 of
// the [3, 1] column, spread over the vector by a one-lane reduction, and
// row r / 3 of the [2, 1, 16] operand.
// CHECK-LABEL: func.func @broadcast()
// CHECK: %[[C0:.*]] = hisa.read 100
// CHECK-NEXT: %[[S0:.*]] = hisa.vreduce sum %[[C0]] lanes 1
// CHECK-NEXT: %[[P0:.*]] = hisa.read 200
// CHECK-NEXT: hisa.vbinary div %[[S0]], %[[P0]] lanes 16
// CHECK-NEXT: hisa.write %{{.*}} to 300
// CHECK: hisa.read 101
// CHECK: hisa.read 200
// CHECK: hisa.read 102
// CHECK: hisa.read 200
// CHECK: hisa.read 100
// CHECK-NEXT: hisa.vreduce sum
// CHECK-NEXT: hisa.read 201
// CHECK: hisa.write %{{.*}} to 303
func.func @broadcast() {
  %c = htile.input "c" {address = 100 : i64} : memref<3x1xf32>
  %p = htile.input "p" {address = 200 : i64} : memref<2x1x16xf32>
  %y = htile.alloc {address = 300 : i64} : memref<2x3x16xf32>
  htile.binary div ins(%c, %p) outs(%y) : memref<3x1xf32>, memref<2x1x16xf32>, memref<2x3x16xf32>
  htile.output "y", %y : memref<2x3x16xf32>
  return
}

// -----

// Tests a matrix transpose of [3, 20] on 16-lane planes: per 16-column tile,
// the 3 rows are installed as weight columns, then each unit vector e_c
// (row c of the identity at 400) reads column c out as a row, masked to
// the 3 valid lanes. Row 16 of the output comes from the second tile.
// CHECK-LABEL: func.func @transpose()
// CHECK: %[[R0:.*]] = hisa.read 0
// CHECK-NEXT: hisa.load_weights %[[R0]] plane 0 column 0
// CHECK-NEXT: %[[R1:.*]] = hisa.read 2
// CHECK-NEXT: hisa.load_weights %[[R1]] plane 0 column 1
// CHECK-NEXT: %[[R2:.*]] = hisa.read 4
// CHECK-NEXT: hisa.load_weights %[[R2]] plane 0 column 2
// CHECK-NEXT: %[[E0:.*]] = hisa.read 400
// CHECK-NEXT: %[[C0:.*]] = hisa.matmul %[[E0]] plane 0
// CHECK-NEXT: %[[M0:.*]] = hisa.vbinary max %[[C0]], %[[C0]] lanes 3
// CHECK-NEXT: hisa.write %[[M0]] to 100
// CHECK: hisa.read 415
// CHECK: hisa.write %{{.*}} to 115
// CHECK-NEXT: %[[S0:.*]] = hisa.read 1
// CHECK-NEXT: hisa.load_weights %[[S0]] plane 1 column 0
// CHECK: hisa.read 400
// CHECK-NEXT: hisa.matmul %{{.*}} plane 1
// CHECK-NEXT: hisa.vbinary max
// CHECK-NEXT: hisa.write %{{.*}} to 116
// CHECK: hisa.write %{{.*}} to 119
// CHECK-NEXT: return
func.func @transpose() {
  %eye = htile.constant dense<1.0> : tensor<16x16xf32> {address = 400 : i64} : memref<16x16xf32>
  %x = htile.input "x" {address = 0 : i64} : memref<3x20xf32>
  %y = htile.alloc {address = 100 : i64} : memref<20x3xf32>
  htile.transpose ins(%x) outs(%y) identity(%eye) {perm = array<i64: 1, 0>} : memref<3x20xf32>, memref<20x3xf32>, memref<16x16xf32>
  htile.output "y", %y : memref<20x3xf32>
  return
}

// -----

// Tests a permutation of leading dimensions: whole rows move from SRAM to
// SRAM. Output row (i, j) of [3, 2, 4] is input row (j, i) of [2, 3, 4].
// CHECK-LABEL: func.func @rows()
// CHECK: %[[A:.*]] = hisa.read 0
// CHECK-NEXT: hisa.write %[[A]] to 100
// CHECK-NEXT: %[[B:.*]] = hisa.read 3
// CHECK-NEXT: hisa.write %[[B]] to 101
// CHECK-NEXT: %[[C:.*]] = hisa.read 1
// CHECK-NEXT: hisa.write %[[C]] to 102
func.func @rows() {
  %z = htile.input "z" {address = 0 : i64} : memref<2x3x4xf32>
  %w = htile.alloc {address = 100 : i64} : memref<3x2x4xf32>
  htile.transpose ins(%z) outs(%w) {perm = array<i64: 1, 0, 2>} : memref<2x3x4xf32>, memref<3x2x4xf32>
  htile.output "w", %w : memref<3x2x4xf32>
  return
}

// -----

// Tests a row reduction over two vectors: the first vector's reduction is
// masked to lane 0 (max with itself), the second combines with it.
// CHECK-LABEL: func.func @reduce()
// CHECK: %[[A:.*]] = hisa.read 0
// CHECK-NEXT: %[[RA:.*]] = hisa.vreduce min %[[A]] lanes 16
// CHECK-NEXT: %[[MA:.*]] = hisa.vbinary max %[[RA]], %[[RA]] lanes 1
// CHECK-NEXT: hisa.write %[[MA]] to 100
// CHECK-NEXT: %[[B:.*]] = hisa.read 1
// CHECK-NEXT: %[[RB:.*]] = hisa.vreduce min %[[B]] lanes 4
// CHECK-NEXT: %[[P:.*]] = hisa.read 100
// CHECK-NEXT: %[[C:.*]] = hisa.vbinary min %[[RB]], %[[P]] lanes 1
// CHECK-NEXT: hisa.write %[[C]] to 100
func.func @reduce() {
  %x = htile.input "x" {address = 0 : i64} : memref<1x20xf32>
  %m = htile.alloc {address = 100 : i64} : memref<1x1xf32>
  htile.reduce min ins(%x) outs(%m) : memref<1x20xf32>, memref<1x1xf32>
  htile.output "m", %m : memref<1x1xf32>
  return
}

// -----

// Tests the expansion of a gather: vectors that are whole input vectors in
// place are copied by a read and a write; the others are assembled on the
// switch units (0 and 1 in turn), one permute per input vector they draw
// from, each merging into the partial result before it; a vector of
// padding only is any input vector with every lane kept (zero); a band of
// rows (first_row) writes only its rows.
// CHECK-LABEL: func.func @gather()
// CHECK: %[[A0:.*]] = hisa.read 0
// CHECK-NEXT: hisa.write %[[A0]] to 2048
// CHECK-NEXT: %[[B:.*]] = hisa.read 1024
// CHECK-NEXT: %[[SWAP:.*]] = hisa.permute %[[B]] switch 0 map [1, 0]{{$}}
// CHECK-NEXT: hisa.write %[[SWAP]] to 2049
// CHECK-NEXT: %[[A1:.*]] = hisa.read 1
// CHECK-NEXT: hisa.write %[[A1]] to 2050
// CHECK-NEXT: %[[A0B:.*]] = hisa.read 0
// CHECK-NEXT: %[[SHIFT:.*]] = hisa.permute %[[A0B]] switch 1 map [-1, 0]{{$}}
// CHECK-NEXT: hisa.write %[[SHIFT]] to 2051
// CHECK-NEXT: %[[ANY:.*]] = hisa.read 0
// CHECK-NEXT: %[[ZERO:.*]] = hisa.permute %[[ANY]] switch 0 map [-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]{{$}}
// CHECK-NEXT: hisa.write %[[ZERO]] to 2052
// CHECK-NEXT: %[[ANY2:.*]] = hisa.read 0
// CHECK-NEXT: %[[ZERO2:.*]] = hisa.permute %[[ANY2]] switch 1 map [-1, -1]{{$}}
// CHECK-NEXT: hisa.write %[[ZERO2]] to 2053
// CHECK-NEXT: %[[X0:.*]] = hisa.read 0
// CHECK-NEXT: %[[M0:.*]] = hisa.permute %[[X0]] switch 0 map [0, -1, -1, -1]{{$}}
// CHECK-NEXT: %[[X1:.*]] = hisa.read 1024
// CHECK-NEXT: %[[M1:.*]] = hisa.permute %[[X1]] into %[[M0]] switch 0 map [-1, 1, -1, -1]{{$}}
// CHECK-NEXT: %[[X2:.*]] = hisa.read 1
// CHECK-NEXT: %[[M2:.*]] = hisa.permute %[[X2]] into %[[M1]] switch 0 map [-1, -1, 1, -1]{{$}}
// CHECK-NEXT: hisa.write %[[M2]] to 3072
// CHECK-NEXT: %[[W:.*]] = hisa.read 1
// CHECK-NEXT: hisa.write %[[W]] to 4097
// CHECK-NEXT: return
func.func @gather() {
  %a = htile.input "a" {address = 0 : i64} : memref<2x16xf32>
  %b = htile.input "b" {address = 1024 : i64} : memref<1x2xf32>
  %y = htile.alloc {address = 2048 : i64} : memref<3x18xf32>
  htile.gather ins(%a, %b) outs(%y) indices [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 33, 32, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, -1, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1] : (memref<2x16xf32>, memref<1x2xf32>) -> memref<3x18xf32>
  %z = htile.alloc {address = 3072 : i64} : memref<4xf32>
  htile.gather ins(%a, %b) outs(%z) indices [0, 33, 17, -1] : (memref<2x16xf32>, memref<1x2xf32>) -> memref<4xf32>
  // A band: the row it fills is row 1 of %w, written at 4096 + 1.
  %w = htile.alloc {address = 4096 : i64} : memref<3x16xf32>
  htile.gather ins(%a) outs(%w) indices [16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] first_row 1 : (memref<2x16xf32>) -> memref<3x16xf32>
  htile.output "y", %y : memref<3x18xf32>
  htile.output "z", %z : memref<4xf32>
  htile.output "w", %w : memref<3x16xf32>
  return
}

// -----

// Tests a lookup of two rows by run-time index: per row vector, the index
// vector is read, turned east on switch 0 (west of every slice), gathered
// from the table by its lane, turned west on switch 1 (east of every
// slice) and written.
// CHECK-LABEL: func.func @gather_rows()
// CHECK: %[[I0:.*]] = hisa.read 4096 as i32
// CHECK-NEXT: %[[T0:.*]] = hisa.permute %[[I0]] switch 0 map [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] as i32
// CHECK-NEXT: %[[G0:.*]] = hisa.gather %[[T0]] lane 0 table 300 stride 1 rows 1500
// CHECK-NEXT: %[[B0:.*]] = hisa.permute %[[G0]] switch 1 map [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
// CHECK-NEXT: hisa.write %[[B0]] to 5120
// CHECK: hisa.gather %{{.*}} lane 1 table 300 stride 1 rows 1500
// CHECK: hisa.write %{{.*}} to 5121
// CHECK-NEXT: return
func.func @gather_rows() {
  %ids = htile.input "ids" {address = 4096 : i64} : memref<2xi64>
  %t = htile.constant dense<0.5> : tensor<1500x16xf32> {address = 300 : i64} : memref<1500x16xf32>
  %y = htile.alloc {address = 5120 : i64} : memref<2x16xf32>
  htile.gather_rows ins(%t, %ids) outs(%y) : (memref<1500x16xf32>, memref<2xi64>) -> memref<2x16xf32>
  htile.output "y", %y : memref<2x16xf32>
  return
}

// -----

// Tests that a row of two vectors is read vector by vector, with the
// table's rows two vectors apart. f16 vectors are packed two to an SRAM
// row: a table row's second vector is part 1 of the SRAM row.
// CHECK-LABEL: func.func @gather_wide_rows()
// CHECK: hisa.gather %{{.*}} lane 0 table 64 stride 2 rows 10 as f16
// CHECK: hisa.write %{{.*}} to 512 as f16
// CHECK: hisa.gather %{{.*}} lane 0 table 64 part 1 stride 2 rows 10 as f16
// CHECK: hisa.write %{{.*}} to 512 part 1 as f16
// CHECK-NOT: hisa.gather
func.func @gather_wide_rows() {
  %ids = htile.input "ids" {address = 0 : i64} : memref<i32>
  %t = htile.constant dense<1.0> : tensor<10x20xf16> {address = 64 : i64} : memref<10x20xf16>
  %y = htile.alloc {address = 512 : i64} : memref<20xf16>
  htile.gather_rows ins(%t, %ids) outs(%y) : (memref<10x20xf16>, memref<i32>) -> memref<20xf16>
  htile.output "y", %y : memref<20xf16>
  return
}

// -----

// Tests a row scatter by run-time index into a table that spans both sides
// of the vector unit (slices 3 and 4 of test-chip): per row vector, the
// index and the update's vector are read and passed on by the vector unit
// once for each side (V_CAST to their own type), and one scatter chain
// takes both pairs, the west one first.
// CHECK-LABEL: func.func @scatter_rows()
// CHECK: %[[I0:.*]] = hisa.read 100 as i32
// CHECK-NEXT: %[[V0:.*]] = hisa.read 5200
// CHECK-NEXT: %[[VW:.*]] = hisa.vcast %[[V0]] from f32 to f32 lanes 16
// CHECK-NEXT: %[[IW:.*]] = hisa.vcast %[[I0]] from i32 to i32 lanes 16
// CHECK-NEXT: %[[VE:.*]] = hisa.vcast %[[V0]] from f32 to f32 lanes 16
// CHECK-NEXT: %[[IE:.*]] = hisa.vcast %[[I0]] from i32 to i32 lanes 16
// CHECK-NEXT: hisa.scatter %[[VW]], %[[VE]] by %[[IW]], %[[IE]] lane 0 table 3572 stride 1 rows 1000
// CHECK: hisa.read 5201
// CHECK: hisa.scatter %{{.*}}, %{{.*}} by %{{.*}}, %{{.*}} lane 1 table 3572 stride 1 rows 1000
// CHECK-NOT: hisa.scatter
func.func @scatter_rows() {
  %ids = htile.input "ids" {address = 100 : i64} : memref<2xi64>
  %kv = htile.input "kv" {address = 5200 : i64} : memref<2x16xf32>
  %t = htile.input "cache" {address = 3572 : i64} : memref<1000x16xf32>
  htile.scatter_rows ins(%kv, %ids) outs(%t) : (memref<2x16xf32>, memref<2xi64>) -> memref<1000x16xf32>
  htile.output "y", %t : memref<1000x16xf32>
  return
}

// -----

// Tests that a row of an f16 table in one half of the chip takes one pair
// per vector, its vectors parts of the packed rows, and the update's
// lanes only.
// CHECK-LABEL: func.func @scatter_wide_rows()
// CHECK: hisa.vcast %{{.*}} from f16 to f16 lanes 16
// CHECK: hisa.scatter %{{.*}} by %{{.*}} lane 0 table 64 stride 2 rows 10 as f16
// CHECK: hisa.vcast %{{.*}} from f16 to f16 lanes 4
// CHECK: hisa.scatter %{{.*}} by %{{.*}} lane 0 table 64 part 1 stride 2 rows 10 as f16
// CHECK-NOT: hisa.scatter
func.func @scatter_wide_rows() {
  %ids = htile.input "ids" {address = 0 : i64} : memref<i32>
  %t = htile.input "table" {address = 64 : i64} : memref<10x20xf16>
  %u = htile.input "u" {address = 512 : i64} : memref<20xf16>
  htile.scatter_rows ins(%u, %ids) outs(%t) : (memref<20xf16>, memref<i32>) -> memref<10x20xf16>
  htile.output "y", %t : memref<10x20xf16>
  return
}

// -----

// Tests htile.unary: per row and per vector of the row (20 elements are a
// full 16-lane vector and one of 4 lanes), a read, one vunary of the
// kernel's kind over the active lanes, and a write.
// CHECK-LABEL: func.func @main()
// CHECK: %[[A:.*]] = hisa.read 0
// CHECK-NEXT: %[[EA:.*]] = hisa.vunary exp %[[A]] lanes 16
// CHECK-NEXT: hisa.write %[[EA]] to 256
// CHECK-NEXT: %[[B:.*]] = hisa.read 1
// CHECK-NEXT: %[[EB:.*]] = hisa.vunary exp %[[B]] lanes 4
// CHECK-NEXT: hisa.write %[[EB]] to 257
// CHECK-NEXT: %[[C:.*]] = hisa.read 2
// CHECK-NEXT: hisa.vunary exp %[[C]] lanes 16
// CHECK: hisa.vunary exp %{{.*}} lanes 4
// CHECK-NEXT: hisa.write %{{.*}} to 259
// CHECK-NEXT: return
func.func @main() {
  %x = htile.input "x" {address = 0 : i64} : memref<2x20xf32>
  %y = htile.alloc {address = 256 : i64} : memref<2x20xf32>
  htile.unary exp ins(%x) outs(%y) : memref<2x20xf32>, memref<2x20xf32>
  htile.output "y", %y : memref<2x20xf32>
  return
}

// -----

// Tests that a view of rows reads its source in place: rows 2 and 3 of
// an input of 4 rows at SRAM row 0 lie at rows 2 and 3, and of an f16
// input of one vector a row (two to an SRAM row) at 64, rows 2 and 3 share
// SRAM row 65.
// CHECK-LABEL: func.func @main()
// CHECK: %[[R2:.*]] = hisa.read 2{{$}}
// CHECK-NEXT: hisa.write %[[R2]] to 128
// CHECK-NEXT: %[[R3:.*]] = hisa.read 3{{$}}
// CHECK-NEXT: hisa.write %[[R3]] to 129
// CHECK-NEXT: %[[H2:.*]] = hisa.read 65 as f16
// CHECK-NEXT: hisa.write %[[H2]] to 130 as f16
// CHECK-NEXT: %[[H3:.*]] = hisa.read 65 part 1 as f16
// CHECK-NEXT: hisa.write %[[H3]] to 130 part 1 as f16
func.func @main() {
  %x = htile.input "x" {address = 0 : i64} : memref<4x8xf32>
  %h = htile.input "h" {address = 64 : i64} : memref<4x8xf16>
  %v = htile.view %x rows 2 : memref<4x8xf32> to memref<2x8xf32>
  %w = htile.view %h rows 2 : memref<4x8xf16> to memref<2x8xf16>
  %y = htile.alloc {address = 128 : i64} : memref<2x8xf32>
  %z = htile.alloc {address = 130 : i64} : memref<2x8xf16>
  htile.gather ins(%v) outs(%y) indices [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : (memref<2x8xf32>) -> memref<2x8xf32>
  htile.gather ins(%w) outs(%z) indices [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : (memref<2x8xf16>) -> memref<2x8xf16>
  htile.output "y", %y : memref<2x8xf32>
  htile.output "z", %z : memref<2x8xf16>
  return
}
