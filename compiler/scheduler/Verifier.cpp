//===- Verifier.cpp - Independent check of a schedule --------------------===//
//
// Written apart from the scheduler's tables on purpose: it sorts plain lists
// of uses and stream segments, so a bug in the scheduler's bookkeeping does
// not hide itself.
//
//===----------------------------------------------------------------------===//

#include "compiler/scheduler/Verifier.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>

using namespace hetc::sched;

namespace {

/// Collects violations, keeping the first few for the message.
class Verifier {
public:
  Verifier(const Problem &problem, const Schedule &schedule)
      : problem(problem), schedule(schedule) {}
  std::optional<Error> run();

private:
  static constexpr size_t kMaxReported = 10;

  void fail(std::string message, std::vector<OpId> ops) {
    ++violations;
    if (violations > kMaxReported)
      return;
    error.message += (error.message.empty() ? "" : "\n") + message;
    error.ops.insert(error.ops.end(), ops.begin(), ops.end());
  }
  std::string at(OpId op) const {
    return problem.describeOp(op) + " (cycle " +
           std::to_string(schedule.cycles[op]) + ")";
  }
  void checkTransfers();
  void checkStreamClashes();
  void checkResources();
  void checkDependences();
  void checkLength();

  const Problem &problem;
  const Schedule &schedule;
  Error error{ErrorKind::Verification, "", {}};
  size_t violations = 0;
};

} // namespace

void Verifier::checkTransfers() {
  const StreamConfig &config = problem.getStreams();
  for (TransferId id = 0; id < problem.getNumTransfers(); ++id) {
    const Transfer &transfer = problem.getTransfer(id);
    const StreamAssignment &stream = schedule.streams[id];
    const Operation &producer = problem.getOperation(transfer.producer);
    std::string what = "transfer from " + at(transfer.producer);
    if (stream.group >= config.groups)
      fail(what + " uses group " + std::to_string(stream.group) + " of only " +
               std::to_string(config.groups),
           {transfer.producer});
    if (stream.streamId != stream.group * config.groupWidth)
      fail(what + " names stream " + std::to_string(stream.streamId) +
               " for group " + std::to_string(stream.group),
           {transfer.producer});
    for (OpId consumer : transfer.consumers) {
      int64_t to = problem.getOperation(consumer).position;
      if ((stream.direction == Direction::East && to < producer.position) ||
          (stream.direction == Direction::West && to > producer.position))
        fail(what + " flows the wrong way to reach " +
                 problem.describeOp(consumer),
             {transfer.producer, consumer});
      int64_t arrival = schedule.cycles[transfer.producer] + producer.latency +
                        std::llabs(to - producer.position) * config.hopCycles;
      if (schedule.cycles[consumer] != arrival)
        fail(what + ": consumer " + at(consumer) +
                 " must issue when the value arrives, at cycle " +
                 std::to_string(arrival),
             {transfer.producer, consumer});
    }
  }
}

void Verifier::checkStreamClashes() {
  // (direction, group, phase, low, high, transfer)
  using Use = std::tuple<int, uint32_t, int64_t, int64_t, int64_t, TransferId>;
  std::vector<Use> uses;
  int64_t hop = problem.getStreams().hopCycles;
  for (TransferId id = 0; id < problem.getNumTransfers(); ++id) {
    const Transfer &transfer = problem.getTransfer(id);
    const Operation &producer = problem.getOperation(transfer.producer);
    const StreamAssignment &stream = schedule.streams[id];
    int64_t low = producer.position, high = producer.position;
    for (OpId consumer : transfer.consumers) {
      low = std::min(low, problem.getOperation(consumer).position);
      high = std::max(high, problem.getOperation(consumer).position);
    }
    int64_t emit = schedule.cycles[transfer.producer] + producer.latency;
    bool east = stream.direction == Direction::East;
    int64_t phase =
        east ? emit - producer.position * hop : emit + producer.position * hop;
    // A train's values take the group at `every` phases apart.
    for (uint32_t r = 0; r < producer.repeat; ++r)
      uses.emplace_back(east ? 0 : 1, stream.group,
                        phase + int64_t(r) * producer.every, low, high, id);
  }
  std::sort(uses.begin(), uses.end());
  for (size_t i = 1, reach = 0; i < uses.size(); ++i) {
    const auto &[direction, group, phase, low, high, id] = uses[i];
    const auto &[prevDirection, prevGroup, prevPhase, prevLow, prevHigh,
                 prevId] = uses[reach];
    if (direction != prevDirection || group != prevGroup ||
        phase != prevPhase) {
      reach = i;
      continue;
    }
    if (low <= prevHigh) {
      OpId a = problem.getTransfer(prevId).producer;
      OpId b = problem.getTransfer(id).producer;
      fail("transfers from " + at(a) + " and " + at(b) + " meet on " +
               (direction == 0 ? "east" : "west") + " group " +
               std::to_string(group) + " at position " + std::to_string(low),
           {a, b});
    }
    if (high > prevHigh)
      reach = i;
  }
}

void Verifier::checkResources() {
  std::vector<std::pair<ResourceId, int64_t>> uses;
  for (OpId op = 0; op < problem.getNumOperations(); ++op) {
    const Operation &operation = problem.getOperation(op);
    operation.forEachUse([&](ResourceId resource, uint32_t issues) {
      for (uint32_t r = 0; r < issues; ++r)
        uses.emplace_back(resource,
                          schedule.cycles[op] + int64_t(r) * operation.every);
    });
  }
  std::sort(uses.begin(), uses.end());
  for (size_t first = 0, next = 0; first < uses.size(); first = next) {
    while (next < uses.size() && uses[next] == uses[first])
      ++next;
    const Resource &resource = problem.getResource(uses[first].first);
    if (next - first > resource.capacity)
      fail("resource '" + resource.name + "' has " +
               std::to_string(next - first) + " uses at cycle " +
               std::to_string(uses[first].second) + ", capacity " +
               std::to_string(resource.capacity),
           {});
  }
}

void Verifier::checkDependences() {
  for (const Dependence &dep : problem.getDependences())
    if (schedule.cycles[dep.to] < schedule.cycles[dep.from] + dep.delay)
      fail("dependence " + at(dep.from) + " -> " + at(dep.to) +
               " needs a delay of " + std::to_string(dep.delay),
           {dep.from, dep.to});
}

void Verifier::checkLength() {
  int64_t length = 0;
  for (OpId op = 0; op < problem.getNumOperations(); ++op)
    length = std::max(length,
                      schedule.cycles[op] + problem.getOperation(op).span());
  if (schedule.length != length)
    fail("the schedule claims length " + std::to_string(schedule.length) +
             ", but its ops complete at " + std::to_string(length),
         {});
  if (schedule.bound.cycles > length)
    fail("the lower bound " + std::to_string(schedule.bound.cycles) +
             " exceeds the length " + std::to_string(length),
         {});
}

std::optional<Error> Verifier::run() {
  if (schedule.cycles.size() != problem.getNumOperations() ||
      schedule.streams.size() != problem.getNumTransfers())
    return Error{ErrorKind::Verification,
                 "the schedule has " + std::to_string(schedule.cycles.size()) +
                     " cycles and " + std::to_string(schedule.streams.size()) +
                     " streams for " +
                     std::to_string(problem.getNumOperations()) + " ops and " +
                     std::to_string(problem.getNumTransfers()) + " transfers",
                 {}};
  for (OpId op = 0; op < problem.getNumOperations(); ++op)
    if (schedule.cycles[op] < 0)
      fail(at(op) + " issues before cycle 0", {op});
  checkTransfers();
  checkStreamClashes();
  checkResources();
  checkDependences();
  checkLength();
  if (violations == 0)
    return std::nullopt;
  if (violations > kMaxReported)
    error.message +=
        "\n(and " + std::to_string(violations - kMaxReported) + " more)";
  return error;
}

std::optional<Error> hetc::sched::verifySchedule(const Problem &problem,
                                                 const Schedule &schedule) {
  return Verifier(problem, schedule).run();
}
