//===- DecomposeNegatedConcat.cpp - Signs out of a concatenation -------===//
//
// The pattern of `hetc-hgraph-decompose` for an `hgraph.concat` of negated
// float tensors: the concatenation of the tensors themselves, times a
// constant of signs along the axis (-1 where an operand was negated). A
// rotary embedding's rotate_half, concat(-x2, x1) of two slices of one
// tensor, then becomes a single move of that tensor (the slices' and the
// concatenation's gathers fuse, hetc-htile-fuse-gathers) and one product,
// where the negation stood between two moves, each a round trip to a
// switch unit of the chip.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/DecomposePatterns.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

namespace {

struct DecomposeNegatedConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto element = dyn_cast<FloatType>(type.getElementType());
    if (!element || !llvm::any_of(op.getInputs(), [](Value input) {
          return input.getDefiningOp<NegOp>();
        }))
      return failure();
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis();
    SmallVector<Value> inputs;
    SmallVector<APFloat> signs;
    for (Value input : op.getInputs()) {
      auto neg = input.getDefiningOp<NegOp>();
      inputs.push_back(neg ? neg.getInput() : input);
      int64_t length = cast<RankedTensorType>(input.getType()).getDimSize(axis);
      APFloat sign(neg ? -1.0 : 1.0);
      bool lost = false;
      sign.convert(element.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                   &lost);
      signs.append(size_t(length), sign);
    }
    SmallVector<int64_t> signShape(size_t(rank), 1);
    signShape[size_t(axis)] = type.getDimSize(axis);
    Location loc = op.getLoc();
    Value joined =
        ConcatOp::create(rewriter, loc, type, inputs, op.getAxisAttr());
    Value constant = ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(RankedTensorType::get(signShape, element),
                               signs));
    rewriter.replaceOpWithNewOp<MulOp>(op, type, joined, constant);
    return success();
  }
};

} // namespace

void hetc::populateDecomposeNegatedConcatPatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeNegatedConcat>(patterns.getContext());
}
