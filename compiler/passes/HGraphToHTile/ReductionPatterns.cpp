//===- ReductionPatterns.cpp - Reductions of hgraph to htile
//----------------===//
//
// Reductions over the innermost axis, arg_max/arg_min (an extreme, then
// the index that holds it) and softmax along the last axis.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HGraphToHTile/Lowering.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::tiling;

namespace {

LogicalResult lowerArgMax(hgraph::ArgMaxOp op, const KernelBuilder &kernels) {
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
  Type i32 = kernels.builder.getI32Type(), i1 = kernels.builder.getI1Type();
  Value x = kernels.buffer(op.getInput());
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
    Value t = kernels.alloc(MemRefType::get(moved, element), loc);
    kernels.move(loc, ValueRange{x}, t, gather::transpose(shape, perm, moved));
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
  Value extreme = kernels.alloc(MemRefType::get(kept, element), loc);
  htile::ReduceOp::create(kernels.builder, loc,
                          op.getMin() ? hisa::VReduceKind::min
                                      : hisa::VReduceKind::max,
                          x, extreme);
  Value hit = kernels.binaryKernel(loc, htile::BinaryKind::equal, x, extreme,
                                   shape, i1);
  auto rowType = RankedTensorType::get({n}, i32);
  SmallVector<int32_t> iota(n);
  for (int64_t i = 0; i < n; ++i)
    iota[i] = int32_t(i);
  Value indices = htile::ConstantOp::create(
      kernels.builder, loc, MemRefType::get({n}, i32),
      DenseElementsAttr::get(rowType, ArrayRef<int32_t>(iota)), IntegerAttr());
  Value sentinel = htile::ConstantOp::create(
      kernels.builder, loc, MemRefType::get({n}, i32),
      DenseElementsAttr::get(
          rowType, kernels.builder.getI32IntegerAttr(last ? -1 : int32_t(n))),
      IntegerAttr());
  Value candidates = kernels.alloc(MemRefType::get(shape, i32), loc);
  htile::SelectOp::create(kernels.builder, loc, hit, indices, sentinel,
                          candidates);
  Type resultElement = op.getType().getElementType();
  Value index = kernels.alloc(MemRefType::get(kept, resultElement), loc);
  htile::ReduceOp::create(kernels.builder, loc,
                          last ? hisa::VReduceKind::max
                               : hisa::VReduceKind::min,
                          candidates, index);
  // [.., 1] holds the results in the output's element order.
  ArrayRef<int64_t> outShape = op.getType().getShape();
  if (ArrayRef<int64_t>(kept) == outShape) {
    kernels.map(op.getResult(), index);
    return success();
  }
  if (!outShape.empty() && outShape.back() == 1) {
    kernels.map(op.getResult(),
                htile::ViewOp::create(kernels.builder, loc,
                                      bufferType(op.getResult()), index));
    return success();
  }
  Value out = kernels.alloc(op.getResult());
  kernels.move(loc, ValueRange{index}, out,
               gather::identity(op.getType().getNumElements()));
  kernels.map(op.getResult(), out);
  return success();
}

LogicalResult lowerSoftmax(hgraph::SoftmaxOp op, const KernelBuilder &kernels) {
  auto type = op.getType();
  int64_t rank = type.getRank();
  int64_t axis = int64_t(op.getAxis());
  if (axis < 0)
    axis += rank;
  if (axis != rank - 1)
    return op.emitError("softmax along axis ")
           << axis << " of " << type
           << " is not supported on the chip yet; only the last axis is";
  Value input = kernels.buffer(op.getInput());
  Value out = kernels.alloc(op.getResult());
  Value scratch = kernels.alloc(op.getResult());
  htile::SoftmaxOp::create(kernels.builder, op.getLoc(), input, out, scratch);
  kernels.map(op.getResult(), out);
  return success();
}

LogicalResult lowerReduce(hgraph::ReduceOp op, const KernelBuilder &kernels) {
  RankedTensorType inType = op.getInput().getType();
  int64_t rank = inType.getRank();
  ArrayRef<int64_t> axes = op.getAxes();
  std::optional<hisa::VReduceKind> kind;
  switch (op.getKind()) {
  case hgraph::ReduceKind::sum:
  case hgraph::ReduceKind::mean:
    kind = hisa::VReduceKind::sum;
    break;
  case hgraph::ReduceKind::max:
    kind = hisa::VReduceKind::max;
    break;
  case hgraph::ReduceKind::min:
    kind = hisa::VReduceKind::min;
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
  if (hisa::isNarrowHeld(element) && (op.getKind() == hgraph::ReduceKind::sum ||
                                      op.getKind() == hgraph::ReduceKind::mean))
    return narrowHeldError(op, hgraph::stringifyReduceKind(op.getKind()),
                           element);
  Type lane = hisa::laneTypeOf(element);
  if (!lane || (!hisa::isFloatLane(lane) && !isI32(lane)))
    return op.emitError("reduce on ")
           << element << " is not supported on the chip; it runs on f32, "
           << "f16, bf16 and i32";
  // Rows of the innermost axis, whatever the axes before it are merged
  // into; the results ([.., 1], or packed [.., 1, n]) are in order.
  Value input = kernels.held(op.getInput());
  if (cast<MemRefType>(input.getType()).getShape().back() !=
      inType.getShape().back())
    input = kernels.buffer(op.getInput());
  bool packed =
      !op.getKeepdims() && cast<MemRefType>(input.getType()).getRank() >= 2;
  kernels.map(op.getResult(),
              kernels.reduceInnermost(op.getLoc(), *kind,
                                      op.getKind() == hgraph::ReduceKind::mean,
                                      input, packed));
  return success();
}

} // namespace

void tiling::populateReductionPatterns(RewritePatternSet &patterns,
                                       const TypeConverter &converter,
                                       LoweringState &state) {
  patterns.add<LowerWith<hgraph::ReduceOp, lowerReduce>,
               LowerWith<hgraph::ArgMaxOp, lowerArgMax>,
               LowerWith<hgraph::SoftmaxOp, lowerSoftmax>>(
      converter, patterns.getContext(), state);
}
