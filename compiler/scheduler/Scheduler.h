//===- Scheduler.h - The rigid-cluster list scheduler -----------*- C++ -*-===//

#ifndef HETC_COMPILER_SCHEDULER_SCHEDULER_H
#define HETC_COMPILER_SCHEDULER_SCHEDULER_H

#include "compiler/scheduler/Error.h"
#include "compiler/scheduler/Problem.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hetc::sched {

/// The stream a transfer was given.
struct StreamAssignment {
  Direction direction = Direction::East;
  /// Group index in [0, groups).
  uint32_t group = 0;
  /// The first stream of the group, group * groupWidth, as the artifact
  /// names it.
  uint32_t streamId = 0;
};

/// What limits a schedule from below.
enum class BoundKind {
  /// No operations: the bound is 0.
  Empty,
  /// The busiest resource: uses / capacity, rounded up, after the shortest
  /// lead-in to its first use and before the shortest tail after its last.
  Resource,
  /// The longest chain of transfers and dependences, plus latency.
  CriticalPath,
  /// The busiest floorplan position of a stream direction: the transfers
  /// that pass it, over the groups that can carry them in one cycle.
  Streams,
};

/// A lower bound on the length of any schedule of a problem.
struct LowerBound {
  int64_t cycles = 0;
  BoundKind kind = BoundKind::Empty;
  /// The resource (Resource), the last op of the path (CriticalPath) or the
  /// floorplan position (Streams).
  uint32_t subject = 0;
  /// A user-readable explanation, e.g. "critical path to 'w0'".
  std::string reason = "empty problem";
};

/// How busy one resource is over a schedule.
struct ResourceUsage {
  ResourceId resource = 0;
  /// Uses over the whole schedule.
  uint64_t uses = 0;
  /// uses / (capacity * length); 0 for an empty schedule.
  double utilisation = 0;
};

/// A schedule: an issue cycle per op and a stream per transfer.
struct Schedule {
  /// Issue cycle of each op, by OpId.
  std::vector<int64_t> cycles;
  /// Stream of each transfer, by TransferId.
  std::vector<StreamAssignment> streams;
  /// max(cycle + latency) over all ops; 0 without ops.
  int64_t length = 0;
  /// A lower bound on the length of any schedule.
  LowerBound bound;
  /// bound / length; 1 for an empty schedule.
  double efficiency = 1;
  /// One entry per resource, by ResourceId.
  std::vector<ResourceUsage> utilisation;
};

/// Knobs of the list scheduler.
struct SchedulerOptions {
  /// When positive, a cluster's search starts no earlier than this many
  /// cycles before the latest base placed so far, even where its
  /// dependences allow earlier; 0 searches from the earliest cycle they
  /// allow (exact first fit). Exact first fit makes every cluster without
  /// dependences walk the crowded past of the schedule, a walk that grows
  /// with the schedule; the window bounds it. On the synthetic benchmarks
  /// 1024 gives the same lengths as exact first fit.
  int64_t backfillWindow = 1024;
};

/// Schedules `problem`: places its rigid clusters one by one, in a
/// topological order of their dependences that prefers program order, each
/// at the first base cycle at or after what its placed predecessors allow
/// (and the backfill window) where every resource use fits and every
/// transfer gets a stream group.
/// Deterministic: the same problem always gives the same schedule.
Expected<Schedule> schedule(const Problem &problem,
                            const SchedulerOptions &options = {});

/// Computes a lower bound on the length of any schedule of a valid problem.
Expected<LowerBound> computeLowerBound(const Problem &problem);

/// Returns the uses of every resource and its utilisation over a schedule
/// `length` cycles long.
std::vector<ResourceUsage> computeUtilisation(const Problem &problem,
                                              int64_t length);

} // namespace hetc::sched

#endif // HETC_COMPILER_SCHEDULER_SCHEDULER_H
