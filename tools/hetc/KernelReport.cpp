//===- KernelReport.cpp - Per-kernel cycles of a scheduled program ----===//

#include "tools/hetc/KernelReport.h"

#include "compiler/codegen/HetxEmitter.h"
#include "compiler/dialects/hisa/IR/HIsa.h"

#include "llvm/Support/Format.h"

#include <algorithm>
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
  // A train (`repeat` issues, `every` apart) takes its unit at each issue.
  auto count = [&](Operation &op, int64_t issue, const hisa::IssueInfo &info,
                   int64_t repeat = 1, int64_t every = 0) {
    std::string node = nodeNameOf(op.getLoc());
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
    s.end = std::max(s.end, issue + (repeat - 1) * every + info.latency);
    auto &[uses, capacity] = acc.unitUses[info.unit];
    uses += int64_t(info.occupancy) * repeat;
    capacity = info.capacity;
  };
  int64_t hop = chip.proto().streams().hop_cycles();
  for (Operation &op : func.getBody().front()) {
    auto inst = dyn_cast<hisa::InstructionOpInterface>(op);
    IntegerAttr cycle = inst ? inst.getIssueCycleAttr() : IntegerAttr();
    if (!cycle)
      continue;
    // A gather or scatter is one instruction per slice of its table, each
    // taking its slice's ports: a gather's from the slice nearest its
    // index, a scatter's from the slices nearest the unit that sends its
    // pairs, one hop later a position farther.
    std::vector<hisa::GatherBand> bands;
    std::vector<int64_t> distances;
    int64_t latency = 0;
    if (auto gather = dyn_cast<hisa::GatherOp>(op)) {
      bands = gather.getBands(chip);
      latency = chip.proto().latency().mem_read();
      bool east = !gather.getStreamAttr() ||
                  gather.getStreamAttr().getDir() == hisa::Direction::east;
      int64_t from = east ? bands.front().position : bands.back().position;
      for (const hisa::GatherBand &band : bands)
        distances.push_back(std::abs(band.position - from));
    } else if (auto scatter = dyn_cast<hisa::ScatterOp>(op)) {
      bands = scatter.getBands(chip);
      latency = chip.proto().latency().mem_write();
      auto source = dyn_cast_if_present<hisa::InstructionOpInterface>(
          scatter.getValues().front().getDefiningOp());
      std::optional<hisa::IssueInfo> unit =
          source ? source.describe(chip) : std::nullopt;
      int64_t from = unit ? unit->position : bands.front().position;
      for (const hisa::GatherBand &band : bands)
        distances.push_back(std::abs(band.position - from));
      int64_t nearest = *std::min_element(distances.begin(), distances.end());
      for (int64_t &d : distances)
        d -= nearest;
    }
    for (auto [band, distance] : llvm::zip(bands, distances))
      count(
          op, cycle.getInt() + distance * hop,
          hisa::IssueInfo{latency, 0, "slice" + std::to_string(band.slice), 1});
    if (!bands.empty())
      continue;
    hisa::TrainAttr train = inst.getTrain();
    if (std::optional<hisa::IssueInfo> info = inst.describe(chip))
      count(op, cycle.getInt(), *info, train ? train.getCount() : 1,
            train ? train.getEvery() : 0);
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
