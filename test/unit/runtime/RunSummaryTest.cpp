//===- RunSummaryTest.cpp - Utilisation and SRAM figures of a run ------===//
//
// The matmul program on test-chip, by hand: 32 cycles; plane 0 issues 16
// weight loads and one product, each in its own cycle (17 busy cycles);
// slice 1 reads the 16 weight rows (16 cycles), slice 2 reads x and slice 3
// writes y (one cycle each); the vector unit is idle. SRAM holds W (16
// vectors), x and y: 18 vectors of 16 fp32 lanes.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/run/RunCommand.h"
#include "runtime/run/RunSummary.h"
#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

namespace hetc::test {
namespace {

sim::SimStats statsOf(const TestProgram &program, const chip::ChipSpec &chip) {
  sim::SimResult result;
  std::string error;
  EXPECT_TRUE(
      sim::simulate(program.artifact, chip, program.inputs, result, error))
      << error;
  return result.stats;
}

TEST(RunSummaryTest, Percent) {
  EXPECT_EQ(run::percent(0, 0), "0.0%");
  EXPECT_EQ(run::percent(1, 3), "33.3%");
  EXPECT_EQ(run::percent(17, 32), "53.1%");
  EXPECT_EQ(run::percent(32, 32), "100.0%");
}

TEST(RunSummaryTest, MatmulProgramFigures) {
  chip::ChipSpec chip = loadChip("test-chip");
  sim::SimStats stats = statsOf(matmulProgram(chip), chip);
  EXPECT_EQ(stats.cycles, 32u);
  EXPECT_EQ(stats.planes[0].cycles, 17u);
  EXPECT_EQ(stats.slices[1].cycles, 16u);
  EXPECT_EQ(stats.sramHighWater, 18u * 64);
  std::ostringstream out;
  run::printUsage(out, stats, chip);
  EXPECT_EQ(out.str(),
            "utilisation: vector unit 0.0% (0 of 32 cycles)\n"
            "utilisation: matrix plane 0 53.1% (17 of 32 cycles)\n"
            "utilisation: MEM slices: busiest slice 1 50.0% (16 of 32 "
            "cycles), average 7.0%\n"
            "SRAM high-water: 1152 bytes, 0.2% of 524288 bytes\n");
}

// Tests that the high-water mark counts distinct addresses: a write over
// the input x adds nothing, a write to a fresh address adds one vector's
// bytes.
TEST(RunSummaryTest, HighWaterCountsDistinctAddresses) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = matmulProgram(chip);
  // The product leaves plane 0 (position 0) on EAST group 4 at cycle 26:
  // it passes slice 2 (position 4, holding x) at 30 and slice 3 at 31.
  ProgramBuilder over(chip, program.artifact);
  over.write(30, 2 * 1024, east(4));
  TestProgram overInput = program;
  overInput.artifact = over.build();
  EXPECT_EQ(statsOf(overInput, chip).sramHighWater, 18u * 64);
  ProgramBuilder fresh(chip, program.artifact);
  fresh.write(31, 3 * 1024 + 1, east(4));
  TestProgram freshAddress = program;
  freshAddress.artifact = fresh.build();
  EXPECT_EQ(statsOf(freshAddress, chip).sramHighWater, 19u * 64);
}

// Tests that `hetc run` prints the new lines after the existing summary.
TEST(RunSummaryTest, RunCommandPrintsThemLast) {
  chip::ChipSpec chip = loadChip("test-chip");
  std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "run_summary";
  std::filesystem::create_directories(dir);
  run::RunOptions options;
  options.artifactPath = (dir / "matmul.hetx").string();
  options.chipPath = sourcePath("chips/test-chip.chip");
  std::string error;
  ASSERT_TRUE(artifact::writeFile(matmulProgram(chip).artifact,
                                  options.artifactPath, error))
      << error;
  std::ostringstream out, err;
  ASSERT_EQ(run::runCommand(options, out, err), 0) << err.str();
  std::string text = out.str();
  size_t check = text.find("predicted cycles == simulated cycles: yes\n");
  ASSERT_NE(check, std::string::npos) << text;
  EXPECT_EQ(text.substr(check),
            "predicted cycles == simulated cycles: yes\n"
            "utilisation: vector unit 0.0% (0 of 32 cycles)\n"
            "utilisation: matrix plane 0 53.1% (17 of 32 cycles)\n"
            "utilisation: MEM slices: busiest slice 1 50.0% (16 of 32 "
            "cycles), average 7.0%\n"
            "SRAM high-water: 1152 bytes, 0.2% of 524288 bytes\n"
            "served by: chip\n");
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace hetc::test
