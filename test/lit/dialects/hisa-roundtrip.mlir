// RUN: hetc-opt %s | hetc-opt | FileCheck %s

// Tests that every hisa op prints and parses back, scheduled or not.
// CHECK-LABEL: func.func @main
func.func @main() {
  // CHECK: hisa.input "x" at 0 : tensor<1x16xf32>
  hisa.input "x" at 0 : tensor<1x16xf32>
  // CHECK: hisa.output "y" at 1 : tensor<1x16xf32>
  hisa.output "y" at 1 : tensor<1x16xf32>
  // CHECK: hisa.constant at 2 dense<1.000000e+00> : tensor<16xf32>
  hisa.constant at 2 dense<1.0> : tensor<16xf32>
  // CHECK: %[[X:.*]] = hisa.read 0 at 3 on <east, 0>
  %0 = hisa.read 0 at 3 on <east, 0>
  // CHECK: %[[C:.*]] = hisa.read 2{{$}}
  %1 = hisa.read 2
  // CHECK: hisa.vbinary add %[[X]], %[[C]] lanes 16 at 7 on <west, 4>
  %2 = hisa.vbinary add %0, %1 lanes 16 at 7 on <west, 4>
  // CHECK: hisa.vunary sigmoid
  %3 = hisa.vunary sigmoid %2 lanes 16
  // CHECK: hisa.vreduce max %{{.*}} lanes 10
  %4 = hisa.vreduce max %3 lanes 10
  // CHECK: hisa.load_weights %{{.*}} plane 1 row 3 at 9
  hisa.load_weights %4 plane 1 row 3 at 9
  %7 = hisa.read 2
  // CHECK: hisa.load_weights %{{.*}} plane 0 column 15
  hisa.load_weights %7 plane 0 column 15
  %5 = hisa.read 2
  // CHECK: hisa.matmul %{{.*}} plane 1 on <east, 8>
  %6 = hisa.matmul %5 plane 1 on <east, 8>
  // CHECK: hisa.write %{{.*}} to 1 at 20
  hisa.write %6 to 1 at 20
  %8 = hisa.read 0
  // CHECK: %[[P:.*]] = hisa.permute %{{.*}} switch 0 map [3, 2, -1, 0] at 5 on <west, 4>
  %9 = hisa.permute %8 switch 0 map [3, 2, -1, 0] at 5 on <west, 4>
  %10 = hisa.read 2
  // CHECK: hisa.permute %{{.*}} into %[[P]] switch 1 map [-1, -1, 15, -1]{{$}}
  %11 = hisa.permute %10 into %9 switch 1 map [-1, -1, 15, -1]
  hisa.write %11 to 1
  return
}

// Tests the DMA instructions and staged bindings.
// CHECK-LABEL: func.func @dma
func.func @dma() {
  // CHECK: hisa.input "x" at 0 host 4 : tensor<1x16xf32>
  hisa.input "x" at 0 host 4 : tensor<1x16xf32>
  // CHECK: hisa.dma_in host 4 to 0 engine 1 at 3
  hisa.dma_in host 4 to 0 engine 1 at 3
  // CHECK: hisa.dma_out 0 to host 9 engine 0{{$}}
  hisa.dma_out 0 to host 9 engine 0
  return
}

// Tests the chip-to-chip instructions.
// CHECK-LABEL: func.func @c2c
func.func @c2c() {
  %0 = hisa.read 0
  // CHECK: hisa.c2c_send %{{.*}} link 1 at 14
  hisa.c2c_send %0 link 1 at 14
  // CHECK: hisa.c2c_recv link 1 at 620 on <east, 4>
  %1 = hisa.c2c_recv link 1 at 620 on <east, 4>
  hisa.write %1 to 3
  return
}
