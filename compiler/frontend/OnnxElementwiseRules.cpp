//===- OnnxElementwiseRules.cpp - Import rules of elementwise operators ===//
//
// Unary and binary math, comparisons, Where, Cast, Clip and the softmax
// family. Multi-input Min, Max, Sum and Mean become chains of binary ops.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/Dialect/Traits.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

/// The broadcast type of `lhs` and `rhs` with `element`, or failure after
/// reporting.
FailureOr<RankedTensorType> broadcastType(NodeContext &ctx, Value lhs,
                                          Value rhs, Type element) {
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(tensorType(lhs).getShape(),
                                          tensorType(rhs).getShape(), shape))
    return ctx.error() << "input shapes " << tensorType(lhs) << " and "
                       << tensorType(rhs) << " do not broadcast";
  return RankedTensorType::get(shape, element);
}

template <typename OpTy>
FailureOr<Value> binary(NodeContext &ctx, Value lhs, Value rhs) {
  if (tensorType(lhs).getElementType() != tensorType(rhs).getElementType())
    return ctx.error() << "inputs have different element types ("
                       << tensorType(lhs) << ", " << tensorType(rhs) << ")";
  FailureOr<RankedTensorType> type =
      broadcastType(ctx, lhs, rhs, tensorType(lhs).getElementType());
  if (failed(type))
    return failure();
  return ctx.create<OpTy>(*type, lhs, rhs);
}

template <typename OpTy>
Results importBinary(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  FailureOr<Value> v = binary<OpTy>(ctx, ctx.inputs[0], ctx.inputs[1]);
  if (failed(v))
    return failure();
  return SmallVector<Value>{*v};
}

/// Pow of an integer base, as ONNX's reference computes it: the real
/// power, truncated toward zero to the base's type. The chip has no
/// integer power, so it is computed in f32, and a result within 2^-20 of
/// an integer (the error of f32's pow) is taken as that integer before
/// the truncation; results are exact while below 2^24 in magnitude.
Value integerPow(NodeContext &ctx, Value base, Value exponent) {
  Type f32 = ctx.builder.getF32Type();
  Value real = broadcastBinary<hgraph::PowOp>(ctx, castTo(ctx, base, f32),
                                              castTo(ctx, exponent, f32));
  RankedTensorType type = tensorType(real);
  Value nearest = ctx.create<hgraph::RoundOp>(type, real);
  Value error = ctx.create<hgraph::AbsOp>(
      type, broadcastBinary<hgraph::SubOp>(ctx, real, nearest));
  Value allowed = broadcastBinary<hgraph::MulOp>(
      ctx, ctx.create<hgraph::AbsOp>(type, nearest),
      scalarConstant(ctx, f32, 0x1p-20));
  Value close = ctx.create<hgraph::LessOrEqualOp>(
      RankedTensorType::get(type.getShape(), ctx.builder.getI1Type()), error,
      broadcastBinary<hgraph::MaxOp>(ctx, allowed,
                                     scalarConstant(ctx, f32, 0x1p-20)));
  Value snapped = ctx.create<hgraph::WhereOp>(type, close, nearest, real);
  return castTo(ctx, snapped, tensorType(base).getElementType());
}

/// Pow's exponent may have another element type; it is cast to the base's
/// (a float base), or both compute in f32 (an integer base).
Results importPow(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  if (tensorType(ctx.inputs[0]).getElementType().isInteger() &&
      !tensorType(ctx.inputs[0]).getElementType().isInteger(1)) {
    if (failed(broadcastType(ctx, ctx.inputs[0], ctx.inputs[1],
                             tensorType(ctx.inputs[0]).getElementType())))
      return failure();
    return SmallVector<Value>{integerPow(ctx, ctx.inputs[0], ctx.inputs[1])};
  }
  Value exponent =
      castTo(ctx, ctx.inputs[1], tensorType(ctx.inputs[0]).getElementType());
  FailureOr<Value> v = binary<hgraph::PowOp>(ctx, ctx.inputs[0], exponent);
  if (failed(v))
    return failure();
  return SmallVector<Value>{*v};
}

/// Min, Max, Sum: a left-to-right chain over one or more inputs.
template <typename OpTy>
Results importVariadic(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1u << 16)))
    return failure();
  Value acc = ctx.inputs[0];
  for (Value next : ArrayRef(ctx.inputs).drop_front()) {
    FailureOr<Value> v = binary<OpTy>(ctx, acc, next);
    if (failed(v))
      return failure();
    acc = *v;
  }
  return SmallVector<Value>{acc};
}

Results importMean(NodeContext &ctx) {
  Results sum = importVariadic<hgraph::AddOp>(ctx);
  if (failed(sum) || ctx.inputs.size() == 1)
    return sum;
  Value acc = (*sum)[0];
  Type element = tensorType(acc).getElementType();
  if (!isa<FloatType>(element))
    return ctx.error() << "only float inputs are supported, got " << element;
  auto scalar = RankedTensorType::get({}, element);
  Value n = hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(
          scalar, FloatAttr::get(element, double(ctx.inputs.size()))
                      .getValue()));
  return SmallVector<Value>{
      ctx.create<hgraph::DivOp>(tensorType(acc), acc, n)};
}

template <typename OpTy>
Results importCompare(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  if (tensorType(ctx.inputs[0]).getElementType() !=
      tensorType(ctx.inputs[1]).getElementType())
    return ctx.error() << "inputs have different element types";
  FailureOr<RankedTensorType> type =
      broadcastType(ctx, ctx.inputs[0], ctx.inputs[1], ctx.builder.getI1Type());
  if (failed(type))
    return failure();
  return SmallVector<Value>{
      ctx.create<OpTy>(*type, ctx.inputs[0], ctx.inputs[1])};
}

template <typename OpTy>
Results importUnary(NodeContext &ctx);

/// Mod: fmod = 0 (the default) is numpy's mod (the divisor's sign), fmod = 1
/// C's fmod (the dividend's sign).
Results importMod(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  int64_t fmod = ctx.intAttr("fmod", 0);
  if (fmod != 0 && fmod != 1)
    return ctx.error() << "fmod must be 0 or 1, got " << fmod;
  FailureOr<Value> v =
      fmod ? binary<hgraph::FModOp>(ctx, ctx.inputs[0], ctx.inputs[1])
           : binary<hgraph::ModOp>(ctx, ctx.inputs[0], ctx.inputs[1]);
  if (failed(v))
    return failure();
  return SmallVector<Value>{*v};
}

template <typename OpTy>
Results importUnary(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  return SmallVector<Value>{ctx.create<OpTy>(ctx.inputs[0])};
}

Results importWhere(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 3, 3)))
    return failure();
  Value c = ctx.inputs[0], a = ctx.inputs[1], b = ctx.inputs[2];
  if (tensorType(a).getElementType() != tensorType(b).getElementType())
    return ctx.error() << "X and Y have different element types";
  FailureOr<RankedTensorType> ab =
      broadcastType(ctx, a, b, tensorType(a).getElementType());
  if (failed(ab))
    return failure();
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(ab->getShape(),
                                          tensorType(c).getShape(), shape))
    return ctx.error() << "the condition's shape does not broadcast";
  return SmallVector<Value>{ctx.create<hgraph::WhereOp>(
      RankedTensorType::get(shape, ab->getElementType()), c, a, b)};
}

/// The hgraph.cast of `input` to `element` with Cast's (and CastLike's)
/// `saturate` and `round_mode` attributes.
Results importCastTo(NodeContext &ctx, Value input, Type element) {
  if (tensorType(input).getElementType() == element)
    return SmallVector<Value>{input};
  // saturate=0 changes only casts to the float8 types.
  bool noSaturate = isa<FloatType>(element) &&
                    element.getIntOrFloatBitWidth() == 8 &&
                    ctx.intAttr("saturate", 1) == 0;
  StringAttr roundMode;
  if (const onnx::AttributeProto *mode = ctx.attr("round_mode")) {
    if (mode->s() != "up" && mode->s() != "down" && mode->s() != "nearest")
      return ctx.error() << "round_mode must be 'up', 'down' or 'nearest', "
                         << "got '" << mode->s() << "'";
    if (isa<Float8E8M0FNUType>(element))
      roundMode = ctx.builder.getStringAttr(mode->s());
  }
  return SmallVector<Value>{ctx.create<hgraph::CastOp>(
      RankedTensorType::get(tensorType(input).getShape(), element), input,
      noSaturate, roundMode)};
}

Results importCast(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  const onnx::AttributeProto *to = ctx.attr("to");
  if (!to)
    return ctx.error() << "attribute 'to' is required";
  Type element = elementTypeOf(to->i(), ctx.builder.getContext());
  if (!element)
    return ctx.error() << "casting to "
                       << dataTypeName(to->i())
                       << " is not supported";
  return importCastTo(ctx, ctx.inputs[0], element);
}

/// BitCast (opset 26): the bits of each element read as type `to`, of the
/// same width. f32 and i32 are one 32-bit lane word each on the chip:
/// hgraph.bitcast. Integers of one width are the value modulo 2^width,
/// moved into the other type's range: built from casts through i32 and a
/// select. Types whose bits the chip does not keep (f16 and bf16 hold
/// their value widened to fp32; 64-bit types are held in 32 bits) are
/// refused.
Results importBitCast(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  const onnx::AttributeProto *to = ctx.attr("to");
  if (!to)
    return ctx.error() << "attribute 'to' is required";
  Value x = ctx.inputs[0];
  RankedTensorType type = tensorType(x);
  Type from = type.getElementType();
  Type target = elementTypeOf(to->i(), ctx.builder.getContext());
  if (!target)
    return ctx.error() << "bit-casting to " << dataTypeName(to->i())
                       << " is not supported";
  auto resultType = RankedTensorType::get(type.getShape(), target);
  auto word = [](Type t) { return t.isF32() || t.isSignlessInteger(32); };
  if (from == target)
    return SmallVector<Value>{x};
  if (word(from) && word(target))
    return SmallVector<Value>{ctx.create<hgraph::BitcastOp>(resultType, x)};
  auto integer = [](Type t) {
    auto i = dyn_cast<IntegerType>(t);
    return i && (i.getWidth() == 8 || i.getWidth() == 16);
  };
  // A bool is one byte whose value is 0 or 1, as is the byte it becomes.
  if (from.isInteger(1) && integer(target) &&
      target.getIntOrFloatBitWidth() == 8)
    return SmallVector<Value>{castTo(ctx, x, target)};
  if (integer(from) && integer(target) &&
      from.getIntOrFloatBitWidth() == target.getIntOrFloatBitWidth() &&
      from.getIntOrFloatBitWidth() < 32) {
    // The value modulo 2^width: a signed result takes 2^width off values
    // past its maximum, an unsigned one adds it to negative values.
    int64_t modulus = int64_t(1) << from.getIntOrFloatBitWidth();
    Type i32 = ctx.builder.getI32Type();
    auto wide = RankedTensorType::get(type.getShape(), i32);
    Value value = castTo(ctx, x, i32);
    bool toSigned = !target.isUnsignedInteger();
    Value outside =
        toSigned ? ctx.create<hgraph::GreaterOrEqualOp>(
                       RankedTensorType::get(type.getShape(),
                                             ctx.builder.getI1Type()),
                       value, scalarConstant(ctx, i32, double(modulus / 2)))
                 : ctx.create<hgraph::LessOp>(
                       RankedTensorType::get(type.getShape(),
                                             ctx.builder.getI1Type()),
                       value, scalarConstant(ctx, i32, 0));
    Value moved = broadcastBinary<hgraph::AddOp>(
        ctx, value,
        scalarConstant(ctx, i32, double(toSigned ? -modulus : modulus)));
    Value wrapped = ctx.create<hgraph::WhereOp>(wide, outside, moved, value);
    return SmallVector<Value>{castTo(ctx, wrapped, target)};
  }
  return ctx.error() << "bit-casting " << from << " to " << target
                     << " is not supported: the chip holds f32 and i32 as "
                        "32-bit words and the 8- and 16-bit integers as "
                        "their values, but keeps no bit pattern of f16, "
                        "bf16 (held as their fp32 value), of ui32 (held "
                        "below 2^31) or of 64-bit types (held in 32 bits); "
                        "cast instead, or bit-cast on the host";
}

Results importCastLike(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  return importCastTo(ctx, ctx.inputs[0],
                      tensorType(ctx.inputs[1]).getElementType());
}

Results importClip(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 3)))
    return failure();
  Value x = ctx.inputs[0], lo = ctx.input(1), hi = ctx.input(2);
  RankedTensorType type = tensorType(x);
  // Before opset 11 the bounds were attributes.
  if (ctx.opset < 11) {
    auto bound = [&](StringRef name) -> Value {
      const onnx::AttributeProto *a = ctx.attr(name);
      if (!a)
        return Value();
      return hgraph::ConstantOp::create(
          ctx.builder, ctx.loc,
          DenseElementsAttr::get(
              RankedTensorType::get({}, type.getElementType()), a->f()));
    };
    lo = bound("min");
    hi = bound("max");
  }
  return SmallVector<Value>{
      ctx.create<hgraph::ClipOp>(type, x, lo, hi)};
}

Results importLeakyRelu(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  return SmallVector<Value>{ctx.create<hgraph::LeakyReluOp>(
      ctx.inputs[0], ctx.builder.getF32FloatAttr(ctx.floatAttr("alpha", 0.01f)))};
}

Results importGelu(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  std::string approximate = ctx.stringAttr("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return ctx.error() << "attribute 'approximate' must be \"none\" or "
                          "\"tanh\", got \""
                       << approximate << "\"";
  return SmallVector<Value>{ctx.create<hgraph::GeluOp>(
      ctx.inputs[0], ctx.builder.getStringAttr(approximate))};
}

/// Softmax and LogSoftmax. Opset 13 changed the default axis from 1 to -1
/// and stopped flattening; older models are flattened to 2-D at `axis`,
/// normalised along the second dimension and reshaped back.
template <typename OpTy>
Results importSoftmaxLike(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  Value x = ctx.inputs[0];
  RankedTensorType type = tensorType(x);
  int64_t rank = type.getRank();
  FailureOr<int64_t> axis = normalizeAxis(
      ctx, ctx.intAttr("axis", ctx.opset >= 13 ? -1 : 1), rank);
  if (failed(axis))
    return failure();
  auto make = [&](Value v, int64_t a) {
    return ctx.create<OpTy>(v, ctx.builder.getI64IntegerAttr(a));
  };
  if (ctx.opset >= 13 || *axis == rank - 1)
    return SmallVector<Value>{make(x, *axis)};
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < *axis ? outer : inner) *= type.getDimSize(d);
  Value flat = ctx.create<hgraph::ReshapeOp>(
      RankedTensorType::get({outer, inner}, type.getElementType()), x);
  return SmallVector<Value>{
      ctx.create<hgraph::ReshapeOp>(type, make(flat, 1))};
}

/// An ONNX function that `hgraph.pointwise` expresses; `alphaName` and
/// `betaName` are the ONNX attributes it carries (empty: none), with
/// their defaults.
struct PointwiseRule {
  hgraph::PointwiseFn fn;
  const char *alphaName;
  float alphaDefault;
  const char *betaName;
  float betaDefault;
};

Results importPointwise(NodeContext &ctx, const PointwiseRule &rule) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  Type element = tensorType(ctx.inputs[0]).getElementType();
  bool floatOnly = rule.fn != hgraph::PointwiseFn::sign;
  if (floatOnly ? !isa<FloatType>(element) : element.isInteger(1))
    return ctx.error() << "is not defined on " << element << " elements";
  auto param = [&](const char *name, float fallback) {
    return ctx.builder.getF32FloatAttr(*name ? ctx.floatAttr(name, fallback)
                                             : fallback);
  };
  return SmallVector<Value>{ctx.create<hgraph::PointwiseOp>(
      tensorType(ctx.inputs[0]),
      hgraph::PointwiseFnAttr::get(ctx.builder.getContext(), rule.fn),
      ctx.inputs[0], param(rule.alphaName, rule.alphaDefault),
      param(rule.betaName, rule.betaDefault))};
}

/// The pointwise rule of `opType`, or null.
const PointwiseRule *pointwiseRule(StringRef opType) {
  using F = hgraph::PointwiseFn;
  static const llvm::StringMap<PointwiseRule> rules = {
      {"Elu", {F::elu, "alpha", 1.0f, "", 0.0f}},
      {"Selu",
       {F::selu, "alpha", 1.67326319217681884765625f, "gamma",
        1.05070102214813232421875f}},
      {"Celu", {F::celu, "alpha", 1.0f, "", 0.0f}},
      {"HardSigmoid", {F::hard_sigmoid, "alpha", 0.2f, "beta", 0.5f}},
      {"HardSwish", {F::hard_swish, "", 0.0f, "", 0.0f}},
      {"Softplus", {F::softplus, "", 0.0f, "", 0.0f}},
      {"Softsign", {F::softsign, "", 0.0f, "", 0.0f}},
      {"ThresholdedRelu", {F::thresholded_relu, "alpha", 1.0f, "", 0.0f}},
      {"Shrink", {F::shrink, "lambd", 0.5f, "bias", 0.0f}},
      {"Swish", {F::swish, "alpha", 1.0f, "", 0.0f}},
      {"Mish", {F::mish, "", 0.0f, "", 0.0f}},
      {"Sinh", {F::sinh, "", 0.0f, "", 0.0f}},
      {"Cosh", {F::cosh, "", 0.0f, "", 0.0f}},
      {"Tan", {F::tan, "", 0.0f, "", 0.0f}},
      {"Asinh", {F::asinh, "", 0.0f, "", 0.0f}},
      {"Acosh", {F::acosh, "", 0.0f, "", 0.0f}},
      {"Atanh", {F::atanh, "", 0.0f, "", 0.0f}},
      {"Asin", {F::asin, "", 0.0f, "", 0.0f}},
      {"Acos", {F::acos, "", 0.0f, "", 0.0f}},
      {"Atan", {F::atan, "", 0.0f, "", 0.0f}},
      {"Sign", {F::sign, "", 0.0f, "", 0.0f}},
  };
  auto it = rules.find(opType);
  return it == rules.end() ? nullptr : &it->second;
}

Results importPointwiseNode(NodeContext &ctx) {
  return importPointwise(ctx, *pointwiseRule(ctx.node.op_type()));
}

/// SwiGLU (opset 28): Y = Swish_alpha(A) * B, A and B of one shape and
/// type (no broadcasting), as ONNX's own function body: Swish, then Mul.
Results importSwiGLU(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  Value a = ctx.inputs[0], b = ctx.inputs[1];
  RankedTensorType type = tensorType(a);
  if (tensorType(b) != type || !isa<FloatType>(type.getElementType()))
    return ctx.error() << "A and B must be float tensors of one shape and "
                          "type (SwiGLU does not broadcast), got "
                       << type << " and " << tensorType(b);
  Value gate = ctx.create<hgraph::PointwiseOp>(
      type,
      hgraph::PointwiseFnAttr::get(ctx.builder.getContext(),
                                   hgraph::PointwiseFn::swish),
      a, ctx.builder.getF32FloatAttr(ctx.floatAttr("alpha", 1.0f)),
      ctx.builder.getF32FloatAttr(0.0f));
  return SmallVector<Value>{ctx.create<hgraph::MulOp>(type, gate, b)};
}

/// BitShift, LEFT or RIGHT: logical shifts of unsigned integers; since
/// opset 28 also signed ones (arithmetic to the right).
Results importBitShift(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  std::string direction = ctx.stringAttr("direction", "");
  auto element = dyn_cast<IntegerType>(
      tensorType(ctx.inputs[0]).getElementType());
  if (!element || element.isInteger(1) ||
      (ctx.opset < 28 && !element.isUnsigned()))
    return ctx.error() << "X must be "
                       << (ctx.opset < 28 ? "unsigned " : "")
                       << "integers, got " << tensorType(ctx.inputs[0]);
  FailureOr<Value> v;
  if (direction == "LEFT")
    v = binary<hgraph::ShiftLeftOp>(ctx, ctx.inputs[0], ctx.inputs[1]);
  else if (direction == "RIGHT")
    v = binary<hgraph::ShiftRightOp>(ctx, ctx.inputs[0], ctx.inputs[1]);
  else
    return ctx.error() << "direction must be \"LEFT\" or \"RIGHT\", got \""
                       << direction << "\"";
  if (failed(v))
    return failure();
  return SmallVector<Value>{*v};
}

/// PRelu: x < 0 ? slope * x : x, the slope broadcast to x's shape.
Results importPRelu(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  Value x = ctx.inputs[0], slope = ctx.inputs[1];
  RankedTensorType type = tensorType(x);
  FailureOr<RankedTensorType> product =
      broadcastType(ctx, x, slope, type.getElementType());
  if (failed(product))
    return failure();
  if (*product != type)
    return ctx.error() << "slope " << tensorType(slope)
                       << " does not broadcast to X " << type;
  if (tensorType(slope).getElementType() != type.getElementType())
    return ctx.error() << "X and slope have different element types";
  auto scalar = RankedTensorType::get({}, type.getElementType());
  Value zero = hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      cast<DenseElementsAttr>(ctx.builder.getZeroAttr(scalar)));
  Value negative = ctx.create<hgraph::LessOp>(
      RankedTensorType::get(type.getShape(), ctx.builder.getI1Type()), x,
      zero);
  Value scaled = ctx.create<hgraph::MulOp>(type, x, slope);
  return SmallVector<Value>{
      ctx.create<hgraph::WhereOp>(type, negative, scaled, x)};
}

/// IsNaN: x != x, as Not(Equal(x, x)).
Results importIsNaN(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  Value x = ctx.inputs[0];
  if (!isa<FloatType>(tensorType(x).getElementType()))
    return ctx.error() << "X must have a float element type, got "
                       << tensorType(x);
  auto boolType = RankedTensorType::get(tensorType(x).getShape(),
                                        ctx.builder.getI1Type());
  return SmallVector<Value>{ctx.create<hgraph::NotOp>(
      ctx.create<hgraph::EqualOp>(boolType, x, x))};
}

/// IsInf: x == +inf (detect_positive) or x == -inf (detect_negative).
Results importIsInf(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  Value x = ctx.inputs[0];
  auto element = dyn_cast<FloatType>(tensorType(x).getElementType());
  if (!element)
    return ctx.error() << "X must have a float element type, got "
                       << tensorType(x);
  auto boolType = RankedTensorType::get(tensorType(x).getShape(),
                                        ctx.builder.getI1Type());
  auto scalar = RankedTensorType::get({}, element);
  auto equalTo = [&](bool negative) {
    Value inf = hgraph::ConstantOp::create(
        ctx.builder, ctx.loc,
        DenseElementsAttr::get(
            scalar, APFloat::getInf(element.getFloatSemantics(), negative)));
    return ctx.create<hgraph::EqualOp>(boolType, x, inf);
  };
  bool positive = ctx.intAttr("detect_positive", 1) != 0;
  bool negative = ctx.intAttr("detect_negative", 1) != 0;
  if (positive && negative) {
    Value plus = equalTo(false);
    Value minus = equalTo(true);
    return SmallVector<Value>{
        ctx.create<hgraph::OrOp>(boolType, plus, minus)};
  }
  if (positive || negative)
    return SmallVector<Value>{equalTo(negative)};
  return SmallVector<Value>{hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(boolType, false))};
}

} // namespace

void hetc::frontend::addElementwiseRules(llvm::StringMap<ImportRule> &rules) {
  rules.insert({
      {"Add", importBinary<hgraph::AddOp>},
      {"Sub", importBinary<hgraph::SubOp>},
      {"Mul", importBinary<hgraph::MulOp>},
      {"Div", importBinary<hgraph::DivOp>},
      {"Pow", importPow},
      {"And", importBinary<hgraph::AndOp>},
      {"Or", importBinary<hgraph::OrOp>},
      {"Xor", importBinary<hgraph::XorOp>},
      {"Min", importVariadic<hgraph::MinOp>},
      {"Max", importVariadic<hgraph::MaxOp>},
      {"Sum", importVariadic<hgraph::AddOp>},
      {"Mean", importMean},
      {"Equal", importCompare<hgraph::EqualOp>},
      {"Less", importCompare<hgraph::LessOp>},
      {"LessOrEqual", importCompare<hgraph::LessOrEqualOp>},
      {"Greater", importCompare<hgraph::GreaterOp>},
      {"GreaterOrEqual", importCompare<hgraph::GreaterOrEqualOp>},
      {"Where", importWhere},
      {"Relu", importUnary<hgraph::ReluOp>},
      {"Sigmoid", importUnary<hgraph::SigmoidOp>},
      {"Tanh", importUnary<hgraph::TanhOp>},
      {"Neg", importUnary<hgraph::NegOp>},
      {"Abs", importUnary<hgraph::AbsOp>},
      {"Sqrt", importUnary<hgraph::SqrtOp>},
      {"Reciprocal", importUnary<hgraph::ReciprocalOp>},
      {"Exp", importUnary<hgraph::ExpOp>},
      {"Log", importUnary<hgraph::LogOp>},
      {"Erf", importUnary<hgraph::ErfOp>},
      {"Floor", importUnary<hgraph::FloorOp>},
      {"Ceil", importUnary<hgraph::CeilOp>},
      {"Sin", importUnary<hgraph::SinOp>},
      {"Cos", importUnary<hgraph::CosOp>},
      {"Not", importUnary<hgraph::NotOp>},
      {"Round", importUnary<hgraph::RoundOp>},
      {"BitwiseAnd", importBinary<hgraph::BitwiseAndOp>},
      {"BitwiseOr", importBinary<hgraph::BitwiseOrOp>},
      {"BitwiseXor", importBinary<hgraph::BitwiseXorOp>},
      {"BitwiseNot", importUnary<hgraph::BitwiseNotOp>},
      {"Mod", importMod},
      {"LeakyRelu", importLeakyRelu},
      {"Gelu", importGelu},
      {"SwiGLU", importSwiGLU},
      {"BitCast", importBitCast},
      {"Cast", importCast},
      {"CastLike", importCastLike},
      {"Clip", importClip},
      {"Softmax", importSoftmaxLike<hgraph::SoftmaxOp>},
      {"LogSoftmax", importSoftmaxLike<hgraph::LogSoftmaxOp>},
      {"PRelu", importPRelu},
      {"BitShift", importBitShift},
      {"IsNaN", importIsNaN},
      {"IsInf", importIsInf},
  });
  for (StringRef opType :
       {"Elu", "Selu", "Celu", "HardSigmoid", "HardSwish", "Softplus",
        "Softsign", "ThresholdedRelu", "Shrink", "Swish", "Mish", "Sinh",
        "Cosh", "Tan", "Asinh", "Acosh", "Atanh", "Asin", "Acos", "Atan",
        "Sign"}) {
    assert(pointwiseRule(opType) && "pointwise op without a rule");
    rules[opType] = importPointwiseNode;
  }
}
