//===- SkipChain.h - Jump over marked indices ------------------*- C++ -*-===//

#ifndef HETC_COMPILER_SCHEDULER_SKIPCHAIN_H
#define HETC_COMPILER_SCHEDULER_SKIPCHAIN_H

#include "compiler/scheduler/PagedArray.h"

#include <cstdint>

namespace hetc::sched {

/// A set of marked indices (cycles, phases) that only grows, answering "the
/// first unmarked index at or after i". Marked indices keep a jump towards
/// the next candidate, compressed on every search (union-find style), so a
/// whole schedule's searches cost near-linear time in what they skip.
class SkipChain {
public:
  /// Returns the first unmarked index >= `index`.
  uint64_t next(uint64_t index);
  /// Marks `index`, which must be unmarked.
  void mark(uint64_t index) { jumps.at(index) = 1; }

private:
  /// 0 for an unmarked index; otherwise every index in [i, i + jump) is
  /// marked, which stays true because marks are never removed.
  PagedArray<uint32_t> jumps;
};

} // namespace hetc::sched

#endif // HETC_COMPILER_SCHEDULER_SKIPCHAIN_H
