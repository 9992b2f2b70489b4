//===- OnnxAffineGridRule.cpp - AffineGrid as one matrix product -------===//
//
// AffineGrid (opset 20) maps the normalised coordinates of every output
// position through an affine matrix per batch element: for 2-D, position
// (h, w) has homogeneous coordinates (x_w, y_h, 1), and grid[n, h, w] =
// theta[n] (x_w, y_h, 1)^T; 3-D adds z_d and a fourth column. The
// coordinates depend only on the output size, which must be a constant:
// they are a constant [positions, dims + 1] table, and the grid is its
// product with each theta[n] transposed.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

/// The normalised coordinates of the `n` positions along one dimension:
/// the corners' centres at -1 and 1 with `alignCorners`, else the cells'
/// centres.
std::vector<double> coordinates(int64_t n, bool alignCorners) {
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    values[size_t(i)] =
        alignCorners ? (n == 1 ? -1.0 : -1.0 + 2.0 * double(i) / double(n - 1))
                     : -1.0 + (2.0 * double(i) + 1.0) / double(n);
  return values;
}

Results importAffineGrid(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  Value theta = ctx.inputs[0];
  RankedTensorType thetaType = tensorType(theta);
  std::optional<SmallVector<int64_t>> size = constantInts(ctx.inputs[1]);
  if (!size)
    return ctx.error() << "input 'size' must be a constant (an initializer, "
                          "Constant node or shape computation that folds); "
                          "hetc needs static shapes"
                       << whyNotEvaluated(ctx.inputs[1]);
  if (size->size() != 4 && size->size() != 5)
    return ctx.error() << "size must be (N, C, H, W) or (N, C, D, H, W), got "
                       << size->size() << " values";
  int64_t dims = int64_t(size->size()) - 2, n = (*size)[0];
  ArrayRef<int64_t> spatial = ArrayRef<int64_t>(*size).drop_front(2);
  Type element = thetaType.getElementType();
  if (!isa<FloatType>(element) ||
      thetaType.getShape() != ArrayRef<int64_t>({n, dims, dims + 1}))
    return ctx.error() << "theta must be (" << n << ", " << dims << ", "
                       << dims + 1 << ") of floats for size (" << n
                       << ", ...), got " << thetaType;
  int64_t positions = 1;
  for (int64_t extent : spatial) {
    if (extent <= 0)
      return ctx.error() << "size must be positive, got " << extent;
    positions *= extent;
  }
  std::string error;
  if (!boundedElementCount({positions, dims + 1}, ctx.maxElements, error))
    return ctx.error() << "its grid is too large: " << error;
  bool align = ctx.intAttr("align_corners", 0) != 0;
  // Row p of the table: (x, y[, z], 1) of position p (row-major over the
  // spatial dimensions, the last one fastest).
  SmallVector<std::vector<double>> axes;
  for (int64_t extent : spatial)
    axes.push_back(coordinates(extent, align));
  std::vector<float> table;
  table.reserve(size_t(positions * (dims + 1)));
  SmallVector<int64_t> index(size_t(dims), 0);
  for (int64_t p = 0; p < positions; ++p) {
    for (int64_t d = dims - 1; d >= 0; --d)
      table.push_back(float(axes[size_t(d)][size_t(index[size_t(d)])]));
    table.push_back(1.0f);
    for (int64_t d = dims - 1; d >= 0; --d) {
      if (++index[size_t(d)] < spatial[size_t(d)])
        break;
      index[size_t(d)] = 0;
    }
  }
  OpBuilder &b = ctx.builder;
  Type f32 = b.getF32Type();
  auto tableType = RankedTensorType::get({1, positions, dims + 1}, f32);
  Value base = hgraph::ConstantOp::create(
      b, ctx.loc, DenseElementsAttr::get(tableType, ArrayRef<float>(table)));
  Value transposed = ctx.create<hgraph::TransposeOp>(
      RankedTensorType::get({n, dims + 1, dims}, f32), castTo(ctx, theta, f32),
      b.getDenseI64ArrayAttr({0, 2, 1}));
  Value grid = ctx.create<hgraph::MatMulOp>(
      RankedTensorType::get({n, positions, dims}, f32), base, transposed);
  SmallVector<int64_t> shape{n};
  shape.append(spatial.begin(), spatial.end());
  shape.push_back(dims);
  return SmallVector<Value>{castTo(ctx, reshapeTo(ctx, grid, shape), element)};
}

} // namespace

void hetc::frontend::addAffineGridRule(llvm::StringMap<ImportRule> &rules) {
  rules["AffineGrid"] = importAffineGrid;
}
