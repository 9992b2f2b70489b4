//===- SimHazardTest.cpp - The chip model rejects broken programs ------===//
//
// One test per rule of docs/isa.md and per instruction check, each starting
// from a correct reference program (see TestPrograms.h) and breaking it in
// one place. On test-chip the add program is: #0 MEM_READ a at 2 (slice 0,
// EAST group 0), #1 MEM_READ b at 5 (slice 4, WEST group 0), #2 V_ADD at 7
// (EAST group 4), #3 MEM_WRITE y at 11 (slice 5).
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

namespace hetc::test {
namespace {

class SimHazardTest : public ::testing::Test {
protected:
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram add = addProgram(chip);

  hetx::Instruction &instr(TestProgram &program, int index) {
    return *program.artifact.mutable_instructions(index);
  }
  /// Adds instructions through `extend` under node 'Extra' and re-sorts.
  void extend(TestProgram &program,
              const std::function<void(ProgramBuilder &)> &body,
              const chip::ChipSpec *on = nullptr) {
    ProgramBuilder builder(on ? *on : chip, program.artifact);
    builder.setNode("Extra");
    body(builder);
    program.artifact = builder.build();
  }
};

TEST_F(SimHazardTest, TooEarly) {
  instr(add, 0).set_cycle(3);
  EXPECT_EQ(simulateError(add, chip),
            "hazard: too early at cycle 7: instruction #2 V_ADD on vector "
            "unit (node 'Add_0'): src[0] reads EAST stream group 0 at "
            "position 6 (vector unit) at cycle 7, but no value is there yet: "
            "the value from instruction #0 MEM_READ arrives at cycle 8");
}

TEST_F(SimHazardTest, TooLate) {
  instr(add, 0).set_cycle(1);
  EXPECT_EQ(simulateError(add, chip),
            "hazard: too late at cycle 7: instruction #2 V_ADD on vector "
            "unit (node 'Add_0'): src[0] reads EAST stream group 0 at "
            "position 6 (vector unit) at cycle 7, but no value is there any "
            "more: the value from instruction #0 MEM_READ passed at cycle 6");
}

TEST_F(SimHazardTest, TooLateOnWestStream) {
  instr(add, 1).set_cycle(4);
  EXPECT_EQ(simulateError(add, chip),
            "hazard: too late at cycle 7: instruction #2 V_ADD on vector "
            "unit (node 'Add_0'): src[1] reads WEST stream group 0 at "
            "position 6 (vector unit) at cycle 7, but no value is there any "
            "more: the value from instruction #1 MEM_READ passed at cycle 6");
}

TEST_F(SimHazardTest, ReadOfAnotherValueThanTheProgramMeans) {
  // A second read of a, one cycle after the first, on the same stream
  // group: the add takes the first value but names the second.
  uint64_t a = instr(add, 0).address();
  extend(add, [&](ProgramBuilder &b) { b.read(3, a, east(0)); });
  // Sorted: #0 read a at 2, #1 the extra read at 3, #2 read b, #3 V_ADD.
  instr(add, 3).mutable_src(0)->set_producer(1);
  EXPECT_EQ(simulateError(add, chip),
            "hazard: too early at cycle 7: instruction #3 V_ADD on vector "
            "unit (node 'Add_0'): src[0] reads EAST stream group 0 at "
            "position 6 (vector unit) at cycle 7, which takes the value from "
            "instruction #0 MEM_READ instead of the value from instruction "
            "#1 MEM_READ, which arrives at cycle 8");
}

TEST_F(SimHazardTest, ReadNamingAValueOnAnotherStream) {
  instr(add, 2).mutable_src(0)->set_producer(1);
  EXPECT_EQ(simulateError(add, chip),
            "hazard: wrong stream at cycle 7: instruction #2 V_ADD on vector "
            "unit (node 'Add_0'): src[0] reads EAST stream group 0 at "
            "position 6 (vector unit) at cycle 7, but the value from "
            "instruction #1 MEM_READ it means travels on WEST stream group 0");
}

TEST_F(SimHazardTest, ReadOfNothingNamesWhenTheMeantValueArrives) {
  instr(add, 0).set_cycle(3);
  instr(add, 2).mutable_src(0)->set_producer(0);
  EXPECT_EQ(simulateError(add, chip),
            "hazard: too early at cycle 7: instruction #2 V_ADD on vector "
            "unit (node 'Add_0'): src[0] reads EAST stream group 0 at "
            "position 6 (vector unit) at cycle 7, but finds no value there: "
            "it means the value from instruction #0 MEM_READ, which arrives "
            "at cycle 8");
}

TEST_F(SimHazardTest, ProducerThatEmitsNothing) {
  instr(add, 2).mutable_src(0)->set_producer(3);
  EXPECT_EQ(simulateError(add, chip),
            "hazard: bad producer at cycle 7: instruction #2 V_ADD on vector "
            "unit (node 'Add_0'): src[0] names instruction 3 as its "
            "producer, which is not an instruction that emits a vector");
  instr(add, 2).mutable_src(0)->set_producer(99);
  EXPECT_NE(simulateError(add, chip).find("hazard: bad producer"),
            std::string::npos);
}

TEST_F(SimHazardTest, NoValueOnStream) {
  instr(add, 2).mutable_src(0)->set_id(8);
  EXPECT_EQ(simulateError(add, chip),
            "hazard: no value at cycle 7: instruction #2 V_ADD on vector unit "
            "(node 'Add_0'): src[0] reads EAST stream group 8 at position 6 "
            "(vector unit) at cycle 7, but no value on that stream group "
            "reaches this position near this cycle");
}

TEST_F(SimHazardTest, ValueFlowingTheWrongWayIsNotThere) {
  // b is read from slice 4 (east of the vector unit) onto an EAST stream.
  instr(add, 1).mutable_dst()->set_dir(hetx::EAST);
  instr(add, 1).mutable_dst()->set_id(8);
  instr(add, 2).mutable_src(1)->set_dir(hetx::EAST);
  instr(add, 2).mutable_src(1)->set_id(8);
  EXPECT_EQ(simulateError(add, chip),
            "hazard: no value at cycle 7: instruction #2 V_ADD on vector unit "
            "(node 'Add_0'): src[1] reads EAST stream group 8 at position 6 "
            "(vector unit) at cycle 7, but no value on that stream group "
            "reaches this position near this cycle");
}

TEST_F(SimHazardTest, OverwriteCollisionBeforeTheRead) {
  // A read in slice 3 (position 5) joins EAST group 0 exactly when a's value
  // passes there, so the V_ADD would read it instead of a.
  extend(add, [&](ProgramBuilder &b) {
    b.constant("c", {16}, 3 * 1024, std::vector<float>(16, 1.0f));
    b.read(5, 3 * 1024, east(0));
  });
  EXPECT_EQ(simulateError(add, chip),
            "hazard: overwrite collision at cycle 6: instruction #2 MEM_READ "
            "on MEM slice 3 (node 'Extra'): its value on EAST stream group 0, "
            "put there at position 5 (MEM slice 3) at cycle 6, replaces the "
            "value of instruction #0 MEM_READ (put there at position 2 (MEM "
            "slice 0) at cycle 3) before any instruction read it");
}

TEST_F(SimHazardTest, OverwriteCollisionSamePlaceAndCycle) {
  extend(add, [](ProgramBuilder &b) {
    b.vector(7, hetx::V_SUB, {east(0), west(0)}, east(4));
  });
  EXPECT_EQ(simulateError(add, chip),
            "hazard: overwrite collision at cycle 9: instruction #3 V_SUB on "
            "vector unit (node 'Extra'): it puts a value on EAST stream group "
            "4 at position 6 (vector unit) at cycle 9, where instruction #2 "
            "V_ADD puts one at the same cycle");
}

TEST_F(SimHazardTest, OverwriteAfterTheLastReadIsAllowed) {
  // Slice 4 (position 7) reuses EAST group 0 right after the vector unit
  // read a's value there: rule 3, not a collision.
  extend(add, [](ProgramBuilder &b) { b.read(7, 4 * 1024, east(0)); });
  EXPECT_EQ(simulateError(add, chip), "");
}

TEST_F(SimHazardTest, NeverWrittenRead) {
  instr(add, 0).set_address(10);
  EXPECT_EQ(simulateError(add, chip),
            "hazard: never-written read at cycle 2: instruction #0 MEM_READ "
            "on MEM slice 0 (node 'Add_0'): address 10 (bank 0) was never "
            "written and holds no input or constant");
}

TEST_F(SimHazardTest, ReadOfInFlightWrite) {
  chip::ChipSpec slowWrites = testChipWith(
      [](chip::Chip &c) { c.mutable_latency()->set_mem_write(3); });
  TestProgram program = addProgram(slowWrites);
  // y is written at 11 and stores at 14; reading it at 12 is too soon.
  extend(
      program, [](ProgramBuilder &b) { b.read(12, 5 * 1024, east(8)); },
      &slowWrites);
  EXPECT_EQ(simulateError(program, slowWrites),
            "hazard: read of in-flight write at cycle 12: instruction #4 "
            "MEM_READ on MEM slice 5 (node 'Extra'): address 5120 is being "
            "written by instruction #3 MEM_WRITE, which stores at cycle 14");
  // At 14 the write has landed.
  program.artifact.mutable_instructions(4)->set_cycle(14);
  EXPECT_EQ(simulateError(program, slowWrites), "");
}

TEST_F(SimHazardTest, BankOverSubscription) {
  extend(add, [](ProgramBuilder &b) { b.read(2, 0, east(8)); });
  EXPECT_EQ(simulateError(add, chip),
            "hazard: bank over-subscription at cycle 2: instruction #1 "
            "MEM_READ on MEM slice 0 (node 'Extra'): bank 0 of MEM slice 0 "
            "already serves 1 access at this cycle (the first is instruction "
            "#0 MEM_READ); the chip allows 1 "
            "(memory.accesses_per_bank_per_cycle)");
}

TEST_F(SimHazardTest, OtherBankSameCycleIsAllowed) {
  extend(add, [](ProgramBuilder &b) {
    b.input("a1", {16}, 1); // address 1 is bank 1 of slice 0
    b.read(2, 1, east(8));
  });
  add.inputs["a1"] = io::Tensor{{16}, std::vector<float>(16, 2.0f)};
  EXPECT_EQ(simulateError(add, chip), "");
}

TEST_F(SimHazardTest, AluOverIssue) {
  TestProgram four = add;
  extend(four, [](ProgramBuilder &b) {
    for (uint32_t id : {8u, 12u, 16u})
      b.vector(7, hetx::V_MUL, {east(0), west(0)}, east(id));
  });
  EXPECT_EQ(simulateError(four, chip), "") << "4 ALUs take 4 instructions";
  extend(add, [](ProgramBuilder &b) {
    for (uint32_t id : {8u, 12u, 16u, 20u})
      b.vector(7, hetx::V_MUL, {east(0), west(0)}, east(id));
  });
  EXPECT_EQ(simulateError(add, chip),
            "hazard: ALU over-issue at cycle 7: instruction #6 V_MUL on "
            "vector unit (node 'Extra'): the vector unit already issues 4 "
            "instructions at this cycle (#2, #3, #4, #5); the chip has 4 ALUs "
            "(vector.alus)");
}

/// The index of the M_LOAD_WEIGHTS of weight row `row`, or -1.
int loadOfRow(const TestProgram &program, uint32_t row) {
  for (int i = 0; i < program.artifact.instructions_size(); ++i) {
    const hetx::Instruction &in = program.artifact.instructions(i);
    if (in.opcode() == hetx::M_LOAD_WEIGHTS && in.row() == row)
      return i;
  }
  return -1;
}

/// The error of matmulProgram's load `second` issued at cycle 9 beside the
/// load `first`, where the plane's rule (`rule`) allows no more.
std::string loadDoubleIssue(int second, int first, const std::string &rule) {
  return "hazard: plane double issue at cycle 9: instruction #" +
         std::to_string(second) +
         " M_LOAD_WEIGHTS on matrix plane 0 (node 'MatMul_0'): matrix plane "
         "0 already issues instruction #" +
         std::to_string(first) + " M_LOAD_WEIGHTS at this cycle; " + rule;
}

TEST_F(SimHazardTest, PlaneDoubleIssue) {
  TestProgram program = matmulProgram(chip);
  // Row 4 is installed at 10; move it onto row 3's cycle (9), where row 3's
  // value is on the stream, so only the issue limit is broken.
  ASSERT_GE(loadOfRow(program, 4), 0);
  instr(program, loadOfRow(program, 4)).set_cycle(9);
  resort(program.artifact, chip);
  int row3 = loadOfRow(program, 3), row4 = loadOfRow(program, 4);
  EXPECT_EQ(simulateError(program, chip),
            loadDoubleIssue(row4, row3,
                            "a plane issues one instruction per cycle"));
}

TEST_F(SimHazardTest, PlaneTakesInstallRowsLoadsPerCycle) {
  // With matrix.install_rows 2, rows 3 and 4 may install in one cycle
  // (both take row 3's value, on the stream then: no hazard, only the
  // issue limit is tried); a third load in that cycle is refused.
  chip::ChipSpec twoRows = testChipWith(
      [](chip::Chip &c) { c.mutable_matrix()->set_install_rows(2); });
  TestProgram program = matmulProgram(twoRows);
  ASSERT_GE(loadOfRow(program, 4), 0);
  instr(program, loadOfRow(program, 4)).set_cycle(9);
  resort(program.artifact, twoRows);
  EXPECT_EQ(simulateError(program, twoRows), "");
  instr(program, loadOfRow(program, 5)).set_cycle(9);
  resort(program.artifact, twoRows);
  int row5 = loadOfRow(program, 5);
  int first = findInstruction(program.artifact, hetx::M_LOAD_WEIGHTS, 9);
  ASSERT_NE(first, row5);
  EXPECT_EQ(simulateError(program, twoRows),
            loadDoubleIssue(row5, first,
                            "a plane issues one M_MATMUL, or up to 2 "
                            "M_LOAD_WEIGHTS (matrix.install_rows), per "
                            "cycle"));
}

TEST_F(SimHazardTest, PlaneBusyWithAWideMatmul) {
  // With matrix.cycles_32bit 3, the f32 product keeps plane 0 busy for
  // three cycles: a weight load one cycle after it is refused.
  chip::ChipSpec slowF32 = testChipWith(
      [](chip::Chip &c) { c.mutable_matrix()->set_cycles_32bit(3); });
  TestProgram program = matmulProgram(slowF32);
  ASSERT_EQ(simulateError(program, slowF32), "");
  int multiply = -1;
  for (int i = 0; i < program.artifact.instructions_size(); ++i)
    if (program.artifact.instructions(i).opcode() == hetx::M_MATMUL)
      multiply = i;
  ASSERT_GE(multiply, 0);
  uint64_t at = program.artifact.instructions(multiply).cycle();
  extend(
      program, [&](ProgramBuilder &b) { b.loadWeights(at + 1, 0, 0, west(0)); },
      &slowF32);
  int load = findInstruction(program.artifact, hetx::M_LOAD_WEIGHTS, at + 1);
  multiply = findInstruction(program.artifact, hetx::M_MATMUL, at);
  ASSERT_GE(load, 0);
  EXPECT_EQ(simulateError(program, slowF32),
            "hazard: plane busy at cycle " + std::to_string(at + 1) +
                ": instruction #" + std::to_string(load) +
                " M_LOAD_WEIGHTS on matrix plane 0 (node 'Extra'): matrix "
                "plane 0 is busy until cycle " +
                std::to_string(at + 3) + " with instruction #" +
                std::to_string(multiply) +
                " M_MATMUL: an M_MATMUL of f32 inputs takes 3 cycles "
                "(matrix.cycles_32bit)");
}

TEST_F(SimHazardTest, SwitchDoubleIssue) {
  // Permute program: #0 read b at 2, #1 S_PERMUTE at 5, #2 read a at 5,
  // #3 S_PERMUTE at 7, #4 write at 12. A second permute of b on switch 0 at
  // cycle 5, on another stream group, competes with #1.
  TestProgram program = permuteProgram(chip);
  ASSERT_EQ(simulateError(program, chip), "");
  extend(program, [&](ProgramBuilder &b) {
    b.permute(5, 0, {west(0)}, west(12), std::vector<uint32_t>(16, 0));
    b.write(11, chip.vectorsPerSlice() * 3, east(12));
  });
  int first = findInstruction(program.artifact, hetx::S_PERMUTE, 5);
  ASSERT_GE(first, 0);
  EXPECT_EQ(simulateError(program, chip),
            "hazard: switch double issue at cycle 5: instruction #" +
                std::to_string(first + 2) +
                " S_PERMUTE on switch 0 (node 'Extra'): switch unit 0 "
                "already issues instruction #" +
                std::to_string(first) +
                " S_PERMUTE at this cycle; a switch unit issues one "
                "instruction per cycle");
}

TEST_F(SimHazardTest, PermuteOnBothSwitchesInOneCycle) {
  // The same extra permute on switch 1 is allowed: each switch issues one
  // instruction per cycle. It takes its own input, read from slice 7.
  TestProgram program = permuteProgram(chip);
  uint64_t slice7 = chip.vectorsPerSlice() * 7;
  program.inputs["c"] = program.inputs["a"];
  extend(program, [&](ProgramBuilder &b) {
    b.input("c", {16}, slice7);
    b.read(3, slice7, east(16));
    b.permute(5, 1, {east(16)}, east(16), std::vector<uint32_t>(16, 0));
  });
  EXPECT_EQ(simulateError(program, chip), "");
}

TEST_F(SimHazardTest, BadLaneMapLength) {
  TestProgram program = permuteProgram(chip);
  int at = findInstruction(program.artifact, hetx::S_PERMUTE, 5);
  ASSERT_GE(at, 0);
  instr(program, at).set_lanes(12);
  EXPECT_EQ(simulateError(program, chip),
            "hazard: bad lane map at cycle 5: instruction #" +
                std::to_string(at) +
                " S_PERMUTE on switch 0 (node 'Concat_0'): lane map " +
                std::to_string(instr(program, at).lane_map()) +
                " has 16 entries, but lanes is 12; S_PERMUTE needs one entry "
                "per lane");
}

TEST_F(SimHazardTest, LaneMapIndexOutOfRange) {
  TestProgram program = permuteProgram(chip);
  int at = findInstruction(program.artifact, hetx::S_PERMUTE, 5);
  ASSERT_GE(at, 0);
  int maps = program.artifact.lane_maps_size();
  instr(program, at).set_lane_map(uint32_t(maps));
  EXPECT_EQ(simulateError(program, chip),
            "hazard: bad lane map at cycle 5: instruction #" +
                std::to_string(at) +
                " S_PERMUTE on switch 0 (node 'Concat_0'): field lane_map "
                "is " +
                std::to_string(maps) + ", but the artifact has " +
                std::to_string(maps) + " lane maps");
}

TEST_F(SimHazardTest, BadLaneMapEntry) {
  TestProgram program = permuteProgram(chip);
  int at = findInstruction(program.artifact, hetx::S_PERMUTE, 5);
  ASSERT_GE(at, 0);
  uint32_t map = instr(program, at).lane_map();
  program.artifact.mutable_lane_maps(int(map))->set_lanes(2, 16);
  EXPECT_EQ(simulateError(program, chip),
            "artifact lane map " + std::to_string(map) +
                " entry 2 is 16, but must be a lane below 16 or "
                "LANE_KEEP (4294967295)");
}

TEST_F(SimHazardTest, LaneMapOnAnotherOpcode) {
  instr(add, 2).set_lane_map(1);
  EXPECT_EQ(simulateError(add, chip),
            "hazard: bad lane map at cycle 7: instruction #2 V_ADD on vector "
            "unit (node 'Add_0'): field lane_map is set, but only S_PERMUTE "
            "takes one");
}

TEST_F(SimHazardTest, BadSwitchUnit) {
  TestProgram program = permuteProgram(chip);
  int at = findInstruction(program.artifact, hetx::S_PERMUTE, 5);
  ASSERT_GE(at, 0);
  instr(program, at).set_unit(2);
  EXPECT_EQ(simulateError(program, chip),
            "hazard: bad unit at cycle 5: instruction #" + std::to_string(at) +
                " S_PERMUTE on switch 2 (node 'Concat_0'): switch unit 2 "
                "does not exist (the chip has 2 SWITCH units)");
}

TEST_F(SimHazardTest, PermuteWithThreeSources) {
  TestProgram program = permuteProgram(chip);
  int at = findInstruction(program.artifact, hetx::S_PERMUTE, 7);
  ASSERT_GE(at, 0);
  *instr(program, at).add_src() = instr(program, at).src(0);
  EXPECT_EQ(simulateError(program, chip),
            "hazard: bad operands at cycle 7: instruction #" +
                std::to_string(at) +
                " S_PERMUTE on switch 0 (node 'Concat_0'): S_PERMUTE takes 1 "
                "or 2 source streams, but the instruction has 3");
}

TEST_F(SimHazardTest, WeightsInFlight) {
  chip::ChipSpec slowLoads = testChipWith(
      [](chip::Chip &c) { c.mutable_latency()->set_matrix_load(3); });
  TestProgram program = matmulProgram(slowLoads);
  ASSERT_EQ(simulateError(program, slowLoads), "");
  // The last row is installed at 21 and stores at 24, where the product
  // issues. Move the product (with its input read and its write) one cycle
  // earlier: every stream still lines up, but the load is in flight.
  for (int i = 0; i < program.artifact.instructions_size(); ++i) {
    hetx::Instruction &in = instr(program, i);
    if (in.opcode() == hetx::M_MATMUL || in.opcode() == hetx::MEM_WRITE ||
        (in.opcode() == hetx::MEM_READ && in.unit() == 2))
      in.set_cycle(in.cycle() - 1);
  }
  resort(program.artifact, slowLoads);
  int multiply = findInstruction(program.artifact, hetx::M_MATMUL, 23);
  int lastLoad = findInstruction(program.artifact, hetx::M_LOAD_WEIGHTS, 21);
  ASSERT_GE(multiply, 0);
  ASSERT_GE(lastLoad, 0);
  EXPECT_EQ(simulateError(program, slowLoads),
            "hazard: weights in flight at cycle 23: instruction #" +
                std::to_string(multiply) +
                " M_MATMUL on matrix plane 0 (node 'MatMul_0'): the weights "
                "of matrix plane 0 are still loading: instruction #" +
                std::to_string(lastLoad) +
                " M_LOAD_WEIGHTS stores its row at cycle 24");
}

TEST_F(SimHazardTest, BadAddress) {
  instr(add, 0).set_address(8192);
  EXPECT_EQ(simulateError(add, chip),
            "hazard: bad address at cycle 2: instruction #0 MEM_READ on MEM "
            "slice 0 (node 'Add_0'): address 8192 is outside SRAM, which "
            "holds 8192 vectors (8 slices of 1024)");
}

TEST_F(SimHazardTest, MisalignedStreamId) {
  instr(add, 2).mutable_dst()->set_id(2);
  EXPECT_EQ(simulateError(add, chip),
            "hazard: misaligned stream id at cycle 7: instruction #2 V_ADD on "
            "vector unit (node 'Add_0'): dst names stream 2, but a vector "
            "takes a group of 4 streams whose first id is a multiple of 4");
}

TEST_F(SimHazardTest, UnsortedCycles) {
  instr(add, 1).set_cycle(1);
  EXPECT_EQ(simulateError(add, chip),
            "hazard: unsorted cycles at cycle 1: instruction #1 MEM_READ on "
            "MEM slice 4 (node 'Add_0'): it issues at cycle 1, before "
            "instruction #0 MEM_READ at cycle 2; instructions must be sorted "
            "by cycle");
}

// Tests the remaining instruction checks, each by its message's start and a
// detail that names the field.
TEST_F(SimHazardTest, InvalidFields) {
  struct Case {
    int index;
    std::function<void(hetx::Instruction &)> edit;
    std::string start;
    std::string detail;
  };
  const std::vector<Case> cases = {
      {0, [](hetx::Instruction &i) { i.set_unit(1); },
       "hazard: bad unit at cycle 2: instruction #0 MEM_READ on MEM slice 1",
       "address 0 is in MEM slice 0, but the instruction names slice 1"},
      {2, [](hetx::Instruction &i) { i.set_unit(1); },
       "hazard: bad unit at cycle 7", "vector instructions run on unit 0"},
      {2, [](hetx::Instruction &i) { i.mutable_src(1)->set_id(32); },
       "hazard: bad stream id at cycle 7",
       "src[1] names stream 32, but the chip has 32 streams per direction"},
      {2,
       [](hetx::Instruction &i) {
         i.mutable_dst()->set_dir(hetx::Direction(5));
       },
       "hazard: bad stream direction at cycle 7", "dst has direction 5"},
      {2, [](hetx::Instruction &i) { i.set_lanes(0); },
       "hazard: bad lanes at cycle 7", "lanes is 0, but must be in [1, 16]"},
      {2, [](hetx::Instruction &i) { i.set_lanes(17); },
       "hazard: bad lanes at cycle 7", "lanes is 17"},
      {2, [](hetx::Instruction &i) { i.set_source_lane(3); },
       "hazard: bad lanes at cycle 7",
       "source_lane is set, but only V_BROADCAST takes it"},
      {2,
       [](hetx::Instruction &i) {
         i.set_opcode(hetx::V_BROADCAST);
         i.mutable_src()->RemoveLast();
         i.set_lanes(4);
         i.set_source_lane(4);
       },
       "hazard: bad lanes at cycle 7",
       "source_lane 4 is not among the lanes [0, 4) read"},
      {2, [](hetx::Instruction &i) { i.mutable_src()->RemoveLast(); },
       "hazard: bad operands at cycle 7",
       "V_ADD takes 2 source streams, but the instruction has 1"},
      {3, [](hetx::Instruction &i) { i.clear_src(); },
       "hazard: bad operands at cycle 11",
       "MEM_WRITE takes 1 source stream, but the instruction has 0"},
      {2, [](hetx::Instruction &i) { i.set_opcode(hetx::Opcode(99)); },
       "hazard: unknown opcode at cycle 7: instruction #2 opcode 99 on unit 0",
       "opcode 99 is not a hisa instruction"},
      {2, [](hetx::Instruction &i) { i.set_node(7); },
       "hazard: bad node index at cycle 7: instruction #2 V_ADD on vector "
       "unit (node #7)",
       "node index 7 is outside the artifact's 2 node names"},
  };
  for (const Case &c : cases) {
    TestProgram program = add;
    c.edit(instr(program, c.index));
    std::string error = simulateError(program, chip);
    EXPECT_EQ(error.rfind(c.start, 0), 0u) << error;
    EXPECT_NE(error.find(c.detail), std::string::npos) << error;
  }
}

TEST_F(SimHazardTest, BadRowAndPlane) {
  TestProgram program = matmulProgram(chip);
  int load = findInstruction(program.artifact, hetx::M_LOAD_WEIGHTS, 6);
  ASSERT_GE(load, 0);
  TestProgram badRow = program;
  instr(badRow, load).set_row(16);
  EXPECT_NE(simulateError(badRow, chip)
                .find("hazard: bad row at cycle 6: instruction #" +
                      std::to_string(load) +
                      " M_LOAD_WEIGHTS on matrix plane 0 (node 'MatMul_0'): "
                      "weight row 16 does not exist (a plane has 16 rows)"),
            std::string::npos);
  instr(program, load).set_unit(2);
  EXPECT_NE(simulateError(program, chip)
                .find("matrix plane 2 does not exist (the chip has 2 planes)"),
            std::string::npos);
}

TEST_F(SimHazardTest, ChipMismatch) {
  EXPECT_NE(simulateError(add, loadChip("tsp-v1"))
                .find("artifact was compiled for chip 'test-chip' revision 1"),
            std::string::npos);
}

TEST_F(SimHazardTest, InputsMustMatchTheArtifact) {
  TestProgram missing = add;
  missing.inputs.erase("b");
  EXPECT_EQ(simulateError(missing, chip), "no value given for input 'b'");
  TestProgram unknown = add;
  unknown.inputs["z"] = io::Tensor{{16}, std::vector<float>(16)};
  EXPECT_EQ(simulateError(unknown, chip),
            "the artifact has no input 'z' (its inputs: 'a', 'b')");
  TestProgram misshapen = add;
  misshapen.inputs["a"] = io::Tensor{{2, 8}, std::vector<float>(16)};
  EXPECT_EQ(simulateError(misshapen, chip),
            "input 'a' has shape [2, 8] (16 elements), but the artifact "
            "expects [16]");
}

TEST_F(SimHazardTest, BindingsMustFit) {
  TestProgram beyond = add;
  beyond.artifact.mutable_inputs(0)->set_address(8192);
  EXPECT_EQ(simulateError(beyond, chip),
            "input 'a': it takes 1 x 1 vectors of f32 from address 8192, "
            "beyond the chip's SRAM of 8192 rows");
  TestProgram narrow = add;
  narrow.artifact.mutable_inputs(0)->set_shape(0, 17);
  EXPECT_EQ(simulateError(narrow, chip),
            "input 'a': a row of 17 elements needs 2 vectors of 16 lanes, "
            "but vectors_per_row is 1");
  TestProgram overlap = add;
  overlap.artifact.mutable_inputs(1)->set_address(0);
  EXPECT_EQ(simulateError(overlap, chip),
            "input 'a' (addresses 0 to 0) and input 'b' (from address 0) "
            "overlap in SRAM");
  TestProgram program = matmulProgram(chip);
  program.artifact.mutable_constants(0)->mutable_data()->resize(100);
  EXPECT_EQ(simulateError(program, chip),
            "constant 'W': data holds 100 bytes, but shape [16, 16] of f32 "
            "needs 1024");
}

TEST_F(SimHazardTest, OutputNeverWritten) {
  add.artifact.mutable_instructions()->RemoveLast();
  EXPECT_EQ(simulateError(add, chip),
            "output 'y': the program never writes address 5120 (row 0, "
            "elements 0 onwards)");
}

} // namespace
} // namespace hetc::test

namespace hetc::test {
namespace {

// Tests rule 9: with one queue entry per issue slot and one dispatch per
// cycle, the matmul program's back-to-back weight reads outrun the
// dispatcher.
TEST(DispatchTest, DispatcherFallsBehind) {
  chip::ChipSpec chip = testChipWith([](chip::Chip &c) {
    c.mutable_dispatch()->set_per_cycle(1);
    c.mutable_dispatch()->set_queue_depth(1);
  });
  TestProgram program = matmulProgram(chip);
  EXPECT_EQ(simulateError(program, chip),
            "hazard: queue starvation at cycle 7: instruction #7 MEM_READ on "
            "MEM slice 1 (node 'MatMul_0'): it is due at cycle 7, but can "
            "enter its unit's queue at cycle 7 at the earliest: the "
            "dispatcher places 1 instructions per cycle (dispatch.per_cycle) "
            "and is busy with earlier ones until then");
}

// Tests that deeper queues absorb the same burst: they are filled further
// before cycle 0, so one dispatch per cycle keeps up.
TEST(DispatchTest, DeeperQueuesAbsorbTheBurst) {
  chip::ChipSpec chip = testChipWith([](chip::Chip &c) {
    c.mutable_dispatch()->set_per_cycle(1);
    c.mutable_dispatch()->set_queue_depth(16);
  });
  EXPECT_EQ(simulateError(matmulProgram(chip), chip), "");
}

} // namespace
} // namespace hetc::test
