//===- TrainTest.cpp - Trains (Repeat) on the chip model -----------------===//
//
// A train is one instruction issued `repeat` times, `repeat_cycles` apart
// (docs/isa.md, "Trains"). The chip model expands it into its issues at
// load: every rule holds for each issue, and the dispatcher places the
// train once.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"
#include "runtime/sim/Program.h"

#include "gtest/gtest.h"

#include <cstdlib>

namespace hetc::test {
namespace {

/// The matmul program with its weights installed by one read train and one
/// load train: issue r reads row r of W and installs it as row r.
TestProgram trainMatmulProgram(const chip::ChipSpec &chip) {
  TestProgram program = matmulProgram(chip);
  hetx::Artifact &artifact = program.artifact;
  uint32_t lanes = chip.lanes();
  // Keep the first read and load of each row's pair, drop the others, and
  // make the two kept ones trains.
  google::protobuf::RepeatedPtrField<hetx::Instruction> kept;
  bool read = false, load = false;
  for (const hetx::Instruction &in : artifact.instructions()) {
    bool weightRead = in.opcode() == hetx::MEM_READ && in.unit() == 1;
    bool weightLoad = in.opcode() == hetx::M_LOAD_WEIGHTS;
    if ((weightRead && read) || (weightLoad && load))
      continue;
    hetx::Instruction &copy = *kept.Add() = in;
    if (weightRead || weightLoad) {
      copy.set_repeat(lanes);
      copy.set_repeat_cycles(1);
      copy.set_repeat_step(1);
      (weightRead ? read : load) = true;
    }
  }
  artifact.mutable_instructions()->Swap(&kept);
  return program;
}

TEST(TrainTest, ATrainComputesWhatItsIssuesDo) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram rows = matmulProgram(chip);
  TestProgram train = trainMatmulProgram(chip);
  ASSERT_EQ(train.artifact.instructions_size() + 2 * int(chip.lanes()) - 2,
            rows.artifact.instructions_size());
  sim::SimResult expected = simulateOk(rows, chip);
  sim::SimResult result = simulateOk(train, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  EXPECT_EQ(result.outputs[0].tensor.data, expected.outputs[0].tensor.data);
  EXPECT_EQ(result.stats.cycles, expected.stats.cycles);
  // Every issue counts as an instruction executed.
  EXPECT_EQ(result.stats.instructions, expected.stats.instructions);
}

// The per-row program outruns a dispatcher that places one instruction a
// cycle into one-entry queues (DispatchTest.DispatcherFallsBehind); its
// trains are placed once each.
TEST(TrainTest, TheDispatcherPlacesATrainOnce) {
  chip::ChipSpec chip = testChipWith([](chip::Chip &c) {
    c.mutable_dispatch()->set_per_cycle(1);
    c.mutable_dispatch()->set_queue_depth(1);
  });
  EXPECT_NE(simulateError(matmulProgram(chip), chip), "");
  EXPECT_EQ(simulateError(trainMatmulProgram(chip), chip), "");
}

// A train holds its queue entry until its last issue: with one entry, the
// plane's matmul cannot enter the queue while the load train issues.
TEST(TrainTest, ATrainHoldsItsQueueEntryUntilItsLastIssue) {
  chip::ChipSpec chip = testChipWith(
      [](chip::Chip &c) { c.mutable_dispatch()->set_queue_depth(1); });
  TestProgram program = trainMatmulProgram(chip);
  int load = firstWith(program.artifact, hetx::M_LOAD_WEIGHTS);
  int matmul = firstWith(program.artifact, hetx::M_MATMUL);
  uint64_t last =
      program.artifact.instructions(load).cycle() + chip.lanes() - 1;
  ASSERT_GT(program.artifact.instructions(matmul).cycle(), last);
  EXPECT_EQ(simulateError(program, chip), "");
  // Due at the load train's last issue, the matmul finds no cycle before
  // it to be placed in.
  program.artifact.mutable_instructions(matmul)->set_cycle(last);
  std::string error = simulateError(program, chip);
  EXPECT_NE(error.find("queue starvation"), std::string::npos) << error;
  EXPECT_NE(error.find("is full until instruction #" + std::to_string(load) +
                       " M_LOAD_WEIGHTS"),
            std::string::npos)
      << error;
}

// A hazard at a later issue names the issue.
TEST(TrainTest, AHazardNamesTheIssue) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = trainMatmulProgram(chip);
  int load = firstWith(program.artifact, hetx::M_LOAD_WEIGHTS);
  // The load train reads every other cycle: from its ninth issue on, the
  // read train's values have all passed.
  program.artifact.mutable_instructions(load)->set_repeat_cycles(2);
  std::string error = simulateError(program, chip);
  EXPECT_NE(error.find("hazard: too late at cycle 22: instruction #" +
                       std::to_string(load) +
                       " M_LOAD_WEIGHTS (issue 9 of 16) on matrix plane 0"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("MEM_READ (issue 16 of 16) passed at cycle 21"),
            std::string::npos)
      << error;
}

/// Simulates `program` with instruction `index` edited; returns the error.
std::string errorWith(TestProgram program, int index,
                      const std::function<void(hetx::Instruction &)> &edit,
                      const chip::ChipSpec &chip) {
  edit(*program.artifact.mutable_instructions(index));
  return simulateError(program, chip);
}

TEST(TrainTest, BadTrainsAreRefusedAtLoad) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = trainMatmulProgram(chip);
  int read = firstWith(program.artifact, hetx::MEM_READ);
  int load = firstWith(program.artifact, hetx::M_LOAD_WEIGHTS);
  int matmul = firstWith(program.artifact, hetx::M_MATMUL);
  int write = firstWith(program.artifact, hetx::MEM_WRITE);
  auto has = [](const std::string &error, const std::string &text) {
    return error.find(text) != std::string::npos;
  };
  std::string error = errorWith(
      program, read, [](hetx::Instruction &in) { in.set_repeat_cycles(0); },
      chip);
  EXPECT_TRUE(has(error, "hazard: bad repeat at cycle 2: instruction #" +
                             std::to_string(read) + " MEM_READ"))
      << error;
  EXPECT_TRUE(has(error, "repeats 16 times every 0 cycles")) << error;
  error = errorWith(
      program, read, [](hetx::Instruction &in) { in.set_repeat(65537); }, chip);
  EXPECT_TRUE(has(error, "a train issues at most 65536 times")) << error;
  // W starts slice 1 (1024 rows a slice): its issues may not leave it.
  error = errorWith(
      program, read, [](hetx::Instruction &in) { in.set_repeat_step(1024); },
      chip);
  EXPECT_TRUE(has(error, "issue 2 would read row 2048, which is in MEM slice "
                         "2; every issue of a train stays in its "
                         "instruction's slice, 1"))
      << error;
  error = errorWith(
      program, read, [](hetx::Instruction &in) { in.set_repeat_step(-1); },
      chip);
  EXPECT_TRUE(
      has(error, "issue 2 would read row 1023, which is in MEM slice 0"))
      << error;
  error = errorWith(
      program, load, [](hetx::Instruction &in) { in.set_row(1); }, chip);
  EXPECT_TRUE(has(error, "its last issue would install weight row 16, but a "
                         "plane has rows 0 to 15"))
      << error;
  error = errorWith(
      program, matmul,
      [](hetx::Instruction &in) {
        in.set_repeat(2);
        in.set_repeat_cycles(1);
        in.set_repeat_step(1);
      },
      chip);
  EXPECT_TRUE(has(error, "repeat_step is 1, but only MEM_READ, MEM_WRITE and "
                         "M_LOAD_WEIGHTS(_COLUMN) step"))
      << error;
  error = errorWith(
      program, write, [](hetx::Instruction &in) { in.set_repeat_cycles(3); },
      chip);
  EXPECT_TRUE(has(error, "repeat_cycles or repeat_step is set, but the "
                         "instruction issues once (repeat is 0)"))
      << error;
  // A load train of another length than the read train it names.
  error = errorWith(
      program, load,
      [&](hetx::Instruction &in) {
        in.set_repeat(8);
        in.mutable_src(0)->set_producer(uint32_t(read));
      },
      chip);
  EXPECT_TRUE(has(error, "a train reads a train as long and as spaced"))
      << error;
}

TEST(TrainTest, OnlyTrainableOpcodesRepeat) {
  chip::ChipSpec chip = loadChip("test-chip");
  ProgramBuilder builder(chip);
  builder.input("x", {1, chip.lanes()}, 0);
  hetx::Instruction &dma = builder.read(0, 0, east(0));
  dma.set_opcode(hetx::DMA_OUT);
  dma.clear_dst();
  dma.set_repeat(2);
  dma.set_repeat_cycles(1);
  TestProgram program{builder.build(), {}};
  std::string error = simulateError(program, chip);
  EXPECT_NE(error.find("DMA_OUT does not repeat"), std::string::npos) << error;
}

// The chip model holds a record per issue: a program that would issue more
// than sim::kMaxIssues is refused before anything is expanded.
TEST(TrainTest, TooManyIssuesAreRefused) {
  chip::ChipSpec chip = loadChip("test-chip");
  ProgramBuilder builder(chip);
  uint32_t trains = uint32_t(sim::kMaxIssues / sim::kMaxRepeat) + 1;
  for (uint32_t k = 0; k < trains; ++k) {
    hetx::Instruction &add =
        builder.vector(k, hetx::V_RELU, {east(0)}, west(0));
    add.set_lanes(1);
    add.set_repeat(sim::kMaxRepeat);
    add.set_repeat_cycles(1);
  }
  TestProgram program{builder.build(), {}};
  std::string error = simulateError(program, chip);
  EXPECT_NE(error.find("the program issues " +
                       std::to_string(uint64_t(trains) * sim::kMaxRepeat) +
                       " instructions (each issue of a train counted), more "
                       "than the 33554432 the chip model holds"),
            std::string::npos)
      << error;
}

} // namespace
} // namespace hetc::test
