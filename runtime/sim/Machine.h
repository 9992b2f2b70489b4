//===- Machine.h - Executes a decoded program cycle by cycle ----*- C++ -*-===//
//
// The chip model's core: issues each instruction at its cycle, enforces the
// timing rules of docs/isa.md (streams, SRAM, weights, ports and issue
// limits) and computes the fp32 results (unless asked for timing only).
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_MACHINE_H
#define HETC_RUNTIME_SIM_MACHINE_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/sim/HazardText.h"
#include "runtime/sim/HostMemory.h"
#include "runtime/sim/Program.h"
#include "runtime/sim/Simulator.h"
#include "runtime/sim/Sram.h"
#include "runtime/sim/StreamNetwork.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hetc::sim {

/// Runs a decoded program against an SRAM that already holds the inputs
/// and constants.
class Machine {
public:
  Machine(const chip::ChipSpec &chip, const HazardText &text,
          const std::vector<Op> &ops, Sram &sram, HostMemory &host,
          const SimOptions &options);

  /// Executes every instruction. Returns false with a hazard message in
  /// `error` at the first broken rule; fills `stats` otherwise.
  bool run(SimStats &stats, std::string &error);

private:
  /// Per-cycle use of one unit, reset when the cycle changes.
  struct Issue {
    int64_t cycle = -1;
    uint32_t count = 0;
    uint32_t first = 0;
  };
  struct Plane {
    Issue issue;
    /// lanes x lanes, allocated when first used; all zero at start.
    std::vector<float> weights;
    /// The latest weight load: when it stores and which instruction it is.
    int64_t loadStoredAt = -1;
    uint32_t loader = 0;
    /// The element type of the latest weight load (F32 before any) and
    /// the instruction that made it.
    io::ElementType weightType = io::ElementType::F32;
    bool typed = false;
    uint32_t typedBy = 0;
  };

  bool execute(uint32_t index, int64_t cycle);
  void compute(const Op &op, const float *const *src);
  float *weightsOf(uint32_t plane);
  bool claimUnit(const Op &op, uint32_t index, int64_t cycle);
  const float *readStream(const Op &op, uint32_t index, int which,
                          int64_t cycle);
  bool checkTypes(const Op &op, uint32_t index, int which, int64_t cycle,
                  uint32_t producer);
  bool checkWeightType(const Op &op, uint32_t index, int64_t cycle);
  bool checkSramRead(const Op &op, uint32_t index, int64_t cycle);
  bool executeDma(const Op &op, uint32_t index, int64_t cycle);
  bool checkCollisions(int64_t cycle);
  bool fail(const std::string &kind, int64_t cycle, uint32_t index,
            const std::string &details);
  void failRead(const Op &op, uint32_t index, int which, int64_t cycle,
                const float *value, uint32_t producer,
                const MissedRead &missed);
  static void countBusy(UnitBusy &busy, Issue &issue, int64_t cycle);

  const chip::ChipSpec &chip;
  const HazardText &text;
  const std::vector<Op> &ops;
  Sram &sram;
  HostMemory &host;
  const bool timingOnly;
  ExecutionObserver *const observer;
  StreamNetwork streams;
  uint32_t lanes;
  uint32_t banksPerSlice;
  uint32_t bankLimit;
  uint32_t alus;
  std::vector<Issue> banks;
  Issue vectorIssue;
  std::vector<uint32_t> vectorIssued;
  std::vector<Plane> planes;
  std::vector<Issue> sliceIssue;
  /// Per DMA engine: the cycle it is free again and the instruction that
  /// holds it until then.
  std::vector<std::pair<int64_t, uint32_t>> dmaBusy;
  uint32_t dmaCycles;
  std::vector<Issue> switchIssue;
  std::vector<float> result;
  SimStats stats;
  std::string error;
};

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_MACHINE_H
