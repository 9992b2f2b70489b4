// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-set-chip=file=%chips/test-chip.chip --hetc-hisa-schedule | FileCheck %s

// Tests a scatter's chain on test-chip across the vector unit (position
// 6): the table's rows 0-523 are in slice 3 (position 5), the rest in
// slice 4 (position 7). The index (slice 0, position 2) and the value
// (slice 7, position 10) are read at 0 and reach the vector unit at
// 0 + 1 + 4 = 5; the unit passes each on in both directions at 5, on the
// streams at 7, and both slices of the chain issue at 8, the op's cycle.
// A read of the table waits until the write has landed (8 + 1). The
// chain counts two instructions.
// CHECK-LABEL: func.func @scatter_both_sides()
// CHECK-SAME: hetc.instructions = 10 : i64
func.func @scatter_both_sides() {
  hisa.input "cache" at 3572 : tensor<1000x16xf32>
  hisa.input "ids" at 100 : tensor<16xi32>
  hisa.input "kv" at 7168 : tensor<16xf32>
  hisa.output "y" at 7000 : tensor<16xf32>
  // CHECK: hisa.read 100 as i32 at 0 on <east,
  // CHECK-NEXT: hisa.read 7168 at 0 on <west,
  // CHECK-NEXT: hisa.vcast %{{.*}} from i32 to i32 lanes 16 at 5 on <west,
  // CHECK-NEXT: hisa.vcast %{{.*}} from f32 to f32 lanes 16 at 5 on <west,
  // CHECK-NEXT: hisa.vcast %{{.*}} from i32 to i32 lanes 16 at 5 on <east,
  // CHECK-NEXT: hisa.vcast %{{.*}} from f32 to f32 lanes 16 at 5 on <east,
  // CHECK-NEXT: hisa.scatter %{{.*}}, %{{.*}} by %{{.*}}, %{{.*}} lane 0 table 3572 stride 1 rows 1000 at 8
  // CHECK-NEXT: hisa.read 4172 at 9
  %i = hisa.read 100 as i32
  %v = hisa.read 7168
  %iw = hisa.vcast %i from i32 to i32 lanes 16
  %vw = hisa.vcast %v from f32 to f32 lanes 16
  %ie = hisa.vcast %i from i32 to i32 lanes 16
  %ve = hisa.vcast %v from f32 to f32 lanes 16
  hisa.scatter %vw, %ve by %iw, %ie lane 0 table 3572 stride 1 rows 1000
  %r = hisa.read 4172
  hisa.write %r to 7000
  return
}

// -----

// Tests that a scatter writes no constant: a gather of it would not be
// ordered against the write.
func.func @scatter_to_constant() {
  hisa.constant at 300 dense<5.000000e-01> : tensor<1000x16xf32>
  hisa.input "ids" at 4096 : tensor<16xi32>
  %i = hisa.read 4096 as i32
  %v = hisa.read 4097
  %ie = hisa.vcast %i from i32 to i32 lanes 16
  %ve = hisa.vcast %v from f32 to f32 lanes 16
  // expected-error @+1 {{scatters to rows 300 to 1299, which a constant holds; constants are never written}}
  hisa.scatter %ve by %ie lane 0 table 300 stride 1 rows 1000
  return
}

// -----

// Tests that one pair cannot serve slices on both sides of its unit.
func.func @scatter_one_pair_both_sides() {
  hisa.input "cache" at 3572 : tensor<1000x16xf32>
  %i = hisa.read 100 as i32
  %v = hisa.read 7168
  %ie = hisa.vcast %i from i32 to i32 lanes 16
  %ve = hisa.vcast %v from f32 to f32 lanes 16
  // expected-error @+1 {{its table spans MEM slices at positions 5 to 7 around its values' unit at position 6; it needs a pair of index and value for each side}}
  hisa.scatter %ve by %ie lane 0 table 3572 stride 1 rows 1000
  return
}

// -----

// Tests that the index and value of a scatter come from one unit.
func.func @scatter_pair_from_two_units() {
  hisa.input "cache" at 5120 : tensor<100x16xf32>
  %i = hisa.read 100 as i32
  %v = hisa.read 7168
  %ie = hisa.vcast %i from i32 to i32 lanes 16
  // expected-error @+1 {{its indices and values come from floorplan positions 10 and 6; a scatter's chain reads them from one unit}}
  hisa.scatter %v by %ie lane 0 table 5120 stride 1 rows 100
  return
}

// -----

// Tests that both pairs of a scatter leave their unit in one cycle: here
// the east pair's value passes an extra vector op, so it leaves two cycles
// after the west pair, and the op's one cycle cannot say when each slice
// issues.
func.func @scatter_pairs_apart() {
  hisa.input "cache" at 3572 : tensor<1000x16xf32>
  hisa.input "ids" at 100 : tensor<16xi32>
  hisa.input "kv" at 7168 : tensor<16xf32>
  %i = hisa.read 100 as i32
  %i2 = hisa.read 101 as i32
  %v = hisa.read 7168
  %iw = hisa.vcast %i from i32 to i32 lanes 16
  %vw = hisa.vcast %v from f32 to f32 lanes 16
  %e = hisa.vunary exp %v lanes 16
  %ie = hisa.vcast %i2 from i32 to i32 lanes 16
  %ve = hisa.vcast %e from f32 to f32 lanes 16
  // expected-error @+1 {{its slices issue at cycles that no one cycle of its index and value pairs gives}}
  hisa.scatter %vw, %ve by %iw, %ie lane 0 table 3572 stride 1 rows 1000
  return
}
