//===- StreamTable.h - Stream groups taken per phase -----------*- C++ -*-===//

#ifndef HETC_COMPILER_SCHEDULER_STREAMTABLE_H
#define HETC_COMPILER_SCHEDULER_STREAMTABLE_H

#include "compiler/scheduler/PagedArray.h"
#include "compiler/scheduler/Problem.h"
#include "compiler/scheduler/ReservationTable.h"

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace hetc::sched {

/// The part of a stream a transfer occupies: its group and the inclusive
/// position segment from the producer to the farthest consumer.
struct StreamSegment {
  uint32_t group = 0;
  int32_t low = 0;
  int32_t high = 0;

  /// True when the segments share a position; touching counts, because a
  /// value emitted where another one is read replaces it.
  bool overlaps(int32_t otherLow, int32_t otherHigh) const {
    return low <= otherHigh && otherLow <= high;
  }
};

/// The stream segments taken so far, per direction and phase. A value in
/// flight is at position x at cycle phase + x * hop (east) or phase - x * hop
/// (west), so two values meet exactly when direction and phase match and
/// their segments overlap; the phase is the only time coordinate needed.
///
/// Searching phase by phase would make the scheduler quadratic where many
/// transfers meet at one unit (every input and output of the vector unit
/// touches its position): each cluster would walk the same crowded phases.
/// Segments only ever get added, so a phase where a segment found no free
/// group stays that way; the table learns those phases per (direction,
/// segment) in a reservation table that jumps over them next time.
class StreamTable {
public:
  /// `phaseBias` must make every phase the scheduler forms non-negative.
  StreamTable(uint32_t groups, int64_t phaseBias)
      : groups(groups), phaseBias(phaseBias) {}

  /// Sets used[g] for every group g that a segment [low, high] at this
  /// direction and phase would clash with. `used` has one entry per group.
  void markClashes(Direction direction, int64_t phase, int32_t low,
                   int32_t high, std::vector<char> &used) const;
  /// Returns the first phase >= `phase` with a free group for [low, high].
  int64_t firstFreePhase(Direction direction, int64_t phase, int32_t low,
                         int32_t high);
  /// Returns the first phase >= `phase` with at least `need` groups free at
  /// `position`.
  int64_t firstPhaseWithFree(Direction direction, int64_t phase,
                             int32_t position, uint32_t need);
  /// Records that `segment` is taken at this direction and phase.
  void reserve(Direction direction, int64_t phase, StreamSegment segment);

private:
  using Cell = std::vector<StreamSegment>;
  const Cell *lookup(Direction direction, int64_t phase) const {
    return cells[unsigned(direction)].lookup(uint64_t(phase + phaseBias));
  }

  uint32_t groups;
  int64_t phaseBias;
  PagedArray<Cell> cells[2];
  using Learned =
      std::unordered_map<uint64_t, std::unique_ptr<ReservationTable>>;
  /// Returns the phases learned for `key`, creating the entry.
  static ReservationTable &learned(Learned &map, uint64_t key);

  /// Per direction and segment (low << 32 | high), the phases known to
  /// have no free group for it. Looked up once per search, not per phase.
  Learned noGroup[2];
  /// Per direction, position and need (position << 32 | need), the phases
  /// known to have fewer than `need` groups free at the position.
  Learned crowded[2];
};

} // namespace hetc::sched

#endif // HETC_COMPILER_SCHEDULER_STREAMTABLE_H
