//===- Dispatch.h - Filling the functional units' instruction queues -*- C++ -*-//
//
// Rule 9 of docs/isa.md: the dispatcher places instructions into the queue
// of the unit that issues them (a MEM slice, a matrix plane, the vector
// unit, a DMA engine), in program order, at most
// `dispatch.per_cycle` a cycle; a queue holds `dispatch.queue_depth` entries
// per instruction its unit can issue in a cycle, and an entry leaves the
// queue when its instruction issues. An instruction must be in its queue
// before its issue cycle; the queues are filled before cycle 0 as far as
// they hold. The check depends only on the issue cycles and units, so it
// runs once when a program is loaded.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_DISPATCH_H
#define HETC_RUNTIME_SIM_DISPATCH_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/sim/HazardText.h"
#include "runtime/sim/Program.h"

#include <string>
#include <vector>

namespace hetc::sim {

/// Checks that every instruction of `ops` can be dispatched in time; false
/// with a "queue starvation" hazard for the first that cannot.
bool checkDispatch(const std::vector<Op> &ops, const chip::ChipSpec &chip,
                   const HazardText &text, std::string &error);

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_DISPATCH_H
