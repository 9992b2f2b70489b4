//===- StreamTest.cpp - Stream group allocation and its conflict rules ---===//

#include "SchedulerTestUtil.h"
#include "compiler/scheduler/StreamTable.h"

using namespace hetc::sched;
using namespace hetc::sched::testing;

namespace {

std::vector<char> clashes(const StreamTable &table, Direction direction,
                          int64_t phase, int32_t low, int32_t high) {
  std::vector<char> used(2, 0);
  table.markClashes(direction, phase, low, high, used);
  return used;
}

TEST(StreamTableTest, ClashesNeedDirectionPhaseAndSharedPosition) {
  StreamTable table(2, 0);
  table.reserve(Direction::East, 5, StreamSegment{0, 2, 4});
  using Used = std::vector<char>;
  EXPECT_EQ(clashes(table, Direction::East, 5, 3, 3), (Used{1, 0}));
  // Touching at one end counts: a value emitted where one is read
  // replaces it.
  EXPECT_EQ(clashes(table, Direction::East, 5, 4, 9), (Used{1, 0}));
  EXPECT_EQ(clashes(table, Direction::East, 5, 0, 2), (Used{1, 0}));
  EXPECT_EQ(clashes(table, Direction::East, 5, 5, 9), (Used{0, 0}));
  EXPECT_EQ(clashes(table, Direction::East, 6, 2, 4), (Used{0, 0}));
  EXPECT_EQ(clashes(table, Direction::West, 5, 2, 4), (Used{0, 0}));
}

TEST(StreamTableTest, FirstFreePhaseSkipsCrowdedPhases) {
  StreamTable table(2, 0);
  for (int64_t phase = 0; phase < 3; ++phase) {
    table.reserve(Direction::East, phase, StreamSegment{0, 0, 5});
    table.reserve(Direction::East, phase, StreamSegment{1, 3, 8});
  }
  EXPECT_EQ(table.firstFreePhase(Direction::East, 0, 4, 4), 3);
  // [6, 9] only meets group 1; group 0 is free.
  EXPECT_EQ(table.firstFreePhase(Direction::East, 0, 6, 9), 0);
  EXPECT_EQ(table.firstPhaseWithFree(Direction::East, 0, 4, 1), 3);
  EXPECT_EQ(table.firstPhaseWithFree(Direction::East, 0, 8, 1), 0);
  EXPECT_EQ(table.firstPhaseWithFree(Direction::East, 0, 8, 2), 3);
}

TEST(StreamTest, SamePhaseOverlapTakesAnotherGroup) {
  Problem problem = parse(R"(
groups 4 width 4
op a latency 1 position 0
op b latency 1 position 1
op add latency 1 position 3
transfer a -> add
transfer b -> add
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(result.streams[0].group, 0u);
  EXPECT_EQ(result.streams[1].group, 1u);
  // The artifact names a group by its first stream.
  EXPECT_EQ(result.streams[0].streamId, 0u);
  EXPECT_EQ(result.streams[1].streamId, 4u);
}

TEST(StreamTest, TouchingSegmentsConflict) {
  Problem problem = parse(R"(
groups 1
op r0 latency 1 position 0
op v0 latency 1 position 2
transfer r0 -> v0
op r1 latency 1 position 2
op v1 latency 1 position 4
transfer r1 -> v1
dep r0 -> r1 delay 2
)");
  Schedule result = scheduleChecked(problem);
  // At cycle 2 r1 would emit at position 2 just as v0 reads r0's value
  // there.
  EXPECT_EQ(cycleOf(problem, result, "r1"), 3);
}

TEST(StreamTest, DisjointSegmentsShareAGroup) {
  Problem problem = parse(R"(
groups 1
op r0 latency 1 position 0
op v0 latency 1 position 2
transfer r0 -> v0
op r1 latency 1 position 3
op v1 latency 1 position 4
transfer r1 -> v1
dep r0 -> r1 delay 3
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(cycleOf(problem, result, "r1"), 3);
}

TEST(StreamTest, ExhaustedGroupsDelayTheCluster) {
  Problem problem = parse(R"(
groups 2
op a latency 1 position 0
op va latency 1 position 5
transfer a -> va
op b latency 1 position 0
op vb latency 1 position 5
transfer b -> vb
op c latency 1 position 0
op vc latency 1 position 5
transfer c -> vc
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(result.cycles, (std::vector<int64_t>{0, 6, 0, 6, 1, 7}));
}

TEST(StreamTest, ClusterNeedingMoreGroupsThanExistIsReported) {
  Problem problem = parse(R"(
groups 2
op a latency 1 position 0
op b latency 1 position 1
op c latency 1 position 2
op sum latency 1 position 3
transfer a -> sum
transfer b -> sum
transfer c -> sum
)");
  Error error = scheduleError(problem);
  EXPECT_EQ(error.kind, ErrorKind::Unschedulable);
  EXPECT_EQ(error.ops, (std::vector<uint32_t>{2, 0, 1}));
}

TEST(StreamTest, SamePositionTransferUsesEitherDirection) {
  Problem problem = parse(R"(
groups 1
op v0 latency 1 position 4
op v1 latency 1 position 4
transfer v0 -> v1
op v2 latency 1 position 4
op v3 latency 1 position 4
transfer v2 -> v3
op v4 latency 1 position 4
op v5 latency 1 position 4
transfer v4 -> v5
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(result.streams[0].direction, Direction::East);
  EXPECT_EQ(result.streams[1].direction, Direction::West);
  EXPECT_EQ(cycleOf(problem, result, "v4"), 1);
}

} // namespace

namespace {

// Two read trains of one slice's banks, each feeding a load train on the
// same side: the first values of the second train would share phases with
// the first train's later values, so it takes the other group; with one
// group it waits until the first train's values have all passed.
const char *kTwoTrains = R"(
resource bank0 1
resource bank1 1
op r0 latency 1 position 0 repeat 4 every 1 uses bank0
op l0 latency 1 position 3 repeat 4 every 1
transfer r0 -> l0
op r1 latency 1 position 0 repeat 4 every 1 uses bank1
op l1 latency 1 position 3 repeat 4 every 1
transfer r1 -> l1
)";

TEST(StreamTest, TrainsInFlightTogetherTakeTwoGroups) {
  Problem problem = parse(std::string("groups 2 width 4\n") + kTwoTrains);
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(result.cycles[0], 0);
  EXPECT_EQ(result.cycles[2], 0);
  EXPECT_NE(result.streams[0].group, result.streams[1].group);
}

TEST(StreamTest, ATrainWaitsForEveryPhaseOfItsGroup) {
  Problem problem = parse(std::string("groups 1 width 4\n") + kTwoTrains);
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(result.cycles[0], 0);
  EXPECT_EQ(result.cycles[2], 4);
  EXPECT_EQ(result.length, 4 + 3 + 1 + 3 + 1);
}

TEST(StreamTest, VerifierCatchesTrainsSharingAGroup) {
  Problem problem = parse(std::string("groups 1 width 4\n") + kTwoTrains);
  Schedule result = scheduleChecked(problem);
  // Start the second train while the first one's last value is in flight.
  result.cycles[2] = 3;
  result.cycles[3] = 3 + 1 + 3;
  std::optional<Error> failure = verifySchedule(problem, result);
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->message.find("meet on east group 0"), std::string::npos)
      << failure->message;
}

} // namespace
