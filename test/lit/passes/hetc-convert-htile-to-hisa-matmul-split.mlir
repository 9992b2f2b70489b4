// RUN: hetc-opt %s --hetc-set-chip=file=%chips/tsp-v1.chip --hetc-convert-htile-to-hisa | FileCheck %s

// Tests that a matmul of one piece of work (one column tile, its two K
// tiles summed by a group of two planes) on a chip of two such groups
// splits its 128 rows between two copies of the piece: both groups install
// the same weights (planes 0 and 1, then 2 and 3, row by row, into their
// weight buffers, then installed), and rows 0
// and 64 go through them side by side, each copy writing its own rows.
// CHECK-LABEL: func.func @split_rows()
// CHECK: hisa.read 256{{$}}
// CHECK-NEXT: hisa.load_weights %{{.*}} plane 0 row 0
// CHECK-NEXT: hisa.read 576{{$}}
// CHECK-NEXT: hisa.load_weights %{{.*}} plane 1 row 0
// CHECK-NEXT: hisa.read 256{{$}}
// CHECK-NEXT: hisa.load_weights %{{.*}} plane 2 row 0
// CHECK-NEXT: hisa.read 576{{$}}
// CHECK-NEXT: hisa.load_weights %{{.*}} plane 3 row 0
// CHECK: hisa.load_weights %{{.*}} plane 3 row 319 buffered
// CHECK-NEXT: hisa.install_weights plane 0
// CHECK-NEXT: hisa.install_weights plane 1
// CHECK-NEXT: hisa.install_weights plane 2
// CHECK-NEXT: hisa.install_weights plane 3
// CHECK-NEXT: %[[X0:.*]] = hisa.read 0{{$}}
// CHECK-NEXT: hisa.matmul %[[X0]] plane 0
// CHECK-NEXT: %[[X1:.*]] = hisa.read 1{{$}}
// CHECK-NEXT: hisa.matmul %[[X1]] plane 1
// CHECK-NEXT: hisa.vbinary add
// CHECK-NEXT: hisa.write %{{.*}} to 896{{$}}
// CHECK-NEXT: %[[Y0:.*]] = hisa.read 128{{$}}
// CHECK-NEXT: hisa.matmul %[[Y0]] plane 2
// CHECK-NEXT: %[[Y1:.*]] = hisa.read 129{{$}}
// CHECK-NEXT: hisa.matmul %[[Y1]] plane 3
// CHECK-NEXT: hisa.vbinary add
// CHECK-NEXT: hisa.write %{{.*}} to 960{{$}}
// CHECK: hisa.write %{{.*}} to 959{{$}}
// CHECK-NEXT: %{{.*}} = hisa.read 254{{$}}
// CHECK-NEXT: hisa.matmul %{{.*}} plane 2
// CHECK: hisa.write %{{.*}} to 1023{{$}}
// CHECK-NOT: hisa.matmul
func.func @split_rows() {
  %x = htile.input "x" {address = 0 : i64} : memref<128x640xf32>
  %w = htile.input "w" {address = 256 : i64} : memref<640x8xf32>
  %y = htile.alloc {address = 896 : i64} : memref<128x8xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 320, 320>} : memref<128x640xf32>, memref<640x8xf32>, memref<128x8xf32>
  htile.output "y", %y : memref<128x8xf32>
  return
}

// Tests that a matmul whose K is one tile takes its column tiles a plane
// each, four to a round on a chip of four planes (not one per group of
// two), and splits the last round's lone tile four ways: rows 0, 32, 64
// and 96 go through the four planes side by side, each copy writing the
// fifth column tile (vector 4 of a row) of its own rows.
// CHECK-LABEL: func.func @lone_tiles()
// CHECK: hisa.install_weights plane 0
// CHECK-NEXT: hisa.install_weights plane 1
// CHECK-NEXT: hisa.install_weights plane 2
// CHECK-NEXT: hisa.install_weights plane 3
// CHECK-NEXT: %[[A0:.*]] = hisa.read 0{{$}}
// CHECK-NEXT: hisa.matmul %[[A0]] plane 0
// CHECK-NEXT: hisa.write %{{.*}} to 448{{$}}
// CHECK-NEXT: %[[A1:.*]] = hisa.read 0{{$}}
// CHECK-NEXT: hisa.matmul %[[A1]] plane 1
// CHECK-NEXT: hisa.write %{{.*}} to 449{{$}}
// CHECK-NEXT: %[[A2:.*]] = hisa.read 0{{$}}
// CHECK-NEXT: hisa.matmul %[[A2]] plane 2
// CHECK-NEXT: hisa.write %{{.*}} to 450{{$}}
// CHECK-NEXT: %[[A3:.*]] = hisa.read 0{{$}}
// CHECK-NEXT: hisa.matmul %[[A3]] plane 3
// CHECK-NEXT: hisa.write %{{.*}} to 451{{$}}
// CHECK: hisa.install_weights plane 0
// CHECK-NEXT: hisa.install_weights plane 1
// CHECK-NEXT: hisa.install_weights plane 2
// CHECK-NEXT: hisa.install_weights plane 3
// CHECK-NEXT: %[[B0:.*]] = hisa.read 0{{$}}
// CHECK-NEXT: hisa.matmul %[[B0]] plane 0
// CHECK-NEXT: hisa.write %{{.*}} to 452{{$}}
// CHECK-NEXT: %[[B1:.*]] = hisa.read 32{{$}}
// CHECK-NEXT: hisa.matmul %[[B1]] plane 1
// CHECK-NEXT: hisa.write %{{.*}} to 612{{$}}
// CHECK-NEXT: %[[B2:.*]] = hisa.read 64{{$}}
// CHECK-NEXT: hisa.matmul %[[B2]] plane 2
// CHECK-NEXT: hisa.write %{{.*}} to 772{{$}}
// CHECK-NEXT: %[[B3:.*]] = hisa.read 96{{$}}
// CHECK-NEXT: hisa.matmul %[[B3]] plane 3
// CHECK-NEXT: hisa.write %{{.*}} to 932{{$}}
// CHECK: hisa.write %{{.*}} to 1087{{$}}
// CHECK-NOT: hisa.matmul
func.func @lone_tiles() {
  %x = htile.input "x" {address = 0 : i64} : memref<128x64xf32>
  %w = htile.input "w" {address = 128 : i64} : memref<64x1600xf32>
  %y = htile.alloc {address = 448 : i64} : memref<128x1600xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 320, 320>} : memref<128x64xf32>, memref<64x1600xf32>, memref<128x1600xf32>
  htile.output "y", %y : memref<128x1600xf32>
  return
}

// Tests that a last round of one lone K tile (K of five tiles: two groups
// of two, then the fifth) splits four ways, a plane each, not one way per
// group: rows 0, 32, 64 and 96 take the fifth K tile (vector 4 of their
// row) through planes 0 to 3 and add it to their partial sums.
// CHECK-LABEL: func.func @lone_last_tile()
// CHECK: hisa.install_weights plane 3
// CHECK: hisa.install_weights plane 0
// CHECK-NEXT: hisa.install_weights plane 1
// CHECK-NEXT: hisa.install_weights plane 2
// CHECK-NEXT: hisa.install_weights plane 3
// CHECK-NEXT: %[[C0:.*]] = hisa.read 4{{$}}
// CHECK-NEXT: hisa.matmul %[[C0]] plane 0
// CHECK-NEXT: hisa.read 2240{{$}}
// CHECK-NEXT: hisa.vbinary add
// CHECK-NEXT: hisa.write %{{.*}} to 2240{{$}}
// CHECK-NEXT: %[[C1:.*]] = hisa.read 164{{$}}
// CHECK-NEXT: hisa.matmul %[[C1]] plane 1
// CHECK: %[[C2:.*]] = hisa.read 324{{$}}
// CHECK-NEXT: hisa.matmul %[[C2]] plane 2
// CHECK: %[[C3:.*]] = hisa.read 484{{$}}
// CHECK-NEXT: hisa.matmul %[[C3]] plane 3
// CHECK: hisa.write %{{.*}} to 2367{{$}}
// CHECK-NOT: hisa.matmul
func.func @lone_last_tile() {
  %x = htile.input "x" {address = 0 : i64} : memref<128x1600xf32>
  %w = htile.input "w" {address = 640 : i64} : memref<1600x8xf32>
  %y = htile.alloc {address = 2240 : i64} : memref<128x8xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 320, 320>} : memref<128x1600xf32>, memref<1600x8xf32>, memref<128x8xf32>
  htile.output "y", %y : memref<128x8xf32>
  return
}
