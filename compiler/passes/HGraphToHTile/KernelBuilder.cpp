//===- KernelBuilder.cpp - Kernels shared by the hgraph to htile patterns -===//

#include "compiler/passes/HGraphToHTile/Lowering.h"

#include "llvm/ADT/Sequence.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

using namespace mlir;
using namespace hetc;
using namespace hetc::tiling;

Type tiling::laneOf(Value v) {
  return hisa::laneTypeOf(cast<ShapedType>(v.getType()).getElementType());
}

Type tiling::elementOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

MemRefType tiling::bufferType(Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return MemRefType::get(type.getShape(), type.getElementType());
}

IntegerType tiling::wrappingType(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  if (integer && !integer.isSigned() &&
      (integer.getWidth() == 8 || integer.getWidth() == 16))
    return integer;
  return IntegerType();
}

bool tiling::planeTransposes(Type type) {
  return hisa::isFloatLane(type) || isByte(type);
}

std::string tiling::typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "'" << type << "'";
  return text;
}

InFlightDiagnostic tiling::narrowHeldError(Operation *op, StringRef what,
                                           Type type) {
  return op->emitError("'")
         << what << "' on " << type
         << " is not supported on the chip: the chip holds " << type
         << " as i32 and would not wrap or saturate as " << type << " does";
}

Value KernelBuilder::held(Value tensor) const {
  if (auto constant = tensor.getDefiningOp<hgraph::ConstantOp>()) {
    Value &b = state.constants[tensor];
    if (!b)
      b = htile::ConstantOp::create(builder, constant.getLoc(),
                                    bufferType(tensor), constant.getValue(),
                                    IntegerAttr());
    return b;
  }
  Value b = current.operands.lookupOrNull(tensor);
  assert(b && "the buffer of a value that is not an operand of the op");
  return underlyingBuffer(b);
}

Value KernelBuilder::buffer(Value tensor) const {
  return bufferAs(tensor, cast<ShapedType>(tensor.getType()).getShape());
}

Value KernelBuilder::bufferAs(Value tensor, ArrayRef<int64_t> shape) const {
  Value lying = held(tensor);
  auto type = cast<MemRefType>(lying.getType());
  if (type.getShape() == shape)
    return lying;
  auto target = MemRefType::get(shape, type.getElementType());
  Value &regrouped = state.regrouped[{lying, target}];
  if (!regrouped)
    regrouped = regroup(tensor.getLoc(), lying, shape);
  return regrouped;
}

namespace {

/// The axis j from which `held` merges the dimensions of `shape` into its
/// last ([N, C, H*W] of [N, C, H, W]: 2), when it does; `held` equal to
/// `shape` merges from its last axis. Leading dimensions of size 1 of
/// `shape` may be missing from `held` ([C, H*W] of [1, C, H, W]: 2 too,
/// as a transpose of a batch of one holds its result).
std::optional<size_t> mergedFrom(ArrayRef<int64_t> held,
                                 ArrayRef<int64_t> shape) {
  if (held.empty())
    return std::nullopt;
  for (size_t skip = 0; skip < shape.size(); ++skip) {
    ArrayRef<int64_t> rest = shape.drop_front(skip);
    if (held.size() <= rest.size()) {
      size_t from = held.size() - 1;
      int64_t product = 1;
      bool overflow = false;
      for (int64_t d : rest.drop_front(from))
        overflow |= llvm::MulOverflow(product, d, product);
      if (!overflow && held.drop_back() == rest.take_front(from) &&
          product == held.back())
        return skip + from;
    }
    if (shape[skip] != 1)
      break;
  }
  return std::nullopt;
}

} // namespace

ElementwiseLayout KernelBuilder::elementwiseLayout(ValueRange operands,
                                                   Value result) const {
  ArrayRef<int64_t> out = cast<ShapedType>(result.getType()).getShape();
  ElementwiseLayout own;
  own.shape.assign(out.begin(), out.end());
  for (Value v : operands) {
    ArrayRef<int64_t> shape = cast<ShapedType>(v.getType()).getShape();
    own.operands.emplace_back(shape.begin(), shape.end());
  }
  // The first full-size operand held in merged rows sets the layout;
  // constants lie in their own shape.
  std::optional<size_t> from;
  for (Value v : operands) {
    if (cast<ShapedType>(v.getType()).getShape() != out ||
        v.getDefiningOp<hgraph::ConstantOp>())
      continue;
    ArrayRef<int64_t> lying = cast<MemRefType>(held(v).getType()).getShape();
    if (lying != out && (from = mergedFrom(lying, out)))
      break;
  }
  if (!from)
    return own;
  size_t rank = out.size();
  int64_t merged = 1;
  for (int64_t d : out.drop_front(*from))
    merged *= d;
  ElementwiseLayout layout;
  layout.shape.assign(out.begin(), out.begin() + *from);
  layout.shape.push_back(merged);
  for (Value v : operands) {
    ArrayRef<int64_t> shape = cast<ShapedType>(v.getType()).getShape();
    if (shape.size() > rank)
      return own;
    // Right-aligned against the result, as numpy broadcasts.
    SmallVector<int64_t> aligned(rank - shape.size(), 1);
    aligned.append(shape.begin(), shape.end());
    ArrayRef<int64_t> tail = ArrayRef<int64_t>(aligned).drop_front(*from);
    int64_t extent;
    if (llvm::all_of(tail, [](int64_t d) { return d == 1; }))
      extent = 1;
    else if (tail == out.drop_front(*from))
      extent = merged;
    else
      return own;
    SmallVector<int64_t> operandShape(aligned.begin(), aligned.begin() + *from);
    operandShape.push_back(extent);
    layout.operands.push_back(std::move(operandShape));
  }
  return layout;
}

Value tiling::underlyingBuffer(Value value) {
  // A pattern may hold a result in a buffer whose element type is not its
  // tensor's (a type held as i32, computed in an i32 buffer), and the
  // function's arguments are htile.input buffers cast to tensors; the
  // conversion casts between such a buffer and the type it expects, and
  // the kernels read the buffer itself.
  while (auto cast = value.getDefiningOp<UnrealizedConversionCastOp>()) {
    if (cast->getNumOperands() != 1)
      break;
    value = cast->getOperand(0);
  }
  return isa<MemRefType>(value.getType()) ? value : Value();
}

Value KernelBuilder::alloc(MemRefType type, Location loc) const {
  return htile::AllocOp::create(builder, loc, type, IntegerAttr());
}

Value KernelBuilder::binaryKernel(Location loc, htile::BinaryKind kind,
                                  Value lhs, Value rhs, ArrayRef<int64_t> shape,
                                  Type element) const {
  Value out = alloc(MemRefType::get(shape, element), loc);
  htile::BinaryOp::create(builder, loc, kind, lhs, rhs, out);
  return out;
}

Value KernelBuilder::castKernel(Location loc, Value input, Type element) const {
  auto type = cast<MemRefType>(input.getType());
  Value out = alloc(MemRefType::get(type.getShape(), element), loc);
  htile::CastOp::create(builder, loc, input, out, htile::CastOverflowAttr(),
                        htile::E8M0RoundingAttr());
  return out;
}

Value KernelBuilder::combine(Location loc, htile::BinaryKind kind, Value lhs,
                             Value rhs) const {
  Value out = alloc(cast<MemRefType>(lhs.getType()), loc);
  htile::BinaryOp::create(builder, loc, kind, lhs, rhs, out);
  return out;
}

SmallVector<int64_t>
KernelBuilder::splatCopiesShape(ArrayRef<int64_t> shape) const {
  if (shape.empty())
    return SmallVector<int64_t>(shape);
  int64_t rows = 1;
  for (int64_t d : shape.drop_back())
    rows *= d;
  int64_t length = shape.back();
  int64_t vectors = llvm::divideCeil(length, int64_t(chip.lanes()));
  if (rows < 2 || rows % 2 != 0 || vectors % 2 == 0)
    return SmallVector<int64_t>(shape);
  return {rows / 2, 2, length};
}

Value KernelBuilder::splatRows(Location loc, TypedAttr value, int64_t rows,
                               int64_t length) const {
  SmallVector<int64_t> shape;
  if (rows > 1)
    shape.push_back(rows);
  shape.push_back(length);
  auto tensorType = RankedTensorType::get(shape, value.getType());
  return htile::ConstantOp::create(
      builder, loc, MemRefType::get(shape, value.getType()),
      DenseElementsAttr::get(tensorType, value), IntegerAttr());
}

Value KernelBuilder::splatRow(Location loc, int64_t length,
                              int32_t value) const {
  Type i32 = builder.getI32Type();
  auto type = RankedTensorType::get({length}, i32);
  return htile::ConstantOp::create(
      builder, loc, MemRefType::get({length}, i32),
      DenseElementsAttr::get(type, builder.getI32IntegerAttr(value)),
      IntegerAttr());
}

Value KernelBuilder::wrapKernel(Location loc, Value value,
                                ArrayRef<int64_t> shape,
                                IntegerType type) const {
  Type i32 = builder.getI32Type();
  int64_t row = shape.empty() ? 1 : shape.back();
  int32_t modulus = int32_t(1) << type.getWidth();
  int32_t half = modulus / 2;
  bool isSigned = !type.isUnsigned();
  if (isSigned)
    value = binaryKernel(loc, htile::BinaryKind::add, value,
                         splatRow(loc, row, half), shape, i32);
  value = binaryKernel(loc, htile::BinaryKind::mod, value,
                       splatRow(loc, row, modulus), shape, i32);
  if (isSigned)
    value = binaryKernel(loc, htile::BinaryKind::sub, value,
                         splatRow(loc, row, half), shape, i32);
  return value;
}

Value KernelBuilder::constantBuffer(Location loc, ArrayRef<int64_t> shape,
                                    ArrayRef<float> values) const {
  Type f32 = builder.getF32Type();
  return htile::ConstantOp::create(
      builder, loc, MemRefType::get(shape, f32),
      DenseElementsAttr::get(RankedTensorType::get(shape, f32), values),
      IntegerAttr());
}

Value KernelBuilder::identity(Location loc, Type element) const {
  Value &buffer = state.identities[element];
  if (buffer)
    return buffer;
  int64_t lanes = chip.lanes();
  auto type = RankedTensorType::get({lanes, lanes}, element);
  Attribute zero = builder.getZeroAttr(element), one;
  if (isa<FloatType>(element))
    one = builder.getFloatAttr(element, 1.0);
  else
    one = builder.getIntegerAttr(element, 1);
  SmallVector<Attribute> values(lanes * lanes, zero);
  for (int64_t i = 0; i < lanes; ++i)
    values[i * lanes + i] = one;
  // Constants may sit anywhere in the function; put it at the top so it
  // dominates every kernel that uses it.
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(builder.getInsertionBlock());
  buffer = htile::ConstantOp::create(
      builder, loc, MemRefType::get({lanes, lanes}, element),
      DenseElementsAttr::get(type, values), IntegerAttr());
  return buffer;
}

Value KernelBuilder::regroup(Location loc, Value input,
                             ArrayRef<int64_t> shape) const {
  auto type = cast<MemRefType>(input.getType());
  if (type.getShape() == shape)
    return input;
  auto target = MemRefType::get(shape, type.getElementType());
  if ((type.getShape().empty() ? 1 : type.getShape().back()) ==
      (shape.empty() ? 1 : shape.back()))
    return htile::ViewOp::create(builder, loc, target, input);
  Value out = alloc(target, loc);
  move(loc, ValueRange{input}, out, gather::identity(target.getNumElements()));
  return out;
}

void KernelBuilder::move(Location loc, ValueRange inputs, Value out,
                         ArrayRef<int64_t> indices) const {
  auto type = cast<MemRefType>(out.getType());
  int64_t cols = type.getRank() ? type.getShape().back() : 1;
  int64_t total = int64_t(indices.size());
  int64_t limit = htile::GatherOp::kMaxElements;
  // A single row longer than one gather's map cannot be banded; the
  // gather's verifier reports it at the node.
  if (total <= limit || cols <= 0 || cols > limit) {
    htile::GatherOp::create(builder, loc, inputs, out,
                            builder.getDenseI64ArrayAttr(indices),
                            IntegerAttr());
    return;
  }
  int64_t band = limit / cols;
  for (int64_t first = 0; first * cols < total; first += band) {
    int64_t begin = first * cols;
    int64_t size = std::min(total - begin, band * cols);
    htile::GatherOp::create(
        builder, loc, inputs, out,
        builder.getDenseI64ArrayAttr(indices.slice(begin, size)),
        builder.getI64IntegerAttr(first));
  }
}

Value KernelBuilder::reduceInnermost(Location loc, hisa::VReduceKind kind,
                                     bool mean, Value input,
                                     bool packed) const {
  Type element = cast<MemRefType>(input.getType()).getElementType();
  ArrayRef<int64_t> shape = cast<MemRefType>(input.getType()).getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> kept(shape);
  kept.back() = 1;
  Value rows = alloc(MemRefType::get(kept, element), loc);
  htile::ReduceOp::create(builder, loc, kind, input, rows);
  if (mean) {
    // The mean divides the sum by the count, as ONNX's definition does.
    auto countType = RankedTensorType::get({1}, element);
    Attribute countValue =
        isa<FloatType>(element)
            ? Attribute(builder.getFloatAttr(element, shape.back()))
            : Attribute(builder.getIntegerAttr(element, shape.back()));
    Value count = htile::ConstantOp::create(
        builder, loc, MemRefType::get({1}, element),
        DenseElementsAttr::get(countType, countValue), IntegerAttr());
    Value quotient = alloc(MemRefType::get(kept, element), loc);
    htile::BinaryOp::create(builder, loc, htile::BinaryKind::div, rows, count,
                            quotient);
    rows = quotient;
  }
  if (packed) {
    // [.., n, 1] -> [.., 1, n]: the per-row results become one row.
    SmallVector<int64_t> swapped(kept);
    std::swap(swapped[rank - 1], swapped[rank - 2]);
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[rank - 1], perm[rank - 2]);
    Value result = alloc(MemRefType::get(swapped, element), loc);
    if (planeTransposes(element))
      htile::TransposeOp::create(builder, loc, rows, result,
                                 identity(loc, element),
                                 builder.getDenseI64ArrayAttr(perm));
    else
      move(loc, ValueRange{rows}, result,
           gather::transpose(kept, perm, swapped));
    rows = result;
  }
  return rows;
}

LogicalResult KernelBuilder::checkMovement(Operation *op, uint64_t count,
                                           const Twine &what) const {
  // The index map of a move has one 8-byte entry per element moved; a
  // move is bounded by what the chip's SRAM could hold at all.
  uint64_t limit = chip.totalVectors() * chip.lanes();
  if (count <= limit)
    return success();
  return op->emitError(what) << " is more than the chip's SRAM holds (" << limit
                             << " elements of 4 bytes)";
}

LogicalResult KernelBuilder::gatherInto(
    Operation *op, ValueRange inputs, Value result,
    llvm::function_ref<FailureOr<gather::Indices>()> indices) const {
  auto type = cast<ShapedType>(result.getType());
  if (failed(checkMovement(op, uint64_t(type.getNumElements()),
                           "moving " + Twine(type.getNumElements()) +
                               " elements into " + typeString(type))))
    return failure();
  FailureOr<gather::Indices> map = indices();
  if (failed(map))
    return failure();
  // The map addresses the inputs' elements by their flat index: any rows
  // they lie in serve.
  SmallVector<Value> operands;
  for (Value input : inputs)
    operands.push_back(held(input));
  Value out = alloc(result);
  move(op->getLoc(), operands, out, *map);
  this->map(result, out);
  return success();
}

bool tiling::writableInPlace(Value tensor) {
  while (true) {
    if (!tensor.hasOneUse())
      return false;
    auto reshape = tensor.getDefiningOp<hgraph::ReshapeOp>();
    if (!reshape)
      break;
    tensor = reshape.getInput();
  }
  return !tensor.getDefiningOp<hgraph::ConstantOp>();
}

DenseI64ArrayAttr KernelBuilder::matmulTile() const {
  return builder.getDenseI64ArrayAttr({1, int64_t(chip.proto().matrix().rows()),
                                       int64_t(chip.proto().matrix().cols())});
}

LogicalResult tiling::lowerWithChecks(
    Operation *op, ValueRange converted, ConversionPatternRewriter &rewriter,
    LoweringState &state, function_ref<LogicalResult(KernelBuilder &)> lower) {
  // Placeholders stand for the results, so that the ops reading them
  // lower (or fail quietly) and the conversion reports every failure.
  auto standIn = [&]() -> LogicalResult {
    state.failed = true;
    SmallVector<Value> placeholders;
    for (Value result : op->getResults()) {
      Value placeholder = htile::AllocOp::create(
          rewriter, op->getLoc(), bufferType(result), IntegerAttr());
      state.placeholders.insert(placeholder);
      placeholders.push_back(placeholder);
    }
    rewriter.replaceOp(op, placeholders);
    return success();
  };
  // An operand from an op that failed has been reported there.
  for (Value operand : converted)
    if (state.placeholders.contains(underlyingBuffer(operand)))
      return standIn();
  // Every tensor a kernel touches must be of a type the chip holds.
  // Constant gather indices stay on the host.
  bool hostIndices = isa<hgraph::GatherOp, hgraph::GatherElementsOp>(op);
  auto laneTyped = [&](Value v) -> LogicalResult {
    if (laneOf(v))
      return success();
    return op->emitError("element type ")
           << elementOf(v) << " (of " << v.getType()
           << ") is not supported on the chip yet; supported: "
           << hisa::heldTypeNames();
  };
  for (Value operand : op->getOperands())
    if (!(hostIndices && operand == op->getOperand(1)) &&
        failed(laneTyped(operand)))
      return standIn();
  for (Value result : op->getResults())
    if (failed(laneTyped(result)))
      return standIn();

  OpBuffers current;
  for (auto [original, buffer] : llvm::zip(op->getOperands(), converted))
    current.operands.map(original, buffer);
  KernelBuilder kernels(rewriter, state, current);
  if (failed(lower(kernels)))
    return standIn();
  SmallVector<Value> results;
  for (Value result : op->getResults()) {
    Value buffer = current.results.lookupOrNull(result);
    assert(buffer && "the pattern left a result without a buffer");
    results.push_back(buffer);
  }
  rewriter.replaceOp(op, results);
  return success();
}
