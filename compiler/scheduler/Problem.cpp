//===- Problem.cpp - The scheduling problem model and its checks ---------===//

#include "compiler/scheduler/Problem.h"

#include <algorithm>
#include <cstdlib>

using namespace hetc::sched;

static Error invalid(std::string message, std::vector<uint32_t> ops = {}) {
  return Error{ErrorKind::InvalidProblem, std::move(message), std::move(ops)};
}

ResourceId Problem::addResource(std::string name, uint32_t capacity) {
  resources.push_back(Resource{std::move(name), capacity});
  return ResourceId(resources.size() - 1);
}

OpId Problem::addOperation(std::string name, int64_t latency, int64_t position,
                           std::vector<ResourceId> uses) {
  operations.push_back(
      Operation{std::move(name), latency, position, std::move(uses)});
  return OpId(operations.size() - 1);
}

TransferId Problem::addTransfer(OpId producer, std::vector<OpId> consumers) {
  transfers.push_back(Transfer{producer, std::move(consumers)});
  return TransferId(transfers.size() - 1);
}

DependenceId Problem::addDependence(OpId from, OpId to, int64_t delay) {
  dependences.push_back(Dependence{from, to, delay});
  return DependenceId(dependences.size() - 1);
}

std::string Problem::describeOp(OpId id) const {
  if (id >= operations.size())
    return "#" + std::to_string(id) + " (no such op)";
  const std::string &name = operations[id].name;
  return name.empty() ? "#" + std::to_string(id) : "'" + name + "'";
}

std::optional<Error> Problem::checkStreams() const {
  if (streams.hopCycles < 0 || streams.hopCycles > kMaxMagnitude)
    return invalid("hop cycles must be in [0, 2^30], found " +
                   std::to_string(streams.hopCycles));
  if (streams.groups == 0)
    return invalid("there must be at least one stream group per direction");
  if (streams.groupWidth == 0)
    return invalid("a stream group must be at least one stream wide");
  return std::nullopt;
}

std::optional<Error> Problem::checkResource(ResourceId id) const {
  if (resources[id].capacity == 0)
    return invalid("resource '" + resources[id].name +
                   "' needs a capacity of at least 1");
  return std::nullopt;
}

std::optional<Error> Problem::checkOperation(OpId id) const {
  const Operation &op = operations[id];
  if (op.latency < 0 || op.latency > kMaxMagnitude)
    return invalid("op " + describeOp(id) + " has latency " +
                       std::to_string(op.latency) + ", outside [0, 2^30]",
                   {id});
  if (op.position < kNoPosition || op.position > kMaxMagnitude)
    return invalid("op " + describeOp(id) + " has position " +
                       std::to_string(op.position) +
                       "; positions are -1 (none) or in [0, 2^30]",
                   {id});
  for (ResourceId use : op.uses)
    if (use >= resources.size())
      return invalid("op " + describeOp(id) + " uses resource #" +
                         std::to_string(use) + ", but there are only " +
                         std::to_string(resources.size()),
                     {id});
  if (op.firstOnly > op.uses.size())
    return invalid("op " + describeOp(id) + " takes " +
                       std::to_string(op.firstOnly) +
                       " resources at its first issue only, but has " +
                       std::to_string(op.uses.size()),
                   {id});
  if (op.repeat == 0 || op.every < 1 ||
      (op.repeat > 1 && op.every > kMaxMagnitude / int64_t(op.repeat - 1)))
    return invalid("op " + describeOp(id) + " repeats " +
                       std::to_string(op.repeat) + " times every " +
                       std::to_string(op.every) +
                       " cycles; a train issues at least once, at least a "
                       "cycle apart, within 2^30 cycles",
                   {id});
  return std::nullopt;
}

std::optional<Error> Problem::checkTransfer(TransferId id) const {
  const Transfer &transfer = transfers[id];
  OpId producer = transfer.producer;
  if (producer >= operations.size())
    return invalid("transfer #" + std::to_string(id) + " names producer #" +
                   std::to_string(producer) + ", which does not exist");
  std::string what = "transfer from " + describeOp(producer);
  if (transfer.consumers.empty())
    return invalid(what + " has no consumers", {producer});
  int64_t from = operations[producer].position;
  if (from == kNoPosition)
    return invalid(what + ": the producer has no floorplan position",
                   {producer});
  bool east = false, west = false;
  for (size_t i = 0; i < transfer.consumers.size(); ++i) {
    OpId consumer = transfer.consumers[i];
    if (consumer >= operations.size())
      return invalid(what + " names consumer #" + std::to_string(consumer) +
                         ", which does not exist",
                     {producer});
    if (consumer == producer)
      return invalid(what + " lists the producer as its own consumer",
                     {producer});
    if (std::find(transfer.consumers.begin(), transfer.consumers.begin() + i,
                  consumer) != transfer.consumers.begin() + i)
      return invalid(what + " lists consumer " + describeOp(consumer) +
                         " twice",
                     {producer, consumer});
    int64_t to = operations[consumer].position;
    if (to == kNoPosition)
      return invalid(what + ": consumer " + describeOp(consumer) +
                         " has no floorplan position",
                     {producer, consumer});
    east |= to > from;
    west |= to < from;
    const Operation &p = operations[producer], &c = operations[consumer];
    if (p.repeat != c.repeat || (p.repeat > 1 && p.every != c.every))
      return invalid(what + " carries " + std::to_string(p.repeat) +
                         " value(s) " + std::to_string(p.every) +
                         " cycle(s) apart, but consumer " +
                         describeOp(consumer) + " repeats " +
                         std::to_string(c.repeat) + " time(s) every " +
                         std::to_string(c.every),
                     {producer, consumer});
  }
  if (east && west)
    return invalid(what + " (position " + std::to_string(from) +
                       ") has consumers on both sides; split it into an "
                       "eastward and a westward transfer",
                   {producer});
  return std::nullopt;
}

std::optional<Error> Problem::checkDependence(DependenceId id) const {
  const Dependence &dep = dependences[id];
  if (dep.from >= operations.size() || dep.to >= operations.size())
    return invalid("dependence #" + std::to_string(id) +
                   " names an op that does not exist");
  std::string what =
      "dependence " + describeOp(dep.from) + " -> " + describeOp(dep.to);
  if (dep.from >= dep.to)
    return invalid(what + " must go from an earlier op to a later one in "
                          "program order",
                   {dep.from, dep.to});
  if (std::llabs(dep.delay) > kMaxMagnitude)
    return invalid(what + " has delay " + std::to_string(dep.delay) +
                       ", outside [-2^30, 2^30]",
                   {dep.from, dep.to});
  return std::nullopt;
}

std::optional<Error> Problem::validate() const {
  if (auto error = checkStreams())
    return error;
  for (ResourceId id = 0; id < resources.size(); ++id)
    if (auto error = checkResource(id))
      return error;
  for (OpId id = 0; id < operations.size(); ++id)
    if (auto error = checkOperation(id))
      return error;
  for (TransferId id = 0; id < transfers.size(); ++id)
    if (auto error = checkTransfer(id))
      return error;
  for (DependenceId id = 0; id < dependences.size(); ++id)
    if (auto error = checkDependence(id))
      return error;
  return std::nullopt;
}

DirectionChoice Problem::getDirectionChoice(TransferId id) const {
  const Transfer &transfer = transfers[id];
  int64_t from = operations[transfer.producer].position;
  for (OpId consumer : transfer.consumers) {
    int64_t to = operations[consumer].position;
    if (to != from)
      return to > from ? DirectionChoice::East : DirectionChoice::West;
  }
  return DirectionChoice::Either;
}

int64_t Problem::getFarthestPosition(TransferId id) const {
  const Transfer &transfer = transfers[id];
  int64_t from = operations[transfer.producer].position;
  int64_t farthest = from;
  for (OpId consumer : transfer.consumers) {
    int64_t to = operations[consumer].position;
    if (std::llabs(to - from) > std::llabs(farthest - from))
      farthest = to;
  }
  return farthest;
}

int64_t Problem::getTransferDelay(TransferId id, OpId consumer) const {
  const Operation &producer = operations[transfers[id].producer];
  int64_t distance =
      std::llabs(operations[consumer].position - producer.position);
  return producer.latency + distance * streams.hopCycles;
}
