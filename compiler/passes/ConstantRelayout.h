//===- ConstantRelayout.h - Constants laid out again for the chip -*- C++ -*-===//
//
// What the htile passes that hold a constant in another layout share
// (hetc-htile-transpose-weights, -pack-columns, -interleave-weights): the
// constants of a function, collected before any is replaced, and the
// replacement of one by its new layout, each use retargeted.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_PASSES_CONSTANTRELAYOUT_H
#define HETC_COMPILER_PASSES_CONSTANTRELAYOUT_H

#include "compiler/dialects/htile/IR/HTile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace hetc::relayout {

/// The htile.constant ops of `func`, in order.
llvm::SmallVector<htile::ConstantOp> constantsOf(mlir::func::FuncOp func);

/// Replaces `constant` by a constant of `type` holding `value`, where it
/// is and with its address. Each use reads what `retarget` gives for it
/// and the replacement (which may also mark the using op); without
/// `retarget`, the replacement. Erases `constant`.
void replaceConstant(
    htile::ConstantOp constant, mlir::MemRefType type,
    mlir::DenseElementsAttr value,
    llvm::function_ref<mlir::Value(mlir::OpOperand &, mlir::Value)> retarget =
        nullptr);

} // namespace hetc::relayout

#endif // HETC_COMPILER_PASSES_CONSTANTRELAYOUT_H
