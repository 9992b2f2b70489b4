// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-htile-to-hisa | FileCheck %s

// Elementwise kernels as trains on test-chip, whose slices hold 1024
// consecutive rows each, alternating between two banks. Output vectors two
// apart lie in one bank of every buffer, so they go together, up to 4 to a
// train: a read train per operand, a vector-instruction train and a write
// train. Kernels of fewer than 256 vectors go vector by vector.

// Tests a unary kernel of [128, 20] (two vectors a row, of 16 and 4 lanes)
// from slice 0 to slice 1: the 16-lane vectors of rows 0 to 3 are one
// train, their 4-lane ones another, and so on for rows 4 to 7.
// CHECK-LABEL: func.func @unary()
// CHECK: %[[A:.*]] = hisa.read 0 repeat <4 every 1 step 2>
// CHECK-NEXT: %[[EA:.*]] = hisa.vunary exp %[[A]] lanes 16 repeat <4 every 1>
// CHECK-NEXT: hisa.write %[[EA]] to 1024 repeat <4 every 1 step 2>
// CHECK-NEXT: %[[B:.*]] = hisa.read 1 repeat <4 every 1 step 2>
// CHECK-NEXT: %[[EB:.*]] = hisa.vunary exp %[[B]] lanes 4 repeat <4 every 1>
// CHECK-NEXT: hisa.write %[[EB]] to 1025 repeat <4 every 1 step 2>
// CHECK-NEXT: hisa.read 8 repeat <4 every 1 step 2>
func.func @unary() {
  %x = htile.input "x" {address = 0 : i64} : memref<128x20xf32>
  %y = htile.alloc {address = 1024 : i64} : memref<128x20xf32>
  htile.unary exp ins(%x) outs(%y) : memref<128x20xf32>, memref<128x20xf32>
  htile.output "y", %y : memref<128x20xf32>
  return
}

// -----

// Tests that a kernel of fewer than 256 vectors goes vector by vector.
// CHECK-LABEL: func.func @small()
// CHECK-NOT: repeat
// CHECK: return
func.func @small() {
  %x = htile.input "x" {address = 0 : i64} : memref<8x16xf32>
  %y = htile.alloc {address = 1024 : i64} : memref<8x16xf32>
  htile.unary relu ins(%x) outs(%y) : memref<8x16xf32>, memref<8x16xf32>
  htile.output "y", %y : memref<8x16xf32>
  return
}

// -----

// Tests that vectors whose read and write would take one bank in lockstep
// go one by one: input and output in slice 0, each vector's two rows in
// the same bank.
// CHECK-LABEL: func.func @same_bank()
// CHECK-NOT: repeat
// CHECK: return
func.func @same_bank() {
  %x = htile.input "x" {address = 0 : i64} : memref<256x16xf32>
  %y = htile.alloc {address = 256 : i64} : memref<256x16xf32>
  htile.unary relu ins(%x) outs(%y) : memref<256x16xf32>, memref<256x16xf32>
  htile.output "y", %y : memref<256x16xf32>
  return
}

// -----

// Tests a binary kernel with a broadcast column ([256, 1], spread over the
// vector by a one-lane reduction): rows 0, 2, 4 and 6 read column rows
// 0, 2, 4 and 6 as a train of their own, then rows 1, 3, 5 and 7.
// CHECK-LABEL: func.func @column()
// CHECK: %[[A:.*]] = hisa.read 0 repeat <4 every 1 step 2>
// CHECK-NEXT: %[[C:.*]] = hisa.read 3072 repeat <4 every 1 step 2>
// CHECK-NEXT: %[[S:.*]] = hisa.vreduce sum %[[C]] lanes 1 repeat <4 every 1>
// CHECK-NEXT: %[[M:.*]] = hisa.vbinary mul %[[A]], %[[S]] lanes 16 repeat <4 every 1>
// CHECK-NEXT: hisa.write %[[M]] to 1024 repeat <4 every 1 step 2>
// CHECK-NEXT: hisa.read 1 repeat <4 every 1 step 2>
// CHECK-NEXT: hisa.read 3073 repeat <4 every 1 step 2>
// CHECK: hisa.write %{{.*}} to 1025 repeat <4 every 1 step 2>
func.func @column() {
  %a = htile.input "a" {address = 0 : i64} : memref<256x16xf32>
  %c = htile.input "c" {address = 3072 : i64} : memref<256x1xf32>
  %y = htile.alloc {address = 1024 : i64} : memref<256x16xf32>
  htile.binary mul ins(%a, %c) outs(%y) : memref<256x16xf32>, memref<256x1xf32>, memref<256x16xf32>
  htile.output "y", %y : memref<256x16xf32>
  return
}

// -----

// Tests x * x: one read train feeds both operands.
// CHECK-LABEL: func.func @square()
// CHECK: %[[A:.*]] = hisa.read 0 repeat <4 every 1 step 2>
// CHECK-NEXT: %[[M:.*]] = hisa.vbinary mul %[[A]], %[[A]] lanes 16 repeat <4 every 1>
// CHECK-NEXT: hisa.write %[[M]] to 1024 repeat <4 every 1 step 2>
func.func @square() {
  %a = htile.input "a" {address = 0 : i64} : memref<256x16xf32>
  %y = htile.alloc {address = 1024 : i64} : memref<256x16xf32>
  htile.binary mul ins(%a, %a) outs(%y) : memref<256x16xf32>, memref<256x16xf32>, memref<256x16xf32>
  htile.output "y", %y : memref<256x16xf32>
  return
}

// -----

// Tests a conversion to f16, two vectors to an SRAM row: vectors four
// apart lie in one bank of the result (rows 1024, 1026, ...), so vectors
// 0, 4, 8 and 12 go together, then 1, 5, 9 and 13 (part 1 of the same
// rows), then the vectors from 2 and from 3, and so on.
// CHECK-LABEL: func.func @to_half()
// CHECK: %[[A:.*]] = hisa.read 0 repeat <4 every 1 step 4>
// CHECK-NEXT: %[[H:.*]] = hisa.vcast %[[A]] from f32 to f16 lanes 16 repeat <4 every 1>
// CHECK-NEXT: hisa.write %[[H]] to 1024 as f16 repeat <4 every 1 step 4>
// CHECK-NEXT: hisa.read 1 repeat <4 every 1 step 4>
// CHECK-NEXT: hisa.vcast
// CHECK-NEXT: hisa.write %{{.*}} to 1024 part 1 as f16 repeat <4 every 1 step 4>
// CHECK-COUNT-2: hisa.write %{{.*}} repeat <4 every 1 step 4>
func.func @to_half() {
  %x = htile.input "x" {address = 0 : i64} : memref<256x16xf32>
  %y = htile.alloc {address = 1024 : i64} : memref<256x16xf16>
  htile.cast ins(%x) outs(%y) : memref<256x16xf32>, memref<256x16xf16>
  htile.output "y", %y : memref<256x16xf16>
  return
}

// -----

// Tests a select with an i1 condition, four vectors to an SRAM row:
// vectors eight apart lie in one bank of the condition (rows 0, 2, ...),
// so vectors 0, 8, 16 and 24 go together.
// CHECK-LABEL: func.func @select()
// CHECK: %[[C:.*]] = hisa.read 0 as i1 repeat <4 every 1 step 8>
// CHECK-NEXT: %[[X:.*]] = hisa.read 1024 repeat <4 every 1 step 8>
// CHECK-NEXT: %[[Y:.*]] = hisa.read 2048 repeat <4 every 1 step 8>
// CHECK-NEXT: %[[S:.*]] = hisa.vselect %[[C]], %[[X]], %[[Y]] lanes 16 repeat <4 every 1>
// CHECK-NEXT: hisa.write %[[S]] to 3072 repeat <4 every 1 step 8>
// CHECK-NEXT: hisa.read 0 part 1 as i1 repeat <4 every 1 step 8>
func.func @select() {
  %c = htile.input "c" {address = 0 : i64} : memref<256x16xi1>
  %x = htile.input "x" {address = 1024 : i64} : memref<256x16xf32>
  %y = htile.input "y" {address = 2048 : i64} : memref<256x16xf32>
  %z = htile.alloc {address = 3072 : i64} : memref<256x16xf32>
  htile.select ins(%c, %x, %y) outs(%z) : memref<256x16xi1>, memref<256x16xf32>, memref<256x16xf32>, memref<256x16xf32>
  htile.output "z", %z : memref<256x16xf32>
  return
}
