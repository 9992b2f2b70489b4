//===- IndexMapsTest.cpp - The index maps of the data-movement ops ----===//
//
// Each map against the element it must copy, worked out by hand on small
// shapes: a map that moved one element wrongly would move data wrongly on
// the chip.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/GatherIndices.h"
#include "compiler/passes/WindowIndices.h"

#include <gtest/gtest.h>

using namespace hetc::gather;
using Vec = std::vector<int64_t>;

namespace {

TEST(GatherIndicesTest, Identity) { EXPECT_EQ(identity(4), Vec({0, 1, 2, 3})); }

TEST(GatherIndicesTest, ConcatAlongTheInnerAxisInterleavesRows) {
  // [2,2] ++ [2,1] along axis 1: inputs count as one list (a's 4, then b's).
  int64_t a[] = {2, 2}, b[] = {2, 1}, out[] = {2, 3};
  Shape inputs[] = {a, b};
  EXPECT_EQ(concat(inputs, 1, out), Vec({0, 1, 4, 2, 3, 5}));
  int64_t outRows[] = {4, 2};
  Shape same[] = {a, a};
  EXPECT_EQ(concat(same, 0, outRows), Vec({0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(GatherIndicesTest, SliceWithSteps) {
  // [3,4], rows 1.., every second column from 1: [[5, 7], [9, 11]].
  int64_t in[] = {3, 4}, starts[] = {1, 1}, steps[] = {1, 2}, out[] = {2, 2};
  EXPECT_EQ(slice(in, starts, steps, out), Vec({5, 7, 9, 11}));
}

TEST(GatherIndicesTest, Transpose) {
  int64_t in[] = {2, 3}, perm[] = {1, 0}, out[] = {3, 2};
  EXPECT_EQ(transpose(in, perm, out), Vec({0, 3, 1, 4, 2, 5}));
  // A 3-D permutation: out[i][j][k] = in[j][k][i].
  int64_t in3[] = {2, 2, 2}, perm3[] = {2, 0, 1}, out3[] = {2, 2, 2};
  EXPECT_EQ(transpose(in3, perm3, out3), Vec({0, 2, 4, 6, 1, 3, 5, 7}));
}

TEST(GatherIndicesTest, PadModes) {
  int64_t in[] = {3}, pads[] = {2, 1}, out[] = {6};
  EXPECT_EQ(*pad(in, pads, "constant", -1, out), Vec({-1, -1, 0, 1, 2, -1}));
  EXPECT_EQ(*pad(in, pads, "constant", 3, out), Vec({3, 3, 0, 1, 2, 3}));
  EXPECT_EQ(*pad(in, pads, "reflect", -1, out), Vec({2, 1, 0, 1, 2, 1}));
  EXPECT_EQ(*pad(in, pads, "edge", -1, out), Vec({0, 0, 0, 1, 2, 2}));
  EXPECT_EQ(*pad(in, pads, "wrap", -1, out), Vec({1, 2, 0, 1, 2, 0}));
  EXPECT_FALSE(pad(in, pads, "mirror", -1, out));
}

TEST(GatherIndicesTest, TileAndExpand) {
  int64_t in[] = {1, 2}, tiled[] = {2, 4};
  EXPECT_EQ(tile(in, tiled), Vec({0, 1, 0, 1, 0, 1, 0, 1}));
  // [2,1] broadcast against [2,3]: each row repeats its element.
  int64_t column[] = {2, 1}, wide[] = {2, 3};
  EXPECT_EQ(expand(column, wide), Vec({0, 0, 0, 1, 1, 1}));
  // Shapes align at the right: [3] against [2,3].
  int64_t row[] = {3};
  EXPECT_EQ(expand(row, wide), Vec({0, 1, 2, 0, 1, 2}));
}

TEST(GatherIndicesTest, GatherCountsNegativeIndicesFromTheEnd) {
  int64_t in[] = {3, 2}, indices[] = {2, -3}, shape[] = {2}, out[] = {2, 2};
  EXPECT_EQ(*gather(in, indices, shape, 0, out), Vec({4, 5, 0, 1}));
  int64_t bad[] = {3, 0};
  EXPECT_FALSE(gather(in, bad, shape, 0, out));
}

TEST(GatherIndicesTest, GatherElements) {
  int64_t in[] = {2, 2}, indices[] = {1, 0, 0, 0}, out[] = {2, 2};
  EXPECT_EQ(*gatherElements(in, indices, 1, out), Vec({1, 0, 2, 2}));
  int64_t bad[] = {2, 0, 0, 0};
  EXPECT_FALSE(gatherElements(in, bad, 1, out));
}

Window window(Vec kernel, Vec strides, Vec pads, Vec dilations) {
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides.assign(strides.begin(), strides.end());
  w.pads.assign(pads.begin(), pads.end());
  w.dilations.assign(dilations.begin(), dilations.end());
  return w;
}

TEST(WindowIndicesTest, PoolWindowsFillOutsideTheInput) {
  // [1,1,2,2], 2x2 kernel, padded one row and column at the start.
  int64_t in[] = {1, 1, 2, 2}, out[] = {1, 1, 2, 2};
  Window w = window({2, 2}, {1, 1}, {1, 1, 0, 0}, {1, 1});
  EXPECT_EQ(poolWindows(in, w, out, 4),
            Vec({4, 4, 4, 0, 4, 4, 0, 1, 4, 0, 4, 2, 0, 1, 2, 3}));
}

TEST(WindowIndicesTest, WindowCountsWithAndWithoutPadding) {
  int64_t in[] = {1, 1, 2, 2}, out[] = {1, 1, 2, 2};
  Window w = window({2, 2}, {1, 1}, {1, 1, 0, 0}, {1, 1});
  EXPECT_EQ(windowCounts(in, w, out, false),
            std::vector<float>({1, 2, 2, 4}));
  EXPECT_EQ(windowCounts(in, w, out, true), std::vector<float>(4, 4));
}

TEST(WindowIndicesTest, ConvColumnsWithStridesAndDilations) {
  // One channel of [1,1,3,3], a 2x2 kernel dilated by 2 (it spans 3x3):
  // one output position, the four corners.
  int64_t in[] = {1, 1, 3, 3}, out[] = {1, 1, 1, 1};
  Window w = window({2, 2}, {1, 1}, {0, 0, 0, 0}, {2, 2});
  EXPECT_EQ(convColumns(in, w, out, 0, 0, 1), Vec({0, 2, 6, 8}));
  // Stride 2 over a [1,2,3,3] input, 1x1 kernel, second channel, second
  // batch element of a batch of 2: positions (0,0), (0,2), (2,0), (2,2).
  int64_t in2[] = {2, 2, 3, 3}, out2[] = {2, 1, 2, 2};
  Window w2 = window({1, 1}, {2, 2}, {0, 0, 0, 0}, {1, 1});
  int64_t base = (1 * 2 + 1) * 9;
  EXPECT_EQ(convColumns(in2, w2, out2, 1, 1, 1),
            Vec({base + 0, base + 2, base + 6, base + 8}));
}

} // namespace
