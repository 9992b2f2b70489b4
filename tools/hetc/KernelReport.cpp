//===- KernelReport.cpp - Per-kernel cycles of a scheduled program ----===//

#include "tools/hetc/KernelReport.h"

#include "compiler/codegen/HetxEmitter.h"
#include "compiler/dialects/hisa/IR/HIsa.h"

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
  auto count = [&](Operation &op, int64_t issue, const hisa::IssueInfo &info) {
    std::string node = codegen::nodeNameOf(op.getLoc());
    if (node.empty())
      node = "(no node)";
    Accumulator &acc = byNode[node];
    KernelStats &s = acc.stats;
    if (s.instructions == 0) {
      s.node = node;
      s.first = issue;
    }
    ++s.instructions;
    s.first = std::min(s.first, issue);
    s.end = std::max(s.end, issue + info.latency);
    auto &[uses, capacity] = acc.unitUses[info.unit];
    uses += info.occupancy;
    capacity = info.capacity;
  };
  int64_t hop = chip.proto().streams().hop_cycles();
  for (Operation &op : func.getBody().front()) {
    auto inst = dyn_cast<hisa::InstructionOpInterface>(op);
    IntegerAttr cycle = inst ? inst.getIssueCycleAttr() : IntegerAttr();
    if (!cycle)
      continue;
    // A gather or scatter is one instruction per slice of its table, each
    // taking its slice's ports, the farthest issuing last.
    std::vector<hisa::GatherBand> bands;
    int64_t latency = 0;
    if (auto gather = dyn_cast<hisa::GatherOp>(op)) {
      bands = gather.getBands(chip);
      latency = chip.proto().latency().mem_read();
    } else if (auto scatter = dyn_cast<hisa::ScatterOp>(op)) {
      bands = scatter.getBands(chip);
      latency = chip.proto().latency().mem_write();
    }
    if (!bands.empty()) {
      int64_t span = (bands.back().position - bands.front().position) * hop;
      for (const hisa::GatherBand &band : bands)
        count(op, cycle.getInt(),
              hisa::IssueInfo{latency + span, 0,
                              "slice" + std::to_string(band.slice), 1});
      continue;
    }
    if (std::optional<hisa::IssueInfo> info = inst.describe(chip))
      count(op, cycle.getInt(), *info);
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
