//===- Scheduler.cpp - The rigid-cluster list scheduler ------------------===//

#include "compiler/scheduler/Scheduler.h"
#include "compiler/scheduler/Clusters.h"
#include "compiler/scheduler/LowerBound.h"
#include "compiler/scheduler/ReservationTable.h"
#include "compiler/scheduler/StreamTable.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

using namespace hetc::sched;

namespace {

/// Schedules stop here; it keeps the per-cycle tables small and every sum
/// of cycles, latencies and hops far from overflow.
constexpr int64_t kMaxCycle = int64_t(1) << 32;
constexpr uint32_t kNoTable = std::numeric_limits<uint32_t>::max();

/// Uses of one resource by a cluster at one offset from its base.
struct Demand {
  ResourceId resource;
  int64_t offset;
  uint32_t count;
};

/// A stream group picked for a transfer while trying one base cycle.
struct PendingStream {
  TransferId transfer;
  Direction direction;
  int64_t phase;
  StreamSegment segment;
};

/// Places clusters one at a time into the resource and stream tables.
class ListScheduler {
public:
  ListScheduler(const Problem &problem, const Clusters &clusters,
                const SchedulerOptions &options, int64_t phaseBias);
  /// Adds a table per (direction, position) where a transfer with a fixed
  /// direction starts or ends.
  void addEndpointTables();
  /// Places every cluster, in `order`.
  std::optional<Error> run(const std::vector<uint32_t> &order);
  std::vector<int64_t> takeCycles() { return std::move(cycles); }
  std::vector<StreamAssignment> takeStreams() { return std::move(assigned); }

private:
  std::optional<Error> place(uint32_t cluster);
  /// Fills `demands` with the cluster's merged resource uses.
  std::optional<Error> collectDemands(uint32_t cluster);
  /// Returns the first base >= `base` where every demand fits, or a base
  /// past `limit` when there is none up to it.
  int64_t fitResources(int64_t base, int64_t limit);
  /// Gives every transfer of the cluster a group for `base`, filling
  /// `pending`. Without a table only the cluster's own transfers compete.
  /// On failure sets `retry` to the next base worth trying.
  bool assignStreams(uint32_t cluster, int64_t base, StreamTable *table,
                     int64_t &retry);
  /// Returns the lowest group free for [low, high] at this direction and
  /// phase, and at the `repeat - 1` phases `every` apart after it (a
  /// train's values), beside the table (if any) and `pending`; `groups` if
  /// none is.
  uint32_t pickGroup(const StreamTable *table, Direction direction,
                     int64_t phase, int32_t low, int32_t high,
                     uint32_t repeat = 1, int64_t every = 1);
  /// Returns the first phase >= `phase` worth trying for a transfer that
  /// found no group at `phase`.
  int64_t nextPhase(StreamTable &table, Direction direction, int64_t phase,
                    int32_t low, int32_t high);
  /// Explains why a cluster's own transfers cannot share the groups.
  Error noStreamGroup() const;

  const Problem &problem;
  const Clusters &clusters;
  const SchedulerOptions &options;
  /// The latest base placed so far.
  int64_t frontier = 0;
  /// The problem's resources, then one table per stream endpoint: at most
  /// `groups` transfers of a direction can touch a position at one phase.
  /// Fitting these like resources lets the base jump over crowded phases
  /// (every transfer into or out of the vector unit ends at its position)
  /// instead of stepping through them; the stream table then picks groups.
  std::vector<ReservationTable> resources;
  /// Per transfer, the endpoint tables of its low and high end; kNoTable for
  /// a transfer that may flow either way.
  std::vector<uint32_t> endpointLow, endpointHigh;
  int64_t phaseBias;
  StreamTable streams;
  std::vector<int64_t> cycles;
  std::vector<char> placed;
  std::vector<StreamAssignment> assigned;
  // Scratch space reused for every cluster.
  std::vector<Demand> demands;
  std::vector<PendingStream> pending;
  std::vector<char> used;
  /// The transfer that found no group in the last failed assignStreams, and
  /// the phase it had in each direction it tried.
  struct {
    TransferId transfer = 0;
    int32_t low = 0, high = 0;
    bool tried[2] = {false, false};
    int64_t phase[2] = {0, 0};
  } failure;
};

} // namespace

ListScheduler::ListScheduler(const Problem &problem, const Clusters &clusters,
                             const SchedulerOptions &options, int64_t phaseBias)
    : problem(problem), clusters(clusters), options(options),
      phaseBias(phaseBias), streams(problem.getStreams().groups, phaseBias),
      cycles(problem.getNumOperations(), 0), placed(clusters.size(), 0),
      assigned(problem.getNumTransfers()),
      used(problem.getStreams().groups, 0) {
  resources.reserve(problem.getNumResources());
  for (const Resource &resource : problem.getResources())
    resources.emplace_back(resource.capacity);
  addEndpointTables();
}

void ListScheduler::addEndpointTables() {
  std::unordered_map<uint64_t, uint32_t> tables;
  auto tableFor = [&](Direction direction, int64_t position) {
    uint64_t key = uint64_t(position) << 1 | unsigned(direction);
    auto [it, added] = tables.emplace(key, uint32_t(resources.size()));
    if (added)
      resources.emplace_back(problem.getStreams().groups);
    return it->second;
  };
  endpointLow.assign(problem.getNumTransfers(), kNoTable);
  endpointHigh.assign(problem.getNumTransfers(), kNoTable);
  for (TransferId id = 0; id < problem.getNumTransfers(); ++id) {
    DirectionChoice choice = problem.getDirectionChoice(id);
    if (choice == DirectionChoice::Either)
      continue;
    auto direction =
        choice == DirectionChoice::East ? Direction::East : Direction::West;
    int64_t from =
        problem.getOperation(problem.getTransfer(id).producer).position;
    int64_t far = problem.getFarthestPosition(id);
    endpointLow[id] = tableFor(direction, std::min(from, far));
    endpointHigh[id] = tableFor(direction, std::max(from, far));
  }
}

std::optional<Error> ListScheduler::collectDemands(uint32_t cluster) {
  demands.clear();
  for (const uint32_t *it = clusters.members.begin(cluster);
       it != clusters.members.end(cluster); ++it) {
    const Operation &op = problem.getOperation(*it);
    op.forEachUse([&](ResourceId resource, uint32_t issues) {
      for (uint32_t r = 0; r < issues; ++r)
        demands.push_back(
            Demand{resource, clusters.offset[*it] + int64_t(r) * op.every, 1});
    });
  }
  int64_t hop = problem.getStreams().hopCycles;
  for (const uint32_t *it = clusters.transfers.begin(cluster);
       it != clusters.transfers.end(cluster); ++it) {
    if (endpointLow[*it] == kNoTable)
      continue;
    OpId producer = problem.getTransfer(*it).producer;
    const Operation &op = problem.getOperation(producer);
    int64_t skew = op.position * hop;
    bool east = problem.getDirectionChoice(*it) == DirectionChoice::East;
    // The phase of the transfer minus the base, made non-negative; a
    // train's values pass `every` phases apart.
    int64_t offset = clusters.offset[producer] + op.latency +
                     (east ? -skew : skew) + phaseBias;
    for (uint32_t r = 0; r < op.repeat; ++r) {
      int64_t at = offset + int64_t(r) * op.every;
      demands.push_back(Demand{endpointLow[*it], at, 1});
      if (endpointHigh[*it] != endpointLow[*it])
        demands.push_back(Demand{endpointHigh[*it], at, 1});
    }
  }
  if (demands.size() < 2)
    return std::nullopt;
  std::sort(demands.begin(), demands.end(),
            [](const Demand &a, const Demand &b) {
              return a.resource != b.resource ? a.resource < b.resource
                                              : a.offset < b.offset;
            });
  size_t kept = 0;
  for (const Demand &demand : demands) {
    if (kept && demands[kept - 1].resource == demand.resource &&
        demands[kept - 1].offset == demand.offset)
      ++demands[kept - 1].count;
    else
      demands[kept++] = demand;
  }
  demands.resize(kept);

  for (const Demand &demand : demands) {
    // Endpoint tables cannot overflow here: the stream check before this
    // one gave every transfer of the cluster its own group.
    if (demand.resource >= problem.getNumResources())
      continue;
    const Resource &resource = problem.getResource(demand.resource);
    if (demand.count <= resource.capacity)
      continue;
    Error error{ErrorKind::Unschedulable, "", {}};
    std::string names;
    for (const uint32_t *op = clusters.members.begin(cluster);
         op != clusters.members.end(cluster); ++op) {
      const std::vector<ResourceId> &uses = problem.getOperation(*op).uses;
      if (clusters.offset[*op] != demand.offset ||
          std::find(uses.begin(), uses.end(), demand.resource) == uses.end())
        continue;
      names += (names.empty() ? "" : ", ") + problem.describeOp(*op);
      error.ops.push_back(*op);
    }
    error.message = "ops " + names +
                    " must issue in the same cycle (their "
                    "transfers fix it) and need " +
                    std::to_string(demand.count) + " uses of resource '" +
                    resource.name + "', which has capacity " +
                    std::to_string(resource.capacity);
    return error;
  }
  return std::nullopt;
}

int64_t ListScheduler::fitResources(int64_t base, int64_t limit) {
  bool moved = true;
  while (moved && base <= limit) {
    moved = false;
    for (const Demand &demand : demands) {
      uint64_t cycle = uint64_t(base + demand.offset);
      uint64_t fit = resources[demand.resource].firstFit(cycle, demand.count);
      if (fit == cycle)
        continue;
      // No base between the old one and this one can hold this demand.
      base = int64_t(fit) - demand.offset;
      moved = true;
      break;
    }
  }
  return base;
}

uint32_t ListScheduler::pickGroup(const StreamTable *table, Direction direction,
                                  int64_t phase, int32_t low, int32_t high,
                                  uint32_t repeat, int64_t every) {
  std::fill(used.begin(), used.end(), 0);
  for (uint32_t r = 0; r < repeat; ++r) {
    int64_t at = phase + int64_t(r) * every;
    if (table)
      table->markClashes(direction, at, low, high, used);
    for (const PendingStream &other : pending)
      if (other.direction == direction && other.phase == at &&
          other.segment.overlaps(low, high))
        used[other.segment.group] = 1;
  }
  return uint32_t(std::find(used.begin(), used.end(), 0) - used.begin());
}

int64_t ListScheduler::nextPhase(StreamTable &table, Direction direction,
                                 int64_t phase, int32_t low, int32_t high) {
  int64_t alone = table.firstFreePhase(direction, phase, low, high);
  if (alone != phase)
    return alone;
  // The transfer fits alone but not beside the cluster's transfers already
  // given a group here. Where k of them overlap one position they need k
  // groups free there; skip the phases that cannot offer that.
  std::vector<std::pair<int64_t, int>> edges{{low, 1}, {int64_t(high) + 1, -1}};
  for (const PendingStream &other : pending) {
    if (other.direction != direction || other.phase != phase ||
        !other.segment.overlaps(low, high))
      continue;
    edges.emplace_back(std::max(other.segment.low, low), 1);
    edges.emplace_back(int64_t(std::min(other.segment.high, high)) + 1, -1);
  }
  std::sort(edges.begin(), edges.end());
  int64_t count = 0, most = 0, position = low;
  for (const auto &[at, delta] : edges) {
    count += delta;
    if (count > most) {
      most = count;
      position = at;
    }
  }
  return table.firstPhaseWithFree(direction, phase, int32_t(position),
                                  uint32_t(most));
}

bool ListScheduler::assignStreams(uint32_t cluster, int64_t base,
                                  StreamTable *table, int64_t &retry) {
  const StreamConfig &config = problem.getStreams();
  pending.clear();
  for (const uint32_t *it = clusters.transfers.begin(cluster);
       it != clusters.transfers.end(cluster); ++it) {
    OpId producer = problem.getTransfer(*it).producer;
    const Operation &op = problem.getOperation(producer);
    int64_t emit = base + clusters.offset[producer] + op.latency;
    int64_t far = problem.getFarthestPosition(*it);
    auto low = int32_t(std::min(op.position, far));
    auto high = int32_t(std::max(op.position, far));
    DirectionChoice choice = problem.getDirectionChoice(*it);
    failure = {};
    int64_t next = std::numeric_limits<int64_t>::max();
    for (Direction direction : {Direction::East, Direction::West}) {
      if ((direction == Direction::East && choice == DirectionChoice::West) ||
          (direction == Direction::West && choice == DirectionChoice::East))
        continue;
      int64_t skew = op.position * config.hopCycles;
      int64_t phase = direction == Direction::East ? emit - skew : emit + skew;
      uint32_t group =
          pickGroup(table, direction, phase, low, high, op.repeat, op.every);
      if (group < config.groups) {
        for (uint32_t r = 0; r < op.repeat; ++r)
          pending.push_back(PendingStream{*it, direction,
                                          phase + int64_t(r) * op.every,
                                          {group, low, high}});
        break;
      }
      failure.tried[unsigned(direction)] = true;
      failure.phase[unsigned(direction)] = phase;
      // Phases move with the base, so the base can skip what the phase must.
      // A train may clash at any of its phases: it tries the next base.
      if (table)
        next = op.repeat > 1
                   ? base + 1
                   : std::min(next, base - phase + nextPhase(*table, direction,
                                                             phase, low, high));
    }
    if (!pending.empty() && pending.back().transfer == *it)
      continue;
    failure.transfer = *it;
    failure.low = low;
    failure.high = high;
    retry = table ? std::max(base + 1, next) : base + 1;
    return false;
  }
  return true;
}

Error ListScheduler::noStreamGroup() const {
  OpId failed = problem.getTransfer(failure.transfer).producer;
  Error error{ErrorKind::Unschedulable, "", {failed}};
  std::string names;
  for (const PendingStream &other : pending) {
    unsigned direction = unsigned(other.direction);
    if (!failure.tried[direction] || failure.phase[direction] != other.phase ||
        !other.segment.overlaps(failure.low, failure.high))
      continue;
    OpId producer = problem.getTransfer(other.transfer).producer;
    names += (names.empty() ? "" : ", ") + problem.describeOp(producer);
    error.ops.push_back(producer);
  }
  error.message = "stream groups exhausted: the transfer from " +
                  problem.describeOp(failed) +
                  " is in flight together with the transfers from " + names +
                  " over shared positions, and a direction has only " +
                  std::to_string(problem.getStreams().groups) +
                  " stream group(s)";
  return error;
}

std::optional<Error> ListScheduler::place(uint32_t cluster) {
  int64_t retry = 0;
  if (clusters.transfers.end(cluster) - clusters.transfers.begin(cluster) > 1 &&
      !assignStreams(cluster, 0, nullptr, retry))
    return noStreamGroup();
  if (std::optional<Error> error = collectDemands(cluster))
    return error;

  OpId first = *clusters.members.begin(cluster);
  int64_t span = 0;
  for (const uint32_t *op = clusters.members.begin(cluster);
       op != clusters.members.end(cluster); ++op)
    span = std::max(span, clusters.offset[*op] +
                              problem.getOperation(*op).lastIssue());

  // Dependences on placed clusters bound the base from both sides.
  int64_t earliest = 0, latest = kMaxCycle - span;
  const Dependence *limiting = nullptr;
  for (const uint32_t *it = clusters.depsIn.begin(cluster);
       it != clusters.depsIn.end(cluster); ++it) {
    const Dependence &dep = problem.getDependence(*it);
    if (placed[clusters.clusterOf[dep.from]])
      earliest = std::max(earliest, cycles[dep.from] + dep.delay -
                                        clusters.offset[dep.to]);
  }
  for (const uint32_t *it = clusters.depsOut.begin(cluster);
       it != clusters.depsOut.end(cluster); ++it) {
    const Dependence &dep = problem.getDependence(*it);
    if (!placed[clusters.clusterOf[dep.to]])
      continue;
    int64_t bound = cycles[dep.to] - dep.delay - clusters.offset[dep.from];
    if (bound < latest) {
      latest = bound;
      limiting = &dep;
    }
  }

  int64_t base = earliest;
  if (options.backfillWindow > 0 && frontier - options.backfillWindow <= latest)
    base = std::max(base, frontier - options.backfillWindow);
  while (base <= latest) {
    int64_t fitted = fitResources(base, latest);
    if (fitted != base) {
      base = fitted;
      continue;
    }
    if (assignStreams(cluster, base, &streams, retry))
      break;
    base = retry;
  }
  if (base > latest) {
    if (!limiting)
      return Error{ErrorKind::Infeasible,
                   "the schedule would run past 2^32 cycles at the cluster "
                   "of " +
                       problem.describeOp(first),
                   {first}};
    return Error{ErrorKind::Infeasible,
                 "no cycle fits the cluster of " + problem.describeOp(first) +
                     ": dependence " + problem.describeOp(limiting->from) +
                     " -> " + problem.describeOp(limiting->to) + " (delay " +
                     std::to_string(limiting->delay) +
                     ") needs it to start by cycle " + std::to_string(latest) +
                     ", but its dependences and the resources and streams "
                     "in use allow no start before " +
                     std::to_string(std::max(base, earliest)) +
                     "; the dependences form a cycle between clusters",
                 {first, limiting->from, limiting->to}};
  }

  for (const Demand &demand : demands)
    resources[demand.resource].reserve(uint64_t(base + demand.offset),
                                       demand.count);
  const StreamConfig &config = problem.getStreams();
  for (const PendingStream &stream : pending) {
    streams.reserve(stream.direction, stream.phase, stream.segment);
    assigned[stream.transfer] =
        StreamAssignment{stream.direction, stream.segment.group,
                         stream.segment.group * config.groupWidth};
  }
  for (const uint32_t *op = clusters.members.begin(cluster);
       op != clusters.members.end(cluster); ++op)
    cycles[*op] = base + clusters.offset[*op];
  placed[cluster] = 1;
  frontier = std::max(frontier, base);
  return std::nullopt;
}

std::optional<Error> ListScheduler::run(const std::vector<uint32_t> &order) {
  for (uint32_t cluster : order)
    if (std::optional<Error> error = place(cluster))
      return error;
  return std::nullopt;
}

/// Validates the problem and builds its clusters and their order.
static std::optional<Error> prepare(const Problem &problem,
                                    std::optional<Clusters> &clusters,
                                    std::vector<uint32_t> &order) {
  if (std::optional<Error> error = problem.validate())
    return error;
  Expected<Clusters> built = buildClusters(problem);
  if (!built)
    return built.error();
  clusters = std::move(*built);
  order = orderClusters(problem, *clusters);
  return std::nullopt;
}

Expected<Schedule> hetc::sched::schedule(const Problem &problem,
                                         const SchedulerOptions &options) {
  std::optional<Clusters> clusters;
  std::vector<uint32_t> order;
  if (std::optional<Error> error = prepare(problem, clusters, order))
    return *error;

  // East phases subtract position * hop from the emit cycle; the bias keeps
  // them non-negative for the tables.
  int64_t phaseBias = 0;
  for (const Transfer &transfer : problem.getTransfers())
    phaseBias =
        std::max(phaseBias, problem.getOperation(transfer.producer).position *
                                problem.getStreams().hopCycles);
  if (phaseBias > kMaxCycle)
    return Error{ErrorKind::Infeasible,
                 "values would take more than 2^32 cycles to cross the "
                 "floorplan; check the positions and the hop time",
                 {}};

  ListScheduler scheduler(problem, *clusters, options, phaseBias);
  if (std::optional<Error> error = scheduler.run(order))
    return *error;

  Schedule result;
  result.cycles = scheduler.takeCycles();
  result.streams = scheduler.takeStreams();
  for (OpId op = 0; op < problem.getNumOperations(); ++op)
    result.length = std::max(
        result.length, result.cycles[op] + problem.getOperation(op).span());
  result.bound = computeLowerBound(problem, *clusters, order);
  result.efficiency = result.length == 0
                          ? 1.0
                          : double(result.bound.cycles) / double(result.length);
  result.utilisation = computeUtilisation(problem, result.length);
  return result;
}

Expected<LowerBound> hetc::sched::computeLowerBound(const Problem &problem) {
  std::optional<Clusters> clusters;
  std::vector<uint32_t> order;
  if (std::optional<Error> error = prepare(problem, clusters, order))
    return *error;
  return computeLowerBound(problem, *clusters, order);
}

std::vector<ResourceUsage>
hetc::sched::computeUtilisation(const Problem &problem, int64_t length) {
  std::vector<ResourceUsage> usage(problem.getNumResources());
  for (ResourceId id = 0; id < usage.size(); ++id)
    usage[id].resource = id;
  for (const Operation &op : problem.getOperations())
    op.forEachUse([&](ResourceId resource, uint32_t issues) {
      usage[resource].uses += issues;
    });
  if (length > 0)
    for (ResourceUsage &entry : usage)
      entry.utilisation =
          double(entry.uses) /
          (double(problem.getResource(entry.resource).capacity) *
           double(length));
  return usage;
}
