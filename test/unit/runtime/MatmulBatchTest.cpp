//===- MatmulBatchTest.cpp - M_MATMULs on one plane computed together ---===//
//
// The chip model defers the products of consecutive M_MATMULs on unchanged
// weights and computes them together (matmulBatch), and lets a plane refer
// to weight rows of constants where they are. These tests check that this
// gives the bits of one matrix-vector product per instruction, on its own
// and inside a program, and that such a program's hazards are still found.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include "runtime/sim/Simulator.h"
#include "runtime/sim/VectorMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace hetc::test {
namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/// Weights of `width` x `width` with `rows` listed (the others garbage, as
/// the chip model leaves rows it never loaded), their columns from `cols` on
/// +0.0.
struct Plane {
  std::vector<float> data;
  std::vector<uint32_t> rows;
  std::vector<uint8_t> finite;
  uint32_t cols = 0;

  sim::PlaneWeights view() const {
    sim::PlaneWeights weights;
    weights.data = data.data();
    weights.rows = rows.data();
    weights.rowCount = uint32_t(rows.size());
    weights.cols = cols;
    weights.finite = finite.data();
    return weights;
  }
};

Plane randomPlane(std::mt19937 &rng, uint32_t width, bool special) {
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  Plane plane;
  plane.data.assign(size_t(width) * width, 1e30f);
  plane.finite.assign(width, 1);
  plane.cols = 1 + rng() % width;
  for (uint32_t i = 0; i < width; ++i) {
    if (rng() % 3 == 0)
      continue;
    plane.rows.push_back(i);
    for (uint32_t j = 0; j < width; ++j) {
      float &w = plane.data[size_t(i) * width + j];
      unsigned pick = rng() % 16;
      w = j >= plane.cols        ? 0.0f
          : pick == 0            ? -0.0f
          : pick == 1 && special ? std::numeric_limits<float>::infinity()
                                 : value(rng);
      plane.finite[i] = plane.finite[i] && std::isfinite(w);
    }
  }
  return plane;
}

// Tests that matmulBatch() gives, for every vector of the batch, the bits
// matmul() gives it alone: batches of 1 to 9 over planes with 0 to 24
// listed rows (not always a multiple of the four rows taken at once), with
// finite values, and with infinities, NaNs and signed zeros among the
// inputs and weights, which take matmul()'s own path.
TEST(MatmulBatchTest, SameBitsAsOneProductPerVector) {
  const uint32_t width = 24;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  for (int trial = 0; trial < 300; ++trial) {
    bool special = trial % 3 == 0;
    Plane plane = randomPlane(rng, width, special);
    uint32_t count = 1 + uint32_t(trial % 9);
    std::vector<std::vector<float>> xs(count, std::vector<float>(width));
    for (auto &x : xs)
      for (float &xi : x) {
        unsigned pick = rng() % 24;
        xi = pick == 0              ? -0.0f
             : pick == 1 && special ? -std::numeric_limits<float>::infinity()
             : pick == 2 && special ? std::numeric_limits<float>::quiet_NaN()
                                    : value(rng);
      }
    std::vector<std::vector<float>> expected(count, std::vector<float>(width));
    for (uint32_t b = 0; b < count; ++b)
      sim::matmul(xs[b].data(), plane.view(), expected[b].data(), width);
    std::vector<std::vector<float>> outs(count,
                                         std::vector<float>(width, 7.0f));
    std::vector<const float *> in;
    std::vector<float *> out;
    for (uint32_t b = 0; b < count; ++b) {
      in.push_back(xs[b].data());
      out.push_back(outs[b].data());
    }
    sim::matmulBatch(in.data(), out.data(), count, plane.view(), width);
    for (uint32_t b = 0; b < count; ++b)
      for (uint32_t j = 0; j < width; ++j)
        ASSERT_EQ(bitsOf(outs[b][j]), bitsOf(expected[b][j]))
            << "trial " << trial << ", vector " << b << ", column " << j;
  }
}

/// A program on test-chip: W installed on plane 0 row by row; then eight
/// M_MATMULs of the rows of x, the first six on consecutive cycles (more
/// than the matmul latency, so they are computed in two groups), then a
/// load of a new row 0 of W from r before the last two results are due,
/// and two more M_MATMULs on the changed weights. Each product is written
/// to its row of y. The sources name no producer, so stream groups
/// alternate between neighbours.
TestProgram batchProgram(const chip::ChipSpec &chip, uint32_t seed) {
  uint32_t lanes = chip.lanes();
  uint64_t perSlice = chip.vectorsPerSlice();
  uint64_t addrW = 1 * perSlice, addrR = addrW + lanes;
  uint64_t addrX = 2 * perSlice, addrY = 3 * perSlice;
  uint32_t posW = chip.slicePosition(1), posX = chip.slicePosition(2),
           posY = chip.slicePosition(3), posP = chip.planePosition(0);
  uint64_t readLat = latencyOf(chip, hetx::MEM_READ);
  uint64_t loadLat = latencyOf(chip, hetx::M_LOAD_WEIGHTS);
  uint64_t mulLat = latencyOf(chip, hetx::M_MATMUL);
  uint64_t hop = chip.proto().streams().hop_cycles();
  const uint32_t count = 8;

  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  auto randomValues = [&](size_t n) {
    std::vector<float> values(n);
    for (float &v : values)
      v = value(rng);
    return values;
  };
  ProgramBuilder builder(chip);
  builder.setNode("MatMul_0");
  builder.constant("W", {lanes, lanes}, addrW,
                   randomValues(size_t(lanes) * lanes));
  builder.constant("r", {1, lanes}, addrR, randomValues(lanes));
  builder.input("x", {count, lanes}, addrX);
  builder.output("y", {count, lanes}, addrY);

  // Row i is read at 2 + i and installed when it reaches the plane.
  auto readFor = [&](uint64_t at, uint32_t from) {
    return at - uint64_t(from - posP) * hop - readLat;
  };
  uint64_t lastLoad = 0;
  for (uint32_t i = 0; i < lanes; ++i) {
    lastLoad = 2 + i + readLat + uint64_t(posW - posP) * hop;
    builder.read(2 + i, addrW + i, west(0));
    builder.loadWeights(lastLoad, 0, i, west(0));
  }
  uint64_t first = lastLoad + loadLat;
  uint64_t reload = first + 6;
  for (uint32_t b = 0; b < count; ++b) {
    uint64_t at = b < 6 ? first + b : reload + loadLat + (b - 6);
    // Neighbours take other stream groups, so that a read moved by a
    // cycle finds no value rather than its neighbour's.
    Stream in = west(b % 2 ? 12 : 4), out = east(b % 2 ? 8 : 4);
    builder.read(readFor(at, posX), addrX + b, in);
    builder.matmul(at, 0, in, out);
    builder.write(at + mulLat + uint64_t(posY - posP) * hop, addrY + b, out);
  }
  builder.read(readFor(reload, posW), addrR, west(8));
  builder.loadWeights(reload, 0, 0, west(8));

  TestProgram program{builder.build(), {}};
  program.inputs["x"] =
      io::Tensor{{count, lanes}, randomValues(size_t(count) * lanes)};
  return program;
}

/// The constant named `name` of `artifact`, as floats.
std::vector<float> constantOf(const hetx::Artifact &artifact,
                              const std::string &name) {
  for (const hetx::Constant &constant : artifact.constants()) {
    if (constant.binding().name() != name)
      continue;
    std::vector<float> values(constant.data().size() / 4);
    std::memcpy(values.data(), constant.data().data(), constant.data().size());
    return values;
  }
  ADD_FAILURE() << "no constant " << name;
  return {};
}

// Tests that the products of the batch program, some computed together and
// one group cut short by a weight load, have the bits of matmul() on each
// row of x alone, with the weights the plane held when it issued.
TEST(MatmulBatchTest, ProgramGivesTheBitsOfOneProductPerInstruction) {
  chip::ChipSpec chip = loadChip("test-chip");
  uint32_t lanes = chip.lanes();
  for (uint32_t seed : {1u, 2u, 3u}) {
    TestProgram program = batchProgram(chip, seed);
    sim::SimResult result = simulateOk(program, chip);
    ASSERT_EQ(result.outputs.size(), 1u);
    const std::vector<float> &y = result.outputs[0].tensor.data;
    std::vector<float> w = constantOf(program.artifact, "W");
    std::vector<float> r = constantOf(program.artifact, "r");
    std::vector<uint32_t> rows(lanes);
    for (uint32_t i = 0; i < lanes; ++i)
      rows[i] = i;
    std::vector<uint8_t> finite(lanes, 1);
    sim::PlaneWeights weights;
    weights.rows = rows.data();
    weights.rowCount = lanes;
    weights.cols = lanes;
    weights.finite = finite.data();
    const std::vector<float> &x = program.inputs.at("x").data;
    std::vector<float> expected(lanes);
    for (uint32_t b = 0; b < 8; ++b) {
      if (b == 6)
        std::copy(r.begin(), r.end(), w.begin()); // the new row 0
      weights.data = w.data();
      sim::matmul(x.data() + size_t(b) * lanes, weights, expected.data(),
                  lanes);
      for (uint32_t j = 0; j < lanes; ++j)
        EXPECT_EQ(bitsOf(y[size_t(b) * lanes + j]), bitsOf(expected[j]))
            << "seed " << seed << ", row " << b << ", column " << j;
    }
  }
}

// Tests that a weight row installed from a constant, which the plane refers
// to where the constant is rather than copying, becomes the plane's own
// when an M_LOAD_WEIGHTS_COLUMN changes it: the product uses the changed
// row, and the constant, read again by the next run, is unchanged. W is
// installed row by row, its column 3 replaced by the constant c, and x
// multiplied.
TEST(MatmulBatchTest, ColumnLoadOverRowsOfAConstant) {
  chip::ChipSpec chip = loadChip("test-chip");
  uint32_t lanes = chip.lanes();
  uint64_t perSlice = chip.vectorsPerSlice();
  uint64_t addrW = 1 * perSlice, addrC = addrW + lanes;
  uint64_t addrX = 2 * perSlice, addrY = 3 * perSlice;
  uint32_t posW = chip.slicePosition(1), posX = chip.slicePosition(2),
           posY = chip.slicePosition(3), posP = chip.planePosition(0);
  uint64_t readLat = latencyOf(chip, hetx::MEM_READ);
  uint64_t loadLat = latencyOf(chip, hetx::M_LOAD_WEIGHTS);
  uint64_t hop = chip.proto().streams().hop_cycles();
  const uint32_t column = 3;

  std::vector<float> w, c, x;
  for (uint32_t i = 0; i < lanes * lanes; ++i)
    w.push_back(float(int(i % 7) - 3) * 0.5f);
  for (uint32_t i = 0; i < lanes; ++i) {
    c.push_back(float(i) + 0.25f);
    x.push_back(float(int(i) - 5));
  }
  ProgramBuilder builder(chip);
  builder.setNode("MatMul_0");
  builder.constant("W", {lanes, lanes}, addrW, w);
  builder.constant("c", {1, lanes}, addrC, c);
  builder.input("x", {1, lanes}, addrX);
  builder.output("y", {1, lanes}, addrY);
  uint64_t lastLoad = 0;
  for (uint32_t i = 0; i < lanes; ++i) {
    lastLoad = 2 + i + readLat + uint64_t(posW - posP) * hop;
    builder.read(2 + i, addrW + i, west(0));
    builder.loadWeights(lastLoad, 0, i, west(0));
  }
  uint64_t columnAt = lastLoad + 1;
  builder.read(columnAt - uint64_t(posW - posP) * hop - readLat, addrC,
               west(8));
  builder.loadWeights(columnAt, 0, column, west(8))
      .set_opcode(hetx::M_LOAD_WEIGHTS_COLUMN);
  uint64_t multiplyAt = columnAt + loadLat;
  builder.read(multiplyAt - uint64_t(posX - posP) * hop - readLat, addrX,
               west(4));
  builder.matmul(multiplyAt, 0, west(4), east(4));
  builder.write(multiplyAt + latencyOf(chip, hetx::M_MATMUL) +
                    uint64_t(posY - posP) * hop,
                addrY, east(4));
  hetx::Artifact artifact = builder.build();

  std::vector<float> changed = w;
  for (uint32_t i = 0; i < lanes; ++i)
    changed[size_t(i) * lanes + column] = c[i];
  std::vector<uint32_t> rows(lanes);
  for (uint32_t i = 0; i < lanes; ++i)
    rows[i] = i;
  std::vector<uint8_t> finite(lanes, 1);
  sim::PlaneWeights weights;
  weights.data = changed.data();
  weights.rows = rows.data();
  weights.rowCount = lanes;
  weights.cols = lanes;
  weights.finite = finite.data();
  std::vector<float> expected(lanes);
  sim::matmul(x.data(), weights, expected.data(), lanes);

  sim::LoadedProgram program;
  std::string error;
  ASSERT_TRUE(sim::load(artifact, chip, program, error)) << error;
  for (int run = 0; run < 2; ++run) {
    sim::SimResult result;
    ASSERT_TRUE(sim::run(program, {{"x", io::Tensor{{1, lanes}, x}}},
                         sim::SimOptions(), result, error))
        << error;
    ASSERT_EQ(result.outputs.size(), 1u);
    for (uint32_t j = 0; j < lanes; ++j)
      EXPECT_EQ(bitsOf(result.outputs[0].tensor.data[j]), bitsOf(expected[j]))
          << "run " << run << ", column " << j;
  }
}

// Tests that moving any one instruction of the batch program by one cycle,
// either way, is still rejected with a hazard.
TEST(MatmulBatchTest, EveryOneCycleShiftIsRejected) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram base = batchProgram(chip, 1);
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

// Tests that a matmul read too early, while its product is still deferred,
// is the same hazard with the same words as ever.
TEST(MatmulBatchTest, EarlyReadOfADeferredProduct) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = batchProgram(chip, 1);
  // The write of the first product, two cycles early.
  int first = -1;
  for (int i = 0; i < program.artifact.instructions_size(); ++i)
    if (program.artifact.instructions(i).opcode() == hetx::MEM_WRITE) {
      first = i;
      break;
    }
  ASSERT_GE(first, 0);
  hetx::Instruction *write = program.artifact.mutable_instructions(first);
  uint64_t at = write->cycle() - 2;
  write->set_cycle(at);
  resort(program.artifact, chip);
  std::string error = simulateError(program, chip);
  EXPECT_EQ(error.rfind("hazard: too early at cycle " + std::to_string(at) +
                            ": instruction #",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("MEM_WRITE on MEM slice 3 (node 'MatMul_0'): src[0] "
                       "reads EAST stream group 4"),
            std::string::npos)
      << error;
}

} // namespace
} // namespace hetc::test
