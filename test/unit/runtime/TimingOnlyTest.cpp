//===- TimingOnlyTest.cpp - The chip model without numerics ------------===//
//
// Timing-only mode must check exactly what full mode checks. Every hazard
// test already compares the two modes (see simulateError in
// TestPrograms.h); these tests cover correct programs, a run without
// inputs, and a few hazards spelled out.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

namespace hetc::test {
namespace {

sim::SimResult runMode(const TestProgram &program, const chip::ChipSpec &chip,
                       bool timingOnly, std::string &error) {
  sim::SimOptions options;
  options.timingOnly = timingOnly;
  sim::SimResult result;
  error.clear();
  sim::simulate(program.artifact, chip,
                timingOnly ? std::map<std::string, io::Tensor>()
                           : program.inputs,
                options, result, error);
  return result;
}

void expectSameStats(const sim::SimStats &a, const sim::SimStats &b) {
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.instructions, b.instructions);
  EXPECT_EQ(a.vector.cycles, b.vector.cycles);
  EXPECT_EQ(a.sramHighWater, b.sramHighWater);
  ASSERT_EQ(a.slices.size(), b.slices.size());
  for (size_t s = 0; s < a.slices.size(); ++s)
    EXPECT_EQ(a.slices[s].cycles, b.slices[s].cycles) << "slice " << s;
  ASSERT_EQ(a.planes.size(), b.planes.size());
  for (size_t p = 0; p < a.planes.size(); ++p)
    EXPECT_EQ(a.planes[p].instructions, b.planes[p].instructions);
}

// Tests that correct programs give the same figures in both modes, and no
// outputs (and need no inputs) in timing-only mode.
TEST(TimingOnlyTest, SameFiguresWithoutValues) {
  chip::ChipSpec chip = loadChip("test-chip");
  for (const TestProgram &program : {addProgram(chip), matmulProgram(chip)}) {
    std::string fullError, timingError;
    sim::SimResult full = runMode(program, chip, false, fullError);
    sim::SimResult timing = runMode(program, chip, true, timingError);
    ASSERT_EQ(fullError, "");
    ASSERT_EQ(timingError, "");
    expectSameStats(full.stats, timing.stats);
    EXPECT_EQ(full.outputs.size(), 1u);
    EXPECT_TRUE(timing.outputs.empty());
  }
}

// Tests hazards of each kind of state the checker keeps: streams, SRAM
// banks, the vector issue limit, weights in flight and unwritten outputs.
TEST(TimingOnlyTest, RejectsTheSameHazards) {
  chip::ChipSpec chip = loadChip("test-chip");
  chip::ChipSpec slowLoads = testChipWith(
      [](chip::Chip &c) { c.mutable_latency()->set_matrix_load(3); });
  std::vector<std::pair<TestProgram, const chip::ChipSpec *>> broken;
  TestProgram early = addProgram(chip);
  early.artifact.mutable_instructions(0)->set_cycle(3);
  broken.push_back({early, &chip});
  TestProgram bank = addProgram(chip);
  ProgramBuilder bankBuilder(chip, bank.artifact);
  bankBuilder.read(2, 0, east(8));
  bank.artifact = bankBuilder.build();
  broken.push_back({bank, &chip});
  TestProgram alus = addProgram(chip);
  ProgramBuilder aluBuilder(chip, alus.artifact);
  for (uint32_t id : {8u, 12u, 16u, 20u})
    aluBuilder.vector(7, hetx::V_MUL, {east(0), west(0)}, east(id));
  alus.artifact = aluBuilder.build();
  broken.push_back({alus, &chip});
  // On slow loads the matmul program's product issues at 24; one cycle
  // earlier (with its input read and write) the last row is in flight.
  TestProgram weights = matmulProgram(slowLoads);
  for (int i = 0; i < weights.artifact.instructions_size(); ++i) {
    hetx::Instruction &in = *weights.artifact.mutable_instructions(i);
    if (in.opcode() == hetx::M_MATMUL || in.opcode() == hetx::MEM_WRITE ||
        (in.opcode() == hetx::MEM_READ && in.unit() == 2))
      in.set_cycle(in.cycle() - 1);
  }
  resort(weights.artifact, slowLoads);
  broken.push_back({weights, &slowLoads});
  TestProgram unwritten = addProgram(chip);
  unwritten.artifact.mutable_instructions()->RemoveLast();
  unwritten.artifact.set_predicted_cycles(9);
  broken.push_back({unwritten, &chip});

  const char *starts[] = {"hazard: too early", "hazard: bank over-subscription",
                          "hazard: ALU over-issue", "hazard: weights in flight",
                          "output 'y': the program never writes"};
  for (size_t i = 0; i < broken.size(); ++i) {
    const auto &[program, on] = broken[i];
    std::string fullError, timingError;
    runMode(program, *on, false, fullError);
    runMode(program, *on, true, timingError);
    EXPECT_EQ(fullError.rfind(starts[i], 0), 0u) << fullError;
    EXPECT_EQ(timingError, fullError);
  }
}

} // namespace
} // namespace hetc::test
