//===- RunSummary.cpp - Utilisation and SRAM lines of `hetc run` -------===//

#include "runtime/run/RunSummary.h"

#include <cstdio>

namespace hetc::run {

std::string percent(uint64_t part, uint64_t whole) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f%%",
                whole ? 100.0 * double(part) / double(whole) : 0.0);
  return text;
}

namespace {
std::string busyText(uint64_t busy, uint64_t total) {
  return percent(busy, total) + " (" + std::to_string(busy) + " of " +
         std::to_string(total) + " cycles)";
}
} // namespace

void printUsage(std::ostream &out, const sim::SimStats &stats,
                const chip::ChipSpec &chip) {
  uint64_t total = stats.cycles;
  out << "utilisation: vector unit " << busyText(stats.vector.cycles, total)
      << "\n";
  for (size_t p = 0; p < stats.planes.size(); ++p)
    if (stats.planes[p].instructions)
      out << "utilisation: matrix plane " << p << " "
          << busyText(stats.planes[p].cycles, total) << "\n";
  for (size_t e = 0; e < stats.dma.size(); ++e)
    if (stats.dma[e].instructions)
      out << "utilisation: DMA engine " << e << " "
          << busyText(stats.dma[e].cycles, total) << "\n";
  for (size_t k = 0; k < stats.links.size(); ++k)
    if (stats.links[k].instructions)
      out << "utilisation: C2C link " << k << " "
          << busyText(stats.links[k].cycles, total) << "\n";
  for (size_t k = 0; k < stats.switches.size(); ++k)
    if (stats.switches[k].instructions)
      out << "utilisation: switch " << k << " "
          << busyText(stats.switches[k].cycles, total) << "\n";
  if (!stats.slices.empty()) {
    size_t busiest = 0;
    uint64_t sum = 0;
    for (size_t s = 0; s < stats.slices.size(); ++s) {
      sum += stats.slices[s].cycles;
      if (stats.slices[s].cycles > stats.slices[busiest].cycles)
        busiest = s;
    }
    out << "utilisation: MEM slices: busiest slice " << busiest << " "
        << busyText(stats.slices[busiest].cycles, total) << ", average "
        << percent(sum, total * stats.slices.size()) << "\n";
  }
  uint64_t bytes = stats.sramHighWater * chip.lanes() * chip::kElementBytes;
  out << "SRAM high-water: " << stats.sramHighWater << " vectors (" << bytes
      << " bytes), " << percent(stats.sramHighWater, chip.totalVectors())
      << " of " << chip.totalVectors() << " vectors\n";
}

} // namespace hetc::run
