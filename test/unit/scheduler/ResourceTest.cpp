//===- ResourceTest.cpp - Resource capacity and reservation tables -------===//

#include "SchedulerTestUtil.h"
#include "compiler/scheduler/ReservationTable.h"

using namespace hetc::sched;
using namespace hetc::sched::testing;

namespace {

TEST(ReservationTableTest, FindsRoomForEachDemand) {
  ReservationTable table(3);
  table.reserve(5, 3);
  table.reserve(6, 2);
  table.reserve(7, 1);
  EXPECT_EQ(table.firstFit(0, 1), 0u);
  EXPECT_EQ(table.firstFit(5, 1), 6u);
  EXPECT_EQ(table.firstFit(5, 2), 7u);
  EXPECT_EQ(table.firstFit(5, 3), 8u);
  // Searches mark what they skip; later uses must still be seen.
  table.reserve(8, 3);
  EXPECT_EQ(table.firstFit(5, 3), 9u);
  EXPECT_EQ(table.firstFit(5, 1), 6u);
  EXPECT_EQ(table.usesAt(6), 2u);
}

TEST(ReservationTableTest, SkipsLongFullRunsAcrossPages) {
  ReservationTable table(1);
  for (uint64_t cycle = 0; cycle < 10000; ++cycle)
    table.reserve(cycle, 1);
  EXPECT_EQ(table.firstFit(0, 1), 10000u);
  table.reserve(10000, 1);
  EXPECT_EQ(table.firstFit(17, 1), 10001u);
}

TEST(ReservationTableTest, FarCyclesCostOnlyTheirOwnPages) {
  // A use near the 2^32-cycle bound allocates one page and one directory,
  // not a slot for each of the four million pages before it.
  ReservationTable table(1);
  const uint64_t far = (uint64_t(1) << 32) - 3;
  table.reserve(far, 1);
  EXPECT_EQ(table.usesAt(far), 1u);
  EXPECT_EQ(table.usesAt(far - 1), 0u);
  EXPECT_EQ(table.usesAt(1234567), 0u);
  EXPECT_EQ(table.firstFit(far, 1), far + 1);
  EXPECT_EQ(table.firstFit(0, 1), 0u);
}

TEST(PagedArrayTest, UntouchedEntriesAreAbsentAcrossDirectories) {
  PagedArray<uint32_t> array;
  array.at(5) = 7;
  array.at(uint64_t(3) << 30) = 9;
  ASSERT_NE(array.lookup(5), nullptr);
  EXPECT_EQ(*array.lookup(5), 7u);
  EXPECT_EQ(*array.lookup(uint64_t(3) << 30), 9u);
  EXPECT_EQ(*array.lookup((uint64_t(3) << 30) + 1), 0u);
  EXPECT_EQ(array.lookup(uint64_t(1) << 30), nullptr);
  EXPECT_EQ(array.lookup(uint64_t(1) << 40), nullptr);
}

TEST(ResourceTest, CapacityLimitsUsesPerCycle) {
  Problem problem = parse(R"(
resource vector 2
op a latency 1 uses vector
op b latency 1 uses vector
op c latency 1 uses vector
op d latency 1 uses vector
op e latency 1 uses vector
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(result.cycles, (std::vector<int64_t>{0, 0, 1, 1, 2}));
}

TEST(ResourceTest, ClusterMovesAsAWhole) {
  Problem problem = parse(R"(
resource bank 1
resource out 1
op busy latency 1 position 0 uses out
op busy2 latency 1 position 0 uses out
op r latency 1 position 0 uses bank
op w latency 1 position 0 uses out
transfer r -> w
)");
  Schedule result = scheduleChecked(problem);
  // w would issue at 1, where busy2 holds `out`; the pair moves to 1.
  EXPECT_EQ(cycleOf(problem, result, "r"), 1);
  EXPECT_EQ(cycleOf(problem, result, "w"), 2);
}

TEST(ResourceTest, RepeatedUseCountsTwice) {
  Problem problem = parse(R"(
resource port 2
op a latency 1 uses port port
op b latency 1 uses port
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(result.cycles, (std::vector<int64_t>{0, 1}));
}

TEST(ResourceTest, UtilisationIsUsesOverCapacityTimesLength) {
  Problem problem = parse(R"(
resource vector 4
resource bank 1
op a latency 2 uses vector bank
op b latency 2 uses vector bank
)");
  Schedule result = scheduleChecked(problem);
  ASSERT_EQ(result.utilisation.size(), 2u);
  EXPECT_EQ(result.length, 3);
  EXPECT_EQ(result.utilisation[0].uses, 2u);
  EXPECT_DOUBLE_EQ(result.utilisation[0].utilisation, 2.0 / 12.0);
  EXPECT_DOUBLE_EQ(result.utilisation[1].utilisation, 2.0 / 3.0);
}

} // namespace
