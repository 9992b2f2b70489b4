//===- CpuSteps.cpp - A plan's kernels as the host runs them -----------===//

#include "runtime/cpu/CpuSteps.h"

#include <algorithm>
#include <utility>

namespace hetc::cpu {

using plan::Placement;
using plan::Plan;
using plan::PlanBufferInfo;
using plan::PlanKernelInfo;

namespace {

/// The most weight rows (M) a window product computes from the index
/// runs; a product of more rows gathers its windows and goes to sgemm,
/// which reuses them better (gathering them a block of columns at a time
/// into a thread's cache, each block through sgemm, was measured slower
/// on the model suite's UNet and ResNet-18).
constexpr uint64_t kMaxWindowRows = 8;

/// Whether kernels `i` and `i + 1` are a gather and the float matrix
/// product of few weight rows that alone reads its result, as its windows.
bool isWindowProduct(const Plan &plan, const Placement &placement,
                     const Aliases &aliases, size_t i) {
  if (i + 1 >= plan.kernels.size() || aliases.leftOut[i] ||
      aliases.leftOut[i + 1])
    return false;
  const PlanKernelInfo &gather = plan.kernels[i];
  const PlanKernelInfo &matmul = plan.kernels[i + 1];
  if (gather.kind != hetx::PLAN_GATHER || matmul.kind != hetx::PLAN_MATMUL ||
      gather.aliased || matmul.aliased || !gather.fills)
    return false;
  if (!io::isFloat(matmul.op.inType) || matmul.transposedWeight ||
      !matmul.floatWeight.empty() || matmul.m == 0 || matmul.k == 0 ||
      matmul.n == 0)
    return false;
  uint32_t windows = gather.result;
  const PlanBufferInfo &buffer = plan.buffers[windows];
  if (matmul.operands[1] != windows || buffer.root != windows ||
      !io::isFloat(buffer.type))
    return false;
  // Only these two kernels touch the windows' storage, and the product
  // reads them as nothing else.
  if (placement.first[windows] != i || placement.last[windows] != i + 1)
    return false;
  for (int other : {int(matmul.operands[0]), matmul.bias, matmul.scale})
    if (other >= 0 && plan.buffers[uint32_t(other)].root == windows)
      return false;
  return matmul.m <= kMaxWindowRows;
}

/// Arena words a set of kernels reads or writes, as ranges of whole roots
/// (where a root lives in another's place: of the elements it takes there).
class Footprint {
public:
  Footprint(const Plan &plan, const Placement &placement,
            const Aliases &aliases)
      : plan(&plan), placement(&placement), aliases(&aliases) {}

  /// The words of the roots a gather and its product read, and of the one
  /// the product writes (constants have no place: nothing writes them).
  void ofPair(const PlanKernelInfo &gather, const PlanKernelInfo &matmul) {
    reads.clear();
    writes.clear();
    for (uint32_t b : gather.operands)
      add(reads, b);
    for (int b : {int(matmul.operands[0]), matmul.bias, matmul.scale})
      if (b >= 0)
        add(reads, uint32_t(b));
    add(writes, matmul.result);
  }

  /// Whether a word written is one read: for a pair, its result placed
  /// where an operand of the gather lived until the gather ran.
  bool readsWhatItWrites() const { return overlap(writes, reads); }

  /// Whether `this` writes a word `other` reads or writes, or reads one
  /// `other` writes.
  bool conflicts(const Footprint &other) const {
    return overlap(writes, other.reads) || overlap(writes, other.writes) ||
           overlap(reads, other.writes);
  }

  void merge(const Footprint &other) {
    reads.insert(reads.end(), other.reads.begin(), other.reads.end());
    writes.insert(writes.end(), other.writes.begin(), other.writes.end());
  }

  /// Adds buffer `b`'s words to what is read, or written.
  void read(uint32_t b) { add(reads, b); }
  void write(uint32_t b) { add(writes, b); }

private:
  using Range = std::pair<uint64_t, uint64_t>;
  void add(std::vector<Range> &ranges, uint32_t buffer) {
    uint32_t root = plan->buffers[buffer].root;
    uint32_t holder = aliases->holder[root];
    if (!placement->placed[holder])
      return;
    uint64_t from = placement->offset[holder] + aliases->offset[root];
    ranges.emplace_back(
        from, from + std::max<uint64_t>(plan->buffers[root].elements, 1));
  }
  static bool overlap(const std::vector<Range> &a,
                      const std::vector<Range> &b) {
    for (const Range &x : a)
      for (const Range &y : b)
        if (x.first < y.second && y.first < x.second)
          return true;
    return false;
  }
  const Plan *plan;
  const Placement *placement;
  const Aliases *aliases;
  std::vector<Range> reads, writes;
};

/// The runs of elements of `gather`, whose result is K x `n`: each cut
/// where a row of the windows ends, and repetitions that follow one
/// another at one distance, in the windows and in the source, made one.
std::vector<WindowRun> windowRuns(const PlanKernelInfo &gather, uint64_t n) {
  std::vector<WindowRun> runs;
  auto add = [&](const WindowRun &piece) {
    if (!runs.empty()) {
      WindowRun &last = runs.back();
      uint64_t lastAt = last.at + (last.repeat - 1) * last.atStride;
      int64_t lastFirst =
          last.first + int64_t(last.repeat - 1) * last.sourceStride;
      bool same = last.operand == piece.operand && last.step == piece.step &&
                  last.count == piece.count && piece.at > lastAt;
      if (same && last.repeat == 1) {
        last.atStride = piece.at - lastAt;
        last.sourceStride = piece.first - lastFirst;
        last.repeat = 2;
        return;
      }
      if (same && piece.at - lastAt == last.atStride &&
          piece.first - lastFirst == last.sourceStride) {
        ++last.repeat;
        return;
      }
    }
    runs.push_back(piece);
  };
  for (const plan::IndexRun &run : gather.runs) {
    if (run.first < 0)
      continue;
    uint64_t at = gather.firstElement + run.offset, left = run.count;
    int64_t first = run.first;
    while (left > 0) {
      uint64_t length = std::min(left, n - at % n);
      add({run.operand, first, run.step, 0, length, 1, at, 0});
      first += int64_t(length) * run.step;
      at += length;
      left -= length;
    }
  }
  return runs;
}

/// Whether kernel `kernel` may run a block of elements at a time.
bool runsByBlocks(const PlanKernelInfo &kernel) {
  switch (kernel.kind) {
  case hetx::PLAN_BINARY:
  case hetx::PLAN_UNARY:
  case hetx::PLAN_CAST:
  case hetx::PLAN_SELECT:
    return !kernel.aliased;
  case hetx::PLAN_GATHER:
    return !kernel.aliased && kernel.fills;
  default:
    return false;
  }
}

/// The end of the kernels from `i` on that may run as an Elementwise
/// step by their kinds, results and operands (the step's storage is
/// checked by elementwiseStep).
size_t elementwiseEnd(const Plan &plan, const Placement &placement,
                      const Aliases &aliases, size_t i) {
  const std::vector<int64_t> &shape =
      plan.buffers[plan.kernels[i].result].shape;
  std::vector<bool> inStep(plan.buffers.size(), false);
  size_t j = i;
  for (; j < plan.kernels.size(); ++j) {
    const PlanKernelInfo &kernel = plan.kernels[j];
    uint32_t result = kernel.result;
    const PlanBufferInfo &buffer = plan.buffers[result];
    if (!runsByBlocks(kernel) || aliases.leftOut[j] || buffer.root != result ||
        buffer.shape != shape || placement.first[result] != j)
      break;
    bool gather = kernel.kind == hetx::PLAN_GATHER;
    bool fits = true;
    for (uint32_t operand : kernel.operands) {
      uint32_t root = plan.buffers[operand].root;
      // A result of the step is read element for element, as itself; a
      // gather reads none of them.
      if (inStep[root])
        fits &= !gather && operand == root;
      else if (!gather && (kernel.kind == hetx::PLAN_UNARY ||
                           kernel.kind == hetx::PLAN_CAST))
        fits &= plan.buffers[operand].elements == buffer.elements;
    }
    if (!fits)
      break;
    inStep[result] = true;
  }
  return j;
}

/// Kernels [i, end) as an Elementwise step, if their storage lets them run
/// by blocks: no result written to its buffer may share a word with an
/// operand read from outside the step (a later block of it would read what
/// an earlier block wrote).
bool elementwiseStep(const Plan &plan, const Placement &placement,
                     const Aliases &aliases, size_t i, size_t end,
                     Step &step) {
  step = Step{Step::Kind::Elementwise, i, end - i};
  std::vector<int> producer(plan.buffers.size(), -1);
  for (size_t j = i; j < end; ++j)
    producer[plan.kernels[j].result] = int(j - i);
  // What the step reads from outside it, and the results it writes to
  // their buffers.
  Footprint storage(plan, placement, aliases);
  for (size_t j = i; j < end; ++j) {
    const PlanKernelInfo &kernel = plan.kernels[j];
    for (uint32_t operand : kernel.operands)
      if (producer[plan.buffers[operand].root] < 0)
        storage.read(operand);
    if (placement.last[kernel.result] >= end)
      storage.write(kernel.result);
  }
  if (storage.readsWhatItWrites())
    return false;
  // Slots: a result read only inside the step takes a free one from its
  // kernel to its last reader.
  std::vector<int> freeSlots;
  std::vector<std::pair<size_t, int>> held; // (last reader, slot)
  for (size_t j = i; j < end; ++j) {
    const PlanKernelInfo &kernel = plan.kernels[j];
    std::vector<int> slots;
    for (uint32_t operand : kernel.operands) {
      int from = producer[plan.buffers[operand].root];
      slots.push_back(from >= 0 ? step.resultSlots[size_t(from)] : -1);
    }
    step.operandSlots.push_back(std::move(slots));
    for (auto it = held.begin(); it != held.end();) {
      if (it->first < j) {
        freeSlots.push_back(it->second);
        it = held.erase(it);
      } else {
        ++it;
      }
    }
    int slot = -1;
    if (placement.last[kernel.result] < end) {
      if (freeSlots.empty()) {
        slot = int(step.slots++);
      } else {
        slot = freeSlots.back();
        freeSlots.pop_back();
      }
      held.emplace_back(placement.last[kernel.result], slot);
    }
    step.resultSlots.push_back(slot);
  }
  return true;
}

} // namespace

plan::PlacementHints stepHints(const Plan &plan, const Placement &lives,
                               const Aliases &aliases) {
  plan::PlacementHints hints;
  aliasHints(plan, lives, aliases, hints);
  size_t kernels = plan.kernels.size();
  auto extend = [&](uint32_t buffer, size_t to) {
    size_t &at = hints.livesTo[aliases.holderOf(plan, buffer)];
    at = std::max(at, to);
  };
  for (size_t i = 0; i < kernels;) {
    size_t end = i;
    while (isWindowProduct(plan, lives, aliases, end))
      end += 2;
    if (end > i) {
      // Consecutive products may run together: each reads until the last.
      for (size_t g = i; g < end; g += 2) {
        const PlanKernelInfo &matmul = plan.kernels[g + 1];
        for (uint32_t b : plan.kernels[g].operands)
          extend(b, end - 1);
        for (int b : {int(matmul.operands[0]), matmul.bias, matmul.scale})
          if (b >= 0)
            extend(uint32_t(b), end - 1);
      }
      i = end;
      continue;
    }
    end = elementwiseEnd(plan, lives, aliases, i);
    if (end < i + 2) {
      ++i;
      continue;
    }
    std::vector<bool> inStep(plan.buffers.size(), false);
    for (size_t j = i; j < end; ++j)
      inStep[plan.kernels[j].result] = true;
    for (size_t j = i; j < end; ++j)
      for (uint32_t b : plan.kernels[j].operands)
        if (!inStep[plan.buffers[b].root])
          extend(b, end - 1);
    i = end;
  }
  return hints;
}

std::vector<Step> planSteps(const Plan &plan, const Placement &placement,
                            const Aliases &aliases) {
  std::vector<Step> steps;
  size_t kernels = plan.kernels.size();
  Footprint taken(plan, placement, aliases), pair(plan, placement, aliases);
  // Whether kernels i and i + 1 are a window product that can run as one
  // (its footprint then in `pair`).
  auto windowProduct = [&](size_t i) {
    if (!isWindowProduct(plan, placement, aliases, i))
      return false;
    pair.ofPair(plan.kernels[i], plan.kernels[i + 1]);
    return !pair.readsWhatItWrites();
  };
  for (size_t i = 0; i < kernels;) {
    if (aliases.leftOut[i]) {
      steps.push_back({Step::Kind::LeftOut, i, 1});
      ++i;
      continue;
    }
    if (!windowProduct(i)) {
      // The longest run of two or more kernels from i that can run by
      // blocks, else kernel i alone.
      Step step;
      size_t end = elementwiseEnd(plan, placement, aliases, i);
      while (end >= i + 2 &&
             !elementwiseStep(plan, placement, aliases, i, end, step))
        --end;
      if (end < i + 2)
        step = Step{Step::Kind::Kernel, i, 1};
      i += step.count;
      steps.push_back(std::move(step));
      continue;
    }
    Step step{Step::Kind::WindowProducts, i, 2};
    taken = pair;
    for (i += 2; windowProduct(i); i += 2) {
      if (pair.conflicts(taken))
        break;
      taken.merge(pair);
      step.count += 2;
    }
    for (size_t g = step.first; g < step.first + step.count; g += 2)
      step.windows.push_back(
          windowRuns(plan.kernels[g], plan.kernels[g + 1].n));
    steps.push_back(std::move(step));
  }
  return steps;
}

SteppedPlan stepPlan(const Plan &plan, uint64_t alignWords) {
  SteppedPlan stepped;
  Placement lives = plan::placeBuffers(plan, alignWords);
  stepped.aliases = planAliases(plan, lives);
  stepped.placement = plan::placeBuffers(
      plan, alignWords, stepHints(plan, lives, stepped.aliases));
  uint64_t most = std::max(2 * lives.words, lives.words + (uint64_t(1) << 16));
  if (stepped.placement.words > most) {
    stepped.aliases = noAliases(plan);
    stepped.placement = std::move(lives);
  }
  stepped.steps = planSteps(plan, stepped.placement, stepped.aliases);
  return stepped;
}

} // namespace hetc::cpu
