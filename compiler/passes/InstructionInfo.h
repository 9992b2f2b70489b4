//===- InstructionInfo.h - What the chip says about an instruction -*- C++ -*-//
//
// The chip-file facts about one hisa instruction: the unit it issues on, that
// unit's floorplan position and issue limit, and its latency. The scheduler
// pass and the compile report both read instructions through this, so they
// agree on every figure.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_PASSES_INSTRUCTIONINFO_H
#define HETC_COMPILER_PASSES_INSTRUCTIONINFO_H

#include "compiler/dialects/hisa/IR/HIsa.h"
#include "runtime/chip/ChipSpec.h"

#include "mlir/IR/Operation.h"

#include <optional>
#include <string>
#include <vector>

namespace hetc {

struct InstructionInfo {
  /// Cycles from issue to the result on a stream, in SRAM or in a plane.
  int64_t latency = 0;
  /// Floorplan position of the unit; -1 for a DMA engine, which is not on
  /// the streams.
  int64_t position = 0;
  /// The issue resource: "slice3.bank1", "vector", "plane0", "switch1" or
  /// "dma0".
  std::string unit;
  /// Instructions that resource accepts per cycle.
  uint32_t capacity = 1;
  /// Cycles one instruction keeps its unit busy (a DMA engine moving a
  /// vector; 1 for the others).
  uint32_t occupancy = 1;
};

/// The scheduling resource of one bank of a MEM slice: "slice3.bank1". A
/// read, a write and a gather that share a bank must name it alike.
std::string bankResource(uint32_t slice, uint32_t bank);

/// One MEM_GATHER of a gather's chain: a slice holding rows of the table,
/// and the rows [rowBegin, rowEnd) it holds.
struct GatherBand {
  uint32_t slice = 0;
  int64_t position = 0;
  int64_t rowBegin = 0;
  int64_t rowEnd = 0;
};

/// The chain of `gather` (whose table checkInstruction has found inside
/// SRAM): one band per slice holding rows of its table, in increasing
/// slice order.
std::vector<GatherBand> gatherBands(hisa::GatherOp gather,
                                    const chip::ChipSpec &chip);

/// Checks that `op`'s address, plane or switch (and a permute's lane map)
/// fits `chip`; emits an error on
/// `op` otherwise. Ops that are not instructions pass.
mlir::LogicalResult checkInstruction(mlir::Operation *op,
                                     const chip::ChipSpec &chip);

/// The facts about `op`, which must have passed checkInstruction; nullopt
/// when `op` is not an instruction, or is a gather, which is a chain of
/// them (see gatherBands).
std::optional<InstructionInfo> describeInstruction(mlir::Operation *op,
                                                   const chip::ChipSpec &chip);

} // namespace hetc

#endif // HETC_COMPILER_PASSES_INSTRUCTIONINFO_H
