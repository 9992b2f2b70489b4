// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-htile-to-hisa | FileCheck %s

// Tests an f16 matmul with K = 20 into an f32 output: weights and inputs
// go in as f16 (packed two vectors to an SRAM row, so x's second vector is
// part 1 of row 0), the partial sum of the first K tile is kept in f32 in
// the output buffer, the second adds to it in f32, and the f16 bias is
// widened to f32.
// CHECK-LABEL: func.func @main()
// CHECK: hisa.input "x" at 0 : tensor<1x20xf16>
// CHECK: %[[W0:.*]] = hisa.read 256 as f16
// CHECK-NEXT: hisa.load_weights %[[W0]] plane 0 row 0 buffered as f16
// CHECK-NEXT: %[[W1:.*]] = hisa.read 256 part 1 as f16
// CHECK-NEXT: hisa.load_weights %[[W1]] plane 0 row 1 buffered as f16
// CHECK: %[[X0:.*]] = hisa.read 0 as f16
// CHECK-NEXT: %[[P0:.*]] = hisa.matmul %[[X0]] plane 0 as f16
// CHECK-NEXT: hisa.write %[[P0]] to 768{{$}}
// CHECK: %[[X1:.*]] = hisa.read 0 part 1 as f16
// CHECK-NEXT: %[[P1:.*]] = hisa.matmul %[[X1]] plane 1 as f16
// CHECK-NEXT: %[[ACC:.*]] = hisa.read 768{{$}}
// CHECK-NEXT: %[[SUM:.*]] = hisa.vbinary add %[[P1]], %[[ACC]] lanes 4{{$}}
// CHECK-NEXT: %[[B:.*]] = hisa.read 512 as f16
// CHECK-NEXT: %[[BW:.*]] = hisa.vcast %[[B]] from f16 to f32 lanes 4
// CHECK-NEXT: %[[BIASED:.*]] = hisa.vbinary add %[[SUM]], %[[BW]] lanes 4{{$}}
// CHECK-NEXT: hisa.write %[[BIASED]] to 768{{$}}
// CHECK-NEXT: return
func.func @main() {
  %x = htile.input "x" {address = 0 : i64} : memref<1x20xf16>
  %w = htile.constant dense<0.5> : tensor<20x4xf16> {address = 256 : i64} : memref<20x4xf16>
  %b = htile.constant dense<1.0> : tensor<4xf16> {address = 512 : i64} : memref<4xf16>
  %y = htile.alloc {address = 768 : i64} : memref<1x4xf32>
  htile.matmul ins(%x, %w) bias(%b : memref<4xf16>) outs(%y) activation(none) {tile = array<i64: 1, 16, 16>} : memref<1x20xf16>, memref<20x4xf16>, memref<1x4xf32>
  htile.output "y", %y : memref<1x4xf32>
  return
}

// -----

// Tests an f16 matmul with K = 12, within one tile, into an f16 output:
// the f32 sum and the widened bias are rounded to f16 once, by a cast that
// masks the 4 lanes.
// CHECK-LABEL: func.func @main()
// CHECK: %[[X0:.*]] = hisa.read 0 as f16
// CHECK-NEXT: %[[P0:.*]] = hisa.matmul %[[X0]] plane 0 as f16
// CHECK-NEXT: %[[B:.*]] = hisa.read 512 as f16
// CHECK-NEXT: %[[BW:.*]] = hisa.vcast %[[B]] from f16 to f32 lanes 4
// CHECK-NEXT: %[[BIASED:.*]] = hisa.vbinary add %[[P0]], %[[BW]] lanes 4{{$}}
// CHECK-NEXT: %[[R:.*]] = hisa.vcast %[[BIASED]] from f32 to f16 lanes 4
// CHECK-NEXT: hisa.write %[[R]] to 768 as f16
// CHECK-NEXT: return
func.func @main() {
  %x = htile.input "x" {address = 0 : i64} : memref<1x12xf16>
  %w = htile.constant dense<0.5> : tensor<12x4xf16> {address = 256 : i64} : memref<12x4xf16>
  %b = htile.constant dense<1.0> : tensor<4xf16> {address = 512 : i64} : memref<4xf16>
  %y = htile.alloc {address = 768 : i64} : memref<1x4xf16>
  htile.matmul ins(%x, %w) bias(%b : memref<4xf16>) outs(%y) activation(none) {tile = array<i64: 1, 16, 16>} : memref<1x12xf16>, memref<12x4xf16>, memref<1x4xf16>
  htile.output "y", %y : memref<1x4xf16>
  return
}

// -----

// Tests that comparisons become vcompare on the operands' type (greater is
// lt with the operands swapped), that a one-element i1 condition row is
// spread over the vector by a permute, and that select, cast and the
// i64-held-as-i32 buffers get their lane types. Operands read together
// lie in different banks (odd and even addresses).
// CHECK-LABEL: func.func @main()
// CHECK: %[[A:.*]] = hisa.read 0 as bf16
// CHECK-NEXT: %[[B:.*]] = hisa.read 65 as bf16
// CHECK-NEXT: %[[G:.*]] = hisa.vcompare lt %[[B]], %[[A]] lanes 8 as bf16
// CHECK-NEXT: hisa.write %[[G]] to 128 as i1
// CHECK: %[[C:.*]] = hisa.read 192 as i1
// CHECK-NEXT: %[[CS:.*]] = hisa.permute %[[C]] switch 0 map [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] as i1
// CHECK-NEXT: %[[L:.*]] = hisa.read 256 as i32
// CHECK-NEXT: %[[R:.*]] = hisa.read 321 as i32
// CHECK-NEXT: %[[S:.*]] = hisa.vselect %[[CS]], %[[L]], %[[R]] lanes 8 as i32
// CHECK-NEXT: hisa.write %[[S]] to 384 as i32
// CHECK: %[[I:.*]] = hisa.read 384 as i32
// CHECK-NEXT: %[[F:.*]] = hisa.vcast %[[I]] from i32 to f32 lanes 8
// CHECK-NEXT: hisa.write %[[F]] to 448{{$}}
func.func @main() {
  %a = htile.input "a" {address = 0 : i64} : memref<1x8xbf16>
  %b = htile.input "b" {address = 65 : i64} : memref<1x8xbf16>
  %g = htile.alloc {address = 128 : i64} : memref<1x8xi1>
  htile.binary greater ins(%a, %b) outs(%g) : memref<1x8xbf16>, memref<1x8xbf16>, memref<1x8xi1>
  %c = htile.input "c" {address = 192 : i64} : memref<1x1xi1>
  %l = htile.input "l" {address = 256 : i64} : memref<1x8xi64>
  %r = htile.input "r" {address = 321 : i64} : memref<1x8xi64>
  %s = htile.alloc {address = 384 : i64} : memref<1x8xi64>
  htile.select ins(%c, %l, %r) outs(%s) : memref<1x1xi1>, memref<1x8xi64>, memref<1x8xi64>, memref<1x8xi64>
  %f = htile.alloc {address = 448 : i64} : memref<1x8xf32>
  htile.cast ins(%s) outs(%f) : memref<1x8xi64>, memref<1x8xf32>
  htile.output "g", %g : memref<1x8xi1>
  htile.output "f", %f : memref<1x8xf32>
  return
}

// -----

// Tests the order in which a matmul takes its column tiles. The f16
// weight [32, 48] (three vectors a k, packed two to an SRAM row) lies in
// slice 0 from row 100: the first row of column tiles 0 and 1 of each K
// tile is in one bank, of tile 2 in the other. Pieces that install at the
// same time (two here, one per plane) start in different banks where
// they can: (column tile, K tile) (0, 0), (2, 0), (0, 1), (2, 1), (1, 0),
// (1, 1), each column tile's K tiles still in order.
// CHECK-LABEL: func.func @bank_order()
// CHECK: hisa.read 100 as f16
// CHECK-NEXT: hisa.load_weights %{{.*}} plane 0 row 0 buffered as f16
// CHECK: hisa.read 101 as f16
// CHECK-NEXT: hisa.load_weights %{{.*}} plane 1 row 0 buffered as f16
// CHECK: hisa.read 124 as f16
// CHECK-NEXT: hisa.load_weights %{{.*}} plane 0 row 0 buffered as f16
// CHECK: hisa.read 125 as f16
// CHECK-NEXT: hisa.load_weights %{{.*}} plane 1 row 0 buffered as f16
// CHECK: hisa.read 100 part 1 as f16
// CHECK-NEXT: hisa.load_weights %{{.*}} plane 0 row 0 buffered as f16
// CHECK: hisa.read 124 part 1 as f16
// CHECK-NEXT: hisa.load_weights %{{.*}} plane 1 row 0 buffered as f16
func.func @bank_order() {
  %x = htile.input "x" {address = 0 : i64} : memref<1x32xf16>
  %w = htile.constant dense<0.5> : tensor<32x48xf16> {address = 100 : i64} : memref<32x48xf16>
  %y = htile.alloc {address = 2048 : i64} : memref<1x48xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 16, 16>} : memref<1x32xf16>, memref<32x48xf16>, memref<1x48xf32>
  htile.output "y", %y : memref<1x48xf32>
  return
}
