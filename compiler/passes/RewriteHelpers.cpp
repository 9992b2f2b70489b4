//===- RewriteHelpers.cpp - hgraph building blocks of rewrites --------===//

#include "compiler/passes/RewriteHelpers.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

RankedTensorType hetc::withShape(Value like, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(
      shape, cast<RankedTensorType>(like.getType()).getElementType());
}

Value hetc::reshapeTo(PatternRewriter &rewriter, Location loc, Value v,
                      ArrayRef<int64_t> shape) {
  if (cast<RankedTensorType>(v.getType()).getShape() == shape)
    return v;
  return ReshapeOp::create(rewriter, loc, withShape(v, shape), v);
}

Value hetc::moveAxisLast(PatternRewriter &rewriter, Location loc, Value v,
                         int64_t axis) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  if (axis == rank - 1)
    return v;
  SmallVector<int64_t> perm, shape;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  for (int64_t d : perm)
    shape.push_back(type.getDimSize(d));
  return TransposeOp::create(rewriter, loc, withShape(v, shape), v,
                             rewriter.getDenseI64ArrayAttr(perm));
}
