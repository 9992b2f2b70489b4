//===- HGraphElementwise.cpp - Elementwise op verifiers and folders ---===//

#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/dialects/hgraph/IR/HGraphFold.h"

#include "mlir/Dialect/Traits.h"

#include <cmath>

using namespace mlir;
using namespace hetc::hgraph;

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

#define HGRAPH_UNARY(OP, FEXPR, IEXPR)                                         \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return foldElementwise(                                                    \
        {adaptor.getInput()}, getType(),                                       \
        [](ArrayRef<double> v) -> double {                                     \
          double x = v[0];                                                     \
          return FEXPR;                                                        \
        },                                                                     \
        IEXPR);                                                                \
  }
#define INT_FN(EXPR)                                                           \
  [](ArrayRef<int64_t> v) -> int64_t {                                         \
    int64_t x = v[0];                                                          \
    return EXPR;                                                               \
  }
HGRAPH_UNARY(NegOp, -x, INT_FN(int64_t(0 - uint64_t(x))))
HGRAPH_UNARY(AbsOp, std::fabs(x), INT_FN(x < 0 ? int64_t(0 - uint64_t(x)) : x))
HGRAPH_UNARY(SqrtOp, std::sqrt(x), nullptr)
HGRAPH_UNARY(ReciprocalOp, 1.0 / x, nullptr)
HGRAPH_UNARY(ExpOp, std::exp(x), nullptr)
HGRAPH_UNARY(LogOp, std::log(x), nullptr)
HGRAPH_UNARY(ErfOp, std::erf(x), nullptr)
HGRAPH_UNARY(FloorOp, std::floor(x), nullptr)
HGRAPH_UNARY(CeilOp, std::ceil(x), nullptr)
HGRAPH_UNARY(SinOp, std::sin(x), nullptr)
HGRAPH_UNARY(CosOp, std::cos(x), nullptr)
HGRAPH_UNARY(NotOp, double(x == 0), INT_FN(int64_t(x == 0)))
HGRAPH_UNARY(RoundOp, std::nearbyint(x), INT_FN(x))
// Integer types only (ONNX); the float form is never used.
HGRAPH_UNARY(BitwiseNotOp, double(~int64_t(x)), INT_FN(~x))
#undef INT_FN
#undef HGRAPH_UNARY

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("approximate must be \"none\" or \"tanh\", got \"")
           << getApproximate() << "\"";
  return success();
}

LogicalResult PointwiseOp::verify() {
  Type element = getType().getElementType();
  if (getFn() == PointwiseFn::sign ? !element.isIntOrFloat() || element.isInteger(1)
                                   : !isa<FloatType>(element))
    return emitOpError("'") << stringifyPointwiseFn(getFn())
                            << "' is not defined on " << element << " elements";
  return success();
}

/// Whether `type` is one of the 8-, 4- and 2-bit element types, whose
/// conversions only the chip's V_CAST implements.
static bool isNarrowType(Type type) {
  if (isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
          Float8E5M2FNUZType, Float8E8M0FNUType, Float4E2M1FNType>(type))
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  return integer && integer.getWidth() > 1 && integer.getWidth() < 8;
}

LogicalResult BitcastOp::verify() {
  Type from = getInput().getType().getElementType(),
       to = getType().getElementType();
  auto word = [](Type t) { return t.isF32() || t.isSignlessInteger(32); };
  if (getInput().getType().getShape() != getType().getShape())
    return emitOpError("input shape ")
           << shapeStr(getInput().getType().getShape()) << " and result shape "
           << shapeStr(getType().getShape()) << " differ";
  if (!word(from) || !word(to))
    return emitOpError("reinterprets f32 and i32 elements only, not ")
           << from << " as " << to;
  return success();
}

OpFoldResult BitcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    return dense.bitcast(getType().getElementType());
  return {};
}

LogicalResult CastOp::verify() {
  if (getInput().getType().getShape() != getType().getShape())
    return emitOpError("input shape ")
           << shapeStr(getInput().getType().getShape())
           << " and result shape " << shapeStr(getType().getShape())
           << " differ";
  if (std::optional<StringRef> mode = getRoundMode()) {
    if (*mode != "up" && *mode != "down" && *mode != "nearest")
      return emitOpError("round_mode must be \"up\", \"down\" or "
                         "\"nearest\", got \"")
             << *mode << "\"";
  }
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (isNarrowType(getInput().getType().getElementType()) ||
      isNarrowType(getType().getElementType()))
    return {};
  // Float to integer truncates toward zero; NaN and out-of-range values
  // are left to the device (no fold) since ONNX leaves them undefined.
  bool toInt = isa<IntegerType>(getType().getElementType());
  bool toBool = getType().getElementType().isInteger(1);
  return foldElementwise(
      {adaptor.getInput()}, getType(),
      [toInt, toBool](ArrayRef<double> v) -> double {
        if (toBool)
          return v[0] != 0;
        return toInt ? std::trunc(v[0]) : v[0];
      },
      [toBool](ArrayRef<int64_t> v) -> int64_t {
        return toBool ? v[0] != 0 : v[0];
      });
}

LogicalResult ClipOp::verify() {
  Type element = getInput().getType().getElementType();
  if (getType() != getInput().getType())
    return emitOpError("result type ")
           << getType() << " must equal the input type "
           << getInput().getType();
  for (Value bound : {getMin(), getMax()}) {
    if (!bound)
      continue;
    auto type = cast<ShapedType>(bound.getType());
    if (type.getNumElements() != 1 || type.getElementType() != element)
      return emitOpError("bounds must be single ")
             << element << " values, got " << type;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Comparison and selection
//===----------------------------------------------------------------------===//

namespace {

/// Checks a comparison: equal operand element types, an i1 result of the
/// broadcast shape.
LogicalResult verifyCompare(Operation *op, ShapedType lhs, ShapedType rhs,
                            ShapedType result) {
  if (lhs.getElementType() != rhs.getElementType())
    return op->emitOpError("operands must have one element type, got ")
           << lhs.getElementType() << " and " << rhs.getElementType();
  if (!result.getElementType().isInteger(1))
    return op->emitOpError("result must hold i1, got ")
           << result.getElementType();
  return verifyBroadcastShape(op, lhs.getShape(), rhs.getShape(),
                              result.getShape());
}

} // namespace

#define HGRAPH_COMPARE(OP, REL)                                                \
  LogicalResult OP::verify() {                                                 \
    return verifyCompare(*this, getLhs().getType(), getRhs().getType(),        \
                         getType());                                           \
  }                                                                            \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return foldElementwise(                                                    \
        {adaptor.getLhs(), adaptor.getRhs()}, getType(),                       \
        [](ArrayRef<double> v) -> double { return v[0] REL v[1]; },            \
        [](ArrayRef<int64_t> v) -> int64_t { return v[0] REL v[1]; });         \
  }
HGRAPH_COMPARE(EqualOp, ==)
HGRAPH_COMPARE(LessOp, <)
HGRAPH_COMPARE(LessOrEqualOp, <=)
HGRAPH_COMPARE(GreaterOp, >)
HGRAPH_COMPARE(GreaterOrEqualOp, >=)
#undef HGRAPH_COMPARE

LogicalResult WhereOp::verify() {
  ShapedType c = getCondition().getType(), a = getLhs().getType(),
             b = getRhs().getType();
  if (!c.getElementType().isInteger(1))
    return emitOpError("condition must hold i1, got ") << c.getElementType();
  if (a.getElementType() != b.getElementType() ||
      a.getElementType() != getType().getElementType())
    return emitOpError("operands and result must have one element type");
  SmallVector<int64_t> ab, abc;
  if (!OpTrait::util::getBroadcastedShape(a.getShape(), b.getShape(), ab) ||
      !OpTrait::util::getBroadcastedShape(ab, c.getShape(), abc))
    return emitOpError("operand shapes ")
           << shapeStr(c.getShape()) << ", " << shapeStr(a.getShape())
           << " and " << shapeStr(b.getShape()) << " do not broadcast";
  if (ArrayRef<int64_t>(abc) != getType().getShape())
    return emitOpError("result shape ")
           << shapeStr(getType().getShape())
           << " should be the broadcast shape " << shapeStr(abc);
  return success();
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      {adaptor.getCondition(), adaptor.getLhs(), adaptor.getRhs()}, getType(),
      [](ArrayRef<double> v) { return v[0] != 0 ? v[1] : v[2]; },
      [](ArrayRef<int64_t> v) { return v[0] != 0 ? v[1] : v[2]; });
}
