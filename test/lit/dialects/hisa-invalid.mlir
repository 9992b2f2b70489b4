// RUN: hetc-opt %s --split-input-file --verify-diagnostics

// Tests that addresses are not negative.
func.func @bad_address() {
  // expected-error @+1 {{address must be >= 0, got -1}}
  %0 = hisa.read -1
  return
}

// -----

// Tests that a part names one of the vectors an SRAM row holds of the
// type: one of f32, two of f16, four of i8.
func.func @bad_part() {
  // expected-error @+1 {{part 1 is not a part of an SRAM row, which holds 1 vector of 'f32'}}
  %0 = hisa.read 0 part 1
  return
}

// -----

func.func @bad_part_f16() {
  %0 = hisa.read 0 part 1 as f16
  // expected-error @+1 {{part 2 is not a part of an SRAM row, which holds 2 vectors of 'f16'}}
  hisa.write %0 to 1 part 2 as f16
  return
}

// -----

func.func @bad_part_dma() {
  // expected-error @+1 {{part 4 is not a part of an SRAM row, which holds 4 vectors of 'i8'}}
  hisa.dma_in host 0 to 1 part 4 as i8 engine 0
  return
}

// -----

// Tests that vector instructions compute at least one lane.
func.func @bad_lanes() {
  %0 = hisa.read 0
  // expected-error @+1 {{lanes must be >= 1, got 0}}
  %1 = hisa.vunary relu %0 lanes 0
  return
}

// -----

// Tests that weight rows are not negative.
func.func @bad_row() {
  %0 = hisa.read 0
  // expected-error @+1 {{row must be >= 0, got -2}}
  hisa.load_weights %0 plane 0 row -2
  return
}

// -----

// Tests that planes are not negative.
func.func @bad_plane() {
  %0 = hisa.read 0
  // expected-error @+1 {{plane must be >= 0, got -1}}
  %1 = hisa.matmul %0 plane -1
  return
}

// -----

// Tests that weight columns are not negative.
func.func @bad_column() {
  %0 = hisa.read 0
  // expected-error @+1 {{column must be >= 0, got -1}}
  hisa.load_weights %0 plane 0 column -1
  return
}

// -----

// Tests that a permute's switch is not negative.
func.func @bad_switch() {
  %0 = hisa.read 0
  // expected-error @+1 {{switch must be >= 0, got -1}}
  %1 = hisa.permute %0 switch -1 map [0]
  return
}

// -----

// Tests that a permute's map has at least one lane.
func.func @empty_map() {
  %0 = hisa.read 0
  // expected-error @+1 {{map must have at least one lane}}
  %1 = hisa.permute %0 switch 0 map []
  return
}

// -----

// Tests that map entries are lanes or -1.
func.func @bad_map_entry() {
  %0 = hisa.read 0
  // expected-error @+1 {{map[1] is -2; entries are source lanes (>= 0) or -1 (keep)}}
  %1 = hisa.permute %0 switch 0 map [0, -2]
  return
}

// -----

// Tests that DMA host addresses and engines are not negative.
func.func @bad_dma() {
  // expected-error @+1 {{host address must be >= 0, got -2}}
  hisa.dma_in host -2 to 0 engine 0
  return
}

// -----

func.func @bad_engine() {
  // expected-error @+1 {{engine must be >= 0, got -1}}
  hisa.dma_out 0 to host 0 engine -1
  return
}

// -----

func.func @bad_host_binding() {
  // expected-error @+1 {{host address must be >= 0, got -1}}
  hisa.output "y" at 0 host -1 : tensor<1x16xf32>
  return
}

// -----

func.func @bad_link() {
  // expected-error @+1 {{link must be >= 0, got -1}}
  %0 = hisa.c2c_recv link -1
  return
}

// -----

// Tests that a dtype must be an element type of the chip.
func.func @bad_dtype() {
  // expected-error @+1 {{dtype 'f64' is not an element type of the chip (f32, f16, bf16, i8, ui8, i32, i1; moved and converted only: f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ, f8E8M0FNU, f4E2M1FN, i4, ui4, i2, ui2)}}
  %0 = hisa.read 0 as f64
  return
}

// -----

// Tests that pow is refused on integers.
func.func @pow_on_i32() {
  %0 = hisa.read 0 as i32
  // expected-error @+1 {{pow is not defined on 'i32'; it is defined on f32, f16 and bf16}}
  %1 = hisa.vbinary pow %0, %0 lanes 4 as i32
  return
}

// -----

// Tests that the logical kinds take only booleans.
func.func @and_on_f32() {
  %0 = hisa.read 0
  // expected-error @+1 {{and is not defined on 'f32'; it is defined on i1 and i32}}
  %1 = hisa.vbinary and %0, %0 lanes 4
  return
}

// -----

// Tests that transcendental functions are refused on integers.
func.func @exp_on_i32() {
  %0 = hisa.read 0 as i32
  // expected-error @+1 {{exp is not defined on 'i32'; it is defined on f32, f16 and bf16}}
  %1 = hisa.vunary exp %0 lanes 4 as i32
  return
}

// -----

// Tests that the vector unit does not reduce 8-bit lanes.
func.func @reduce_on_i8() {
  %0 = hisa.read 0 as i8
  // expected-error @+1 {{vreduce is not defined on 'i8'; it is defined on f32, f16, bf16 and i32}}
  %1 = hisa.vreduce sum %0 lanes 4 as i8
  return
}

// -----

// Tests that the matrix unit does not multiply i32.
func.func @matmul_on_i32() {
  %0 = hisa.read 0 as i32
  // expected-error @+1 {{matmul is not defined on 'i32'; it is defined on f32, f16, bf16, i8 and ui8}}
  %1 = hisa.matmul %0 plane 0 as i32
  return
}

// -----

// Tests that vcast converts only between element types of the chip.
func.func @bad_cast() {
  %0 = hisa.read 0
  // expected-error @+1 {{type 'i64' is not an element type of the chip}}
  %1 = hisa.vcast %0 from f32 to i64 lanes 4
  return
}

// -----

// Tests that mod is refused on booleans.
func.func @mod_on_i1() {
  %0 = hisa.read 0 as i1
  // expected-error @+1 {{mod is not defined on 'i1'; it is defined on f32, f16, bf16 and i32}}
  %1 = hisa.vbinary mod %0, %0 lanes 4 as i1
  return
}

// -----

// Tests that shifts take i32 lanes only.
func.func @shift_float() {
  %0 = hisa.read 0
  // expected-error @+1 {{shl}}
  %1 = hisa.vbinary shl %0, %0 lanes 16
  hisa.write %1 to 1
  return
}

// -----

// Tests that no_saturate needs a float8 or float4 result.
func.func @no_saturate_to_int() {
  %0 = hisa.read 0
  // expected-error @+1 {{overflow no_saturate needs an 8- or 4-bit float result, not 'i8'}}
  %1 = hisa.vcast %0 from f32 to i8 overflow no_saturate lanes 4
  return
}

// -----

// Tests that wrap needs an integer result.
func.func @wrap_to_float() {
  %0 = hisa.read 0
  // expected-error @+1 {{overflow wrap needs an integer result, not 'f8E4M3FN'}}
  %1 = hisa.vcast %0 from f32 to f8E4M3FN overflow wrap lanes 4
  return
}

// -----

// Tests that rounding applies to f8E8M0FNU results only.
func.func @rounding_to_f16() {
  %0 = hisa.read 0
  // expected-error @+1 {{rounding applies to f8E8M0FNU results only, not 'f16'}}
  %1 = hisa.vcast %0 from f32 to f16 rounding up lanes 4
  return
}

// -----

// Tests that the vector unit does not compute on the narrow types.
func.func @add_float8() {
  %0 = hisa.read 0 as f8E5M2
  // expected-error @+1 {{add is not defined on 'f8E5M2'; it is defined on f32, f16, bf16 and i32}}
  %1 = hisa.vbinary add %0, %0 lanes 4 as f8E5M2
  return
}

// -----

// Tests that a gather reads a table of at least one row of one vector,
// by a lane that exists.
func.func @bad_gather_stride() {
  %0 = hisa.read 0 as i32
  // expected-error @+1 {{stride and rows must be >= 1, got stride 0 and rows 4}}
  %1 = hisa.gather %0 lane 0 table 8 stride 0 rows 4
  return
}

// -----

func.func @bad_gather_lane() {
  %0 = hisa.read 0 as i32
  // expected-error @+1 {{lane must be >= 0, got -2}}
  %1 = hisa.gather %0 lane -2 table 8 stride 1 rows 4
  return
}

// -----

// Tests that a scatter takes one or two pairs of a value and an index.
func.func @bad_scatter_pairs() {
  %0 = hisa.read 0 as i32
  %1 = hisa.read 1
  // expected-error @+1 {{takes one or two pairs of a value and an index, got 2 values and 1 indices}}
  hisa.scatter %1, %1 by %0 lane 0 table 8 stride 1 rows 4
  return
}

// -----

// Tests that a scatter writes a table of at least one row of one vector.
func.func @bad_scatter_rows() {
  %0 = hisa.read 0 as i32
  %1 = hisa.read 1
  // expected-error @+1 {{stride and rows must be >= 1, got stride 1 and rows 0}}
  hisa.scatter %1 by %0 lane 0 table 8 stride 1 rows 0
  return
}

// -----

// Tests that a train issues at least twice.
func.func @train_of_one() {
  // expected-error @+1 {{a train issues at least twice, at least a cycle apart, got #hisa.train<1 every 1 step 1>}}
  %0 = hisa.read 0 repeat <1 every 1 step 1>
  return
}

// -----

// Tests that a train's issues are at least a cycle apart.
func.func @train_in_one_cycle() {
  // expected-error @+1 {{a train issues at least twice, at least a cycle apart, got #hisa.train<4 every 0>}}
  %0 = hisa.read 0 repeat <4 every 0>
  return
}

// -----

// Tests that a conversion, which has no address or row, repeats without a
// step.
func.func @cast_with_step() {
  %0 = hisa.read 0 as f16 repeat <4 every 1 step 1>
  // expected-error @+1 {{repeats without a step, got #hisa.train<4 every 1 step 2>}}
  %1 = hisa.vcast %0 from f16 to f32 lanes 16 repeat <4 every 1 step 2>
  return
}

// -----

// Tests that a train reads a train as long and as spaced: issue k reads
// what issue k of its operand's train brought.
func.func @train_of_another_length() {
  %0 = hisa.read 0 repeat <4 every 1 step 1>
  // expected-error @+1 {{issues 8 time(s) every 1, but its operand comes from an instruction that issues 4 time(s) every 1; a train reads a train as long and as spaced}}
  hisa.load_weights %0 plane 0 row 0 repeat <8 every 1 step 1>
  return
}

// -----

// Tests that a vector instruction, which has no address or row, repeats
// without a step.
func.func @vector_train_with_step() {
  %0 = hisa.read 0 repeat <4 every 1 step 2>
  // expected-error @+1 {{repeats without a step, got #hisa.train<4 every 1 step 2>}}
  %1 = hisa.vunary relu %0 lanes 16 repeat <4 every 1 step 2>
  return
}

// -----

// Tests that a write train stores a train as long and as spaced.
func.func @write_train_of_another_spacing() {
  %0 = hisa.read 0 repeat <4 every 1 step 2>
  %1 = hisa.vunary relu %0 lanes 16 repeat <4 every 1>
  // expected-error @+1 {{issues 4 time(s) every 2, but its operand comes from an instruction that issues 4 time(s) every 1; a train reads a train as long and as spaced}}
  hisa.write %1 to 64 repeat <4 every 2 step 2>
  return
}

// -----

// Tests that a vector instruction's operands are trains of its own length:
// the second operand issues once.
func.func @binary_train_reads_single() {
  %0 = hisa.read 0 repeat <4 every 1 step 2>
  %1 = hisa.read 9
  // expected-error @+1 {{issues 4 time(s) every 1, but its operand comes from an instruction that issues 1 time(s)}}
  %2 = hisa.vbinary add %0, %1 lanes 16 repeat <4 every 1>
  return
}

// -----

// Tests that an instruction that issues once reads no train.
func.func @single_reads_train() {
  %0 = hisa.read 0 repeat <4 every 2 step 1>
  // expected-error @+1 {{issues 1 time(s), but its operand comes from an instruction that issues 4 time(s) every 2}}
  hisa.load_weights %0 plane 0 row 0
  return
}

// -----

// Tests that a read's parts lie in one SRAM row: two f16 vectors a row.
func.func @parts_past_the_row() {
  // expected-error @+1 {{parts 2 from part 1 are not parts of one SRAM row, which holds 2 vectors of 'f16'}}
  %0 = hisa.read 0 part 1 parts 2 as f16
  return
}

// -----

// Tests that several parts of a row go only to a weight load of as many.
func.func @parts_to_a_vector_op() {
  // expected-error @+1 {{makes 2 parts, which only a hisa.load_weights (or a hisa.vcast on its way to one) of 2 parts takes, not hisa.vunary}}
  %0 = hisa.read 0 parts 2 as f16
  %1 = hisa.vunary relu %0 lanes 16 as f16
  return
}

// -----

// Tests that a load of several parts takes a read of as many, of its type.
func.func @load_parts_of_a_single_read() {
  %0 = hisa.read 0 as f16
  // expected-error @+1 {{installs 2 parts, which needs a row slot and a hisa.read (or hisa.vcast) of as many parts of its type}}
  hisa.load_weights %0 plane 0 row 0 parts 2 as f16
  return
}

// -----

// Tests that a load of several parts installs rows, not columns.
func.func @column_parts() {
  %0 = hisa.read 0 parts 2 as f16
  // expected-error @+1 {{installs 2 parts, which needs a row slot and a hisa.read (or hisa.vcast) of as many parts of its type}}
  hisa.load_weights %0 plane 0 column 0 parts 2 as f16
  return
}

// -----

// Tests that a conversion of several parts takes a read of as many, and
// that its parts fit in a row of the wider type: two i8 vectors make two
// f16 ones, four would make a row and a half.
func.func @cast_parts() {
  %0 = hisa.read 0 parts 4 as i8
  // expected-error @+1 {{converts 4 parts, which needs a hisa.read of as many and types of at most 1 byte(s) a lane}}
  %1 = hisa.vcast %0 from i8 to f16 lanes 16 parts 4
  hisa.load_weights %1 plane 0 row 0 parts 4 as f16
  return
}

// -----

// Tests that a conversion of one vector does not take a value of several.
func.func @cast_one_of_parts() {
  // expected-error @+1 {{makes 2 parts, which only a hisa.load_weights (or a hisa.vcast on its way to one) of 2 parts takes, not hisa.vcast}}
  %0 = hisa.read 0 parts 2 as i8
  %1 = hisa.vcast %0 from i8 to f16 lanes 16
  return
}

// -----

// Tests that an install names a plane.
func.func @install_no_plane() {
  // expected-error @+1 {{plane must be >= 0, got -1}}
  hisa.install_weights plane -1
  return
}

// -----

// Tests that a lane is spread only from a type the vector unit computes on.
func.func @vbroadcast_i8() {
  %0 = hisa.read 0 as i8
  // expected-error @+1 {{vbroadcast is not defined on 'i8'; it is defined on f32, f16, bf16 and i32}}
  %1 = hisa.vbroadcast %0 lane 2 as i8
  return
}
