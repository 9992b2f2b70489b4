//===- BoundTest.cpp - Lower bounds, length and efficiency ---------------===//

#include "SchedulerTestUtil.h"

using namespace hetc::sched;
using namespace hetc::sched::testing;

namespace {

TEST(BoundTest, EmptyProblem) {
  Schedule result = scheduleChecked(Problem());
  EXPECT_EQ(result.length, 0);
  EXPECT_EQ(result.bound.cycles, 0);
  EXPECT_EQ(result.bound.kind, BoundKind::Empty);
  EXPECT_DOUBLE_EQ(result.efficiency, 1.0);
}

TEST(BoundTest, BusiestResource) {
  Problem problem = parse(R"(
resource vector 2
resource bank 1
op a latency 1 uses vector
op b latency 1 uses vector
op c latency 1 uses vector
op d latency 1 uses vector
op e latency 1 uses vector
op f latency 1 uses bank
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(result.bound.kind, BoundKind::Resource);
  EXPECT_EQ(result.bound.subject, 0u);
  EXPECT_EQ(result.bound.cycles, 3);
  EXPECT_EQ(result.bound.reason,
            "resource 'vector': 5 uses at capacity 2, after 0 cycles of "
            "lead-in and before 1 of tail");
  EXPECT_EQ(result.length, 3);
  EXPECT_DOUBLE_EQ(result.efficiency, 1.0);
}

TEST(BoundTest, ResourceBoundCountsTheLastLatency) {
  Problem problem = parse(R"(
resource plane 1
op m0 latency 20 uses plane
op m1 latency 20 uses plane
op m2 latency 20 uses plane
)");
  Schedule result = scheduleChecked(problem);
  // Three issues take cycles 0..2; the last completes 20 cycles later.
  EXPECT_EQ(result.bound.cycles, 22);
  EXPECT_EQ(result.length, 22);
}

TEST(BoundTest, CriticalPathThroughTransfersAndDependences) {
  Problem problem = parse(R"(
op r latency 2 position 0
op v latency 3 position 4
transfer r -> v
op w latency 2 position 9
dep v -> w delay 5
)");
  Schedule result = scheduleChecked(problem);
  // v issues at 6, w at 11 and completes at 13.
  EXPECT_EQ(result.bound.kind, BoundKind::CriticalPath);
  EXPECT_EQ(result.bound.cycles, 13);
  EXPECT_EQ(result.bound.subject, 2u);
  EXPECT_EQ(result.bound.reason, "critical path to 'w'");
  EXPECT_EQ(result.length, 13);
}

TEST(BoundTest, BusiestStreamPosition) {
  // Five values pass positions 1 and 2 eastwards on one group: they need
  // five distinct cycles there, more than any path needs.
  Problem problem = parse(R"(
groups 1
op a latency 1 position 0
op va latency 1 position 2
transfer a -> va
op b latency 1 position 1
op vb latency 1 position 2
transfer b -> vb
op c latency 1 position 0
op vc latency 1 position 2
transfer c -> vc
op d latency 1 position 1
op vd latency 1 position 2
transfer d -> vd
op e latency 1 position 0
op ve latency 1 position 2
transfer e -> ve
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(result.bound.kind, BoundKind::Streams);
  EXPECT_EQ(result.bound.subject, 1u);
  EXPECT_EQ(result.bound.cycles, 5);
  EXPECT_EQ(result.bound.reason,
            "east streams at position 1: 5 transfers over 1 groups");
  EXPECT_EQ(result.length, 7);
}

TEST(BoundTest, ResourceBoundCountsLeadInAndTail) {
  // Both chains end at one bank; the second waits a cycle for it. The
  // bank's first use cannot come before cycle 2 (read, then one hop), so
  // its two uses end at 3 at the earliest and the program at 4.
  Problem problem = parse(R"(
resource out 1
op r0 latency 1 position 0
op w0 latency 1 position 1 uses out
transfer r0 -> w0
op r1 latency 1 position 0
op w1 latency 1 position 1 uses out
transfer r1 -> w1
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(result.bound.kind, BoundKind::Resource);
  EXPECT_EQ(result.bound.cycles, 4);
  EXPECT_EQ(result.length, 4);
  EXPECT_DOUBLE_EQ(result.efficiency, 1.0);
}

TEST(BoundTest, EfficiencyIsBoundOverLength) {
  // Each chain uses the port at its offsets 0 and 2. Two chains interleave
  // (cycles 0, 2 and 1, 3); the third cannot fit at 4, 6 without a gap
  // the bound (6 uses back to back) cannot see.
  Problem problem = parse(R"(
resource port 1
op r0 latency 1 position 0 uses port
op w0 latency 1 position 1 uses port
transfer r0 -> w0
op r1 latency 1 position 0 uses port
op w1 latency 1 position 1 uses port
transfer r1 -> w1
op r2 latency 1 position 0 uses port
op w2 latency 1 position 1 uses port
transfer r2 -> w2
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(result.bound.cycles, 6);
  EXPECT_EQ(result.length, 7);
  EXPECT_DOUBLE_EQ(result.efficiency, 6.0 / 7.0);
}

TEST(BoundTest, StandaloneBoundMatchesTheSchedule) {
  Problem problem = parse(R"(
resource vector 1
op a latency 4 uses vector
op b latency 4 uses vector
dep a -> b delay 4
)");
  Expected<LowerBound> bound = computeLowerBound(problem);
  ASSERT_TRUE(bound);
  EXPECT_EQ(bound->cycles, 8);
  EXPECT_EQ(scheduleChecked(problem).bound.cycles, 8);
}

} // namespace
