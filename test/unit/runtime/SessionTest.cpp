//===- SessionTest.cpp - Runs of one program on one SRAM ----------------===//
//
// An accumulator: input `acc` (slice 0) and input `x` (slice 4) are read,
// added on the vector unit and written back over `acc`, which output
// `acc_out` names. In a session `acc` is resident: it starts at zero, each
// run adds `x` to what the run before left, and only `x` is loaded.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"
#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

using namespace hetc;
using namespace hetc::test;

namespace {

hetx::Artifact accumulator(const chip::ChipSpec &chip) {
  uint32_t lanes = chip.lanes();
  uint64_t acc = 0, x = 4 * chip.vectorsPerSlice();
  uint32_t hop = chip.proto().streams().hop_cycles();
  uint32_t posAcc = chip.slicePosition(0), posX = chip.slicePosition(4),
           posV = chip.vectorPosition();
  uint32_t read = latencyOf(chip, hetx::MEM_READ);
  ProgramBuilder b(chip);
  b.setNode("accumulate");
  b.input("acc", {lanes}, acc);
  b.input("x", {lanes}, x);
  b.output("acc_out", {lanes}, acc);
  uint64_t at = 2 + read + (posV - posAcc) * hop;
  b.read(2, acc, east(0));
  b.read(at - (posX - posV) * hop - read, x, west(0));
  b.vector(at, hetx::V_ADD, {east(0), west(0)}, west(4));
  b.write(at + latencyOf(chip, hetx::V_ADD) + (posV - posAcc) * hop, acc,
          west(4));
  return b.build();
}

io::Tensor filled(uint32_t lanes, float value) {
  return io::Tensor{{lanes}, std::vector<float>(lanes, value)};
}

/// The accumulator, loaded for test-chip.
class AccumulatorSession : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(sim::load(artifact, chip, program, error)) << error;
  }
  chip::ChipSpec chip = loadChip("test-chip");
  hetx::Artifact artifact = accumulator(chip);
  sim::LoadedProgram program;
  std::string error;
};

// Tests that the input an output updates in place is resident: it starts
// at zero, keeps what each run wrote, and only the other input is loaded;
// every run takes the predicted cycles.
TEST_F(AccumulatorSession, ResidentInputCarriesOverRuns) {
  sim::Session session(program);
  ASSERT_EQ(session.resident().size(), 1u);
  EXPECT_EQ(session.resident()[0].first, "acc");
  EXPECT_EQ(session.resident()[0].second, "acc_out");
  EXPECT_TRUE(session.isResident("acc"));
  EXPECT_FALSE(session.isResident("x"));
  for (int run = 1; run <= 3; ++run) {
    sim::SimResult result;
    ASSERT_TRUE(
        session.step({{"x", filled(chip.lanes(), 1.5f)}}, result, error))
        << error;
    EXPECT_EQ(result.stats.cycles, artifact.predicted_cycles());
    EXPECT_TRUE(result.outputs.empty()) << "acc_out stays on the chip";
    io::Tensor acc;
    ASSERT_TRUE(session.fetch("acc", acc, error)) << error;
    EXPECT_EQ(acc.data, std::vector<float>(chip.lanes(), 1.5f * float(run)));
  }
}

// Tests that the first run may give a resident input its starting value,
// and a later run may not.
TEST_F(AccumulatorSession, ResidentInputIsGivenOnlyFirst) {
  sim::Session session(program);
  sim::SimResult result;
  ASSERT_TRUE(session.step(
      {{"x", filled(chip.lanes(), 1.0f)}, {"acc", filled(chip.lanes(), 10.0f)}},
      result, error))
      << error;
  io::Tensor acc;
  ASSERT_TRUE(session.fetch("acc", acc, error)) << error;
  EXPECT_EQ(acc.data, std::vector<float>(chip.lanes(), 11.0f));
  EXPECT_FALSE(session.step(
      {{"x", filled(chip.lanes(), 1.0f)}, {"acc", filled(chip.lanes(), 0.0f)}},
      result, error));
  EXPECT_NE(error.find("input 'acc' is resident"), std::string::npos) << error;
  EXPECT_FALSE(session.step({}, result, error));
  EXPECT_EQ(error, "no value given for input 'x'");
  EXPECT_FALSE(session.fetch("x", acc, error));
  EXPECT_EQ(error, "input 'x' is not resident");
}

// Tests that a value stored over a resident input between two runs is the
// one the next run reads, in the predicted cycles, and that only a
// resident input of a started session takes one, of its shape.
TEST_F(AccumulatorSession, StoredValueReplacesTheResidentOne) {
  sim::Session session(program);
  sim::SimResult result;
  EXPECT_FALSE(session.store("acc", filled(chip.lanes(), 5.0f), error));
  EXPECT_NE(error.find("no run has started"), std::string::npos) << error;
  ASSERT_TRUE(session.step({{"x", filled(chip.lanes(), 1.0f)}}, result, error))
      << error;
  ASSERT_TRUE(session.store("acc", filled(chip.lanes(), 5.0f), error)) << error;
  ASSERT_TRUE(session.step({{"x", filled(chip.lanes(), 1.0f)}}, result, error))
      << error;
  EXPECT_EQ(result.stats.cycles, artifact.predicted_cycles());
  io::Tensor acc;
  ASSERT_TRUE(session.fetch("acc", acc, error)) << error;
  EXPECT_EQ(acc.data, std::vector<float>(chip.lanes(), 6.0f));
  EXPECT_FALSE(session.store("x", filled(chip.lanes(), 1.0f), error));
  EXPECT_EQ(error, "input 'x' is not resident");
  EXPECT_FALSE(session.store("acc", io::Tensor{{3}, {1, 2, 3}}, error));
  EXPECT_NE(error.find("acc"), std::string::npos) << error;
}

// Tests that a program with no output over an input has nothing resident
// and runs as run() does, its outputs read back each time.
TEST(SessionTest, NothingResident) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram add = addProgram(chip);
  sim::LoadedProgram program;
  std::string error;
  ASSERT_TRUE(sim::load(add.artifact, chip, program, error)) << error;
  sim::Session session(program);
  EXPECT_TRUE(session.resident().empty());
  sim::SimResult once = simulateOk(add, chip);
  for (int run = 0; run < 2; ++run) {
    sim::SimResult result;
    ASSERT_TRUE(session.step(add.inputs, result, error)) << error;
    ASSERT_EQ(result.outputs.size(), 1u);
    EXPECT_EQ(result.outputs[0].tensor.data, once.outputs[0].tensor.data);
    EXPECT_EQ(result.stats.cycles, once.stats.cycles);
  }
}

} // namespace

// Tests that a program over the session's SRAM layout (here the
// accumulator itself, as a prefill program over its decode step's) runs on
// the session's SRAM: before the first step it starts from zero, and it
// updates the resident input in place for the steps after it.
TEST_F(AccumulatorSession, CompanionRunsOnTheSessionsSram) {
  sim::LoadedProgram companion;
  ASSERT_TRUE(sim::load(artifact, chip, companion, error)) << error;
  sim::Session session(program);
  sim::SimResult result;
  ASSERT_TRUE(session.runCompanion(
      companion, {{"x", filled(chip.lanes(), 2.0f)}}, result, error))
      << error;
  EXPECT_EQ(result.stats.cycles, artifact.predicted_cycles());
  EXPECT_TRUE(result.outputs.empty()) << "acc_out stays on the chip";
  ASSERT_TRUE(session.step({{"x", filled(chip.lanes(), 1.5f)}}, result, error))
      << error;
  io::Tensor acc;
  ASSERT_TRUE(session.fetch("acc", acc, error)) << error;
  EXPECT_EQ(acc.data, std::vector<float>(chip.lanes(), 3.5f));
  // The resident input is the session's, never the companion's to give.
  EXPECT_FALSE(session.runCompanion(
      companion,
      {{"x", filled(chip.lanes(), 1.0f)}, {"acc", filled(chip.lanes(), 1.0f)}},
      result, error));
  EXPECT_NE(error.find("input 'acc' is the decode step's"), std::string::npos)
      << error;
}

// Tests that a companion whose binding of a resident input lies elsewhere
// is refused before it runs, naming the binding and where the step keeps
// it.
TEST_F(AccumulatorSession, CompanionWithTheCacheElsewhereIsRefused) {
  hetx::Artifact moved = artifact;
  moved.mutable_inputs(0)->set_address(8);
  moved.mutable_outputs(0)->set_address(8);
  sim::LoadedProgram companion;
  ASSERT_TRUE(sim::load(moved, chip, companion, error)) << error;
  sim::Session session(program);
  sim::SimResult result;
  EXPECT_FALSE(session.runCompanion(
      companion, {{"x", filled(chip.lanes(), 2.0f)}}, result, error));
  EXPECT_EQ(error, "the prefill program's input 'acc' is not where, or not "
                   "as, the decode step keeps it on the chip (address 0)");
}
