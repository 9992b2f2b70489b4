//===- AxisProduct.h - A constant linear map along one dimension -*- C++ -*-===//
//
// Resampling and zero-stuffing along one dimension are linear maps with
// constant [in, out] matrices; on the chip they are matmuls with constant
// weights. This helper moves the dimension last, flattens the others into
// rows, multiplies and undoes the moves.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_PASSES_AXISPRODUCT_H
#define HETC_COMPILER_PASSES_AXISPRODUCT_H

#include "mlir/IR/PatternMatch.h"

namespace hetc {

/// `x` (float elements) with dimension `axis` of size `in` mapped to size
/// `out`: result[..., o, ...] = sum_i x[..., i, ...] * matrix[i * out + o]
/// (+ bias[o] where `bias` is not empty and not all zeros).
mlir::Value multiplyAlongAxis(mlir::PatternRewriter &rewriter,
                              mlir::Location loc, mlir::Value x, int64_t axis,
                              llvm::ArrayRef<double> matrix, int64_t out,
                              llvm::ArrayRef<double> bias = {});

} // namespace hetc

#endif // HETC_COMPILER_PASSES_AXISPRODUCT_H
