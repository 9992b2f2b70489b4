//===- ElementwisePatterns.cpp - Elementwise hgraph ops to htile ----------===//
//
// Arithmetic, comparisons, logic, unary math, where and cast: one
// htile.binary, htile.unary, htile.select or htile.cast each, with 8- and
// 16-bit integer arithmetic computed in i32 and wrapped back.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HGraphToHTile/Lowering.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::tiling;

namespace {

/// Where the vector unit defines elementwise `kind` on operands of `type`
/// (hisa::isDefinedOn: the comparisons are vcompare, the rest vbinary of
/// the same name); empty if it does.
StringRef binaryTypeProblem(htile::BinaryKind kind, Type type) {
  switch (kind) {
  case htile::BinaryKind::equal:
  case htile::BinaryKind::less:
  case htile::BinaryKind::less_equal:
  case htile::BinaryKind::greater:
  case htile::BinaryKind::greater_equal:
    return hisa::isComparisonDefinedOn(type) ? "" : hisa::kComparisonTypes;
  default: {
    hisa::VBinaryKind vector =
        *hisa::symbolizeVBinaryKind(htile::stringifyBinaryKind(kind));
    return hisa::isDefinedOn(vector, type) ? StringRef()
                                           : hisa::typesDefinedOn(vector);
  }
  }
}

/// Whether `kind`'s result on 8-bit integers is always an 8-bit integer
/// (or a bool), so that computing it in i32 and converting back is exact.
bool staysInRange(htile::BinaryKind kind) {
  switch (kind) {
  case htile::BinaryKind::and_:
  case htile::BinaryKind::or_:
  case htile::BinaryKind::xor_:
  case htile::BinaryKind::max:
  case htile::BinaryKind::min:
  case htile::BinaryKind::mod:
  case htile::BinaryKind::fmod:
  case htile::BinaryKind::shr:
  case htile::BinaryKind::equal:
  case htile::BinaryKind::less:
  case htile::BinaryKind::less_equal:
  case htile::BinaryKind::greater:
  case htile::BinaryKind::greater_equal:
    return true;
  default:
    return false;
  }
}

/// The kinds whose results may leave an 8- or 16-bit range and wrap.
bool wraps(htile::BinaryKind kind) {
  return kind == htile::BinaryKind::add || kind == htile::BinaryKind::sub ||
         kind == htile::BinaryKind::mul || kind == htile::BinaryKind::div ||
         kind == htile::BinaryKind::shl;
}

} // namespace

LogicalResult tiling::lowerBinary(Operation *op, htile::BinaryKind kind,
                                  const KernelBuilder &kernels) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Value result = op->getResult(0);
  if (IntegerType narrow = wrappingType(elementOf(lhs));
      narrow && wraps(kind)) {
    // Computed in i32 and wrapped into the type's range, as ONNX's
    // two's-complement arithmetic does.
    Location loc = op->getLoc();
    Type i32 = kernels.builder.getI32Type();
    Value rhs32 = kernels.castKernel(loc, kernels.buffer(rhs), i32);
    Value lhs32 = kernels.castKernel(loc, kernels.buffer(lhs), i32);
    ArrayRef<int64_t> shape = cast<ShapedType>(result.getType()).getShape();
    Value wide = kernels.binaryKernel(loc, kind, lhs32, rhs32, shape, i32);
    kernels.map(result,
                kernels.castKernel(
                    loc, kernels.wrapKernel(loc, wide, shape, narrow), narrow));
    return success();
  }
  if (hisa::isNarrowHeld(elementOf(lhs)) && !staysInRange(kind))
    return narrowHeldError(op, htile::stringifyBinaryKind(kind),
                           elementOf(lhs));
  if (isByte(laneOf(lhs)) && staysInRange(kind)) {
    // The vector unit only converts 8-bit lanes: widen to i32, compute,
    // and narrow the result, which fits, back.
    Location loc = op->getLoc();
    Type i32 = kernels.builder.getI32Type();
    Value rhs32 = kernels.castKernel(loc, kernels.buffer(rhs), i32);
    Value lhs32 = kernels.castKernel(loc, kernels.buffer(lhs), i32);
    auto type = cast<ShapedType>(result.getType());
    bool compare = type.getElementType().isSignlessInteger(1);
    Value out = kernels.binaryKernel(loc, kind, lhs32, rhs32, type.getShape(),
                                     compare ? type.getElementType() : i32);
    kernels.map(result,
                compare ? out
                        : kernels.castKernel(loc, out, type.getElementType()));
    return success();
  }
  if (StringRef where = binaryTypeProblem(kind, laneOf(lhs)); !where.empty())
    return op->emitError("'")
           << htile::stringifyBinaryKind(kind) << "' on " << elementOf(lhs)
           << " is not supported on the chip; it runs on " << where;
  ElementwiseLayout layout = kernels.elementwiseLayout({lhs, rhs}, result);
  SmallVector<int64_t> shape = layout.shape;
  // htile.binary broadcasts either operand as numpy does. A small constant
  // that broadcasts along a whole row is expanded to that row here, which
  // saves the chip spreading one lane over the vector for every row; where
  // the other operand is full and of 32-bit lanes, the kernel may run in
  // splatCopiesShape, the constant two copies of its row.
  auto rowConstant = [&](Value v, ArrayRef<int64_t> operandShape) {
    DenseElementsAttr dense;
    return !shape.empty() && operandShape != ArrayRef<int64_t>(shape) &&
           (operandShape.empty() || operandShape.back() == 1) &&
           matchPattern(v, m_Constant(&dense)) && dense.getNumElements() == 1;
  };
  bool lhsConstant = rowConstant(lhs, layout.operands[0]),
       rhsConstant = rowConstant(rhs, layout.operands[1]);
  SmallVector<SmallVector<int64_t>> operandShapes = layout.operands;
  SmallVector<int64_t> resultShape = shape;
  int64_t copies = 1;
  if (lhsConstant != rhsConstant &&
      operandShapes[lhsConstant ? 1 : 0] == shape &&
      laneOf(lhs).getIntOrFloatBitWidth() == 32) {
    SmallVector<int64_t> copiesShape = kernels.splatCopiesShape(shape);
    if (copiesShape.size() != shape.size() || copiesShape != shape) {
      copies = copiesShape[copiesShape.size() - 2];
      shape = copiesShape;
      operandShapes[lhsConstant ? 1 : 0] = copiesShape;
    }
  }
  auto operandBuffer = [&](Value v, bool constant,
                           ArrayRef<int64_t> operandShape) {
    if (constant) {
      DenseElementsAttr dense;
      matchPattern(v, m_Constant(&dense));
      return kernels.splatRows(op->getLoc(),
                               cast<TypedAttr>(*dense.getValues<Attribute>().begin()),
                               copies, shape.back());
    }
    return kernels.bufferAs(v, operandShape);
  };
  Value rhsBuffer = operandBuffer(rhs, rhsConstant, operandShapes[1]);
  Value lhsBuffer = operandBuffer(lhs, lhsConstant, operandShapes[0]);
  Value out =
      kernels.alloc(MemRefType::get(shape, elementOf(result)), op->getLoc());
  htile::BinaryOp::create(kernels.builder, op->getLoc(), kind, lhsBuffer,
                          rhsBuffer, out);
  // Readers see the result in the layout's rows, not split for the copies.
  kernels.map(result, kernels.regroup(op->getLoc(), out, resultShape));
  return success();
}

namespace {

/// A buffer for the result of the elementwise `op`, in the rows its
/// operand `input` is held in.
Value allocLike(Operation *op, Value input, const KernelBuilder &kernels) {
  auto lying = cast<MemRefType>(input.getType());
  return kernels.alloc(
      MemRefType::get(lying.getShape(), elementOf(op->getResult(0))),
      op->getLoc());
}

} // namespace

namespace {

LogicalResult lowerUnary(Operation *op, hisa::VUnaryKind kind,
                         const KernelBuilder &kernels) {
  if (hisa::isNarrowHeld(elementOf(op->getOperand(0))))
    return narrowHeldError(op, hisa::stringifyVUnaryKind(kind),
                           elementOf(op->getOperand(0)));
  Type type = laneOf(op->getOperand(0));
  if (!hisa::isDefinedOn(kind, type))
    return op->emitError("'")
           << hisa::stringifyVUnaryKind(kind) << "' on " << type
           << " is not supported on the chip; it runs on "
           << hisa::typesDefinedOn(kind);
  Value input = kernels.held(op->getOperand(0));
  Value out = allocLike(op, input, kernels);
  htile::UnaryOp::create(kernels.builder, op->getLoc(), kind, input, out);
  kernels.map(op->getResult(0), out);
  return success();
}

LogicalResult lowerWhere(hgraph::WhereOp op, const KernelBuilder &kernels) {
  ElementwiseLayout layout = kernels.elementwiseLayout(
      {op.getCondition(), op.getLhs(), op.getRhs()}, op.getResult());
  Value condition = kernels.bufferAs(op.getCondition(), layout.operands[0]);
  Value lhs = kernels.bufferAs(op.getLhs(), layout.operands[1]);
  Value rhs = kernels.bufferAs(op.getRhs(), layout.operands[2]);
  Value out = kernels.alloc(
      MemRefType::get(layout.shape, elementOf(op.getResult())), op.getLoc());
  htile::SelectOp::create(kernels.builder, op.getLoc(), condition, lhs, rhs,
                          out);
  kernels.map(op.getResult(), out);
  return success();
}

LogicalResult lowerCast(hgraph::CastOp op, const KernelBuilder &kernels) {
  Type to = op.getType().getElementType();
  if (hisa::isNarrowHeld(to))
    return narrowHeldError(op, "cast to", to);
  // ONNX Cast wraps to the 4- and 2-bit integers (V_CAST's wrap), and
  // saturate=0 and round_mode carry over to V_CAST.
  htile::CastOverflowAttr overflow;
  if (hisa::isNarrowLane(to) && isa<IntegerType>(to))
    overflow = kernels.builder.getAttr<htile::CastOverflowAttr>(
        htile::CastOverflow::wrap);
  else if (op.getNoSaturate() && hisa::isNarrowLane(to) && isa<FloatType>(to))
    overflow = kernels.builder.getAttr<htile::CastOverflowAttr>(
        htile::CastOverflow::no_saturate);
  htile::E8M0RoundingAttr rounding;
  if (isa<Float8E8M0FNUType>(to) && op.getRoundMode())
    rounding = kernels.builder.getAttr<htile::E8M0RoundingAttr>(
        *htile::symbolizeE8M0Rounding(*op.getRoundMode()));
  Value input = kernels.held(op.getInput());
  Value out = allocLike(op, input, kernels);
  htile::CastOp::create(kernels.builder, op.getLoc(), input, out, overflow,
                        rounding);
  kernels.map(op.getResult(), out);
  return success();
}

/// f32 and i32 are one 32-bit lane word each: the result is the input's
/// buffer, seen with the other element type.
LogicalResult lowerBitcast(hgraph::BitcastOp op, const KernelBuilder &kernels) {
  Value input = kernels.held(op.getInput());
  auto held = cast<MemRefType>(input.getType());
  Value view = htile::ViewOp::create(
      kernels.builder, op.getLoc(),
      MemRefType::get(held.getShape(), op.getType().getElementType()), input);
  kernels.map(op.getResult(), view);
  return success();
}

template <typename OpTy, htile::BinaryKind Kind>
using BinaryPattern =
    LowerWithParam<OpTy, htile::BinaryKind, Kind, tiling::lowerBinary>;

template <typename OpTy, hisa::VUnaryKind Kind>
using UnaryPattern = LowerWithParam<OpTy, hisa::VUnaryKind, Kind, lowerUnary>;

} // namespace

void tiling::populateElementwisePatterns(RewritePatternSet &patterns,
                                         const TypeConverter &converter,
                                         LoweringState &state) {
  using K = htile::BinaryKind;
  using U = hisa::VUnaryKind;
  patterns.add<BinaryPattern<hgraph::AddOp, K::add>,
               BinaryPattern<hgraph::SubOp, K::sub>,
               BinaryPattern<hgraph::MulOp, K::mul>,
               BinaryPattern<hgraph::DivOp, K::div>,
               BinaryPattern<hgraph::MinOp, K::min>,
               BinaryPattern<hgraph::MaxOp, K::max>,
               BinaryPattern<hgraph::PowOp, K::pow>,
               BinaryPattern<hgraph::ModOp, K::mod>,
               BinaryPattern<hgraph::FModOp, K::fmod>,
               BinaryPattern<hgraph::AndOp, K::and_>,
               BinaryPattern<hgraph::OrOp, K::or_>,
               BinaryPattern<hgraph::XorOp, K::xor_>,
               BinaryPattern<hgraph::EqualOp, K::equal>,
               BinaryPattern<hgraph::LessOp, K::less>,
               BinaryPattern<hgraph::LessOrEqualOp, K::less_equal>,
               BinaryPattern<hgraph::GreaterOp, K::greater>,
               BinaryPattern<hgraph::GreaterOrEqualOp, K::greater_equal>>(
      converter, patterns.getContext(), state);
  patterns.add<
      UnaryPattern<hgraph::ReluOp, U::relu>,
      UnaryPattern<hgraph::SigmoidOp, U::sigmoid>,
      UnaryPattern<hgraph::TanhOp, U::tanh>,
      UnaryPattern<hgraph::ExpOp, U::exp>, UnaryPattern<hgraph::NegOp, U::neg>,
      UnaryPattern<hgraph::AbsOp, U::abs>,
      UnaryPattern<hgraph::SqrtOp, U::sqrt>,
      UnaryPattern<hgraph::ReciprocalOp, U::reciprocal>,
      UnaryPattern<hgraph::LogOp, U::log>, UnaryPattern<hgraph::ErfOp, U::erf>,
      UnaryPattern<hgraph::FloorOp, U::floor>,
      UnaryPattern<hgraph::CeilOp, U::ceil>,
      UnaryPattern<hgraph::SinOp, U::sin>, UnaryPattern<hgraph::CosOp, U::cos>,
      UnaryPattern<hgraph::NotOp, U::not_>,
      UnaryPattern<hgraph::RoundOp, U::round>>(converter, patterns.getContext(),
                                               state);
  patterns.add<LowerWith<hgraph::WhereOp, lowerWhere>,
               LowerWith<hgraph::CastOp, lowerCast>,
               LowerWith<hgraph::BitcastOp, lowerBitcast>>(
      converter, patterns.getContext(), state);
}
