//===- Dispatch.cpp - Filling the functional units' instruction queues -===//

#include "runtime/sim/Dispatch.h"

#include <algorithm>
#include <limits>

namespace hetc::sim {

namespace {
/// "Before cycle 0": while the program is loaded, without a rate limit.
constexpr int64_t kAtLoad = std::numeric_limits<int64_t>::min();

/// One unit's queue: the issue cycles and indices of its last `capacity`
/// instructions, in a ring.
struct Queue {
  uint32_t capacity = 0;
  uint64_t count = 0;
  std::vector<int64_t> issue;
  std::vector<uint32_t> index;
};
} // namespace

bool checkDispatch(const std::vector<Op> &ops, const chip::ChipSpec &chip,
                   const HazardText &text, std::string &error) {
  const chip::Chip &proto = chip.proto();
  uint32_t depth = proto.dispatch().queue_depth();
  uint32_t perCycle = proto.dispatch().per_cycle();
  uint32_t slices = proto.memory().slices(), planes = proto.matrix().planes();
  uint32_t engines = proto.dma().engines();
  // Queues: slices, planes, the vector unit, DMA engines, switch units,
  // links. A queue holds `depth` entries per instruction its unit issues in
  // a cycle: one for all but the slices and the vector unit.
  size_t vectorQueue = size_t(slices) + planes;
  size_t firstDma = vectorQueue + 1;
  size_t firstSwitch = firstDma + engines;
  size_t firstLink = firstSwitch + chip.switches();
  std::vector<Queue> queues(firstLink + proto.c2c().links());
  for (Queue &queue : queues)
    queue.capacity = depth;
  for (uint32_t s = 0; s < slices; ++s)
    queues[s].capacity = depth * proto.memory().banks_per_slice() *
                         proto.memory().accesses_per_bank_per_cycle();
  queues[vectorQueue].capacity = depth * proto.vector().alus();
  auto queueOf = [&](const Op &op) -> size_t {
    switch (op.kind) {
    case OpClass::MemRead:
    case OpClass::MemWrite:
    case OpClass::MemGather:
    case OpClass::MemScatter:
      return op.unit;
    case OpClass::LoadWeights:
    case OpClass::InstallWeights:
    case OpClass::MatMul:
      return size_t(slices) + op.unit;
    case OpClass::Dma:
      return firstDma + op.unit;
    case OpClass::Permute:
      return firstSwitch + op.unit;
    case OpClass::Link:
      return firstLink + op.unit;
    default:
      return vectorQueue;
    }
  };

  int64_t cycle = kAtLoad; // the dispatcher's current cycle
  uint32_t placed = 0;     // instructions placed in `cycle`
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op &op = ops[i];
    // The dispatcher places a train once, as its first issue.
    if (op.issue != 0)
      continue;
    Queue &queue = queues[queueOf(op)];
    if (queue.issue.empty()) {
      queue.issue.resize(queue.capacity);
      queue.index.resize(queue.capacity);
    }
    size_t slot = size_t(queue.count % queue.capacity);
    // The slot frees when the instruction that held it issues.
    int64_t freeAt =
        queue.count >= queue.capacity ? queue.issue[slot] : kAtLoad;
    int64_t at = std::max(cycle, freeAt);
    if (at != kAtLoad && at == cycle && placed >= perCycle)
      ++at;
    if (at != cycle) {
      cycle = at;
      placed = 0;
    }
    ++placed;
    if (at != kAtLoad && at >= op.cycle) {
      std::string why =
          at == freeAt
              ? "its queue holds " + std::to_string(queue.capacity) +
                    " instructions (dispatch.queue_depth " +
                    std::to_string(depth) +
                    " per instruction the unit issues in a cycle) and is "
                    "full until instruction " +
                    text.instruction(queue.index[slot]) + " issues at cycle " +
                    std::to_string(freeAt)
              : "the dispatcher places " + std::to_string(perCycle) +
                    " instructions per cycle (dispatch.per_cycle) and is "
                    "busy with earlier ones until then";
      error = text.format("queue starvation", uint64_t(op.cycle), uint32_t(i),
                          "it is due at cycle " + std::to_string(op.cycle) +
                              ", but can enter its unit's queue at cycle " +
                              std::to_string(at) + " at the earliest: " + why);
      return false;
    }
    // A train holds its entry until its last issue.
    queue.issue[slot] = op.cycle + int64_t(op.repeat - 1) * op.every;
    queue.index[slot] = uint32_t(i);
    ++queue.count;
  }
  return true;
}

} // namespace hetc::sim
