//===- LowerBound.cpp - Lower bounds on schedule length ------------------===//

#include "compiler/scheduler/LowerBound.h"

#include <algorithm>
#include <limits>

using namespace hetc::sched;

/// The busiest resource: U uses at capacity C take ceil(U / C) distinct
/// cycles from 0, so the last one issues at ceil(U / C) - 1 or later and
/// completes after the smallest latency among its users.
static LowerBound resourceBound(const Problem &problem) {
  size_t count = problem.getNumResources();
  std::vector<uint64_t> uses(count, 0);
  std::vector<int64_t> minLatency(count, std::numeric_limits<int64_t>::max());
  for (const Operation &op : problem.getOperations())
    for (ResourceId resource : op.uses) {
      ++uses[resource];
      minLatency[resource] = std::min(minLatency[resource], op.latency);
    }
  LowerBound best;
  for (ResourceId id = 0; id < count; ++id) {
    if (uses[id] == 0)
      continue;
    uint32_t capacity = problem.getResource(id).capacity;
    int64_t cycles =
        int64_t((uses[id] + capacity - 1) / capacity) - 1 + minLatency[id];
    if (best.kind != BoundKind::Empty && cycles <= best.cycles)
      continue;
    best.cycles = cycles;
    best.kind = BoundKind::Resource;
    best.subject = id;
    best.reason = "resource '" + problem.getResource(id).name +
                  "': " + std::to_string(uses[id]) + " uses at capacity " +
                  std::to_string(capacity);
    if (minLatency[id] != 1)
      best.reason += ", latency " + std::to_string(minLatency[id]);
  }
  return best;
}

/// Returns the larger bound, keeping `best` on a tie.
static LowerBound larger(LowerBound best, LowerBound other) {
  if (other.kind == BoundKind::Empty ||
      (best.kind != BoundKind::Empty && other.cycles <= best.cycles))
    return best;
  return other;
}

namespace {
/// Transfers passing each position, counted by a sweep over segment ends.
class StreamLoad {
public:
  void add(int64_t low, int64_t high) {
    edges.emplace_back(low, 1);
    edges.emplace_back(high + 1, -1);
  }
  /// Returns the largest count and a position where it is reached.
  std::pair<int64_t, int64_t> busiest() {
    std::sort(edges.begin(), edges.end());
    int64_t count = 0, best = 0, where = 0;
    for (const auto &[position, delta] : edges) {
      count += delta;
      if (count > best) {
        best = count;
        where = position;
      }
    }
    return {best, where};
  }

private:
  std::vector<std::pair<int64_t, int>> edges;
};
} // namespace

/// At most `groups` transfers of a direction can pass one position in one
/// cycle (they would share a phase and overlap there), and a transfer passes
/// a position at a cycle >= 0 whose consumers then still issue and complete.
/// Transfers between ops at one position may take either direction, so they
/// only count against both directions together.
static LowerBound streamBound(const Problem &problem) {
  StreamLoad east, west, both;
  int64_t minLatency = std::numeric_limits<int64_t>::max();
  for (TransferId id = 0; id < problem.getNumTransfers(); ++id) {
    const Transfer &transfer = problem.getTransfer(id);
    int64_t from = problem.getOperation(transfer.producer).position;
    int64_t far = problem.getFarthestPosition(id);
    int64_t low = std::min(from, far), high = std::max(from, far);
    for (OpId consumer : transfer.consumers)
      minLatency = std::min(minLatency, problem.getOperation(consumer).latency);
    DirectionChoice choice = problem.getDirectionChoice(id);
    if (choice == DirectionChoice::East)
      east.add(low, high);
    if (choice == DirectionChoice::West)
      west.add(low, high);
    both.add(low, high);
  }
  int64_t groups = problem.getStreams().groups;
  LowerBound best;
  auto consider = [&](StreamLoad &load, int64_t carriers, const char *what) {
    auto [count, position] = load.busiest();
    if (count == 0)
      return;
    LowerBound bound;
    bound.cycles = (count + carriers - 1) / carriers - 1 + minLatency;
    bound.kind = BoundKind::Streams;
    bound.subject = uint32_t(position);
    bound.reason = std::string(what) + " at position " +
                   std::to_string(position) + ": " + std::to_string(count) +
                   " transfers over " + std::to_string(carriers) + " groups";
    best = larger(best, bound);
  };
  consider(east, groups, "east streams");
  consider(west, groups, "west streams");
  consider(both, 2 * groups, "streams");
  return best;
}

LowerBound hetc::sched::computeLowerBound(const Problem &problem,
                                          const Clusters &clusters,
                                          const std::vector<uint32_t> &order) {
  LowerBound path;
  std::vector<int64_t> earliest(clusters.size(), 0);
  std::vector<char> done(clusters.size(), 0);
  for (uint32_t cluster : order) {
    int64_t base = 0;
    for (const uint32_t *it = clusters.depsIn.begin(cluster);
         it != clusters.depsIn.end(cluster); ++it) {
      const Dependence &dep = problem.getDependence(*it);
      uint32_t from = clusters.clusterOf[dep.from];
      if (done[from])
        base = std::max(base, earliest[from] + clusters.offset[dep.from] +
                                  dep.delay - clusters.offset[dep.to]);
    }
    earliest[cluster] = base;
    done[cluster] = 1;
    for (const uint32_t *it = clusters.members.begin(cluster);
         it != clusters.members.end(cluster); ++it) {
      int64_t end =
          base + clusters.offset[*it] + problem.getOperation(*it).latency;
      if (path.kind != BoundKind::Empty && end <= path.cycles)
        continue;
      path.cycles = end;
      path.kind = BoundKind::CriticalPath;
      path.subject = *it;
    }
  }
  if (path.kind == BoundKind::CriticalPath)
    path.reason = "critical path to " + problem.describeOp(path.subject);

  return larger(larger(path, resourceBound(problem)), streamBound(problem));
}
