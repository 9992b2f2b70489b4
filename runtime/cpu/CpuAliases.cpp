//===- CpuAliases.cpp - Copies the CPU backend leaves out --------------===//

#include "runtime/cpu/CpuAliases.h"

#include <algorithm>

namespace hetc::cpu {

using plan::Placement;
using plan::Plan;
using plan::PlanBufferInfo;
using plan::PlanKernelInfo;

namespace {

/// The roots kernel `kernel` reads.
std::vector<uint32_t> readRoots(const Plan &plan, const PlanKernelInfo &kernel) {
  std::vector<uint32_t> roots;
  for (uint32_t b : kernel.operands)
    roots.push_back(plan.buffers[b].root);
  for (int b : {kernel.bias, kernel.scale})
    if (b >= 0)
      roots.push_back(plan.buffers[uint32_t(b)].root);
  return roots;
}

class AliasPlanner {
public:
  AliasPlanner(const Plan &plan, const Placement &lives)
      : plan(plan), lives(lives), kernels(plan.kernels.size()),
        takenInto(plan.buffers.size(), false) {
    a.holder.resize(plan.buffers.size());
    for (uint32_t i = 0; i < a.holder.size(); ++i)
      a.holder[i] = i;
    a.offset.assign(plan.buffers.size(), 0);
    a.leftOut.assign(kernels, false);
  }

  Aliases plan_() {
    for (size_t i = 0; i < kernels; ++i) {
      const PlanKernelInfo &k = plan.kernels[i];
      if (k.kind != hetx::PLAN_GATHER || k.aliased || k.runs.size() != 1 ||
          k.runs[0].first < 0 || k.runs[0].step != 1)
        continue;
      a.leftOut[i] = viewOfSource(i) || sourceInResult(i);
    }
    return std::move(a);
  }

private:
  /// Gather `i` copies a range of its operand into the whole of its
  /// result: the result becomes a view of that range while it is read.
  bool viewOfSource(size_t i) {
    const PlanKernelInfo &k = plan.kernels[i];
    const plan::IndexRun &run = k.runs[0];
    uint32_t result = k.result;
    uint32_t source = plan.buffers[k.operands[run.operand]].root;
    size_t end = lives.last[result];
    if (!k.fills || plan.buffers[result].root != result || source == result ||
        end >= kernels || lives.first[result] != i ||
        a.holder[result] != result || takenInto[result])
      return false;
    uint32_t holder = a.holder[source];
    // Nothing writes the result again, or the range it views, until its
    // last reader.
    for (size_t j = i + 1; j <= end; ++j) {
      uint32_t written = plan.buffers[plan.kernels[j].result].root;
      if (written == result || written == source || written == holder ||
          a.holder[written] == holder)
        return false;
    }
    a.holder[result] = holder;
    a.offset[result] = a.offset[source] + uint64_t(run.first);
    takenInto[holder] = true;
    return true;
  }

  /// Gather `i` copies the whole of a buffer, which only it reads and one
  /// kernel wrote whole, into a range of its result: the buffer lives in
  /// that range from its writer on.
  bool sourceInResult(size_t i) {
    const PlanKernelInfo &k = plan.kernels[i];
    const plan::IndexRun &run = k.runs[0];
    uint32_t result = plan.buffers[k.result].root;
    uint32_t operand = k.operands[run.operand];
    uint32_t source = plan.buffers[operand].root;
    const PlanBufferInfo &buffer = plan.buffers[source];
    if (buffer.origin != PlanBufferInfo::Origin::Scratch || source == result ||
        run.first != 0 || run.count != buffer.elements ||
        plan.buffers[operand].elements != buffer.elements ||
        a.holder[source] != source || takenInto[source] ||
        a.holder[result] != result || lives.last[source] != i)
      return false;
    size_t writer = lives.first[source];
    if (writer >= i || plan.buffers[plan.kernels[writer].result].root != source ||
        !plan.kernels[writer].fills)
      return false;
    uint64_t from = k.firstElement + run.offset, to = from + run.count;
    // From the writer to the copy, nothing else writes the source, nothing
    // reads the result, and only gathers of other ranges write it.
    for (size_t j = writer; j < i; ++j) {
      const PlanKernelInfo &other = plan.kernels[j];
      std::vector<uint32_t> reads = readRoots(plan, other);
      if (std::find(reads.begin(), reads.end(), result) != reads.end())
        return false;
      uint32_t written = plan.buffers[other.result].root;
      if (j != writer && written == source)
        return false;
      bool apart = other.kind == hetx::PLAN_GATHER &&
                   (other.firstElement + other.elements <= from ||
                    other.firstElement >= to);
      if (j != writer && written == result && !apart)
        return false;
    }
    a.holder[source] = result;
    a.offset[source] = from;
    takenInto[result] = true;
    return true;
  }

  const Plan &plan;
  const Placement &lives;
  size_t kernels;
  Aliases a;
  /// Per root: whether another root's elements live in its place (it is
  /// then not made to live in a third's).
  std::vector<bool> takenInto;
};

} // namespace

Aliases planAliases(const Plan &plan, const Placement &lives) {
  return AliasPlanner(plan, lives).plan_();
}

void aliasHints(const Plan &plan, const Placement &lives,
                const Aliases &aliases, plan::PlacementHints &hints) {
  size_t count = plan.buffers.size();
  hints.livesTo.resize(count, 0);
  hints.livesFrom.resize(count, SIZE_MAX);
  hints.unplaced.resize(count, false);
  for (uint32_t b = 0; b < count; ++b) {
    uint32_t holder = aliases.holder[b];
    if (plan.buffers[b].root != b || holder == b)
      continue;
    hints.unplaced[b] = true;
    hints.livesTo[holder] = std::max(hints.livesTo[holder], lives.last[b]);
    hints.livesFrom[holder] = std::min(hints.livesFrom[holder], lives.first[b]);
  }
}

} // namespace hetc::cpu
