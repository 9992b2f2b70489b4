//===- DecomposeTrilu.cpp - Trilu as a selection by a constant mask ---===//
//
// The pattern of `hetc-hgraph-decompose` for `hgraph.trilu`: which
// elements stay depends only on their row and column, so the mask is a
// constant [rows, cols] boolean tensor, broadcast over the leading
// dimensions by a where that fills the rest with zeros.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/DecomposePatterns.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

namespace {

struct DecomposeTrilu : OpRewritePattern<TriluOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TriluOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
    int64_t k = op.getK();
    SmallVector<bool> keep;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        keep.push_back(op.getUpper() ? c - r >= k : c - r <= k);
    Location loc = op.getLoc();
    Value mask = ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(
            RankedTensorType::get({rows, cols}, rewriter.getI1Type()),
            ArrayRef<bool>(keep)));
    Value zero = ConstantOp::create(
        rewriter, loc,
        cast<DenseElementsAttr>(rewriter.getZeroAttr(
            RankedTensorType::get({}, type.getElementType()))));
    rewriter.replaceOpWithNewOp<WhereOp>(op, type, mask, op.getInput(), zero);
    return success();
  }
};

} // namespace

void hetc::populateDecomposeTriluPatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeTrilu>(patterns.getContext());
}
