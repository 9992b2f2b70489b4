//===- HGraphFuseQuantized.cpp - Quantised (QDQ) convolutions in int8 ----===//
//
// A quantised model in ONNX's QDQ form (what onnxruntime's quantize_static
// writes) spells an int8 convolution as a float one between
// DequantizeLinear and QuantizeLinear nodes. This pass gives the matrix unit
// the int8 product: a convolution of a dequantised int8 activation (one
// scale, zero point 0) by a dequantised int8 constant weight (a scale per
// output channel or one, zero point 0) becomes an integer convolution
// (int8 x int8, exact i32 sums) whose sums are scaled by the product of the
// scales and get the bias in f32. A ReLU between a QuantizeLinear and the
// DequantizeLinear that undoes it moves before the quantisation, and a
// QuantizeLinear of a DequantizeLinear with the same parameters is the
// integers themselves. Dequantised constants nothing fused are folded.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hetc {
#define GEN_PASS_DEF_HGRAPHFUSEQUANTIZED
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

namespace {

/// Whether `t` is an 8-bit integer type, signed or not.
bool isByte(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && i.getWidth() == 8;
}

/// Whether the optional zero point `zero` is absent or a constant of zeros.
bool isZeroOrAbsent(Value zero) {
  if (!zero)
    return true;
  DenseElementsAttr dense;
  return matchPattern(zero, m_Constant(&dense)) &&
         dense.getElementType().isIntOrIndex() &&
         llvm::all_of(dense.getValues<APInt>(),
                      [](const APInt &v) { return v.isZero(); });
}

/// The f32 values of the constant `v`, or nothing.
std::optional<SmallVector<float>> f32Constant(Value v) {
  DenseElementsAttr dense;
  if (!matchPattern(v, m_Constant(&dense)) || !dense.getElementType().isF32())
    return std::nullopt;
  return SmallVector<float>(dense.getValues<float>());
}

/// Whether two optional parameters are the same constant (or both absent).
bool sameParameter(Value a, Value b) {
  if (!a || !b)
    return !a && !b;
  if (a == b)
    return true;
  DenseElementsAttr x, y;
  return matchPattern(a, m_Constant(&x)) && matchPattern(b, m_Constant(&y)) &&
         x == y;
}

/// conv(dequantize(xq, sx), dequantize(wq, sw), bias) with int8 xq (one
/// scale), an int8 constant wq (a scale per output channel, or one) and
/// zero points 0: an integer convolution of xq by wq, its i32 sums cast to
/// f32, times sx * sw per channel, plus the bias.
struct QuantizedConv : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!type.getElementType().isF32() || type.getRank() < 3)
      return rewriter.notifyMatchFailure(op, "not an f32 convolution");
    auto x = op.getInput().getDefiningOp<DequantizeLinearOp>();
    auto w = op.getWeight().getDefiningOp<DequantizeLinearOp>();
    if (!x || !w)
      return rewriter.notifyMatchFailure(op, "operands not dequantised");
    Value xq = x.getInput(), wq = w.getInput();
    if (!isByte(getElementTypeOrSelf(xq.getType())) ||
        !getElementTypeOrSelf(wq.getType()).isSignlessInteger(8) ||
        !matchPattern(wq, m_Constant()))
      return rewriter.notifyMatchFailure(
          op, "needs an 8-bit activation and an i8 constant weight");
    if (!isZeroOrAbsent(x.getZeroPoint()) || !isZeroOrAbsent(w.getZeroPoint()))
      return rewriter.notifyMatchFailure(op, "zero points other than 0");
    std::optional<SmallVector<float>> sx = f32Constant(x.getScale());
    std::optional<SmallVector<float>> sw = f32Constant(w.getScale());
    int64_t m = type.getDimSize(1);
    int64_t weightAxis = w.getAxis() < 0 ? w.getAxis() + type.getRank()
                                         : w.getAxis();
    if (!sx || sx->size() != 1 || !sw ||
        !(sw->size() == 1 || (int64_t(sw->size()) == m && weightAxis == 0)))
      return rewriter.notifyMatchFailure(
          op, "needs one activation scale and one weight scale per output "
              "channel or per tensor");
    // The bias, one value per output channel, is added after the scaling
    // (divided by a requantisation's scale with it, when constant).
    Value bias = op.getBias();
    if (bias && (!getElementTypeOrSelf(bias.getType()).isF32() ||
                 cast<ShapedType>(bias.getType()).getNumElements() != m))
      return rewriter.notifyMatchFailure(op, "bias not M f32 values");
    if (auto dq = bias ? bias.getDefiningOp<DequantizeLinearOp>()
                       : DequantizeLinearOp();
        dq && matchPattern(dq.getInput(), m_Constant()))
      return rewriter.notifyMatchFailure(op, "its bias folds first");

    // A quantisation of the result alone (one positive scale sq, zero
    // point 0) takes its scale into the columns: the sums times
    // sx * sw / sq plus bias / sq, rounded and saturated by a quantisation
    // of scale 1, which divides nothing.
    // A ReLU between them (ReluBeforeQuantize may have put it there) goes
    // before the rounding.
    auto singleUser = [](Operation *o) {
      return o->hasOneUse() ? *o->getUsers().begin() : nullptr;
    };
    auto relu = dyn_cast_if_present<ReluOp>(singleUser(op));
    auto requantize = dyn_cast_if_present<QuantizeLinearOp>(
        relu ? singleUser(relu) : singleUser(op));
    std::optional<SmallVector<float>> sq =
        requantize ? f32Constant(requantize.getScale()) : std::nullopt;
    std::optional<SmallVector<float>> biasValues =
        bias ? f32Constant(bias) : std::nullopt;
    if (!sq || sq->size() != 1 || !((*sq)[0] > 0) ||
        !isZeroOrAbsent(requantize.getZeroPoint()) || (bias && !biasValues))
      requantize = QuantizeLinearOp();

    // The new ops go where the last op they replace was, after everything
    // they read.
    rewriter.setInsertionPoint(requantize ? requantize.getOperation()
                                          : op.getOperation());
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    Value sums = ConvOp::create(rewriter, loc, type.clone(i32), xq, wq,
                                Value(), op.getStridesAttr(), op.getPadsAttr(),
                                op.getDilationsAttr(), op.getGroupAttr());
    Value result =
        CastOp::create(rewriter, loc, type, sums, /*no_saturate=*/false,
                       /*round_mode=*/StringAttr());
    // [1, M, 1, ...]: one value per output channel.
    SmallVector<int64_t> column(type.getRank(), 1);
    column[1] = m;
    auto columnType = RankedTensorType::get(column, f32);
    SmallVector<float> scales(static_cast<size_t>(m));
    for (int64_t c = 0; c < m; ++c) {
      scales[c] = (*sx)[0] * (*sw)[sw->size() == 1 ? 0 : c];
      if (requantize)
        scales[c] /= (*sq)[0];
    }
    Value scale = ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(columnType, ArrayRef(scales)));
    result = MulOp::create(rewriter, loc, type, result, scale);
    if (bias) {
      Value biasColumn;
      if (requantize) {
        SmallVector<float> shifted(*biasValues);
        for (float &b : shifted)
          b /= (*sq)[0];
        biasColumn = ConstantOp::create(
            rewriter, loc,
            DenseElementsAttr::get(columnType, ArrayRef(shifted)));
      } else {
        biasColumn =
            ReshapeOp::create(rewriter, loc, columnType, bias).getResult();
      }
      result = AddOp::create(rewriter, loc, type, result, biasColumn);
    }
    if (!requantize) {
      rewriter.replaceOp(op, result);
      return success();
    }
    if (relu)
      result = ReluOp::create(rewriter, relu.getLoc(), type, result);
    Value one = ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(RankedTensorType::get({}, f32), 1.0f));
    rewriter.replaceOpWithNewOp<QuantizeLinearOp>(
        requantize, requantize.getType(), result, one,
        requantize.getZeroPoint(), requantize.getAxisAttr());
    if (relu)
      rewriter.eraseOp(relu);
    rewriter.eraseOp(op);
    return success();
  }
};

/// relu(dequantize(quantize(y, s), s)) with zero points 0 ->
/// dequantize(quantize(relu(y), s), s): quantisation is monotonic and
/// keeps 0, so the ReLU is exact on either side, and before it the
/// quantise-dequantise pair may fold (QuantizeOfDequantize).
struct ReluBeforeQuantize : OpRewritePattern<ReluOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReluOp op,
                                PatternRewriter &rewriter) const override {
    auto dq = op.getInput().getDefiningOp<DequantizeLinearOp>();
    auto q = dq ? dq.getInput().getDefiningOp<QuantizeLinearOp>()
                : QuantizeLinearOp();
    if (!q || !q->hasOneUse() || !dq->hasOneUse() ||
        !isZeroOrAbsent(q.getZeroPoint()) ||
        !isZeroOrAbsent(dq.getZeroPoint()))
      return rewriter.notifyMatchFailure(op, "not relu(dq(q(y))) at zero 0");
    std::optional<SmallVector<float>> scale = f32Constant(q.getScale());
    if (!scale || !llvm::all_of(*scale, [](float s) { return s > 0; }))
      return rewriter.notifyMatchFailure(op, "scale not positive constant");
    Location loc = op.getLoc();
    Value y = ReluOp::create(rewriter, loc, q.getInput().getType(),
                             q.getInput());
    Value quantized = QuantizeLinearOp::create(
        rewriter, q.getLoc(), q.getType(), y, q.getScale(), q.getZeroPoint(),
        q.getAxisAttr());
    rewriter.replaceOpWithNewOp<DequantizeLinearOp>(
        op, op.getType(), quantized, dq.getScale(), dq.getZeroPoint(),
        dq.getAxisAttr());
    // Gone now, so that y has one reader again.
    rewriter.eraseOp(dq);
    rewriter.eraseOp(q);
    return success();
  }
};

/// quantize(dequantize(q, s, z), s, z) -> q: (q - z) * s / s rounds back
/// to q - z for every 8-bit q (the quotient is within 2^-16 of it).
struct QuantizeOfDequantize : OpRewritePattern<QuantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(QuantizeLinearOp op,
                                PatternRewriter &rewriter) const override {
    auto dq = op.getInput().getDefiningOp<DequantizeLinearOp>();
    if (!dq || dq.getInput().getType() != op.getType() ||
        !isByte(op.getType().getElementType()) ||
        !getElementTypeOrSelf(dq.getType()).isF32() ||
        dq.getAxis() != op.getAxis() ||
        !sameParameter(dq.getScale(), op.getScale()) ||
        !sameParameter(dq.getZeroPoint(), op.getZeroPoint()) ||
        !f32Constant(op.getScale()))
      return rewriter.notifyMatchFailure(op, "not q(dq(x)) of one scale");
    rewriter.replaceOp(op, dq.getInput());
    return success();
  }
};

/// dequantize(c, s, z) of constants, evaluated as ONNX does: (c - z) in
/// integers, converted to f32, times s (per tensor or along `axis`).
struct FoldDequantize : OpRewritePattern<DequantizeLinearOp> {
  /// `bytesToo`: 8-bit constants too (a convolution's weights, once the
  /// convolutions are fused); else only wider ones (its int32 bias).
  FoldDequantize(MLIRContext *context, bool bytesToo)
      : OpRewritePattern(context), bytesToo(bytesToo) {}
  bool bytesToo;

  LogicalResult matchAndRewrite(DequantizeLinearOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr input, zero;
    std::optional<SmallVector<float>> scale = f32Constant(op.getScale());
    auto type = cast<RankedTensorType>(op.getType());
    if (!scale || !matchPattern(op.getInput(), m_Constant(&input)) ||
        !input.getElementType().isInteger() ||
        input.getElementType().getIntOrFloatBitWidth() > 32 ||
        (op.getZeroPoint() &&
         !matchPattern(op.getZeroPoint(), m_Constant(&zero))))
      return rewriter.notifyMatchFailure(op, "not a constant of integers");
    if (!bytesToo && input.getElementType().getIntOrFloatBitWidth() <= 8)
      return rewriter.notifyMatchFailure(op, "left to fusion");
    bool isUnsigned = input.getElementType().isUnsignedInteger();
    auto valueOf = [&](const APInt &v) {
      return isUnsigned ? int64_t(v.getZExtValue()) : v.getSExtValue();
    };
    SmallVector<int64_t> zeros;
    if (zero)
      for (const APInt &v : zero.getValues<APInt>())
        zeros.push_back(valueOf(v));
    // The stride of `axis` and its extent: element i is on axis entry
    // (i / inner) % extent.
    ArrayRef<int64_t> shape = type.getShape();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + type.getRank()
                                    : op.getAxis();
    int64_t inner = 1, extent = 1;
    if (scale->size() > 1) {
      if (axis < 0 || axis >= type.getRank() ||
          shape[axis] != int64_t(scale->size()))
        return rewriter.notifyMatchFailure(op, "scale does not fit its axis");
      extent = shape[axis];
      for (int64_t d = axis + 1; d < type.getRank(); ++d)
        inner *= shape[d];
    }
    if (!zeros.empty() && zeros.size() != scale->size())
      return rewriter.notifyMatchFailure(op, "zero points do not fit");
    SmallVector<float> values;
    values.reserve(size_t(type.getNumElements()));
    int64_t i = 0;
    for (const APInt &v : input.getValues<APInt>()) {
      size_t entry = scale->size() == 1 ? 0 : size_t((i++ / inner) % extent);
      int64_t z = zeros.empty() ? 0 : zeros[entry];
      values.push_back(float(valueOf(v) - z) * (*scale)[entry]);
    }
    rewriter.replaceOpWithNewOp<ConstantOp>(
        op, DenseElementsAttr::get(type, ArrayRef(values)));
    return success();
  }
};

struct HGraphFuseQuantizedPass
    : hetc::impl::HGraphFuseQuantizedBase<HGraphFuseQuantizedPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    {
      RewritePatternSet patterns(context);
      patterns.add<QuantizedConv, ReluBeforeQuantize, QuantizeOfDequantize>(
          context);
      patterns.add<FoldDequantize>(context, /*bytesToo=*/false);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
    // Only after fusing: a weight's dequantisation is what marks its
    // convolution as quantised.
    RewritePatternSet patterns(context);
    patterns.add<FoldDequantize>(context, /*bytesToo=*/true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
