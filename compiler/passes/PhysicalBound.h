//===- PhysicalBound.h - The chip's physical limit for a program -*- C++
//-*-===//
//
// A bound on a program's cycles that no placement or schedule can beat on
// the published chip: the work the program's kernels must do, each part at
// the published peak rate of the unit that does it. It is independent of
// where buffers are placed (unlike the scheduler's lower bound, which
// starts from the program as placed), so the fraction of it a schedule
// reaches says how far the compiler is from the chip. The rates and their
// sources are in docs/performance.md ("The physical bound").
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_PASSES_PHYSICALBOUND_H
#define HETC_COMPILER_PASSES_PHYSICALBOUND_H

#include "runtime/chip/ChipSpec.h"

#include <cstdint>
#include <string>

namespace hetc {

/// What a program's kernels must do, whatever their placement.
struct KernelWork {
  /// Multiply-accumulates on the matrix unit by the width of the inputs:
  /// 8-bit integers, 16-bit floats, 32-bit floats.
  uint64_t macs8 = 0, macs16 = 0, macs32 = 0;
  /// Bytes installed into the matrix planes as weights.
  uint64_t installBytes = 0;
  /// Bytes the kernels read from and write to SRAM (each operand and
  /// result once, at its element width).
  uint64_t sramBytes = 0;
  /// Lane operations on the vector unit (one per element per operation).
  uint64_t vectorLaneOps = 0;

  KernelWork &operator+=(const KernelWork &other);
};

/// The physical bound and the term that sets it.
struct PhysicalBound {
  /// Cycles each unit needs at its published peak.
  uint64_t matrixCycles = 0, installCycles = 0, sramCycles = 0,
           vectorCycles = 0;
  /// The largest of the four.
  uint64_t cycles = 0;
  /// "matrix", "weight install", "SRAM" or "vector".
  const char *boundBy = "matrix";

  /// One line naming each term, for the compile summary.
  std::string describe() const;
};

/// Peak rates per cycle of `chip` (docs/performance.md): 8-bit MACs:
/// planes x rows x cols; 16- and 32-bit MACs that divided by
/// matrix.cycles_16bit and cycles_32bit (tsp-v1: 4, the published fp16
/// rate, and 12, fp32 as three bf16 passes).
/// Weight install: every stream of both directions carrying one byte per
/// lane. SRAM: every bank's access moving one byte per lane. Vector: every
/// ALU on every lane.
struct PeakRates {
  uint64_t macs8, macs16, macs32, installBytes, sramBytes, vectorLaneOps;
  static PeakRates of(const chip::ChipSpec &chip);
};

/// The bound for `work` on `chip`.
PhysicalBound physicalBound(const KernelWork &work, const chip::ChipSpec &chip);

} // namespace hetc

#endif // HETC_COMPILER_PASSES_PHYSICALBOUND_H
