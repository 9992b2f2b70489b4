//===- AxisProduct.cpp - A constant linear map along one dimension ----===//

#include "compiler/passes/AxisProduct.h"

#include "compiler/passes/RewriteHelpers.h"

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
  Value v = moveAxisLast(rewriter, loc, x, axis);
  SmallVector<int64_t> moved(cast<RankedTensorType>(v.getType()).getShape());
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
  // Back: the last dimension returns to `axis`.
  SmallVector<int64_t> back, shape;
  for (int64_t k = 0; k < rank; ++k) {
    back.push_back(k < axis ? k : k == axis ? rank - 1 : k - 1);
    shape.push_back(moved[back.back()]);
  }
  return TransposeOp::create(rewriter, loc,
                             RankedTensorType::get(shape, element), v,
                             rewriter.getDenseI64ArrayAttr(back));
}
