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

// -----

// Tests that an elementwise train stays in one slice of tsp-v1, whose
// addresses go to the slices in runs of 64: the input's vectors 0 to 59
// lie at rows 4 to 63 of slice 0, so vectors 56 and 58 make a train of
// two; vectors 60 and 62 lie in slice 1, but the output's vector 64 does
// not (rows 8192 to 8255 are one run), so they make a train of two as
// well; vector 64 starts a train of four.
// CHECK-LABEL: func.func @elementwise_runs()
// CHECK: hisa.read 4 repeat <4 every 1 step 2>
// CHECK: hisa.read 60 repeat <2 every 1 step 2>
// CHECK-NEXT: hisa.vunary relu %{{.*}} lanes 320 repeat <2 every 1>
// CHECK-NEXT: hisa.write %{{.*}} to 8248 repeat <2 every 1 step 2>
// CHECK-NEXT: hisa.read 61 repeat <2 every 1 step 2>
// CHECK: hisa.read 64 repeat <2 every 1 step 2>
// CHECK-NEXT: hisa.vunary relu %{{.*}} lanes 320 repeat <2 every 1>
// CHECK-NEXT: hisa.write %{{.*}} to 8252 repeat <2 every 1 step 2>
// CHECK: hisa.read 68 repeat <4 every 1 step 2>
// CHECK-NEXT: hisa.vunary relu %{{.*}} lanes 320 repeat <4 every 1>
// CHECK-NEXT: hisa.write %{{.*}} to 8256 repeat <4 every 1 step 2>
func.func @elementwise_runs() {
  %x = htile.input "x" {address = 4 : i64} : memref<256x320xf32>
  %y = htile.alloc {address = 8192 : i64} : memref<256x320xf32>
  htile.unary relu ins(%x) outs(%y) : memref<256x320xf32>, memref<256x320xf32>
  htile.output "y", %y : memref<256x320xf32>
  return
}
