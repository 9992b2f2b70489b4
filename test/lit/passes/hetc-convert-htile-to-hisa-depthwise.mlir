// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-htile-to-hisa | FileCheck %s
// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-htile-to-hisa --hetc-hisa-schedule | FileCheck %s --check-prefix=SCHED

// Tests a channels-last depthwise convolution of a 2x2 map of 16 channels
// (a vector a position) by a 3x3 window padded by one: output position
// (0, 0) meets the input at kernel elements 4, 5, 7 and 8 (input rows 0,
// 1, 2, 3), whose products (input row times weight row, from the copy of
// position 0) are summed in kernel order, then the bias row, and one
// write. Position 1 reads the second copy of the weight (address 3072).
// The buffers lie in different slices (1,024 vectors each on test-chip),
// so no read ties another.
// CHECK-LABEL: func.func @depthwise()
// CHECK: %[[W4:.*]] = hisa.read 2052
// CHECK-NEXT: %[[X0:.*]] = hisa.read 0
// CHECK-NEXT: %[[P4:.*]] = hisa.vbinary mul %[[X0]], %[[W4]] lanes 16
// CHECK-NEXT: %[[W5:.*]] = hisa.read 2053
// CHECK-NEXT: %[[X1:.*]] = hisa.read 1
// CHECK-NEXT: %[[P5:.*]] = hisa.vbinary mul %[[X1]], %[[W5]] lanes 16
// CHECK-NEXT: %[[S5:.*]] = hisa.vbinary add %[[P4]], %[[P5]] lanes 16
// CHECK-NEXT: %[[W7:.*]] = hisa.read 2055
// CHECK-NEXT: %[[X2:.*]] = hisa.read 2
// CHECK-NEXT: %[[P7:.*]] = hisa.vbinary mul %[[X2]], %[[W7]] lanes 16
// CHECK-NEXT: %[[S7:.*]] = hisa.vbinary add %[[S5]], %[[P7]] lanes 16
// CHECK-NEXT: %[[W8:.*]] = hisa.read 2056
// CHECK-NEXT: %[[X3:.*]] = hisa.read 3
// CHECK-NEXT: %[[P8:.*]] = hisa.vbinary mul %[[X3]], %[[W8]] lanes 16
// CHECK-NEXT: %[[S8:.*]] = hisa.vbinary add %[[S7]], %[[P8]] lanes 16
// CHECK-NEXT: %[[B:.*]] = hisa.read 4096
// CHECK-NEXT: %[[Y:.*]] = hisa.vbinary add %[[S8]], %[[B]] lanes 16
// CHECK-NEXT: hisa.write %[[Y]] to 6144
// CHECK-NEXT: hisa.read 3075
// CHECK-NEXT: hisa.read 0
// CHECK-NOT: hisa.vcast
// CHECK: hisa.write %{{.*}} to 6147
// SCHED-LABEL: func.func @depthwise()
// SCHED: hisa.write
func.func @depthwise() {
  %x = htile.input "x" {address = 0 : i64} : memref<2x2x16xf32>
  %w0 = htile.constant dense<0.5> : tensor<3x3x16xf32> {address = 2048 : i64} : memref<3x3x16xf32>
  %w1 = htile.constant dense<0.5> : tensor<3x3x16xf32> {address = 3072 : i64} : memref<3x3x16xf32>
  %b = htile.constant dense<1.0> : tensor<16xf32> {address = 4096 : i64} : memref<16xf32>
  %y = htile.alloc {address = 6144 : i64} : memref<2x2x16xf32>
  htile.depthwise_conv ins(%x, [%w0, %w1], %b) outs(%y) {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : memref<2x2x16xf32>, [memref<3x3x16xf32>, memref<3x3x16xf32>], memref<16xf32> -> memref<2x2x16xf32>
  htile.output "y", %y : memref<2x2x16xf32>
  return
}

// -----

// Tests reads that would tie (test-chip's banks alternate by address).
// With the weight in the input's slice (rows 8 on), input row 0 and weight
// row 12 (kernel element 4) share bank 0, so the weight passes through a
// V_CAST to its own type and is read a vector-op latency before the input;
// so do row 1 and row 13. At position 1 the first product reads rows 0
// and 11 (banks 0 and 1), and the second rows 1 and 12 (banks 1 and 0):
// both products meet at the first sum, so their reads would issue
// together and two of them need bank 0. The second product passes through
// a V_CAST instead, and its reads come a latency earlier. The schedule
// exists.
// CHECK-LABEL: func.func @depthwise_bank_ties()
// CHECK: %[[W4:.*]] = hisa.read 12
// CHECK-NEXT: %[[C4:.*]] = hisa.vcast %[[W4]] from f32 to f32 lanes 16
// CHECK-NEXT: %[[X0:.*]] = hisa.read 0
// CHECK-NEXT: %[[P4:.*]] = hisa.vbinary mul %[[X0]], %[[C4]] lanes 16
// CHECK-NEXT: %[[W5:.*]] = hisa.read 13
// CHECK-NEXT: %[[C5:.*]] = hisa.vcast %[[W5]] from f32 to f32 lanes 16
// CHECK-NEXT: %[[X1:.*]] = hisa.read 1
// CHECK-NEXT: %[[P5:.*]] = hisa.vbinary mul %[[X1]], %[[C5]] lanes 16
// CHECK-NEXT: hisa.vbinary add %[[P4]], %[[P5]] lanes 16
// CHECK: hisa.write %{{.*}} to 6144
// CHECK-NEXT: %[[V3:.*]] = hisa.read 11
// CHECK-NEXT: %[[Y0:.*]] = hisa.read 0
// CHECK-NEXT: %[[Q3:.*]] = hisa.vbinary mul %[[Y0]], %[[V3]] lanes 16
// CHECK-NEXT: %[[V4:.*]] = hisa.read 12
// CHECK-NEXT: %[[Y1:.*]] = hisa.read 1
// CHECK-NEXT: %[[Q4:.*]] = hisa.vbinary mul %[[Y1]], %[[V4]] lanes 16
// CHECK-NEXT: %[[D4:.*]] = hisa.vcast %[[Q4]] from f32 to f32 lanes 16
// CHECK-NEXT: hisa.vbinary add %[[Q3]], %[[D4]] lanes 16
// SCHED-LABEL: func.func @depthwise_bank_ties()
// SCHED: hisa.write
func.func @depthwise_bank_ties() {
  %x = htile.input "x" {address = 0 : i64} : memref<2x2x16xf32>
  %w = htile.constant dense<0.5> : tensor<3x3x16xf32> {address = 8 : i64} : memref<3x3x16xf32>
  %y = htile.alloc {address = 6144 : i64} : memref<2x2x16xf32>
  htile.depthwise_conv ins(%x, [%w]) outs(%y) {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : memref<2x2x16xf32>, [memref<3x3x16xf32>] -> memref<2x2x16xf32>
  htile.output "y", %y : memref<2x2x16xf32>
  return
}
