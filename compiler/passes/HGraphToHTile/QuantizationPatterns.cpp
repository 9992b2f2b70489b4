//===- QuantizationPatterns.cpp - Quantisation hgraph ops to htile
//----------===//
//
// QuantizeLinear and DequantizeLinear as scale, round, offset and a
// saturating cast on the vector unit; MatMulInteger on the matrix unit with
// its zero points corrected by sums, all exact in i32.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HGraphToHTile/Lowering.h"

#include "mlir/IR/Matchers.h"

#include <tuple>

using namespace mlir;
using namespace hetc;
using namespace hetc::tiling;

namespace {

/// The buffer of a per-tensor (one element) or per-axis (1-D along
/// `axis`) quantisation parameter, shaped to broadcast against a tensor
/// of `shape`. A constant of one element is a full row of it, which the
/// vector unit reads as it is (a one-element row would be spread over
/// every vector it meets), or `copies` rows of it (splatCopiesShape).
Value axisParameter(Location loc, Value parameter, int64_t axis,
                    ArrayRef<int64_t> shape, const KernelBuilder &kernels,
                    int64_t copies = 1) {
  int64_t rank = int64_t(shape.size());
  DenseElementsAttr dense;
  if (rank > 0 && matchPattern(parameter, m_Constant(&dense)) &&
      dense.getNumElements() == 1)
    return kernels.splatRows(
        loc, cast<TypedAttr>(*dense.getValues<Attribute>().begin()), copies,
        shape.back());
  Value b = kernels.buffer(parameter);
  auto type = cast<MemRefType>(b.getType());
  if (type.getNumElements() == 1 || rank - axis <= 1)
    return b;
  // [C] -> [C, 1, ..., 1]: the values become a column, which changes the
  // row length, so they move with a gather.
  SmallVector<int64_t> column(rank - axis, 1);
  column[0] = type.getNumElements();
  Value out = kernels.alloc(MemRefType::get(column, type.getElementType()), loc);
  kernels.move(loc, ValueRange{b}, out,
               gather::identity(type.getNumElements()));
  return out;
}

/// Whether `value` is a constant whose elements are all zero.
bool isZeroConstant(Value value) {
  DenseElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)))
    return false;
  if (!dense.getElementType().isIntOrIndex())
    return false;
  return llvm::all_of(dense.getValues<APInt>(),
                      [](const APInt &v) { return v.isZero(); });
}

/// Whether `value` is a float constant whose elements are all 1.
bool isOneConstant(Value value) {
  DenseElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)) ||
      !isa<FloatType>(dense.getElementType()))
    return false;
  return llvm::all_of(dense.getValues<APFloat>(),
                      [](const APFloat &v) { return v.isExactlyValue(1.0); });
}

/// The buffer a quantisation reads `input` from and the shape its kernels
/// run in: the input as it lies (a feature map held a map a row stays so)
/// when its scale and zero point are one value each, else the tensor's own
/// shape, which a per-axis parameter broadcasts against.
struct QuantizationLayout {
  Value input;
  SmallVector<int64_t> shape;
  /// The rows the result is seen in: `shape` without the split for copies.
  SmallVector<int64_t> resultShape;
  /// The copies of a one-value parameter's row (splatCopiesShape).
  int64_t copies = 1;
};

QuantizationLayout quantizationLayout(Location loc, Value input, Value scale,
                                      Value zero,
                                      const KernelBuilder &kernels) {
  auto single = [](Value v) {
    return !v || cast<ShapedType>(v.getType()).getNumElements() == 1;
  };
  if (single(scale) && single(zero)) {
    Value held = kernels.held(input);
    auto type = cast<MemRefType>(held.getType());
    SmallVector<int64_t> shape = kernels.splatCopiesShape(type.getShape());
    int64_t copies = ArrayRef<int64_t>(shape) != type.getShape()
                         ? shape[shape.size() - 2]
                         : 1;
    return {kernels.regroup(loc, held, shape), shape,
            SmallVector<int64_t>(type.getShape()), copies};
  }
  SmallVector<int64_t> shape(cast<ShapedType>(input.getType()).getShape());
  return {kernels.buffer(input), shape, shape, 1};
}

LogicalResult lowerQuantize(hgraph::QuantizeLinearOp op,
                            const KernelBuilder &kernels) {
  // y = saturate(round(x / scale) + zero_point), rounding half to even, as
  // docs/isa.md spells out: V_DIV, V_ROUND, V_ADD, then a saturating
  // V_CAST.
  Type floatType = elementOf(op.getInput());
  if (!hisa::isFloatLane(floatType) || elementOf(op.getScale()) != floatType)
    return op.emitError("quantising ")
           << floatType << " with a " << elementOf(op.getScale())
           << " scale is not supported on the chip; the input and the "
              "scale must be f32, f16 or bf16 of one type";
  Type outType = op.getType().getElementType();
  if (isa<FloatType>(outType)) {
    // An 8- or 4-bit float result: x / scale + zero_point, rounded to the
    // type by a saturating V_CAST (no V_ROUND). A float8 zero point must
    // be zero and is left out, as the ONNX reference does (so that -0
    // stays -0); the frontend refuses a constant one that is not.
    Location loc = op.getLoc();
    ArrayRef<int64_t> shape = op.getType().getShape();
    int64_t rank = shape.size(), axis = int64_t(op.getAxis());
    Value scale = axisParameter(loc, op.getScale(), axis, shape, kernels);
    Value q = kernels.binaryKernel(loc, htile::BinaryKind::div,
                                   kernels.buffer(op.getInput()), scale, shape,
                                   floatType);
    if (op.getZeroPoint() && outType.getIntOrFloatBitWidth() != 8)
      q = kernels.binaryKernel(
          loc, htile::BinaryKind::add, q,
          kernels.castKernel(
              loc, axisParameter(loc, op.getZeroPoint(), axis, shape, kernels),
              floatType),
          shape, floatType);
    kernels.map(op.getResult(), kernels.castKernel(loc, q, outType));
    return success();
  }
  IntegerType held = wrappingType(outType);
  // i16 and ui16 results are clamped in f32 (below), where their bounds
  // are exact.
  if (hisa::isNarrowHeld(outType) && (!held || !floatType.isF32()))
    return narrowHeldError(op, "quantize to", outType);
  Location loc = op.getLoc();
  auto [x, shape, resultShape, copies] = quantizationLayout(
      loc, op.getInput(), op.getScale(), op.getZeroPoint(), kernels);
  int64_t axis = int64_t(op.getAxis());
  // A constant zero point of 0 adds nothing and a constant scale of 1
  // divides nothing (hetc-hgraph-fuse-quantized gives a requantisation
  // scale 1, its scale already in the sums' columns).
  Value scale = isOneConstant(op.getScale())
                    ? Value()
                    : axisParameter(loc, op.getScale(), axis, shape, kernels, copies);
  Value zero =
      op.getZeroPoint() && !isZeroConstant(op.getZeroPoint())
          ? kernels.castKernel(
                loc, axisParameter(loc, op.getZeroPoint(), axis, shape, kernels, copies),
                floatType)
          : Value();
  Value q = scale ? kernels.binaryKernel(loc, htile::BinaryKind::div, x, scale,
                                         shape, floatType)
                  : x;
  Value rounded = kernels.alloc(MemRefType::get(shape, floatType), loc);
  htile::UnaryOp::create(kernels.builder, loc, hisa::VUnaryKind::round, q,
                         rounded);
  if (zero)
    rounded = kernels.binaryKernel(loc, htile::BinaryKind::add, rounded, zero,
                                   shape, floatType);
  if (held && hisa::isNarrowHeld(outType)) {
    // i16 and ui16 are held as i32, whose cast saturates at the int32
    // range: clamp to the type's range first.
    int64_t row = shape.empty() ? 1 : shape.back();
    auto bound = [&](double value) {
      auto type = RankedTensorType::get({row}, floatType);
      return htile::ConstantOp::create(
          kernels.builder, loc, MemRefType::get({row}, floatType),
          DenseElementsAttr::get(
              type, kernels.builder.getFloatAttr(floatType, value)),
          IntegerAttr());
    };
    bool isSigned = !held.isUnsigned();
    double lo = isSigned ? -32768.0 : 0.0, hi = isSigned ? 32767.0 : 65535.0;
    rounded = kernels.binaryKernel(loc, htile::BinaryKind::max, rounded,
                                   bound(lo), shape, floatType);
    rounded = kernels.binaryKernel(loc, htile::BinaryKind::min, rounded,
                                   bound(hi), shape, floatType);
  }
  kernels.map(op.getResult(),
              kernels.regroup(loc, kernels.castKernel(loc, rounded, outType),
                              resultShape));
  return success();
}

LogicalResult lowerDequantize(hgraph::DequantizeLinearOp op,
                              const KernelBuilder &kernels) {
  // y = (x - zero_point) * scale, in the scale's float type.
  Type floatType = op.getType().getElementType();
  if (!hisa::isFloatLane(floatType))
    return op.emitError("dequantising to ")
           << floatType << " is not supported on the chip; the scale must "
           << "be f32, f16 or bf16";
  Location loc = op.getLoc();
  auto [input, shape, resultShape, copies] = quantizationLayout(
      loc, op.getInput(), op.getScale(), op.getZeroPoint(), kernels);
  int64_t axis = int64_t(op.getAxis());
  Value x = kernels.castKernel(loc, input, floatType);
  Value scale = axisParameter(loc, op.getScale(), axis, shape, kernels, copies);
  // A constant zero point of 0 subtracts nothing.
  if (op.getZeroPoint() && !isZeroConstant(op.getZeroPoint())) {
    Value zero = kernels.castKernel(
        loc, axisParameter(loc, op.getZeroPoint(), axis, shape, kernels, copies),
        floatType);
    x = kernels.binaryKernel(loc, htile::BinaryKind::sub, x, zero, shape,
                             floatType);
  }
  kernels.map(op.getResult(),
              kernels.regroup(loc,
                              kernels.binaryKernel(loc, htile::BinaryKind::mul,
                                                   x, scale, shape, floatType),
                              resultShape));
  return success();
}

LogicalResult lowerMatMulInteger(hgraph::MatMulIntegerOp op,
                                 const KernelBuilder &kernels) {
  Value lhs = op.getLhs(), rhs = op.getRhs();
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  if (!isByte(lhsType.getElementType()) || !isByte(rhsType.getElementType()))
    return op.emitError("matmul_integer of ")
           << lhsType.getElementType() << " by " << rhsType.getElementType()
           << " is not supported on the chip; the matrix unit multiplies "
              "i8 and ui8";
  if (lhsType.getRank() != 2 || rhsType.getRank() != 2)
    return op.emitError("matmul_integer of ")
           << lhsType << " by " << rhsType
           << " is not supported on the chip yet; supported: 2-D operands";
  Value za = op.getLhsZeroPoint(), zb = op.getRhsZeroPoint();
  int64_t m = lhsType.getDimSize(0), k = lhsType.getDimSize(1),
          n = rhsType.getDimSize(1);
  // One zero point per operand, or one per row of A (`m`) and one per
  // column of B (`n`), as ONNX allows.
  for (auto [z, count, what] :
       {std::tuple(za, m, "row of the left operand"),
        std::tuple(zb, n, "column of the right operand")}) {
    if (!z)
      continue;
    auto type = cast<ShapedType>(z.getType());
    if (type.getNumElements() != 1 &&
        (type.getRank() != 1 || type.getDimSize(0) != count))
      return op.emitError("zero point ")
             << type << " must hold one value, or one per " << what << " ("
             << count << ")";
  }
  if (za && isZeroConstant(za))
    za = Value();
  if (zb && isZeroConstant(zb))
    zb = Value();
  // (A - za)(B - zb) = AB - za colsum(B) - zb rowsum(A) + K za zb, with
  // the sums as products by ones on the matrix unit, all exact in i32. A
  // zero point per row of A is a column [m, 1]; one per column of B is a
  // row [n], which broadcasts as one.
  Location loc = op.getLoc();
  Type i32 = kernels.builder.getI32Type();
  auto tile = kernels.matmulTile();
  auto matmul = [&](Value a, Value b, ArrayRef<int64_t> shape) {
    Value out = kernels.alloc(MemRefType::get(shape, i32), loc);
    htile::MatMulOp::create(kernels.builder, loc, a, b, Value(), Value(), out,
                            htile::Activation::none, tile, false,
                            IntegerAttr());
    return out;
  };
  auto ones = [&](ArrayRef<int64_t> shape) {
    Type u8 = IntegerType::get(kernels.builder.getContext(), 8,
                               IntegerType::Unsigned);
    auto type = RankedTensorType::get(shape, u8);
    return htile::ConstantOp::create(
        kernels.builder, loc, MemRefType::get(shape, u8),
        DenseElementsAttr::get(type, kernels.builder.getIntegerAttr(u8, 1)),
        IntegerAttr());
  };
  Value a = kernels.buffer(lhs), b = kernels.buffer(rhs);
  auto perEntry = [](Value z) {
    return cast<ShapedType>(z.getType()).getNumElements() != 1;
  };
  bool rowsA = za && perEntry(za), columnsB = zb && perEntry(zb);
  Value za32 =
      za ? kernels.castKernel(loc,
                              rowsA ? axisParameter(loc, za, 0, {m, n}, kernels)
                                    : kernels.buffer(za),
                              i32)
         : Value();
  Value zb32 = zb ? kernels.castKernel(loc, kernels.buffer(zb), i32) : Value();
  Value y = matmul(a, b, {m, n});
  if (za) {
    Value colSums = matmul(ones({1, k}), b, {1, n});
    Value t = kernels.binaryKernel(loc, htile::BinaryKind::mul, colSums, za32,
                                   {rowsA ? m : 1, n}, i32);
    y = kernels.binaryKernel(loc, htile::BinaryKind::sub, y, t, {m, n}, i32);
  }
  if (zb) {
    Value rowSums = matmul(a, ones({k, 1}), {m, 1});
    Value t = kernels.binaryKernel(loc, htile::BinaryKind::mul, rowSums, zb32,
                                   {m, columnsB ? n : 1}, i32);
    y = kernels.binaryKernel(loc, htile::BinaryKind::sub, y, t, {m, n}, i32);
  }
  if (za && zb) {
    auto za32Type = cast<MemRefType>(za32.getType());
    auto countType = RankedTensorType::get(za32Type.getShape(), i32);
    Value count = htile::ConstantOp::create(
        kernels.builder, loc, za32Type,
        DenseElementsAttr::get(countType,
                               kernels.builder.getI32IntegerAttr(int32_t(k))),
        IntegerAttr());
    Value kza = kernels.binaryKernel(loc, htile::BinaryKind::mul, za32, count,
                                     za32Type.getShape(), i32);
    SmallVector<int64_t> bothShape;
    if (rowsA)
      bothShape = {m, columnsB ? n : 1};
    else if (columnsB)
      bothShape = {n};
    else
      bothShape.assign(cast<MemRefType>(zb32.getType()).getShape().size() >=
                               za32Type.getShape().size()
                           ? cast<MemRefType>(zb32.getType()).getShape()
                           : za32Type.getShape());
    Value both = kernels.binaryKernel(loc, htile::BinaryKind::mul, kza, zb32,
                                      bothShape, i32);
    y = kernels.binaryKernel(loc, htile::BinaryKind::add, y, both, {m, n}, i32);
  }
  kernels.map(op.getResult(), y);
  return success();
}

} // namespace

void tiling::populateQuantizationPatterns(RewritePatternSet &patterns,
                                          const TypeConverter &converter,
                                          LoweringState &state) {
  patterns.add<LowerWith<hgraph::QuantizeLinearOp, lowerQuantize>,
               LowerWith<hgraph::DequantizeLinearOp, lowerDequantize>,
               LowerWith<hgraph::MatMulIntegerOp, lowerMatMulInteger>>(
      converter, patterns.getContext(), state);
}
