//===- DependenceTest.cpp - Dependences, positive and negative -----------===//

#include "SchedulerTestUtil.h"

using namespace hetc::sched;
using namespace hetc::sched::testing;

namespace {

TEST(DependenceTest, PositiveDelayPushesTheLaterOp) {
  Problem problem = parse(R"(
op w latency 2
op r latency 1
dep w -> r delay 2
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(result.cycles, (std::vector<int64_t>{0, 2}));
}

TEST(DependenceTest, NegativeDelayLetsTheLaterOpGoFirst) {
  Problem problem = parse(R"(
resource bank 1
op early latency 1 uses bank
op r latency 1 uses bank
op w latency 3
dep early -> r delay 4
dep r -> w delay -2
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(cycleOf(problem, result, "r"), 4);
  EXPECT_EQ(cycleOf(problem, result, "w"), 2);
}

TEST(DependenceTest, DependenceMovesAWholeCluster) {
  Problem problem = parse(R"(
op gate latency 5
op r latency 1 position 0
op v latency 1 position 2
transfer r -> v
dep gate -> v delay 5
)");
  Schedule result = scheduleChecked(problem);
  // v must wait until 5; r keeps its offset of 3 before it.
  EXPECT_EQ(cycleOf(problem, result, "v"), 5);
  EXPECT_EQ(cycleOf(problem, result, "r"), 2);
}

TEST(DependenceTest, BackwardDependenceIsRejected) {
  Problem problem;
  OpId a = problem.addOperation("a", 1, kNoPosition);
  OpId b = problem.addOperation("b", 1, kNoPosition);
  problem.addDependence(b, a, 1);
  Error error = scheduleError(problem);
  EXPECT_EQ(error.kind, ErrorKind::InvalidProblem);
  EXPECT_EQ(error.ops, (std::vector<uint32_t>{b, a}));
}

TEST(DependenceTest, ClustersFollowTheirDependencesOutOfProgramOrder) {
  // The cluster {a, c} comes first in program order, but c depends on b,
  // which is alone in a later cluster; b is placed first.
  Problem problem = parse(R"(
op a latency 1 position 0
op b latency 4
op c latency 1 position 1
transfer a -> c
dep b -> c delay 4
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(cycleOf(problem, result, "b"), 0);
  EXPECT_EQ(cycleOf(problem, result, "c"), 4);
  EXPECT_EQ(cycleOf(problem, result, "a"), 2);
}

TEST(DependenceTest, CycleBetweenClustersUsesUpperBounds) {
  // {a, c} and {b, d} depend on each other both ways; the first is placed
  // first and the second must fit between a lower and an upper bound.
  Problem problem = parse(R"(
op a latency 1 position 0
op b latency 1 position 0
op c latency 1 position 4
op d latency 1 position 4
transfer a -> c
transfer b -> d
dep a -> b delay 1
dep b -> c delay -1
dep c -> d delay -3
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(cycleOf(problem, result, "b"), 1);
}

TEST(DependenceTest, ImpossibleCycleIsReported) {
  Problem problem = parse(R"(
op a latency 1 position 0
op b latency 1 position 0
op c latency 1 position 4
op d latency 1 position 4
transfer a -> c
transfer b -> d
dep a -> b delay 1
dep b -> c delay 6
)");
  Error error = scheduleError(problem);
  EXPECT_EQ(error.kind, ErrorKind::Infeasible);
  EXPECT_NE(error.message.find("cycle between clusters"), std::string::npos)
      << error.message;
}

} // namespace
