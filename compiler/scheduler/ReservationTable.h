//===- ReservationTable.h - Per-cycle uses of one resource ------*- C++ -*-===//

#ifndef HETC_COMPILER_SCHEDULER_RESERVATIONTABLE_H
#define HETC_COMPILER_SCHEDULER_RESERVATIONTABLE_H

#include "compiler/scheduler/PagedArray.h"
#include "compiler/scheduler/SkipChain.h"

#include <cstdint>
#include <vector>

namespace hetc::sched {

/// Counts the uses of one resource per cycle and finds the next cycle with
/// room. Uses are never released, so a cycle without room for d more uses
/// never regains it; searches mark such cycles in a skip chain per d, so a
/// later search for the same d jumps over them.
class ReservationTable {
public:
  explicit ReservationTable(uint32_t capacity) : capacity(capacity) {}

  /// Returns the first cycle >= `cycle` with room for `demand` more uses;
  /// `demand` must be in [1, capacity].
  uint64_t firstFit(uint64_t cycle, uint32_t demand);
  /// Records `demand` more uses at `cycle`; they must fit.
  void reserve(uint64_t cycle, uint32_t demand) { counts.at(cycle) += demand; }
  /// Returns the uses recorded at `cycle`.
  uint32_t usesAt(uint64_t cycle) const {
    const uint32_t *count = counts.lookup(cycle);
    return count ? *count : 0;
  }

private:
  uint32_t capacity;
  PagedArray<uint32_t> counts;
  /// tooFull[d - 1]: cycles known to lack room for d more uses.
  std::vector<SkipChain> tooFull;
};

} // namespace hetc::sched

#endif // HETC_COMPILER_SCHEDULER_RESERVATIONTABLE_H
