//===- ReservationTable.cpp - Per-cycle uses of one resource -------------===//

#include "compiler/scheduler/ReservationTable.h"

using namespace hetc::sched;

uint64_t ReservationTable::firstFit(uint64_t cycle, uint32_t demand) {
  if (tooFull.size() < demand)
    tooFull.resize(demand);
  SkipChain &known = tooFull[demand - 1];
  for (;; ++cycle) {
    cycle = known.next(cycle);
    if (uint64_t(usesAt(cycle)) + demand <= capacity)
      return cycle;
    known.mark(cycle);
  }
}
