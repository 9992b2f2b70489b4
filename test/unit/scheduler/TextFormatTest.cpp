//===- TextFormatTest.cpp - The textual problem form and printing --------===//

#include "SchedulerTestUtil.h"

#include <sstream>

using namespace hetc::sched;
using namespace hetc::sched::testing;

namespace {

std::string parseError(std::string_view text) {
  Expected<Problem> problem = parseProblem(text, "p.sched");
  if (problem) {
    ADD_FAILURE() << "expected a parse error";
    return "";
  }
  EXPECT_EQ(problem.error().kind, ErrorKind::Parse);
  return problem.error().message;
}

TEST(TextFormatTest, ReadsEveryDirective) {
  Problem problem = parse(R"(# a comment
hop 3
groups 2 width 8   # trailing comment
resource vector 16
resource bank 1
op r latency 2 position 1 uses bank
op v latency 4 position 5 uses vector vector
transfer r -> v
dep r -> v delay -1
op z latency 0
)");
  EXPECT_EQ(problem.getStreams().hopCycles, 3);
  EXPECT_EQ(problem.getStreams().groups, 2u);
  EXPECT_EQ(problem.getStreams().groupWidth, 8u);
  ASSERT_EQ(problem.getNumOperations(), 3u);
  EXPECT_EQ(problem.getOperation(1).uses, (std::vector<ResourceId>{0, 0}));
  EXPECT_EQ(problem.getOperation(2).position, kNoPosition);
  ASSERT_EQ(problem.getNumTransfers(), 1u);
  EXPECT_EQ(problem.getTransfer(0).consumers, (std::vector<OpId>{1}));
  ASSERT_EQ(problem.getNumDependences(), 1u);
  EXPECT_EQ(problem.getDependence(0).delay, -1);
  EXPECT_FALSE(problem.validate());
}

TEST(TextFormatTest, ErrorsNameFileAndLine) {
  EXPECT_EQ(parseError("hop 1\nfoo 2\n"),
            "p.sched:2: unknown directive 'foo'; expected hop, groups, "
            "resource, op, transfer or dep");
  EXPECT_EQ(parseError("op a position 1\n"), "p.sched:1: op 'a' needs a "
                                             "latency");
  EXPECT_EQ(parseError("op a latency x\n"),
            "p.sched:1: expected a latency, found 'x'");
  EXPECT_EQ(parseError("op a latency 1 uses nothing\n"),
            "p.sched:1: unknown resource 'nothing'");
  EXPECT_EQ(parseError("op a latency 1\nop a latency 2\n"),
            "p.sched:2: op 'a' is already defined at line 1");
  EXPECT_EQ(parseError("resource r 0\n"),
            "p.sched:1: a capacity 0 is out of range [1, 4294967295]");
  EXPECT_EQ(parseError("op a latency 1\nop b latency 1\ndep b -> a\n"),
            "p.sched:3: dependence 'b' -> 'a' must go from an earlier op to "
            "a later one in program order");
  EXPECT_EQ(parseError("op a latency 1\ntransfer a b\n"),
            "p.sched:2: expected '->' after 'a'");
  EXPECT_EQ(parseError("op a latency 1\nop b latency 1 position 2\n"
                       "transfer a -> b\n"),
            "p.sched:3: transfer from 'a': the producer has no floorplan "
            "position");
  EXPECT_EQ(parseError("hop 1\nhop 2\n"), "p.sched:2: 'hop' is given twice");
}

TEST(TextFormatTest, PrintsTheSchedule) {
  Problem problem = parse(R"(
resource vector 4
op r latency 1 position 0
op v latency 1 position 1 uses vector
transfer r -> v
)");
  Schedule result = scheduleChecked(problem);
  std::ostringstream os;
  printSchedule(problem, result, os);
  EXPECT_EQ(os.str(), "op r cycle 0\n"
                      "op v cycle 2\n"
                      "transfer r group 0 east\n"
                      "resource vector uses 1 utilisation 0.08\n"
                      "length 3\n"
                      "bound 3 (critical path to 'v')\n"
                      "efficiency 1.00\n");
}

} // namespace
