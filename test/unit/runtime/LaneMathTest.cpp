//===- LaneMathTest.cpp - The vector unit's exponential and reductions ---===//

#include "runtime/sim/LaneMath.h"
#include "runtime/sim/VectorMath.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace hetc;
using namespace hetc::sim;

namespace {
/// A float's bits and back, through the lane words' own conversions.
uint32_t bitsOf(float value) { return uint32_t(lane::intOf(value)); }
float floatOf(uint32_t bits) { return lane::wordOf(int32_t(bits)); }

/// |got - e^x| in units in the last place of the float nearest e^x (of the
/// smallest subnormal below the normal range).
double ulpsFromExp(float x, float got) {
  double exact = std::exp(double(x));
  int exponent = std::max(std::ilogb(float(exact)), -126);
  return std::fabs(double(got) - exact) / std::ldexp(1.0, exponent - 23);
}
} // namespace

TEST(LaneMathTest, ExpIsWithinOneUlpEverywhere) {
  // Every 4099th bit pattern whose exponential is neither 0 nor infinite
  // (some 290,000 values, subnormal results among them).
  double worst = 0.0;
  float worstAt = 0.0f;
  for (uint64_t bits = 0; bits < (uint64_t(1) << 32); bits += 4099) {
    float x = floatOf(uint32_t(bits));
    if (!(x > -103.9f && x < 88.72f))
      continue;
    double ulps = ulpsFromExp(x, lane::exp(x));
    if (ulps > worst) {
      worst = ulps;
      worstAt = x;
    }
  }
  EXPECT_LT(worst, 1.0) << "at x = " << worstAt;
}

TEST(LaneMathTest, ExpAtTheEdges) {
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(lane::exp(0.0f), 1.0f);
  EXPECT_EQ(lane::exp(-0.0f), 1.0f);
  EXPECT_EQ(lane::exp(inf), inf);
  EXPECT_EQ(bitsOf(lane::exp(-inf)), 0u);
  // Any NaN gives the quiet NaN, sign and payload dropped.
  EXPECT_EQ(bitsOf(lane::exp(floatOf(0xffc00001))), 0x7fc00000u);
  // The largest float whose exponential is finite, and the next one up.
  EXPECT_EQ(lane::exp(0x1.62e42ep+6f), 0x1.ffff08p+127f);
  EXPECT_EQ(lane::exp(0x1.62e430p+6f), inf);
  // The smallest subnormal, and below half of it zero.
  EXPECT_EQ(lane::exp(-103.0f), floatOf(1));
  EXPECT_EQ(bitsOf(lane::exp(-104.0f)), 0u);
  EXPECT_EQ(bitsOf(lane::exp(-1000.0f)), 0u);
  EXPECT_EQ(lane::exp(1.0f), floatOf(0x402df854));
  // Sigmoid takes it: 1 / (1 + e^-x).
  EXPECT_EQ(lane::floatUnary(hetx::V_SIGMOID, -inf), 0.0f);
  EXPECT_EQ(lane::floatUnary(hetx::V_SIGMOID, inf), 1.0f);
  EXPECT_EQ(lane::floatUnary(hetx::V_SIGMOID, 0.0f), 0.5f);
}

TEST(LaneMathTest, VectorsGiveEachLanesBits) {
  // The vector routines, cloned for the widest vectors the host has, give
  // every lane the bits of the one-lane definition, whatever the count.
  std::mt19937 random(7);
  std::uniform_real_distribution<float> values(-120.0f, 120.0f);
  for (uint32_t n : {1u, 7u, 16u, 33u, 320u}) {
    std::vector<float> in(n), out(n + 3, 1.0f);
    for (float &v : in)
      v = values(random);
    in[0] = std::numeric_limits<float>::quiet_NaN();
    for (hetx::Opcode op : {hetx::V_EXP, hetx::V_SIGMOID}) {
      vectorUnary(op, in.data(), out.data(), n, n + 3);
      for (uint32_t i = 0; i < n; ++i)
        EXPECT_EQ(bitsOf(out[i]), bitsOf(lane::floatUnary(op, in[i])))
            << "lane " << i << " of " << n;
      for (uint32_t i = n; i < n + 3; ++i)
        EXPECT_EQ(out[i], 0.0f);
    }
  }
}

TEST(LaneMathTest, ReductionsAreTheFoldsInLaneOrder) {
  // Sums, maxima and minima against the folds of the definition
  // (docs/isa.md): signed zeros (the first of equal values stays), NaN
  // anywhere, infinities, and every count around the 16-lane blocks.
  std::mt19937 random(11);
  std::uniform_real_distribution<float> values(-4.0f, 4.0f);
  std::uniform_int_distribution<int> kind(0, 9);
  float nan = std::numeric_limits<float>::quiet_NaN();
  float inf = std::numeric_limits<float>::infinity();
  for (int trial = 0; trial < 400; ++trial) {
    uint32_t n = uint32_t(trial % 70) + 1;
    std::vector<float> a(n);
    for (float &v : a) {
      int k = kind(random);
      v = k == 0 ? 0.0f : k == 1 ? -0.0f : values(random);
    }
    if (trial % 7 == 0)
      a[size_t(trial) % n] = nan;
    if (trial % 11 == 0)
      a[size_t(trial * 3) % n] = trial % 2 ? inf : -inf;
    if (trial % 5 == 0)
      for (float &v : a)
        v = v > 0.0f ? -v : v; // all <= 0: the maximum is often a zero
    float sum = 0.0f, max = a[0], min = a[0];
    for (uint32_t i = 0; i < n; ++i) {
      sum = sum + a[i];
      if (i) {
        max = lane::maxOf(max, a[i]);
        min = lane::minOf(min, a[i]);
      }
    }
    EXPECT_EQ(bitsOf(sumInOrder(a.data(), n)), bitsOf(sum)) << "trial " << trial;
    EXPECT_EQ(bitsOf(maxInOrder(a.data(), n)), bitsOf(max)) << "trial " << trial;
    EXPECT_EQ(bitsOf(minInOrder(a.data(), n)), bitsOf(min)) << "trial " << trial;
  }
  // Equal zeros: the first lane's sign.
  std::vector<float> zeros(40, 0.0f);
  zeros[3] = -0.0f;
  EXPECT_EQ(bitsOf(maxInOrder(zeros.data(), 40)), bitsOf(0.0f));
  zeros[0] = -0.0f;
  EXPECT_EQ(bitsOf(maxInOrder(zeros.data(), 40)), bitsOf(-0.0f));
  EXPECT_EQ(bitsOf(minInOrder(zeros.data(), 40)), bitsOf(-0.0f));
}
