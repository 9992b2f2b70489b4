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
  // One line per unit of these kinds that issued anything.
  const std::pair<const char *, const std::vector<sim::UnitBusy> *> kinds[] = {
      {"matrix plane", &stats.planes},
      {"DMA engine", &stats.dma},
      {"C2C link", &stats.links},
      {"switch", &stats.switches}};
  for (const auto &[name, units] : kinds)
    for (size_t k = 0; k < units->size(); ++k)
      if ((*units)[k].instructions)
        out << "utilisation: " << name << " " << k << " "
            << busyText((*units)[k].cycles, total) << "\n";
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
  uint64_t capacity = chip.totalVectors() * chip.lanes() * chip::kElementBytes;
  out << "SRAM high-water: " << stats.sramHighWater << " bytes, "
      << percent(stats.sramHighWater, capacity) << " of " << capacity
      << " bytes\n";
}

} // namespace hetc::run
