//===- ReservationTable.cpp - Per-cycle uses of one resource -------------===//

#include "compiler/scheduler/ReservationTable.h"

#include <algorithm>

using namespace hetc::sched;

uint64_t ReservationTable::firstNotFull(uint64_t cycle) {
  uint64_t found = cycle;
  while (const Slot *slot = slots.lookup(found)) {
    if (*slot < capacity)
      break;
    found += jumpAt(*slot);
  }
  // Point every full slot on the way straight at the answer, as far as the
  // encoding allows.
  uint64_t longest = uint64_t(UINT32_MAX - capacity) + 1;
  for (uint64_t at = cycle; at < found;) {
    Slot &slot = slots.at(at);
    uint64_t next = at + jumpAt(slot);
    slot = Slot(capacity + std::min(found - at, longest) - 1);
    at = next;
  }
  return found;
}

uint64_t ReservationTable::firstFit(uint64_t cycle, uint32_t demand) {
  uint64_t found = firstNotFull(cycle);
  while (countAt(found) + uint64_t(demand) > capacity)
    found = firstNotFull(found + 1);
  return found;
}

void ReservationTable::reserve(uint64_t cycle, uint32_t demand) {
  // A slot that fills up starts as a one-cycle jump: capacity + 1 - 1.
  slots.at(cycle) += demand;
}
