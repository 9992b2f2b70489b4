//===- SimulatorTest.cpp - The chip model on correct programs ----------===//

#include "TestPrograms.h"

#include "runtime/sim/LaneMath.h"
#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>

namespace hetc::test {
namespace {

// Tests that read -> V_ADD -> write adds exactly and takes the cycles the
// timing rules give: reads at 2 and 5, V_ADD at 7 (arrival at position 6),
// write at 11, stored at 12.
TEST(SimulatorTest, AddProgram) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = addProgram(chip);
  sim::SimResult result = simulateOk(program, chip);
  EXPECT_EQ(result.stats.cycles, 12u);
  EXPECT_EQ(result.stats.instructions, 4u);
  EXPECT_EQ(result.stats.vector.instructions, 1u);
  EXPECT_EQ(result.stats.slices[0].instructions, 1u);
  EXPECT_EQ(result.stats.slices[5].cycles, 1u);
  ASSERT_EQ(result.outputs.size(), 1u);
  EXPECT_EQ(result.outputs[0].name, "y");
  const io::Tensor &y = result.outputs[0].tensor;
  ASSERT_EQ(y.shape, std::vector<int64_t>{16});
  ASSERT_EQ(y.data.size(), 16u);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(y.data[i], 1.75f * float(i) - 10.0f) << "lane " << i;
}

// Tests that installing 16 weight rows and multiplying gives x * W exactly
// (small integers, so every fp32 sum is exact) in the predicted 32 cycles:
// the last row is installed at 21, the product issues at 22, reaches slice 3
// at 31 and is stored at 32.
TEST(SimulatorTest, MatmulProgram) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = matmulProgram(chip);
  sim::SimResult result = simulateOk(program, chip);
  EXPECT_EQ(result.stats.cycles, 32u);
  EXPECT_EQ(result.stats.cycles, program.artifact.predicted_cycles());
  EXPECT_EQ(result.stats.instructions, 35u);
  EXPECT_EQ(result.stats.planes[0].instructions, 17u);
  EXPECT_EQ(result.stats.planes[1].instructions, 0u);
  ASSERT_EQ(result.outputs.size(), 1u);
  const io::Tensor &y = result.outputs[0].tensor;
  ASSERT_EQ(y.shape, (std::vector<int64_t>{1, 16}));
  // y[j] = sum_i (i - 8) * ((i + 2j) % 5 - 2). By hand, column 0 sums
  // 16 + 7 + 0 - 5 - 8 + 6 + 2 + 0 + 0 + 2 - 4 - 3 + 0 + 5 + 12 - 14 and
  // column 1 sums 0 - 7 - 12 + 10 + 4 + 0 - 2 - 2 + 0 - 1 + 0 + 3 + 8 - 10
  // - 6 + 0.
  EXPECT_EQ(y.data[0], 16.0f);
  EXPECT_EQ(y.data[1], -15.0f);
  for (int j = 0; j < 16; ++j) {
    float expected = 0.0f;
    for (int i = 0; i < 16; ++i)
      expected += float(i - 8) * float((i + 2 * j) % 5 - 2);
    EXPECT_EQ(y.data[j], expected) << "column " << j;
  }
}

// Tests the unary, reduction and remaining binary vector instructions, and
// that lanes beyond `lanes` come out zero.
// Tests S_PERMUTE: b's lanes 15..8 land in lanes 0-7, a's lanes 0-5 are
// merged into lanes 8-13 of that result, and lanes 14-15 (beyond `lanes`)
// are zero. Reads at 2 and 5, permutes at 5 and 7 on switch 0 (position 1),
// the write at 12 stores at 13.
TEST(SimulatorTest, PermuteProgram) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = permuteProgram(chip);
  sim::SimResult result = simulateOk(program, chip);
  EXPECT_EQ(result.stats.cycles, 13u);
  EXPECT_EQ(result.stats.cycles, program.artifact.predicted_cycles());
  ASSERT_EQ(result.stats.switches.size(), 2u);
  EXPECT_EQ(result.stats.switches[0].instructions, 2u);
  EXPECT_EQ(result.stats.switches[0].cycles, 2u);
  EXPECT_EQ(result.stats.switches[1].instructions, 0u);
  ASSERT_EQ(result.outputs.size(), 1u);
  const io::Tensor &y = result.outputs[0].tensor;
  ASSERT_EQ(y.data.size(), 16u);
  for (int j = 0; j < 8; ++j)
    EXPECT_EQ(y.data[j], -float(15 - j) - 100.0f) << "lane " << j;
  for (int j = 8; j < 14; ++j)
    EXPECT_EQ(y.data[j], float(j - 8) + 0.5f) << "lane " << j;
  EXPECT_EQ(y.data[14], 0.0f);
  EXPECT_EQ(y.data[15], 0.0f);
}

// Tests that without src[1] a kept lane is zero, and that one source lane
// may feed many destination lanes.
TEST(SimulatorTest, PermuteWithoutMergeZeroesKeptLanes) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = permuteProgram(chip);
  for (hetx::Instruction &in : *program.artifact.mutable_instructions())
    if (in.opcode() == hetx::S_PERMUTE && in.src_size() == 2) {
      in.mutable_src()->RemoveLast();
      hetx::LaneMap *map =
          program.artifact.mutable_lane_maps(int(in.lane_map()));
      for (uint32_t j = 0; j < 8; ++j)
        map->set_lanes(int(j), 3);
    }
  // The first permute's value is now read by nobody, which the chip allows.
  sim::SimResult result = simulateOk(program, chip);
  const io::Tensor &y = result.outputs[0].tensor;
  for (int j = 0; j < 8; ++j)
    EXPECT_EQ(y.data[j], 3.5f) << "lane " << j;
  for (int j = 8; j < 14; ++j)
    EXPECT_EQ(y.data[j], float(j - 8) + 0.5f) << "lane " << j;
  EXPECT_EQ(y.data[14], 0.0f);
}

TEST(SimulatorTest, VectorOpcodes) {
  chip::ChipSpec chip = loadChip("test-chip");
  struct Case {
    hetx::Opcode opcode;
    float (*expected)(float a, float b, int lane);
  };
  const Case cases[] = {
      {hetx::V_SUB, [](float a, float b, int) { return a - b; }},
      {hetx::V_MUL, [](float a, float b, int) { return a * b; }},
      {hetx::V_DIV, [](float a, float b, int) { return a / b; }},
      {hetx::V_MAX, [](float a, float b, int) { return a > b ? a : b; }},
      {hetx::V_MIN, [](float a, float b, int) { return a < b ? a : b; }},
      {hetx::V_POW,
       [](float a, float b, int) { return std::pow(std::fabs(a), b); }},
  };
  for (const Case &c : cases) {
    TestProgram program = addProgram(chip);
    hetx::Instruction *op = program.artifact.mutable_instructions(2);
    op->set_opcode(c.opcode);
    op->set_lanes(10);
    if (c.opcode == hetx::V_POW)
      for (float &v : program.inputs["a"].data)
        v = std::fabs(v);
    sim::SimResult result = simulateOk(program, chip);
    const std::vector<float> &a = program.inputs["a"].data;
    const std::vector<float> &b = program.inputs["b"].data;
    for (int i = 0; i < 16; ++i)
      EXPECT_EQ(result.outputs[0].tensor.data[i],
                i < 10 ? c.expected(a[i], b[i], i) : 0.0f)
          << hetx::Opcode_Name(c.opcode) << " lane " << i;
  }
}

// Tests single-operand instructions by dropping src[1] of the V_ADD (the
// value from b is then never read, so b's read is dropped too).
TEST(SimulatorTest, UnaryAndReduce) {
  chip::ChipSpec chip = loadChip("test-chip");
  const hetx::Opcode opcodes[] = {hetx::V_RELU,       hetx::V_SIGMOID,
                                  hetx::V_TANH,       hetx::V_EXP,
                                  hetx::V_REDUCE_SUM, hetx::V_REDUCE_MAX};
  for (hetx::Opcode opcode : opcodes) {
    TestProgram program = addProgram(chip);
    auto *instrs = program.artifact.mutable_instructions();
    instrs->DeleteSubrange(1, 1); // b's read
    hetx::Instruction *op = program.artifact.mutable_instructions(1);
    op->set_opcode(opcode);
    op->mutable_src()->RemoveLast();
    if (opcode == hetx::V_REDUCE_SUM || opcode == hetx::V_REDUCE_MAX) {
      // One more cycle of latency: the write moves with it.
      program.artifact.mutable_instructions(2)->set_cycle(
          program.artifact.instructions(2).cycle() + 1);
    }
    resort(program.artifact, chip);
    sim::SimResult result = simulateOk(program, chip);
    const std::vector<float> &a = program.inputs["a"].data;
    const std::vector<float> &y = result.outputs[0].tensor.data;
    float sum = 0.0f, max = a[0];
    for (float v : a) {
      sum += v;
      max = v > max ? v : max;
    }
    for (int i = 0; i < 16; ++i) {
      float expected = opcode == hetx::V_RELU ? (a[i] > 0 ? a[i] : 0.0f)
                       : opcode == hetx::V_SIGMOID
                           ? 1.0f / (1.0f + sim::lane::exp(-a[i]))
                       : opcode == hetx::V_TANH       ? std::tanh(a[i])
                       : opcode == hetx::V_EXP        ? sim::lane::exp(a[i])
                       : opcode == hetx::V_REDUCE_SUM ? sum
                                                      : max;
      EXPECT_EQ(y[i], expected) << hetx::Opcode_Name(opcode) << " lane " << i;
    }
  }
}

// Tests the unary math opcodes lane by lane against the C library, on
// positive inputs (for sqrt and log) and with padding lanes zero.
TEST(SimulatorTest, MathOpcodes) {
  chip::ChipSpec chip = loadChip("test-chip");
  struct Case {
    hetx::Opcode opcode;
    float (*expected)(float x);
  };
  const Case cases[] = {
      {hetx::V_NEG, [](float x) { return -x; }},
      {hetx::V_ABS, [](float x) { return std::fabs(x); }},
      {hetx::V_SQRT, [](float x) { return std::sqrt(x); }},
      {hetx::V_RECIPROCAL, [](float x) { return 1.0f / x; }},
      {hetx::V_LOG, [](float x) { return std::log(x); }},
      {hetx::V_ERF, [](float x) { return std::erf(x); }},
      {hetx::V_FLOOR, [](float x) { return std::floor(x); }},
      {hetx::V_CEIL, [](float x) { return std::ceil(x); }},
      {hetx::V_SIN, [](float x) { return std::sin(x); }},
      {hetx::V_COS, [](float x) { return std::cos(x); }},
  };
  for (const Case &c : cases) {
    TestProgram program = addProgram(chip);
    program.artifact.mutable_instructions()->DeleteSubrange(1, 1);
    hetx::Instruction *op = program.artifact.mutable_instructions(1);
    op->set_opcode(c.opcode);
    op->set_lanes(12);
    op->mutable_src()->RemoveLast();
    for (float &v : program.inputs["a"].data)
      v = std::fabs(v) * 3.0f + 0.25f;
    resort(program.artifact, chip);
    sim::SimResult result = simulateOk(program, chip);
    const std::vector<float> &a = program.inputs["a"].data;
    for (int i = 0; i < 16; ++i)
      EXPECT_EQ(result.outputs[0].tensor.data[i],
                i < 12 ? c.expected(a[i]) : 0.0f)
          << hetx::Opcode_Name(c.opcode) << " lane " << i;
  }
}

/// The add program with its V_ADD replaced by `opcode` (a reduction or
/// V_BROADCAST of `sourceLane`, when not negative) of `a` over `lanes`
/// lanes, and b's read dropped; the write waits for the reductions'
/// latency, one cycle longer.
TestProgram crossLaneProgram(const chip::ChipSpec &chip, hetx::Opcode opcode,
                             uint32_t lanes, int sourceLane = -1) {
  TestProgram program = addProgram(chip);
  program.artifact.mutable_instructions()->DeleteSubrange(1, 1);
  hetx::Instruction *op = program.artifact.mutable_instructions(1);
  op->set_opcode(opcode);
  op->set_lanes(lanes);
  if (sourceLane >= 0)
    op->set_source_lane(uint32_t(sourceLane));
  op->mutable_src()->RemoveLast();
  program.artifact.mutable_instructions(2)->set_cycle(
      program.artifact.instructions(2).cycle() + 1);
  resort(program.artifact, chip);
  return program;
}

// Tests that a reduction of some lanes fills every lane with its result.
TEST(SimulatorTest, ReductionOfSomeLanesFillsEveryLane) {
  chip::ChipSpec chip = loadChip("test-chip");
  for (hetx::Opcode opcode :
       {hetx::V_REDUCE_SUM, hetx::V_REDUCE_MAX, hetx::V_REDUCE_MIN}) {
    TestProgram program = crossLaneProgram(chip, opcode, 5);
    sim::SimResult result = simulateOk(program, chip);
    const std::vector<float> &a = program.inputs["a"].data;
    float expected = opcode == hetx::V_REDUCE_SUM ? 0.0f : a[0];
    for (int i = opcode == hetx::V_REDUCE_SUM ? 0 : 1; i < 5; ++i)
      expected = opcode == hetx::V_REDUCE_SUM   ? expected + a[i]
                 : opcode == hetx::V_REDUCE_MAX ? std::max(expected, a[i])
                                                : std::min(expected, a[i]);
    for (float lane : result.outputs[0].tensor.data)
      EXPECT_EQ(lane, expected) << hetx::Opcode_Name(opcode);
  }
}

// Tests that V_BROADCAST fills every lane with the word of its source lane,
// for the first, a middle and the last lane.
TEST(SimulatorTest, BroadcastOfOneLane) {
  chip::ChipSpec chip = loadChip("test-chip");
  for (uint32_t lane : {0u, 5u, 15u}) {
    TestProgram program =
        crossLaneProgram(chip, hetx::V_BROADCAST, 16, int(lane));
    sim::SimResult result = simulateOk(program, chip);
    const std::vector<float> &a = program.inputs["a"].data;
    for (float value : result.outputs[0].tensor.data)
      EXPECT_EQ(value, a[lane]) << "lane " << lane;
  }
}

// Tests that the same program and inputs give the same bits and cycles.
TEST(SimulatorTest, Deterministic) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = matmulProgram(chip);
  sim::SimResult first = simulateOk(program, chip);
  sim::SimResult second = simulateOk(program, chip);
  EXPECT_EQ(first.stats.cycles, second.stats.cycles);
  EXPECT_EQ(first.outputs[0].tensor.data, second.outputs[0].tensor.data);
}

// Tests that every run of a loaded program starts from its constants, even
// when a run writes over one, and that a constant read onto a stream (which
// lends the stream the constant's values instead of copying them) keeps
// its value while a write over its address lands. The constants are placed
// once, at load; runs write over them in SRAM of their own. Constant c is
// read at 4; input b is written over c at 6 (stored at 7) and read again;
// y = c + b is computed at 9 and written at 13; z, at c's address, is b.
TEST(SimulatorTest, RunsStartFromTheConstantsEvenAfterOneOverwritesThem) {
  chip::ChipSpec chip = loadChip("test-chip");
  uint32_t lanes = chip.lanes();
  uint64_t perSlice = chip.vectorsPerSlice();
  uint64_t addrC = 0, addrB = 4 * perSlice, addrY = 5 * perSlice;
  uint32_t posC = chip.slicePosition(0), posB = chip.slicePosition(4),
           posY = chip.slicePosition(5), posV = chip.vectorPosition();
  uint64_t readLat = latencyOf(chip, hetx::MEM_READ);
  uint64_t hop = chip.proto().streams().hop_cycles();
  std::vector<float> c;
  for (uint32_t i = 0; i < lanes; ++i)
    c.push_back(0.5f * float(i) - 3.0f);
  ProgramBuilder builder(chip);
  builder.setNode("Add_0");
  builder.constant("c", {lanes}, addrC, c);
  builder.input("b", {lanes}, addrB);
  builder.output("y", {lanes}, addrY);
  builder.output("z", {lanes}, addrC);
  uint64_t atVector = 4 + readLat + (posV - posC) * hop;
  uint64_t overwrite = atVector - 3;
  builder.read(4, addrC, east(0));
  builder.read(overwrite - (posB - posC) * hop - readLat, addrB, west(8));
  builder.write(overwrite, addrC, west(8));
  builder.read(atVector - (posB - posV) * hop - readLat, addrB, west(0));
  builder.vector(atVector, hetx::V_ADD, {east(0), west(0)}, east(4));
  builder.write(atVector + latencyOf(chip, hetx::V_ADD) + (posY - posV) * hop,
                addrY, east(4));
  hetx::Artifact artifact = builder.build();
  ASSERT_LT(overwrite + latencyOf(chip, hetx::MEM_WRITE), atVector);

  sim::LoadedProgram program;
  std::string error;
  ASSERT_TRUE(sim::load(artifact, chip, program, error)) << error;
  for (int run = 0; run < 3; ++run) {
    io::Tensor b{{lanes}, {}};
    for (uint32_t i = 0; i < lanes; ++i)
      b.data.push_back(float(run) + 0.25f * float(i));
    sim::SimResult result;
    for (bool timingOnly : {true, false}) {
      sim::SimOptions options;
      options.timingOnly = timingOnly;
      ASSERT_TRUE(sim::run(program, {{"b", b}}, options, result, error))
          << error;
    }
    ASSERT_EQ(result.outputs.size(), 2u);
    ASSERT_EQ(result.outputs[0].tensor.data.size(), lanes);
    for (uint32_t i = 0; i < lanes; ++i)
      EXPECT_EQ(result.outputs[0].tensor.data[i], c[i] + b.data[i])
          << "run " << run << ", lane " << i;
    EXPECT_EQ(result.outputs[1].tensor.data, b.data) << "run " << run;
    // The constant, the input and y.
    EXPECT_EQ(result.stats.sramHighWater, 3u * lanes * 4);
  }
}

// Tests that an empty program takes 0 cycles.
TEST(SimulatorTest, EmptyProgram) {
  chip::ChipSpec chip = loadChip("test-chip");
  ProgramBuilder builder(chip);
  TestProgram program{builder.build(), {}};
  sim::SimResult result = simulateOk(program, chip);
  EXPECT_EQ(result.stats.cycles, 0u);
  EXPECT_EQ(result.stats.instructions, 0u);
}

// Tests that moving any one instruction of a correct program by one cycle,
// either way, is rejected with a hazard: the chip has no interlocks.
TEST(SimulatorTest, EveryOneCycleShiftIsRejected) {
  chip::ChipSpec chip = loadChip("test-chip");
  for (TestProgram base : {addProgram(chip), matmulProgram(chip)}) {
    ASSERT_EQ(simulateError(base, chip), "");
    for (int i = 0; i < base.artifact.instructions_size(); ++i) {
      for (int delta : {-1, 1}) {
        TestProgram shifted = base;
        hetx::Instruction *instr = shifted.artifact.mutable_instructions(i);
        ASSERT_GT(instr->cycle(), 0u);
        instr->set_cycle(instr->cycle() + delta);
        resort(shifted.artifact, chip);
        std::string error = simulateError(shifted, chip);
        EXPECT_EQ(error.rfind("hazard: ", 0), 0u)
            << "instruction #" << i << " moved by " << delta
            << " was accepted or failed otherwise: " << error;
      }
    }
  }
}

} // namespace
} // namespace hetc::test
