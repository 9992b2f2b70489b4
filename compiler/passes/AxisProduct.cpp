//===- AxisProduct.cpp - A constant linear map along one dimension ----===//

#include "compiler/passes/AxisProduct.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

static DenseElementsAttr floats(RankedTensorType type,
                                ArrayRef<double> values) {
  auto element = cast<FloatType>(type.getElementType());
  SmallVector<APFloat> converted;
  for (double v : values) {
    APFloat f(v);
    bool lost;
    f.convert(element.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &lost);
    converted.push_back(f);
  }
  return DenseElementsAttr::get(type, converted);
}

Value hetc::multiplyAlongAxis(PatternRewriter &rewriter, Location loc,
                              Value x, int64_t axis, ArrayRef<double> matrix,
                              int64_t out, ArrayRef<double> bias) {
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  int64_t rank = type.getRank(), in = type.getDimSize(axis);
  SmallVector<int64_t> perm;
  for (int64_t k = 0; k < rank; ++k)
    if (k != axis)
      perm.push_back(k);
  perm.push_back(axis);
  SmallVector<int64_t> moved;
  for (int64_t k : perm)
    moved.push_back(type.getDimSize(k));
  Value v = x;
  if (axis != rank - 1)
    v = TransposeOp::create(rewriter, loc,
                            RankedTensorType::get(moved, element), v,
                            rewriter.getDenseI64ArrayAttr(perm));
  int64_t rows = type.getNumElements() / in;
  v = ReshapeOp::create(rewriter, loc,
                        RankedTensorType::get({rows, in}, element), v);
  Value weights = ConstantOp::create(
      rewriter, loc, floats(RankedTensorType::get({in, out}, element), matrix));
  auto product = RankedTensorType::get({rows, out}, element);
  v = MatMulOp::create(rewriter, loc, product, v, weights);
  if (llvm::any_of(bias, [](double b) { return b != 0; })) {
    Value row = ConstantOp::create(
        rewriter, loc, floats(RankedTensorType::get({out}, element), bias));
    v = AddOp::create(rewriter, loc, product, v, row);
  }
  moved.back() = out;
  v = ReshapeOp::create(rewriter, loc, RankedTensorType::get(moved, element),
                        v);
  if (axis == rank - 1)
    return v;
  SmallVector<int64_t> back(rank), shape(rank);
  for (int64_t k = 0; k < rank; ++k)
    back[perm[k]] = k;
  for (int64_t k = 0; k < rank; ++k)
    shape[k] = moved[back[k]];
  return TransposeOp::create(rewriter, loc,
                             RankedTensorType::get(shape, element), v,
                             rewriter.getDenseI64ArrayAttr(back));
}
