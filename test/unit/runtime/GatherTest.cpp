//===- GatherTest.cpp - MEM_GATHER on the chip model -------------------===//
//
// A table of 1500 one-vector rows spans MEM slices 0 and 1 of test-chip.
// Each token's index vector is read from slice 4, turned east on switch 0,
// and passes the chain's two MEM_GATHERs; the slice that holds the row
// emits it, and the row is written to slice 5.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"
#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

using namespace hetc;
using namespace hetc::test;

namespace {

constexpr uint64_t kTable = 300;  // rows 0-723 in slice 0, 724-1499 in 1
constexpr uint64_t kRows = 1500;
constexpr uint64_t kIds = 4096;   // slice 4
constexpr uint64_t kOut = 5120;   // slice 5
constexpr uint64_t kSplit = 724;  // the first row of slice 1

float tableValue(uint64_t row, uint32_t lane) {
  return float(row) * 100.0f + float(lane);
}

/// Points each gather at the first of its chain: the slice-0 gather for
/// the same token (same index lane).
void linkChains(hetx::Artifact &a) {
  for (hetx::Instruction &instr : *a.mutable_instructions())
    if (instr.opcode() == hetx::MEM_GATHER)
      for (int i = 0; i < a.instructions_size(); ++i)
        if (a.instructions(i).opcode() == hetx::MEM_GATHER &&
            a.instructions(i).unit() == 0 &&
            a.instructions(i).index_lane() == instr.index_lane())
          instr.set_chain(uint32_t(i));
}

/// Builds the program for `tokens` tokens, token k gathering by lane k of
/// `ids`, the k-th starting at cycle k.
TestProgram gatherProgram(const chip::ChipSpec &chip, int tokens,
                          std::vector<int32_t> ids) {
  ProgramBuilder b(chip);
  b.setNode("embed");
  uint32_t lanes = chip.lanes();
  std::vector<float> table(kRows * lanes);
  for (uint64_t r = 0; r < kRows; ++r)
    for (uint32_t l = 0; l < lanes; ++l)
      table[r * lanes + l] = tableValue(r, l);
  b.constant("table", {int64_t(kRows), int64_t(lanes)}, kTable, table);
  b.input("ids", {int64_t(lanes)}, kIds);
  b.output("y", {tokens, int64_t(lanes)}, kOut);
  std::vector<uint32_t> identity(lanes);
  for (uint32_t l = 0; l < lanes; ++l)
    identity[l] = l;
  uint32_t read = latencyOf(chip, hetx::MEM_READ);
  uint32_t turn = chip.proto().latency().switch_op();
  int64_t hop = chip.proto().streams().hop_cycles();
  auto distance = [](uint32_t a, uint32_t b) {
    return int64_t(a > b ? a - b : b - a);
  };
  uint32_t sw = chip.switchPosition(0);
  for (int k = 0; k < tokens; ++k) {
    uint64_t t = uint64_t(k);
    b.read(t, kIds, west(0)).set_dtype(hetx::I32);
    uint64_t atSwitch = t + read + distance(chip.slicePosition(4), sw) * hop;
    b.permute(atSwitch, 0, {west(0)}, east(4), identity).set_dtype(hetx::I32);
    uint64_t passed = atSwitch + turn;
    for (uint32_t slice : {0u, 1u}) {
      uint64_t begin = slice == 0 ? 0 : kSplit;
      uint64_t end = slice == 0 ? kSplit : kRows;
      b.gather(passed + distance(chip.slicePosition(slice), sw) * hop, slice,
               kTable, 1, kRows, begin, end, uint32_t(k), east(4), east(8));
    }
    b.write(passed + read + distance(chip.slicePosition(5), sw) * hop,
            kOut + uint64_t(k), east(8));
  }
  TestProgram program{b.build(), {}};
  program.artifact.mutable_inputs(0)->set_dtype(hetx::I32);
  linkChains(program.artifact);
  io::Tensor &in = program.inputs["ids"];
  in.shape = {int64_t(lanes)};
  in.type = io::ElementType::I32;
  ids.resize(lanes, 0);
  in.ints = ids;
  return program;
}

std::string run(const TestProgram &program, const chip::ChipSpec &chip,
                sim::SimResult &result) {
  std::string error;
  if (!sim::simulate(program.artifact, chip, program.inputs, result, error))
    return error;
  return "";
}

} // namespace

// Tests that the slice holding each row emits it, whichever that is, and
// that the prediction holds.
TEST(GatherTest, ReadsTheRowFromTheSliceThatHoldsIt) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = gatherProgram(chip, 3, {1000, 5, int32_t(kSplit)});
  sim::SimResult result;
  ASSERT_EQ(run(program, chip, result), "");
  EXPECT_EQ(result.stats.cycles, program.artifact.predicted_cycles());
  const io::Tensor &y = result.outputs.at(0).tensor;
  uint32_t lanes = chip.lanes();
  for (int k = 0; k < 3; ++k) {
    uint64_t row = k == 0 ? 1000 : k == 1 ? 5 : kSplit;
    for (uint32_t l = 0; l < lanes; ++l)
      EXPECT_EQ(y.data[k * lanes + l], tableValue(row, l))
          << "token " << k << " lane " << l;
  }
  // Two chains of two slices each, whether they hit or not.
  EXPECT_EQ(result.stats.slices[0].instructions, 3u);
  EXPECT_EQ(result.stats.slices[1].instructions, 3u);
}

// Tests that a timing-only run accepts the program as a full run does.
TEST(GatherTest, TimingOnlyRunAgrees) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = gatherProgram(chip, 2, {1000, 5});
  sim::SimOptions options;
  options.timingOnly = true;
  sim::SimResult result;
  std::string error;
  ASSERT_TRUE(sim::simulate(program.artifact, chip, program.inputs, options,
                            result, error))
      << error;
  EXPECT_EQ(result.stats.cycles, program.artifact.predicted_cycles());
}

// Tests that an index outside the table stops the run with an error that
// names the node, never a silent row.
TEST(GatherTest, IndexOutOfRangeIsAnError) {
  chip::ChipSpec chip = loadChip("test-chip");
  for (int32_t bad : {int32_t(kRows), -1, 2147483647}) {
    TestProgram program = gatherProgram(chip, 2, {3, bad});
    sim::SimResult result;
    std::string error = run(program, chip, result);
    EXPECT_NE(error.find("index out of range"), std::string::npos) << error;
    EXPECT_NE(error.find("(node 'embed')"), std::string::npos) << error;
    EXPECT_NE(error.find("row index " + std::to_string(bad) +
                         " (lane 1 of its index vector) is outside [0, 1500)"),
              std::string::npos)
        << error;
    EXPECT_EQ(error.find("hazard"), std::string::npos) << error;
  }
}

// Tests that a chain whose slices leave a row out is refused at load.
TEST(GatherTest, ChainMustCoverTheTable) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = gatherProgram(chip, 1, {3});
  for (hetx::Instruction &instr :
       *program.artifact.mutable_instructions())
    if (instr.opcode() == hetx::MEM_GATHER && instr.unit() == 1)
      instr.set_row_begin(kSplit + 1);
  sim::SimResult result;
  std::string error = run(program, chip, result);
  EXPECT_NE(error.find("bad gather chain"), std::string::npos) << error;
  EXPECT_NE(error.find("row 724 is missing or held twice"), std::string::npos)
      << error;
}

// Tests the load-time checks of the gather fields.
TEST(GatherTest, FieldsAreChecked) {
  chip::ChipSpec chip = loadChip("test-chip");
  struct Case {
    std::function<void(hetx::Instruction &)> edit;
    std::string message;
  };
  std::vector<Case> cases = {
      {[](hetx::Instruction &i) { i.set_row_end(kSplit + 1); },
       "are not all in MEM slice 0"},
      {[](hetx::Instruction &i) { i.set_stride(0); }, "must be in [1, 8192]"},
      {[](hetx::Instruction &i) { i.set_index_lane(16); },
       "index_lane 16 is not a lane"},
      {[](hetx::Instruction &i) { i.set_row_begin(kSplit); },
       "are not a non-empty part"},
      {[](hetx::Instruction &i) { i.set_chain(7); },
       "which is not an earlier MEM_GATHER heading its own chain"},
  };
  for (const Case &c : cases) {
    TestProgram program = gatherProgram(chip, 1, {3});
    for (hetx::Instruction &instr : *program.artifact.mutable_instructions())
      if (instr.opcode() == hetx::MEM_GATHER && instr.unit() == 0)
        c.edit(instr);
    sim::SimResult result;
    std::string error = run(program, chip, result);
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
  }
  // Only MEM_GATHER takes the fields.
  TestProgram program = gatherProgram(chip, 1, {3});
  program.artifact.mutable_instructions(0)->set_stride(2);
  sim::SimResult result;
  EXPECT_NE(run(program, chip, result)
                .find("only MEM_GATHER and MEM_SCATTER take them"),
            std::string::npos);
}

// Tests that a gather takes every bank port of its slice: a read of the
// other bank in the same cycle is refused, before or after it.
TEST(GatherTest, TakesEveryBankOfItsSlice) {
  chip::ChipSpec chip = loadChip("test-chip");
  for (bool readFirst : {false, true}) {
    TestProgram program = gatherProgram(chip, 1, {3});
    uint64_t cycle = 0;
    for (const hetx::Instruction &instr : program.artifact.instructions())
      if (instr.opcode() == hetx::MEM_GATHER && instr.unit() == 0)
        cycle = instr.cycle();
    // The table's last row in slice 0 (1023, bank 1; the gather's
    // address, 300, is in bank 0), written back to slice 0.
    ProgramBuilder b(chip, program.artifact);
    b.read(cycle, kTable + kSplit - 1, west(12));
    b.write(cycle + latencyOf(chip, hetx::MEM_READ), 0, west(12));
    program.artifact = b.build();
    auto *list = program.artifact.mutable_instructions();
    if (readFirst) {
      // Within the cycle, the read goes before the gather.
      int gather = -1, read = -1;
      for (int i = 0; i < list->size(); ++i) {
        const hetx::Instruction &instr = list->Get(i);
        if (instr.cycle() != cycle)
          continue;
        if (instr.opcode() == hetx::MEM_GATHER)
          gather = i;
        if (instr.opcode() == hetx::MEM_READ)
          read = i;
      }
      ASSERT_GE(gather, 0);
      ASSERT_GT(read, gather);
      list->SwapElements(gather, read);
    }
    linkChains(program.artifact);
    sim::SimResult result;
    std::string error = run(program, chip, result);
    EXPECT_NE(error.find("bank over-subscription"), std::string::npos)
        << error;
    EXPECT_NE(error.find(readFirst ? "a MEM_GATHER takes every bank port"
                                   : "MEM_GATHER)"),
              std::string::npos)
        << error;
  }
}
