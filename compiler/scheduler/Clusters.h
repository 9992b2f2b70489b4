//===- Clusters.h - Rigid clusters of ops joined by transfers ---*- C++ -*-===//

#ifndef HETC_COMPILER_SCHEDULER_CLUSTERS_H
#define HETC_COMPILER_SCHEDULER_CLUSTERS_H

#include "compiler/scheduler/Problem.h"

#include <cstdint>
#include <vector>

namespace hetc::sched {

/// A compressed list of lists: the items of list i are
/// items[start[i] .. start[i + 1]).
struct IdLists {
  std::vector<uint32_t> start;
  std::vector<uint32_t> items;

  const uint32_t *begin(uint32_t list) const {
    return items.data() + start[list];
  }
  const uint32_t *end(uint32_t list) const {
    return items.data() + start[list + 1];
  }
};

/// The ops of a problem grouped into rigid clusters: transfers fix the issue
/// cycle of every op of a cluster relative to the cluster's base cycle.
/// Clusters are numbered by their first op, so in program order.
struct Clusters {
  /// Cluster of each op.
  std::vector<uint32_t> clusterOf;
  /// Issue cycle of each op minus its cluster's base; the smallest offset
  /// in a cluster is 0.
  std::vector<int64_t> offset;
  /// Ops of each cluster, in program order.
  IdLists members;
  /// Transfers of each cluster, by lowest position then id.
  IdLists transfers;
  /// Dependences into each cluster from another cluster.
  IdLists depsIn;
  /// Dependences out of each cluster to another cluster.
  IdLists depsOut;

  size_t size() const { return members.start.size() - 1; }
};

/// Groups the ops of a valid problem into rigid clusters. Fails when two
/// transfer paths give an op different offsets, or when a dependence inside
/// a cluster contradicts the offsets.
Expected<Clusters> buildClusters(const Problem &problem);

/// Returns the order in which to place clusters: a topological order of the
/// dependences between clusters that prefers program order. Clusters on a
/// dependence cycle are taken in program order.
std::vector<uint32_t> orderClusters(const Problem &problem,
                                    const Clusters &clusters);

} // namespace hetc::sched

#endif // HETC_COMPILER_SCHEDULER_CLUSTERS_H
