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

/// A scalar f32 constant.
Value scalar(PatternRewriter &rewriter, Location loc, float value) {
  auto type = RankedTensorType::get({}, rewriter.getF32Type());
  return ConstantOp::create(rewriter, loc, DenseElementsAttr::get(type, value));
}

/// LeakyRelu(x) = x for x >= 0, alpha * x otherwise: max(x, alpha * x) for
/// alpha <= 1 and min(x, alpha * x) for alpha > 1, which is exact since
/// the selected product is the one ONNX computes.
struct DecomposeLeakyRelu : OpRewritePattern<LeakyReluOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LeakyReluOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "only f32");
    Location loc = op.getLoc();
    float alpha = op.getAlpha().convertToFloat();
    Value scaled = MulOp::create(rewriter, loc, op.getType(), op.getInput(),
                                 scalar(rewriter, loc, alpha));
    if (alpha <= 1.0f)
      rewriter.replaceOpWithNewOp<MaxOp>(op, op.getType(), op.getInput(),
                                         scaled);
    else
      rewriter.replaceOpWithNewOp<MinOp>(op, op.getType(), op.getInput(),
                                         scaled);
    return success();
  }
};

/// Clip(x, lo, hi) = min(max(x, lo), hi), the order ONNX defines.
struct DecomposeClip : OpRewritePattern<ClipOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ClipOp op,
                                PatternRewriter &rewriter) const override {
    Value result = op.getInput();
    if (Value lo = op.getMin())
      result = MaxOp::create(rewriter, op.getLoc(), op.getType(), result, lo);
    if (Value hi = op.getMax())
      result = MinOp::create(rewriter, op.getLoc(), op.getType(), result, hi);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Gelu: 0.5 * x * (1 + erf(x / sqrt(2))), or with approximate = "tanh"
/// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
struct DecomposeGelu : OpRewritePattern<GeluOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GeluOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "only f32");
    Location loc = op.getLoc();
    Type type = op.getType();
    Value x = op.getInput();
    auto mul = [&](Value a, Value b) {
      return MulOp::create(rewriter, loc, type, a, b);
    };
    Value inner;
    if (op.getApproximate() == "tanh") {
      Value cube = mul(mul(x, x), x);
      Value poly = AddOp::create(rewriter, loc, type, x,
                                 mul(cube, scalar(rewriter, loc, 0.044715f)));
      inner = TanhOp::create(
          rewriter, loc,
          mul(poly, scalar(rewriter, loc, 0.7978845608028654f)));
    } else {
      inner = ErfOp::create(
          rewriter, loc,
          mul(x, scalar(rewriter, loc, 0.7071067811865476f)));
    }
    Value onePlus =
        AddOp::create(rewriter, loc, type, inner, scalar(rewriter, loc, 1.0f));
    rewriter.replaceOp(op, mul(mul(x, scalar(rewriter, loc, 0.5f)), onePlus));
    return success();
  }
};

/// LayerNormalization and RMSNormalization as reductions over the
/// normalised dimensions and elementwise ops, in ONNX's order of
/// operations: (x - mean) / sqrt(var + eps) * scale + bias, and
/// x / sqrt(mean(x^2) + eps) * scale.
template <typename NormOp, bool centred>
struct DecomposeNorm : OpRewritePattern<NormOp> {
  using OpRewritePattern<NormOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(NormOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "only f32");
    Location loc = op.getLoc();
    int64_t rank = type.getRank(), axis = int64_t(op.getAxis());
    if (axis < 0)
      axis += rank;
    SmallVector<int64_t> axes, kept(type.getShape());
    for (int64_t d = axis; d < rank; ++d) {
      axes.push_back(d);
      kept[d] = 1;
    }
    auto keptType = RankedTensorType::get(kept, type.getElementType());
    auto mean = [&](Value v) -> Value {
      return ReduceOp::create(
          rewriter, loc, keptType,
          ReduceKindAttr::get(rewriter.getContext(), ReduceKind::mean), v,
          rewriter.getDenseI64ArrayAttr(axes), rewriter.getBoolAttr(true));
    };
    auto mul = [&](Value a, Value b) -> Value {
      return MulOp::create(rewriter, loc, type, a, b);
    };
    Value x = op.getInput();
    Value centredX =
        centred ? SubOp::create(rewriter, loc, type, x, mean(x)).getResult()
                : x;
    Value meanSquare =
        ReduceOp::create(
            rewriter, loc, keptType,
            ReduceKindAttr::get(rewriter.getContext(), ReduceKind::mean),
            MulOp::create(rewriter, loc, type, centredX, centredX),
            rewriter.getDenseI64ArrayAttr(axes), rewriter.getBoolAttr(true));
    Value epsilon = scalar(rewriter, loc, op.getEpsilon().convertToFloat());
    Value denominator = SqrtOp::create(
        rewriter, loc,
        AddOp::create(rewriter, loc, keptType, meanSquare, epsilon));
    Value result = mul(DivOp::create(rewriter, loc, type, centredX, denominator),
                       op.getScale());
    if (Value bias = op.getBias())
      result = AddOp::create(rewriter, loc, type, result, bias);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct HGraphDecomposePass
    : hetc::impl::HGraphDecomposeBase<HGraphDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeGemm, DecomposeLeakyRelu, DecomposeClip,
                 DecomposeGelu, DecomposeNorm<LayerNormOp, true>,
                 DecomposeNorm<RMSNormOp, false>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
