//===- StreamTable.cpp - Stream groups taken per direction and phase -----===//

#include "compiler/scheduler/StreamTable.h"

#include <algorithm>

using namespace hetc::sched;

void StreamTable::markClashes(Direction direction, int64_t phase, int32_t low,
                              int32_t high, std::vector<char> &used) const {
  const Cell *cell = lookup(direction, phase);
  if (!cell)
    return;
  for (const StreamSegment &segment : *cell)
    if (segment.overlaps(low, high))
      used[segment.group] = 1;
}

int64_t StreamTable::firstFreePhase(Direction direction, int64_t phase,
                                    int32_t low, int32_t high) {
  ReservationTable &known =
      learned(noGroup[unsigned(direction)],
              uint64_t(uint32_t(low)) << 32 | uint32_t(high));
  std::vector<char> used(groups);
  for (;; ++phase) {
    phase = int64_t(known.firstFit(uint64_t(phase + phaseBias), 1)) - phaseBias;
    const Cell *cell = lookup(direction, phase);
    // A cell with fewer segments than groups always leaves one free.
    if (!cell || cell->size() < groups)
      return phase;
    std::fill(used.begin(), used.end(), 0);
    markClashes(direction, phase, low, high, used);
    if (std::find(used.begin(), used.end(), 0) != used.end())
      return phase;
    known.reserve(uint64_t(phase + phaseBias), 1);
  }
}

int64_t StreamTable::firstPhaseWithFree(Direction direction, int64_t phase,
                                        int32_t position, uint32_t need) {
  ReservationTable &known = learned(crowded[unsigned(direction)],
                                    uint64_t(uint32_t(position)) << 32 | need);
  for (;; ++phase) {
    phase = int64_t(known.firstFit(uint64_t(phase + phaseBias), 1)) - phaseBias;
    const Cell *cell = lookup(direction, phase);
    if (!cell || cell->size() + need <= groups)
      return phase;
    // Segments of one group never overlap within a phase, so each segment
    // over the position takes a different group there.
    uint32_t taken = 0;
    for (const StreamSegment &segment : *cell)
      taken += segment.overlaps(position, position);
    if (taken + need <= groups)
      return phase;
    known.reserve(uint64_t(phase + phaseBias), 1);
  }
}

ReservationTable &StreamTable::learned(Learned &map, uint64_t key) {
  std::unique_ptr<ReservationTable> &entry = map[key];
  if (!entry)
    entry = std::make_unique<ReservationTable>(1);
  return *entry;
}

void StreamTable::reserve(Direction direction, int64_t phase,
                          StreamSegment segment) {
  cells[unsigned(direction)].at(uint64_t(phase + phaseBias)).push_back(segment);
}
