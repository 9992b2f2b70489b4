//===- WeightBufferTest.cpp - A plane's weight buffer --------------------===//
//
// docs/isa.md: an M_LOAD_WEIGHTS `buffered` goes into the plane's weight
// buffer (the TSP's LW), which M_INSTALL_WEIGHTS makes the array its
// matmuls multiply by (the TSP's IW). The buffer has its own port:
// matrix.install_rows loads a cycle beside what the array does.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include "gtest/gtest.h"

#include <functional>

namespace hetc::test {
namespace {

/// matmulProgram (y = x W on plane 0) with W's rows loaded into the
/// buffer and installed, `installAt` cycles after the last row is loaded
/// (1: as soon as it has stored on test-chip); the matmul, its input's
/// read and its result's write move as late as the install makes them.
TestProgram bufferedProgram(const chip::ChipSpec &chip, int64_t installAt = 1,
                            int64_t multiplyAfter = 1) {
  TestProgram program = matmulProgram(chip);
  hetx::Artifact &artifact = program.artifact;
  int matmul = firstWith(artifact, hetx::M_MATMUL);
  int64_t lastLoad = 0;
  for (hetx::Instruction &in : *artifact.mutable_instructions())
    if (in.opcode() == hetx::M_LOAD_WEIGHTS) {
      in.set_buffered(true);
      lastLoad = std::max<int64_t>(lastLoad, int64_t(in.cycle()));
    }
  int64_t install = lastLoad + installAt;
  // The matmul, its input's read (slice 2) and its result's write.
  int64_t shift =
      install + multiplyAfter - int64_t(artifact.instructions(matmul).cycle());
  for (hetx::Instruction &in : *artifact.mutable_instructions())
    if (in.opcode() == hetx::M_MATMUL || in.opcode() == hetx::MEM_WRITE ||
        (in.opcode() == hetx::MEM_READ &&
         in.address() == 2 * chip.vectorsPerSlice()))
      in.set_cycle(uint64_t(int64_t(in.cycle()) + shift));
  hetx::Instruction &iw = *artifact.add_instructions();
  iw.set_opcode(hetx::M_INSTALL_WEIGHTS);
  iw.set_unit(0);
  iw.set_cycle(uint64_t(install));
  iw.set_node(artifact.instructions(matmul).node());
  resort(artifact, chip);
  return program;
}

/// The second weight load of `artifact`, in issue order.
hetx::Instruction &secondLoad(hetx::Artifact &artifact) {
  int first = firstWith(artifact, hetx::M_LOAD_WEIGHTS);
  int i = first + 1;
  while (artifact.instructions(i).opcode() != hetx::M_LOAD_WEIGHTS)
    ++i;
  return *artifact.mutable_instructions(i);
}

TEST(WeightBufferTest, AnInstalledBufferMultipliesAsTheArrayWould) {
  chip::ChipSpec chip = loadChip("test-chip");
  sim::SimResult expected = simulateOk(matmulProgram(chip), chip);
  sim::SimResult result = simulateOk(bufferedProgram(chip), chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  EXPECT_EQ(result.outputs[0].tensor.data, expected.outputs[0].tensor.data);
}

TEST(WeightBufferTest, AnInstallWaitsForTheBuffersRows) {
  chip::ChipSpec chip = loadChip("test-chip");
  std::string error = simulateError(bufferedProgram(chip, 0), chip);
  EXPECT_NE(error.find("weights in flight"), std::string::npos) << error;
  EXPECT_NE(error.find("the weight buffer of matrix plane 0 is still "
                       "loading"),
            std::string::npos)
      << error;
}

TEST(WeightBufferTest, AnInstallAndAMatmulTakeTheArrayInTurn) {
  chip::ChipSpec chip = loadChip("test-chip");
  std::string error = simulateError(bufferedProgram(chip, 1, 0), chip);
  // The install and the matmul in one cycle: one instruction a cycle.
  EXPECT_NE(error.find("plane double issue"), std::string::npos) << error;
}

TEST(WeightBufferTest, TheBufferTakesInstallRowsLoadsACycle) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = bufferedProgram(chip);
  // Two buffered loads in one cycle on a plane that takes one.
  hetx::Artifact &artifact = program.artifact;
  secondLoad(artifact).set_cycle(
      artifact.instructions(firstWith(artifact, hetx::M_LOAD_WEIGHTS)).cycle());
  resort(artifact, chip);
  std::string error = simulateError(program, chip);
  EXPECT_NE(error.find("the weight buffer of matrix plane 0 already takes 1 "
                       "loads at this cycle"),
            std::string::npos)
      << error;
}

// A row loaded into the buffer waits there for the install: loading it
// again first would lose the first load's weights.
TEST(WeightBufferTest, ABufferedRowWaitsForTheInstall) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = bufferedProgram(chip);
  hetx::Artifact &artifact = program.artifact;
  secondLoad(artifact).set_row(
      artifact.instructions(firstWith(artifact, hetx::M_LOAD_WEIGHTS)).row());
  std::string error = simulateError(program, chip);
  EXPECT_NE(error.find("weights overwritten"), std::string::npos) << error;
  EXPECT_NE(error.find("row 0 of the weight buffer of matrix plane 0 holds "
                       "the weights of instruction"),
            std::string::npos)
      << error;
}

TEST(WeightBufferTest, OnlyWeightLoadsGoToTheBuffer) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = bufferedProgram(chip);
  program.artifact
      .mutable_instructions(firstWith(program.artifact, hetx::M_MATMUL))
      ->set_buffered(true);
  std::string error = simulateError(program, chip);
  EXPECT_NE(error.find("only M_LOAD_WEIGHTS(_COLUMN) loads into a plane's "
                       "weight buffer"),
            std::string::npos)
      << error;
}

} // namespace
} // namespace hetc::test
