//===- SramPlacerTest.cpp - Offline SRAM placement --------------------===//

#include "compiler/passes/SramPlacer.h"

#include <gtest/gtest.h>

#include <set>

using namespace hetc::placement;

namespace {

Buffer buffer(int64_t size, int64_t first, int64_t last,
              std::vector<size_t> partners = {}) {
  Buffer b;
  b.size = size;
  b.first = first;
  b.last = last;
  b.partners = std::move(partners);
  return b;
}

/// No two buffers live at the same time overlap, and all lie in SRAM.
void expectValid(const std::vector<Buffer> &buffers,
                 const std::vector<int64_t> &address, Geometry sram) {
  ASSERT_EQ(address.size(), buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_GE(address[i], 0) << "buffer " << i;
    EXPECT_LE(address[i] + buffers[i].size, sram.capacity) << "buffer " << i;
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      bool together = buffers[i].first <= buffers[j].last &&
                      buffers[j].first <= buffers[i].last;
      bool apart = address[i] + buffers[i].size <= address[j] ||
                   address[j] + buffers[j].size <= address[i];
      EXPECT_TRUE(!together || apart) << "buffers " << i << " and " << j;
    }
  }
}

TEST(SramPlacerTest, PeakCountsBuffersLiveAtOnePoint) {
  std::vector<Buffer> buffers = {buffer(4, 0, 2), buffer(3, 2, 5),
                                 buffer(5, 3, 4)};
  Peak peak = peakLive(buffers);
  EXPECT_EQ(peak.size, 8);
  EXPECT_EQ(peak.at, 3);
}

TEST(SramPlacerTest, PeakFreesADeadBufferAtTheNextPoint) {
  // Dead after point 1, so point 2 holds only the second buffer.
  std::vector<Buffer> buffers = {buffer(4, 0, 1), buffer(4, 2, 3)};
  EXPECT_EQ(peakLive(buffers).size, 4);
}

TEST(SramPlacerTest, ReusesTheRoomOfDeadBuffers) {
  Geometry sram{8, 4};
  std::vector<Buffer> buffers = {buffer(8, 0, 1), buffer(8, 2, 3)};
  auto address = place(buffers, sram, Preference::Spread);
  ASSERT_TRUE(address);
  EXPECT_EQ((*address)[0], 0);
  EXPECT_EQ((*address)[1], 0);
}

// Many small buffers live throughout, then one large one: the large buffer
// must find room whenever the free vectors cover it. The old placer put
// each small buffer in the next slice and failed here with 704 of 180224
// vectors in use.
TEST(SramPlacerTest, ManySmallBuffersThenALargeOne) {
  Geometry sram{88 * 2048, 2048};
  std::vector<Buffer> buffers;
  for (int i = 0; i < 87; ++i)
    buffers.push_back(buffer(8, 0, 100));
  buffers.push_back(buffer(2560, 50, 60));
  for (Preference p : {Preference::Spread, Preference::Pack}) {
    auto address = place(buffers, sram, p);
    ASSERT_TRUE(address);
    expectValid(buffers, *address, sram);
  }
}

// Fills SRAM exactly: whole-program buffers of mixed sizes whose sum is
// the capacity must all be placed.
TEST(SramPlacerTest, PacksBuffersLiveThroughoutUpToCapacity) {
  Geometry sram{1024, 64};
  std::vector<Buffer> buffers;
  int64_t total = 0;
  for (int64_t size : {300, 7, 1, 64, 129, 200, 3, 96, 160, 64})
    buffers.push_back(buffer(size, 0, 10)), total += size;
  ASSERT_EQ(total, sram.capacity);
  auto address = place(buffers, sram, Preference::Pack);
  ASSERT_TRUE(address);
  expectValid(buffers, *address, sram);
}

TEST(SramPlacerTest, PrefersSlicesClearOfPartners) {
  Geometry sram{64, 16};
  // Buffer 1 is read with buffer 0: it goes to another slice.
  std::vector<Buffer> buffers = {buffer(8, 0, 5, {1}), buffer(4, 0, 5, {0})};
  auto address = place(buffers, sram, Preference::Spread);
  ASSERT_TRUE(address);
  EXPECT_EQ((*address)[0], 0);
  EXPECT_NE((*address)[1] / 16, 0);
  // Packing keeps them apart too, in the next slice.
  address = place(buffers, sram, Preference::Pack);
  ASSERT_TRUE(address);
  EXPECT_EQ((*address)[1], 16);
  // With no room elsewhere they share a slice.
  address = place(buffers, Geometry{16, 16}, Preference::Pack);
  ASSERT_TRUE(address);
  EXPECT_EQ((*address)[1], 8);
}

// Tests that a partner whose runs go round the slices (interleaved
// addresses: run r in slice r % 4) keeps its buffer off each of them, the
// first slice it wraps into too.
TEST(SramPlacerTest, PartnersRunsCountRoundTheSlices) {
  Geometry sram{64, 4};
  sram.slices = 4;
  // The partner takes runs 3 and 4: slices 3 and 0.
  Buffer partner = buffer(8, 0, 5, {1});
  partner.fixed = 12;
  std::vector<Buffer> buffers = {partner, buffer(4, 0, 5, {0})};
  auto address = place(buffers, sram, Preference::Pack);
  ASSERT_TRUE(address);
  expectValid(buffers, *address, sram);
  EXPECT_EQ((*address)[1], 4);
}

TEST(SramPlacerTest, NearBuffersTakeTheSlicesClosestToTheVectorUnit) {
  // Eight slices of 8; the vector unit sits by slice 6, and only slices 5,
  // 6 and 7 lie fewer than kNearBand (3) hops from it.
  Geometry sram{64, 8, {12, 10, 8, 6, 4, 2, 0, 2}};
  Buffer big = buffer(8, 0, 9);
  Buffer scratch = buffer(2, 1, 2, {2});
  scratch.near = true;
  Buffer other = buffer(2, 1, 2, {1});
  other.near = true;
  std::vector<Buffer> buffers = {big, scratch, other};
  auto address = place(buffers, sram, Preference::Spread);
  ASSERT_TRUE(address);
  expectValid(buffers, *address, sram);
  // The large buffer keeps the round-robin from slice 0; the near ones
  // take slices within the band, apart (partners).
  EXPECT_EQ((*address)[0], 0);
  EXPECT_LT(sram.distance[size_t((*address)[1] / 8)], 3);
  EXPECT_LT(sram.distance[size_t((*address)[2] / 8)], 3);
  EXPECT_NE((*address)[1] / 8, (*address)[2] / 8);
  // Without distances, or when packing, nearness is not weighed.
  Geometry flat{64, 8, {}};
  address = place(buffers, flat, Preference::Spread);
  ASSERT_TRUE(address);
  EXPECT_GE(flat.sliceOf((*address)[1]), 1);
  EXPECT_LE(flat.sliceOf((*address)[1]), 2);
  address = place(buffers, sram, Preference::Pack);
  ASSERT_TRUE(address);
  EXPECT_EQ((*address)[1] / 8, 1);
}

// Tests that near buffers one after another (a depthwise convolution's
// windows, channel by channel) go round the slices of the band, not all to
// the nearest: each slice serves two accesses a cycle.
TEST(SramPlacerTest, NearBuffersGoRoundTheNearestBand) {
  Geometry sram{64, 8, {12, 10, 8, 6, 4, 2, 0, 2}};
  std::vector<Buffer> buffers;
  for (int64_t i = 0; i < 6; ++i) {
    buffers.push_back(buffer(2, i, i + 1));
    buffers.back().near = true;
  }
  auto address = place(buffers, sram, Preference::Spread);
  ASSERT_TRUE(address);
  expectValid(buffers, *address, sram);
  std::set<int64_t> slices;
  for (int64_t a : *address) {
    EXPECT_LT(sram.distance[size_t(a / 8)], 3) << a;
    slices.insert(a / 8);
  }
  EXPECT_EQ(slices.size(), 3u);
}

TEST(SramPlacerTest, InterleavedRunsCountAsTheirSlices) {
  // Four slices take runs of 4 units round-robin: run r is in slice r % 4.
  // The vector unit sits by slice 2.
  Geometry sram{64, 4, {8, 4, 0, 4}, 4};
  EXPECT_TRUE(sram.interleaved());
  EXPECT_EQ(sram.sliceOf(17), 0);
  EXPECT_EQ(sram.sliceOf(27), 2);
  // The whole-program buffer takes runs 0 and 1 (slices 0 and 1); its
  // partner keeps clear of both, in whatever run, and a near buffer takes
  // a run of slice 2.
  Buffer big = buffer(8, 0, 9);
  Buffer partner = buffer(4, 1, 2, {0});
  Buffer scratch = buffer(2, 3, 4);
  scratch.near = true;
  big.partners = {1};
  std::vector<Buffer> buffers = {big, partner, scratch};
  auto address = place(buffers, sram, Preference::Spread);
  ASSERT_TRUE(address);
  expectValid(buffers, *address, sram);
  EXPECT_EQ((*address)[0], 0);
  int64_t partnerSlice = sram.sliceOf((*address)[1]);
  EXPECT_TRUE(partnerSlice == 2 || partnerSlice == 3) << (*address)[1];
  EXPECT_EQ(sram.sliceOf((*address)[2]), 2);
  // A partner that covers a whole round of the slices shares one with
  // anything: placing beside it still succeeds.
  buffers = {buffer(16, 0, 9, {1}), buffer(4, 1, 2, {0})};
  address = place(buffers, sram, Preference::Pack);
  ASSERT_TRUE(address);
  expectValid(buffers, *address, sram);
}

// Spreading puts each buffer in a slice of its own and leaves holes too
// small for the last one; packing leaves one run that holds it. The pass
// falls back to packing for this reason.
TEST(SramPlacerTest, SpreadingCanFragmentWherePackingFits) {
  Geometry sram{3 * 2048, 2048};
  std::vector<Buffer> buffers = {buffer(1500, 0, 9), buffer(1500, 0, 9),
                                 buffer(1500, 0, 9), buffer(1000, 0, 9)};
  EXPECT_FALSE(place(buffers, sram, Preference::Spread));
  auto address = place(buffers, sram, Preference::Pack);
  ASSERT_TRUE(address);
  expectValid(buffers, *address, sram);
}

// Best fit puts the short-lived buffer 1 in the one-vector hole and leaves
// none for buffer 3; first fit puts it at 0, where buffer 2 is not yet
// live. (Whisper's encoder, at 89% of SRAM live, needs first fit too.)
TEST(SramPlacerTest, FirstFitPlacesWhatBestFitStrands) {
  Geometry sram{4, 4};
  std::vector<Buffer> buffers = {buffer(1, 1, 5), buffer(1, 1, 1),
                                 buffer(2, 2, 2), buffer(1, 1, 5)};
  ASSERT_LE(peakLive(buffers).size, sram.capacity);
  EXPECT_FALSE(place(buffers, sram, Preference::Pack));
  auto address = place(buffers, sram, Preference::PackFirstFit);
  ASSERT_TRUE(address);
  expectValid(buffers, *address, sram);
}

// And the other way round: here first fit strands the last buffer.
TEST(SramPlacerTest, BestFitPlacesWhatFirstFitStrands) {
  Geometry sram{7, 7};
  std::vector<Buffer> buffers = {buffer(2, 0, 5), buffer(2, 0, 2),
                                 buffer(2, 3, 4), buffer(2, 0, 3),
                                 buffer(3, 4, 5)};
  ASSERT_LE(peakLive(buffers).size, sram.capacity);
  EXPECT_FALSE(place(buffers, sram, Preference::PackFirstFit));
  auto address = place(buffers, sram, Preference::Pack);
  ASSERT_TRUE(address);
  expectValid(buffers, *address, sram);
}

TEST(SramPlacerTest, FailsOnlyWhenNoGapFits) {
  Geometry sram{16, 8};
  EXPECT_FALSE(place({buffer(17, 0, 0)}, sram, Preference::Pack));
  EXPECT_FALSE(place({buffer(9, 0, 3), buffer(8, 1, 2)}, sram, Preference::Pack));
  EXPECT_TRUE(place({buffer(8, 0, 3), buffer(8, 1, 2)}, sram, Preference::Pack));
}

// A transformer-like chain: per layer a weight live throughout and
// activations that live for two steps; the placement stays within SRAM
// as long as the peak does.
TEST(SramPlacerTest, LayerChainFitsWhenThePeakFits) {
  Geometry sram{88 * 2048, 2048};
  std::vector<Buffer> buffers;
  int64_t point = 0;
  for (int layer = 0; layer < 8; ++layer) {
    buffers.push_back(buffer(1600, 0, 1000));
    for (int step = 0; step < 12; ++step, ++point)
      buffers.push_back(buffer(step % 3 == 0 ? 6400 : 400, point, point + 2,
                               {buffers.size() - 1}));
  }
  ASSERT_LE(peakLive(buffers).size, sram.capacity);
  auto address = place(buffers, sram, Preference::Spread);
  ASSERT_TRUE(address);
  expectValid(buffers, *address, sram);
}

TEST(SramPlacerTest, FixedBuffersStayWhereTheyAreAndOthersKeepClear) {
  // A decode step's weight at 8 and cache at 20, as its prefill program
  // sees them: fixed, overlapping each other's reservations freely; the
  // program's own buffers go around them, in every preference.
  Geometry sram{32, 4};
  std::vector<Buffer> buffers = {buffer(4, 0, 9), buffer(8, 0, 9),
                                 buffer(8, 0, 9), buffer(8, 2, 3),
                                 buffer(4, 4, 5)};
  buffers[1].fixed = 8;  // the reservation of the step's weight
  buffers[2].fixed = 8;  // the program's own use of that weight
  buffers[0].fixed = 20; // the cache
  for (Preference preference :
       {Preference::Spread, Preference::Pack, Preference::PackFirstFit}) {
    auto address = place(buffers, sram, preference);
    ASSERT_TRUE(address);
    EXPECT_EQ((*address)[0], 20);
    EXPECT_EQ((*address)[1], 8);
    EXPECT_EQ((*address)[2], 8);
    for (size_t i : {3, 4}) {
      int64_t begin = (*address)[i], end = begin + buffers[i].size;
      EXPECT_TRUE(end <= 8 || (begin >= 16 && end <= 20) || begin >= 24)
          << "buffer " << i << " at " << begin;
    }
  }
}

TEST(SramPlacerTest, FixedBufferOutsideSramFails) {
  Geometry sram{16, 4};
  std::vector<Buffer> buffers = {buffer(8, 0, 1)};
  buffers[0].fixed = 12;
  EXPECT_FALSE(place(buffers, sram, Preference::Pack));
  buffers[0].fixed = -1;
  EXPECT_FALSE(place(buffers, sram, Preference::Pack));
}

TEST(SramPlacerTest, PackAtEndsLeavesOneRunAroundTheVectorUnit) {
  // The vector unit between slices 1 and 2: the free run stays centred on
  // address 16, the largest buffer first at one end, the others where they
  // keep it centred.
  Geometry sram{32, 8, {2, 1, 1, 2}};
  std::vector<Buffer> buffers = {buffer(4, 0, 9), buffer(8, 0, 9),
                                 buffer(4, 0, 9)};
  packAtEnds(buffers, sram);
  ASSERT_TRUE(buffers[0].fixed && buffers[1].fixed && buffers[2].fixed);
  EXPECT_EQ(*buffers[1].fixed, 0);
  EXPECT_EQ(*buffers[0].fixed, 28);
  EXPECT_EQ(*buffers[2].fixed, 24);
}

TEST(SramPlacerTest, PackAtEndsKeepsPartnersInSlicesOfTheirOwn) {
  // Slices of 16: the second buffer would share the first one's slice at
  // the west end, so it takes the east end.
  Geometry sram{32, 16};
  std::vector<Buffer> buffers = {buffer(8, 0, 9), buffer(8, 0, 9, {0})};
  buffers[0].partners = {1};
  packAtEnds(buffers, sram);
  ASSERT_TRUE(buffers[0].fixed && buffers[1].fixed);
  EXPECT_EQ(*buffers[0].fixed, 0);
  EXPECT_EQ(*buffers[1].fixed, 24);
}

} // namespace
