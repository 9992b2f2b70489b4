//===- RewriteHelpers.h - hgraph building blocks of rewrites -----*- C++ -*-===//
//
// Small hgraph constructions that several hetc-hgraph-decompose patterns
// need: a tensor type of another shape, a reshape that is skipped when the
// shape already matches, and a transpose moving one dimension last.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_PASSES_REWRITEHELPERS_H
#define HETC_COMPILER_PASSES_REWRITEHELPERS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

namespace hetc {

/// A tensor type of `shape` with `like`'s element type.
mlir::RankedTensorType withShape(mlir::Value like,
                                 llvm::ArrayRef<int64_t> shape);

/// `v` reshaped to `shape` (`v` itself when it has that shape).
mlir::Value reshapeTo(mlir::PatternRewriter &rewriter, mlir::Location loc,
                      mlir::Value v, llvm::ArrayRef<int64_t> shape);

/// `v` with dimension `axis` moved last, the others in order (`v` itself
/// when `axis` is already last).
mlir::Value moveAxisLast(mlir::PatternRewriter &rewriter, mlir::Location loc,
                         mlir::Value v, int64_t axis);

} // namespace hetc

#endif // HETC_COMPILER_PASSES_REWRITEHELPERS_H
