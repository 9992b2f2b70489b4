// RUN: hetc-opt %s --hetc-set-chip=file=%chips/tsp-v1.chip --hetc-convert-hgraph-to-htile | grep -o "first_row [0-9]*\|htile.gather ins" | FileCheck %s

// Tests that a move whose index map is longer than one gather's (1048576
// entries) is split into gathers that fill bands of whole rows: 1100 rows
// of 1024 elements are a band of 1024 rows and one of the 76 left.
// CHECK: htile.gather ins
// CHECK-NEXT: first_row 0
// CHECK-NEXT: htile.gather ins
// CHECK-NEXT: first_row 1024
// CHECK-NOT: htile.gather
func.func @main(%x: tensor<1x1024xf32>) -> tensor<1100x1024xf32> {
  %0 = hgraph.tile %x {repeats = array<i64: 1100, 1>} : tensor<1x1024xf32> -> tensor<1100x1024xf32>
  return %0 : tensor<1100x1024xf32>
}
