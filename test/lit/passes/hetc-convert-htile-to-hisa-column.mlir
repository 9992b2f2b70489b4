// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-htile-to-hisa | FileCheck %s
// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-htile-to-hisa --hetc-hisa-schedule | FileCheck %s --check-prefix=SCHED

// Tests a packed column of 20 rows in two copies (test-chip's vectors are
// 16 lanes: a copy takes 2, the first at 2048, the second at 2050) spread
// over rows of 16: row r reads copy r mod 2, its vector r / 16, and
// spreads lane r mod 16 of it; rows 16 to 19 read the copies' second
// vectors.
// CHECK-LABEL: func.func @column
// CHECK: %[[X0:.*]] = hisa.read 0
// CHECK-NEXT: %[[C0:.*]] = hisa.read 2048
// CHECK-NEXT: %[[S0:.*]] = hisa.vbroadcast %[[C0]] lane 0
// CHECK-NEXT: %[[P0:.*]] = hisa.vbinary mul %[[X0]], %[[S0]] lanes 16
// CHECK-NEXT: hisa.write %[[P0]] to 4096
// CHECK-NEXT: hisa.read 1
// CHECK-NEXT: %[[C1:.*]] = hisa.read 2050
// CHECK-NEXT: hisa.vbroadcast %[[C1]] lane 1
// CHECK: hisa.read 2048
// CHECK-NEXT: hisa.vbroadcast %{{.*}} lane 2
// CHECK: hisa.read 2049
// CHECK-NEXT: hisa.vbroadcast %{{.*}} lane 0
// CHECK: hisa.read 2051
// CHECK-NEXT: hisa.vbroadcast %{{.*}} lane 1
// CHECK: hisa.read 2049
// CHECK-NEXT: hisa.vbroadcast %{{.*}} lane 2
// CHECK: hisa.read 2051
// CHECK-NEXT: hisa.vbroadcast %{{.*}} lane 3
// CHECK-NOT: hisa.vreduce
// SCHED-LABEL: func.func @column
// SCHED: hisa.vbroadcast %{{.*}} lane 3 at {{[0-9]+}}
func.func @column() {
  %x = htile.input "x" {address = 0 : i64} : memref<1x20x16xf32>
  %c = htile.constant dense<1.5> : tensor<2x20xf32> {address = 2048 : i64} : memref<2x20xf32>
  %y = htile.alloc {address = 4096 : i64} : memref<1x20x16xf32>
  htile.binary mul ins(%x, %c) column(rhs) outs(%y) : memref<1x20x16xf32>, memref<2x20xf32>, memref<1x20x16xf32>
  htile.output "y", %y : memref<1x20x16xf32>
  return
}
