//===- PhysicalBoundTest.cpp - The chip's physical limit ----------------===//
//
// The published tsp-v1's peaks follow from its chip file as
// docs/performance.md states them, and the bound is the largest term,
// each width of MACs taking its own time on the planes.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/PhysicalBound.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace hetc;

namespace {

chip::ChipSpec load(const char *name) {
  const char *root = std::getenv("HETC_SOURCE_DIR");
  chip::ChipSpec spec;
  std::string error;
  EXPECT_TRUE(chip::ChipSpec::load(
      std::string(root ? root : ".") + "/chips/" + name, spec, error))
      << error;
  return spec;
}

TEST(PhysicalBoundTest, PublishedPeaksOfTsp) {
  PeakRates rates = PeakRates::of(load("tsp-v1.chip"));
  // 4 planes of 320 x 320: 409,600 int8 MACs per cycle (750 TOPS at
  // 900 MHz), a quarter of that in fp16 (188 TFLOPS), a twelfth in fp32
  // (three bf16 passes).
  EXPECT_EQ(rates.macs8, 409600u);
  EXPECT_EQ(rates.macs16, 102400u);
  EXPECT_EQ(rates.macs32, 34133u);
  // 2 x 32 byte-wide streams of 320 lanes; 88 slices x 2 banks x 320 B;
  // 16 ALUs x 320 lanes.
  EXPECT_EQ(rates.installBytes, 20480u);
  EXPECT_EQ(rates.sramBytes, 56320u);
  EXPECT_EQ(rates.vectorLaneOps, 5120u);
}

TEST(PhysicalBoundTest, TheLargestTermBoundsAndWidthsAdd) {
  chip::ChipSpec tsp = load("tsp-v1.chip");
  KernelWork work;
  // One 1024 x 4096 x 4096 int8 GEMM: 41,944 cycles of MACs.
  work.macs8 = uint64_t(1024) * 4096 * 4096;
  work.installBytes = uint64_t(4096) * 4096;
  work.sramBytes = 3 * uint64_t(4096) * 4096;
  PhysicalBound bound = physicalBound(work, tsp);
  EXPECT_EQ(bound.matrixCycles, 41944u);
  EXPECT_EQ(bound.installCycles, 820u);
  EXPECT_EQ(bound.sramCycles, 894u);
  EXPECT_EQ(bound.vectorCycles, 0u);
  EXPECT_EQ(bound.cycles, 41944u);
  EXPECT_STREQ(bound.boundBy, "matrix");

  // The same MACs in fp16 take four times as long, and add to the int8.
  KernelWork wide;
  wide.macs16 = work.macs8;
  work += wide;
  bound = physicalBound(work, tsp);
  EXPECT_EQ(bound.matrixCycles, 41944u + 167773u);

  // A decode-shaped GEMM (M = 1) is bound by installing its weights.
  KernelWork decode;
  decode.macs16 = uint64_t(4096) * 4096;
  decode.installBytes = 2 * uint64_t(4096) * 4096;
  bound = physicalBound(decode, tsp);
  EXPECT_EQ(bound.cycles, 1639u);
  EXPECT_STREQ(bound.boundBy, "weight install");
  EXPECT_EQ(bound.describe(), "bound by weight install; matrix 164, weight "
                              "install 1639, SRAM 0, vector 0 cycles");
}

} // namespace
