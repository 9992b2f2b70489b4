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

#include <numeric>
#include "llvm/Support/MathExtras.h"

#include <limits>

namespace hetc {
#define GEN_PASS_DEF_CONVERTHGRAPHTOHTILE
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

/// The element types the chip holds, as errors list them.
constexpr const char *kLaneTypes =
    "f32, f16, bf16, i8, ui8, i32, i1 (bool), f64 (held as f32), and i64, "
    "i16, ui16, ui32, ui64 (held as i32); for casts and (de)quantisation "
    "only: f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ, f8E8M0FNU, f4E2M1FN, i4, ui4, i2, ui2";

/// The error for an operation on a type held as i32 (hisa::isNarrowHeld)
/// whose result could leave the type's range.
InFlightDiagnostic narrowHeldError(Operation *op, StringRef what, Type type) {
  return op->emitError("'")
         << what << "' on " << type
         << " is not supported on the chip: the chip holds " << type
         << " as i32 and would not wrap or saturate as " << type << " does";
}

/// The lane type of `v`'s elements (i32 for the integer types held as i32;
/// see hisa::laneTypeOf).
Type laneOf(Value v) {
  return hisa::laneTypeOf(cast<ShapedType>(v.getType()).getElementType());
}
Type elementOf(Value v) { return cast<ShapedType>(v.getType()).getElementType(); }
bool isI32(Type t) { return t.isSignlessInteger(32); }
bool isBool(Type t) { return t.isSignlessInteger(1); }
bool isByte(Type t) { return t.isSignlessInteger(8) || t.isUnsignedInteger(8); }

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
  LogicalResult lowerWhere(hgraph::WhereOp op);
  LogicalResult lowerQuantize(hgraph::QuantizeLinearOp op);
  LogicalResult lowerDequantize(hgraph::DequantizeLinearOp op);
  LogicalResult lowerMatMulInteger(hgraph::MatMulIntegerOp op);
  LogicalResult lowerArgMax(hgraph::ArgMaxOp op);
  LogicalResult lowerBitwise(Operation *op, htile::BinaryKind kind);
  /// BitShift: logical left shifts wrapped into the type's range; right
  /// shifts logical for unsigned and arithmetic for signed integers.
  LogicalResult lowerShift(Operation *op, bool left);
  LogicalResult lowerBitwiseNot(hgraph::BitwiseNotOp op);
  /// `value` (i32, of `shape`) wrapped into the range of the 8- or 16-bit
  /// integer type `type` as two's complement arithmetic would: a floored
  /// modulo by 2^width, shifted by 2^(width-1) for signed types.
  Value wrapKernel(Location loc, Value value, ArrayRef<int64_t> shape,
                   IntegerType type);
  /// An i32 row of `length` elements, all `value`.
  Value splatRow(Location loc, int64_t length, int32_t value);
  /// Elementwise kernels on buffers, each writing a new buffer of `shape`
  /// (the kernel's result) in `element` type.
  Value binaryKernel(Location loc, htile::BinaryKind kind, Value lhs,
                     Value rhs, ArrayRef<int64_t> shape, Type element);
  Value castKernel(Location loc, Value input, Type element);
  /// The buffer of a per-tensor (one element) or per-axis (1-D along
  /// `axis`) quantisation parameter, shaped to broadcast against a tensor
  /// of `rank` dimensions.
  Value axisParameter(Location loc, Value parameter, int64_t axis,
                      int64_t rank);
  LogicalResult lowerCast(hgraph::CastOp op);
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
  /// A convolution with one channel per group and constant weights
  /// (depthwise), as per-kernel-element scaled sums.
  LogicalResult lowerDepthwiseConv(hgraph::ConvOp op, const gather::Window &w,
                                   DenseElementsAttr weights, int64_t kernel,
                                   int64_t positions);
  /// An f32 constant buffer of `shape`.
  Value constantBuffer(Location loc, ArrayRef<int64_t> shape,
                       ArrayRef<float> values);
  /// A new buffer of `shape` holding `input`'s elements in order.
  Value regroup(Location loc, Value input, ArrayRef<int64_t> shape);
  /// Fills `out` with `inputs`' elements by the index map `indices` (one
  /// entry per element of `out`): one htile.gather, or several filling
  /// bands of rows when the map is longer than one gather's.
  void move(Location loc, ValueRange inputs, Value out,
            ArrayRef<int64_t> indices);
  /// A new buffer of `lhs`'s type holding `lhs <kind> rhs` (broadcast).
  Value combine(Location loc, htile::BinaryKind kind, Value lhs, Value rhs);
  /// `result` ([N, channels, positions]) plus the convolution bias `bias`
  /// ([channels]) of each channel.
  Value addChannelBias(Location loc, Value result, Value bias,
                       int64_t channels);
  /// Writes `result` with an htile.gather of `inputs` by the map that
  /// `indices` computes (or fails, having said why); the result's size is
  /// checked first, so that no map larger than the chip's SRAM is ever
  /// built.
  LogicalResult
  lowerGather(Operation *op, ValueRange inputs, Value result,
              llvm::function_ref<FailureOr<gather::Indices>()> indices);
  /// Fails, naming `op`, when `count` elements are more than the chip's
  /// SRAM could hold: the bound on a move's index map.
  LogicalResult checkMovement(Operation *op, uint64_t count,
                              const Twine &what);
  LogicalResult lowerConcat(hgraph::ConcatOp op);
  LogicalResult lowerSplit(hgraph::SplitOp op);
  LogicalResult lowerSlice(hgraph::SliceOp op);
  LogicalResult lowerPad(hgraph::PadOp op);
  LogicalResult lowerGatherOp(hgraph::GatherOp op);
  LogicalResult lowerGatherRows(hgraph::GatherRowsOp op);
  LogicalResult lowerGatherElements(hgraph::GatherElementsOp op);
  /// A lanes x lanes identity constant of `type`, created on first use.
  Value identity(Location loc, Type type);
  DenseMap<Type, Value> identityBuffers;
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
    if (!hisa::laneTypeOf(element))
      return emitError(source.getLoc())
             << "model input '" << (name ? name.getValue() : "") << "' has "
             << "element type " << element << ", which the chip does not "
             << "hold yet; supported: " << kLaneTypes;
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
  // Every tensor a kernel touches must be of a type the chip holds.
  auto laneTyped = [&](Value v) -> LogicalResult {
    if (laneOf(v))
      return success();
    return op->emitError("element type ")
           << elementOf(v) << " (of " << v.getType()
           << ") is not supported on the chip yet; supported: " << kLaneTypes;
  };
  if (!isa<hgraph::ConstantOp>(op)) {
    for (Value operand : op->getOperands())
      if (!(hostIndices && operand == op->getOperand(1)) &&
          failed(laneTyped(operand)))
        return failure();
    for (Value result : op->getResults())
      if (failed(laneTyped(result)))
        return failure();
  }
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
        if (!hisa::laneTypeOf(c.getType().getElementType()) &&
            !llvm::all_of(c->getUses(), onHost))
          return c.emitError("constants of element type ")
                 << c.getType().getElementType()
                 << " are not supported on the chip yet; supported: "
                 << kLaneTypes;
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
      .Case([&](hgraph::AndOp) {
        return lowerBinary(op, htile::BinaryKind::and_);
      })
      .Case([&](hgraph::OrOp) {
        return lowerBinary(op, htile::BinaryKind::or_);
      })
      .Case([&](hgraph::XorOp) {
        return lowerBinary(op, htile::BinaryKind::xor_);
      })
      .Case([&](hgraph::EqualOp) {
        return lowerBinary(op, htile::BinaryKind::equal);
      })
      .Case([&](hgraph::LessOp) {
        return lowerBinary(op, htile::BinaryKind::less);
      })
      .Case([&](hgraph::LessOrEqualOp) {
        return lowerBinary(op, htile::BinaryKind::less_equal);
      })
      .Case([&](hgraph::GreaterOp) {
        return lowerBinary(op, htile::BinaryKind::greater);
      })
      .Case([&](hgraph::GreaterOrEqualOp) {
        return lowerBinary(op, htile::BinaryKind::greater_equal);
      })
      .Case([&](hgraph::NotOp) { return lowerUnary(op, htile::UnaryKind::not_); })
      .Case([&](hgraph::RoundOp) {
        return lowerUnary(op, htile::UnaryKind::round);
      })
      .Case([&](hgraph::ModOp) {
        return lowerBinary(op, htile::BinaryKind::mod);
      })
      .Case([&](hgraph::FModOp) {
        return lowerBinary(op, htile::BinaryKind::fmod);
      })
      .Case([&](hgraph::BitwiseAndOp) {
        return lowerBitwise(op, htile::BinaryKind::and_);
      })
      .Case([&](hgraph::BitwiseOrOp) {
        return lowerBitwise(op, htile::BinaryKind::or_);
      })
      .Case([&](hgraph::BitwiseXorOp) {
        return lowerBitwise(op, htile::BinaryKind::xor_);
      })
      .Case([&](hgraph::BitwiseNotOp n) { return lowerBitwiseNot(n); })
      .Case([&](hgraph::ShiftLeftOp) { return lowerShift(op, true); })
      .Case([&](hgraph::ShiftRightOp) { return lowerShift(op, false); })
      .Case([&](hgraph::WhereOp w) { return lowerWhere(w); })
      .Case([&](hgraph::QuantizeLinearOp q) { return lowerQuantize(q); })
      .Case([&](hgraph::DequantizeLinearOp d) { return lowerDequantize(d); })
      .Case([&](hgraph::MatMulIntegerOp m) { return lowerMatMulInteger(m); })
      .Case([&](hgraph::ArgMaxOp a) { return lowerArgMax(a); })
      .Case([&](hgraph::CastOp c) { return lowerCast(c); })
      .Case([&](hgraph::LinearOp l) { return lowerLinear(l); })
      .Case([&](hgraph::MatMulOp m) { return lowerMatMul(m); })
      .Case([&](hgraph::SoftmaxOp s) { return lowerSoftmax(s); })
      .Case([&](hgraph::GatherRowsOp g) { return lowerGatherRows(g); })
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
        return lowerGather(e, e.getInput(), e.getResult(), [&] {
          return gather::expand(e.getInput().getType().getShape(),
                                e.getType().getShape());
        });
      })
      .Case([&](hgraph::TileOp t) {
        return lowerGather(t, t.getInput(), t.getResult(), [&] {
          return gather::tile(t.getInput().getType().getShape(),
                              t.getType().getShape());
        });
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
  Type element = dense.getElementType();
  auto rowType = RankedTensorType::get({rowLength}, element);
  return htile::ConstantOp::create(
      builder, loc, MemRefType::get({rowLength}, element),
      DenseElementsAttr::get(rowType, *dense.getValues<Attribute>().begin()),
      IntegerAttr());
}

/// Where the vector unit defines elementwise `kind` on operands of `type`
/// (docs/isa.md, "Element types"); empty if it does.
static std::string binaryTypeProblem(htile::BinaryKind kind, Type type) {
  bool isFloat = hisa::isFloatLane(type);
  switch (kind) {
  case htile::BinaryKind::pow:
    return isFloat ? "" : "f32, f16 and bf16";
  case htile::BinaryKind::and_:
  case htile::BinaryKind::or_:
  case htile::BinaryKind::xor_:
    return isBool(type) || isI32(type) ? "" : "i1 (bool) and i32";
  case htile::BinaryKind::shl:
  case htile::BinaryKind::shr:
    return isI32(type) ? "" : "i32";
  case htile::BinaryKind::equal:
  case htile::BinaryKind::less:
  case htile::BinaryKind::less_equal:
  case htile::BinaryKind::greater:
  case htile::BinaryKind::greater_equal:
    return isFloat || isI32(type) || isBool(type)
               ? ""
               : "f32, f16, bf16, i32 and i1 (bool)";
  default:
    return isFloat || isI32(type) ? "" : "f32, f16, bf16 and i32";
  }
}

/// Whether `kind`'s result on 8-bit integers is always an 8-bit integer
/// (or a bool), so that computing it in i32 and converting back is exact.
static bool staysInRange(htile::BinaryKind kind) {
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

/// The 8- and 16-bit integer types, whose arithmetic the chip computes in
/// i32 and wraps back (see Lowering::wrapKernel).
static IntegerType wrappingType(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  if (integer && !integer.isSigned() &&
      (integer.getWidth() == 8 || integer.getWidth() == 16))
    return integer;
  return IntegerType();
}

/// The kinds whose results may leave an 8- or 16-bit range and wrap.
static bool wraps(htile::BinaryKind kind) {
  return kind == htile::BinaryKind::add || kind == htile::BinaryKind::sub ||
         kind == htile::BinaryKind::mul || kind == htile::BinaryKind::div ||
         kind == htile::BinaryKind::shl;
}

Value Lowering::splatRow(Location loc, int64_t length, int32_t value) {
  Type i32 = builder.getI32Type();
  auto type = RankedTensorType::get({length}, i32);
  return htile::ConstantOp::create(
      builder, loc, MemRefType::get({length}, i32),
      DenseElementsAttr::get(type, builder.getI32IntegerAttr(value)),
      IntegerAttr());
}

Value Lowering::wrapKernel(Location loc, Value value, ArrayRef<int64_t> shape,
                           IntegerType type) {
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

LogicalResult Lowering::lowerBinary(Operation *op, htile::BinaryKind kind) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Value result = op->getResult(0);
  if (IntegerType narrow = wrappingType(elementOf(lhs));
      narrow && wraps(kind)) {
    // Computed in i32 and wrapped into the type's range, as ONNX's
    // two's-complement arithmetic does.
    Location loc = op->getLoc();
    Type i32 = builder.getI32Type();
    Value rhs32 = castKernel(loc, buffer(rhs), i32);
    Value lhs32 = castKernel(loc, buffer(lhs), i32);
    ArrayRef<int64_t> shape = cast<ShapedType>(result.getType()).getShape();
    Value wide = binaryKernel(loc, kind, lhs32, rhs32, shape, i32);
    buffers.map(result, castKernel(loc, wrapKernel(loc, wide, shape, narrow),
                                    narrow));
    return success();
  }
  if (hisa::isNarrowHeld(elementOf(lhs)) && !staysInRange(kind))
    return narrowHeldError(op, htile::stringifyBinaryKind(kind),
                           elementOf(lhs));
  if (isByte(laneOf(lhs)) && staysInRange(kind)) {
    // The vector unit only converts 8-bit lanes: widen to i32, compute,
    // and narrow the result, which fits, back.
    Location loc = op->getLoc();
    Type i32 = builder.getI32Type();
    Value rhs32 = castKernel(loc, buffer(rhs), i32);
    Value lhs32 = castKernel(loc, buffer(lhs), i32);
    auto type = cast<ShapedType>(result.getType());
    bool compare = type.getElementType().isSignlessInteger(1);
    Value out = binaryKernel(loc, kind, lhs32, rhs32, type.getShape(),
                             compare ? type.getElementType() : i32);
    buffers.map(result, compare ? out
                                : castKernel(loc, out, type.getElementType()));
    return success();
  }
  if (std::string where = binaryTypeProblem(kind, laneOf(lhs));
      !where.empty())
    return op->emitError("'")
           << htile::stringifyBinaryKind(kind) << "' on " << elementOf(lhs)
           << " is not supported on the chip; it runs on " << where;
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
  if (hisa::isNarrowHeld(elementOf(op->getOperand(0))))
    return narrowHeldError(op, htile::stringifyUnaryKind(kind),
                           elementOf(op->getOperand(0)));
  Type type = laneOf(op->getOperand(0));
  bool isFloat = hisa::isFloatLane(type);
  StringRef where =
      kind == htile::UnaryKind::not_
          ? (isBool(type) ? "" : "i1 (bool)")
      : kind == htile::UnaryKind::relu || kind == htile::UnaryKind::neg ||
              kind == htile::UnaryKind::abs
          ? (isFloat || isI32(type) ? "" : "f32, f16, bf16 and i32")
          : (isFloat ? "" : "f32, f16 and bf16");
  if (!where.empty())
    return op->emitError("'")
           << htile::stringifyUnaryKind(kind) << "' on " << type
           << " is not supported on the chip; it runs on " << where;
  Value input = buffer(op->getOperand(0));
  Value out = alloc(op->getResult(0));
  htile::UnaryOp::create(builder, op->getLoc(), kind, input, out);
  buffers.map(op->getResult(0), out);
  return success();
}

LogicalResult Lowering::lowerWhere(hgraph::WhereOp op) {
  Value condition = buffer(op.getCondition());
  Value lhs = buffer(op.getLhs());
  Value rhs = buffer(op.getRhs());
  Value out = alloc(op.getResult());
  htile::SelectOp::create(builder, op.getLoc(), condition, lhs, rhs, out);
  buffers.map(op.getResult(), out);
  return success();
}

Value Lowering::binaryKernel(Location loc, htile::BinaryKind kind, Value lhs,
                             Value rhs, ArrayRef<int64_t> shape,
                             Type element) {
  Value out = alloc(MemRefType::get(shape, element), loc);
  htile::BinaryOp::create(builder, loc, kind, lhs, rhs, out);
  return out;
}

Value Lowering::castKernel(Location loc, Value input, Type element) {
  auto type = cast<MemRefType>(input.getType());
  Value out = alloc(MemRefType::get(type.getShape(), element), loc);
  htile::CastOp::create(builder, loc, input, out, htile::CastOverflowAttr(),
                        htile::E8M0RoundingAttr());
  return out;
}

Value Lowering::axisParameter(Location loc, Value parameter, int64_t axis,
                              int64_t rank) {
  Value b = buffer(parameter);
  auto type = cast<MemRefType>(b.getType());
  if (type.getNumElements() == 1 || rank - axis <= 1)
    return b;
  // [C] -> [C, 1, ..., 1]: the values become a column, which changes the
  // row length, so they move with a gather.
  SmallVector<int64_t> shape(rank - axis, 1);
  shape[0] = type.getNumElements();
  Value out = alloc(MemRefType::get(shape, type.getElementType()), loc);
  move(loc, ValueRange{b}, out, gather::identity(type.getNumElements()));
  return out;
}

LogicalResult Lowering::lowerQuantize(hgraph::QuantizeLinearOp op) {
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
    Value scale = axisParameter(loc, op.getScale(), axis, rank);
    Value q = binaryKernel(loc, htile::BinaryKind::div, buffer(op.getInput()),
                           scale, shape, floatType);
    if (op.getZeroPoint() && outType.getIntOrFloatBitWidth() != 8)
      q = binaryKernel(
          loc, htile::BinaryKind::add, q,
          castKernel(loc, axisParameter(loc, op.getZeroPoint(), axis, rank),
                     floatType),
          shape, floatType);
    buffers.map(op.getResult(), castKernel(loc, q, outType));
    return success();
  }
  IntegerType held = wrappingType(outType);
  // i16 and ui16 results are clamped in f32 (below), where their bounds
  // are exact.
  if (hisa::isNarrowHeld(outType) && (!held || !floatType.isF32()))
    return narrowHeldError(op, "quantize to", outType);
  Location loc = op.getLoc();
  ArrayRef<int64_t> shape = op.getType().getShape();
  int64_t rank = shape.size(), axis = int64_t(op.getAxis());
  Value x = buffer(op.getInput());
  Value scale = axisParameter(loc, op.getScale(), axis, rank);
  Value zero = op.getZeroPoint()
                   ? castKernel(loc,
                                axisParameter(loc, op.getZeroPoint(), axis,
                                              rank),
                                floatType)
                   : Value();
  Value q = binaryKernel(loc, htile::BinaryKind::div, x, scale, shape,
                         floatType);
  Value rounded = alloc(MemRefType::get(shape, floatType), loc);
  htile::UnaryOp::create(builder, loc, htile::UnaryKind::round, q, rounded);
  if (zero)
    rounded = binaryKernel(loc, htile::BinaryKind::add, rounded, zero, shape,
                           floatType);
  if (held && hisa::isNarrowHeld(outType)) {
    // i16 and ui16 are held as i32, whose cast saturates at the int32
    // range: clamp to the type's range first.
    int64_t row = shape.empty() ? 1 : shape.back();
    auto bound = [&](double value) {
      auto type = RankedTensorType::get({row}, floatType);
      return htile::ConstantOp::create(
          builder, loc, MemRefType::get({row}, floatType),
          DenseElementsAttr::get(type, builder.getFloatAttr(floatType, value)),
          IntegerAttr());
    };
    bool isSigned = !held.isUnsigned();
    double lo = isSigned ? -32768.0 : 0.0, hi = isSigned ? 32767.0 : 65535.0;
    rounded = binaryKernel(loc, htile::BinaryKind::max, rounded, bound(lo),
                           shape, floatType);
    rounded = binaryKernel(loc, htile::BinaryKind::min, rounded, bound(hi),
                           shape, floatType);
  }
  buffers.map(op.getResult(), castKernel(loc, rounded, outType));
  return success();
}

LogicalResult Lowering::lowerDequantize(hgraph::DequantizeLinearOp op) {
  // y = (x - zero_point) * scale, in the scale's float type.
  Type floatType = op.getType().getElementType();
  if (!hisa::isFloatLane(floatType))
    return op.emitError("dequantising to ")
           << floatType << " is not supported on the chip; the scale must "
           << "be f32, f16 or bf16";
  Location loc = op.getLoc();
  ArrayRef<int64_t> shape = op.getType().getShape();
  int64_t rank = shape.size(), axis = int64_t(op.getAxis());
  Value x = castKernel(loc, buffer(op.getInput()), floatType);
  Value scale = axisParameter(loc, op.getScale(), axis, rank);
  if (op.getZeroPoint()) {
    Value zero = castKernel(
        loc, axisParameter(loc, op.getZeroPoint(), axis, rank), floatType);
    x = binaryKernel(loc, htile::BinaryKind::sub, x, zero, shape, floatType);
  }
  buffers.map(op.getResult(), binaryKernel(loc, htile::BinaryKind::mul, x,
                                            scale, shape, floatType));
  return success();
}

/// Whether `value` is a constant whose elements are all zero.
static bool isZeroConstant(Value value) {
  DenseElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)))
    return false;
  return llvm::all_of(dense.getValues<APInt>(),
                      [](const APInt &v) { return v.isZero(); });
}

LogicalResult Lowering::lowerMatMulInteger(hgraph::MatMulIntegerOp op) {
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
  for (Value z : {za, zb})
    if (z && cast<ShapedType>(z.getType()).getNumElements() != 1)
      return op.emitError("per-row or per-column zero points are not "
                          "supported on the chip yet; supported: one zero "
                          "point per operand");
  if (za && isZeroConstant(za))
    za = Value();
  if (zb && isZeroConstant(zb))
    zb = Value();
  // (A - za)(B - zb) = AB - za colsum(B) - zb rowsum(A) + K za zb, with
  // the sums as products by ones on the matrix unit, all exact in i32.
  Location loc = op.getLoc();
  int64_t m = lhsType.getDimSize(0), k = lhsType.getDimSize(1),
          n = rhsType.getDimSize(1);
  Type i32 = builder.getI32Type();
  auto tile = builder.getDenseI64ArrayAttr(
      {1, int64_t(chip.proto().matrix().rows()),
       int64_t(chip.proto().matrix().cols())});
  auto matmul = [&](Value a, Value b, ArrayRef<int64_t> shape) {
    Value out = alloc(MemRefType::get(shape, i32), loc);
    htile::MatMulOp::create(builder, loc, a, b, Value(), out,
                            htile::Activation::none, tile);
    return out;
  };
  auto ones = [&](ArrayRef<int64_t> shape) {
    Type u8 = IntegerType::get(builder.getContext(), 8, IntegerType::Unsigned);
    auto type = RankedTensorType::get(shape, u8);
    return htile::ConstantOp::create(
        builder, loc, MemRefType::get(shape, u8),
        DenseElementsAttr::get(type, builder.getIntegerAttr(u8, 1)),
        IntegerAttr());
  };
  Value a = buffer(lhs), b = buffer(rhs);
  Value za32 = za ? castKernel(loc, buffer(za), i32) : Value();
  Value zb32 = zb ? castKernel(loc, buffer(zb), i32) : Value();
  Value y = matmul(a, b, {m, n});
  if (za) {
    Value colSums = matmul(ones({1, k}), b, {1, n});
    Value t = binaryKernel(loc, htile::BinaryKind::mul, colSums, za32, {1, n},
                           i32);
    y = binaryKernel(loc, htile::BinaryKind::sub, y, t, {m, n}, i32);
  }
  if (zb) {
    Value rowSums = matmul(a, ones({k, 1}), {m, 1});
    Value t = binaryKernel(loc, htile::BinaryKind::mul, rowSums, zb32, {m, 1},
                           i32);
    y = binaryKernel(loc, htile::BinaryKind::sub, y, t, {m, n}, i32);
  }
  if (za && zb) {
    auto za32Type = cast<MemRefType>(za32.getType());
    auto countType = RankedTensorType::get(za32Type.getShape(), i32);
    Value count = htile::ConstantOp::create(
        builder, loc, za32Type,
        DenseElementsAttr::get(countType, builder.getI32IntegerAttr(int32_t(k))),
        IntegerAttr());
    Value kza = binaryKernel(loc, htile::BinaryKind::mul, za32, count,
                             za32Type.getShape(), i32);
    Value both = binaryKernel(
        loc, htile::BinaryKind::mul, kza, zb32,
        cast<MemRefType>(zb32.getType()).getShape().size() >=
                za32Type.getShape().size()
            ? cast<MemRefType>(zb32.getType()).getShape()
            : za32Type.getShape(),
        i32);
    y = binaryKernel(loc, htile::BinaryKind::add, y, both, {m, n}, i32);
  }
  buffers.map(op.getResult(), y);
  return success();
}

LogicalResult Lowering::lowerBitwise(Operation *op, htile::BinaryKind kind) {
  // The bits of sign- or zero-extended integers combine into the
  // extension of the result, so every integer type runs in its i32 lanes.
  Type type = elementOf(op->getOperand(0));
  if (!isa<IntegerType>(type) || isBool(type))
    return op->emitError("bitwise ")
           << htile::stringifyBinaryKind(kind) << " on " << type
           << " is not supported; it takes integers";
  return lowerBinary(op, kind);
}

LogicalResult Lowering::lowerShift(Operation *op, bool left) {
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
  if (!integer || isBool(type) ||
      (left && wide && hisa::isNarrowHeld(type)))
    return op->emitError("'")
           << name << "' on " << type
           << " is not supported on the chip; it runs on i8, ui8, i16, ui16 "
              "and i32"
           << (left ? "" : ", and ui32, i64 and ui64 held as i32");
  Location loc = op->getLoc();
  Type i32 = builder.getI32Type();
  ArrayRef<int64_t> xShape = cast<ShapedType>(lhs.getType()).getShape();
  ArrayRef<int64_t> shape =
      cast<ShapedType>(op->getResult(0).getType()).getShape();
  int64_t xRow = xShape.empty() ? 1 : xShape.back();
  Value x = buffer(lhs), y = buffer(rhs);
  if (!isI32(laneOf(lhs)))
    x = castKernel(loc, x, i32);
  if (!isI32(laneOf(rhs)))
    y = castKernel(loc, y, i32);
  Value result;
  if (left) {
    result = binaryKernel(loc, htile::BinaryKind::shl, x, y, shape, i32);
    if (!wide)
      result = wrapKernel(loc, result, shape, integer);
  } else if (integer.isUnsigned()) {
    result = binaryKernel(loc, htile::BinaryKind::shr, x, y, shape, i32);
  } else {
    Value ones = splatRow(loc, xRow, -1);
    Value flipped = binaryKernel(loc, htile::BinaryKind::xor_, x, ones, xShape,
                                 i32);
    Value low = binaryKernel(loc, htile::BinaryKind::shr, flipped, y, shape,
                             i32);
    Value negativeShift = binaryKernel(loc, htile::BinaryKind::xor_, low,
                                       splatRow(loc, shape.empty() ? 1 : shape.back(), -1),
                                       shape, i32);
    Value positiveShift =
        binaryKernel(loc, htile::BinaryKind::shr, x, y, shape, i32);
    Value negative = binaryKernel(loc, htile::BinaryKind::less, x,
                                  splatRow(loc, xRow, 0), xShape,
                                  builder.getI1Type());
    result = alloc(MemRefType::get(shape, i32), loc);
    htile::SelectOp::create(builder, loc, negative, negativeShift,
                            positiveShift, result);
  }
  buffers.map(op->getResult(0),
              isI32(laneOf(lhs)) ? result : castKernel(loc, result, type));
  return success();
}

LogicalResult Lowering::lowerBitwiseNot(hgraph::BitwiseNotOp op) {
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
  Type i32 = builder.getI32Type();
  ArrayRef<int64_t> shape = op.getType().getShape();
  int64_t row = shape.empty() ? 1 : shape.back();
  Value x = buffer(op.getInput());
  if (!isI32(laneOf(op.getInput())))
    x = castKernel(loc, x, i32);
  Value flipped = binaryKernel(loc, htile::BinaryKind::xor_, x,
                               splatRow(loc, row, -1), shape, i32);
  if (narrow && narrow.isUnsigned())
    flipped = wrapKernel(loc, flipped, shape, narrow);
  buffers.map(op.getResult(), castKernel(loc, flipped, type));
  return success();
}

LogicalResult Lowering::lowerArgMax(hgraph::ArgMaxOp op) {
  RankedTensorType inType = op.getInput().getType();
  Type element = inType.getElementType(), lane = laneOf(op.getInput());
  StringRef name = op.getMin() ? "arg_min" : "arg_max";
  if (!hisa::isFloatLane(lane) && !isI32(lane))
    return op.emitError() << name << " on " << element
                          << " is not supported on the chip; it runs on "
                             "f32, f16, bf16 and i32";
  int64_t rank = inType.getRank(), axis = int64_t(op.getAxis());
  if (axis < 0)
    axis += rank;
  if (rank == 0 || axis < 0 || axis >= rank)
    return op.emitError() << name << " axis " << op.getAxis()
                          << " is out of range for " << inType;
  if (inType.getNumElements() > htile::GatherOp::kMaxElements)
    return op.emitError() << name << " over " << inType.getNumElements()
                          << " elements is not supported on the chip yet; "
                             "the limit is "
                          << htile::GatherOp::kMaxElements;
  Location loc = op.getLoc();
  Type i32 = builder.getI32Type(), i1 = builder.getI1Type();
  Value x = buffer(op.getInput());
  SmallVector<int64_t> shape(inType.getShape());
  if (axis != rank - 1) {
    // The reduced axis becomes the innermost, where the lanes reduce.
    SmallVector<int64_t> perm, moved;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        perm.push_back(d);
    perm.push_back(axis);
    for (int64_t d : perm)
      moved.push_back(shape[d]);
    Value t = alloc(MemRefType::get(moved, element), loc);
    move(loc, ValueRange{x}, t, gather::transpose(shape, perm, moved));
    x = t;
    shape = moved;
  }
  // Per row: the extreme value; the lanes that hold it take their index,
  // the others a sentinel that loses the final reduction (n for the first
  // index, -1 for the last); the index is the min (max) of those.
  int64_t n = shape.back();
  bool last = op.getSelectLastIndex();
  SmallVector<int64_t> kept(shape);
  kept.back() = 1;
  Value extreme = alloc(MemRefType::get(kept, element), loc);
  htile::ReduceOp::create(builder, loc,
                          op.getMin() ? htile::ReduceKind::min
                                      : htile::ReduceKind::max,
                          x, extreme);
  Value hit = binaryKernel(loc, htile::BinaryKind::equal, x, extreme, shape, i1);
  auto rowType = RankedTensorType::get({n}, i32);
  SmallVector<int32_t> iota(n);
  for (int64_t i = 0; i < n; ++i)
    iota[i] = int32_t(i);
  Value indices = htile::ConstantOp::create(
      builder, loc, MemRefType::get({n}, i32),
      DenseElementsAttr::get(rowType, ArrayRef<int32_t>(iota)), IntegerAttr());
  Value sentinel = htile::ConstantOp::create(
      builder, loc, MemRefType::get({n}, i32),
      DenseElementsAttr::get(rowType,
                             builder.getI32IntegerAttr(last ? -1 : int32_t(n))),
      IntegerAttr());
  Value candidates = alloc(MemRefType::get(shape, i32), loc);
  htile::SelectOp::create(builder, loc, hit, indices, sentinel, candidates);
  Type resultElement = op.getType().getElementType();
  Value index = alloc(MemRefType::get(kept, resultElement), loc);
  htile::ReduceOp::create(builder, loc,
                          last ? htile::ReduceKind::max : htile::ReduceKind::min,
                          candidates, index);
  // [.., 1] holds the results in the output's element order.
  ArrayRef<int64_t> outShape = op.getType().getShape();
  if (ArrayRef<int64_t>(kept) == outShape) {
    buffers.map(op.getResult(), index);
    return success();
  }
  if (!outShape.empty() && outShape.back() == 1) {
    buffers.map(op.getResult(),
                htile::ViewOp::create(builder, loc, bufferType(op.getResult()),
                                      index));
    return success();
  }
  Value out = alloc(op.getResult());
  move(loc, ValueRange{index}, out, gather::identity(
                              op.getType().getNumElements()));
  buffers.map(op.getResult(), out);
  return success();
}

LogicalResult Lowering::lowerCast(hgraph::CastOp op) {
  Type to = op.getType().getElementType();
  if (hisa::isNarrowHeld(to))
    return narrowHeldError(op, "cast to", to);
  // ONNX Cast wraps to the 4- and 2-bit integers (V_CAST's wrap), and
  // saturate=0 and round_mode carry over to V_CAST.
  htile::CastOverflowAttr overflow;
  if (hisa::isNarrowLane(to) && isa<IntegerType>(to))
    overflow =
        builder.getAttr<htile::CastOverflowAttr>(htile::CastOverflow::wrap);
  else if (op.getNoSaturate() && hisa::isNarrowLane(to) && isa<FloatType>(to))
    overflow = builder.getAttr<htile::CastOverflowAttr>(
        htile::CastOverflow::no_saturate);
  htile::E8M0RoundingAttr rounding;
  if (isa<Float8E8M0FNUType>(to) && op.getRoundMode())
    rounding = builder.getAttr<htile::E8M0RoundingAttr>(
        *htile::symbolizeE8M0Rounding(*op.getRoundMode()));
  Value input = buffer(op.getInput());
  Value out = alloc(op.getResult());
  htile::CastOp::create(builder, op.getLoc(), input, out, overflow, rounding);
  buffers.map(op.getResult(), out);
  return success();
}

LogicalResult Lowering::lowerLinear(hgraph::LinearOp op) {
  if (!hisa::isFloatLane(laneOf(op.getInput())) ||
      laneOf(op.getWeight()) != laneOf(op.getInput()))
    return op.emitError("matmul of ")
           << elementOf(op.getInput()) << " by " << elementOf(op.getWeight())
           << " is not supported on the chip; the matrix unit multiplies "
              "f32, f16 or bf16 by the same type (and i8/ui8 in "
              "MatMulInteger)";
  // Operand buffers first, in operand order, so the IR order is fixed.
  Value input = buffer(op.getInput());
  Value weight = buffer(op.getWeight());
  Value bias = op.getBias() ? buffer(op.getBias()) : Value();
  auto resultType = cast<ShapedType>(op.getResult().getType());
  // Partial sums over K tiles pass through the output buffer in f32, the
  // plane's accumulator type; an f16 or bf16 output, which SRAM holds at
  // half that width, gets an f32 buffer and a cast to its type.
  int64_t k = cast<ShapedType>(op.getInput().getType()).getShape().back();
  bool narrow = !resultType.getElementType().isF32() &&
                k > int64_t(chip.proto().matrix().rows());
  Value out = narrow ? alloc(MemRefType::get(resultType.getShape(),
                                             builder.getF32Type()),
                             op.getLoc())
                     : alloc(op.getResult());
  // One input row per step; the weight tile fills one plane.
  htile::MatMulOp::create(
      builder, op.getLoc(), input, weight, bias, out,
      static_cast<htile::Activation>(op.getActivation()),
      builder.getDenseI64ArrayAttr(
          {1, int64_t(chip.proto().matrix().rows()),
           int64_t(chip.proto().matrix().cols())}));
  if (narrow)
    out = castKernel(op.getLoc(), out, resultType.getElementType());
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

LogicalResult Lowering::lowerGatherRows(hgraph::GatherRowsOp op) {
  if (!op.getTable().getDefiningOp<hgraph::ConstantOp>())
    return op.emitError("looks up rows of a table computed at run time; "
                        "the chip reads rows by index from constant tables "
                        "only");
  Value table = buffer(op.getTable());
  Value indices = buffer(op.getIndices());
  Value out = alloc(op.getResult());
  htile::GatherRowsOp::create(builder, op.getLoc(), table, indices, out);
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
    return lowerGather(op, op.getInput(), op.getResult(), [&] {
      return gather::identity(op.getType().getNumElements());
    });
  Value out = htile::ViewOp::create(builder, op.getLoc(),
                                    bufferType(op.getResult()),
                                    buffer(op.getInput()));
  buffers.map(op.getResult(), out);
  return success();
}

Value Lowering::identity(Location loc, Type element) {
  Value &buffer = identityBuffers[element];
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

/// Whether a matrix plane can transpose tiles of `type` (multiplying by an
/// identity of that type is exact): the float types and 8-bit integers.
static bool planeTransposes(Type type) {
  return hisa::isFloatLane(type) || isByte(type);
}

/// A permutation with every run of input axes that stay adjacent and in
/// order merged into one axis: [0, 2, 3, 1] of [1, 96, 56, 56] is [0, 2, 1]
/// of [1, 96, 3136]. Unit axes join their neighbours.
struct CollapsedPermutation {
  SmallVector<int64_t> shape;
  SmallVector<int64_t> perm;
};
static CollapsedPermutation collapse(ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> perm) {
  // Drop unit axes (they move nothing), then merge runs.
  SmallVector<int64_t> kept;
  for (int64_t axis : perm)
    if (shape[axis] != 1)
      kept.push_back(axis);
  // Runs in output order: axis a continues the run when it follows the
  // previous one in the input, skipping dropped unit axes.
  SmallVector<SmallVector<int64_t>> runs;
  for (int64_t axis : kept) {
    if (!runs.empty()) {
      int64_t last = runs.back().back();
      bool adjacent = axis > last;
      for (int64_t between = last + 1; adjacent && between < axis; ++between)
        adjacent = shape[between] == 1;
      if (adjacent) {
        runs.back().push_back(axis);
        continue;
      }
    }
    runs.push_back({axis});
  }
  // The runs in input order give the collapsed input shape.
  SmallVector<size_t> byInput(runs.size());
  std::iota(byInput.begin(), byInput.end(), 0);
  llvm::sort(byInput,
             [&](size_t a, size_t b) { return runs[a][0] < runs[b][0]; });
  CollapsedPermutation result;
  SmallVector<int64_t> position(runs.size());
  for (auto [i, run] : llvm::enumerate(byInput)) {
    int64_t size = 1;
    for (int64_t axis : runs[run])
      size *= shape[axis];
    result.shape.push_back(size);
    position[run] = int64_t(i);
  }
  for (size_t run = 0; run < runs.size(); ++run)
    result.perm.push_back(position[run]);
  return result;
}

LogicalResult Lowering::lowerTranspose(hgraph::TransposeOp op) {
  ArrayRef<int64_t> perm = op.getPerm();
  int64_t rank = perm.size();
  bool keepsRows = rank == 0 || perm[rank - 1] == rank - 1;
  bool swapsInnermost = rank >= 2 && perm[rank - 1] == rank - 2 &&
                        perm[rank - 2] == rank - 1;
  Type element = elementOf(op.getInput());
  if (!keepsRows && !swapsInnermost && planeTransposes(element)) {
    // A permutation that is a swap of the last two axes once adjacent axes
    // merge (NCHW <-> NHWC) runs as that swap on the matrix unit between
    // two regroupings, each a move of whole rows: far fewer instructions
    // than assembling every output vector lane by lane.
    CollapsedPermutation c =
        collapse(op.getInput().getType().getShape(), perm);
    int64_t n = int64_t(c.perm.size());
    bool swap = n >= 2 && c.perm[n - 1] == n - 2 && c.perm[n - 2] == n - 1;
    for (int64_t i = 0; swap && i + 2 < n; ++i)
      swap = c.perm[i] == i;
    if (swap) {
      Location loc = op.getLoc();
      Value input = regroup(loc, buffer(op.getInput()), c.shape);
      SmallVector<int64_t> swapped(c.shape);
      std::swap(swapped[n - 1], swapped[n - 2]);
      auto outType = MemRefType::get(swapped, element);
      Value out = alloc(outType, loc);
      htile::TransposeOp::create(builder, loc, input, out,
                                 identity(loc, element),
                                 builder.getDenseI64ArrayAttr(c.perm));
      buffers.map(op.getResult(),
                  regroup(loc, out, op.getType().getShape()));
      return success();
    }
  }
  // Other permutations assemble each output vector on a switch unit, as do
  // swaps of types the matrix unit does not multiply.
  if ((!keepsRows && !swapsInnermost) ||
      (swapsInnermost && !planeTransposes(element)))
    return lowerGather(op, op.getInput(), op.getResult(), [&] {
      return gather::transpose(op.getInput().getType().getShape(), perm,
                               op.getType().getShape());
    });
  Value input = buffer(op.getInput());
  Value eye = swapsInnermost
                  ? identity(op.getLoc(), elementOf(op.getInput()))
                  : Value();
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
  Type element = inType.getElementType();
  if (hisa::isNarrowHeld(element) &&
      (op.getKind() == hgraph::ReduceKind::sum ||
       op.getKind() == hgraph::ReduceKind::mean))
    return narrowHeldError(op, hgraph::stringifyReduceKind(op.getKind()),
                           element);
  Type lane = hisa::laneTypeOf(element);
  if (!lane || (!hisa::isFloatLane(lane) && !isI32(lane)))
    return op.emitError("reduce on ")
           << element << " is not supported on the chip; it runs on f32, "
           << "f16, bf16 and i32";
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
      move(loc, ValueRange{rows}, result, gather::transpose(kept, perm, swapped));
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
  move(loc, ValueRange{input}, out, gather::identity(target.getNumElements()));
  return out;
}

/// `type` as MLIR prints it, for messages built before they are emitted.
static std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "'" << type << "'";
  return text;
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
  // The windows' elements (positions outside the input are -inf for a
  // maximum and zero for a sum) are reduced, by rows or per kernel element
  // (below), and an average divides by the window's element count.
  // The windows, fills and counts are f32: any other type is refused here,
  // not misread.
  Type f32 = builder.getF32Type();
  for (Value v : {op.getInput(), op.getResult()})
    if (elementOf(v) != f32)
      return op.emitError(max ? "max pooling" : "average pooling")
             << " on " << elementOf(v)
             << " is not supported on the chip yet; it runs on f32 (cast "
                "around the pool)";
  Location loc = op.getLoc();
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> out = op.getType().getShape();
  gather::Window w = windowOf(op, op.getKernelShape());
  // Products of attribute values: computed without overflow.
  int64_t kernel = 1, count = 0;
  bool overflow = false;
  for (int64_t k : w.kernel)
    overflow |= k < 0 || llvm::MulOverflow(kernel, k, kernel);
  overflow |= llvm::MulOverflow(op.getType().getNumElements(), kernel, count);
  if (failed(checkMovement(op, overflow ? UINT64_MAX : uint64_t(count),
                           "pooling over windows of " + Twine(kernel) +
                               " elements into " + typeString(op.getType()))))
    return failure();
  SmallVector<int64_t> windowsShape(out);
  windowsShape.push_back(kernel);
  int64_t fillIndex = op.getInput().getType().getNumElements();
  gather::Indices indices =
      gather::poolWindows(in, w, out, max ? fillIndex : -1);
  SmallVector<Value> inputs{buffer(op.getInput())};
  if (max && llvm::is_contained(indices, fillIndex))
    inputs.push_back(
        constantBuffer(loc, {1}, {-std::numeric_limits<float>::infinity()}));
  // Two ways, whichever takes fewer vectors: each window gathered into a
  // row and the rows reduced (one vector per window when the window is
  // narrower than a vector), or, per kernel element, the input elements
  // it meets at every output position gathered in the output's shape and
  // combined elementwise (three output-sized buffers).
  auto vectors = [&](ArrayRef<int64_t> shape) {
    return layoutOf(shape, chip.lanes()).vectors();
  };
  Value result;
  if (vectors(windowsShape) <= 3 * vectors(out)) {
    Value windows = alloc(MemRefType::get(windowsShape, f32), loc);
    move(loc, inputs, windows, indices);
    Value rows = reduceInnermost(
        loc, max ? htile::ReduceKind::max : htile::ReduceKind::sum,
        /*mean=*/false, windows, /*packed=*/true);
    result = htile::ViewOp::create(builder, loc, bufferType(op.getResult()),
                                   rows);
  } else {
    int64_t positions = op.getType().getNumElements();
    gather::Indices tap(positions);
    for (int64_t k = 0; k < kernel; ++k) {
      for (int64_t p = 0; p < positions; ++p)
        tap[p] = indices[p * kernel + k];
      Value taken = alloc(op.getResult());
      move(loc, inputs, taken, tap);
      result = result ? combine(loc,
                                max ? htile::BinaryKind::max
                                    : htile::BinaryKind::add,
                                result, taken)
                      : taken;
    }
  }
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
  // The windows, weights and bias are f32 buffers throughout, and constant
  // weights are reinterpreted as f32: any other type is refused here, not
  // misread.
  for (Value v : {op.getInput(), op.getWeight(), op.getBias(), op.getResult()})
    if (v && elementOf(v) != f32)
      return op.emitError("convolution on ")
             << elementOf(v)
             << " is not supported on the chip yet; it runs on f32 (export "
                "the model in float32 or cast around the Conv)";
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> ws = op.getWeight().getType().getShape();
  ArrayRef<int64_t> out = op.getType().getShape();
  gather::Window w = windowOf(op, ws.drop_front(2));
  int64_t batch = in[0], groups = op.getGroup(), m = ws[0];
  int64_t mg = m / groups, cg = ws[1];
  // Products of attribute values: computed without overflow.
  int64_t kernel = 1, positions = 1, columns = 0;
  bool overflow = false;
  for (int64_t k : w.kernel)
    overflow |= k < 0 || llvm::MulOverflow(kernel, k, kernel);
  for (int64_t p : out.drop_front(2))
    overflow |= llvm::MulOverflow(positions, p, positions);
  overflow |= llvm::MulOverflow(cg, kernel, columns) ||
              llvm::MulOverflow(columns, positions, columns);
  if (failed(checkMovement(op, overflow ? UINT64_MAX : uint64_t(columns),
                           "convolution windows of " +
                               (overflow ? std::string("more than 2^63")
                                         : std::to_string(columns)) +
                               " elements")))
    return failure();
  DenseElementsAttr dense;
  bool constantWeight = matchPattern(op.getWeight(), m_Constant(&dense));
  // Depthwise on the vector unit while its per-kernel-element [C, 1] scale
  // columns (one vector per channel each) take no more SRAM than one of
  // its [N, C, positions] buffers; otherwise the matrix path below, whose
  // weight is C vectors in all.
  if (groups == in[1] && cg == 1 && mg == 1 && constantWeight &&
      kernel * in[1] <=
          layoutOf({batch, in[1], positions}, chip.lanes()).vectors())
    return lowerDepthwiseConv(op, w, dense, kernel, positions);
  // The weight as rows of C/g * K.
  Value weight;
  if (constantWeight)
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
    move(loc, ValueRange{weight}, rows, gather::slice(
            {m, cg * kernel}, starts, steps, {mg, cg * kernel}));
    groupWeights.push_back(rows);
  }
  SmallVector<Value> pieces;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t g = 0; g < groups; ++g) {
      Value columns = alloc(MemRefType::get({cg * kernel, positions}, f32), loc);
      move(loc, ValueRange{input}, columns,
           gather::convColumns(in, w, out, n, g * cg, cg));
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
    move(loc, pieces, result, gather::identity(batch * m * positions));
  }
  if (Value bias = op.getBias())
    result = addChannelBias(loc, result, bias, m);
  buffers.map(op.getResult(), regroup(loc, result, out));
  return success();
}

Value Lowering::combine(Location loc, htile::BinaryKind kind, Value lhs,
                        Value rhs) {
  Value out = alloc(cast<MemRefType>(lhs.getType()), loc);
  htile::BinaryOp::create(builder, loc, kind, lhs, rhs, out);
  return out;
}

Value Lowering::addChannelBias(Location loc, Value result, Value bias,
                               int64_t channels) {
  Type f32 = builder.getF32Type();
  Value column;
  DenseElementsAttr values;
  if (matchPattern(bias, m_Constant(&values)))
    column = htile::ConstantOp::create(
        builder, loc, MemRefType::get({channels, 1}, f32),
        values.reshape(RankedTensorType::get({channels, 1}, f32)),
        IntegerAttr());
  else
    column = regroup(loc, buffer(bias), {channels, 1});
  return combine(loc, htile::BinaryKind::add, result, column);
}

void Lowering::move(Location loc, ValueRange inputs, Value out,
                    ArrayRef<int64_t> indices) {
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
    htile::GatherOp::create(builder, loc, inputs, out,
                            builder.getDenseI64ArrayAttr(
                                indices.slice(begin, size)),
                            builder.getI64IntegerAttr(first));
  }
}

LogicalResult Lowering::lowerDepthwiseConv(hgraph::ConvOp op,
                                           const gather::Window &w,
                                           DenseElementsAttr weights,
                                           int64_t kernel, int64_t positions) {
  // One channel per group and one output channel per channel: per kernel
  // element k, the input elements it meets at every output position are
  // gathered as [N, C, positions] (zero in the padding), scaled by the
  // channel's weight k (a [C, 1] column) and summed over k. Nothing is
  // materialised beyond three output-sized buffers, and the matrix unit,
  // which would multiply 1 x K by K x positions per channel, is not used.
  Location loc = op.getLoc();
  Type f32 = builder.getF32Type();
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> out = op.getType().getShape();
  int64_t batch = in[0], channels = in[1];
  int64_t inPlane = 1;
  for (int64_t d : in.drop_front(2))
    inPlane *= d;
  // plane[k * positions + p]: the element of an input plane that kernel
  // element k meets at output position p, or -1 in the padding.
  gather::Indices plane = gather::convColumns(in, w, out, 0, 0, 1);
  std::vector<float> values(weights.getValues<float>().begin(),
                            weights.getValues<float>().end());
  auto planes = MemRefType::get({batch, channels, positions}, f32);
  Value input = buffer(op.getInput());
  Value sum;
  gather::Indices map(size_t(batch * channels * positions));
  for (int64_t k = 0; k < kernel; ++k) {
    for (int64_t nc = 0; nc < batch * channels; ++nc)
      for (int64_t p = 0; p < positions; ++p) {
        int64_t e = plane[k * positions + p];
        map[nc * positions + p] = e < 0 ? -1 : nc * inPlane + e;
      }
    Value taken = alloc(planes, loc);
    move(loc, ValueRange{input}, taken, map);
    SmallVector<float> column(channels);
    for (int64_t c = 0; c < channels; ++c)
      column[c] = values[c * kernel + k];
    Value scaled = combine(loc, htile::BinaryKind::mul, taken,
                           constantBuffer(loc, {channels, 1}, column));
    sum = sum ? combine(loc, htile::BinaryKind::add, sum, scaled) : scaled;
  }
  if (Value bias = op.getBias())
    sum = addChannelBias(loc, sum, bias, channels);
  buffers.map(op.getResult(), regroup(loc, sum, out));
  return success();
}

LogicalResult Lowering::checkMovement(Operation *op, uint64_t count,
                                      const Twine &what) {
  // The index map of a move has one 8-byte entry per element moved; a
  // move is bounded by what the chip's SRAM could hold at all.
  uint64_t limit = chip.totalVectors() * chip.lanes();
  if (count <= limit)
    return success();
  return op->emitError(what)
         << " is more than the chip's SRAM holds (" << limit
         << " elements of 4 bytes)";
}

LogicalResult Lowering::lowerGather(
    Operation *op, ValueRange inputs, Value result,
    llvm::function_ref<FailureOr<gather::Indices>()> indices) {
  auto type = cast<ShapedType>(result.getType());
  if (failed(checkMovement(op, uint64_t(type.getNumElements()),
                           "moving " + Twine(type.getNumElements()) +
                               " elements into " + typeString(type))))
    return failure();
  FailureOr<gather::Indices> map = indices();
  if (failed(map))
    return failure();
  SmallVector<Value> operands;
  for (Value input : inputs)
    operands.push_back(buffer(input));
  Value out = alloc(result);
  move(op->getLoc(), operands, out, *map);
  buffers.map(result, out);
  return success();
}

LogicalResult Lowering::lowerConcat(hgraph::ConcatOp op) {
  SmallVector<gather::Shape> shapes;
  for (Value input : op.getInputs())
    shapes.push_back(cast<ShapedType>(input.getType()).getShape());
  return lowerGather(op, op.getInputs(), op.getResult(), [&] {
    return gather::concat(shapes, op.getAxis(), op.getType().getShape());
  });
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
    if (failed(lowerGather(op, op.getInput(), piece, [&] {
          return gather::slice(in, starts, steps, shape);
        })))
      return failure();
  }
  return success();
}

LogicalResult Lowering::lowerSlice(hgraph::SliceOp op) {
  return lowerGather(op, op.getInput(), op.getResult(), [&] {
    return gather::slice(op.getInput().getType().getShape(), op.getStarts(),
                         op.getSteps(), op.getType().getShape());
  });
}

LogicalResult Lowering::lowerPad(hgraph::PadOp op) {
  SmallVector<Value> inputs{op.getInput()};
  // A zero fill needs no data; any other fill value is one more input,
  // whose single element the padding copies.
  int64_t fill = -1;
  if (Value value = op.getValue()) {
    DenseElementsAttr dense;
    bool zero = matchPattern(value, m_Constant(&dense)) &&
                dense.getNumElements() == 1 && dense.isSplat() &&
                dense == DenseElementsAttr::get(
                             dense.getType(),
                             builder.getZeroAttr(dense.getElementType()));
    if (cast<ShapedType>(value.getType()).getNumElements() != 1)
      return op.emitError("pad value must have one element");
    if (!zero) {
      fill = op.getInput().getType().getNumElements();
      inputs.push_back(value);
    }
  }
  return lowerGather(
      op, inputs, op.getResult(), [&]() -> FailureOr<gather::Indices> {
        std::optional<gather::Indices> indices =
            gather::pad(op.getInput().getType().getShape(), op.getPads(),
                        op.getMode(), fill, op.getType().getShape());
        if (!indices)
          return op.emitError("pad mode '")
                 << op.getMode() << "' is not supported on the chip yet";
        return std::move(*indices);
      });
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
  return lowerGather(
      op, op.getInput(), op.getResult(), [&]() -> FailureOr<gather::Indices> {
        std::optional<gather::Indices> map = gather::gather(
            op.getInput().getType().getShape(), *indices,
            op.getIndices().getType().getShape(), op.getAxis(),
            op.getType().getShape());
        if (!map)
          return op.emitError("gather index out of range for axis ")
                 << op.getAxis() << " of " << op.getInput().getType();
        return std::move(*map);
      });
}

LogicalResult Lowering::lowerGatherElements(hgraph::GatherElementsOp op) {
  std::optional<SmallVector<int64_t>> indices =
      constantIndices(op.getIndices());
  if (!indices)
    return op.emitError("gather_elements with indices computed at run time "
                        "is not supported on the chip yet; the indices must "
                        "be constant");
  return lowerGather(
      op, op.getInput(), op.getResult(), [&]() -> FailureOr<gather::Indices> {
        std::optional<gather::Indices> map = gather::gatherElements(
            op.getInput().getType().getShape(), *indices, op.getAxis(),
            op.getType().getShape());
        if (!map)
          return op.emitError("gather_elements index out of range for axis ")
                 << op.getAxis() << " of " << op.getInput().getType();
        return std::move(*map);
      });
}

struct ConvertHGraphToHTilePass
    : hetc::impl::ConvertHGraphToHTileBase<ConvertHGraphToHTilePass> {
  using Base::Base;

  void runOnOperation() override {
    auto lower = [](func::FuncOp func,
                    const chip::ChipSpec &spec) -> LogicalResult {
      if (failed(Lowering(func, spec).run()))
        return failure();
      func.erase();
      return success();
    };
    if (failed(forEachFunctionOnChip(getOperation(), getArgument(),
                                     lower)))
      signalPassFailure();
  }
};

} // namespace
