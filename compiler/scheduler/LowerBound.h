//===- LowerBound.h - Lower bounds on schedule length -----------*- C++ -*-===//

#ifndef HETC_COMPILER_SCHEDULER_LOWERBOUND_H
#define HETC_COMPILER_SCHEDULER_LOWERBOUND_H

#include "compiler/scheduler/Clusters.h"
#include "compiler/scheduler/Scheduler.h"

namespace hetc::sched {

/// Computes the lower bound of a valid problem from its clusters and their
/// placement order: the largest of the busiest resource (with the longest
/// paths before its first and after its last possible use), the busiest
/// stream position and the longest path of dependences between clusters
/// plus the offset and latency of the last op. Clusters are relaxed once in `order`; on
/// a dependence cycle this only drops paths, so the figure stays a valid bound.
LowerBound computeLowerBound(const Problem &problem, const Clusters &clusters,
                             const std::vector<uint32_t> &order);

} // namespace hetc::sched

#endif // HETC_COMPILER_SCHEDULER_LOWERBOUND_H
