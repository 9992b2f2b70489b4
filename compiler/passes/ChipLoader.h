//===- ChipLoader.h - The chip description for passes ----------*- C++ -*-===//
#ifndef HETC_COMPILER_PASSES_CHIPLOADER_H
#define HETC_COMPILER_PASSES_CHIPLOADER_H

#include "runtime/chip/ChipSpec.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"

namespace hetc {

/// The driver of the passes that need the chip: reads the module's chip
/// (its `hetc.chip` attribute), then runs `fn` on each function of
/// `module` (the list is taken first, so `fn` may replace or erase the
/// function it is given). Fails at the first function `fn` fails on.
mlir::LogicalResult forEachFunctionOnChip(
    mlir::ModuleOp module, llvm::StringRef passArg,
    llvm::function_ref<mlir::LogicalResult(mlir::func::FuncOp,
                                           const chip::ChipSpec &)>
        fn);

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
};
/// The layout of 32-bit elements of `shape` (one vector a row).
BufferLayout layoutOf(llvm::ArrayRef<int64_t> shape, uint32_t lanes);
/// The layout of a buffer or tensor of `type`, packed at its native width.
BufferLayout layoutOf(mlir::ShapedType type, uint32_t lanes);

} // namespace hetc

#endif // HETC_COMPILER_PASSES_CHIPLOADER_H
