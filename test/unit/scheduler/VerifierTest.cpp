//===- VerifierTest.cpp - The verifier, determinism and random programs --===//

#include "SchedulerTestUtil.h"
#include "compiler/scheduler/Synthetic.h"

using namespace hetc::sched;
using namespace hetc::sched::testing;

namespace {

Problem smallChain() {
  return parse(R"(
resource bank 1
resource vector 1
op r latency 1 position 0 uses bank
op v latency 2 position 3 uses vector
op w latency 1 position 1 uses bank
transfer r -> v
transfer v -> w
op r2 latency 1 position 1 uses bank
dep w -> r2 delay 1
)");
}

TEST(VerifierTest, AcceptsTheScheduledChain) {
  Problem problem = smallChain();
  Schedule result = scheduleChecked(problem);
  EXPECT_FALSE(verifySchedule(problem, result));
}

TEST(VerifierTest, RejectsOneOpShiftedByOneCycle) {
  Problem problem = smallChain();
  Schedule result = scheduleChecked(problem);
  for (OpId op = 0; op < problem.getNumOperations(); ++op) {
    for (int64_t shift : {-1, 1}) {
      Schedule shifted = result;
      shifted.cycles[op] += shift;
      std::optional<Error> failure = verifySchedule(problem, shifted);
      ASSERT_TRUE(failure) << "op " << op << " shifted by " << shift;
      EXPECT_EQ(failure->kind, ErrorKind::Verification);
    }
  }
}

TEST(VerifierTest, RejectsTheWholeScheduleShiftedByOneCycle) {
  Problem problem = smallChain();
  Schedule shifted = scheduleChecked(problem);
  for (int64_t &cycle : shifted.cycles)
    ++cycle;
  std::optional<Error> failure = verifySchedule(problem, shifted);
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->message.find("claims length"), std::string::npos)
      << failure->message;
}

TEST(VerifierTest, RejectsSharedGroupsAndOverfullResources) {
  Problem problem = parse(R"(
resource bank 1
op a latency 1 position 0 uses bank
op b latency 1 position 0
op x latency 1 position 3
op y latency 1 position 3
transfer a -> x
transfer b -> y
)");
  Schedule result = scheduleChecked(problem);
  Schedule clash = result;
  clash.cycles = {0, 0, 4, 4};
  clash.streams[1] = clash.streams[0];
  std::optional<Error> failure = verifySchedule(problem, clash);
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->message.find("meet on east group 0"), std::string::npos)
      << failure->message;

  Problem busy = parse("resource bank 1\nop a latency 1 uses bank\n"
                       "op b latency 1 uses bank\n");
  Schedule overfull = scheduleChecked(busy);
  overfull.cycles = {0, 0};
  overfull.length = 1;
  failure = verifySchedule(busy, overfull);
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->message.find("2 uses at cycle 0"), std::string::npos)
      << failure->message;
}

TEST(VerifierTest, RejectsABrokenDependence) {
  Problem problem = parse("op a latency 1\nop b latency 1\n"
                          "dep a -> b delay -1\n");
  Schedule result = scheduleChecked(problem);
  result.cycles = {2, 0};
  result.length = 3;
  std::optional<Error> failure = verifySchedule(problem, result);
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->message.find("needs a delay of -1"), std::string::npos)
      << failure->message;
}

/// Synthetic programs on both chips, with and without the backfill window
/// and with scarce stream groups.
class SyntheticTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(SyntheticTest, EveryScheduleVerifies) {
  for (SyntheticChip chip :
       {SyntheticChip::testChip(), SyntheticChip::tspV1()}) {
    for (uint32_t groups : {2u, 8u}) {
      chip.streamGroups = groups;
      SyntheticOptions options;
      options.numOps = 3000;
      options.seed = GetParam();
      options.addresses = 64 + 512 * uint32_t(GetParam() % 3);
      Problem problem = buildSyntheticProblem(chip, options);
      for (int64_t window : {int64_t(0), int64_t(16), int64_t(1024)}) {
        SchedulerOptions schedulerOptions;
        schedulerOptions.backfillWindow = window;
        Schedule result = scheduleChecked(problem, schedulerOptions);
        EXPECT_GE(result.length, result.bound.cycles);
        EXPECT_GT(result.bound.cycles, 0);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, SyntheticTest, ::testing::Values(1, 2, 3, 4));

TEST(DeterminismTest, SameProblemSameSchedule) {
  SyntheticOptions options;
  options.numOps = 20000;
  Problem problem = buildSyntheticProblem(SyntheticChip::tspV1(), options);
  Schedule first = scheduleChecked(problem);
  Schedule second = scheduleChecked(problem);
  Problem rebuilt = buildSyntheticProblem(SyntheticChip::tspV1(), options);
  Schedule third = scheduleChecked(rebuilt);
  for (const Schedule *other : {&second, &third}) {
    EXPECT_EQ(first.cycles, other->cycles);
    ASSERT_EQ(first.streams.size(), other->streams.size());
    for (size_t i = 0; i < first.streams.size(); ++i) {
      EXPECT_EQ(first.streams[i].group, other->streams[i].group);
      EXPECT_EQ(first.streams[i].direction, other->streams[i].direction);
    }
    EXPECT_EQ(first.length, other->length);
    EXPECT_EQ(first.bound.cycles, other->bound.cycles);
  }
}

} // namespace
