//===- FuzzSchedule.cpp - hetc-sched's textual problem form ------------===//
//
// A problem that parses must schedule or fail with an error, and every
// schedule must pass the verifier: a schedule that breaks a constraint is
// a finding.
//
//===----------------------------------------------------------------------===//

#include "compiler/scheduler/Scheduler.h"
#include "compiler/scheduler/TextFormat.h"
#include "compiler/scheduler/Verifier.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

using namespace hetc::sched;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  Expected<Problem> problem = parseProblem(text, "fuzz.sched");
  if (!problem)
    return 0;
  Expected<Schedule> result = schedule(*problem);
  if (!result)
    return 0;
  if (verifySchedule(*problem, *result))
    std::abort();
  return 0;
}
