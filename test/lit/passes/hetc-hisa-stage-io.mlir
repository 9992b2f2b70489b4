// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-set-chip=file=%chips/test-chip.chip --hetc-hisa-stage-io --hetc-hisa-schedule | FileCheck %s

// Tests staging on test-chip (2 DMA engines, 4 cycles per vector, latency
// 20): each input vector comes in by DMA_IN, engines in turn, and the reads
// wait until it stored (20); each output vector leaves by DMA_OUT once its
// write stored (30 + 1), and the program ends when that lands (31 + 20).
// CHECK-LABEL: func.func @main()
// CHECK-SAME: hetc.predicted_cycles = 51 : i64
// CHECK: hisa.input "x" at 0 host 0 : tensor<2x16xf32>
// CHECK: hisa.output "y" at 1024 host 2 : tensor<2x16xf32>
// CHECK: hisa.dma_in host 0 to 0 engine 0 at 0
// CHECK-NEXT: hisa.dma_in host 1 to 1 engine 1 at 0
// CHECK-NEXT: hisa.read 0 at 20
// CHECK: hisa.write %{{.*}} to 1024 at 30
// CHECK: hisa.write %{{.*}} to 1025 at 30
// CHECK-NEXT: hisa.dma_out 1024 to host 2 engine 0 at 31
// CHECK-NEXT: hisa.dma_out 1025 to host 3 engine 1 at 31
func.func @main() {
  hisa.input "x" at 0 : tensor<2x16xf32>
  hisa.output "y" at 1024 : tensor<2x16xf32>
  %0 = hisa.read 0
  %1 = hisa.vunary relu %0 lanes 16
  hisa.write %1 to 1024
  %2 = hisa.read 1
  %3 = hisa.vunary relu %2 lanes 16
  hisa.write %3 to 1025
  return
}

// -----

// Tests that an engine moves one vector at a time, in program order: the
// third vector waits for engine 0 (0 + 4 cycles), and so does the program's
// own DMA_IN after it (8). Bindings that already have a host address keep
// it and get no transfers; new host addresses follow the highest taken
// (output y ends at 21).
// CHECK-LABEL: func.func @engines()
// CHECK: hisa.input "a" at 0 host 5 : tensor<1x16xf32>
// CHECK: hisa.input "b" at 2 host 21 : tensor<3x16xf32>
// CHECK: hisa.dma_in host 21 to 2 engine 0 at 0
// CHECK-NEXT: hisa.dma_in host 22 to 3 engine 1 at 0
// CHECK-NEXT: hisa.dma_in host 23 to 4 engine 0 at 4
// CHECK-NEXT: hisa.dma_in host 5 to 0 engine 0 at 8
// CHECK: hisa.dma_out 2048 to host 20 engine 1 at 38
// CHECK-NOT: hisa.dma_out
func.func @engines() {
  hisa.input "a" at 0 host 5 : tensor<1x16xf32>
  hisa.input "b" at 2 : tensor<3x16xf32>
  hisa.output "y" at 2048 host 20 : tensor<1x16xf32>
  hisa.dma_in host 5 to 0 engine 0
  %0 = hisa.read 3
  %1 = hisa.read 0
  %2 = hisa.vbinary add %0, %1 lanes 16
  hisa.write %2 to 2048
  hisa.dma_out 2048 to host 20 engine 1
  return
}

// -----

// Tests that a DMA engine the chip does not have is refused.
func.func @no_engine() {
  hisa.input "a" at 0 host 0 : tensor<1x16xf32>
  // expected-error @+1 {{DMA engine 2 does not exist (chip 'test-chip' has 2)}}
  hisa.dma_in host 0 to 0 engine 2
  return
}
