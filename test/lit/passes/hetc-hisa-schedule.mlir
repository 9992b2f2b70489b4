// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-set-chip=file=%chips/test-chip.chip --hetc-hisa-schedule | FileCheck %s

// Tests exact stream timing on test-chip. Floorplan positions: slice 0 at 2,
// slice 1 at 3, slice 2 at 4, the vector unit at 6; 1024 vectors per slice;
// latencies: read 1, write 1, vector op 2.
//   read 0 at 0 arrives at the vector unit at 0 + 1 + 4 hops = 5;
//   relu emits at 7 and reaches slice 1 (3 hops west) at 10;
//   the read of 1024 waits for that write to store (10 + 1 = 11);
//   the second read of 0 (one hop further) issues at 10 to arrive with it;
//   the two values share a phase and overlap, so they take two groups.
// CHECK-LABEL: func.func @main()
// CHECK-SAME: hetc.instructions = 7 : i64
// CHECK-SAME: hetc.lower_bound = 20 : i64
// CHECK-SAME: hetc.predicted_cycles = 20 : i64
func.func @main() {
  hisa.input "x" at 0 : tensor<1x16xf32>
  hisa.output "y" at 2048 : tensor<1x16xf32>
  // CHECK: %[[R:.*]] = hisa.read 0 at 0 on <east, 0>
  // CHECK-NEXT: %[[U:.*]] = hisa.vunary relu %[[R]] lanes 16 at 5 on <west, 0>
  // CHECK-NEXT: hisa.write %[[U]] to 1024 at 10
  // CHECK-NEXT: %[[A:.*]] = hisa.read 1024 at 11 on <east, 4>
  // CHECK-NEXT: %[[B:.*]] = hisa.read 0 at 10 on <east, 0>
  // CHECK-NEXT: %[[S:.*]] = hisa.vbinary add %[[A]], %[[B]] lanes 16 at 15 on <west, 0>
  // CHECK-NEXT: hisa.write %[[S]] to 2048 at 19
  %0 = hisa.read 0
  %1 = hisa.vunary relu %0 lanes 16
  hisa.write %1 to 1024
  %2 = hisa.read 1024
  %3 = hisa.read 0
  %4 = hisa.vbinary add %2, %3 lanes 16
  hisa.write %4 to 2048
  return
}

// -----

// Tests that a weight tile is installed before the matmul that uses it
// (load latency 1, matmul latency 4; plane 0 at position 0, slice 0 at 2),
// and that the next tile's load waits until the matmul has issued.
// CHECK-LABEL: func.func @weights()
func.func @weights() {
  hisa.input "x" at 0 : tensor<2x16xf32>
  hisa.output "y" at 1024 : tensor<2x16xf32>
  // CHECK: hisa.read 2 at 0 on <west, 0>
  // CHECK-NEXT: hisa.load_weights %{{.*}} plane 0 row 0 at 3
  // CHECK-NEXT: hisa.read 0 at 1 on <west, 0>
  // CHECK-NEXT: hisa.matmul %{{.*}} plane 0 at 4 on <east, 0>
  // CHECK-NEXT: hisa.write %{{.*}} to 1024 at 11
  // CHECK-NEXT: hisa.read 3 at 2 on <west, 0>
  // CHECK-NEXT: hisa.load_weights %{{.*}} plane 0 row 0 at 5
  %0 = hisa.read 2
  hisa.load_weights %0 plane 0 row 0
  %1 = hisa.read 0
  %2 = hisa.matmul %1 plane 0
  hisa.write %2 to 1024
  %3 = hisa.read 3
  hisa.load_weights %3 plane 0 row 0
  %4 = hisa.read 1
  %5 = hisa.matmul %4 plane 0
  hisa.write %5 to 1025
  return
}

// -----

// Tests that an address outside SRAM is reported at the instruction.
func.func @outside() {
  // expected-error @+1 {{address 9000 is outside SRAM (chip 'test-chip' has 8192 vectors)}}
  %0 = hisa.read 9000
  hisa.write %0 to 0
  return
}

// -----

// Tests that a vector nobody reads is reported.
func.func @dead() {
  // expected-error @+1 {{emits a vector that no instruction reads}}
  %0 = hisa.read 0
  return
}

// -----

// Tests that two operands that must be read from one bank in the same cycle
// make the schedule impossible, with the reason.
func.func @conflict() {
  // expected-error @+1 {{cannot schedule: ops 'hisa.read#0', 'hisa.read#1' must issue in the same cycle}}
  %0 = hisa.read 0
  %1 = hisa.read 2
  %2 = hisa.vbinary add %0, %1 lanes 16
  hisa.write %2 to 4
  return
}

// -----

// Tests that permutes issue on their switch unit (switch 0 at position 1,
// latency 2): the read of 0 at 0 reaches the switch at 2; the second
// permute reads the first one's value where it was emitted, at 4, together
// with the second read; its result reaches slice 0 (position 2) at 7.
// CHECK-LABEL: func.func @permute()
// CHECK-SAME: hetc.predicted_cycles = 8 : i64
// CHECK: %[[R0:.*]] = hisa.read 0 at 0 on <west, 0>
// CHECK-NEXT: %[[P0:.*]] = hisa.permute %[[R0]] switch 0 map [1, 0] at 2 on <east, 0>
// CHECK-NEXT: %[[R1:.*]] = hisa.read 0 at 2 on <west, 0>
// CHECK-NEXT: %[[P1:.*]] = hisa.permute %[[R1]] into %[[P0]] switch 0 map [-1, -1, 5] at 4 on <east, 0>
// CHECK-NEXT: hisa.write %[[P1]] to 2 at 7
func.func @permute() {
  hisa.input "x" at 0 : tensor<1x16xf32>
  hisa.output "y" at 2 : tensor<1x16xf32>
  %0 = hisa.read 0
  %1 = hisa.permute %0 switch 0 map [1, 0]
  %2 = hisa.read 0
  %3 = hisa.permute %2 into %1 switch 0 map [-1, -1, 5]
  hisa.write %3 to 2
  return
}

// -----

// Tests that a switch the chip lacks is reported.
func.func @no_switch() {
  %0 = hisa.read 0
  // expected-error @+1 {{switch 2 does not exist (chip 'test-chip' has 2)}}
  %1 = hisa.permute %0 switch 2 map [0]
  hisa.write %1 to 2
  return
}

// -----

// Tests that a permute may only read the chip's lanes.
func.func @bad_lane() {
  %0 = hisa.read 0
  // expected-error @+1 {{map[1] reads lane 16, but chip 'test-chip' has 16 lanes}}
  %1 = hisa.permute %0 switch 0 map [0, 16]
  hisa.write %1 to 2
  return
}

// -----

// Tests a gather's chain on test-chip: the table (rows 0-723 in slice 0
// at position 2, the rest in slice 1 at 3) is read by the index turned
// east on switch 0 (position 1): read at 0, at the switch at 0 + 1 + 6
// hops = 7, on the stream at 9, so the chain issues at 10 on slice 0 (the
// op's cycle) and 11 on slice 1; the row reaches switch 1 (position 11)
// at 10 + 1 + 9 = 20 and slice 5 (position 8) at 20 + 2 + 3 = 25. Each
// chain counts two instructions.
// CHECK-LABEL: func.func @gather()
// CHECK-SAME: hetc.instructions = 6 : i64
// CHECK-SAME: hetc.predicted_cycles = 26 : i64
func.func @gather() {
  hisa.input "ids" at 4096 : tensor<2xi64>
  hisa.constant at 300 dense<5.000000e-01> : tensor<1500x16xf32>
  hisa.output "y" at 5120 : tensor<2x16xf32>
  // CHECK: hisa.read 4096 as i32 at 0 on <west, 0>
  // CHECK-NEXT: hisa.permute {{.*}} as i32 at 7 on <east, 0>
  // CHECK-NEXT: hisa.gather %{{.*}} lane 0 table 300 stride 1 rows 1500 at 10 on <east, {{[0-9]+}}>
  // CHECK-NEXT: hisa.permute {{.*}} at 20 on <west, 0>
  // CHECK-NEXT: hisa.write %{{.*}} to 5120 at 25
  %0 = hisa.read 4096 as i32
  %1 = hisa.permute %0 switch 0 map [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] as i32
  %2 = hisa.gather %1 lane 0 table 300 stride 1 rows 1500
  %3 = hisa.permute %2 switch 1 map [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
  hisa.write %3 to 5120
  return
}

// -----

// Tests that a gather from a table that the program writes waits until
// the write has landed: row 1000 of the table (address 1300, slice 1 at
// position 3) is written with the result of three vector ops (read at 0
// from position 9, at the vector unit at 4, 6 and 8, the result at
// position 3 at 13) and lands at 14. The chain's slice-1 op may read that
// row, so it issues at 14 and the one on slice 0 (the op's cycle) at 13,
// instead of at 10 and 11 as from a constant table.
// CHECK-LABEL: func.func @gather_after_write()
// CHECK: hisa.write %{{.*}} to 1300 at 13
// CHECK: hisa.gather %{{.*}} lane 0 table 300 stride 1 rows 1500 at 13 on
func.func @gather_after_write() {
  hisa.input "ids" at 4096 : tensor<2xi64>
  hisa.input "table" at 300 : tensor<1500x16xf32>
  hisa.input "x" at 7000 : tensor<16xf32>
  %x = hisa.read 7000
  %e1 = hisa.vunary exp %x lanes 16
  %e2 = hisa.vunary exp %e1 lanes 16
  %e3 = hisa.vunary exp %e2 lanes 16
  hisa.write %e3 to 1300
  %0 = hisa.read 4096 as i32
  %1 = hisa.permute %0 switch 0 map [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] as i32
  %2 = hisa.gather %1 lane 0 table 300 stride 1 rows 1500
  %3 = hisa.permute %2 switch 1 map [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
  hisa.write %3 to 5120
  return
}

// -----

// Tests that the index must come from beyond the table's slices.
func.func @gather_index_among_slices() {
  hisa.constant at 300 dense<5.000000e-01> : tensor<1500x16xf32>
  hisa.constant at 1900 dense<1> : tensor<16xi32>
  %0 = hisa.read 1900 as i32
  // expected-error @+1 {{its index comes from floorplan position 3, among the MEM slices of its table (positions 2 to 3)}}
  %1 = hisa.gather %0 lane 0 table 300 stride 1 rows 1500
  hisa.write %1 to 5120
  return
}

// -----

// Tests that every reader of a gathered row is beyond the table's slices.
func.func @gather_reader_among_slices() {
  hisa.constant at 300 dense<5.000000e-01> : tensor<1500x16xf32>
  hisa.constant at 4096 dense<1> : tensor<16xi32>
  %0 = hisa.read 4096 as i32
  %1 = hisa.permute %0 switch 0 map [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] as i32
  %2 = hisa.gather %1 lane 0 table 300 stride 1 rows 1500
  // expected-error @+1 {{reads a gathered row at floorplan position 2, not beyond the slices of the table (positions 2 to 3) away from its index}}
  hisa.write %2 to 1
  return
}

// -----

// Tests that a lane spread is one of the chip's (test-chip has 16).
func.func @vbroadcast_past_the_lanes() {
  hisa.input "x" at 0 : tensor<1x16xf32>
  %0 = hisa.read 0
  // expected-error @+1 {{lane 16 is not a lane of chip 'test-chip', which has 16}}
  %1 = hisa.vbroadcast %0 lane 16
  hisa.write %1 to 1
  return
}
