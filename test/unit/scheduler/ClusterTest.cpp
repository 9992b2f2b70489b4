//===- ClusterTest.cpp - Rigid clusters: chains, fan-in, consistency -----===//

#include "SchedulerTestUtil.h"
#include "compiler/scheduler/Clusters.h"

using namespace hetc::sched;
using namespace hetc::sched::testing;

namespace {

TEST(ClusterTest, ChainTimingIsExact) {
  Problem problem = parse(R"(
hop 2
resource vector 1
op r latency 3 position 1
op v latency 2 position 4 uses vector
op w latency 1 position 2
transfer r -> v
transfer v -> w
)");
  Schedule result = scheduleChecked(problem);
  // r emits at 3 and needs 3 hops of 2 cycles; v emits at 11, 2 hops back.
  EXPECT_EQ(cycleOf(problem, result, "r"), 0);
  EXPECT_EQ(cycleOf(problem, result, "v"), 9);
  EXPECT_EQ(cycleOf(problem, result, "w"), 15);
  EXPECT_EQ(result.streams[0].direction, Direction::East);
  EXPECT_EQ(result.streams[1].direction, Direction::West);
  EXPECT_EQ(result.length, 16);
}

TEST(ClusterTest, FanInOperandsArriveTogether) {
  Problem problem = parse(R"(
op far latency 1 position 0
op near latency 1 position 5
op east latency 1 position 9
op add latency 1 position 6
transfer far -> add
transfer near -> add
transfer east -> add
)");
  Schedule result = scheduleChecked(problem);
  int64_t add = cycleOf(problem, result, "add");
  EXPECT_EQ(cycleOf(problem, result, "far"), add - 1 - 6);
  EXPECT_EQ(cycleOf(problem, result, "near"), add - 1 - 1);
  EXPECT_EQ(cycleOf(problem, result, "east"), add - 1 - 3);
  // The farthest producer sets the start of the cluster.
  EXPECT_EQ(cycleOf(problem, result, "far"), 0);
}

TEST(ClusterTest, FanOutConsumersIssueAsTheValuePasses) {
  Problem problem = parse(R"(
op p latency 2 position 1
op a latency 1 position 1
op b latency 1 position 3
op c latency 1 position 7
transfer p -> c a b
)");
  Schedule result = scheduleChecked(problem);
  EXPECT_EQ(cycleOf(problem, result, "a"), 2);
  EXPECT_EQ(cycleOf(problem, result, "b"), 4);
  EXPECT_EQ(cycleOf(problem, result, "c"), 8);
}

TEST(ClusterTest, OffsetsStartAtZeroInProgramOrder) {
  Problem problem = parse(R"(
op x latency 1 position 3
op y latency 1 position 0
op z latency 1 position 4
transfer y -> z
transfer x -> z
)");
  Expected<Clusters> clusters = buildClusters(problem);
  ASSERT_TRUE(clusters);
  ASSERT_EQ(clusters->size(), 1u);
  EXPECT_EQ(clusters->offset[0], 3); // x
  EXPECT_EQ(clusters->offset[1], 0); // y
  EXPECT_EQ(clusters->offset[2], 5); // z
  std::vector<uint32_t> members(clusters->members.begin(0),
                                clusters->members.end(0));
  EXPECT_EQ(members, (std::vector<uint32_t>{0, 1, 2}));
}

TEST(ClusterTest, InconsistentClusterNamesTheOps) {
  Problem problem = parse(R"(
op a latency 1 position 0
op b latency 1 position 1
op sum latency 1 position 3
transfer a -> b sum
transfer b -> sum
)");
  Error error = scheduleError(problem);
  EXPECT_EQ(error.kind, ErrorKind::InconsistentCluster);
  EXPECT_NE(error.message.find("'b' -> 'sum'"), std::string::npos)
      << error.message;
  EXPECT_EQ(error.ops, (std::vector<uint32_t>{1, 2}));
}

TEST(ClusterTest, DependenceInsideClusterMustHold) {
  Problem problem = parse(R"(
op a latency 1 position 0
op b latency 1 position 2
transfer a -> b
dep a -> b delay 4
)");
  Error error = scheduleError(problem);
  EXPECT_EQ(error.kind, ErrorKind::Infeasible);
  EXPECT_NE(error.message.find("fix it at 3"), std::string::npos)
      << error.message;
}

TEST(ClusterTest, TooManyUsesInOneCycleIsUnschedulable) {
  Problem problem = parse(R"(
resource vector 1
op p latency 1 position 0
op a latency 1 position 1 uses vector
op b latency 1 position 1 uses vector
transfer p -> a b
)");
  Error error = scheduleError(problem);
  EXPECT_EQ(error.kind, ErrorKind::Unschedulable);
  EXPECT_NE(error.message.find("'a', 'b'"), std::string::npos) << error.message;
}

} // namespace
