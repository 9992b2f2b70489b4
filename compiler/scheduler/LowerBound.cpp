//===- LowerBound.cpp - Lower bounds on schedule length ------------------===//

#include "compiler/scheduler/LowerBound.h"

#include <algorithm>
#include <limits>
#include <map>

using namespace hetc::sched;

/// The busiest resource, with the work around it. A resource's U uses at
/// capacity C take ceil(U / C) distinct cycles; none can issue before the
/// earliest `head` among its users (the longest path of dependences from
/// the start), and after the last one issues the program runs for at least
/// the smallest `tail` among them (its own latency, or the longest path of
/// dependences from it to the end). So any schedule is at least
/// min(head) + ceil(U / C) - 1 + min(tail) cycles long.
static LowerBound resourceBound(const Problem &problem,
                                const std::vector<int64_t> &head,
                                const std::vector<int64_t> &tail) {
  size_t count = problem.getNumResources();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  std::vector<uint64_t> uses(count, 0);
  std::vector<int64_t> minHead(count, kMax), minTail(count, kMax);
  for (OpId op = 0; op < problem.getNumOperations(); ++op) {
    const Operation &operation = problem.getOperation(op);
    // A train's last issue is followed by its tail less the issues before.
    auto add = [&](ResourceId resource, uint32_t count, int64_t lastTail) {
      uses[resource] += count;
      minHead[resource] = std::min(minHead[resource], head[op]);
      minTail[resource] = std::min(minTail[resource], lastTail);
    };
    operation.forEachUse([&](ResourceId resource, uint32_t issues) {
      add(resource, issues,
          issues > 1 ? tail[op] - operation.lastIssue() : tail[op]);
    });
  }
  LowerBound best;
  for (ResourceId id = 0; id < count; ++id) {
    if (uses[id] == 0)
      continue;
    uint32_t capacity = problem.getResource(id).capacity;
    int64_t busy = int64_t((uses[id] + capacity - 1) / capacity);
    int64_t cycles = minHead[id] + busy - 1 + minTail[id];
    if (best.kind != BoundKind::Empty && cycles <= best.cycles)
      continue;
    best.cycles = cycles;
    best.kind = BoundKind::Resource;
    best.subject = id;
    best.reason = "resource '" + problem.getResource(id).name +
                  "': " + std::to_string(uses[id]) + " uses at capacity " +
                  std::to_string(capacity) + ", after " +
                  std::to_string(minHead[id]) + " cycles of lead-in and " +
                  "before " + std::to_string(minTail[id]) + " of tail";
  }
  return best;
}

/// The longest path from each op's issue to the end of the program: its
/// latency, or a dependence to a later op plus that op's tail. Ops of a
/// cluster move together, so an op's tail is its cluster's tail measured
/// from the op's offset. Clusters are taken in reverse placement order;
/// dependences to clusters not yet taken (only on a cycle) are dropped,
/// which keeps the figure a valid bound.
static std::vector<int64_t> computeTails(const Problem &problem,
                                         const Clusters &clusters,
                                         const std::vector<uint32_t> &order) {
  std::vector<int64_t> tail(problem.getNumOperations(), 0);
  std::vector<char> done(clusters.size(), 0);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    uint32_t cluster = *it;
    // The cluster's tail measured from its base.
    int64_t fromBase = 0;
    for (const uint32_t *m = clusters.members.begin(cluster);
         m != clusters.members.end(cluster); ++m)
      fromBase = std::max(fromBase, clusters.offset[*m] +
                                        problem.getOperation(*m).span());
    for (const uint32_t *d = clusters.depsOut.begin(cluster);
         d != clusters.depsOut.end(cluster); ++d) {
      const Dependence &dep = problem.getDependence(*d);
      if (!done[clusters.clusterOf[dep.to]])
        continue;
      fromBase = std::max(fromBase, clusters.offset[dep.from] + dep.delay +
                                        tail[dep.to]);
    }
    for (const uint32_t *m = clusters.members.begin(cluster);
         m != clusters.members.end(cluster); ++m)
      tail[*m] = fromBase - clusters.offset[*m];
    done[cluster] = 1;
  }
  return tail;
}

/// Returns the larger bound, keeping `best` on a tie.
static LowerBound larger(LowerBound best, LowerBound other) {
  if (other.kind == BoundKind::Empty ||
      (best.kind != BoundKind::Empty && other.cycles <= best.cycles))
    return best;
  return other;
}

namespace {
/// Transfers passing each position, counted by a sweep over segment ends:
/// the change of the count at each position where a segment starts or
/// ends (a floorplan has few positions, a program millions of transfers).
class StreamLoad {
public:
  void add(int64_t low, int64_t high, int64_t count) {
    change[low] += count;
    change[high + 1] -= count;
  }
  /// Returns the largest count and the first position where it is reached.
  std::pair<int64_t, int64_t> busiest() const {
    int64_t count = 0, best = 0, where = 0;
    for (const auto &[position, delta] : change) {
      count += delta;
      if (count > best) {
        best = count;
        where = position;
      }
    }
    return {best, where};
  }

private:
  std::map<int64_t, int64_t> change;
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
    int64_t values = problem.getOperation(transfer.producer).repeat;
    if (choice == DirectionChoice::East)
      east.add(low, high, values);
    if (choice == DirectionChoice::West)
      west.add(low, high, values);
    both.add(low, high, values);
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
  std::vector<int64_t> head(problem.getNumOperations(), 0);
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
         it != clusters.members.end(cluster); ++it)
      head[*it] = base + clusters.offset[*it];
    for (const uint32_t *it = clusters.members.begin(cluster);
         it != clusters.members.end(cluster); ++it) {
      int64_t end =
          base + clusters.offset[*it] + problem.getOperation(*it).span();
      if (path.kind != BoundKind::Empty && end <= path.cycles)
        continue;
      path.cycles = end;
      path.kind = BoundKind::CriticalPath;
      path.subject = *it;
    }
  }
  if (path.kind == BoundKind::CriticalPath)
    path.reason = "critical path to " + problem.describeOp(path.subject);

  std::vector<int64_t> tail = computeTails(problem, clusters, order);
  return larger(larger(path, resourceBound(problem, head, tail)),
                streamBound(problem));
}
