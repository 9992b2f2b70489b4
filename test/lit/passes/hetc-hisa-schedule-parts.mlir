// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-set-chip=file=%chips/test-chip.chip --hetc-hisa-schedule | FileCheck %s

// Tests the timing of reads and loads of two parts on test-chip (plane 0
// at position 0, slice 1 at 3; read latency 1, weight load 1, matmul 4,
// one weight load a cycle): each read takes one access of its bank and
// one stream group for both f16 vectors of its row, each load one of the
// plane's install slots for both rows, so four rows go in over cycles 4
// and 5, and the matmul follows at 6.
// CHECK-LABEL: func.func @pairs()
// CHECK-SAME: hetc.instructions = 7 : i64
// CHECK: %[[A:.*]] = hisa.read 1024 parts 2 as f16 at 0 on <west, 0>
// CHECK-NEXT: hisa.load_weights %[[A]] plane 0 row 0 parts 2 as f16 at 4
// CHECK-NEXT: %[[B:.*]] = hisa.read 1026 parts 2 as f16 at 1 on <west, 0>
// CHECK-NEXT: hisa.load_weights %[[B]] plane 0 row 2 parts 2 as f16 at 5
// CHECK-NEXT: %[[X:.*]] = hisa.read 1028 as f16 at {{[0-9]+}} on <west, {{[0-9]+}}>
// CHECK-NEXT: hisa.matmul %[[X]] plane 0 as f16 at 6
func.func @pairs() {
  hisa.input "w" at 1024 : tensor<4x32xf16>
  hisa.input "x" at 1028 : tensor<1x16xf16>
  hisa.output "y" at 2048 : tensor<1x16xf32>
  %0 = hisa.read 1024 parts 2 as f16
  hisa.load_weights %0 plane 0 row 0 parts 2 as f16
  %1 = hisa.read 1026 parts 2 as f16
  hisa.load_weights %1 plane 0 row 2 parts 2 as f16
  %2 = hisa.read 1028 as f16
  %3 = hisa.matmul %2 plane 0 as f16
  hisa.write %3 to 2048
  return
}

// -----

// Tests that a load's parts install rows of the plane only.
func.func @parts_past_the_plane() {
  hisa.input "w" at 1024 : tensor<2x64xi8>
  %0 = hisa.read 1024 parts 4 as i8
  // expected-error @+1 {{its last part installs row 17, but a plane of chip 'test-chip' has 16}}
  hisa.load_weights %0 plane 0 row 14 parts 4 as i8
  return
}
