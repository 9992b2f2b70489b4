// RUN: hetc-opt %s --hetc-set-chip=file=%chips/tsp-v1.chip --hetc-htile-plan-memory | FileCheck %s

// Tests that small intermediates lie in the MEM slices within two hops of
// the vector unit (on tsp-v1 slices 42 to 45: tsp-v1 interleaves its
// addresses over the slices in runs of 64 vectors, so runs 42 to 45,
// addresses 2688 to 2943, and every 88th run after them), round-robin
// among them, with the operands of one kernel in different slices; inputs,
// constants and large intermediates keep the round-robin from slice 0. A chain of small elementwise kernels (a decode
// step's layer norm) otherwise crosses half the chip at every step.
// CHECK-LABEL: func.func @main()
func.func @main() {
  // CHECK: htile.input "x" {address = 128 : i64}
  %x = htile.input "x" : memref<1x256xf32>
  // CHECK: htile.input "z" {address = 0 : i64}
  %z = htile.input "z" : memref<64x256xf32>
  // CHECK: htile.alloc {address = 2688 : i64} : memref<1x256xf32>
  %a = htile.alloc : memref<1x256xf32>
  htile.unary relu ins(%x) outs(%a) : memref<1x256xf32>, memref<1x256xf32>
  // CHECK: htile.alloc {address = 2752 : i64} : memref<1x256xf32>
  %b = htile.alloc : memref<1x256xf32>
  htile.binary add ins(%a, %x) outs(%b) : memref<1x256xf32>, memref<1x256xf32>, memref<1x256xf32>
  // 64 vectors: a thirty-second of a slice, too large to be drawn in.
  // CHECK: htile.alloc {address = 64 : i64} : memref<64x256xf32>
  %c = htile.alloc : memref<64x256xf32>
  htile.binary add ins(%b, %z) outs(%c) : memref<1x256xf32>, memref<64x256xf32>, memref<64x256xf32>
  htile.output "y", %c : memref<64x256xf32>
  return
}
