// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-set-chip=file=%chips/test-chip.chip --hetc-hisa-schedule | FileCheck %s

// Tests the weight buffer on test-chip (plane 0 at position 0, slice 1 at
// 3, slice 2 at 4; read latency 1, weight load 1, matmul 4, one load a
// cycle): tile A goes into the buffer and is installed at 6, once its two
// rows have stored; A's matmul follows the install's latency, at 7. Tile
// B's rows go into the buffer while the plane multiplies by A (the loads
// only wait for A's install), and B's install waits for A's matmul and
// its own rows; B's matmul follows it.
// CHECK-LABEL: func.func @overlap()
// CHECK: hisa.load_weights %{{.*}} plane 0 row 0 buffered at 4
// CHECK-NEXT: hisa.read 1026
// CHECK-NEXT: hisa.load_weights %{{.*}} plane 0 row 1 buffered at 5
// CHECK-NEXT: hisa.install_weights plane 0 at 6
// CHECK-NEXT: %[[X:.*]] = hisa.read 2048 at {{[0-9]+}}
// CHECK-NEXT: %[[P:.*]] = hisa.matmul %[[X]] plane 0 at 7
// CHECK: hisa.load_weights %{{.*}} plane 0 row 0 buffered at 7
// CHECK: hisa.load_weights %{{.*}} plane 0 row 1 buffered at 8
// CHECK-NEXT: hisa.install_weights plane 0 at 9
// CHECK-NEXT: %[[X2:.*]] = hisa.read 2049 at {{[0-9]+}}
// CHECK-NEXT: hisa.matmul %[[X2]] plane 0 at 10
func.func @overlap() {
  hisa.input "w" at 1024 : tensor<8x16xf32>
  hisa.input "x" at 2048 : tensor<2x16xf32>
  hisa.output "y" at 3072 : tensor<2x16xf32>
  %a0 = hisa.read 1024
  hisa.load_weights %a0 plane 0 row 0 buffered
  %a1 = hisa.read 1026
  hisa.load_weights %a1 plane 0 row 1 buffered
  hisa.install_weights plane 0
  %x = hisa.read 2048
  %p = hisa.matmul %x plane 0
  hisa.write %p to 3072
  %b0 = hisa.read 1028
  hisa.load_weights %b0 plane 0 row 0 buffered
  %b1 = hisa.read 1030
  hisa.load_weights %b1 plane 0 row 1 buffered
  hisa.install_weights plane 0
  %x2 = hisa.read 2049
  %q = hisa.matmul %x2 plane 0
  hisa.write %q to 3073
  return
}
