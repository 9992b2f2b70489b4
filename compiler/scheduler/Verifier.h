//===- Verifier.h - Independent check of a schedule -------------*- C++ -*-===//

#ifndef HETC_COMPILER_SCHEDULER_VERIFIER_H
#define HETC_COMPILER_SCHEDULER_VERIFIER_H

#include "compiler/scheduler/Error.h"
#include "compiler/scheduler/Problem.h"
#include "compiler/scheduler/Scheduler.h"

#include <optional>

namespace hetc::sched {

/// Checks every constraint of a valid problem against a schedule, without
/// using the scheduler's own data structures: exact transfer timing,
/// stream directions, groups and clashes, resource capacities, dependences,
/// the length and the bound. Returns nullopt when all hold, otherwise an
/// Error of kind Verification listing the first violations found.
std::optional<Error> verifySchedule(const Problem &problem,
                                    const Schedule &schedule);

} // namespace hetc::sched

#endif // HETC_COMPILER_SCHEDULER_VERIFIER_H
