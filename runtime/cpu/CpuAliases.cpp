//===- CpuAliases.cpp - Copies the CPU backend leaves out --------------===//

#include "runtime/cpu/CpuAliases.h"

#include <algorithm>

namespace hetc::cpu {

using plan::Placement;
using plan::Plan;
using plan::PlanBufferInfo;
using plan::PlanKernelInfo;

namespace {

/// The roots each kernel reads, sorted: a gather's by its runs (its
/// operands are every buffer a run may start in); any other kernel's by its
/// operands, bias and scale. Found once, as the planner asks for every
/// kernel in a source's life, for every source, until nothing changes.
std::vector<std::vector<uint32_t>> rootsRead(const Plan &plan) {
  std::vector<std::vector<uint32_t>> roots(plan.kernels.size());
  auto rootOf = [&](uint32_t b) { return plan.buffers[b].root; };
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const PlanKernelInfo &kernel = plan.kernels[i];
    std::vector<uint32_t> &mine = roots[i];
    if (kernel.kind == hetx::PLAN_GATHER) {
      for (const plan::IndexRun &run : kernel.runs)
        if (run.first >= 0)
          mine.push_back(rootOf(kernel.operands[run.operand]));
    } else {
      for (uint32_t b : kernel.operands)
        mine.push_back(rootOf(b));
      for (int b : {kernel.bias, kernel.scale})
        if (b >= 0)
          mine.push_back(rootOf(uint32_t(b)));
    }
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  }
  return roots;
}

class AliasPlanner {
public:
  AliasPlanner(const Plan &plan, const Placement &lives)
      : plan(plan), lives(lives), kernels(plan.kernels.size()),
        a(noAliases(plan)), takenInto(plan.buffers.size(), false),
        roots(rootsRead(plan)) {}

  Aliases plan_() {
    for (size_t i = 0; i < kernels; ++i) {
      const PlanKernelInfo &k = plan.kernels[i];
      if (k.kind != hetx::PLAN_GATHER || k.aliased || k.runs.size() != 1 ||
          k.runs[0].first < 0 || k.runs[0].step != 1)
        continue;
      a.leftOut[i] = viewOfSource(i);
    }
    sourcesInPlace();
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
      // The source and its holder are both held by `holder`.
      uint32_t written = plan.buffers[plan.kernels[j].result].root;
      if (written == result || a.holder[written] == holder)
        return false;
    }
    a.holder[result] = holder;
    a.offset[result] = a.offset[source] + uint64_t(run.first);
    takenInto[holder] = true;
    return true;
  }

  /// A run of a gather that copies elements of a source, in order, into
  /// the gather's result.
  struct Copy {
    size_t kernel;
    uint32_t source, result;
    uint64_t from, count; // in the source
    int64_t shift;        // result element minus source element
  };

  /// Buffers copied whole, by the runs of gathers, into ranges of one
  /// result (the parts of a concatenation), which one kernel wrote whole
  /// and only those gathers read, live in their ranges from their writers
  /// on; gathers whose every run copies such a buffer are left out. A
  /// buffer stays a copy where, between its writer and its last copy,
  /// something reads the result or writes its range.
  void sourcesInPlace() {
    std::vector<Copy> copies;
    for (size_t i = 0; i < kernels; ++i) {
      const PlanKernelInfo &k = plan.kernels[i];
      if (k.kind != hetx::PLAN_GATHER || k.aliased || a.leftOut[i])
        continue;
      for (const plan::IndexRun &run : k.runs)
        if (run.first >= 0 && run.step == 1)
          copies.push_back({i, plan.buffers[k.operands[run.operand]].root,
                            plan.buffers[k.result].root, uint64_t(run.first),
                            run.count,
                            int64_t(k.firstElement + run.offset) - run.first});
    }
    // Per source: its copies; per kernel: whether every run is a copy.
    std::vector<std::vector<size_t>> bySource(plan.buffers.size());
    std::vector<size_t> runsCopied(kernels, 0);
    for (size_t c = 0; c < copies.size(); ++c) {
      bySource[copies[c].source].push_back(c);
      ++runsCopied[copies[c].kernel];
    }
    std::vector<bool> placed(plan.buffers.size(), false);
    for (uint32_t s = 0; s < plan.buffers.size(); ++s)
      placed[s] = !bySource[s].empty() && copiedWhole(s, copies, bySource[s]);
    // A gather is left out when all its runs copy placed sources; a source
    // is placed when all gathers copying it are left out. To a fixed point.
    auto removable = [&](size_t kernel) {
      return runsCopied[kernel] > 0 &&
             runsCopied[kernel] == plan.kernels[kernel].runs.size();
    };
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<bool> out(kernels, false);
      for (size_t k = 0; k < kernels; ++k)
        out[k] = removable(k);
      for (const Copy &c : copies)
        if (!placed[c.source])
          out[c.kernel] = false;
      // Two sources placed over one range, or a placed source's result
      // placed in a third root, are not placed.
      std::vector<std::vector<std::pair<uint64_t, uint32_t>>> starts(
          plan.buffers.size());
      for (uint32_t s = 0; s < plan.buffers.size(); ++s)
        if (placed[s]) {
          const Copy &c = copies[bySource[s].front()];
          starts[c.result].emplace_back(uint64_t(c.shift), s);
        }
      for (uint32_t r = 0; r < plan.buffers.size(); ++r) {
        if (starts[r].empty())
          continue;
        if (placed[r]) {
          placed[r] = false;
          changed = true;
        }
        std::sort(starts[r].begin(), starts[r].end());
        for (size_t i = 1; i < starts[r].size(); ++i) {
          uint32_t before = starts[r][i - 1].second, after = starts[r][i].second;
          if (starts[r][i - 1].first + plan.buffers[before].elements >
              starts[r][i].first) {
            placed[before] = placed[after] = false;
            changed = true;
          }
        }
      }
      for (uint32_t s = 0; s < plan.buffers.size(); ++s) {
        if (!placed[s])
          continue;
        bool keep = true;
        for (size_t c : bySource[s])
          keep &= out[copies[c].kernel];
        keep = keep && rangeUntouched(s, copies, bySource[s], out);
        if (!keep) {
          placed[s] = false;
          changed = true;
        }
      }
      if (!changed) {
        for (uint32_t s = 0; s < plan.buffers.size(); ++s) {
          if (!placed[s])
            continue;
          const Copy &c = copies[bySource[s].front()];
          a.holder[s] = c.result;
          a.offset[s] = uint64_t(int64_t(c.from) + c.shift);
          takenInto[c.result] = true;
        }
        for (size_t k = 0; k < kernels; ++k)
          if (out[k])
            a.leftOut[k] = true;
      }
    }
  }

  /// Whether source `s` is a scratch buffer written whole by one kernel
  /// and read only by its copies, which all go into one result at one
  /// shift and together copy each element once.
  bool copiedWhole(uint32_t s, const std::vector<Copy> &copies,
                   const std::vector<size_t> &mine) {
    const PlanBufferInfo &buffer = plan.buffers[s];
    const Copy &first = copies[mine.front()];
    if (buffer.origin != PlanBufferInfo::Origin::Scratch || buffer.root != s ||
        a.holder[s] != s || takenInto[s] || first.result == s ||
        a.holder[first.result] != first.result || takenInto[first.result])
      return false;
    size_t writer = lives.first[s], last = lives.last[s];
    if (writer >= kernels || last >= kernels ||
        plan.buffers[plan.kernels[writer].result].root != s ||
        !plan.kernels[writer].fills)
      return false;
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    std::vector<size_t> copiers;
    for (size_t c : mine) {
      const Copy &copy = copies[c];
      if (copy.result != first.result || copy.shift != first.shift ||
          copy.kernel <= writer)
        return false;
      ranges.emplace_back(copy.from, copy.from + copy.count);
      copiers.push_back(copy.kernel);
    }
    std::sort(copiers.begin(), copiers.end());
    std::sort(ranges.begin(), ranges.end());
    uint64_t at = 0;
    for (const auto &[from, to] : ranges) {
      if (from != at)
        return false;
      at = to;
    }
    if (at != buffer.elements)
      return false;
    // After its writer, only its copies read it, and nothing writes it.
    for (size_t j = writer + 1; j <= last; ++j) {
      const PlanKernelInfo &k = plan.kernels[j];
      if (plan.buffers[k.result].root == s ||
          (readsRoot(j, s) &&
           !std::binary_search(copiers.begin(), copiers.end(), j)))
        return false;
    }
    return true;
  }

  /// Whether, from source `s`'s writer to its last copy, nothing but the
  /// gathers left out (`out`) reads its result, and nothing writes the
  /// range it takes there: a gather kept writes other elements only, and
  /// any other kernel writes another root.
  bool rangeUntouched(uint32_t s, const std::vector<Copy> &copies,
                      const std::vector<size_t> &mine,
                      const std::vector<bool> &out) {
    const Copy &first = copies[mine.front()];
    uint32_t result = first.result;
    uint64_t from = uint64_t(first.shift), to = from + plan.buffers[s].elements;
    for (size_t j = lives.first[s]; j <= lives.last[s]; ++j) {
      if (out[j])
        continue;
      const PlanKernelInfo &k = plan.kernels[j];
      if (readsRoot(j, result))
        return false;
      if (plan.buffers[k.result].root != result)
        continue;
      if (k.kind != hetx::PLAN_GATHER)
        return false;
      for (const plan::IndexRun &run : k.runs) {
        uint64_t at = k.firstElement + run.offset;
        if (at < to && from < at + run.count)
          return false;
      }
    }
    return true;
  }

  /// Whether kernel `j` reads root `root`.
  bool readsRoot(size_t j, uint32_t root) const {
    return std::binary_search(roots[j].begin(), roots[j].end(), root);
  }

  const Plan &plan;
  const Placement &lives;
  size_t kernels;
  Aliases a;
  /// Per root: whether another root's elements live in its place (it is
  /// then not made to live in a third's).
  std::vector<bool> takenInto;
  /// Per kernel: the roots it reads (rootsRead).
  std::vector<std::vector<uint32_t>> roots;
};

} // namespace

Aliases noAliases(const Plan &plan) {
  Aliases a;
  a.holder.resize(plan.buffers.size());
  for (uint32_t i = 0; i < a.holder.size(); ++i)
    a.holder[i] = i;
  a.offset.assign(plan.buffers.size(), 0);
  a.leftOut.assign(plan.kernels.size(), false);
  return a;
}

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
