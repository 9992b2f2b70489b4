// RUN: hetc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Tests that a module's chip round-trips.
// CHECK: module attributes {hetc.chip = #hetc.chip<"tiny", "name: \22tiny\22 revision: 1 clock_mhz: 1000 lanes: 16
module attributes {hetc.chip = #hetc.chip<"tiny", "name: \"tiny\" revision: 1 clock_mhz: 1000 lanes: 16 streams { per_direction: 32 hop_cycles: 1 } memory { slices: 4 slice_bytes: 512 banks_per_slice: 2 accesses_per_bank_per_cycle: 1 } matrix { planes: 2 rows: 16 cols: 16 } vector { alus: 4 } latency { mem_read: 1 mem_write: 1 vector_op: 2 vector_reduce: 3 matrix_load: 1 matrix_mul: 4 switch_op: 2 } dispatch { per_cycle: 4 queue_depth: 8 } dma { engines: 2 bytes_per_cycle: 16 latency: 20 } floorplan { unit: MATRIX count: 1 } floorplan { unit: MEMORY count: 4 } floorplan { unit: VECTOR count: 1 } floorplan { unit: SWITCH count: 1 } floorplan { unit: MATRIX count: 1 }">} {
}

// -----

// Tests that the description is checked like a chip file.
// expected-error @+1 {{#hetc.chip<"tiny">: invalid chip description:}}
module attributes {hetc.chip = #hetc.chip<"tiny", "name: \"tiny\" lanes: 16">} {
}

// -----

// Tests that the description must name the chip given first.
// expected-error @+1 {{#hetc.chip<"tiny">: the description names the chip 'other'}}
module attributes {hetc.chip = #hetc.chip<"tiny", "name: \"other\" revision: 1 clock_mhz: 1000 lanes: 16 streams { per_direction: 32 hop_cycles: 1 } memory { slices: 4 slice_bytes: 512 banks_per_slice: 2 accesses_per_bank_per_cycle: 1 } matrix { planes: 2 rows: 16 cols: 16 } vector { alus: 4 } latency { mem_read: 1 mem_write: 1 vector_op: 2 vector_reduce: 3 matrix_load: 1 matrix_mul: 4 switch_op: 2 } dispatch { per_cycle: 4 queue_depth: 8 } dma { engines: 2 bytes_per_cycle: 16 latency: 20 } floorplan { unit: MATRIX count: 1 } floorplan { unit: MEMORY count: 4 } floorplan { unit: VECTOR count: 1 } floorplan { unit: SWITCH count: 1 } floorplan { unit: MATRIX count: 1 }">} {
}

// -----

// Tests that the module attribute must be a chip, and only on a module.
// expected-error @+1 {{'hetc.chip' must be a #hetc.chip attribute}}
module attributes {hetc.chip = 3} {
}

// -----

module {
  // expected-error @+1 {{'hetc.chip' belongs on a module}}
  func.func @f() attributes {hetc.chip = 3} {
    return
  }
}

// -----

// expected-error @+1 {{unknown attribute 'hetc.target' of the hetc dialect}}
module attributes {hetc.target = 3} {
}

// -----

// Tests the figures the passes record on a function: their place and kind.
// CHECK: func.func @g() attributes {hetc.instructions = 3 : i64, hetc.lower_bound_reason = "resource"}
func.func @g() attributes {hetc.instructions = 3 : i64, hetc.lower_bound_reason = "resource"} {
  return
}

// -----

// expected-error @+1 {{'hetc.predicted_cycles' must be an integer}}
func.func @h() attributes {hetc.predicted_cycles = "many"} {
  return
}

// -----

// expected-error @+1 {{'hetc.sram_peak_vectors' belongs on a function}}
module attributes {hetc.sram_peak_vectors = 3} {
}

// -----

// Tests the buffers live at the SRAM peak: a well-formed list round-trips,
// an entry without its tensor's bytes is refused.
// CHECK-LABEL: func.func @peak
// CHECK-SAME: hetc.sram_peak_buffers = [{node = "Conv_0", tensor_bytes = 64 : i64, type = memref<4x4xf32>, vectors = 4 : i64}]
func.func @peak() attributes {hetc.sram_peak_buffers = [{node = "Conv_0", type = memref<4x4xf32>, vectors = 4, tensor_bytes = 64}]} {
  return
}

// -----

// expected-error @+1 {{'hetc.sram_peak_buffers' must be an array of dictionaries of node (a string), type (a type), vectors and tensor_bytes (integers)}}
func.func @peak_incomplete() attributes {hetc.sram_peak_buffers = [{node = "Conv_0", type = memref<4x4xf32>, vectors = 4}]} {
  return
}
