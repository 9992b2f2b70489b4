//===- ElementwiseExpansion.cpp - Elementwise htile kernels to hisa
//---------===//
//
// htile.binary, select, cast and unary: one vector instruction per output
// vector, with broadcast operands read once per row and one-lane rows
// spread over the vector.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HTileToHIsa/Expansion.h"

#include <tuple>

using namespace mlir;
using namespace hetc;
using namespace hetc::expansion;

namespace {

class ElementwiseExpander : public InstructionBuilder {
public:
  using InstructionBuilder::InstructionBuilder;
  LogicalResult expandBinary(htile::BinaryOp op);
  LogicalResult expandSelect(htile::SelectOp op);
  LogicalResult expandCast(htile::CastOp op);
  LogicalResult expandUnary(htile::UnaryOp op);

private:
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

} // namespace

LogicalResult ElementwiseExpander::expandBinary(htile::BinaryOp op) {
  if (failed(checkSpread(op)))
    return failure();
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
  if (auto comparison = htile::comparisonOf(op.getKind()))
    std::tie(compare, swap) = *comparison;
  else
    kind = hisa::symbolizeVBinaryKind(htile::stringifyBinaryKind(op.getKind()));
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
  for (int64_t r = 0; r < out.layout.rows; ++r)
    for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j)
      write(loc,
            convert(loc, read(loc, in.at(r, j), from), from, to,
                    lanesOf(out.layout.cols, j), overflow, rounding),
            out.at(r, j), to);
  return success();
}

LogicalResult ElementwiseExpander::expandUnary(htile::UnaryOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput());
  Type type = elementOf(op.getInput());
  auto kind =
      op.getKind();
  for (int64_t r = 0; r < out.layout.rows; ++r)
    for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j)
      write(loc,
            unary(loc, kind, read(loc, in.at(r, j), type),
                  lanesOf(out.layout.cols, j), type),
            out.at(r, j), type);
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
