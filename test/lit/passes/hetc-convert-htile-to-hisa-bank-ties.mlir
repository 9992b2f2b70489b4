// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-htile-to-hisa | FileCheck %s
// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-htile-to-hisa --hetc-hisa-schedule | FileCheck %s --check-prefix=SCHED

// Tests that two operands of one vector instruction, read from one bank of
// one slice (addresses 0 and 2 of test-chip: slice 0, bank 0), are not
// read in the same cycle: their reads would meet at the vector unit in
// the same cycle and need the bank's one port twice. The second passes
// through a V_CAST to its own type, which reads it earlier; operands in
// different banks (addresses 0 and 1) are read as they are.
// CHECK-LABEL: func.func @same_bank()
// CHECK: %[[X:.*]] = hisa.read 0
// CHECK-NEXT: %[[Y:.*]] = hisa.read 2
// CHECK-NEXT: %[[C:.*]] = hisa.vcast %[[Y]] from f32 to f32 lanes 16
// CHECK-NEXT: hisa.vbinary add %[[X]], %[[C]] lanes 8
// SCHED-LABEL: func.func @same_bank()
// SCHED: hisa.vbinary add
func.func @same_bank() {
  %x = htile.input "x" {address = 0 : i64} : memref<1x8xf32>
  %y = htile.input "y" {address = 2 : i64} : memref<1x8xf32>
  %z = htile.alloc {address = 512 : i64} : memref<1x8xf32>
  htile.binary add ins(%x, %y) outs(%z) : memref<1x8xf32>, memref<1x8xf32>, memref<1x8xf32>
  htile.output "z", %z : memref<1x8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @other_bank()
// CHECK: %[[X:.*]] = hisa.read 0
// CHECK-NEXT: %[[Y:.*]] = hisa.read 1
// CHECK-NEXT: hisa.vbinary add %[[X]], %[[Y]] lanes 8
func.func @other_bank() {
  %x = htile.input "x" {address = 0 : i64} : memref<1x8xf32>
  %y = htile.input "y" {address = 1 : i64} : memref<1x8xf32>
  %z = htile.alloc {address = 512 : i64} : memref<1x8xf32>
  htile.binary add ins(%x, %y) outs(%z) : memref<1x8xf32>, memref<1x8xf32>, memref<1x8xf32>
  htile.output "z", %z : memref<1x8xf32>
  return
}
