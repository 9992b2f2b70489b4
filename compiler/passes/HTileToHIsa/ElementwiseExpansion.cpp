//===- ElementwiseExpansion.cpp - Elementwise htile kernels to hisa -----===//
//
// htile.binary, select, cast and unary: one vector instruction per output
// vector, with broadcast operands read once per row and one-lane rows
// spread over the vector. Output vectors whose accesses lie evenly spaced
// in one bank each go as trains (VectorTrains.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HTileToHIsa/Expansion.h"
#include "compiler/passes/HTileToHIsa/VectorTrains.h"

#include <array>
#include <tuple>

using namespace mlir;
using namespace hetc;
using namespace hetc::expansion;

namespace {

/// The longest train of an elementwise kernel. Longer trains take the
/// dispatcher less often but are harder to fit between other work.
constexpr uint32_t kMaxVectorTrain = 4;
/// The fewest output vectors of a kernel that goes by trains. A small
/// kernel takes the dispatcher little, and a train's later issues would
/// only delay its last vector: trains from 16 vectors on cost the decode
/// steps and the short prefills up to 10% (gpt2_prefill16 18,493 -> 20,374
/// cycles), from 256 on nothing, and from 1024 on the CNNs gain less.
constexpr int64_t kMinTrainKernel = 256;

class ElementwiseExpander : public InstructionBuilder {
public:
  using InstructionBuilder::InstructionBuilder;
  LogicalResult expandBinary(htile::BinaryOp op);
  LogicalResult expandSelect(htile::SelectOp op);
  LogicalResult expandCast(htile::CastOp op);
  LogicalResult expandUnary(htile::UnaryOp op);

private:
  /// Issue `access` of `train` as a hisa train (null for a train of one).
  hisa::TrainAttr trainOf(const VectorTrain &train, size_t access) const {
    if (train.count < 2)
      return {};
    return hisa::TrainAttr::get(b.getContext(), train.count, 1,
                                train.steps[access]);
  }
  /// Groups the `vectors` output vectors of a kernel into trains (of one,
  /// for a small kernel).
  std::vector<VectorTrain>
  trains(int64_t vectors, llvm::ArrayRef<Type> types,
         llvm::function_ref<bool(int64_t, VectorStep &)> stepOf) const {
    return groupVectorTrains(chip, vectors, trainStride(chip, types),
                             vectors < kMinTrainKernel ? 1 : kMaxVectorTrain,
                             stepOf);
  }
  /// The step of output vector `v` of a kernel that reads the vector of
  /// `in` (of lanes `from`) in its place and writes `out` (of lanes `to`).
  bool vectorForVector(const Tensor &in, Type from, const Tensor &out, Type to,
                       int64_t v, VectorStep &step) const {
    int64_t r = v / out.layout.vectorsPerRow, j = v % out.layout.vectorsPerRow;
    step.accesses.clear();
    step.accesses.push_back({in.at(r, j), from, false});
    step.accesses.push_back({out.at(r, j), to, true});
    step.key = lanesOf(out.layout.cols, j);
    return true;
  }
  /// Fails at `kernel` when one of its operands has one-element rows to
  /// spread over longer output rows, of a type the vector unit does not
  /// reduce, on a chip without a SWITCH unit to spread it with.
  LogicalResult checkSpread(Operation *kernel);
};

} // namespace

LogicalResult ElementwiseExpander::checkSpread(Operation *kernel) {
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

namespace {

/// Where one operand of a broadcasting elementwise kernel is read for each
/// row of the output: its row index (leading dimensions of size 1 repeat)
/// and whether its one-lane rows must be spread over the vector. A packed
/// column (htile.binary's `column`) broadcasts as R x 1 (`operand`), its
/// row r in lane r % lanes of its vector r / lanes, always spread.
class BroadcastOperand {
public:
  BroadcastOperand(ArrayRef<int64_t> operand, ArrayRef<int64_t> output,
                   bool packed = false)
      : packed(packed), operand(operand), output(output) {
    spread = packed || (!output.empty() && output.back() != 1 &&
                        (operand.empty() || operand.back() == 1));
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
  bool packed = false;

private:
  SmallVector<int64_t> operand;
  ArrayRef<int64_t> output;
};

} // namespace

/// Whether a one-lane operand of `type` is spread by the vector unit (a
/// one-lane reduction, which repeats) rather than by a permute.
static bool spreadsOnVectorUnit(Type type) {
  return hisa::isFloatLane(type) || type.isSignlessInteger(32);
}

LogicalResult ElementwiseExpander::expandBinary(htile::BinaryOp op) {
  if (failed(checkSpread(op)))
    return failure();
  Location loc = op.getLoc();
  Tensor lhs = tensor(op.getLhs()), rhs = tensor(op.getRhs()),
         out = tensor(op.getOutput());
  Type type = elementOf(op.getLhs()), outType = elementOf(op.getOutput());
  ArrayRef<int64_t> shape = op.getOutput().getType().getShape();
  std::optional<htile::OperandSide> column = op.getColumn();
  BroadcastOperand lhsMap(op.getBroadcastShape(0), shape,
                          column == htile::OperandSide::lhs);
  BroadcastOperand rhsMap(op.getBroadcastShape(1), shape,
                          column == htile::OperandSide::rhs);
  int64_t perRow = out.layout.vectorsPerRow;
  int64_t laneCount = int64_t(lanes);
  auto address = [&](const Tensor &t, const BroadcastOperand &map, int64_t v) {
    int64_t row = map.rowFor(v / perRow);
    // Row r of a packed column is in copy r % copies.
    if (map.packed)
      return t.at(row % t.layout.rows, row / laneCount);
    return t.at(row, map.spread ? 0 : v % perRow);
  };
  // The lane of a packed column that output vector `v` spreads (0 for
  // any other operand).
  auto laneOf = [&](const BroadcastOperand &map, int64_t v) {
    return map.packed ? map.rowFor(v / perRow) % laneCount : 0;
  };
  // x * x reads its vector once: two reads of one address in the cycle the
  // operands must meet would need one bank twice.
  auto sameOperand = [&](int64_t v) {
    return address(lhs, lhsMap, v) == address(rhs, rhsMap, v) &&
           lhsMap.spread == rhsMap.spread && !column;
  };
  bool repeats = !(lhsMap.spread || rhsMap.spread) || spreadsOnVectorUnit(type);
  auto stepOf = [&](int64_t v, VectorStep &step) {
    bool same = sameOperand(v);
    step.accesses.clear();
    step.accesses.push_back({address(lhs, lhsMap, v), type, false});
    if (!same)
      step.accesses.push_back({address(rhs, rhsMap, v), type, false});
    step.accesses.push_back({out.at(v / perRow, v % perRow), outType, true});
    // A train spreads one lane of a packed column: it stays in one row.
    int64_t lane = laneOf(lhsMap, v) + laneOf(rhsMap, v);
    step.key = (lanesOf(out.layout.cols, v % perRow) * 2 + same) *
                   (laneCount + 1) +
               lane;
    return repeats;
  };
  auto operand = [&](int64_t at, const BroadcastOperand &map, int64_t v,
                     hisa::TrainAttr train) {
    Value x = read(loc, at, type, train);
    // A one-lane row reaches every lane of the vector.
    if (map.packed)
      return spreadLane(loc, x, uint32_t(laneOf(map, v)), type, train);
    return map.spread ? spread(loc, x, type, train) : x;
  };
  // The comparisons give i1 lanes; greater (or equal) is less (or equal)
  // with the operands swapped.
  std::optional<hisa::VCompareKind> compare;
  bool swap = false;
  std::optional<hisa::VBinaryKind> kind;
  if (auto comparison = htile::comparisonOf(op.getKind()))
    std::tie(compare, swap) = *comparison;
  else
    kind = hisa::symbolizeVBinaryKind(htile::stringifyBinaryKind(op.getKind()));
  for (const VectorTrain &train :
       trains(out.layout.vectors(), {type, outType}, stepOf)) {
    int64_t v = train.first;
    bool lhsIsRhs = sameOperand(v);
    hisa::TrainAttr repeat = trainOf(train, 0);
    Value x = operand(address(lhs, lhsMap, v), lhsMap, v, repeat);
    Value y = lhsIsRhs ? x
                       : operand(address(rhs, rhsMap, v), rhsMap, v,
                                 trainOf(train, 1));
    int32_t n = lanesOf(out.layout.cols, v % perRow);
    Value result;
    if (compare) {
      if (swap)
        std::swap(x, y);
      result = hisa::VCompareOp::create(b, loc, vec(), *compare, x, y, n,
                                        dtype(type), repeatOnly(repeat),
                                        IntegerAttr(), hisa::StreamAttr());
    } else {
      result = binary(loc, *kind, x, y, n, type, repeat);
    }
    write(loc, result, out.at(v / perRow, v % perRow), outType,
          trainOf(train, lhsIsRhs ? 1 : 2));
  }
  return success();
}

LogicalResult ElementwiseExpander::expandSelect(htile::SelectOp op) {
  if (failed(checkSpread(op)))
    return failure();
  Location loc = op.getLoc();
  Tensor cond = tensor(op.getCondition()), lhs = tensor(op.getLhs()),
         rhs = tensor(op.getRhs()), out = tensor(op.getOutput());
  Type type = elementOf(op.getOutput()), i1 = b.getI1Type();
  ArrayRef<int64_t> shape = op.getOutput().getType().getShape();
  BroadcastOperand condMap(op.getCondition().getType().getShape(), shape);
  BroadcastOperand lhsMap(op.getLhs().getType().getShape(), shape);
  BroadcastOperand rhsMap(op.getRhs().getType().getShape(), shape);
  int64_t perRow = out.layout.vectorsPerRow;
  struct Operand {
    const Tensor &tensor;
    const BroadcastOperand &map;
    Type type;
  };
  Operand operands[] = {
      {cond, condMap, i1}, {lhs, lhsMap, type}, {rhs, rhsMap, type}};
  auto address = [&](const Operand &o, int64_t v) {
    return o.tensor.at(o.map.rowFor(v / perRow), o.map.spread ? 0 : v % perRow);
  };
  // Each address is read once per vector (see expandBinary): for each
  // operand, the first operand that reads its address.
  auto readers = [&](int64_t v) {
    std::array<int, 3> first;
    for (int i = 0; i < 3; ++i) {
      first[i] = i;
      for (int k = 0; k < i; ++k)
        if (address(operands[k], v) == address(operands[i], v) &&
            operands[k].map.spread == operands[i].map.spread) {
          first[i] = k;
          break;
        }
    }
    return first;
  };
  bool repeats = true;
  for (const Operand &o : operands)
    repeats &= !o.map.spread || spreadsOnVectorUnit(o.type);
  auto stepOf = [&](int64_t v, VectorStep &step) {
    std::array<int, 3> first = readers(v);
    step.accesses.clear();
    step.key = lanesOf(out.layout.cols, v % perRow);
    for (int i = 0; i < 3; ++i) {
      step.key = step.key * 4 + first[i];
      if (first[i] == i)
        step.accesses.push_back(
            {address(operands[i], v), operands[i].type, false});
    }
    step.accesses.push_back({out.at(v / perRow, v % perRow), type, true});
    return repeats;
  };
  for (const VectorTrain &train :
       trains(out.layout.vectors(), {i1, type}, stepOf)) {
    int64_t v = train.first;
    std::array<int, 3> first = readers(v);
    Value values[3];
    size_t access = 0;
    for (int i = 0; i < 3; ++i) {
      if (first[i] != i) {
        values[i] = values[first[i]];
        continue;
      }
      hisa::TrainAttr repeat = trainOf(train, access++);
      values[i] = read(loc, address(operands[i], v), operands[i].type, repeat);
      if (operands[i].map.spread)
        values[i] = spread(loc, values[i], operands[i].type, repeat);
    }
    hisa::TrainAttr repeat = trainOf(train, access);
    Value result = hisa::VSelectOp::create(
        b, loc, vec(), values[0], values[1], values[2],
        lanesOf(out.layout.cols, v % perRow), dtype(type), repeatOnly(repeat),
        IntegerAttr(), hisa::StreamAttr());
    write(loc, result, out.at(v / perRow, v % perRow), type, repeat);
  }
  return success();
}

LogicalResult ElementwiseExpander::expandCast(htile::CastOp op) {
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
  int64_t perRow = out.layout.vectorsPerRow;
  auto stepOf = [&](int64_t v, VectorStep &step) {
    return vectorForVector(in, from, out, to, v, step);
  };
  for (const VectorTrain &train :
       trains(out.layout.vectors(), {from, to}, stepOf)) {
    int64_t r = train.first / perRow, j = train.first % perRow;
    hisa::TrainAttr repeat = trainOf(train, 0);
    write(loc,
          convert(loc, read(loc, in.at(r, j), from, repeat), from, to,
                  lanesOf(out.layout.cols, j), overflow, rounding, repeat),
          out.at(r, j), to, trainOf(train, 1));
  }
  return success();
}

LogicalResult ElementwiseExpander::expandUnary(htile::UnaryOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput());
  Type type = elementOf(op.getInput());
  auto kind = op.getKind();
  int64_t perRow = out.layout.vectorsPerRow;
  auto stepOf = [&](int64_t v, VectorStep &step) {
    return vectorForVector(in, type, out, type, v, step);
  };
  for (const VectorTrain &train :
       trains(out.layout.vectors(), {type}, stepOf)) {
    int64_t r = train.first / perRow, j = train.first % perRow;
    hisa::TrainAttr repeat = trainOf(train, 0);
    write(loc,
          unary(loc, kind, read(loc, in.at(r, j), type, repeat),
                lanesOf(out.layout.cols, j), type, repeat),
          out.at(r, j), type, trainOf(train, 1));
  }
  return success();
}

void expansion::populateElementwiseExpansions(RewritePatternSet &patterns,
                                              ExpansionState &state) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ExpandWith<htile::BinaryOp, ElementwiseExpander,
                          &ElementwiseExpander::expandBinary>,
               ExpandWith<htile::SelectOp, ElementwiseExpander,
                          &ElementwiseExpander::expandSelect>,
               ExpandWith<htile::CastOp, ElementwiseExpander,
                          &ElementwiseExpander::expandCast>,
               ExpandWith<htile::UnaryOp, ElementwiseExpander,
                          &ElementwiseExpander::expandUnary>>(context, state);
}
