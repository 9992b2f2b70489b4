//===- Synthetic.h - TSP-like synthetic scheduling problems ----*- C++ -*-===//

#ifndef HETC_COMPILER_SCHEDULER_SYNTHETIC_H
#define HETC_COMPILER_SCHEDULER_SYNTHETIC_H

#include "compiler/scheduler/Problem.h"

#include <cstdint>

namespace hetc::sched {

/// The chip a synthetic program targets. The floorplan is laid out as in
/// chips/*.chip: half the matrix planes, a switch, half the MEM slices, the
/// vector unit, the other slices, a switch, the other planes.
struct SyntheticChip {
  uint32_t slices = 88;
  uint32_t banksPerSlice = 2;
  uint32_t vectorAlus = 16;
  uint32_t planes = 4;
  uint32_t streamGroups = 8;
  int64_t hopCycles = 1;
  int64_t memRead = 2, memWrite = 2, vectorOp = 4, matrixLoad = 2,
          matrixMul = 20;

  /// The published first-generation TSP (chips/tsp-v1.chip).
  static SyntheticChip tspV1() { return {}; }
  /// The small test chip (chips/test-chip.chip).
  static SyntheticChip testChip() { return {8, 2, 4, 2, 8, 1, 1, 1, 2, 1, 4}; }
};

/// What a synthetic program holds.
struct SyntheticOptions {
  /// Ops to generate; the program stops at the first block that reaches it.
  size_t numOps = 10000;
  /// Seed of the deterministic generator.
  uint64_t seed = 1;
  /// Percentage of blocks that are matmul blocks (the rest are elementwise
  /// read -> vector -> write chains).
  uint32_t matmulPercent = 30;
  /// Distinct SRAM addresses used; fewer addresses mean more dependences.
  uint32_t addresses = 4096;
};

/// Builds a TSP-like program: elementwise chains (two reads feeding a vector
/// op, sometimes a second vector op, then a write) and matmul blocks (weight
/// rows read and loaded into a plane, then inputs read, multiplied and
/// written), with read-after-write, write-after-read and write-after-write
/// dependences through SRAM addresses and weight-load hazards per plane.
Problem buildSyntheticProblem(const SyntheticChip &chip,
                              const SyntheticOptions &options);

} // namespace hetc::sched

#endif // HETC_COMPILER_SCHEDULER_SYNTHETIC_H
