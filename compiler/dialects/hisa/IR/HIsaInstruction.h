//===- HIsaInstruction.h - What an instruction is on a chip -----*- C++ -*-===//
//
// The values InstructionOpInterface (HIsaInterfaces.td) answers with: the
// unit an instruction issues on and its latency, the SRAM it touches, the
// plane or link whose order it joins, and a gather's chain of slices. The
// scheduler pass, the emitter and the compile report all read instructions
// through the interface, so they agree on every figure.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_DIALECTS_HISA_IR_HISAINSTRUCTION_H
#define HETC_DIALECTS_HISA_IR_HISAINSTRUCTION_H

#include "runtime/chip/ChipSpec.h"

#include "mlir/IR/Types.h"

#include <cstdint>
#include <string>
#include <utility>

namespace hetc::hisa {

/// Where and how long an instruction issues on a chip.
struct IssueInfo {
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
  /// vector, a plane multiplying 16- or 32-bit inputs; 1 for the others).
  uint32_t occupancy = 1;
};

/// An SRAM row read or written (MEM_READ/MEM_WRITE, DMA_OUT/DMA_IN), and
/// the part of it a vector narrower than 32-bit lanes takes.
struct MemoryAccess {
  int64_t row = 0;
  uint32_t part = 0;
  bool isWrite = false;
};

/// A matrix plane's weight load, install or matmul.
struct PlaneUse {
  enum Kind {
    /// A load into the plane's weight array (M_LOAD_WEIGHTS).
    Load,
    /// A load into its weight buffer (M_LOAD_WEIGHTS `buffered`), which
    /// leaves the array to its matmuls.
    BufferLoad,
    /// The buffer installed into the array (M_INSTALL_WEIGHTS).
    Install,
    /// A matmul by the array.
    Multiply,
  };
  int32_t plane = 0;
  Kind kind = Load;
  /// Whether the op writes the plane's weight array.
  bool writesArray() const { return kind == Load || kind == Install; }
};

/// A chip-to-chip send or receive.
struct LinkUse {
  int32_t link = 0;
  bool isSend = false;
};

/// One MEM_GATHER of a gather's chain: a slice holding rows of the table,
/// and the rows [rowBegin, rowEnd) from its first to its last. On a chip
/// whose addresses are interleaved over the slices, rows of other slices
/// lie between them; the instruction takes only its slice's.
struct GatherBand {
  uint32_t slice = 0;
  int64_t position = 0;
  int64_t rowBegin = 0;
  int64_t rowEnd = 0;
};

/// The SRAM word of the first vector of a gather's or scatter's table (row
/// `table`, `part` of it, vectors of `type`) and the words from one table
/// row of `stride` vectors to the next (docs/isa.md, "Native width"), in
/// unsigned arithmetic: verifyOnChip bounds them before other uses.
std::pair<uint64_t, uint64_t> tableWords(int64_t table, int32_t part,
                                         int64_t stride, mlir::Type type);

/// The SRAM word of issue `issue` of a read or write of row `address`,
/// `part` of it, vectors of `type`, in a train of `step` vectors between
/// issues (0 for an instruction that issues once); may lie outside SRAM
/// (verifyOnChip checks).
int64_t issueWord(int64_t address, int32_t part, mlir::Type type, int64_t step,
                  int64_t issue);

/// The scheduling resource of one bank of a MEM slice: "slice3.bank1". A
/// read, a write and a gather that share a bank must name it alike.
std::string bankResource(uint32_t slice, uint32_t bank);

} // namespace hetc::hisa

#endif // HETC_DIALECTS_HISA_IR_HISAINSTRUCTION_H
