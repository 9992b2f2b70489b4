//===- BitwisePatterns.cpp - Bitwise hgraph ops to htile
//--------------------===//
//
// Bitwise and/or/xor/not and shifts of integers, computed in i32 lanes
// (sign- or zero-extended) and wrapped back into narrow types.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HGraphToHTile/Lowering.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::tiling;

namespace {

/// Bitwise and/or/xor of integers of any width, on their i32 lanes.
LogicalResult lowerBitwise(Operation *op, htile::BinaryKind kind,
                           const KernelBuilder &kernels) {
  // The bits of sign- or zero-extended integers combine into the
  // extension of the result, so every integer type runs in its i32 lanes.
  Type type = elementOf(op->getOperand(0));
  if (!isa<IntegerType>(type) || isBool(type))
    return op->emitError("bitwise ")
           << htile::stringifyBinaryKind(kind) << " on " << type
           << " is not supported; it takes integers";
  return lowerBinary(op, kind, kernels);
}

/// BitShift: logical left shifts wrapped into the type's range; right
/// shifts logical for unsigned and arithmetic for signed integers.
LogicalResult lowerShift(Operation *op, bool left,
                         const KernelBuilder &kernels) {
  // Computed on i32 lanes (sign- or zero-extended). A left shift keeps the
  // low bits of the type (a count of its width or more leaves 0); an
  // arithmetic right shift is ~(~x >> y) for negative x, so that counts
  // past the width give -1, as ONNX's BitShift does.
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Type type = elementOf(lhs);
  auto integer = dyn_cast<IntegerType>(type);
  StringRef name = left ? "shift_left" : "shift_right";
  bool wide = integer && integer.getWidth() > 16;
  // A left shift of the types held in i32 lanes (ui32, i64, ui64) could
  // leave the range the lanes hold.
  if (!integer || isBool(type) || (left && wide && hisa::isNarrowHeld(type)))
    return op->emitError("'")
           << name << "' on " << type
           << " is not supported on the chip; it runs on i8, ui8, i16, ui16 "
              "and i32"
           << (left ? "" : ", and ui32, i64 and ui64 held as i32");
  Location loc = op->getLoc();
  Type i32 = kernels.builder.getI32Type();
  ArrayRef<int64_t> xShape = cast<ShapedType>(lhs.getType()).getShape();
  ArrayRef<int64_t> shape =
      cast<ShapedType>(op->getResult(0).getType()).getShape();
  int64_t xRow = xShape.empty() ? 1 : xShape.back();
  Value x = kernels.buffer(lhs), y = kernels.buffer(rhs);
  if (!isI32(laneOf(lhs)))
    x = kernels.castKernel(loc, x, i32);
  if (!isI32(laneOf(rhs)))
    y = kernels.castKernel(loc, y, i32);
  Value result;
  if (left) {
    result =
        kernels.binaryKernel(loc, htile::BinaryKind::shl, x, y, shape, i32);
    if (!wide)
      result = kernels.wrapKernel(loc, result, shape, integer);
  } else if (integer.isUnsigned()) {
    result =
        kernels.binaryKernel(loc, htile::BinaryKind::shr, x, y, shape, i32);
  } else {
    Value ones = kernels.splatRow(loc, xRow, -1);
    Value flipped = kernels.binaryKernel(loc, htile::BinaryKind::xor_, x, ones,
                                         xShape, i32);
    Value low = kernels.binaryKernel(loc, htile::BinaryKind::shr, flipped, y,
                                     shape, i32);
    Value negativeShift = kernels.binaryKernel(
        loc, htile::BinaryKind::xor_, low,
        kernels.splatRow(loc, shape.empty() ? 1 : shape.back(), -1), shape,
        i32);
    Value positiveShift =
        kernels.binaryKernel(loc, htile::BinaryKind::shr, x, y, shape, i32);
    Value negative = kernels.binaryKernel(loc, htile::BinaryKind::less, x,
                                          kernels.splatRow(loc, xRow, 0),
                                          xShape, kernels.builder.getI1Type());
    result = kernels.alloc(MemRefType::get(shape, i32), loc);
    htile::SelectOp::create(kernels.builder, loc, negative, negativeShift,
                            positiveShift, result);
  }
  kernels.map(op->getResult(0), isI32(laneOf(lhs))
                                    ? result
                                    : kernels.castKernel(loc, result, type));
  return success();
}

LogicalResult lowerBitwiseNot(hgraph::BitwiseNotOp op,
                              const KernelBuilder &kernels) {
  // ~x = x xor -1 in i32; unsigned 8- and 16-bit results wrap back into
  // their range.
  Type type = elementOf(op.getInput());
  IntegerType narrow = wrappingType(type);
  if (!isa<IntegerType>(type) || isBool(type) ||
      (hisa::isNarrowHeld(type) && !narrow))
    return op.emitError("bitwise_not on ")
           << type << " is not supported on the chip; it runs on i8, ui8, "
           << "i16, ui16, i32 and i64";
  Location loc = op.getLoc();
  Type i32 = kernels.builder.getI32Type();
  ArrayRef<int64_t> shape = op.getType().getShape();
  int64_t row = shape.empty() ? 1 : shape.back();
  Value x = kernels.buffer(op.getInput());
  if (!isI32(laneOf(op.getInput())))
    x = kernels.castKernel(loc, x, i32);
  Value flipped =
      kernels.binaryKernel(loc, htile::BinaryKind::xor_, x,
                           kernels.splatRow(loc, row, -1), shape, i32);
  if (narrow && narrow.isUnsigned())
    flipped = kernels.wrapKernel(loc, flipped, shape, narrow);
  kernels.map(op.getResult(), kernels.castKernel(loc, flipped, type));
  return success();
}

template <typename OpTy, htile::BinaryKind Kind>
using BitwisePattern =
    LowerWithParam<OpTy, htile::BinaryKind, Kind, lowerBitwise>;

template <typename OpTy, bool Left>
using ShiftPattern = LowerWithParam<OpTy, bool, Left, lowerShift>;

} // namespace

void tiling::populateBitwisePatterns(RewritePatternSet &patterns,
                                     const TypeConverter &converter,
                                     LoweringState &state) {
  patterns.add<BitwisePattern<hgraph::BitwiseAndOp, htile::BinaryKind::and_>,
               BitwisePattern<hgraph::BitwiseOrOp, htile::BinaryKind::or_>,
               BitwisePattern<hgraph::BitwiseXorOp, htile::BinaryKind::xor_>,
               ShiftPattern<hgraph::ShiftLeftOp, true>,
               ShiftPattern<hgraph::ShiftRightOp, false>,
               LowerWith<hgraph::BitwiseNotOp, lowerBitwiseNot>>(
      converter, patterns.getContext(), state);
}
