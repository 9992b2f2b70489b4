//===- ScatterTest.cpp - MEM_SCATTER on the chip model -----------------===//
//
// A table of 1000 one-vector rows spans MEM slice 3, west of the vector
// unit, and slice 4, east of it (test-chip). Each update's index vector is
// read from slice 0 and its vector from slice 7; the vector unit passes
// both on in both directions in one cycle, and the chain's two
// MEM_SCATTERs read them as they pass. The table is the program's input
// and its output.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"
#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

using namespace hetc;
using namespace hetc::test;

namespace {

constexpr uint64_t kTable = 3 * 1024 + 500; // rows 0-523 in slice 3
constexpr uint64_t kRows = 1000;
constexpr uint64_t kSplit = 524;       // the first row of slice 4
constexpr uint64_t kIds = 100;         // slice 0
constexpr uint64_t kValues = 7 * 1024; // slice 7

float tableValue(uint64_t row, uint32_t lane) {
  return float(row) * 100.0f + float(lane);
}
float updateValue(int k, uint32_t lane) { return -1.0f - float(k * 16 + lane); }

/// Points each scatter at the first of its chain: the slice-3 scatter for
/// the same update (same index lane).
void linkChains(hetx::Artifact &a) {
  for (hetx::Instruction &instr : *a.mutable_instructions())
    if (instr.opcode() == hetx::MEM_SCATTER)
      for (int i = 0; i < a.instructions_size(); ++i)
        if (a.instructions(i).opcode() == hetx::MEM_SCATTER &&
            a.instructions(i).unit() == 3 &&
            a.instructions(i).index_lane() == instr.index_lane())
          instr.set_chain(uint32_t(i));
}

/// Builds the program for `updates` updates, update k storing row k of
/// the values at the row named by lane k of `ids`, the k-th starting at
/// cycle 2k (one scatter a cycle per slice at most).
TestProgram scatterProgram(const chip::ChipSpec &chip, int updates,
                           std::vector<int32_t> ids) {
  ProgramBuilder b(chip);
  b.setNode("cache_update");
  uint32_t lanes = chip.lanes();
  b.input("cache", {int64_t(kRows), int64_t(lanes)}, kTable);
  b.input("ids", {int64_t(lanes)}, kIds);
  b.input("values", {updates, int64_t(lanes)}, kValues);
  b.output("y", {int64_t(kRows), int64_t(lanes)}, kTable);
  uint32_t read = latencyOf(chip, hetx::MEM_READ);
  uint32_t vop = chip.proto().latency().vector_op();
  int64_t hop = chip.proto().streams().hop_cycles();
  auto distance = [](uint32_t a, uint32_t b) {
    return int64_t(a > b ? a - b : b - a);
  };
  uint32_t vu = chip.vectorPosition();
  for (int k = 0; k < updates; ++k) {
    // Both reads reach the vector unit at cycle `at`.
    uint64_t at = 2 * uint64_t(k) + 20;
    b.read(at - read - distance(chip.slicePosition(0), vu) * hop, kIds, east(0))
        .set_dtype(hetx::I32);
    b.read(at - read - distance(chip.slicePosition(7), vu) * hop,
           kValues + uint64_t(k), west(0));
    b.vector(at, hetx::V_MAX, {east(0), east(0)}, west(4)).set_dtype(hetx::I32);
    b.vector(at, hetx::V_MAX, {west(0), west(0)}, west(8));
    b.vector(at, hetx::V_MAX, {east(0), east(0)}, east(4)).set_dtype(hetx::I32);
    b.vector(at, hetx::V_MAX, {west(0), west(0)}, east(8));
    uint64_t passing = at + vop;
    b.scatter(passing + distance(chip.slicePosition(3), vu) * hop, 3, kTable, 1,
              kRows, 0, kSplit, uint32_t(k), west(4), west(8));
    b.scatter(passing + distance(chip.slicePosition(4), vu) * hop, 4, kTable, 1,
              kRows, kSplit, kRows, uint32_t(k), east(4), east(8));
  }
  TestProgram program{b.build(), {}};
  program.artifact.mutable_inputs(1)->set_dtype(hetx::I32);
  linkChains(program.artifact);
  io::Tensor &cache = program.inputs["cache"];
  cache.shape = {int64_t(kRows), int64_t(lanes)};
  for (uint64_t r = 0; r < kRows; ++r)
    for (uint32_t l = 0; l < lanes; ++l)
      cache.data.push_back(tableValue(r, l));
  io::Tensor &in = program.inputs["ids"];
  in.shape = {int64_t(lanes)};
  in.type = io::ElementType::I32;
  ids.resize(lanes, 0);
  in.ints = ids;
  io::Tensor &values = program.inputs["values"];
  values.shape = {updates, int64_t(lanes)};
  for (int k = 0; k < updates; ++k)
    for (uint32_t l = 0; l < lanes; ++l)
      values.data.push_back(updateValue(k, l));
  return program;
}

std::string run(const TestProgram &program, const chip::ChipSpec &chip,
                sim::SimResult &result, bool timingOnly = false) {
  sim::SimOptions options;
  options.timingOnly = timingOnly;
  std::string error;
  if (!sim::simulate(program.artifact, chip, program.inputs, options, result,
                     error))
    return error;
  return "";
}

} // namespace

// Tests that the slice holding each row stores the update there, on
// either side of the vector unit, that the other rows keep their values,
// and that a later update of a row replaces an earlier one.
TEST(ScatterTest, WritesTheRowInTheSliceThatHoldsIt) {
  chip::ChipSpec chip = loadChip("test-chip");
  std::vector<int32_t> ids = {900, 5, int32_t(kSplit), int32_t(kSplit) - 1, 5};
  TestProgram program = scatterProgram(chip, 5, ids);
  sim::SimResult result;
  ASSERT_EQ(run(program, chip, result), "");
  EXPECT_EQ(result.stats.cycles, program.artifact.predicted_cycles());
  const io::Tensor &y = result.outputs.at(0).tensor;
  uint32_t lanes = chip.lanes();
  for (uint64_t r = 0; r < kRows; ++r) {
    int last = -1;
    for (int k = 0; k < 5; ++k)
      if (uint64_t(ids[size_t(k)]) == r)
        last = k;
    for (uint32_t l = 0; l < lanes; ++l)
      ASSERT_EQ(y.data[r * lanes + l],
                last < 0 ? tableValue(r, l) : updateValue(last, l))
          << "row " << r << " lane " << l;
  }
  // Five chains of two slices each, whether they store or not.
  EXPECT_EQ(result.stats.slices[3].instructions, 5u);
  EXPECT_EQ(result.stats.slices[4].instructions, 5u);
}

// Tests that a timing-only run accepts the program as a full run does.
TEST(ScatterTest, TimingOnlyRunAgrees) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = scatterProgram(chip, 2, {900, 5});
  sim::SimResult result;
  ASSERT_EQ(run(program, chip, result, /*timingOnly=*/true), "");
  EXPECT_EQ(result.stats.cycles, program.artifact.predicted_cycles());
}

// Tests that an index outside the table stops the run with an error that
// names the node, never a silent drop or a write elsewhere.
TEST(ScatterTest, IndexOutOfRangeIsAnError) {
  chip::ChipSpec chip = loadChip("test-chip");
  for (int32_t bad : {int32_t(kRows), -1, 2147483647}) {
    TestProgram program = scatterProgram(chip, 2, {3, bad});
    sim::SimResult result;
    std::string error = run(program, chip, result);
    EXPECT_NE(error.find("index out of range"), std::string::npos) << error;
    EXPECT_NE(error.find("(node 'cache_update')"), std::string::npos) << error;
    EXPECT_NE(error.find("row index " + std::to_string(bad) +
                         " (lane 1 of its index vector) is outside [0, "
                         "1000), the rows of the table it scatters to"),
              std::string::npos)
        << error;
  }
}

// Tests that a chain whose slices leave a row out, or that mixes tables,
// is refused at load.
TEST(ScatterTest, ChainIsChecked) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = scatterProgram(chip, 1, {3});
  for (hetx::Instruction &instr : *program.artifact.mutable_instructions())
    if (instr.opcode() == hetx::MEM_SCATTER && instr.unit() == 4)
      instr.set_row_begin(kSplit + 1);
  sim::SimResult result;
  std::string error = run(program, chip, result);
  EXPECT_NE(error.find("bad scatter chain"), std::string::npos) << error;
  EXPECT_NE(error.find("row 524 is missing or held twice"), std::string::npos)
      << error;

  program = scatterProgram(chip, 1, {3});
  for (hetx::Instruction &instr : *program.artifact.mutable_instructions())
    if (instr.opcode() == hetx::MEM_SCATTER && instr.unit() == 4)
      instr.set_index_lane(2);
  error = run(program, chip, result);
  EXPECT_NE(error.find("which is not an earlier MEM_SCATTER heading its own "
                       "chain with the same table, index lane and type"),
            std::string::npos)
      << error;

  // A scatter takes two sources and emits nothing.
  program = scatterProgram(chip, 1, {3});
  for (hetx::Instruction &instr : *program.artifact.mutable_instructions())
    if (instr.opcode() == hetx::MEM_SCATTER && instr.unit() == 3)
      instr.mutable_src()->RemoveLast();
  error = run(program, chip, result);
  EXPECT_NE(error.find("MEM_SCATTER takes 2 source streams"), std::string::npos)
      << error;
}

// Tests that a scatter takes every bank port of its slice: a read of the
// slice in the same cycle is refused.
TEST(ScatterTest, TakesEveryBankOfItsSlice) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = scatterProgram(chip, 1, {3});
  uint64_t cycle = 0;
  for (const hetx::Instruction &instr : program.artifact.instructions())
    if (instr.opcode() == hetx::MEM_SCATTER && instr.unit() == 4)
      cycle = instr.cycle();
  // A row of slice 4 beyond the table, written back to slice 5.
  ProgramBuilder b(chip, program.artifact);
  b.read(cycle, 4 * 1024 + 600, east(12));
  b.write(cycle + latencyOf(chip, hetx::MEM_READ) +
              (chip.slicePosition(5) - chip.slicePosition(4)) *
                  chip.proto().streams().hop_cycles(),
          5 * 1024, east(12));
  program.artifact = b.build();
  linkChains(program.artifact);
  sim::SimResult result;
  std::string error = run(program, chip, result);
  EXPECT_NE(error.find("bank over-subscription"), std::string::npos) << error;
  EXPECT_NE(error.find("MEM_SCATTER"), std::string::npos) << error;
}
