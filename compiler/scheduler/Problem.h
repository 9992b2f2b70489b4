//===- Problem.h - The scheduling problem model ----------------*- C++ -*-===//
//
// A problem lists operations in program order, the resources they occupy at
// issue, stream transfers (exact timing between a producer and its consumers)
// and dependences (inequalities between issue cycles). The scheduler gives
// every operation an issue cycle; see Scheduler.h.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_SCHEDULER_PROBLEM_H
#define HETC_COMPILER_SCHEDULER_PROBLEM_H

#include "compiler/scheduler/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hetc::sched {

/// Dense index of an operation; ids follow program order.
using OpId = uint32_t;
/// Dense index of a resource.
using ResourceId = uint32_t;
/// Dense index of a transfer.
using TransferId = uint32_t;
/// Dense index of a dependence.
using DependenceId = uint32_t;

/// Position of an operation that is not on the floorplan.
constexpr int64_t kNoPosition = -1;
/// Largest latency, |delay|, position, hop time or span of a train's issues
/// a problem may use; keeps
/// every cycle computation far from int64 overflow.
constexpr int64_t kMaxMagnitude = int64_t(1) << 30;

/// Flow direction of a stream: east runs towards higher positions.
enum class Direction : uint8_t { East, West };

/// The directions a transfer may use, given where its consumers are.
enum class DirectionChoice : uint8_t { East, West, Either };

/// A unit that accepts at most `capacity` uses per cycle.
struct Resource {
  std::string name;
  uint32_t capacity = 1;
};

/// An instruction. It issues at its cycle and `repeat - 1` more times,
/// `every` cycles apart (a train: the TSP's Repeat), completes at
/// lastIssue + latency, and occupies each entry of `uses` (repeats count
/// twice) at every issue, but the last `firstOnly` entries at its first
/// issue only (the dispatcher, which places a train once). Its cycle is
/// the first issue's; transfers and dependences are written in terms of
/// it. (Programs have millions of operations: the fields are packed.)
struct Operation {
  std::string name;
  int64_t latency = 0;
  int64_t position = kNoPosition;
  std::vector<ResourceId> uses;
  uint32_t firstOnly = 0;
  uint32_t repeat = 1;
  int64_t every = 1;

  /// Cycles from the first issue to the last.
  int64_t lastIssue() const { return int64_t(repeat - 1) * every; }
  /// Cycles from the first issue to completion.
  int64_t span() const { return lastIssue() + latency; }
  /// Calls `each(resource, issues)` for every use: `issues` is `repeat` for
  /// a use at every issue, 1 for one at the first issue only.
  template <typename Fn> void forEachUse(Fn each) const {
    size_t always = uses.size() - firstOnly;
    for (size_t u = 0; u < uses.size(); ++u)
      each(uses[u], u < always ? repeat : 1u);
  }
};

/// A value streamed from `producer` to `consumers`. Each consumer issues at
/// exactly cycle(producer) + latency(producer) + |distance| * hopCycles.
/// A train's transfer carries one value per issue, all on one stream group:
/// its consumers repeat as often and as far apart as the producer.
struct Transfer {
  OpId producer = 0;
  std::vector<OpId> consumers;
};

/// cycle(to) >= cycle(from) + delay, with `from` before `to` in program
/// order; the delay may be negative.
struct Dependence {
  OpId from = 0;
  OpId to = 0;
  int64_t delay = 0;
};

/// How values move on streams.
struct StreamConfig {
  /// Cycles a value takes from one floorplan position to the next.
  int64_t hopCycles = 1;
  /// Stream groups per direction a transfer can be given.
  uint32_t groups = 8;
  /// Streams per group; the artifact names a group by group * groupWidth.
  uint32_t groupWidth = 4;
};

/// A scheduling problem. The add* methods never fail; check* and validate()
/// report what breaks the model, and schedule() validates before it runs.
class Problem {
public:
  Problem() = default;
  explicit Problem(StreamConfig streams) : streams(streams) {}

  /// Sets how values move on streams.
  void setStreams(StreamConfig config) { streams = config; }
  /// Returns how values move on streams.
  const StreamConfig &getStreams() const { return streams; }

  /// Makes room for this many operations, transfers and dependences, so
  /// that building a large problem does not hold its arrays twice while
  /// they grow (a hint: more may be added).
  void reserve(size_t operationCount, size_t transferCount,
               size_t dependenceCount) {
    operations.reserve(operationCount);
    transfers.reserve(transferCount);
    dependences.reserve(dependenceCount);
  }

  /// Adds a resource with `capacity` uses per cycle.
  ResourceId addResource(std::string name, uint32_t capacity);
  /// Adds the next operation in program order.
  OpId addOperation(std::string name, int64_t latency, int64_t position,
                    std::vector<ResourceId> uses = {});
  /// Makes `op` a train: `count` issues, `every` cycles apart.
  void setRepeat(OpId op, uint32_t count, int64_t every) {
    operations[op].repeat = count;
    operations[op].every = every;
  }
  /// Adds a resource `op` takes at its first issue only.
  void addFirstUse(OpId op, ResourceId resource) {
    operations[op].uses.push_back(resource);
    ++operations[op].firstOnly;
  }
  /// Adds a stream transfer from `producer` to `consumers`.
  TransferId addTransfer(OpId producer, std::vector<OpId> consumers);
  /// Adds cycle(to) >= cycle(from) + delay.
  DependenceId addDependence(OpId from, OpId to, int64_t delay);

  size_t getNumResources() const { return resources.size(); }
  size_t getNumOperations() const { return operations.size(); }
  size_t getNumTransfers() const { return transfers.size(); }
  size_t getNumDependences() const { return dependences.size(); }

  const Resource &getResource(ResourceId id) const { return resources[id]; }
  const Operation &getOperation(OpId id) const { return operations[id]; }
  const Transfer &getTransfer(TransferId id) const { return transfers[id]; }
  const Dependence &getDependence(DependenceId id) const {
    return dependences[id];
  }
  const std::vector<Resource> &getResources() const { return resources; }
  const std::vector<Operation> &getOperations() const { return operations; }
  const std::vector<Transfer> &getTransfers() const { return transfers; }
  const std::vector<Dependence> &getDependences() const { return dependences; }

  /// Checks the stream configuration.
  std::optional<Error> checkStreams() const;
  /// Checks one resource.
  std::optional<Error> checkResource(ResourceId id) const;
  /// Checks one operation (latency, position, resource ids).
  std::optional<Error> checkOperation(OpId id) const;
  /// Checks one transfer (ids, positions, consumers on one side).
  std::optional<Error> checkTransfer(TransferId id) const;
  /// Checks one dependence (ids, program order, delay range).
  std::optional<Error> checkDependence(DependenceId id) const;
  /// Runs every check and returns the first failure.
  std::optional<Error> validate() const;

  /// Returns the directions a valid transfer may flow in.
  DirectionChoice getDirectionChoice(TransferId id) const;
  /// Returns the position of the valid transfer's farthest consumer.
  int64_t getFarthestPosition(TransferId id) const;
  /// Returns the cycles from producer issue until `consumer` must issue.
  int64_t getTransferDelay(TransferId id, OpId consumer) const;
  /// Returns "'name'" for diagnostics, or "#id" for an unnamed op.
  std::string describeOp(OpId id) const;

private:
  StreamConfig streams;
  std::vector<Resource> resources;
  std::vector<Operation> operations;
  std::vector<Transfer> transfers;
  std::vector<Dependence> dependences;
};

} // namespace hetc::sched

#endif // HETC_COMPILER_SCHEDULER_PROBLEM_H
