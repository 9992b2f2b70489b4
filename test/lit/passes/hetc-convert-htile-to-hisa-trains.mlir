// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/tsp-v1.chip --hetc-convert-htile-to-hisa | FileCheck %s

// Tests that a weight tile multiplied by one row goes in by trains on
// tsp-v1: installing it row by row would take two of the dispatcher's 16
// instructions a cycle for each of the 4 rows a cycle of each of the 4
// planes. Each train reads 8 rows of one bank (the weight's rows 0 to 63
// lie in the slice of addresses 256 to 319, even rows in one bank and odd
// rows in the other; each later 64 rows in the next slice), the load train
// installing issue k's row as row `index + 2k`.
// CHECK-LABEL: func.func @one_row()
// CHECK: %[[R0:.*]] = hisa.read 256 repeat <8 every 1 step 2>
// CHECK-NEXT: hisa.load_weights %[[R0]] plane 0 row 0 buffered repeat <8 every 1 step 2>
// CHECK-NEXT: %[[R1:.*]] = hisa.read 257 repeat <8 every 1 step 2>
// CHECK-NEXT: hisa.load_weights %[[R1]] plane 0 row 1 buffered repeat <8 every 1 step 2>
// CHECK-COUNT-38: hisa.load_weights %{{.*}} plane 0 row {{[0-9]+}} buffered repeat <8 every 1 step 2>
// CHECK-NEXT: hisa.install_weights plane 0
// CHECK-NEXT: %[[X:.*]] = hisa.read 0{{$}}
// CHECK-NEXT: hisa.matmul %[[X]] plane 0
func.func @one_row() {
  %x = htile.input "x" {address = 0 : i64} : memref<1x320xf32>
  %w = htile.input "w" {address = 256 : i64} : memref<320x8xf32>
  %y = htile.alloc {address = 1024 : i64} : memref<1x8xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 320, 320>} : memref<1x320xf32>, memref<320x8xf32>, memref<1x8xf32>
  htile.output "y", %y : memref<1x8xf32>
  return
}

// -----

// Tests that a tile multiplied by many rows goes in row by row: its 197
// products of f32 rows keep the plane for 2,364 cycles, over which row by
// row leaves the dispatcher room, and single reads fit between the other
// planes' reads of the same banks better than trains.
// CHECK-LABEL: func.func @many_rows()
// CHECK: %[[R0:.*]] = hisa.read 2048{{$}}
// CHECK-NEXT: hisa.load_weights %[[R0]] plane 0 row 0 buffered{{$}}
// CHECK-NOT: repeat
func.func @many_rows() {
  %x = htile.input "x" {address = 0 : i64} : memref<197x320xf32>
  %w = htile.input "w" {address = 2048 : i64} : memref<320x8xf32>
  %y = htile.alloc {address = 4096 : i64} : memref<197x8xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 320, 320>} : memref<197x320xf32>, memref<320x8xf32>, memref<197x8xf32>
  htile.output "y", %y : memref<197x8xf32>
  return
}
