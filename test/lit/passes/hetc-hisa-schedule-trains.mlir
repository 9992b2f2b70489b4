// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-set-chip=file=%chips/test-chip.chip --hetc-hisa-schedule | FileCheck %s

// Tests the timing of trains on test-chip (plane 0 at position 0, slice 1
// at 3, slice 2 at 4; read latency 1, weight load 1, matmul 4; rows
// alternate between a slice's two banks). A read train of rows 1024, 1026,
// 1028 and 1030 (bank 0 of slice 1) issues at 0 to 3, and the load train
// takes each row three hops west, at 4 to 7, on the train's one stream
// group. A read of bank 0 waits for the train's last issue; the matmul
// waits for the last row installed (7 + 1) and the write for its product.
// CHECK-LABEL: func.func @train()
// CHECK-SAME: hetc.instructions = 5 : i64
// CHECK-SAME: hetc.predicted_cycles = 17 : i64
// CHECK: %[[W:.*]] = hisa.read 1024 repeat <4 every 1 step 2> at 0 on <west, 0>
// CHECK-NEXT: hisa.load_weights %[[W]] plane 0 row 0 repeat <4 every 1 step 1> at 4
// CHECK-NEXT: %[[X:.*]] = hisa.read 1032 at 4 on <west, {{[0-9]+}}>
// CHECK-NEXT: %[[P:.*]] = hisa.matmul %[[X]] plane 0 at 8 on <east, {{[0-9]+}}>
// CHECK-NEXT: hisa.write %[[P]] to 2048 at 16
func.func @train() {
  hisa.input "x" at 1024 : tensor<9x16xf32>
  hisa.output "y" at 2048 : tensor<1x16xf32>
  %0 = hisa.read 1024 repeat <4 every 1 step 2>
  hisa.load_weights %0 plane 0 row 0 repeat <4 every 1 step 1>
  %1 = hisa.read 1032
  %2 = hisa.matmul %1 plane 0
  hisa.write %2 to 2048
  return
}

// -----

// Tests that a train stays in one bank: the scheduler holds one bank for
// all of its issues.
func.func @train_across_banks() {
  hisa.input "x" at 1024 : tensor<4x16xf32>
  // expected-error @+1 {{issue 2 of the train reads row 1025 in slice 1 bank 1, but a train stays in its first issue's slice 1 and bank 0}}
  %0 = hisa.read 1024 repeat <4 every 1 step 1>
  hisa.load_weights %0 plane 0 row 0 repeat <4 every 1 step 1>
  return
}

// -----

// Tests that a write train stays in one bank too.
func.func @write_train_across_banks() {
  hisa.input "x" at 1024 : tensor<8x16xf32>
  %0 = hisa.read 1024 repeat <4 every 1 step 2>
  // expected-error @+1 {{issue 2 of the train writes row 2049 in slice 2 bank 1, but a train stays in its first issue's slice 2 and bank 0}}
  hisa.write %0 to 2048 repeat <4 every 1 step 1>
  return
}

// -----

// Tests that a load train installs rows of the plane only.
func.func @train_past_the_plane() {
  hisa.input "x" at 1024 : tensor<8x16xf32>
  %0 = hisa.read 1024 repeat <4 every 1 step 2>
  // expected-error @+1 {{the train's last issue installs row 17, but a plane of chip 'test-chip' has 16}}
  hisa.load_weights %0 plane 0 row 14 repeat <4 every 1 step 1>
  return
}
