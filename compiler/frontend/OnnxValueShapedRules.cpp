//===- OnnxValueShapedRules.cpp - Ops whose result shape is data -------===//
//
// Compress, NonZero and Unique give results whose shapes depend on their
// input values. A static schedule holds no such shape, so these operators
// run when those values are known at compile time (constants, values that
// fold, inputs given with --input-value): Compress becomes a gather by
// constant indices, NonZero and Unique are computed on the host. Otherwise
// the error says why. GatherND, whose shape is static, gathers by run-time
// indices: the tuples become flat row numbers (a product by the data's
// strides and a sum), and one Gather reads the rows.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include <algorithm>
#include <map>

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

/// The elements of constant `v` as doubles (integers and booleans
/// converted), or nullopt when `v` is not a constant.
std::optional<SmallVector<double>> constantValues(Value v) {
  if (std::optional<SmallVector<double>> f = constantFloats(v))
    return f;
  std::optional<SmallVector<int64_t>> i = constantInts(v);
  if (!i)
    return std::nullopt;
  return SmallVector<double>(i->begin(), i->end());
}

InFlightDiagnostic dataShapedError(NodeContext &ctx, StringRef input) {
  return ctx.error() << "its result's shape depends on the values of '"
                     << input
                     << "', which must therefore be known at compile time "
                        "(a constant, a computation on constants that "
                        "folds, or an input given with --input-value): a "
                        "static schedule holds no run-time shape";
}

Value i64Constant(NodeContext &ctx, ArrayRef<int64_t> shape,
                  ArrayRef<int64_t> values) {
  return hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(
          RankedTensorType::get(shape, ctx.builder.getI64Type()), values));
}

Value gatherAlong(NodeContext &ctx, Value data, ArrayRef<int64_t> picks,
                  int64_t axis) {
  RankedTensorType type = tensorType(data);
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = int64_t(picks.size());
  return ctx.create<hgraph::GatherOp>(
      RankedTensorType::get(shape, type.getElementType()), data,
      i64Constant(ctx, {int64_t(picks.size())}, picks),
      ctx.builder.getI64IntegerAttr(axis));
}

Value flatten(NodeContext &ctx, Value v) {
  return reshapeTo(ctx, v, {tensorType(v).getNumElements()});
}

Results importCompress(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  std::optional<SmallVector<double>> condition = constantValues(ctx.inputs[1]);
  if (!condition)
    return dataShapedError(ctx, "condition");
  Value data = ctx.inputs[0];
  int64_t axis = 0;
  if (ctx.attr("axis")) {
    FailureOr<int64_t> a = normalizeAxis(ctx, ctx.intAttr("axis", 0),
                                         tensorType(data).getRank());
    if (failed(a))
      return failure();
    axis = *a;
  } else {
    data = flatten(ctx, data);
  }
  int64_t length = tensorType(data).getDimSize(axis);
  if (int64_t(condition->size()) > length)
    return ctx.error() << "condition has " << condition->size()
                       << " entries, more than the " << length
                       << " it selects from";
  SmallVector<int64_t> picks;
  for (auto [i, c] : llvm::enumerate(*condition))
    if (c != 0)
      picks.push_back(int64_t(i));
  if (picks.empty())
    return ctx.error() << "its condition selects nothing, and hetc holds no "
                          "empty results";
  return SmallVector<Value>{gatherAlong(ctx, data, picks, axis)};
}

Results importNonZero(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  std::optional<SmallVector<double>> values = constantValues(ctx.inputs[0]);
  if (!values)
    return dataShapedError(ctx, "X");
  ArrayRef<int64_t> shape = tensorType(ctx.inputs[0]).getShape();
  int64_t rank = int64_t(shape.size());
  SmallVector<int64_t> hits;
  for (auto [i, v] : llvm::enumerate(*values))
    if (v != 0)
      hits.push_back(int64_t(i));
  if (hits.empty())
    return ctx.error() << "X has no non-zero element, and hetc holds no "
                          "empty results";
  int64_t count = int64_t(hits.size());
  // Row d holds the d-th coordinate of every hit, in row-major order.
  SmallVector<int64_t> coords(size_t(std::max<int64_t>(rank, 1) * count), 0);
  for (int64_t h = 0; h < count; ++h) {
    int64_t flat = hits[h];
    for (int64_t d = rank - 1; d >= 0; --d) {
      coords[size_t(d * count + h)] = flat % shape[d];
      flat /= shape[d];
    }
  }
  return SmallVector<Value>{
      i64Constant(ctx, {std::max<int64_t>(rank, 1), count}, coords)};
}

Results importUnique(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  Value x = ctx.inputs[0];
  std::optional<SmallVector<double>> values = constantValues(x);
  if (!values)
    return dataShapedError(ctx, "X");
  RankedTensorType type = tensorType(x);
  int64_t axis = 0;
  if (ctx.attr("axis")) {
    FailureOr<int64_t> a =
        normalizeAxis(ctx, ctx.intAttr("axis", 0), type.getRank());
    if (failed(a))
      return failure();
    axis = *a;
  } else {
    x = flatten(ctx, x);
    type = tensorType(x);
  }
  // Slice k along the axis, as a vector of its elements.
  ArrayRef<int64_t> shape = type.getShape();
  int64_t n = shape[axis], inner = 1, outer = 1;
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= shape[d];
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  if (n == 0)
    return ctx.error() << "X is empty, and hetc holds no empty results";
  std::vector<std::vector<double>> slices;
  slices.resize(size_t(n));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < inner; ++i)
        slices[size_t(k)].push_back((*values)[size_t((o * n + k) * inner + i)]);
  // First occurrences in order, then sorted when asked.
  SmallVector<int64_t> first;
  std::map<std::vector<double>, int64_t> seen;
  for (int64_t k = 0; k < n; ++k)
    if (seen.emplace(slices[size_t(k)], int64_t(first.size())).second)
      first.push_back(k);
  if (ctx.intAttr("sorted", 1))
    llvm::stable_sort(first, [&](int64_t a, int64_t b) {
      return slices[size_t(a)] < slices[size_t(b)];
    });
  std::map<std::vector<double>, int64_t> position;
  for (auto [u, k] : llvm::enumerate(first))
    position[slices[size_t(k)]] = int64_t(u);
  SmallVector<int64_t> inverse, counts(first.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t u = position[slices[size_t(k)]];
    inverse.push_back(u);
    ++counts[size_t(u)];
  }
  int64_t u = int64_t(first.size());
  return SmallVector<Value>{gatherAlong(ctx, x, first, axis),
                            i64Constant(ctx, {u}, first),
                            i64Constant(ctx, {n}, inverse),
                            i64Constant(ctx, {u}, counts)};
}

Results importGatherND(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  Value data = ctx.inputs[0], indices = ctx.inputs[1];
  RankedTensorType dataType = tensorType(data), indexType = tensorType(indices);
  int64_t b = ctx.intAttr("batch_dims", 0);
  int64_t r = dataType.getRank(), q = indexType.getRank();
  if (q < 1 || b < 0 || b >= std::min(r, q))
    return ctx.error() << "batch_dims " << b << " must be below the ranks of "
                       << "data (" << r << ") and indices (" << q << ")";
  int64_t k = indexType.getShape().back();
  if (k < 1 || b + k > r)
    return ctx.error() << "index tuples of " << k << " do not fit data of "
                       << "rank " << r << " after " << b << " batch dimensions";
  if (!indexType.getElementType().isInteger(64) &&
      !indexType.getElementType().isInteger(32))
    return ctx.error() << "indices must be int64 or int32, got " << indexType;
  for (int64_t d = 0; d < b; ++d)
    if (dataType.getDimSize(d) != indexType.getDimSize(d))
      return ctx.error() << "batch dimension " << d << " is "
                         << dataType.getDimSize(d) << " in data and "
                         << indexType.getDimSize(d) << " in indices";
  ArrayRef<int64_t> dataShape = dataType.getShape();
  int64_t batch = 1, rows = 1, rowSize = 1;
  for (int64_t d = 0; d < b; ++d)
    batch *= dataShape[d];
  for (int64_t d = b; d < b + k; ++d)
    rows *= dataShape[d];
  SmallVector<int64_t> rest(dataShape.begin() + b + k, dataShape.end());
  for (int64_t d : rest)
    rowSize *= d;
  // Tuples per batch element.
  int64_t tuples = indexType.getNumElements() / (k * batch);
  Type i64 = ctx.builder.getI64Type();
  Value idx = castTo(ctx, indices, i64);
  idx = ctx.create<hgraph::ReshapeOp>(
      RankedTensorType::get({batch, tuples, k}, i64), idx);
  // Negative entries count from the end of their dimension; the flat row
  // is the tuple times the strides, plus the batch's first row.
  SmallVector<int64_t> dims(dataShape.begin() + b, dataShape.begin() + b + k);
  SmallVector<int64_t> strides(k, 1);
  for (int64_t j = k - 2; j >= 0; --j)
    strides[j] = strides[j + 1] * dims[j + 1];
  auto tupleType = RankedTensorType::get({batch, tuples, k}, i64);
  Value zero = i64Constant(ctx, {}, {0});
  Value negative = ctx.create<hgraph::LessOp>(
      RankedTensorType::get({batch, tuples, k}, ctx.builder.getI1Type()), idx,
      zero);
  Value wrapped = ctx.create<hgraph::AddOp>(tupleType, idx,
                                            i64Constant(ctx, {k}, dims));
  idx = ctx.create<hgraph::WhereOp>(tupleType, negative, wrapped, idx);
  Value scaled = ctx.create<hgraph::MulOp>(tupleType, idx,
                                           i64Constant(ctx, {k}, strides));
  auto flatType = RankedTensorType::get({batch, tuples}, i64);
  Value flat = ctx.create<hgraph::ReduceOp>(
      flatType,
      hgraph::ReduceKindAttr::get(ctx.builder.getContext(),
                                  hgraph::ReduceKind::sum),
      scaled, ctx.builder.getDenseI64ArrayAttr({2}),
      ctx.builder.getBoolAttr(false));
  if (batch > 1) {
    SmallVector<int64_t> offsets;
    for (int64_t i = 0; i < batch; ++i)
      offsets.push_back(i * rows);
    flat = ctx.create<hgraph::AddOp>(flatType, flat,
                                     i64Constant(ctx, {batch, 1}, offsets));
  }
  Value table = ctx.create<hgraph::ReshapeOp>(
      RankedTensorType::get({batch * rows, rowSize},
                            dataType.getElementType()),
      data);
  Value picked = ctx.create<hgraph::GatherOp>(
      RankedTensorType::get({batch, tuples, rowSize},
                            dataType.getElementType()),
      table, flat, ctx.builder.getI64IntegerAttr(0));
  SmallVector<int64_t> outShape(indexType.getShape().drop_back());
  llvm::append_range(outShape, rest);
  return SmallVector<Value>{ctx.create<hgraph::ReshapeOp>(
      RankedTensorType::get(outShape, dataType.getElementType()), picked)};
}

} // namespace

void hetc::frontend::addValueShapedRules(llvm::StringMap<ImportRule> &rules) {
  rules["Compress"] = importCompress;
  rules["NonZero"] = importNonZero;
  rules["Unique"] = importUnique;
  rules["GatherND"] = importGatherND;
}
