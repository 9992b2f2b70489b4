//===- HGraphDecompose.cpp - Rewrite composite hgraph ops -------------===//

#include "compiler/passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hetc {
#define GEN_PASS_DEF_HGRAPHDECOMPOSE
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

namespace {

/// Gemm -> [transpose] matmul [mul alpha] [add (beta * C)].
struct DecomposeGemm : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto transpose = [&](Value v) -> Value {
      auto type = cast<RankedTensorType>(v.getType());
      auto transposed = RankedTensorType::get(
          {type.getDimSize(1), type.getDimSize(0)}, type.getElementType());
      return TransposeOp::create(rewriter, loc, transposed, v,
                                 rewriter.getDenseI64ArrayAttr({1, 0}));
    };
    auto scale = [&](Value v, float factor) -> Value {
      if (factor == 1.0f)
        return v;
      auto type = cast<RankedTensorType>(v.getType());
      auto scalar = RankedTensorType::get({}, type.getElementType());
      Value k = ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(scalar, factor));
      return MulOp::create(rewriter, loc, type, v, k);
    };

    Value a = op.getTransA() ? transpose(op.getA()) : op.getA();
    Value b = op.getTransB() ? transpose(op.getB()) : op.getB();
    Value result = MatMulOp::create(rewriter, loc, op.getType(), a, b);
    result = scale(result, op.getAlpha().convertToFloat());
    if (Value c = op.getC()) {
      if (op.getBeta().convertToFloat() != 0.0f)
        result = AddOp::create(rewriter, loc, op.getType(), result,
                               scale(c, op.getBeta().convertToFloat()));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct HGraphDecomposePass
    : hetc::impl::HGraphDecomposeBase<HGraphDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeGemm>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
