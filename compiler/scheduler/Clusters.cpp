//===- Clusters.cpp - Rigid clusters of ops joined by transfers ----------===//

#include "compiler/scheduler/Clusters.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>

using namespace hetc::sched;

namespace {
constexpr int64_t kUnset = std::numeric_limits<int64_t>::min();
} // namespace

/// Builds lists of `count` entries from (list, item) pairs, keeping the
/// order in which the pairs come.
static IdLists
buildLists(size_t count,
           const std::vector<std::pair<uint32_t, uint32_t>> &pairs) {
  IdLists lists;
  lists.start.assign(count + 1, 0);
  for (const auto &[list, item] : pairs)
    ++lists.start[list + 1];
  for (size_t i = 0; i < count; ++i)
    lists.start[i + 1] += lists.start[i];
  lists.items.resize(pairs.size());
  std::vector<uint32_t> next(lists.start.begin(), lists.start.end() - 1);
  for (const auto &[list, item] : pairs)
    lists.items[next[list]++] = item;
  return lists;
}

static Error inconsistent(const Problem &problem, OpId producer, OpId consumer,
                          int64_t required, int64_t found) {
  std::string message =
      "inconsistent transfer timing in the cluster of " +
      problem.describeOp(producer) + ": the transfer " +
      problem.describeOp(producer) + " -> " + problem.describeOp(consumer) +
      " makes " + problem.describeOp(consumer) + " issue " +
      std::to_string(required) + " cycle(s) after " +
      problem.describeOp(producer) + ", but other transfers of the cluster " +
      "make it " + std::to_string(found);
  return Error{
      ErrorKind::InconsistentCluster, std::move(message), {producer, consumer}};
}

namespace {
/// Walks the transfer graph from each op not yet reached, giving every op
/// its offset and cluster.
class ClusterBuilder {
public:
  explicit ClusterBuilder(const Problem &problem) : problem(problem) {}
  Expected<Clusters> build();

private:
  std::optional<Error> visit(OpId root, uint32_t cluster);
  /// Gives `op` its offset, or checks it against the one it has.
  std::optional<Error> place(OpId op, int64_t offset, OpId producer,
                             OpId consumer, int64_t delay);

  const Problem &problem;
  Clusters result;
  IdLists incident;
  std::vector<OpId> queue;
};
} // namespace

std::optional<Error> ClusterBuilder::place(OpId op, int64_t offset,
                                           OpId producer, OpId consumer,
                                           int64_t delay) {
  int64_t &current = result.offset[op];
  if (current == kUnset) {
    current = offset;
    result.clusterOf[op] =
        result.clusterOf[producer == op ? consumer : producer];
    queue.push_back(op);
    return std::nullopt;
  }
  if (current == offset)
    return std::nullopt;
  return inconsistent(problem, producer, consumer, delay,
                      result.offset[consumer] - result.offset[producer]);
}

std::optional<Error> ClusterBuilder::visit(OpId root, uint32_t cluster) {
  queue.clear();
  result.offset[root] = 0;
  result.clusterOf[root] = cluster;
  queue.push_back(root);
  for (size_t head = 0; head < queue.size(); ++head) {
    OpId op = queue[head];
    for (const uint32_t *it = incident.begin(op); it != incident.end(op);
         ++it) {
      const Transfer &transfer = problem.getTransfer(*it);
      OpId producer = transfer.producer;
      for (OpId consumer : transfer.consumers) {
        if (op != producer && op != consumer)
          continue;
        int64_t delay = problem.getTransferDelay(*it, consumer);
        std::optional<Error> error =
            op == producer ? place(consumer, result.offset[op] + delay,
                                   producer, consumer, delay)
                           : place(producer, result.offset[op] - delay,
                                   producer, consumer, delay);
        if (error)
          return error;
      }
    }
  }
  // Offsets start at 0 so that the base is the cluster's first cycle.
  int64_t lowest = 0;
  for (OpId op : queue)
    lowest = std::min(lowest, result.offset[op]);
  for (OpId op : queue)
    result.offset[op] -= lowest;
  return std::nullopt;
}

Expected<Clusters> ClusterBuilder::build() {
  size_t numOps = problem.getNumOperations();
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (TransferId id = 0; id < problem.getNumTransfers(); ++id) {
    pairs.emplace_back(problem.getTransfer(id).producer, id);
    for (OpId consumer : problem.getTransfer(id).consumers)
      pairs.emplace_back(consumer, id);
  }
  incident = buildLists(numOps, pairs);

  result.clusterOf.assign(numOps, 0);
  result.offset.assign(numOps, kUnset);
  uint32_t numClusters = 0;
  for (OpId op = 0; op < numOps; ++op)
    if (result.offset[op] == kUnset)
      if (std::optional<Error> error = visit(op, numClusters++))
        return *error;

  // Ops are visited in id order, so each list comes out in program order.
  pairs.clear();
  for (OpId op = 0; op < numOps; ++op)
    pairs.emplace_back(result.clusterOf[op], op);
  result.members = buildLists(numClusters, pairs);

  std::vector<TransferId> byLow(problem.getNumTransfers());
  for (TransferId id = 0; id < byLow.size(); ++id)
    byLow[id] = id;
  auto low = [&](TransferId id) {
    return std::min(
        problem.getOperation(problem.getTransfer(id).producer).position,
        problem.getFarthestPosition(id));
  };
  std::stable_sort(byLow.begin(), byLow.end(),
                   [&](TransferId a, TransferId b) { return low(a) < low(b); });
  pairs.clear();
  for (TransferId id : byLow)
    pairs.emplace_back(result.clusterOf[problem.getTransfer(id).producer], id);
  result.transfers = buildLists(numClusters, pairs);

  std::vector<std::pair<uint32_t, uint32_t>> outPairs;
  pairs.clear();
  for (DependenceId id = 0; id < problem.getNumDependences(); ++id) {
    const Dependence &dep = problem.getDependence(id);
    uint32_t from = result.clusterOf[dep.from], to = result.clusterOf[dep.to];
    if (from != to) {
      pairs.emplace_back(to, id);
      outPairs.emplace_back(from, id);
      continue;
    }
    int64_t gap = result.offset[dep.to] - result.offset[dep.from];
    if (gap < dep.delay)
      return Error{ErrorKind::Infeasible,
                   "dependence " + problem.describeOp(dep.from) + " -> " +
                       problem.describeOp(dep.to) + " needs a delay of " +
                       std::to_string(dep.delay) +
                       " cycle(s), but the transfers of their cluster fix " +
                       "it at " + std::to_string(gap),
                   {dep.from, dep.to}};
  }
  result.depsIn = buildLists(numClusters, pairs);
  result.depsOut = buildLists(numClusters, outPairs);
  return std::move(result);
}

Expected<Clusters> hetc::sched::buildClusters(const Problem &problem) {
  return ClusterBuilder(problem).build();
}

std::vector<uint32_t> hetc::sched::orderClusters(const Problem &problem,
                                                 const Clusters &clusters) {
  size_t count = clusters.size();
  std::vector<uint32_t> pending(count);
  for (uint32_t c = 0; c < count; ++c)
    pending[c] = clusters.depsIn.start[c + 1] - clusters.depsIn.start[c];

  std::vector<uint32_t> order;
  order.reserve(count);
  std::vector<char> placed(count, 0);
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
  for (uint32_t c = 0; c < count; ++c)
    if (pending[c] == 0)
      ready.push(c);
  uint32_t nextInProgramOrder = 0;
  while (order.size() < count) {
    uint32_t cluster;
    if (!ready.empty()) {
      cluster = ready.top();
      ready.pop();
      if (placed[cluster])
        continue;
    } else {
      // A dependence cycle: break it at the first cluster left.
      while (placed[nextInProgramOrder])
        ++nextInProgramOrder;
      cluster = nextInProgramOrder;
    }
    placed[cluster] = 1;
    order.push_back(cluster);
    for (const uint32_t *it = clusters.depsOut.begin(cluster);
         it != clusters.depsOut.end(cluster); ++it) {
      uint32_t next = clusters.clusterOf[problem.getDependence(*it).to];
      if (--pending[next] == 0 && !placed[next])
        ready.push(next);
    }
  }
  return order;
}
