// One matrix of a batch of keys read in place (tools/run-row-view.test):
// y = q by the transposed rows 3 to 5 of k, [4, 3, 8] held as 12 rows of
// 8, and z = q by the transposed rows 1 and 2 of those (rows of a view of
// rows: rows 4 and 5 of k). Unplaced htile: hetc compile places and
// schedules it.
func.func @main() {
  %k = htile.input "k" : memref<4x3x8xf32>
  %q = htile.input "q" : memref<1x8xf32>
  %keys = htile.view %k rows 3 : memref<4x3x8xf32> to memref<3x8xf32>
  %y = htile.alloc : memref<1x3xf32>
  htile.matmul ins(%q, %keys) transposed outs(%y) activation(none) {tile = array<i64: 1, 16, 16>} : memref<1x8xf32>, memref<3x8xf32>, memref<1x3xf32>
  %sub = htile.view %keys rows 1 : memref<3x8xf32> to memref<2x8xf32>
  %z = htile.alloc : memref<1x2xf32>
  htile.matmul ins(%q, %sub) transposed outs(%z) activation(none) {tile = array<i64: 1, 16, 16>} : memref<1x8xf32>, memref<2x8xf32>, memref<1x2xf32>
  htile.output "y", %y : memref<1x3xf32>
  htile.output "z", %z : memref<1x2xf32>
  return
}
