// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-htile-to-hisa | FileCheck %s

// Tests that a float matmul whose K (4) leaves rows of its tile's plane
// unused, in a function that also multiplies integers on the planes, gives
// those rows (4 to 15 of test-chip's 16) copies of its first weight row:
// the integer products leave words there that are not finite as floats,
// and the input's zero lanes times NaN would be NaN.
// CHECK-LABEL: func.func @after_integers()
// CHECK: hisa.matmul %{{.*}} plane {{[0-9]}} as i8
// CHECK: %[[W0:.*]] = hisa.read 40{{$}}
// CHECK-NEXT: hisa.load_weights %[[W0]] plane [[P:[0-9]]] row 0 buffered{{$}}
// CHECK-COUNT-3: hisa.load_weights %{{.*}} plane [[P]] row {{[1-3]}} buffered{{$}}
// CHECK-NOT: install_weights
// CHECK-NEXT: %[[PAD:.*]] = hisa.read 40 repeat <8 every 1>{{$}}
// CHECK-NEXT: hisa.load_weights %[[PAD]] plane [[P]] row 4 buffered repeat <8 every 1 step 1>{{$}}
// CHECK-NEXT: %[[PAD2:.*]] = hisa.read 40 repeat <4 every 1>{{$}}
// CHECK-NEXT: hisa.load_weights %[[PAD2]] plane [[P]] row 12 buffered repeat <4 every 1 step 1>{{$}}
// CHECK-NEXT: hisa.install_weights plane [[P]]
func.func @after_integers() {
  %a = htile.input "a" {address = 0 : i64} : memref<2x16xi8>
  %b = htile.input "b" {address = 8 : i64} : memref<16x16xi8>
  %c = htile.alloc {address = 32 : i64} : memref<2x16xi32>
  htile.matmul ins(%a, %b) outs(%c) activation(none) {tile = array<i64: 1, 16, 16>} : memref<2x16xi8>, memref<16x16xi8>, memref<2x16xi32>
  %x = htile.input "x" {address = 36 : i64} : memref<1x4xf32>
  %w = htile.input "w" {address = 40 : i64} : memref<4x16xf32>
  %y = htile.alloc {address = 48 : i64} : memref<1x16xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 16, 16>} : memref<1x4xf32>, memref<4x16xf32>, memref<1x16xf32>
  htile.output "c", %c : memref<2x16xi32>
  htile.output "y", %y : memref<1x16xf32>
  return
}

// -----

// Tests that without integer products the rows past K keep what they
// hold: the input's zero lanes cancel finite weights.
// CHECK-LABEL: func.func @floats_only()
// CHECK-COUNT-4: hisa.load_weights
// CHECK-NOT: hisa.load_weights
// CHECK: hisa.install_weights
func.func @floats_only() {
  %x = htile.input "x" {address = 36 : i64} : memref<1x4xf32>
  %w = htile.input "w" {address = 40 : i64} : memref<4x16xf32>
  %y = htile.alloc {address = 48 : i64} : memref<1x16xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) {tile = array<i64: 1, 16, 16>} : memref<1x4xf32>, memref<4x16xf32>, memref<1x16xf32>
  htile.output "y", %y : memref<1x16xf32>
  return
}
