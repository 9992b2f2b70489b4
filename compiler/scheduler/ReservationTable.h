//===- ReservationTable.h - Per-cycle uses of one resource ------*- C++ -*-===//

#ifndef HETC_COMPILER_SCHEDULER_RESERVATIONTABLE_H
#define HETC_COMPILER_SCHEDULER_RESERVATIONTABLE_H

#include "compiler/scheduler/PagedArray.h"

#include <algorithm>
#include <cstdint>

namespace hetc::sched {

/// Counts the uses of one resource per cycle and finds the next cycle with
/// room. Uses are never released, so a full cycle stays full; full cycles
/// keep a compressed jump to the next candidate (a union-find "next free"
/// chain), which keeps searches near-linear over a whole schedule.
class ReservationTable {
public:
  explicit ReservationTable(uint32_t capacity) : capacity(capacity) {}

  /// Returns the first cycle >= `cycle` that has room for `demand` more uses.
  /// `demand` must not exceed the capacity.
  uint64_t firstFit(uint64_t cycle, uint32_t demand);
  /// Records `demand` more uses at `cycle`; they must fit.
  void reserve(uint64_t cycle, uint32_t demand);

private:
  /// One word per cycle: below the capacity it is the use count; at or above
  /// it the cycle is full and the word is capacity + jump - 1, where every
  /// cycle in [cycle, cycle + jump) is full. Full cycles never empty again,
  /// so a jump stays valid, and a shortened one is still valid.
  using Slot = uint32_t;

  /// Returns the first cycle >= `cycle` that is not full.
  uint64_t firstNotFull(uint64_t cycle);
  uint32_t countAt(uint64_t cycle) const {
    const Slot *slot = slots.lookup(cycle);
    return slot ? std::min(*slot, capacity) : 0;
  }
  uint64_t jumpAt(Slot slot) const { return uint64_t(slot - capacity) + 1; }

  uint32_t capacity;
  PagedArray<Slot> slots;
};

} // namespace hetc::sched

#endif // HETC_COMPILER_SCHEDULER_RESERVATIONTABLE_H
