//===- SchedulerTestUtil.h - Helpers for the scheduler tests ----*- C++ -*-===//

#ifndef HETC_TEST_UNIT_SCHEDULER_SCHEDULERTESTUTIL_H
#define HETC_TEST_UNIT_SCHEDULER_SCHEDULERTESTUTIL_H

#include "compiler/scheduler/Scheduler.h"
#include "compiler/scheduler/TextFormat.h"
#include "compiler/scheduler/Verifier.h"

#include "gtest/gtest.h"

#include <string>

namespace hetc::sched::testing {

/// Parses a problem in the textual form; a parse error fails the test.
inline Problem parse(std::string_view text) {
  Expected<Problem> problem = parseProblem(text, "test");
  if (!problem) {
    ADD_FAILURE() << problem.error().message;
    return Problem();
  }
  return std::move(*problem);
}

/// Schedules a problem that must schedule, and checks the result with the
/// verifier.
inline Schedule scheduleChecked(const Problem &problem,
                                const SchedulerOptions &options = {}) {
  Expected<Schedule> result = schedule(problem, options);
  if (!result) {
    ADD_FAILURE() << result.error().message;
    return Schedule();
  }
  std::optional<Error> failure = verifySchedule(problem, *result);
  EXPECT_FALSE(failure) << failure->message;
  return std::move(*result);
}

/// Returns the error of a problem that must not schedule.
inline Error scheduleError(const Problem &problem) {
  Expected<Schedule> result = schedule(problem);
  if (result) {
    ADD_FAILURE() << "expected an error";
    return Error();
  }
  return result.error();
}

/// Returns the cycle of the op named `name`.
inline int64_t cycleOf(const Problem &problem, const Schedule &result,
                       const std::string &name) {
  for (OpId op = 0; op < problem.getNumOperations(); ++op)
    if (problem.getOperation(op).name == name)
      return result.cycles[op];
  ADD_FAILURE() << "no op named " << name;
  return -1;
}

} // namespace hetc::sched::testing

#endif // HETC_TEST_UNIT_SCHEDULER_SCHEDULERTESTUTIL_H
