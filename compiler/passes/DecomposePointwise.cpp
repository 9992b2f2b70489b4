//===- DecomposePointwise.cpp - hgraph.pointwise as simpler ops -------===//
//
// The patterns of `hetc-hgraph-decompose` for `hgraph.pointwise`: each
// function becomes the elementwise ops the chip runs (exp, log, sqrt,
// tanh, sigmoid, sin, cos, comparisons and selections). The formulas
// follow the ONNX definitions; where the textbook form loses precision
// or overflows, an equal, better-conditioned one is used and said below.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/DecomposePatterns.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

namespace {

/// Builds elementwise ops of one tensor type at one location.
class Emitter {
public:
  Emitter(PatternRewriter &rewriter, Location loc, RankedTensorType type)
      : rewriter(rewriter), loc(loc), type(type),
        boolType(RankedTensorType::get(type.getShape(),
                                       rewriter.getI1Type())) {}

  /// A scalar constant of the element type (broadcast by the users), made
  /// once per value.
  Value c(double value) {
    Value &cached = constants[value];
    if (!cached)
      cached = makeConstant(value);
    return cached;
  }
  Value makeConstant(double value) {
    auto scalar = RankedTensorType::get({}, type.getElementType());
    Type element = type.getElementType();
    if (auto floatType = dyn_cast<FloatType>(element)) {
      APFloat v(value);
      bool lost;
      v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      return ConstantOp::create(rewriter, loc, DenseElementsAttr::get(scalar, v));
    }
    return ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(
            scalar, APInt(element.getIntOrFloatBitWidth(), int64_t(value),
                          /*isSigned=*/true)));
  }

  template <typename OpTy> Value unary(Value x) {
    return OpTy::create(rewriter, loc, x);
  }
  template <typename OpTy> Value binary(Value a, Value b) {
    return OpTy::create(rewriter, loc, type, a, b);
  }
  template <typename OpTy> Value compare(Value a, Value b) {
    return OpTy::create(rewriter, loc, boolType, a, b);
  }
  Value add(Value a, Value b) { return binary<AddOp>(a, b); }
  Value sub(Value a, Value b) { return binary<SubOp>(a, b); }
  Value mul(Value a, Value b) { return binary<MulOp>(a, b); }
  Value div(Value a, Value b) { return binary<DivOp>(a, b); }
  Value min(Value a, Value b) { return binary<MinOp>(a, b); }
  Value max(Value a, Value b) { return binary<MaxOp>(a, b); }
  Value select(Value cond, Value a, Value b) {
    return WhereOp::create(rewriter, loc, type, cond, a, b);
  }
  /// sign(s) * |m| for the sign of `s` (zero counts as positive).
  Value withSignOf(Value s, Value m) {
    Value negative = compare<LessOp>(s, c(0));
    return select(negative, unary<NegOp>(m), m);
  }
  /// log(1 + exp(x)) as max(x, 0) + log(1 + exp(-|x|)), which neither
  /// overflows nor loses the small values.
  Value softplus(Value x) {
    Value e = unary<ExpOp>(unary<NegOp>(unary<AbsOp>(x)));
    Value tail = unary<LogOp>(add(c(1), e));
    return add(max(x, c(0)), tail);
  }
  /// alpha * (exp(x) - 1)
  Value expm1Scaled(Value x, double alpha) {
    Value em1 = sub(unary<ExpOp>(x), c(1));
    return mul(c(alpha), em1);
  }
  /// atan(x): |x| > 1 reduces to pi/2 - atan(1/|x|), |x| > tan(pi/8) to
  /// pi/4 + atan((|x| - 1) / (|x| + 1)), leaving |u| <= tan(pi/8) for an
  /// odd polynomial (the single-precision minimax fit of the Cephes
  /// library, error below 2 ulp); the sign is restored last.
  Value atan(Value x) {
    Value a = unary<AbsOp>(x);
    Value big = compare<GreaterOp>(a, c(1));
    Value t = select(big, div(c(1), a), a);
    Value mid = compare<GreaterOp>(t, c(0.41421356237309503));
    Value below = sub(t, c(1));
    Value reduced = div(below, add(t, c(1)));
    Value u = select(mid, reduced, t);
    Value z = mul(u, u);
    Value p = c(8.05374449538e-2);
    for (double k : {-1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1}) {
      Value term = c(k);
      p = add(mul(p, z), term);
    }
    p = add(mul(mul(p, z), u), u);
    Value r = select(mid, add(p, c(M_PI_4)), p);
    r = select(big, sub(c(M_PI_2), r), r);
    return withSignOf(x, r);
  }

  PatternRewriter &rewriter;
  Location loc;
  RankedTensorType type;
  RankedTensorType boolType;
  std::map<double, Value> constants;
};

/// The value of `fn` at `x`; `alpha` and `beta` are the op's parameters.
/// Each step is a statement of its own, so that the ops come out in the
/// same order whatever order a C++ compiler evaluates arguments in.
Value expand(Emitter &b, PointwiseFn fn, Value x, double alpha, double beta) {
  switch (fn) {
  case PointwiseFn::elu: {
    // x < 0 ? alpha * (exp(x) - 1) : x
    Value negative = b.compare<LessOp>(x, b.c(0));
    return b.select(negative, b.expm1Scaled(x, alpha), x);
  }
  case PointwiseFn::selu: {
    // gamma * (x > 0 ? x : alpha * (exp(x) - 1)), gamma = beta
    Value positive = b.compare<GreaterOp>(x, b.c(0));
    Value chosen = b.select(positive, x, b.expm1Scaled(x, alpha));
    return b.mul(b.c(beta), chosen);
  }
  case PointwiseFn::celu: {
    // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
    Value low = b.expm1Scaled(b.div(x, b.c(alpha)), alpha);
    Value high = b.max(x, b.c(0));
    return b.add(high, b.min(low, b.c(0)));
  }
  case PointwiseFn::hard_sigmoid:
  case PointwiseFn::hard_swish: {
    // max(0, min(1, alpha * x + beta)), times x for hard_swish (alpha =
    // 1/6, beta = 1/2)
    bool swish = fn == PointwiseFn::hard_swish;
    Value line = b.mul(b.c(swish ? 1.0 / 6 : alpha), x);
    line = b.add(line, b.c(swish ? 0.5 : beta));
    Value clamped = b.max(b.min(line, b.c(1)), b.c(0));
    return swish ? b.mul(x, clamped) : clamped;
  }
  case PointwiseFn::softplus:
    return b.softplus(x);
  case PointwiseFn::softsign: {
    // x / (1 + |x|)
    Value denominator = b.add(b.unary<AbsOp>(x), b.c(1));
    return b.div(x, denominator);
  }
  case PointwiseFn::thresholded_relu: {
    // x > alpha ? x : 0
    Value above = b.compare<GreaterOp>(x, b.c(alpha));
    return b.select(above, x, b.c(0));
  }
  case PointwiseFn::shrink: {
    // x < -lambd ? x + bias : (x > lambd ? x - bias : 0), lambd = alpha,
    // bias = beta
    Value above = b.compare<GreaterOp>(x, b.c(alpha));
    Value zero = b.c(0);
    Value inner = b.select(above, b.sub(x, b.c(beta)), zero);
    Value below = b.compare<LessOp>(x, b.c(-alpha));
    return b.select(below, b.add(x, b.c(beta)), inner);
  }
  case PointwiseFn::swish: {
    // x * sigmoid(alpha * x)
    Value gate = b.unary<SigmoidOp>(b.mul(b.c(alpha), x));
    return b.mul(x, gate);
  }
  case PointwiseFn::mish: {
    // x * tanh(softplus(x))
    Value gate = b.unary<TanhOp>(b.softplus(x));
    return b.mul(x, gate);
  }
  case PointwiseFn::sinh:
  case PointwiseFn::cosh: {
    // (exp(x) -/+ exp(-x)) / 2
    Value up = b.unary<ExpOp>(x);
    Value down = b.unary<ExpOp>(b.unary<NegOp>(x));
    Value sum = fn == PointwiseFn::sinh ? b.sub(up, down) : b.add(up, down);
    return b.mul(sum, b.c(0.5));
  }
  case PointwiseFn::tan: {
    Value sine = b.unary<SinOp>(x);
    return b.div(sine, b.unary<CosOp>(x));
  }
  case PointwiseFn::asinh: {
    // sign(x) * log(|x| + sqrt(x^2 + 1)): the odd form avoids cancelling
    // for negative x.
    Value a = b.unary<AbsOp>(x);
    Value root = b.unary<SqrtOp>(b.add(b.mul(a, a), b.c(1)));
    return b.withSignOf(x, b.unary<LogOp>(b.add(a, root)));
  }
  case PointwiseFn::acosh: {
    // log(x + sqrt(x^2 - 1))
    Value root = b.unary<SqrtOp>(b.sub(b.mul(x, x), b.c(1)));
    return b.unary<LogOp>(b.add(x, root));
  }
  case PointwiseFn::atanh: {
    // log((1 + x) / (1 - x)) / 2
    Value numerator = b.add(x, b.c(1));
    Value ratio = b.div(numerator, b.sub(b.c(1), x));
    return b.mul(b.unary<LogOp>(ratio), b.c(0.5));
  }
  case PointwiseFn::asin: {
    // atan(x / sqrt(1 - x^2)); x = +-1 gives +-inf and atan(+-inf) = +-pi/2
    Value one = b.c(1);
    Value root = b.unary<SqrtOp>(b.sub(one, b.mul(x, x)));
    return b.atan(b.div(x, root));
  }
  case PointwiseFn::acos: {
    // pi/2 - asin(x)
    Value arcsine = expand(b, PointwiseFn::asin, x, alpha, beta);
    return b.sub(b.c(M_PI_2), arcsine);
  }
  case PointwiseFn::atan:
    return b.atan(x);
  case PointwiseFn::sign: {
    // x > 0 ? 1 : (x < 0 ? -1 : 0)
    Value negative = b.compare<LessOp>(x, b.c(0));
    Value minusOne = b.c(-1);
    Value inner = b.select(negative, minusOne, b.c(0));
    Value positive = b.compare<GreaterOp>(x, b.c(0));
    return b.select(positive, b.c(1), inner);
  }
  }
  llvm_unreachable("unknown pointwise function");
}

struct DecomposePointwise : OpRewritePattern<PointwiseOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PointwiseOp op,
                                PatternRewriter &rewriter) const override {
    Emitter b(rewriter, op.getLoc(), op.getType());
    rewriter.replaceOp(op, expand(b, op.getFn(), op.getInput(),
                                  op.getAlpha().convertToDouble(),
                                  op.getBeta().convertToDouble()));
    return success();
  }
};

} // namespace

void hetc::populateDecomposePointwisePatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposePointwise>(patterns.getContext());
}
