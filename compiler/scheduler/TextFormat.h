//===- TextFormat.h - Textual problem form and printing --------*- C++ -*-===//
//
// The textual form is one directive per line; `#` starts a comment. See
// compiler/scheduler/README.md for the grammar and an example.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_SCHEDULER_TEXTFORMAT_H
#define HETC_COMPILER_SCHEDULER_TEXTFORMAT_H

#include "compiler/scheduler/Error.h"
#include "compiler/scheduler/Problem.h"
#include "compiler/scheduler/Scheduler.h"

#include <ostream>
#include <string_view>

namespace hetc::sched {

/// Reads a problem in the textual form. Errors are of kind Parse and read
/// "<bufferName>:<line>: <message>".
Expected<Problem> parseProblem(std::string_view text,
                               std::string_view bufferName);

/// Prints one line per op ("op <name> cycle <c>"), per transfer
/// ("transfer <producer> group <g> <east|west>") and per resource
/// ("resource <name> uses <n> utilisation <x.xx>"), then the length, the
/// bound with its reason and the efficiency.
void printSchedule(const Problem &problem, const Schedule &schedule,
                   std::ostream &os);

} // namespace hetc::sched

#endif // HETC_COMPILER_SCHEDULER_TEXTFORMAT_H
