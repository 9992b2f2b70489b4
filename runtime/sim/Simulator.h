//===- Simulator.h - The cycle-accurate chip model --------------*- C++ -*-===//
//
// Runs a .hetx program on a chip description: checks every instruction and
// every timing rule of docs/isa.md, computes the fp32 results, and reports
// the cycles the program takes. A broken rule is an error (the chip has no
// interlocks), never a stall.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_SIMULATOR_H
#define HETC_RUNTIME_SIM_SIMULATOR_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/io/Tensor.h"
#include "runtime/schema/hetx.pb.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hetc::sim {

/// How much one functional unit was used.
struct UnitBusy {
  /// Instructions issued on the unit.
  uint64_t instructions = 0;
  /// Cycles in which the unit issued at least one instruction.
  uint64_t cycles = 0;
};

/// Figures from one simulation.
struct SimStats {
  /// max(cycle + latency) over all instructions; 0 for an empty program.
  uint64_t cycles = 0;
  /// Instructions executed.
  uint64_t instructions = 0;
  UnitBusy vector;
  /// One entry per MEM slice.
  std::vector<UnitBusy> slices;
  /// One entry per matrix plane.
  std::vector<UnitBusy> planes;
};

/// A tensor with the name of the artifact binding it belongs to.
struct NamedTensor {
  std::string name;
  io::Tensor tensor;
};

/// The outcome of a successful simulation.
struct SimResult {
  /// The artifact's outputs, in binding order, read from SRAM at the end.
  std::vector<NamedTensor> outputs;
  SimStats stats;
};

/// Simulates `artifact` on `chip` with `inputs` (one per artifact input, by
/// name, with the binding's shape). Returns false and sets `error` when the
/// artifact was built for another chip, an instruction or binding is
/// invalid, an input is missing or misshapen, or a timing rule is broken.
/// Rule violations read
///   hazard: <kind> at cycle <c>: instruction #<i> <OPCODE> on <unit>
///   (node '<name>'): <details>
/// and the simulation stops at the first one.
bool simulate(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
              const std::map<std::string, io::Tensor> &inputs,
              SimResult &result, std::string &error);

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_SIMULATOR_H
