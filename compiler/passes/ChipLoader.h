//===- ChipLoader.h - The chip description for passes ----------*- C++ -*-===//
#ifndef HETC_COMPILER_PASSES_CHIPLOADER_H
#define HETC_COMPILER_PASSES_CHIPLOADER_H

#include "runtime/chip/ChipSpec.h"

#include "mlir/IR/Operation.h"

namespace hetc {

/// Loads the chip file named by a pass's `chip` option; on failure emits an
/// error on `op` naming the file and the problem.
mlir::FailureOr<chip::ChipSpec> loadChipForPass(mlir::Operation *op,
                                                llvm::StringRef path,
                                                llvm::StringRef passArg);

/// Layout of a buffer of `shape` on `chip`: rows, row length, vectors/row.
struct BufferLayout {
  int64_t rows = 1;
  int64_t cols = 1;
  int64_t vectorsPerRow = 1;
  int64_t vectors() const { return rows * vectorsPerRow; }
};
BufferLayout layoutOf(llvm::ArrayRef<int64_t> shape, uint32_t lanes);

} // namespace hetc

#endif // HETC_COMPILER_PASSES_CHIPLOADER_H
