//===- BufferLayout.h - How a buffer's vectors lie in SRAM ------*- C++ -*-===//
//
// The layout rule every stage shares (docs/isa.md, "Native width"): a
// buffer's rows are padded to whole vectors, and vectors of a type narrower
// than 32 bits share SRAM rows. Memory planning sizes buffers by it, the
// htile to hisa expansion addresses vectors by it, and the emitter binds
// inputs and outputs by it.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_DIALECTS_HISA_IR_BUFFERLAYOUT_H
#define HETC_DIALECTS_HISA_IR_BUFFERLAYOUT_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>

namespace hetc {

/// Layout of a buffer of `shape` on `chip`: rows, row length, vectors/row,
/// and how many of its vectors share an SRAM row (docs/isa.md, "Native
/// width": 1 for 32-bit types, 2 for 16-bit and 4 for 8-bit ones).
struct BufferLayout {
  int64_t rows = 1;
  int64_t cols = 1;
  int64_t vectorsPerRow = 1;
  int64_t perSramRow = 1;
  int64_t vectors() const { return rows * vectorsPerRow; }
  /// The SRAM rows the buffer takes.
  int64_t sramRows() const { return (vectors() + perSramRow - 1) / perSramRow; }
  /// Where vector `v` of the buffer is, placed from row `base`, as an SRAM
  /// word (a quarter row): `row * 4 + part * width`.
  int64_t word(int64_t base, int64_t v) const {
    return base * 4 + v * (4 / perSramRow);
  }
  /// The SRAM rows from the buffer's first to the start of its row `row`
  /// (a view of rows from there, htile.view `rows`); nullopt when that row
  /// starts inside an SRAM row (narrow vectors share rows).
  std::optional<int64_t> sramRowsBefore(int64_t row) const {
    int64_t v = row * vectorsPerRow;
    if (v % perSramRow)
      return std::nullopt;
    return v / perSramRow;
  }
};
/// The layout of 32-bit elements of `shape` (one vector a row).
BufferLayout layoutOf(llvm::ArrayRef<int64_t> shape, uint32_t lanes);
/// The layout of a buffer or tensor of `type`, packed at its native width.
BufferLayout layoutOf(mlir::ShapedType type, uint32_t lanes);
/// The part of its row taken by the vector of `laneType` lanes at SRAM
/// `word` (BufferLayout::word): the word's quarter of the row counted in
/// the type's width. The row is `word / 4`.
int64_t partOfWord(int64_t word, mlir::Type laneType);

} // namespace hetc

#endif // HETC_DIALECTS_HISA_IR_BUFFERLAYOUT_H
