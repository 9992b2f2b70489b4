//===- RunSummary.h - Utilisation and SRAM lines of `hetc run` --*- C++ -*-===//
#ifndef HETC_RUNTIME_RUN_RUNSUMMARY_H
#define HETC_RUNTIME_RUN_RUNSUMMARY_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/sim/Simulator.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace hetc::run {

/// `part` as a percentage of `whole` with one decimal, e.g. "12.5%"; "0.0%"
/// when `whole` is 0.
std::string percent(uint64_t part, uint64_t whole);

/// Prints the summary lines on unit use and SRAM:
///   utilisation: vector unit P% (B of C cycles)
///   utilisation: matrix plane N P% (B of C cycles)   (each plane used)
///   utilisation: MEM slices: busiest slice N P% (B of C cycles), average P%
///   SRAM high-water: V vectors (B bytes), P% of T vectors
/// where a unit's busy cycles are those in which it issues an instruction.
void printUsage(std::ostream &out, const sim::SimStats &stats,
                const chip::ChipSpec &chip);

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_RUNSUMMARY_H
