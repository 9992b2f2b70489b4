//===- ConvertHTileToHIsa.cpp - Expand htile kernels to instructions --===//

#include "compiler/passes/ChipLoader.h"
#include "compiler/passes/Passes.h"

#include "llvm/ADT/TypeSwitch.h"

namespace hetc {
#define GEN_PASS_DEF_CONVERTHTILETOHISA
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

/// A buffer as the instructions see it: base row and layout.
struct Tensor {
  int64_t base;
  BufferLayout layout;
  /// Where chunk `j` of row `r` is, as an SRAM word (BufferLayout::word),
  /// which read() and write() split into a row and a part.
  int64_t at(int64_t r, int64_t j) const {
    return layout.word(base, r * layout.vectorsPerRow + j);
  }
};

/// Emits hisa instructions for htile kernels, one kernel at a time.
class Expander {
public:
  Expander(OpBuilder &builder, const chip::ChipSpec &chip)
      : b(builder), chip(chip), lanes(chip.lanes()) {}

  /// Records the address of every buffer and emits the I/O bindings.
  LogicalResult bind(Operation *op);
  LogicalResult expand(Operation *op);

private:
  Tensor tensor(Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    return {addresses.lookup(buffer), layoutOf(type, lanes)};
  }
  /// Lanes used by chunk `j` of a row of `cols` elements.
  int32_t lanesOf(int64_t cols, int64_t j) const {
    return int32_t(std::min<int64_t>(lanes, cols - j * lanes));
  }

  Type vec() { return hisa::VecType::get(b.getContext()); }
  /// The `dtype` attribute for lanes of `type`: none for f32, the default.
  TypeAttr dtype(Type type) {
    return !type || type.isF32() ? TypeAttr() : TypeAttr::get(type);
  }
  Type f32() { return b.getF32Type(); }
  /// The `part` attribute of the vector of `type` at SRAM `word`: none
  /// for part 0.
  IntegerAttr partOf(int64_t word, Type type) {
    int64_t part = (word % 4) / hisa::sramLaneBytes(type ? type : f32());
    return part ? b.getI32IntegerAttr(int32_t(part)) : IntegerAttr();
  }
  /// Reads the vector of `type` (f32 if null) at SRAM `word` (Tensor::at).
  Value read(Location loc, int64_t word, Type type = {}) {
    return hisa::ReadOp::create(b, loc, vec(), b.getI64IntegerAttr(word / 4),
                                partOf(word, type), dtype(type), IntegerAttr(),
                                hisa::StreamAttr());
  }
  void write(Location loc, Value v, int64_t word, Type type = {}) {
    hisa::WriteOp::create(b, loc, v, b.getI64IntegerAttr(word / 4),
                          partOf(word, type), dtype(type), IntegerAttr());
  }
  Value binary(Location loc, hisa::VBinaryKind kind, Value x, Value y,
               int32_t n, Type type = {}) {
    return hisa::VBinaryOp::create(b, loc, vec(), kind, x, y, n, dtype(type),
                                   IntegerAttr(), hisa::StreamAttr());
  }
  Value unary(Location loc, hisa::VUnaryKind kind, Value x, int32_t n,
              Type type = {}) {
    return hisa::VUnaryOp::create(b, loc, vec(), kind, x, n, dtype(type),
                                  IntegerAttr(), hisa::StreamAttr());
  }
  Value reduce(Location loc, hisa::VReduceKind kind, Value x, int32_t n,
               Type type = {}) {
    return hisa::VReduceOp::create(b, loc, vec(), kind, x, n, dtype(type),
                                   IntegerAttr(), hisa::StreamAttr());
  }
  Value convert(Location loc, Value x, Type from, Type to, int32_t n,
                hisa::CastOverflowAttr overflow = {},
                hisa::E8M0RoundingAttr rounding = {}) {
    return hisa::VCastOp::create(
        b, loc, vec(), x, TypeAttr::get(from), TypeAttr::get(to), overflow,
        rounding, b.getI32IntegerAttr(n), IntegerAttr(), hisa::StreamAttr());
  }
  /// `x`'s lane 0 in every lane: a one-lane sum reduction where the vector
  /// unit reduces the type (f32, f16, bf16, i32), else a permute on a switch
  /// unit, which moves lane words of any type.
  Value spread(Location loc, Value x, Type type) {
    if (hisa::isFloatLane(type) || type.isSignlessInteger(32))
      return reduce(loc, hisa::VReduceKind::sum, x, 1, type);
    return permute(loc, x, Value(), takeSwitch(),
                   SmallVector<int32_t>(lanes, 0), type);
  }

  /// Fails at `kernel` when one of its operands has one-element rows to
  /// spread over longer output rows, of a type the vector unit does not
  /// reduce, on a chip without a SWITCH unit to spread it with.
  LogicalResult checkSpread(Operation *kernel);
  void expandBinary(htile::BinaryOp op);
  void expandUnary(htile::UnaryOp op);
  void expandMatMul(htile::MatMulOp op);
  void expandSoftmax(htile::SoftmaxOp op);
  /// Softmax over rows of several vectors.
  void expandWideSoftmax(Location loc, const Tensor &in, const Tensor &out,
                         const Tensor &scratch, Type t);
  void expandTranspose(htile::TransposeOp op);
  void expandReduce(htile::ReduceOp op);
  void expandGather(htile::GatherOp op);
  LogicalResult expandGatherRows(htile::GatherRowsOp op);
  void expandCast(htile::CastOp op);
  void expandSelect(htile::SelectOp op);
  Value permute(Location loc, Value input, Value into, uint32_t unit,
                ArrayRef<int32_t> map, Type type = {}) {
    return hisa::PermuteOp::create(b, loc, vec(), input, into, unit,
                                   b.getDenseI32ArrayAttr(map), dtype(type),
                                   IntegerAttr(), hisa::StreamAttr());
  }
  uint32_t takeSwitch() {
    uint32_t unit = nextSwitch;
    nextSwitch = (nextSwitch + 1) % chip.switches();
    return unit;
  }
  uint32_t takePlane() {
    uint32_t plane = nextPlane;
    nextPlane = (nextPlane + 1) % chip.proto().matrix().planes();
    return plane;
  }

  OpBuilder &b;
  const chip::ChipSpec &chip;
  uint32_t lanes;
  DenseMap<Value, int64_t> addresses;
  /// Matrix planes are used round-robin across tiles and kernels so that
  /// one tile's weights load while another plane computes.
  uint32_t nextPlane = 0;
  /// Switch units, likewise round-robin per assembled vector.
  uint32_t nextSwitch = 0;
};

LogicalResult Expander::bind(Operation *op) {
  auto addressOf = [&](Operation *def) -> FailureOr<int64_t> {
    Type element =
        cast<MemRefType>(def->getResult(0).getType()).getElementType();
    if (!hisa::laneTypeOf(element))
      return def->emitError("buffer of element type ")
             << element << " cannot be held by the chip ("
             << hisa::kLaneTypeNames
             << "; held as i32: i64, i16, ui16, ui32, ui64; as f32: f64)";
    auto attr = def->getAttrOfType<IntegerAttr>("address");
    if (!attr)
      return def->emitError("buffer has no SRAM address; run "
                            "hetc-htile-plan-memory first");
    return attr.getInt();
  };
  auto tensorType = [](Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    return TypeAttr::get(
        RankedTensorType::get(type.getShape(), type.getElementType()));
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](htile::InputOp in) -> LogicalResult {
        FailureOr<int64_t> a = addressOf(in);
        if (failed(a))
          return failure();
        addresses[in.getBuffer()] = *a;
        hisa::InputOp::create(b, in.getLoc(), in.getNameAttr(),
                              b.getI64IntegerAttr(*a), IntegerAttr(),
                              tensorType(in.getBuffer()));
        return success();
      })
      .Case([&](htile::ConstantOp c) -> LogicalResult {
        FailureOr<int64_t> a = addressOf(c);
        if (failed(a))
          return failure();
        addresses[c.getBuffer()] = *a;
        hisa::ConstantOp::create(b, c.getLoc(), b.getI64IntegerAttr(*a),
                                 c.getValue());
        return success();
      })
      .Case([&](htile::AllocOp alloc) -> LogicalResult {
        FailureOr<int64_t> a = addressOf(alloc);
        if (failed(a))
          return failure();
        addresses[alloc.getBuffer()] = *a;
        return success();
      })
      .Case([&](htile::ViewOp view) {
        addresses[view.getResult()] = addresses.lookup(view.getSource());
        return success();
      })
      .Case([&](htile::OutputOp out) {
        hisa::OutputOp::create(b, out.getLoc(), out.getNameAttr(),
                               b.getI64IntegerAttr(
                                   addresses.lookup(out.getBuffer())),
                               IntegerAttr(), tensorType(out.getBuffer()));
        return success();
      })
      .Default([](Operation *) { return success(); });
}

LogicalResult Expander::expand(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](htile::BinaryOp k) -> LogicalResult {
        if (failed(checkSpread(k)))
          return failure();
        expandBinary(k);
        return success();
      })
      .Case([&](htile::UnaryOp k) {
        expandUnary(k);
        return success();
      })
      .Case([&](htile::CastOp k) {
        expandCast(k);
        return success();
      })
      .Case([&](htile::SelectOp k) -> LogicalResult {
        if (failed(checkSpread(k)))
          return failure();
        expandSelect(k);
        return success();
      })
      .Case([&](htile::MatMulOp k) -> LogicalResult {
        if (std::optional<ArrayRef<int64_t>> tile = k.getTile())
          if ((*tile)[1] != int64_t(lanes) || (*tile)[2] != int64_t(lanes) ||
              (*tile)[0] != 1)
            return k.emitError("tile [")
                   << (*tile)[0] << ", " << (*tile)[1] << ", " << (*tile)[2]
                   << "] does not match chip '" << chip.name()
                   << "' (expected [1, " << lanes << ", " << lanes << "])";
        expandMatMul(k);
        return success();
      })
      .Case([&](htile::SoftmaxOp k) {
        expandSoftmax(k);
        return success();
      })
      .Case([&](htile::TransposeOp k) {
        expandTranspose(k);
        return success();
      })
      .Case([&](htile::ReduceOp k) {
        expandReduce(k);
        return success();
      })
      .Case([&](htile::GatherOp k) -> LogicalResult {
        if (chip.switches() == 0)
          return k.emitError("chip '")
                 << chip.name() << "' has no SWITCH unit to move data with";
        expandGather(k);
        return success();
      })
      .Case([&](htile::GatherRowsOp k) { return expandGatherRows(k); })
      .Case<htile::InputOp, htile::ConstantOp, htile::AllocOp, htile::ViewOp,
            htile::OutputOp, func::ReturnOp>([](Operation *) {
        return success();
      })
      .Default([](Operation *other) {
        return other->emitError("'")
               << other->getName() << "' cannot be lowered to hisa";
      });
}

LogicalResult Expander::checkSpread(Operation *kernel) {
  if (chip.switches() != 0)
    return success();
  auto outShape =
      cast<MemRefType>(kernel->getOperands().back().getType()).getShape();
  if (outShape.empty() || outShape.back() == 1)
    return success();
  for (Value operand : kernel->getOperands().drop_back()) {
    auto type = cast<MemRefType>(operand.getType());
    Type lane = hisa::laneTypeOf(type.getElementType());
    bool oneLane = type.getRank() == 0 || type.getShape().back() == 1;
    if (oneLane && !hisa::isFloatLane(lane) && !lane.isSignlessInteger(32))
      return kernel->emitError("chip '")
             << chip.name() << "' has no SWITCH unit to spread "
             << type.getElementType() << " lanes with";
  }
  return success();
}

/// Where one operand of a broadcasting elementwise kernel is read for each
/// row of the output: its row index (leading dimensions of size 1 repeat)
/// and whether its one-lane rows must be spread over the vector.
class BroadcastOperand {
public:
  BroadcastOperand(ArrayRef<int64_t> operand, ArrayRef<int64_t> output)
      : operand(operand), output(output) {
    spread = !output.empty() && output.back() != 1 &&
             (operand.empty() || operand.back() == 1);
  }
  /// The operand row that output row `row` reads.
  int64_t rowFor(int64_t row) const {
    int64_t rank = output.size(), offset = rank - int64_t(operand.size());
    int64_t result = 0, stride = 1;
    // Walk the output's leading dimensions from the innermost.
    for (int64_t d = rank - 2; d >= 0; --d) {
      int64_t size = output[d], index = row % size;
      row /= size;
      int64_t od = d - offset;
      if (od < 0)
        continue;
      if (operand[od] != 1)
        result += index * stride;
      stride *= operand[od];
    }
    return result;
  }
  bool spread = false;

private:
  ArrayRef<int64_t> operand, output;
};

/// The lane type of buffer `v`'s elements (i32 for i64).
static Type elementOf(Value v) {
  return hisa::laneTypeOf(cast<MemRefType>(v.getType()).getElementType());
}

void Expander::expandBinary(htile::BinaryOp op) {
  Location loc = op.getLoc();
  Tensor lhs = tensor(op.getLhs()), rhs = tensor(op.getRhs()),
         out = tensor(op.getOutput());
  Type type = elementOf(op.getLhs()), outType = elementOf(op.getOutput());
  ArrayRef<int64_t> shape = op.getOutput().getType().getShape();
  BroadcastOperand lhsMap(op.getLhs().getType().getShape(), shape);
  BroadcastOperand rhsMap(op.getRhs().getType().getShape(), shape);
  auto address = [&](const Tensor &t, const BroadcastOperand &map, int64_t r,
                     int64_t j) {
    return t.at(map.rowFor(r), map.spread ? 0 : j);
  };
  auto operand = [&](int64_t at, const BroadcastOperand &map) {
    Value v = read(loc, at, type);
    // A one-lane row reaches every lane of the vector.
    return map.spread ? spread(loc, v, type) : v;
  };
  // The comparisons give i1 lanes; greater (or equal) is less (or equal)
  // with the operands swapped.
  std::optional<hisa::VCompareKind> compare;
  bool swap = false;
  std::optional<hisa::VBinaryKind> kind;
  switch (op.getKind()) {
  case htile::BinaryKind::equal:
    compare = hisa::VCompareKind::eq;
    break;
  case htile::BinaryKind::less:
    compare = hisa::VCompareKind::lt;
    break;
  case htile::BinaryKind::less_equal:
    compare = hisa::VCompareKind::le;
    break;
  case htile::BinaryKind::greater:
    compare = hisa::VCompareKind::lt;
    swap = true;
    break;
  case htile::BinaryKind::greater_equal:
    compare = hisa::VCompareKind::le;
    swap = true;
    break;
  default:
    kind = hisa::symbolizeVBinaryKind(
        htile::stringifyBinaryKind(op.getKind()));
    break;
  }
  for (int64_t r = 0; r < out.layout.rows; ++r)
    for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j) {
      int64_t lhsAt = address(lhs, lhsMap, r, j);
      int64_t rhsAt = address(rhs, rhsMap, r, j);
      Value x = operand(lhsAt, lhsMap);
      // x * x reads its vector once: two reads of one address in the
      // cycle the operands must meet would need one bank twice.
      Value y = lhsAt == rhsAt && lhsMap.spread == rhsMap.spread
                    ? x
                    : operand(rhsAt, rhsMap);
      int32_t n = lanesOf(out.layout.cols, j);
      Value result;
      if (compare) {
        if (swap)
          std::swap(x, y);
        result = hisa::VCompareOp::create(b, loc, vec(), *compare, x, y, n,
                                          dtype(type), IntegerAttr(),
                                          hisa::StreamAttr());
      } else {
        result = binary(loc, *kind, x, y, n, type);
      }
      write(loc, result, out.at(r, j), outType);
    }
}

void Expander::expandSelect(htile::SelectOp op) {
  Location loc = op.getLoc();
  Tensor cond = tensor(op.getCondition()), lhs = tensor(op.getLhs()),
         rhs = tensor(op.getRhs()), out = tensor(op.getOutput());
  Type type = elementOf(op.getOutput()), i1 = b.getI1Type();
  ArrayRef<int64_t> shape = op.getOutput().getType().getShape();
  BroadcastOperand condMap(op.getCondition().getType().getShape(), shape);
  BroadcastOperand lhsMap(op.getLhs().getType().getShape(), shape);
  BroadcastOperand rhsMap(op.getRhs().getType().getShape(), shape);
  for (int64_t r = 0; r < out.layout.rows; ++r)
    for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j) {
      // Each address is read once per vector (see expandBinary).
      SmallVector<std::pair<std::pair<int64_t, bool>, Value>, 3> seen;
      auto operand = [&](const Tensor &t, const BroadcastOperand &map,
                         Type lanesType) {
        int64_t at = t.at(map.rowFor(r), map.spread ? 0 : j);
        for (auto &[key, value] : seen)
          if (key == std::make_pair(at, map.spread))
            return value;
        Value v = read(loc, at, lanesType);
        if (map.spread)
          v = spread(loc, v, lanesType);
        seen.push_back({{at, map.spread}, v});
        return v;
      };
      Value c = operand(cond, condMap, i1);
      Value x = operand(lhs, lhsMap, type);
      Value y = operand(rhs, rhsMap, type);
      Value result = hisa::VSelectOp::create(
          b, loc, vec(), c, x, y, lanesOf(out.layout.cols, j), dtype(type),
          IntegerAttr(), hisa::StreamAttr());
      write(loc, result, out.at(r, j), type);
    }
}

void Expander::expandCast(htile::CastOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput());
  Type from = elementOf(op.getInput()), to = elementOf(op.getOutput());
  hisa::CastOverflowAttr overflow;
  if (std::optional<htile::CastOverflow> kind = op.getOverflow())
    overflow = b.getAttr<hisa::CastOverflowAttr>(
        *hisa::symbolizeCastOverflow(htile::stringifyCastOverflow(*kind)));
  hisa::E8M0RoundingAttr rounding;
  if (std::optional<htile::E8M0Rounding> kind = op.getRounding())
    rounding = b.getAttr<hisa::E8M0RoundingAttr>(
        *hisa::symbolizeE8M0Rounding(htile::stringifyE8M0Rounding(*kind)));
  for (int64_t r = 0; r < out.layout.rows; ++r)
    for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j)
      write(loc,
            convert(loc, read(loc, in.at(r, j), from), from, to,
                    lanesOf(out.layout.cols, j), overflow, rounding),
            out.at(r, j), to);
}

void Expander::expandUnary(htile::UnaryOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput());
  Type type = elementOf(op.getInput());
  auto kind = *hisa::symbolizeVUnaryKind(htile::stringifyUnaryKind(op.getKind()));
  for (int64_t r = 0; r < out.layout.rows; ++r)
    for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j)
      write(loc,
            unary(loc, kind, read(loc, in.at(r, j), type),
                  lanesOf(out.layout.cols, j), type),
            out.at(r, j), type);
}

void Expander::expandMatMul(htile::MatMulOp op) {
  Location loc = op.getLoc();
  Tensor x = tensor(op.getInput()), w = tensor(op.getWeight()),
         out = tensor(op.getOutput());
  std::optional<Tensor> bias;
  if (op.getBias())
    bias = tensor(op.getBias());
  int64_t k = x.layout.cols, kTiles = x.layout.vectorsPerRow;
  // Products of f16 and bf16 inputs accumulate in f32 and of i8 and ui8 in
  // i32 on the plane; partial sums over K tiles stay in that type in the
  // output buffer, which is therefore of that type when K spans several
  // tiles (SRAM holds each type at its width; the lowering gives a
  // narrower output an f32 buffer and a cast), and the last K tile
  // converts the result to the output's type.
  Type type = elementOf(op.getInput()), outType = elementOf(op.getOutput());
  Type weightType = elementOf(op.getWeight());
  Type acc = hisa::isFloatLane(type) ? f32() : Type(b.getI32Type());
  std::optional<hisa::VUnaryKind> activation;
  switch (op.getActivation()) {
  case htile::Activation::none:
    break;
  case htile::Activation::relu:
    activation = hisa::VUnaryKind::relu;
    break;
  case htile::Activation::sigmoid:
    activation = hisa::VUnaryKind::sigmoid;
    break;
  case htile::Activation::tanh:
    activation = hisa::VUnaryKind::tanh;
    break;
  }

  for (int64_t jn = 0; jn < out.layout.vectorsPerRow; ++jn) {
    int32_t nLanes = lanesOf(out.layout.cols, jn);
    for (int64_t jk = 0; jk < kTiles; ++jk) {
      uint32_t plane = takePlane();
      // Install the k x n weight tile, one row per instruction. Rows past
      // K keep older weights; they meet zero padding lanes of the input.
      int64_t kRows = std::min<int64_t>(lanes, k - jk * lanes);
      for (int64_t i = 0; i < kRows; ++i)
        hisa::LoadWeightsOp::create(
            b, loc, read(loc, w.at(jk * lanes + i, jn), weightType), plane,
            hisa::WeightSlot::row, int32_t(i), dtype(weightType),
            IntegerAttr());
      bool last = jk == kTiles - 1;
      for (int64_t r = 0; r < x.layout.rows; ++r) {
        Value sum = hisa::MatMulOp::create(
            b, loc, vec(), read(loc, x.at(r, jk), type), plane, dtype(type),
            IntegerAttr(), hisa::StreamAttr());
        // Partial sums over K tiles accumulate through the output buffer.
        if (jk > 0)
          sum = binary(loc, hisa::VBinaryKind::add, sum,
                       read(loc, out.at(r, jn), acc), nLanes, acc);
        if (last && bias) {
          Type biasType = elementOf(op.getBias());
          Value row = read(loc, bias->at(0, jn), biasType);
          if (biasType != acc)
            row = convert(loc, row, biasType, acc, nLanes);
          sum = binary(loc, hisa::VBinaryKind::add, sum, row, nLanes, acc);
        }
        if (last && activation)
          sum = unary(loc, *activation, sum, nLanes, acc);
        if (last && outType != acc) {
          sum = convert(loc, sum, acc, outType, nLanes);
          write(loc, sum, out.at(r, jn), outType);
        } else {
          write(loc, sum, out.at(r, jn), acc);
        }
      }
    }
  }
}

void Expander::expandSoftmax(htile::SoftmaxOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput()),
         scratch = tensor(op.getScratch());
  int32_t n = int32_t(in.layout.cols);
  Type t = elementOf(op.getInput());
  if (in.layout.vectorsPerRow > 1)
    return expandWideSoftmax(loc, in, out, scratch, t);
  for (int64_t r = 0; r < in.layout.rows; ++r) {
    // e = exp(x - max(x)), kept in scratch while its sum is formed.
    Value max =
        reduce(loc, hisa::VReduceKind::max, read(loc, in.at(r, 0), t), n, t);
    Value shifted = binary(loc, hisa::VBinaryKind::sub,
                           read(loc, in.at(r, 0), t), max, n, t);
    write(loc, unary(loc, hisa::VUnaryKind::exp, shifted, n, t),
          scratch.at(r, 0), t);
    Value sum = reduce(loc, hisa::VReduceKind::sum,
                       read(loc, scratch.at(r, 0), t), n, t);
    write(loc,
          binary(loc, hisa::VBinaryKind::div, read(loc, scratch.at(r, 0), t),
                 sum, n, t),
          out.at(r, 0), t);
  }
}

void Expander::expandWideSoftmax(Location loc, const Tensor &in,
                                 const Tensor &out, const Tensor &scratch,
                                 Type t) {
  int64_t vectors = in.layout.vectorsPerRow, cols = in.layout.cols;
  int32_t all = int32_t(lanes);
  // The row's maximum and sum are combined across its vectors, each
  // reduction broadcast to every lane. Each is parked in the output row
  // (vectors 0 and 1, which are written last) so that every later use
  // reads it on its own: one stream value read by many instructions would
  // force them into one cycle.
  for (int64_t r = 0; r < in.layout.rows; ++r) {
    Value max = nullptr;
    for (int64_t j = 0; j < vectors; ++j) {
      Value part = reduce(loc, hisa::VReduceKind::max, read(loc, in.at(r, j), t),
                          lanesOf(cols, j), t);
      max =
          max ? binary(loc, hisa::VBinaryKind::max, max, part, all, t) : part;
    }
    write(loc, max, out.at(r, 0), t);
    Value sum = nullptr;
    for (int64_t j = 0; j < vectors; ++j) {
      int32_t n = lanesOf(cols, j);
      Value x = read(loc, in.at(r, j), t);
      Value shifted =
          binary(loc, hisa::VBinaryKind::sub, x, read(loc, out.at(r, 0), t), n, t);
      write(loc, unary(loc, hisa::VUnaryKind::exp, shifted, n, t),
            scratch.at(r, j), t);
      Value part =
          reduce(loc, hisa::VReduceKind::sum, read(loc, scratch.at(r, j), t), n, t);
      sum = sum ? binary(loc, hisa::VBinaryKind::add, sum, part, all, t) : part;
    }
    write(loc, sum, out.at(r, 1), t);
    // Vector 1 holds the sum, so it is divided last; vector 0 (the maximum,
    // no longer needed) just before it.
    std::vector<int64_t> order;
    for (int64_t j = vectors - 1; j >= 2; --j)
      order.push_back(j);
    order.push_back(0);
    order.push_back(1);
    for (int64_t j : order) {
      Value e = read(loc, scratch.at(r, j), t);
      write(loc,
            binary(loc, hisa::VBinaryKind::div, e, read(loc, out.at(r, 1), t),
                   lanesOf(cols, j), t),
            out.at(r, j), t);
    }
  }
}

/// The input row that output row `row` of a dimension permutation reads,
/// for permutations of the leading dimensions (`shape` is the input's,
/// `perm` maps output dimensions to input ones, both without the
/// dimensions the rows are made of).
static int64_t permutedRow(int64_t row, ArrayRef<int64_t> inShape,
                           ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  SmallVector<int64_t> inIndex(rank, 0);
  for (int64_t d = rank - 1; d >= 0; --d) {
    int64_t size = inShape[perm[d]];
    inIndex[perm[d]] = row % size;
    row /= size;
  }
  int64_t flat = 0;
  for (int64_t d = 0; d < rank; ++d)
    flat = flat * inShape[d] + inIndex[d];
  return flat;
}

void Expander::expandTranspose(htile::TransposeOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput());
  ArrayRef<int64_t> inShape = op.getInput().getType().getShape();
  ArrayRef<int64_t> perm = op.getPerm();
  int64_t rank = perm.size();
  Type type = elementOf(op.getInput());
  if (!op.swapsInnermost()) {
    // Whole rows move: each vector goes from SRAM to SRAM on a stream.
    ArrayRef<int64_t> lead = rank ? perm.drop_back() : perm;
    for (int64_t r = 0; r < out.layout.rows; ++r) {
      int64_t source = permutedRow(r, inShape.drop_back(), lead);
      for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j)
        write(loc, read(loc, in.at(source, j), type), out.at(r, j), type);
    }
    return;
  }
  // The plane's result is f32 (i32 for 8-bit integers): other types are
  // converted back, exactly, by a cast that also masks the lanes.
  Type acc = hisa::isFloatLane(type) ? f32() : Type(b.getI32Type());
  // Each matrix [m, k] becomes [k, m], a lanes x lanes tile at a time: the
  // tile's rows go in as weight columns, and multiplying unit vector e_c
  // reads out column c as a row. Columns past the tile's rows hold older
  // weights, so the result is masked to the valid lanes.
  Tensor eye = tensor(op.getIdentity());
  int64_t m = inShape[rank - 2], k = inShape[rank - 1];
  int64_t batches = m ? in.layout.rows / m : 0;
  ArrayRef<int64_t> lead = perm.drop_back(2);
  for (int64_t batch = 0; batch < batches; ++batch) {
    int64_t source = permutedRow(batch, inShape.drop_back(2), lead);
    for (int64_t mi = 0; mi * lanes < m; ++mi)
      for (int64_t ki = 0; ki * lanes < k; ++ki) {
        uint32_t plane = takePlane();
        int64_t tileRows = std::min<int64_t>(lanes, m - mi * lanes);
        int64_t tileCols = std::min<int64_t>(lanes, k - ki * lanes);
        for (int64_t i = 0; i < tileRows; ++i)
          hisa::LoadWeightsOp::create(
              b, loc, read(loc, in.at(source * m + mi * lanes + i, ki), type),
              plane, hisa::WeightSlot::column, int32_t(i), dtype(type),
              IntegerAttr());
        for (int64_t c = 0; c < tileCols; ++c) {
          Value column = hisa::MatMulOp::create(
              b, loc, vec(), read(loc, eye.at(c, 0), type), plane, dtype(type),
              IntegerAttr(), hisa::StreamAttr());
          Value masked =
              type == acc ? binary(loc, hisa::VBinaryKind::max, column, column,
                                   int32_t(tileRows))
                          : convert(loc, column, acc, type, int32_t(tileRows));
          write(loc, masked, out.at(batch * k + ki * lanes + c, mi), type);
        }
      }
  }
}

void Expander::expandReduce(htile::ReduceOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput());
  auto kind = static_cast<hisa::VReduceKind>(op.getKind());
  Type type = elementOf(op.getInput());
  hisa::VBinaryKind combine = kind == hisa::VReduceKind::sum
                                  ? hisa::VBinaryKind::add
                              : kind == hisa::VReduceKind::max
                                  ? hisa::VBinaryKind::max
                                  : hisa::VBinaryKind::min;
  for (int64_t r = 0; r < in.layout.rows; ++r)
    for (int64_t j = 0; j < in.layout.vectorsPerRow; ++j) {
      Value part = reduce(loc, kind, read(loc, in.at(r, j), type),
                          lanesOf(in.layout.cols, j), type);
      // The reduction fills every lane; combining (or, for the first
      // vector, max with itself) keeps lane 0 and zeroes the rest.
      Value other = j ? read(loc, out.at(r, 0), type) : part;
      write(loc,
            binary(loc, j ? combine : hisa::VBinaryKind::max, part, other, 1,
                   type),
            out.at(r, 0), type);
    }
}

void Expander::expandGather(htile::GatherOp op) {
  Location loc = op.getLoc();
  // The inputs as one list of elements: input k starts at first[k].
  struct Source {
    int64_t first;
    Tensor tensor;
  };
  SmallVector<Source> sources;
  int64_t total = 0;
  for (Value input : op.getInputs()) {
    sources.push_back({total, tensor(input)});
    total += cast<MemRefType>(input.getType()).getNumElements();
  }
  Tensor out = tensor(op.getOutput());
  Type type = elementOf(op.getOutput());
  ArrayRef<int64_t> indices = op.getIndices();
  int64_t cols = out.layout.cols;
  // One input vector an output vector draws from, and the lane map that
  // moves its lanes into place.
  struct Part {
    int64_t address;
    int32_t sourceLanes;
    SmallVector<int32_t> map;
  };
  // The rows the indices fill (all of them but for a band).
  int64_t firstRow = op.getFirstRow() ? op.firstRow() : 0;
  int64_t rows = op.getFirstRow() ? op.rowCount() : out.layout.rows;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j) {
      int32_t n = lanesOf(cols, j);
      SmallVector<Part> parts;
      DenseMap<int64_t, unsigned> partIndex;
      for (int32_t l = 0; l < n; ++l) {
        int64_t index = indices[r * cols + j * lanes + l];
        if (index < 0)
          continue;
        const Source *source = std::prev(llvm::upper_bound(
            sources, index,
            [](int64_t i, const Source &s) { return i < s.first; }));
        int64_t element = index - source->first;
        int64_t sourceCols = source->tensor.layout.cols;
        int64_t row = element / sourceCols, col = element % sourceCols;
        int64_t address = source->tensor.at(row, col / lanes);
        auto [it, inserted] = partIndex.try_emplace(address, parts.size());
        if (inserted)
          parts.push_back({address, lanesOf(sourceCols, col / lanes),
                           SmallVector<int32_t>(n, -1)});
        parts[it->second].map[l] = int32_t(col % lanes);
      }
      int64_t target = out.at(firstRow + r, j);
      // A whole input vector in place (same lanes, padding included) needs
      // no switch.
      if (parts.size() == 1 && parts[0].sourceLanes == n &&
          llvm::all_of(llvm::seq<int32_t>(0, n),
                       [&](int32_t l) { return parts[0].map[l] == l; })) {
        write(loc, read(loc, parts[0].address, type), target, type);
        continue;
      }
      uint32_t unit = takeSwitch();
      if (parts.empty()) {
        // Only zeros: any input vector permuted with every lane kept.
        int64_t some = sources.front().tensor.at(0, 0);
        for (const Source &source : sources)
          if (source.tensor.layout.vectors() > 0) {
            some = source.tensor.at(0, 0);
            break;
          }
        write(loc,
              permute(loc, read(loc, some, type), Value(), unit,
                      SmallVector<int32_t>(n, -1), type),
              target, type);
        continue;
      }
      // Each part merges its lanes into the partial vector before it.
      Value partial;
      for (const Part &part : parts)
        partial = permute(loc, read(loc, part.address, type), partial, unit,
                          part.map, type);
      write(loc, partial, target, type);
    }
}

LogicalResult Expander::expandGatherRows(htile::GatherRowsOp op) {
  // The index enters the table's slices from one end of the floorplan and
  // the row leaves at the other: the switch units beyond every MEM slice
  // turn them (docs/isa.md, "Indexed reads").
  uint32_t slices = chip.proto().memory().slices();
  uint32_t first = chip.slicePosition(0), last = first;
  for (uint32_t s = 1; s < slices; ++s) {
    first = std::min(first, chip.slicePosition(s));
    last = std::max(last, chip.slicePosition(s));
  }
  std::optional<uint32_t> west, east;
  for (uint32_t unit = 0; unit < chip.switches(); ++unit) {
    if (chip.switchPosition(unit) < first && !west)
      west = unit;
    if (chip.switchPosition(unit) > last)
      east = unit;
  }
  if (!west || !east)
    return op.emitError("chip '")
           << chip.name()
           << "' has no SWITCH unit on both sides of its MEM slices, which "
              "a lookup by run-time index needs to turn the index towards "
              "the table and the row back";
  Location loc = op.getLoc();
  Tensor table = tensor(op.getTable()), ids = tensor(op.getIndices());
  Tensor out = tensor(op.getOutput());
  Type type = elementOf(op.getOutput());
  Type i32 = b.getI32Type();
  int64_t rows = op.getTable().getType().getDimSize(0);
  int64_t count = op.getIndices().getType().getNumElements();
  int64_t stride = rows ? table.layout.vectors() / rows : 0;
  if (count == 0 || stride == 0)
    return success(); // nothing to read
  if (rows == 0)
    return op.emitError("looks up rows of a table that has none");
  SmallVector<int32_t> identity(lanes);
  for (uint32_t l = 0; l < lanes; ++l)
    identity[l] = int32_t(l);
  int64_t idsPerRow = ids.layout.cols;
  for (int64_t n = 0; n < count; ++n) {
    int64_t col = n % idsPerRow;
    int64_t at = ids.at(n / idsPerRow, col / lanes);
    int32_t lane = int32_t(col % lanes);
    // Row n of the output is the table's row, vector by vector.
    for (int64_t j = 0; j < stride; ++j) {
      Value index = permute(loc, read(loc, at, i32), Value(), *west,
                            identity, i32);
      int64_t word = table.layout.word(table.base, j);
      Value row = hisa::GatherOp::create(
          b, loc, vec(), index, lane, word / 4, partOf(word, type), stride,
          rows, dtype(type), IntegerAttr(), hisa::StreamAttr());
      write(loc, permute(loc, row, Value(), *east, identity, type),
            out.layout.word(out.base, n * stride + j), type);
    }
  }
  return success();
}

struct ConvertHTileToHIsaPass
    : hetc::impl::ConvertHTileToHIsaBase<ConvertHTileToHIsaPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(forEachFunctionOnChip(getOperation(), getArgument(),
                                     expandFunction)))
      signalPassFailure();
  }

  /// Replaces `func` with a function of the same name holding its
  /// instructions.
  static LogicalResult expandFunction(func::FuncOp func,
                                      const chip::ChipSpec &spec) {
    OpBuilder builder(func);
    auto target = func::FuncOp::create(builder, func.getLoc(), func.getName(),
                                       func.getFunctionType());
    target->setDiscardableAttrs(func->getDiscardableAttrDictionary());
    builder.setInsertionPointToStart(target.addEntryBlock());
    Expander expander(builder, spec);
    bool ok = true;
    for (Operation &op : func.getBody().front())
      ok &= succeeded(expander.bind(&op));
    // Expand only when every buffer is bound; report every kernel that
    // cannot be expanded.
    bool bound = ok;
    for (Operation &op : func.getBody().front())
      if (bound)
        ok &= succeeded(expander.expand(&op));
    if (!ok)
      return failure();
    func::ReturnOp::create(builder, func.getLoc());
    func.erase();
    return success();
  }
};

} // namespace
