//===- ConvertHGraphToHTile.cpp - Bufferise hgraph into htile kernels -===//
//
// Each tensor value gets one SRAM buffer and each op one kernel writing it.
// The rewrite is a walk over the (straight-line) function rather than a
// dialect conversion: bufferisation changes every value's kind at once, and
// a value-to-buffer map states that most plainly.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/ChipLoader.h"
#include "compiler/passes/GatherIndices.h"
#include "compiler/passes/Passes.h"
#include "compiler/passes/WindowIndices.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

namespace hetc {
#define GEN_PASS_DEF_CONVERTHGRAPHTOHTILE
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

MemRefType bufferType(Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return MemRefType::get(type.getShape(), type.getElementType());
}

class Lowering {
public:
  Lowering(func::FuncOp source, const chip::ChipSpec &chip)
      : source(source), chip(chip), builder(source.getContext()) {}

  /// Builds the htile function; returns failure after reporting every op
  /// that cannot be lowered.
  FailureOr<func::FuncOp> run();

private:
  /// The buffer holding `tensor`; constants get theirs on first use.
  Value buffer(Value tensor) {
    if (Value b = buffers.lookupOrNull(tensor))
      return b;
    auto constant = tensor.getDefiningOp<hgraph::ConstantOp>();
    Value b = htile::ConstantOp::create(builder, constant.getLoc(),
                                       bufferType(tensor),
                                       constant.getValue(), IntegerAttr());
    buffers.map(tensor, b);
    return b;
  }
  Value alloc(MemRefType type, Location loc) {
    return htile::AllocOp::create(builder, loc, type, IntegerAttr());
  }
  Value alloc(Value tensor) {
    return alloc(bufferType(tensor), tensor.getLoc());
  }
  LogicalResult lowerOp(Operation *op);
  LogicalResult lowerBinary(Operation *op, htile::BinaryKind kind);
  LogicalResult lowerUnary(Operation *op, htile::UnaryKind kind);
  LogicalResult lowerLinear(hgraph::LinearOp op);
  LogicalResult lowerMatMul(hgraph::MatMulOp op);
  LogicalResult lowerSoftmax(hgraph::SoftmaxOp op);
  LogicalResult lowerReshape(hgraph::ReshapeOp op);
  LogicalResult lowerTranspose(hgraph::TransposeOp op);
  LogicalResult lowerReduce(hgraph::ReduceOp op);
  /// Reduces the innermost axis of the buffer `input` (a mean divides the
  /// sum by the count). Returns the results as a column ([.., 1]) or, with
  /// `packed` and rank >= 2, transposed into rows ([.., 1, n]).
  Value reduceInnermost(Location loc, htile::ReduceKind kind, bool mean,
                        Value input, bool packed);
  template <typename PoolOp> LogicalResult lowerPool(PoolOp op, bool max);
  LogicalResult lowerConv(hgraph::ConvOp op);
  /// An f32 constant buffer of `shape`.
  Value constantBuffer(Location loc, ArrayRef<int64_t> shape,
                       ArrayRef<float> values);
  /// A new buffer of `shape` holding `input`'s elements in order.
  Value regroup(Location loc, Value input, ArrayRef<int64_t> shape);
  /// Writes `result` with an htile.gather of `inputs` by `indices`.
  LogicalResult lowerGather(Operation *op, ValueRange inputs, Value result,
                            const gather::Indices &indices);
  LogicalResult lowerConcat(hgraph::ConcatOp op);
  LogicalResult lowerSplit(hgraph::SplitOp op);
  LogicalResult lowerSlice(hgraph::SliceOp op);
  LogicalResult lowerPad(hgraph::PadOp op);
  LogicalResult lowerGatherOp(hgraph::GatherOp op);
  LogicalResult lowerGatherElements(hgraph::GatherElementsOp op);
  /// A lanes x lanes identity constant, created on first use.
  Value identity(Location loc);
  Value identityBuffer;
  /// A buffer holding `value` repeated over one row of `rowLength`, when
  /// `value` is a constant of one element; null otherwise.
  Value broadcastConstantRow(Value value, int64_t rowLength, Location loc);

  func::FuncOp source;
  const chip::ChipSpec &chip;
  OpBuilder builder;
  IRMapping buffers;
};

FailureOr<func::FuncOp> Lowering::run() {
  builder.setInsertionPoint(source);
  auto target = func::FuncOp::create(builder, source.getLoc(),
                                     source.getName(),
                                     builder.getFunctionType({}, {}));
  builder.setInsertionPointToStart(target.addEntryBlock());

  for (BlockArgument arg : source.getArguments()) {
    auto name = source.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                    hgraph::kNameAttr);
    Type element = cast<ShapedType>(arg.getType()).getElementType();
    if (!element.isF32())
      return emitError(source.getLoc())
             << "model input '" << (name ? name.getValue() : "") << "' has "
             << "element type " << element
             << "; only float32 tensors run on the chip yet";
    buffers.map(arg, htile::InputOp::create(
                         builder, source.getLoc(), bufferType(arg),
                         name ? name : builder.getStringAttr("input" +
                                          std::to_string(arg.getArgNumber())),
                         IntegerAttr()));
  }
  bool ok = true;
  for (Operation &op : source.getBody().front().without_terminator())
    if (failed(lowerOp(&op)))
      ok = false;
  if (!ok)
    return failure();

  auto ret = cast<func::ReturnOp>(source.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    auto name = source.getResultAttrOfType<StringAttr>(i, hgraph::kNameAttr);
    htile::OutputOp::create(
        builder, ret.getLoc(),
        name ? name : builder.getStringAttr("output" + std::to_string(i)),
        buffer(value));
  }
  func::ReturnOp::create(builder, ret.getLoc());
  return target;
}

LogicalResult Lowering::lowerOp(Operation *op) {
  // An operand whose producer failed to lower has been reported there;
  // this op is skipped so that the walk goes on to report the others.
  for (Value operand : op->getOperands())
    if (!buffers.contains(operand) &&
        !operand.getDefiningOp<hgraph::ConstantOp>())
      return failure();
  // Constant gather indices stay on the host.
  bool hostIndices = isa<hgraph::GatherOp, hgraph::GatherElementsOp>(op);
  for (Value operand : op->getOperands())
    if (!cast<ShapedType>(operand.getType()).getElementType().isF32() &&
        !isa<hgraph::ReshapeOp>(op) &&
        !(hostIndices && operand == op->getOperand(1)))
      return op->emitError("only float32 tensors run on the chip yet; "
                           "operand has type ")
             << operand.getType();
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](hgraph::ConstantOp c) -> LogicalResult {
        // Placed in SRAM when a kernel first reads it (see buffer()), so
        // that constants folded into others take no space.
        // Integer gather indices are read on the host, never placed.
        auto onHost = [](OpOperand &use) {
          return isa<hgraph::GatherOp, hgraph::GatherElementsOp>(
                     use.getOwner()) &&
                 use.getOperandNumber() == 1;
        };
        if (!c.getType().getElementType().isF32() &&
            !llvm::all_of(c->getUses(), onHost))
          return c.emitError("only float32 constants run on the chip yet; "
                             "this one has type ")
                 << c.getType();
        return success();
      })
      .Case([&](hgraph::AddOp) {
        return lowerBinary(op, htile::BinaryKind::add);
      })
      .Case([&](hgraph::SubOp) {
        return lowerBinary(op, htile::BinaryKind::sub);
      })
      .Case([&](hgraph::MulOp) {
        return lowerBinary(op, htile::BinaryKind::mul);
      })
      .Case([&](hgraph::DivOp) {
        return lowerBinary(op, htile::BinaryKind::div);
      })
      .Case([&](hgraph::ReluOp) {
        return lowerUnary(op, htile::UnaryKind::relu);
      })
      .Case([&](hgraph::SigmoidOp) {
        return lowerUnary(op, htile::UnaryKind::sigmoid);
      })
      .Case([&](hgraph::TanhOp) {
        return lowerUnary(op, htile::UnaryKind::tanh);
      })
      .Case([&](hgraph::ExpOp) { return lowerUnary(op, htile::UnaryKind::exp); })
      .Case([&](hgraph::NegOp) { return lowerUnary(op, htile::UnaryKind::neg); })
      .Case([&](hgraph::AbsOp) { return lowerUnary(op, htile::UnaryKind::abs); })
      .Case([&](hgraph::SqrtOp) {
        return lowerUnary(op, htile::UnaryKind::sqrt);
      })
      .Case([&](hgraph::ReciprocalOp) {
        return lowerUnary(op, htile::UnaryKind::reciprocal);
      })
      .Case([&](hgraph::LogOp) { return lowerUnary(op, htile::UnaryKind::log); })
      .Case([&](hgraph::ErfOp) { return lowerUnary(op, htile::UnaryKind::erf); })
      .Case([&](hgraph::FloorOp) {
        return lowerUnary(op, htile::UnaryKind::floor);
      })
      .Case([&](hgraph::CeilOp) {
        return lowerUnary(op, htile::UnaryKind::ceil);
      })
      .Case([&](hgraph::SinOp) { return lowerUnary(op, htile::UnaryKind::sin); })
      .Case([&](hgraph::CosOp) { return lowerUnary(op, htile::UnaryKind::cos); })
      .Case([&](hgraph::MinOp) {
        return lowerBinary(op, htile::BinaryKind::min);
      })
      .Case([&](hgraph::MaxOp) {
        return lowerBinary(op, htile::BinaryKind::max);
      })
      .Case([&](hgraph::PowOp) {
        return lowerBinary(op, htile::BinaryKind::pow);
      })
      .Case([&](hgraph::LinearOp l) { return lowerLinear(l); })
      .Case([&](hgraph::MatMulOp m) { return lowerMatMul(m); })
      .Case([&](hgraph::SoftmaxOp s) { return lowerSoftmax(s); })
      .Case([&](hgraph::ReshapeOp r) { return lowerReshape(r); })
      .Case([&](hgraph::TransposeOp t) { return lowerTranspose(t); })
      .Case([&](hgraph::ReduceOp r) { return lowerReduce(r); })
      .Case([&](hgraph::MaxPoolOp p) { return lowerPool(p, true); })
      .Case([&](hgraph::AveragePoolOp p) { return lowerPool(p, false); })
      .Case([&](hgraph::ConvOp c) { return lowerConv(c); })
      .Case([&](hgraph::ConcatOp c) { return lowerConcat(c); })
      .Case([&](hgraph::SplitOp s) { return lowerSplit(s); })
      .Case([&](hgraph::SliceOp s) { return lowerSlice(s); })
      .Case([&](hgraph::PadOp p) { return lowerPad(p); })
      .Case([&](hgraph::GatherOp g) { return lowerGatherOp(g); })
      .Case([&](hgraph::GatherElementsOp g) { return lowerGatherElements(g); })
      .Case([&](hgraph::ExpandOp e) {
        return lowerGather(e, e.getInput(), e.getResult(),
                           gather::expand(e.getInput().getType().getShape(),
                                          e.getType().getShape()));
      })
      .Case([&](hgraph::TileOp t) {
        return lowerGather(t, t.getInput(), t.getResult(),
                           gather::tile(t.getInput().getType().getShape(),
                                        t.getType().getShape()));
      })
      .Default([&](Operation *other) -> LogicalResult {
        return other->emitError("'")
               << other->getName()
               << "' cannot be lowered to htile; run hetc-hgraph-pipeline "
                  "first";
      });
}

Value Lowering::broadcastConstantRow(Value value, int64_t rowLength,
                                     Location loc) {
  DenseElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)) ||
      dense.getNumElements() != 1)
    return nullptr;
  SmallVector<float> row(rowLength, *dense.getValues<float>().begin());
  auto rowType = RankedTensorType::get({rowLength}, builder.getF32Type());
  return htile::ConstantOp::create(
      builder, loc, MemRefType::get({rowLength}, builder.getF32Type()),
      DenseElementsAttr::get(rowType, ArrayRef<float>(row)), IntegerAttr());
}

LogicalResult Lowering::lowerBinary(Operation *op, htile::BinaryKind kind) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Value result = op->getResult(0);
  ArrayRef<int64_t> shape = cast<ShapedType>(result.getType()).getShape();
  // htile.binary broadcasts either operand as numpy does. A small constant
  // that broadcasts along a whole row is expanded to that row here, which
  // saves the chip spreading one lane over the vector for every row.
  auto operandBuffer = [&](Value v) {
    auto type = cast<ShapedType>(v.getType());
    if (!shape.empty() && type.getShape() != shape &&
        (type.getRank() == 0 || type.getShape().back() == 1))
      if (Value row = broadcastConstantRow(v, shape.back(), op->getLoc()))
        return row;
    return buffer(v);
  };
  Value rhsBuffer = operandBuffer(rhs);
  Value lhsBuffer = operandBuffer(lhs);
  Value out = alloc(result);
  htile::BinaryOp::create(builder, op->getLoc(), kind, lhsBuffer, rhsBuffer,
                          out);
  buffers.map(result, out);
  return success();
}

LogicalResult Lowering::lowerUnary(Operation *op, htile::UnaryKind kind) {
  Value input = buffer(op->getOperand(0));
  Value out = alloc(op->getResult(0));
  htile::UnaryOp::create(builder, op->getLoc(), kind, input, out);
  buffers.map(op->getResult(0), out);
  return success();
}

LogicalResult Lowering::lowerLinear(hgraph::LinearOp op) {
  // Operand buffers first, in operand order, so the IR order is fixed.
  Value input = buffer(op.getInput());
  Value weight = buffer(op.getWeight());
  Value bias = op.getBias() ? buffer(op.getBias()) : Value();
  Value out = alloc(op.getResult());
  // One input row per step; the weight tile fills one plane.
  htile::MatMulOp::create(
      builder, op.getLoc(), input, weight, bias, out,
      static_cast<htile::Activation>(op.getActivation()),
      builder.getDenseI64ArrayAttr(
          {1, int64_t(chip.proto().matrix().rows()),
           int64_t(chip.proto().matrix().cols())}));
  buffers.map(op.getResult(), out);
  return success();
}

LogicalResult Lowering::lowerMatMul(hgraph::MatMulOp op) {
  return op.emitError("this matmul shape (")
         << op.getLhs().getType() << " x " << op.getRhs().getType()
         << ") is not supported on the chip yet; supported: [.., M, K] x "
            "[K, N]";
}

LogicalResult Lowering::lowerSoftmax(hgraph::SoftmaxOp op) {
  auto type = op.getType();
  int64_t rank = type.getRank();
  int64_t axis = int64_t(op.getAxis());
  if (axis < 0)
    axis += rank;
  if (axis != rank - 1)
    return op.emitError("softmax along axis ")
           << axis << " of " << type
           << " is not supported on the chip yet; only the last axis is";
  Value input = buffer(op.getInput());
  Value out = alloc(op.getResult());
  Value scratch = alloc(op.getResult());
  htile::SoftmaxOp::create(builder, op.getLoc(), input, out, scratch);
  buffers.map(op.getResult(), out);
  return success();
}

LogicalResult Lowering::lowerReshape(hgraph::ReshapeOp op) {
  ArrayRef<int64_t> from = op.getInput().getType().getShape();
  ArrayRef<int64_t> to = op.getType().getShape();
  int64_t fromRow = from.empty() ? 1 : from.back();
  int64_t toRow = to.empty() ? 1 : to.back();
  // Changing the row length moves elements between vectors: a gather
  // with the same element order.
  if (fromRow != toRow)
    return lowerGather(op, op.getInput(), op.getResult(),
                       gather::identity(op.getType().getNumElements()));
  Value out = htile::ViewOp::create(builder, op.getLoc(),
                                    bufferType(op.getResult()),
                                    buffer(op.getInput()));
  buffers.map(op.getResult(), out);
  return success();
}

Value Lowering::identity(Location loc) {
  if (identityBuffer)
    return identityBuffer;
  int64_t lanes = chip.lanes();
  SmallVector<float> values(lanes * lanes, 0.0f);
  for (int64_t i = 0; i < lanes; ++i)
    values[i * lanes + i] = 1.0f;
  auto type = RankedTensorType::get({lanes, lanes}, builder.getF32Type());
  // Constants may sit anywhere in the function; put it at the top so it
  // dominates every kernel that uses it.
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(builder.getInsertionBlock());
  identityBuffer = htile::ConstantOp::create(
      builder, loc, MemRefType::get({lanes, lanes}, builder.getF32Type()),
      DenseElementsAttr::get(type, ArrayRef<float>(values)), IntegerAttr());
  return identityBuffer;
}

LogicalResult Lowering::lowerTranspose(hgraph::TransposeOp op) {
  ArrayRef<int64_t> perm = op.getPerm();
  int64_t rank = perm.size();
  bool keepsRows = rank == 0 || perm[rank - 1] == rank - 1;
  bool swapsInnermost = rank >= 2 && perm[rank - 1] == rank - 2 &&
                        perm[rank - 2] == rank - 1;
  // Other permutations assemble each output vector on a switch unit.
  if (!keepsRows && !swapsInnermost)
    return lowerGather(op, op.getInput(), op.getResult(),
                       gather::transpose(op.getInput().getType().getShape(),
                                         perm, op.getType().getShape()));
  Value input = buffer(op.getInput());
  Value eye = swapsInnermost ? identity(op.getLoc()) : Value();
  Value out = alloc(op.getResult());
  htile::TransposeOp::create(builder, op.getLoc(), input, out, eye,
                             op.getPermAttr());
  buffers.map(op.getResult(), out);
  return success();
}

LogicalResult Lowering::lowerReduce(hgraph::ReduceOp op) {
  RankedTensorType inType = op.getInput().getType();
  int64_t rank = inType.getRank();
  ArrayRef<int64_t> axes = op.getAxes();
  std::optional<htile::ReduceKind> kind;
  switch (op.getKind()) {
  case hgraph::ReduceKind::sum:
  case hgraph::ReduceKind::mean:
    kind = htile::ReduceKind::sum;
    break;
  case hgraph::ReduceKind::max:
    kind = htile::ReduceKind::max;
    break;
  case hgraph::ReduceKind::min:
    kind = htile::ReduceKind::min;
    break;
  default:
    break;
  }
  if (!kind || rank == 0 || axes.size() != 1 || axes[0] != rank - 1)
    return op.emitError("reduce ")
           << hgraph::stringifyReduceKind(op.getKind()) << " over axes ["
           << llvm::make_range(axes.begin(), axes.end())
           << "] is not supported on the chip yet; supported: sum, mean, max "
              "or min over the innermost axis";
  bool packed = !op.getKeepdims() && rank >= 2;
  Value rows = reduceInnermost(op.getLoc(), *kind,
                               op.getKind() == hgraph::ReduceKind::mean,
                               buffer(op.getInput()), packed);
  Value out = rows;
  if (cast<MemRefType>(rows.getType()).getShape() !=
      op.getType().getShape())
    out = htile::ViewOp::create(builder, op.getLoc(),
                                bufferType(op.getResult()), rows);
  buffers.map(op.getResult(), out);
  return success();
}

Value Lowering::reduceInnermost(Location loc, htile::ReduceKind kind,
                                bool mean, Value input, bool packed) {
  Type f32 = builder.getF32Type();
  ArrayRef<int64_t> shape = cast<MemRefType>(input.getType()).getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> kept(shape);
  kept.back() = 1;
  Value rows = alloc(MemRefType::get(kept, f32), loc);
  htile::ReduceOp::create(builder, loc, kind, input, rows);
  if (mean) {
    // The mean divides the sum by the count, as ONNX's definition does.
    Value count = constantBuffer(loc, {1}, {float(shape.back())});
    Value quotient = alloc(MemRefType::get(kept, f32), loc);
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
    Value result = alloc(MemRefType::get(swapped, f32), loc);
    htile::TransposeOp::create(builder, loc, rows, result, identity(loc),
                               builder.getDenseI64ArrayAttr(perm));
    rows = result;
  }
  return rows;
}

Value Lowering::constantBuffer(Location loc, ArrayRef<int64_t> shape,
                               ArrayRef<float> values) {
  Type f32 = builder.getF32Type();
  return htile::ConstantOp::create(
      builder, loc, MemRefType::get(shape, f32),
      DenseElementsAttr::get(RankedTensorType::get(shape, f32), values),
      IntegerAttr());
}

Value Lowering::regroup(Location loc, Value input, ArrayRef<int64_t> shape) {
  auto type = cast<MemRefType>(input.getType());
  if (type.getShape() == shape)
    return input;
  auto target = MemRefType::get(shape, type.getElementType());
  if ((type.getShape().empty() ? 1 : type.getShape().back()) ==
      (shape.empty() ? 1 : shape.back()))
    return htile::ViewOp::create(builder, loc, target, input);
  Value out = alloc(target, loc);
  htile::GatherOp::create(
      builder, loc, ValueRange{input}, out,
      builder.getDenseI64ArrayAttr(gather::identity(target.getNumElements())));
  return out;
}

/// The window of a pool or convolution; `kernel` is the spatial kernel.
template <typename OpTy>
static gather::Window windowOf(OpTy op, ArrayRef<int64_t> kernel) {
  gather::Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides.assign(op.getStrides().begin(), op.getStrides().end());
  w.pads.assign(op.getPads().begin(), op.getPads().end());
  w.dilations.assign(op.getDilations().begin(), op.getDilations().end());
  return w;
}

template <typename PoolOp>
LogicalResult Lowering::lowerPool(PoolOp op, bool max) {
  // Each window is gathered into one row ([N, C, out..., K]; positions
  // outside the input are -inf for a maximum and zero for a sum), the rows
  // are reduced, and an average divides by the window's element count.
  Location loc = op.getLoc();
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> out = op.getType().getShape();
  gather::Window w = windowOf(op, op.getKernelShape());
  int64_t kernel = 1;
  for (int64_t k : w.kernel)
    kernel *= k;
  SmallVector<int64_t> windowsShape(out);
  windowsShape.push_back(kernel);
  int64_t count = op.getType().getNumElements() * kernel;
  if (count > htile::GatherOp::kMaxElements)
    return op.emitError("pooling gathers ")
           << count << " window elements, which is not supported on the chip "
           << "yet; data movement is limited to "
           << htile::GatherOp::kMaxElements << " elements per op";
  int64_t fillIndex = op.getInput().getType().getNumElements();
  gather::Indices indices =
      gather::poolWindows(in, w, out, max ? fillIndex : -1);
  SmallVector<Value> inputs{buffer(op.getInput())};
  if (max && llvm::is_contained(indices, fillIndex))
    inputs.push_back(
        constantBuffer(loc, {1}, {-std::numeric_limits<float>::infinity()}));
  Value windows =
      alloc(MemRefType::get(windowsShape, builder.getF32Type()), loc);
  htile::GatherOp::create(builder, loc, inputs, windows,
                          builder.getDenseI64ArrayAttr(indices));
  Value rows = reduceInnermost(
      loc, max ? htile::ReduceKind::max : htile::ReduceKind::sum,
      /*mean=*/false, windows, /*packed=*/true);
  Value result = htile::ViewOp::create(builder, loc,
                                       bufferType(op.getResult()), rows);
  if (!max) {
    std::vector<float> counts =
        gather::windowCounts(in, w, out, op.getCountIncludePad());
    bool uniform = llvm::all_equal(counts);
    SmallVector<int64_t> countShape(out.drop_front(2));
    Value divisor =
        uniform ? constantBuffer(loc, {out.back()},
                                 SmallVector<float>(out.back(), counts[0]))
                : constantBuffer(loc, countShape, counts);
    Value quotient = alloc(op.getResult());
    htile::BinaryOp::create(builder, loc, htile::BinaryKind::div, result,
                            divisor, quotient);
    result = quotient;
  }
  buffers.map(op.getResult(), result);
  return success();
}

LogicalResult Lowering::lowerConv(hgraph::ConvOp op) {
  // Per batch element and group: the input's windows are gathered as
  // columns ([C/g * K, positions]) and multiplied by the weight rows of
  // the group ([M/g, C/g * K]), which gives the output channels in NCHW
  // order directly; the bias is added per channel.
  Location loc = op.getLoc();
  Type f32 = builder.getF32Type();
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> ws = op.getWeight().getType().getShape();
  ArrayRef<int64_t> out = op.getType().getShape();
  gather::Window w = windowOf(op, ws.drop_front(2));
  int64_t batch = in[0], groups = op.getGroup(), m = ws[0];
  int64_t mg = m / groups, cg = ws[1];
  int64_t kernel = 1, positions = 1;
  for (int64_t k : w.kernel)
    kernel *= k;
  for (int64_t p : out.drop_front(2))
    positions *= p;
  if (cg * kernel * positions > htile::GatherOp::kMaxElements)
    return op.emitError("convolution windows of ")
           << cg * kernel * positions << " elements are not supported on the "
           << "chip yet; data movement is limited to "
           << htile::GatherOp::kMaxElements << " elements per op";
  // The weight as rows of C/g * K.
  Value weight;
  DenseElementsAttr dense;
  if (matchPattern(op.getWeight(), m_Constant(&dense)))
    weight = htile::ConstantOp::create(
        builder, loc, MemRefType::get({m, cg * kernel}, f32),
        dense.reshape(RankedTensorType::get({m, cg * kernel}, f32)),
        IntegerAttr());
  else
    weight = regroup(loc, buffer(op.getWeight()), {m, cg * kernel});
  Value input = buffer(op.getInput());
  SmallVector<Value> groupWeights;
  for (int64_t g = 0; g < groups; ++g) {
    if (groups == 1) {
      groupWeights.push_back(weight);
      continue;
    }
    SmallVector<int64_t> starts{g * mg, 0}, steps{1, 1};
    Value rows = alloc(MemRefType::get({mg, cg * kernel}, f32), loc);
    htile::GatherOp::create(
        builder, loc, ValueRange{weight}, rows,
        builder.getDenseI64ArrayAttr(gather::slice(
            {m, cg * kernel}, starts, steps, {mg, cg * kernel})));
    groupWeights.push_back(rows);
  }
  SmallVector<Value> pieces;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t g = 0; g < groups; ++g) {
      Value columns = alloc(MemRefType::get({cg * kernel, positions}, f32), loc);
      htile::GatherOp::create(
          builder, loc, ValueRange{input}, columns,
          builder.getDenseI64ArrayAttr(
              gather::convColumns(in, w, out, n, g * cg, cg)));
      Value piece = alloc(MemRefType::get({mg, positions}, f32), loc);
      htile::MatMulOp::create(
          builder, loc, groupWeights[g], columns, Value(), piece,
          htile::Activation::none,
          builder.getDenseI64ArrayAttr(
              {1, int64_t(chip.proto().matrix().rows()),
               int64_t(chip.proto().matrix().cols())}));
      pieces.push_back(piece);
    }
  // The pieces in (batch, group) order are the output's elements in order.
  Value result;
  if (pieces.size() == 1) {
    result = htile::ViewOp::create(
        builder, loc, MemRefType::get({batch, m, positions}, f32),
        pieces.front());
  } else {
    result = alloc(MemRefType::get({batch, m, positions}, f32), loc);
    htile::GatherOp::create(
        builder, loc, pieces, result,
        builder.getDenseI64ArrayAttr(gather::identity(batch * m * positions)));
  }
  if (Value bias = op.getBias()) {
    Value column;
    DenseElementsAttr biasValues;
    if (matchPattern(bias, m_Constant(&biasValues)))
      column = htile::ConstantOp::create(
          builder, loc, MemRefType::get({m, 1}, f32),
          biasValues.reshape(RankedTensorType::get({m, 1}, f32)),
          IntegerAttr());
    else
      column = regroup(loc, buffer(bias), {m, 1});
    Value sum = alloc(MemRefType::get({batch, m, positions}, f32), loc);
    htile::BinaryOp::create(builder, loc, htile::BinaryKind::add, result,
                            column, sum);
    result = sum;
  }
  buffers.map(op.getResult(), regroup(loc, result, out));
  return success();
}

LogicalResult Lowering::lowerGather(Operation *op, ValueRange inputs,
                                    Value result,
                                    const gather::Indices &indices) {
  auto type = cast<ShapedType>(result.getType());
  if (type.getNumElements() > htile::GatherOp::kMaxElements)
    return op->emitError("moving ")
           << type.getNumElements() << " elements into " << type
           << " is not supported on the chip yet; data movement is "
              "limited to "
           << htile::GatherOp::kMaxElements << " elements per op";
  SmallVector<Value> operands;
  for (Value input : inputs)
    operands.push_back(buffer(input));
  Value out = alloc(result);
  htile::GatherOp::create(builder, op->getLoc(), operands, out,
                          builder.getDenseI64ArrayAttr(indices));
  buffers.map(result, out);
  return success();
}

LogicalResult Lowering::lowerConcat(hgraph::ConcatOp op) {
  SmallVector<gather::Shape> shapes;
  for (Value input : op.getInputs())
    shapes.push_back(cast<ShapedType>(input.getType()).getShape());
  return lowerGather(op, op.getInputs(), op.getResult(),
                     gather::concat(shapes, op.getAxis(),
                                    op.getType().getShape()));
}

LogicalResult Lowering::lowerSplit(hgraph::SplitOp op) {
  // Each piece is a slice along the axis.
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  int64_t axis = op.getAxis(), offset = 0;
  SmallVector<int64_t> steps(in.size(), 1);
  for (Value piece : op.getResults()) {
    SmallVector<int64_t> starts(in.size(), 0);
    starts[axis] = offset;
    ArrayRef<int64_t> shape = cast<ShapedType>(piece.getType()).getShape();
    offset += shape[axis];
    if (failed(lowerGather(op, op.getInput(), piece,
                           gather::slice(in, starts, steps, shape))))
      return failure();
  }
  return success();
}

LogicalResult Lowering::lowerSlice(hgraph::SliceOp op) {
  return lowerGather(op, op.getInput(), op.getResult(),
                     gather::slice(op.getInput().getType().getShape(),
                                   op.getStarts(), op.getSteps(),
                                   op.getType().getShape()));
}

LogicalResult Lowering::lowerPad(hgraph::PadOp op) {
  SmallVector<Value> inputs{op.getInput()};
  // A zero fill needs no data; any other fill value is one more input,
  // whose single element the padding copies.
  int64_t fill = -1;
  if (Value value = op.getValue()) {
    DenseElementsAttr dense;
    bool zero = matchPattern(value, m_Constant(&dense)) &&
                dense.getNumElements() == 1 &&
                *dense.getValues<float>().begin() == 0.0f;
    if (cast<ShapedType>(value.getType()).getNumElements() != 1)
      return op.emitError("pad value must have one element");
    if (!zero) {
      fill = op.getInput().getType().getNumElements();
      inputs.push_back(value);
    }
  }
  std::optional<gather::Indices> indices =
      gather::pad(op.getInput().getType().getShape(), op.getPads(),
                  op.getMode(), fill, op.getType().getShape());
  if (!indices)
    return op.emitError("pad mode '")
           << op.getMode() << "' is not supported on the chip yet";
  return lowerGather(op, inputs, op.getResult(), *indices);
}

/// The values of a constant integer tensor; nullopt if it is not constant.
static std::optional<SmallVector<int64_t>> constantIndices(Value value) {
  DenseElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)) ||
      !isa<IntegerType>(dense.getElementType()))
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &v : dense.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

LogicalResult Lowering::lowerGatherOp(hgraph::GatherOp op) {
  std::optional<SmallVector<int64_t>> indices =
      constantIndices(op.getIndices());
  if (!indices)
    return op.emitError("gather with indices computed at run time is not "
                        "supported on the chip yet; the indices must be "
                        "constant");
  std::optional<gather::Indices> map = gather::gather(
      op.getInput().getType().getShape(), *indices,
      op.getIndices().getType().getShape(), op.getAxis(),
      op.getType().getShape());
  if (!map)
    return op.emitError("gather index out of range for axis ")
           << op.getAxis() << " of " << op.getInput().getType();
  return lowerGather(op, op.getInput(), op.getResult(), *map);
}

LogicalResult Lowering::lowerGatherElements(hgraph::GatherElementsOp op) {
  std::optional<SmallVector<int64_t>> indices =
      constantIndices(op.getIndices());
  if (!indices)
    return op.emitError("gather_elements with indices computed at run time "
                        "is not supported on the chip yet; the indices must "
                        "be constant");
  std::optional<gather::Indices> map = gather::gatherElements(
      op.getInput().getType().getShape(), *indices, op.getAxis(),
      op.getType().getShape());
  if (!map)
    return op.emitError("gather_elements index out of range for axis ")
           << op.getAxis() << " of " << op.getInput().getType();
  return lowerGather(op, op.getInput(), op.getResult(), *map);
}

struct ConvertHGraphToHTilePass
    : hetc::impl::ConvertHGraphToHTileBase<ConvertHGraphToHTilePass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<chip::ChipSpec> spec =
        loadChipForPass(getOperation(), chip, getArgument());
    if (failed(spec))
      return signalPassFailure();
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      FailureOr<func::FuncOp> lowered = Lowering(func, *spec).run();
      if (failed(lowered))
        return signalPassFailure();
      func.erase();
    }
  }
};

} // namespace
