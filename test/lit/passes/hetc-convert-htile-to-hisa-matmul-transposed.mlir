// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/tsp-v1.chip --hetc-convert-htile-to-hisa | FileCheck %s

// Tests that a transposed weight (N x K) goes to the plane a row per weight
// column, with no transpose of its own (trains of eight rows of one bank,
// each row a column), and that the product of its partial N tile is
// masked to N's lanes: the plane's columns past N hold older weights.
// CHECK-LABEL: func.func @keys()
// CHECK: %[[K0:.*]] = hisa.read 16 repeat <8 every 1 step 2>{{$}}
// CHECK-NEXT: hisa.load_weights %[[K0]] plane 0 column 0 buffered repeat <8 every 1 step 2>{{$}}
// CHECK-NEXT: %[[K1:.*]] = hisa.read 17 repeat <8 every 1 step 2>{{$}}
// CHECK-NEXT: hisa.load_weights %[[K1]] plane 0 column 1 buffered repeat <8 every 1 step 2>{{$}}
// CHECK-COUNT-14: hisa.load_weights %{{.*}} plane 0 column
// CHECK-NOT: hisa.load_weights
// CHECK: hisa.install_weights plane 0
// CHECK-NEXT: %[[Q:.*]] = hisa.read 0{{$}}
// CHECK-NEXT: %[[P:.*]] = hisa.matmul %[[Q]] plane 0{{$}}
// CHECK-NEXT: %[[M:.*]] = hisa.vbinary max %[[P]], %[[P]] lanes 128{{$}}
// CHECK-NEXT: hisa.write %[[M]] to 512{{$}}
func.func @keys() {
  %q = htile.input "q" {address = 0 : i64} : memref<1x64xf32>
  %k = htile.input "k" {address = 16 : i64} : memref<128x64xf32>
  %s = htile.alloc {address = 512 : i64} : memref<1x128xf32>
  htile.matmul ins(%q, %k) transposed outs(%s) activation(none) {tile = array<i64: 1, 320, 320>} : memref<1x64xf32>, memref<128x64xf32>, memref<1x128xf32>
  htile.output "s", %s : memref<1x128xf32>
  return
}

// -----

// Tests that a product whose epilogue masks it already (a bias added to the
// row's lanes) gets no mask of its own.
// CHECK-LABEL: func.func @keys_with_bias()
// CHECK-COUNT-16: hisa.load_weights %{{.*}} plane {{[0-3]}} column {{[0-9]+}} buffered repeat <8 every 1 step 2>
// CHECK: %[[P:.*]] = hisa.matmul
// CHECK-NEXT: %[[B:.*]] = hisa.read 600{{$}}
// CHECK-NEXT: %[[S:.*]] = hisa.vbinary add %[[P]], %[[B]] lanes 128{{$}}
// CHECK-NEXT: hisa.write %[[S]] to 512{{$}}
// CHECK-NOT: hisa.vbinary max
func.func @keys_with_bias() {
  %q = htile.input "q" {address = 0 : i64} : memref<1x64xf32>
  %k = htile.input "k" {address = 16 : i64} : memref<128x64xf32>
  %b = htile.input "b" {address = 600 : i64} : memref<128xf32>
  %s = htile.alloc {address = 512 : i64} : memref<1x128xf32>
  htile.matmul ins(%q, %k) transposed bias(%b : memref<128xf32>) outs(%s) activation(none) {tile = array<i64: 1, 320, 320>} : memref<1x64xf32>, memref<128x64xf32>, memref<1x128xf32>
  htile.output "s", %s : memref<1x128xf32>
  return
}
