// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-set-chip=file=%chips/test-chip.chip --hetc-hisa-schedule | FileCheck %s

// Tests a vector sent over C2C link 0 and received back on test-chip (link 0
// on switch 0 at position 1; 4 cycles per vector, arrival 10 cycles after
// the send, a receive emits after 2): the read of slice 0 reaches the switch
// at 2, the receive issues when the vector arrives (12), and its value
// reaches slice 1 at 16. The chip model's unit test of the same program
// (test/unit/runtime/C2cTest.cpp) simulates these cycles.
// CHECK-LABEL: func.func @loopback()
// CHECK-SAME: hetc.predicted_cycles = 17 : i64
// CHECK: hisa.read 0 at 0 on <west, 0>
// CHECK-NEXT: hisa.c2c_send %{{.*}} link 0 at 2
// CHECK-NEXT: hisa.c2c_recv link 0 at 12 on <east, 0>
// CHECK-NEXT: hisa.write %{{.*}} to 1024 at 16
func.func @loopback() {
  hisa.input "x" at 0 : tensor<1x16xf32>
  hisa.output "y" at 1024 : tensor<1x16xf32>
  %0 = hisa.read 0
  hisa.c2c_send %0 link 0
  %1 = hisa.c2c_recv link 0
  hisa.write %1 to 1024
  return
}

// -----

// Tests that a link sends one vector per 4 cycles and that the k-th receive
// takes the k-th vector, 10 cycles after its send.
// CHECK-LABEL: func.func @fifo()
// CHECK: hisa.c2c_send %{{.*}} link 1 at [[#S0:]]
// CHECK: hisa.c2c_send %{{.*}} link 1 at [[#S0+4]]
// CHECK: hisa.c2c_recv link 1 at [[#S0+10]]
// CHECK: hisa.c2c_recv link 1 at [[#S0+14]]
func.func @fifo() {
  hisa.input "x" at 0 : tensor<2x16xf32>
  hisa.output "y" at 1024 : tensor<2x16xf32>
  %0 = hisa.read 0
  hisa.c2c_send %0 link 1
  %1 = hisa.read 1
  hisa.c2c_send %1 link 1
  %2 = hisa.c2c_recv link 1
  hisa.write %2 to 1024
  %3 = hisa.c2c_recv link 1
  hisa.write %3 to 1025
  return
}

// -----

// Tests that a link the chip does not have is refused.
func.func @no_link() {
  %0 = hisa.read 0
  // expected-error @+1 {{C2C link 2 does not exist (chip 'test-chip' has 2)}}
  hisa.c2c_send %0 link 2
  return
}
