//===- DecomposeSoftmax.cpp - LogSoftmax and softmax on any axis ------===//
//
// The patterns of `hetc-hgraph-decompose` for the softmax family: the chip
// has a softmax kernel along the last axis only. Softmax along another
// axis is that kernel between two transposes; LogSoftmax is
// (x - max) - log(sum(exp(x - max))) with reductions over its axis, which
// hetc-hgraph-decompose lowers further when the axis is not the last.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/DecomposePatterns.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

namespace {

int64_t normalizedAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// softmax(x, axis) = transpose^-1(softmax(transpose(x), last)), the
/// transpose swapping `axis` and the last dimension.
struct SoftmaxToLastAxis : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    int64_t axis = normalizedAxis(int64_t(op.getAxis()), rank);
    if (axis == rank - 1)
      return rewriter.notifyMatchFailure(op, "already the last axis");
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[axis], perm[rank - 1]);
    SmallVector<int64_t> shape;
    for (int64_t d : perm)
      shape.push_back(type.getDimSize(d));
    auto swapped = RankedTensorType::get(shape, type.getElementType());
    Location loc = op.getLoc();
    Value x = TransposeOp::create(rewriter, loc, swapped, op.getInput(),
                                  rewriter.getDenseI64ArrayAttr(perm));
    Value y = SoftmaxOp::create(rewriter, loc, x,
                                rewriter.getI64IntegerAttr(rank - 1));
    // Swapping two dimensions is its own inverse.
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, type, y, rewriter.getDenseI64ArrayAttr(perm));
    return success();
  }
};

/// log_softmax(x, axis) = (x - m) - log(sum(exp(x - m), axis)), with
/// m = max(x, axis) kept as a unit dimension.
struct DecomposeLogSoftmax : OpRewritePattern<LogSoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LogSoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    int64_t axis = normalizedAxis(int64_t(op.getAxis()), rank);
    SmallVector<int64_t> kept(type.getShape());
    kept[axis] = 1;
    auto keptType = RankedTensorType::get(kept, type.getElementType());
    Location loc = op.getLoc();
    auto reduce = [&](ReduceKind kind, Value v) -> Value {
      return ReduceOp::create(rewriter, loc, keptType,
                              ReduceKindAttr::get(rewriter.getContext(), kind),
                              v, rewriter.getDenseI64ArrayAttr({axis}),
                              rewriter.getBoolAttr(true));
    };
    Value x = op.getInput();
    Value max = reduce(ReduceKind::max, x);
    Value shifted = SubOp::create(rewriter, loc, type, x, max);
    Value sum = reduce(ReduceKind::sum, ExpOp::create(rewriter, loc, shifted));
    Value logSum = LogOp::create(rewriter, loc, sum);
    rewriter.replaceOpWithNewOp<SubOp>(op, type, shifted, logSum);
    return success();
  }
};

} // namespace

void hetc::populateDecomposeSoftmaxPatterns(RewritePatternSet &patterns) {
  patterns.add<SoftmaxToLastAxis, DecomposeLogSoftmax>(patterns.getContext());
}
