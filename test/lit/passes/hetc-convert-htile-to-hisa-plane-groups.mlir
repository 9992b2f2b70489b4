// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%S/../Inputs/four-planes.chip --hetc-convert-htile-to-hisa | FileCheck %s
// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%S/../Inputs/four-planes.chip --hetc-convert-htile-to-hisa --hetc-hisa-schedule | FileCheck %s --check-prefix=SCHED

// Tests that a matmul of 64 rows (a tile's products take 64 cycles, four
// times the 16 of installing its weights) with K = 40 (three K tiles of
// 16, 16 and 8) on a chip with two planes on each side of the vector unit
// takes its K tiles
// in groups of one side's planes: tiles 0 and 1 on the west planes 0 and
// 1, whose products of a row are summed on the vector unit before the
// output buffer sees them; tile 2, alone, on the next plane, 2, its
// product added to that partial sum, then the bias. The round's weight
// rows are loaded into the planes' weight buffers plane by plane in turn
// (plane 2's eight rows with the first eight of the others) and installed,
// and each input row goes through both
// groups before the next row. The group's plane pair ties reads two hops
// apart, so the program schedules.
// CHECK-LABEL: func.func @main()
// CHECK: hisa.load_weights %{{.*}} plane 0 row 0
// CHECK-NEXT: hisa.read 272
// CHECK-NEXT: hisa.load_weights %{{.*}} plane 1 row 0
// CHECK-NEXT: hisa.read 288
// CHECK-NEXT: hisa.load_weights %{{.*}} plane 2 row 0
// CHECK: hisa.load_weights %{{.*}} plane 2 row 7
// CHECK-NOT: plane 2 row 8
// CHECK: hisa.load_weights %{{.*}} plane 1 row 15 buffered
// CHECK-NEXT: hisa.install_weights plane 0
// CHECK-NEXT: hisa.install_weights plane 1
// CHECK-NEXT: hisa.install_weights plane 2
// CHECK-NEXT: %[[X0:.*]] = hisa.read 0
// CHECK-NEXT: %[[P0:.*]] = hisa.matmul %[[X0]] plane 0
// CHECK-NEXT: %[[X1:.*]] = hisa.read 1
// CHECK-NEXT: %[[P1:.*]] = hisa.matmul %[[X1]] plane 1
// CHECK-NEXT: %[[S:.*]] = hisa.vbinary add %[[P0]], %[[P1]] lanes 4
// CHECK-NEXT: hisa.write %[[S]] to 768
// CHECK-NEXT: %[[X2:.*]] = hisa.read 2
// CHECK-NEXT: %[[P2:.*]] = hisa.matmul %[[X2]] plane 2
// CHECK-NEXT: %[[ACC:.*]] = hisa.read 768
// CHECK-NEXT: %[[T:.*]] = hisa.vbinary add %[[P2]], %[[ACC]] lanes 4
// CHECK-NEXT: %[[B:.*]] = hisa.read 512
// CHECK-NEXT: %[[Y:.*]] = hisa.vbinary add %[[T]], %[[B]] lanes 4
// CHECK-NEXT: hisa.write %[[Y]] to 768
// CHECK-NEXT: hisa.read 3
// CHECK-NOT: plane 3
// SCHED-LABEL: func.func @main()
// SCHED-SAME: hetc.predicted_cycles
func.func @main() {
  %x = htile.input "x" {address = 0 : i64} : memref<64x40xf32>
  %w = htile.constant dense<0.5> : tensor<40x4xf32> {address = 256 : i64} : memref<40x4xf32>
  %b = htile.constant dense<1.0> : tensor<4xf32> {address = 512 : i64} : memref<4xf32>
  %y = htile.alloc {address = 768 : i64} : memref<64x4xf32>
  htile.matmul ins(%x, %w) bias(%b : memref<4xf32>) outs(%y) activation(none) {tile = array<i64: 1, 16, 16>} : memref<64x40xf32>, memref<40x4xf32>, memref<64x4xf32>
  htile.output "y", %y : memref<64x4xf32>
  return
}

// -----

// Tests that a matmul of 15 rows, whose products take less than the 16
// cycles of a tile's lanes, takes one K tile at a time, round-robin: it is
// bound by installing weights, which one plane does while others multiply.
// CHECK-LABEL: func.func @few_rows()
// CHECK: hisa.load_weights %{{.*}} plane 0 row 1 buffered
// CHECK-NEXT: hisa.install_weights plane 0
// CHECK-NEXT: %[[X0:.*]] = hisa.read 0
// CHECK-NEXT: hisa.matmul %[[X0]] plane 0
// CHECK-NEXT: hisa.write
// CHECK: hisa.load_weights %{{.*}} plane 1 row 0
func.func @few_rows() {
  %x = htile.input "x" {address = 0 : i64} : memref<15x40xf32>
  %w = htile.constant dense<0.5> : tensor<40x4xf32> {address = 256 : i64} : memref<40x4xf32>
  %y = htile.alloc {address = 768 : i64} : memref<15x4xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 16, 16>} : memref<15x40xf32>, memref<40x4xf32>, memref<15x4xf32>
  htile.output "y", %y : memref<15x4xf32>
  return
}

// -----

// Tests that a matmul of 63 rows, whose products take less than four
// times its weight rows but at least a tile's lanes, takes its K tiles in
// groups all the same where one tile at a time would want more of the
// dispatcher than it has: four planes each taking a row a cycle, with
// five instructions a row, against the four instructions a cycle this
// chip dispatches. A group sums its two products on the vector unit
// before one trip through the output buffer.
// CHECK-LABEL: func.func @dispatch_bound()
// CHECK: hisa.install_weights plane 0
// CHECK-NEXT: hisa.install_weights plane 1
// CHECK: %[[P0:.*]] = hisa.matmul %{{.*}} plane 0
// CHECK-NEXT: %{{.*}} = hisa.read 1
// CHECK-NEXT: %[[P1:.*]] = hisa.matmul %{{.*}} plane 1
// CHECK-NEXT: hisa.vbinary add %[[P0]], %[[P1]] lanes 4
func.func @dispatch_bound() {
  %x = htile.input "x" {address = 0 : i64} : memref<63x40xf32>
  %w = htile.constant dense<0.5> : tensor<40x4xf32> {address = 256 : i64} : memref<40x4xf32>
  %y = htile.alloc {address = 768 : i64} : memref<63x4xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 16, 16>} : memref<63x40xf32>, memref<40x4xf32>, memref<63x4xf32>
  htile.output "y", %y : memref<63x4xf32>
  return
}
