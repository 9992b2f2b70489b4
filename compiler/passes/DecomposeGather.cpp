//===- DecomposeGather.cpp - Gathers by run-time indices as selections ===//
//
// The patterns of `hetc-hgraph-decompose` for `hgraph.gather` and
// `hgraph.gather_elements` whose indices are computed at run time. The chip
// moves data by addresses fixed at compile time, so a data-dependent pick
// becomes a one-hot selection: compare each index with every position
// along the axis (an iota), select the matching element (zeros elsewhere)
// and sum along the positions. Exactly one term is non-zero, so the sum is
// the picked element itself. An index outside [-N, N) matches no position
// and gives 0 (ONNX leaves it undefined). A lookup along axis 0 of a table
// of rank 2 or more (an embedding, or rows of a computed tensor) instead
// becomes hgraph.gather_rows, which the chip runs by reading each row at
// its index, and where an index out of range is an error at run time. Gathers
// by constant indices stay as they are: they lower to switch-unit moves.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/DecomposePatterns.h"
#include "compiler/passes/RewriteHelpers.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"


using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

namespace {

RankedTensorType shaped(ArrayRef<int64_t> shape, Type element) {
  return RankedTensorType::get(shape, element);
}

/// Whether `v` is a constant (such gathers lower without this pattern).
bool isConstant(Value v) { return matchPattern(v, m_Constant()); }

/// The indices with negative ones counted from the end of `n` positions.
Value wrapNegative(PatternRewriter &rewriter, Location loc, Value indices,
                   int64_t n) {
  auto indexType = cast<RankedTensorType>(indices.getType());
  Type indexElement = indexType.getElementType();
  unsigned width = indexElement.getIntOrFloatBitWidth();
  auto scalarIndex = shaped({}, indexElement);
  Value zero = ConstantOp::create(
      rewriter, loc, DenseElementsAttr::get(scalarIndex, APInt(width, 0)));
  Value count = ConstantOp::create(
      rewriter, loc, DenseElementsAttr::get(scalarIndex, APInt(width, n)));
  auto boolIndices = shaped(indexType.getShape(), rewriter.getI1Type());
  Value negative = LessOp::create(rewriter, loc, boolIndices, indices, zero);
  Value wrapped = AddOp::create(rewriter, loc, indexType, indices, count);
  return WhereOp::create(rewriter, loc, indexType, negative, wrapped, indices);
}

/// The positions 0, 1, ..., n - 1 along an axis, of the indices' type.
Value positionsConstant(PatternRewriter &rewriter, Location loc,
                        Type indexElement, int64_t n) {
  unsigned width = indexElement.getIntOrFloatBitWidth();
  SmallVector<APInt> positions;
  for (int64_t i = 0; i < n; ++i)
    positions.push_back(APInt(width, i));
  return ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(shaped({n}, indexElement), positions));
}

/// The one-hot selection: `indices` (any integer type, reshaped to
/// `indexShape`, whose last dimension is 1) against the positions
/// 0..n-1, selecting from `table` (broadcast against it, positions last)
/// and summed over the positions into `resultType`.
Value select(PatternRewriter &rewriter, Location loc, Value indices,
             ArrayRef<int64_t> indexShape, int64_t n, Value table,
             RankedTensorType resultType) {
  auto indexType = cast<RankedTensorType>(indices.getType());
  Value index = reshapeTo(rewriter, loc,
                          wrapNegative(rewriter, loc, indices, n), indexShape);
  Value iota = positionsConstant(rewriter, loc, indexType.getElementType(), n);
  SmallVector<int64_t> onehotShape(indexShape.drop_back());
  onehotShape.push_back(n);
  Value onehot = EqualOp::create(
      rewriter, loc, shaped(onehotShape, rewriter.getI1Type()), index, iota);
  // The table has unit dimensions where the indices have extents and the
  // other way round; the selection has both.
  SmallVector<int64_t> selectedShape(onehotShape);
  auto tableType = cast<RankedTensorType>(table.getType());
  for (auto [i, d] : llvm::enumerate(tableType.getShape()))
    selectedShape[i] = std::max(selectedShape[i], d);
  Type element = resultType.getElementType();
  Value fill = ConstantOp::create(
      rewriter, loc,
      cast<DenseElementsAttr>(rewriter.getZeroAttr(shaped({}, element))));
  Value picked = WhereOp::create(rewriter, loc,
                                 shaped(selectedShape, element), onehot,
                                 table, fill);
  int64_t last = int64_t(selectedShape.size()) - 1;
  return ReduceOp::create(
      rewriter, loc, resultType,
      ReduceKindAttr::get(rewriter.getContext(), ReduceKind::sum), picked,
      rewriter.getDenseI64ArrayAttr({last}), rewriter.getBoolAttr(false));
}

/// gather(table, idx, axis = 0) on a table of rank 2 or more, the form of
/// an embedding lookup: hgraph.gather_rows of the indices with
/// negative ones counted from the end. The chip reads each row by its
/// index (MEM_GATHER), so the cost grows with the rows read, not with the
/// table; an index outside [-V, V) stops the program with an error.
struct DecomposeTableLookup : OpRewritePattern<GatherOp> {
  DecomposeTableLookup(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    if (isConstant(op.getIndices()))
      return rewriter.notifyMatchFailure(op, "constant indices");
    auto inType = op.getInput().getType();
    if (op.getAxis() != 0 || inType.getRank() < 2)
      return rewriter.notifyMatchFailure(op,
                                         "not a lookup of rows along axis 0");
    Value index = wrapNegative(rewriter, op.getLoc(), op.getIndices(),
                               inType.getDimSize(0));
    rewriter.replaceOpWithNewOp<GatherRowsOp>(op, op.getType(),
                                              op.getInput(), index);
    return success();
  }
};

/// gather(x, idx, axis): out[p, i, q] = x[p, idx[i], q]. The table is x
/// with the axis moved last and unit dimensions where idx's are; the
/// indices get unit dimensions where p and q are.
struct DecomposeDynamicGather : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    if (isConstant(op.getIndices()))
      return rewriter.notifyMatchFailure(op, "constant indices");
    Location loc = op.getLoc();
    auto inType = op.getInput().getType();
    int64_t axis = int64_t(op.getAxis()), rank = inType.getRank();
    int64_t n = inType.getDimSize(axis);
    ArrayRef<int64_t> idxShape = op.getIndices().getType().getShape();
    ArrayRef<int64_t> before = inType.getShape().take_front(axis);
    ArrayRef<int64_t> after = inType.getShape().drop_front(axis + 1);

    SmallVector<int64_t> tableShape(before);
    tableShape.append(idxShape.size(), 1);
    llvm::append_range(tableShape, after);
    tableShape.push_back(n);
    Value table = reshapeTo(rewriter, loc,
                          moveAxisLast(rewriter, loc, op.getInput(), axis),
                          tableShape);
    SmallVector<int64_t> indexShape(before.size(), 1);
    llvm::append_range(indexShape, idxShape);
    indexShape.append(rank - axis - 1, 1);
    indexShape.push_back(1);
    rewriter.replaceOp(op, select(rewriter, loc, op.getIndices(), indexShape,
                                  n, table, op.getType()));
    return success();
  }
};

/// gather_elements(x, idx, axis): out[i] = x[i with i_axis = idx[i]]. The
/// table is x cut to idx's extent in the other dimensions, with the axis
/// moved last and a unit dimension in its place.
struct DecomposeDynamicGatherElements : OpRewritePattern<GatherElementsOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherElementsOp op,
                                PatternRewriter &rewriter) const override {
    if (isConstant(op.getIndices()))
      return rewriter.notifyMatchFailure(op, "constant indices");
    Location loc = op.getLoc();
    auto inType = op.getInput().getType();
    int64_t axis = int64_t(op.getAxis());
    int64_t n = inType.getDimSize(axis);
    ArrayRef<int64_t> idxShape = op.getIndices().getType().getShape();

    Value x = op.getInput();
    SmallVector<int64_t> cut(idxShape);
    cut[axis] = n;
    if (ArrayRef<int64_t>(cut) != inType.getShape()) {
      SmallVector<int64_t> zeros(cut.size(), 0), ones(cut.size(), 1);
      x = SliceOp::create(rewriter, loc, shaped(cut, inType.getElementType()),
                          x, rewriter.getDenseI64ArrayAttr(zeros),
                          rewriter.getDenseI64ArrayAttr(ones));
    }
    SmallVector<int64_t> tableShape(idxShape);
    tableShape[axis] = 1;
    tableShape.push_back(n);
    Value table =
        reshapeTo(rewriter, loc, moveAxisLast(rewriter, loc, x, axis), tableShape);
    SmallVector<int64_t> indexShape(idxShape);
    indexShape.push_back(1);
    rewriter.replaceOp(op, select(rewriter, loc, op.getIndices(), indexShape,
                                  n, table, op.getType()));
    return success();
  }
};

} // namespace

void hetc::populateDecomposeGatherPatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeTableLookup, DecomposeDynamicGather,
               DecomposeDynamicGatherElements>(patterns.getContext());
}
