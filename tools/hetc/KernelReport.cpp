//===- KernelReport.cpp - Per-kernel cycles of a scheduled program ----===//

#include "tools/hetc/KernelReport.h"

#include "compiler/codegen/HetxEmitter.h"
#include "compiler/passes/InstructionInfo.h"

#include "llvm/Support/Format.h"

#include <map>

using namespace mlir;

namespace hetc {

std::vector<KernelStats> collectKernelStats(func::FuncOp func,
                                            const chip::ChipSpec &chip) {
  struct Accumulator {
    KernelStats stats;
    std::map<std::string, std::pair<int64_t, uint32_t>> unitUses;
  };
  std::map<std::string, Accumulator> byNode;
  for (Operation &op : func.getBody().front()) {
    auto cycle = op.getAttrOfType<IntegerAttr>("cycle");
    std::optional<InstructionInfo> info = describeInstruction(&op, chip);
    if (!cycle || !info)
      continue;
    std::string node = codegen::nodeNameOf(op.getLoc());
    if (node.empty())
      node = "(no node)";
    Accumulator &acc = byNode[node];
    KernelStats &s = acc.stats;
    int64_t issue = cycle.getInt();
    if (s.instructions == 0) {
      s.node = node;
      s.first = issue;
    }
    ++s.instructions;
    s.first = std::min(s.first, issue);
    s.end = std::max(s.end, issue + info->latency);
    auto &[uses, capacity] = acc.unitUses[info->unit];
    uses += info->occupancy;
    capacity = info->capacity;
  }
  std::vector<KernelStats> kernels;
  for (auto &[node, acc] : byNode) {
    for (auto &[unit, usage] : acc.unitUses) {
      int64_t cycles = (usage.first + usage.second - 1) / usage.second;
      if (cycles > acc.stats.busiestCycles) {
        acc.stats.busiestCycles = cycles;
        acc.stats.busiestUnit = unit;
      }
    }
    kernels.push_back(acc.stats);
  }
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const KernelStats &a, const KernelStats &b) {
                     return a.first < b.first;
                   });
  return kernels;
}

void printKernels(ArrayRef<KernelStats> kernels, raw_ostream &os) {
  for (const KernelStats &k : kernels)
    os << "    " << k.node << ": cycles " << k.first << "-" << k.end << " ("
       << k.span() << "), " << k.instructions << " instructions, busiest unit "
       << k.busiestUnit << " " << k.busiestCycles << " cycles ("
       << llvm::format("%.1f%%", 100.0 * k.efficiency()) << " of the span)\n";
}

} // namespace hetc
