//===- VectorMathTest.cpp - The matrix product that skips zero weights --===//

#include "runtime/sim/VectorMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace hetc::sim;

namespace {
uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/// The definition: every row, every column, in order from +0.0, through
/// matmul() itself with every row listed, so that where NaNs meet the same
/// code picks the survivor.
std::vector<float> reference(const std::vector<float> &x,
                             const std::vector<float> &weights,
                             uint32_t width) {
  std::vector<uint32_t> every(width);
  for (uint32_t i = 0; i < width; ++i)
    every[i] = i;
  std::vector<uint8_t> notFinite(width, 0);
  PlaneWeights all;
  all.data = weights.data();
  all.rows = every.data();
  all.rowCount = width;
  all.cols = width;
  all.finite = notFinite.data();
  std::vector<float> out(width);
  matmul(x.data(), all, out.data(), width);
  // The same sums by hand, for the values that are not NaN.
  std::vector<float> naive(width, 0.0f);
  for (uint32_t i = 0; i < width; ++i)
    for (uint32_t j = 0; j < width; ++j)
      naive[j] = naive[j] + x[i] * weights[size_t(i) * width + j];
  for (uint32_t j = 0; j < width; ++j) {
    if (std::isnan(naive[j]))
      EXPECT_TRUE(std::isnan(out[j])) << "column " << j;
    else
      EXPECT_EQ(bitsOf(out[j]), bitsOf(naive[j])) << "column " << j;
  }
  return out;
}

/// Runs the skipping product on `weights` with the rows that hold
/// anything but +0.0 (plus `extraRows`) listed, the others overwritten with
/// garbage, and expects the reference's bits.
void expectExact(const std::vector<float> &x, std::vector<float> weights,
                 uint32_t width, const std::vector<uint32_t> &extraRows = {}) {
  std::vector<float> expected = reference(x, weights, width);
  std::vector<uint32_t> rows;
  uint32_t cols = 0;
  for (uint32_t i = 0; i < width; ++i) {
    bool live = false;
    for (uint32_t j = 0; j < width; ++j) {
      if (bitsOf(weights[size_t(i) * width + j]) != 0) {
        live = true;
        cols = std::max(cols, j + 1);
      }
    }
    for (uint32_t extra : extraRows)
      live = live || extra == i;
    if (live)
      rows.push_back(i);
    else
      for (uint32_t j = 0; j < width; ++j)
        weights[size_t(i) * width + j] = 1e30f;
  }
  std::vector<uint8_t> finite(width, 1);
  for (uint32_t i = 0; i < width; ++i)
    for (uint32_t j = 0; j < width; ++j)
      if (!std::isfinite(weights[size_t(i) * width + j]))
        finite[i] = 0;
  PlaneWeights sparse;
  sparse.data = weights.data();
  sparse.rows = rows.data();
  sparse.rowCount = uint32_t(rows.size());
  sparse.cols = cols;
  sparse.finite = finite.data();
  std::vector<float> out(width, 7.0f);
  matmul(x.data(), sparse, out.data(), width);
  for (uint32_t j = 0; j < width; ++j)
    EXPECT_EQ(bitsOf(out[j]), bitsOf(expected[j])) << "column " << j;
}
} // namespace

TEST(VectorMathTest, SkippedRowsAndColumnsGiveTheSameBits) {
  const uint32_t width = 24;
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> weights(size_t(width) * width, 0.0f);
    // A corner of weights, as a small layer leaves, with some -0.0 and
    // +0.0 inside it.
    uint32_t usedRows = 1 + rng() % width, usedCols = 1 + rng() % width;
    for (uint32_t i = 0; i < usedRows; ++i) {
      if (rng() % 4 == 0)
        continue;
      for (uint32_t j = 0; j < usedCols; ++j) {
        unsigned pick = rng() % 10;
        weights[size_t(i) * width + j] =
            pick == 0                       ? -0.0f
            : pick == 1                     ? 0.0f
            : pick == 2 && trial % 4 == 0   ? inf
            : pick == 3 && trial % 6 == 0   ? -nan
                                            : value(rng);
      }
    }
    std::vector<float> x(width);
    for (float &xi : x) {
      unsigned pick = rng() % 12;
      xi = pick == 0   ? -0.0f
           : pick == 1 ? 0.0f
           : pick == 2 ? -1.0f
           : pick == 3 && trial % 3 == 0 ? inf
           : pick == 4 && trial % 3 == 0 ? -inf
           : pick == 5 && trial % 5 == 0 ? nan
                                         : value(rng);
    }
    expectExact(x, weights, width);
    // A listed row of zeros is computed, and gives the same bits.
    expectExact(x, weights, width, {uint32_t(rng() % width)});
  }
}

TEST(VectorMathTest, NegativeInputsOverZeroRowsKeepPositiveZero) {
  // x * +0.0 is -0.0 for a negative x; the full product still gives +0.0.
  const uint32_t width = 4;
  std::vector<float> x = {-1.0f, -0.0f, -3.0f, 2.0f};
  std::vector<float> weights(size_t(width) * width, 0.0f);
  weights[1 * width + 0] = -0.0f;
  expectExact(x, weights, width);
  expectExact(x, std::vector<float>(size_t(width) * width, 0.0f), width);
}

TEST(VectorMathTest, InfiniteInputOverZeroRowGivesNaN) {
  const uint32_t width = 4;
  std::vector<float> x = {1.0f, std::numeric_limits<float>::infinity(), 1.0f,
                          1.0f};
  std::vector<float> weights(size_t(width) * width, 0.0f);
  weights[0] = 2.0f;
  expectExact(x, weights, width);
  std::vector<float> out(width);
  uint32_t row = 0;
  uint8_t finite[4] = {1, 1, 1, 1};
  PlaneWeights one;
  one.data = weights.data();
  one.rows = &row;
  one.rowCount = 1;
  one.cols = 1;
  one.finite = finite;
  matmul(x.data(), one, out.data(), width);
  for (float value : out)
    EXPECT_TRUE(std::isnan(value));
}

// Tests that copyWeightRow() copies every bit and finds the extent past the
// last value that is not +0.0 (a -0.0 counts) and whether all are finite.
TEST(VectorMathTest, CopyWeightRowFindsExtentAndFiniteness) {
  const uint32_t width = 40;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    uint32_t at;
    float value;
    uint32_t extent;
    bool finite;
  };
  for (Case c : {Case{0, 0.0f, 0, true}, Case{0, -0.0f, 1, true},
                 Case{17, 2.0f, 18, true}, Case{39, -0.0f, 40, true},
                 Case{31, nan, 32, false},
                 Case{5, std::numeric_limits<float>::infinity(), 6, false}}) {
    std::vector<float> src(width, 0.0f), dst(width, 7.0f);
    src[c.at] = c.value;
    bool finite = !c.finite;
    EXPECT_EQ(copyWeightRow(src.data(), dst.data(), width, finite), c.extent)
        << "value at " << c.at;
    EXPECT_EQ(finite, c.finite) << "value at " << c.at;
    for (uint32_t j = 0; j < width; ++j)
      EXPECT_EQ(bitsOf(dst[j]), bitsOf(src[j])) << "lane " << j;
  }
}
