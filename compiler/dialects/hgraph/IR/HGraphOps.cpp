//===- HGraphOps.cpp - hgraph verifiers and folders -------------------===//

#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/dialects/hgraph/IR/HGraphFold.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <cstring>
#include <vector>

using namespace mlir;
using namespace hetc::hgraph;

#define GET_OP_CLASSES
#include "compiler/dialects/hgraph/IR/HGraphOps.cpp.inc"

namespace {

/// Checks that `result` is the ONNX broadcast of `lhs` and `rhs`.
LogicalResult verifyBroadcast(Operation *op, ShapedType lhs, ShapedType rhs,
                              ShapedType result) {
  if (lhs.getElementType() != rhs.getElementType() ||
      lhs.getElementType() != result.getElementType())
    return op->emitOpError("operands and result must have one element type");
  return verifyBroadcastShape(op, lhs.getShape(), rhs.getShape(),
                              result.getShape());
}

} // namespace

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  if (getValue().getType() != getType())
    return emitOpError("value type ")
           << getValue().getType() << " does not match result type "
           << getType();
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult ConstantOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  auto *props = properties.as<Properties *>();
  if (!props || !props->value)
    return failure();
  inferred.push_back(props->value.getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// The remainder of a / b with the divisor's sign (Python's %); integer
/// remainders by zero are 0, as on the chip.
static double flooredRemainder(double a, double b) {
  double r = std::fmod(a, b);
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}
static int64_t flooredRemainder(int64_t a, int64_t b) {
  if (b == 0 || b == -1)
    return 0;
  int64_t r = a % b;
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

#define HGRAPH_BINARY(OP, FEXPR, IEXPR)                                       \
  LogicalResult OP::verify() {                                                 \
    return verifyBroadcast(*this, getLhs().getType(), getRhs().getType(),      \
                           getType());                                         \
  }                                                                            \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return foldElementwise(                                                    \
        {adaptor.getLhs(), adaptor.getRhs()}, getType(),                       \
        [](ArrayRef<double> v) -> double {                                     \
          double a = v[0], b = v[1];                                           \
          return FEXPR;                                                        \
        },                                                                     \
        [](ArrayRef<int64_t> v) -> int64_t {                                   \
          int64_t a = v[0], b = v[1];                                          \
          return IEXPR;                                                        \
        });                                                                    \
  }
// Integer division by zero folds to 0 rather than trapping on the host; the
// result is undefined in ONNX.
HGRAPH_BINARY(AddOp, a + b, int64_t(uint64_t(a) + uint64_t(b)))
HGRAPH_BINARY(SubOp, a - b, int64_t(uint64_t(a) - uint64_t(b)))
HGRAPH_BINARY(MulOp, a * b, int64_t(uint64_t(a) * uint64_t(b)))
HGRAPH_BINARY(DivOp, a / b, b == 0 ? 0 : a / b)
HGRAPH_BINARY(PowOp, std::pow(a, b), int64_t(std::pow(double(a), double(b))))
HGRAPH_BINARY(MinOp, std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b),
              std::min(a, b))
HGRAPH_BINARY(MaxOp, std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b),
              std::max(a, b))
HGRAPH_BINARY(AndOp, double(a != 0 && b != 0), int64_t(a != 0 && b != 0))
HGRAPH_BINARY(OrOp, double(a != 0 || b != 0), int64_t(a != 0 || b != 0))
HGRAPH_BINARY(XorOp, double((a != 0) != (b != 0)), int64_t((a != 0) != (b != 0)))
HGRAPH_BINARY(ModOp, flooredRemainder(a, b), flooredRemainder(a, b))
HGRAPH_BINARY(FModOp, std::fmod(a, b),
              b == 0 || b == -1 ? 0 : a % b)
// Integer types only (ONNX); the float forms are never used.
HGRAPH_BINARY(BitwiseAndOp, double(int64_t(a) & int64_t(b)), a & b)
HGRAPH_BINARY(BitwiseOrOp, double(int64_t(a) | int64_t(b)), a | b)
HGRAPH_BINARY(BitwiseXorOp, double(int64_t(a) ^ int64_t(b)), a ^ b)
// Integers only (ONNX BitShift). Folded on the 64-bit extension, then
// truncated to the type: a left shift keeps the low bits; a right shift of
// a signed value is arithmetic (counts past the width give its sign).
HGRAPH_BINARY(ShiftLeftOp, 0.0,
              b < 0 || b > 63 ? 0 : int64_t(uint64_t(a) << b))
HGRAPH_BINARY(ShiftRightOp, 0.0,
              b < 0 ? (a < 0 ? -1 : 0) : a < 0 ? (b > 63 ? -1 : a >> b)
                                               : (b > 63 ? 0 : a >> b))
#undef HGRAPH_BINARY

LogicalResult SoftmaxOp::verify() {
  // I64Attr getters are unsigned; the axis may be negative.
  int64_t rank = getType().getRank(), axis = int64_t(getAxis());
  if (axis < -rank || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank "
                                << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::verify() {
  ArrayRef<int64_t> a = getLhs().getType().getShape();
  ArrayRef<int64_t> b = getRhs().getType().getShape();
  if (a.empty() || b.empty())
    return emitOpError("operands must have rank >= 1");
  SmallVector<int64_t> lhs(a), rhs(b);
  if (lhs.size() == 1)
    lhs.insert(lhs.begin(), 1);
  if (rhs.size() == 1)
    rhs.push_back(1);
  int64_t k = lhs.back(), k2 = rhs[rhs.size() - 2];
  if (k != k2)
    return emitOpError("contraction dimensions differ: lhs ")
           << shapeStr(a) << " has " << k << ", rhs " << shapeStr(b)
           << " has " << k2;
  SmallVector<int64_t> batch;
  if (!OpTrait::util::getBroadcastedShape(
          ArrayRef<int64_t>(lhs).drop_back(2),
          ArrayRef<int64_t>(rhs).drop_back(2), batch))
    return emitOpError("batch dimensions of ")
           << shapeStr(a) << " and " << shapeStr(b) << " do not broadcast";
  SmallVector<int64_t> expected(batch);
  if (a.size() > 1)
    expected.push_back(lhs[lhs.size() - 2]);
  if (b.size() > 1)
    expected.push_back(rhs.back());
  if (ArrayRef<int64_t>(expected) != getType().getShape())
    return emitOpError("result shape ")
           << shapeStr(getType().getShape()) << " should be "
           << shapeStr(expected);
  return success();
}

LogicalResult GemmOp::verify() {
  ShapedType a = getA().getType(), b = getB().getType();
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOpError("operands A and B must be 2-D");
  int64_t m = getTransA() ? a.getDimSize(1) : a.getDimSize(0);
  int64_t ka = getTransA() ? a.getDimSize(0) : a.getDimSize(1);
  int64_t kb = getTransB() ? b.getDimSize(1) : b.getDimSize(0);
  int64_t n = getTransB() ? b.getDimSize(0) : b.getDimSize(1);
  if (ka != kb)
    return emitOpError("contraction dimensions differ: ")
           << ka << " (A) vs " << kb << " (B)";
  SmallVector<int64_t> expected{m, n};
  if (getType().getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result shape ")
           << shapeStr(getType().getShape()) << " should be "
           << shapeStr(expected);
  if (Value c = getC()) {
    SmallVector<int64_t> shape;
    auto cType = cast<ShapedType>(c.getType());
    if (!OpTrait::util::getBroadcastedShape(cType.getShape(), expected,
                                            shape) ||
        ArrayRef<int64_t>(shape) != ArrayRef<int64_t>(expected))
      return emitOpError("C of shape ")
             << shapeStr(cType.getShape()) << " does not broadcast to "
             << shapeStr(expected);
  }
  return success();
}

LogicalResult LinearOp::verify() {
  ShapedType x = getInput().getType(), w = getWeight().getType();
  if (x.getRank() != 2 || w.getRank() != 2)
    return emitOpError("input and weight must be 2-D");
  // A transposed weight is N x K.
  int64_t kDim = getTransposed() ? 1 : 0;
  if (x.getDimSize(1) != w.getDimSize(kDim))
    return emitOpError("contraction dimensions differ: input has ")
           << x.getDimSize(1) << ", weight has " << w.getDimSize(kDim)
           << (getTransposed() ? " (transposed: N x K)" : "");
  SmallVector<int64_t> expected{x.getDimSize(0), w.getDimSize(1 - kDim)};
  if (getType().getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result shape ")
           << shapeStr(getType().getShape()) << " should be "
           << shapeStr(expected);
  if (Value bias = getBias()) {
    ArrayRef<int64_t> b = cast<ShapedType>(bias.getType()).getShape();
    bool ok = (b.size() == 1 && b[0] == expected[1]) ||
              (b.size() == 2 && b[0] == 1 && b[1] == expected[1]);
    if (!ok)
      return emitOpError("bias shape ")
             << shapeStr(b) << " should be [" << expected[1] << "] or [1, "
             << expected[1] << "]";
  }
  Type weightType = w.getElementType(), inputType = x.getElementType();
  if (Value scale = getScale()) {
    auto s = cast<ShapedType>(scale.getType());
    ArrayRef<int64_t> shape = s.getShape();
    if (!s.getElementType().isF32() ||
        !((shape.size() == 1 && shape[0] == expected[1]) ||
          (shape.size() == 2 && shape[0] == 1 && shape[1] == expected[1])))
      return emitOpError("scale must be f32 of shape [")
             << expected[1] << "] or [1, " << expected[1] << "], not "
             << scale.getType();
  }
  if (weightType.isInteger(8) &&
      (!getScale() || !(inputType.isF16() || inputType.isBF16())))
    return emitOpError("an i8 weight needs a scale and an f16 or bf16 input, "
                       "to which its rows are converted");
  if (getTransposed() &&
      (weightType != inputType || getScale() || !isa<FloatType>(inputType)))
    return emitOpError("a transposed weight must be a float of the input's "
                       "type (")
           << inputType << "), without a scale";
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  if (getInput().getType().getNumElements() != getType().getNumElements())
    return emitOpError("cannot reshape ")
           << shapeStr(getInput().getType().getShape()) << " ("
           << getInput().getType().getNumElements() << " elements) to "
           << shapeStr(getType().getShape()) << " ("
           << getType().getNumElements() << " elements)";
  if (getInput().getType().getElementType() != getType().getElementType())
    return emitOpError("must not change the element type");
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(getType());
  return {};
}

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> perm = getPerm();
  ArrayRef<int64_t> in = getInput().getType().getShape();
  if (perm.size() != in.size())
    return emitOpError("perm has ")
           << perm.size() << " entries but the input has rank " << in.size();
  SmallVector<bool> seen(in.size(), false);
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= int64_t(in.size()) || seen[p])
      return emitOpError("perm ")
             << shapeStr(perm) << " is not a permutation of [0, "
             << in.size() << ")";
    seen[p] = true;
    expected.push_back(in[p]);
  }
  if (ArrayRef<int64_t>(expected) != getType().getShape())
    return emitOpError("result shape ")
           << shapeStr(getType().getShape()) << " should be "
           << shapeStr(expected);
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getInput();
  auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput());
  if (!dense)
    return {};
  if (dense.isSplat())
    return dense.resizeSplat(getType());
  // Elements of whole bytes are permuted as raw bytes: a transposed weight
  // (Gemm's transB) costs its size in memory, not one attribute per
  // element. Its size was bounded when the model was imported; the count
  // is checked here again for IR that did not come from the importer.
  ShapedType inType = getInput().getType();
  Type element = inType.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0 ||
      !foldable(inType, kMaxFoldOperandElements * 16))
    return {};
  size_t width = element.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> in = dense.getRawData();
  std::vector<char> out(in.size());
  SmallVector<int64_t> inStrides(inType.getRank(), 1);
  for (int64_t d = inType.getRank() - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * inType.getDimSize(d + 1);
  ArrayRef<int64_t> outShape = getType().getShape();
  SmallVector<int64_t> coord(outShape.size(), 0);
  for (size_t k = 0, n = out.size() / width; k < n; ++k) {
    int64_t src = 0;
    for (auto [d, p] : llvm::enumerate(perm))
      src += coord[d] * inStrides[p];
    std::memcpy(&out[k * width], &in[size_t(src) * width], width);
    for (int64_t d = outShape.size() - 1; d >= 0; --d) {
      if (++coord[d] < outShape[d])
        break;
      coord[d] = 0;
    }
  }
  return DenseElementsAttr::getFromRawBuffer(getType(), out);
}
