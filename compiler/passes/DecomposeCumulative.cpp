//===- DecomposeCumulative.cpp - Running sums as shifted adds ---------===//
//
// The pattern of `hetc-hgraph-decompose` for `hgraph.cumulative`: a
// Hillis-Steele scan. After step k (k = 1, 2, 4, ...) element i holds the
// combination of elements i-2k+1..i, by combining each element with the
// one k before it (the first k combine with the identity, which a pad
// supplies). ceil(log2(n)) steps of slices, pads and adds (or multiplies),
// all of which the chip runs on any element type. `exclusive` shifts the
// result by one; `reverse` runs on the input flipped along the axis.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/DecomposePatterns.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

namespace {

struct DecomposeCumulative : OpRewritePattern<CumulativeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CumulativeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type element = type.getElementType();
    int64_t rank = type.getRank(), axis = int64_t(op.getAxis());
    int64_t n = type.getDimSize(axis);
    bool product = op.getKind() == ReduceKind::prod;
    Location loc = op.getLoc();
    Value identity = ConstantOp::create(
        rewriter, loc,
        cast<DenseElementsAttr>(
            product ? rewriter.getOneAttr(RankedTensorType::get({}, element))
                    : rewriter.getZeroAttr(RankedTensorType::get({}, element))));

    // x moved k places up along the axis, the first k the identity.
    auto shifted = [&](Value x, int64_t k) -> Value {
      SmallVector<int64_t> kept(type.getShape());
      kept[axis] = n - k;
      SmallVector<int64_t> zeros(rank, 0), ones(rank, 1);
      Value head = SliceOp::create(rewriter, loc,
                                   RankedTensorType::get(kept, element), x,
                                   rewriter.getDenseI64ArrayAttr(zeros),
                                   rewriter.getDenseI64ArrayAttr(ones));
      SmallVector<int64_t> pads(2 * rank, 0);
      pads[axis] = k;
      return PadOp::create(rewriter, loc, type, head, identity,
                           rewriter.getDenseI64ArrayAttr(pads),
                           rewriter.getStringAttr("constant"));
    };
    auto flip = [&](Value x) -> Value {
      SmallVector<int64_t> starts(rank, 0), steps(rank, 1);
      starts[axis] = n - 1;
      steps[axis] = -1;
      return SliceOp::create(rewriter, loc, type, x,
                             rewriter.getDenseI64ArrayAttr(starts),
                             rewriter.getDenseI64ArrayAttr(steps));
    };

    Value x = op.getInput();
    if (op.getReverse())
      x = flip(x);
    for (int64_t k = 1; k < n; k *= 2) {
      Value earlier = shifted(x, k);
      x = product ? MulOp::create(rewriter, loc, type, x, earlier).getResult()
                  : AddOp::create(rewriter, loc, type, x, earlier).getResult();
    }
    if (op.getExclusive())
      x = n > 1 ? shifted(x, 1)
                : Value(ExpandOp::create(rewriter, loc, type, identity));
    if (op.getReverse())
      x = flip(x);
    rewriter.replaceOp(op, x);
    return success();
  }
};

} // namespace

void hetc::populateDecomposeCumulativePatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeCumulative>(patterns.getContext());
}
