//===- ChipLoader.h - The chip description for passes ----------*- C++ -*-===//
#ifndef HETC_COMPILER_PASSES_CHIPLOADER_H
#define HETC_COMPILER_PASSES_CHIPLOADER_H

#include "compiler/dialects/hisa/IR/BufferLayout.h"
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

} // namespace hetc

#endif // HETC_COMPILER_PASSES_CHIPLOADER_H
