//===- OnnxScatterRules.cpp - ScatterElements, ScatterND, TensorScatter ===//
//
// Scatters write updates at positions given by run-time indices. A
// ScatterND without a reduction, on run-time indices, replaces whole rows
// of its data (its first k dimensions taken as one) and becomes
// hgraph.scatter_rows, indexed writes on the chip; of duplicate indices (which
// ONNX leaves undefined) the last update stays. The others become a one-hot
// combination: every index is compared with every target position, the updates
// meeting a position are combined by the `reduction` (their sum for none and
// add, product for mul, max, min), and the data is kept where no update lands;
// there duplicate indices under reduction none add up. MaxUnpool is a
// ScatterElements of the values into zeros of the output, flattened, at
// the flat indices MaxPool gave.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include <limits>

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

RankedTensorType shaped(ArrayRef<int64_t> shape, Type element) {
  return RankedTensorType::get(shape, element);
}

/// A constant of `type` with every element `value`.
Value splat(NodeContext &ctx, RankedTensorType type, Attribute value) {
  return hgraph::ConstantOp::create(ctx.builder, ctx.loc,
                                    DenseElementsAttr::get(type, value));
}

/// How a reduction combines updates, and its identity.
struct Combine {
  hgraph::ReduceKind kind;
  Attribute identity;
};

FailureOr<Combine> combineOf(NodeContext &ctx, Type element) {
  std::string reduction = ctx.stringAttr("reduction", "none");
  auto floatType = dyn_cast<FloatType>(element);
  if (!floatType)
    return ctx.error() << "scatters of " << element
                       << " are not supported on the chip yet; they run on "
                          "floats";
  const llvm::fltSemantics &sem = floatType.getFloatSemantics();
  if (reduction == "none" || reduction == "add")
    return Combine{hgraph::ReduceKind::sum, FloatAttr::get(element, 0.0)};
  if (reduction == "mul")
    return Combine{hgraph::ReduceKind::prod, FloatAttr::get(element, 1.0)};
  if (reduction == "max")
    return Combine{hgraph::ReduceKind::max,
                   FloatAttr::get(element, APFloat::getInf(sem, true))};
  if (reduction == "min")
    return Combine{hgraph::ReduceKind::min,
                   FloatAttr::get(element, APFloat::getInf(sem, false))};
  return ctx.error() << "reduction must be none, add, mul, max or min, got '"
                     << reduction << "'";
}

Value reduceAxis(NodeContext &ctx, hgraph::ReduceKind kind, Value x,
                 int64_t axis) {
  RankedTensorType type = tensorType(x);
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  return ctx.create<hgraph::ReduceOp>(
      shaped(shape, type.getElementType()),
      hgraph::ReduceKindAttr::get(ctx.builder.getContext(), kind), x,
      ctx.builder.getDenseI64ArrayAttr({axis}), ctx.builder.getBoolAttr(false));
}

/// The data where no update lands, else the combined updates with the data
/// as the reduction says. `combined` holds the updates' combination (the
/// identity where none lands); `landed` counts the updates.
Value finish(NodeContext &ctx, Value data, Value combined, Value landed,
             StringRef reduction) {
  RankedTensorType type = tensorType(data);
  Type element = type.getElementType();
  auto boolType = shaped(type.getShape(), ctx.builder.getI1Type());
  Value zero = scalarConstant(ctx, element, 0.0);
  Value any = ctx.create<hgraph::GreaterOp>(boolType, landed, zero);
  Value merged = combined;
  if (reduction == "add")
    merged = ctx.create<hgraph::AddOp>(type, data, combined);
  else if (reduction == "mul")
    merged = ctx.create<hgraph::MulOp>(type, data, combined);
  else if (reduction == "max")
    merged = ctx.create<hgraph::MaxOp>(type, data, combined);
  else if (reduction == "min")
    merged = ctx.create<hgraph::MinOp>(type, data, combined);
  return ctx.create<hgraph::WhereOp>(type, any, merged, data);
}

/// `cache` with the slabs of `update` (the cache's shape but `steps`
/// long along `axis`) written along `axis` at the positions `position`
/// (i64, broadcastable to the cache's dimensions before `axis` and
/// `steps`): one row scatter over the cache seen as rows of its
/// dimensions after `axis`. With `outside` (i1, broadcastable as
/// `position` is), a position it marks is no row at all, an error at run
/// time.
Value scatterAlongAxis(NodeContext &ctx, Value cache, Value update,
                       int64_t axis, Value position, Value outside) {
  RankedTensorType cType = tensorType(cache);
  int64_t length = cType.getDimSize(axis);
  int64_t steps = tensorType(update).getDimSize(axis);
  int64_t prefix = 1;
  for (int64_t d = 0; d < axis; ++d)
    prefix *= cType.getDimSize(d);
  Type i64 = ctx.builder.getI64Type();
  // The first row of each prefix's run, per sequence step: p * length.
  SmallVector<int64_t> indexShape(cType.getShape().take_front(axis));
  indexShape.push_back(steps);
  SmallVector<APInt> bases;
  for (int64_t p = 0; p < prefix; ++p)
    for (int64_t i = 0; i < steps; ++i)
      bases.push_back(APInt(64, uint64_t(p * length)));
  Value base = hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(shaped(indexShape, i64), bases));
  auto indexType = shaped(indexShape, i64);
  Value flat = ctx.create<hgraph::AddOp>(indexType, base, position);
  if (outside)
    flat = ctx.create<hgraph::WhereOp>(indexType, outside,
                                       scalarConstant(ctx, i64, -1.0), flat);
  // Rows keep the cache's trailing dimensions (views); scalar rows take a
  // dimension of 1.
  SmallVector<int64_t> tableShape{prefix * length}, rowsShape{prefix * steps};
  SmallVector<int64_t> trailing(cType.getShape().drop_front(axis + 1));
  if (trailing.empty())
    trailing.push_back(1);
  llvm::append_range(tableShape, trailing);
  llvm::append_range(rowsShape, trailing);
  Type element = cType.getElementType();
  Value written = ctx.create<hgraph::ScatterRowsOp>(
      shaped(tableShape, element), reshapeTo(ctx, cache, tableShape),
      reshapeTo(ctx, flat, {prefix * steps}),
      reshapeTo(ctx, update, rowsShape));
  return reshapeTo(ctx, written, cType.getShape());
}

/// ScatterElements of constant integers (shape bookkeeping, as exporters
/// emit it), scattered on the host; nullopt when they are not all
/// constant integers. An index outside the data is an error.
std::optional<Results> foldScatterElements(NodeContext &ctx, int64_t axis) {
  Value data = ctx.inputs[0], indices = ctx.inputs[1], updates = ctx.inputs[2];
  RankedTensorType dType = tensorType(data), iType = tensorType(indices);
  auto integer = dyn_cast<IntegerType>(dType.getElementType());
  if (!integer || ctx.stringAttr("reduction", "none") != "none")
    return std::nullopt;
  std::optional<SmallVector<int64_t>> d = constantInts(data),
                                      i = constantInts(indices),
                                      u = constantInts(updates);
  if (!d || !i || !u)
    return std::nullopt;
  int64_t rank = dType.getRank(), n = dType.getDimSize(axis);
  SmallVector<int64_t> out(*d);
  for (int64_t e = 0; e < int64_t(i->size()); ++e) {
    // Element e of the indices, unflattened; its axis coordinate replaced.
    int64_t rest = e, flat = 0, stride = 1;
    SmallVector<int64_t> coords(rank);
    for (int64_t dim = rank - 1; dim >= 0; --dim) {
      coords[dim] = rest % iType.getDimSize(dim);
      rest /= iType.getDimSize(dim);
    }
    int64_t index = (*i)[e] < 0 ? (*i)[e] + n : (*i)[e];
    if (index < 0 || index >= n)
      return Results(ctx.error() << "index " << (*i)[e] << " is outside [-" << n
                                 << ", " << n << ") along axis " << axis);
    coords[axis] = index;
    for (int64_t dim = rank - 1; dim >= 0; --dim) {
      flat += coords[dim] * stride;
      stride *= dType.getDimSize(dim);
    }
    out[flat] = (*u)[e];
  }
  SmallVector<APInt> values;
  for (int64_t v : out)
    values.push_back(APInt(integer.getWidth(), uint64_t(v), /*isSigned=*/true));
  return Results(SmallVector<Value>{hgraph::ConstantOp::create(
      ctx.builder, ctx.loc, DenseElementsAttr::get(dType, values))});
}

/// ScatterElements that writes whole slabs along its axis (torch's
/// index_copy, a static KV cache's update; a scatter of each batch slot's
/// key and value at its own position): the indices are one index per
/// position along the axis, for each index of the dimensions before it or
/// for all of them, broadcast over the dimensions after it, and the
/// updates cover the data in every dimension but the axis. Such a scatter
/// writes rows by run-time index (scatterAlongAxis), at a cost in
/// proportion to the rows it writes; nullopt when the scatter is not of
/// that form.
std::optional<Results> slabScatter(NodeContext &ctx, int64_t axis) {
  Value data = ctx.inputs[0], indices = ctx.inputs[1], updates = ctx.inputs[2];
  RankedTensorType dType = tensorType(data), uType = tensorType(updates);
  int64_t rank = dType.getRank();
  auto expand = indices.getDefiningOp<hgraph::ExpandOp>();
  if (!expand || axis == 0 || ctx.stringAttr("reduction", "none") != "none" ||
      !isa<FloatType>(dType.getElementType()))
    return std::nullopt;
  RankedTensorType sType = tensorType(expand.getInput());
  if (sType.getRank() != rank)
    return std::nullopt;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t given = sType.getDimSize(d);
    bool spread = given == 1 || (d < axis && given == dType.getDimSize(d));
    if ((d != axis &&
         (!spread || uType.getDimSize(d) != dType.getDimSize(d))) ||
        (d == axis && given != uType.getDimSize(d)))
      return std::nullopt;
  }
  int64_t length = dType.getDimSize(axis), steps = uType.getDimSize(axis);
  if (steps == 0 || dType.getNumElements() == 0)
    return Results(SmallVector<Value>{data}); // nothing to write
  // Position of step i (of each index before the axis, where the indices
  // differ there): the index, from the end when negative; outside the
  // axis it is no row, an error at run time.
  Type i64 = ctx.builder.getI64Type();
  SmallVector<int64_t> seqShape(sType.getShape().take_front(axis + 1));
  Value position = wrapIndices(
      ctx, reshapeTo(ctx, castTo(ctx, expand.getInput(), i64), seqShape),
      length);
  auto bools = shaped(seqShape, ctx.builder.getI1Type());
  Value low =
      ctx.create<hgraph::LessOp>(bools, position, scalarConstant(ctx, i64, 0));
  Value high = ctx.create<hgraph::GreaterOrEqualOp>(
      bools, position, scalarConstant(ctx, i64, double(length)));
  Value outside = ctx.create<hgraph::OrOp>(bools, low, high);
  return Results(SmallVector<Value>{
      scatterAlongAxis(ctx, data, updates, axis, position, outside)});
}

/// ScatterElements: data[i with i_axis = indices[i]] = updates[i].

Results importScatterElements(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 3, 3)))
    return failure();
  Value data = ctx.inputs[0], indices = ctx.inputs[1], updates = ctx.inputs[2];
  RankedTensorType dType = tensorType(data), iType = tensorType(indices);
  int64_t rank = dType.getRank();
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.intAttr("axis", 0), rank);
  if (failed(axis))
    return failure();
  if (iType.getRank() != rank || tensorType(updates).getShape() != iType.getShape())
    return ctx.error() << "indices " << iType << " and updates "
                       << tensorType(updates)
                       << " must have one shape and the data's rank";
  for (int64_t d = 0; d < rank; ++d)
    if (d != *axis && iType.getDimSize(d) > dType.getDimSize(d))
      return ctx.error() << "indices " << iType << " exceed the data "
                         << dType << " in dimension " << d;
  if (std::optional<Results> folded = foldScatterElements(ctx, *axis))
    return *folded;
  if (std::optional<Results> slabs = slabScatter(ctx, *axis))
    return *slabs;
  Type element = dType.getElementType();
  FailureOr<Combine> combine = combineOf(ctx, element);
  if (failed(combine))
    return failure();
  int64_t n = dType.getDimSize(*axis);

  // The updates are combined along the scatter axis, which goes last (so
  // that the combination is an innermost reduction): with J the indices'
  // shape without the axis, hit[j..., p, i] says that index (j, i) points
  // at position p.
  SmallVector<int64_t> perm, jShape;
  for (int64_t d = 0; d < rank; ++d)
    if (d != *axis) {
      perm.push_back(d);
      jShape.push_back(iType.getDimSize(d));
    }
  perm.push_back(*axis);
  int64_t along = iType.getDimSize(*axis);
  auto moveAxisLast = [&](Value v) -> Value {
    if (*axis == rank - 1)
      return v;
    RankedTensorType t = tensorType(v);
    SmallVector<int64_t> shape(jShape);
    shape.push_back(along);
    return ctx.create<hgraph::TransposeOp>(
        shaped(shape, t.getElementType()), v,
        ctx.builder.getDenseI64ArrayAttr(perm));
  };
  SmallVector<int64_t> spread(jShape);
  spread.append({1, along});
  Value index = reshapeTo(ctx, moveAxisLast(wrapIndices(ctx, indices, n)), spread);
  Value update = reshapeTo(ctx, moveAxisLast(updates), spread);
  SmallVector<APInt> positions;
  for (int64_t p = 0; p < n; ++p)
    positions.push_back(
        APInt(iType.getElementType().getIntOrFloatBitWidth(), p));
  Value iota = hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(shaped({n, 1}, iType.getElementType()),
                             positions));
  SmallVector<int64_t> hitShape(jShape);
  hitShape.append({n, along});
  Value hit = ctx.create<hgraph::EqualOp>(
      shaped(hitShape, ctx.builder.getI1Type()), index, iota);
  auto floats = shaped(hitShape, element);
  Value identity = splat(ctx, shaped({}, element), combine->identity);
  Value one = scalarConstant(ctx, element, 1.0);
  Value zero = scalarConstant(ctx, element, 0.0);
  int64_t last = int64_t(hitShape.size()) - 1;
  Value contrib = ctx.create<hgraph::WhereOp>(floats, hit, update, identity);
  Value combinedRows = reduceAxis(ctx, combine->kind, contrib, last);
  Value count = ctx.create<hgraph::WhereOp>(floats, hit, one, zero);
  Value countRows = reduceAxis(ctx, hgraph::ReduceKind::sum, count, last);
  // Positions no update reaches hold the identity (an infinity for max
  // and min); they become 0 before moving, as the data replaces them.
  auto rowsType = tensorType(countRows);
  Value reached = ctx.create<hgraph::GreaterOp>(
      shaped(rowsType.getShape(), ctx.builder.getI1Type()), countRows, zero);
  combinedRows = ctx.create<hgraph::WhereOp>(rowsType, reached, combinedRows,
                                             zero);

  // Put the positions in the axis's place and pad the other dimensions
  // out to the data's.
  auto place = [&](Value r) -> Value {
    RankedTensorType rt = tensorType(r);
    SmallVector<int64_t> back, shape;
    for (int64_t d = 0; d < rank; ++d)
      back.push_back(d < *axis ? d : d == *axis ? rank - 1 : d - 1);
    for (int64_t d : back)
      shape.push_back(rt.getDimSize(d));
    if (*axis != rank - 1)
      r = ctx.create<hgraph::TransposeOp>(shaped(shape, element), r,
                                          ctx.builder.getDenseI64ArrayAttr(back));
    SmallVector<int64_t> pads(2 * rank, 0);
    bool padded = false;
    for (int64_t d = 0; d < rank; ++d) {
      pads[rank + d] = dType.getDimSize(d) - shape[d];
      padded |= pads[rank + d] != 0;
    }
    if (padded)
      r = ctx.create<hgraph::PadOp>(dType, r, zero,
                                    ctx.builder.getDenseI64ArrayAttr(pads),
                                    ctx.builder.getStringAttr("constant"));
    return r;
  };
  Value combined = place(combinedRows);
  Value landed = place(countRows);
  return SmallVector<Value>{finish(ctx, data, combined, landed,
                                   ctx.stringAttr("reduction", "none"))};
}

/// ScatterND: data[indices[b]] = updates[b], each index a tuple over the
/// data's first k dimensions.
Results importScatterND(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 3, 3)))
    return failure();
  Value data = ctx.inputs[0], indices = ctx.inputs[1], updates = ctx.inputs[2];
  RankedTensorType dType = tensorType(data), iType = tensorType(indices);
  int64_t rank = dType.getRank(), iRank = iType.getRank();
  if (iRank < 1)
    return ctx.error() << "indices must have rank 1 or more";
  int64_t k = iType.getShape().back();
  if (k < 1 || k > rank)
    return ctx.error() << "index tuples of " << k
                       << " values do not address the data " << dType;
  SmallVector<int64_t> expected(iType.getShape().drop_back());
  llvm::append_range(expected, dType.getShape().drop_front(k));
  if (tensorType(updates).getShape() != ArrayRef<int64_t>(expected))
    return ctx.error() << "updates " << tensorType(updates)
                       << " must have the indices' batch shape followed by "
                          "the data's trailing dimensions";
  Type element = dType.getElementType();
  int64_t batch = 1, cells = 1, rest = 1;
  for (int64_t d : iType.getShape().drop_back())
    batch *= d;
  for (int64_t d = 0; d < k; ++d)
    cells *= dType.getDimSize(d);
  for (int64_t d = k; d < rank; ++d)
    rest *= dType.getDimSize(d);
  // Nothing to write; or every index tuple is outside an empty dimension.
  if (batch == 0)
    return SmallVector<Value>{data};
  if (cells == 0)
    return ctx.error() << "index tuples of " << k << " values address the data "
                       << dType << ", whose first dimensions hold no element";

  // The flat cell each tuple names: sum of wrapped index_j * stride_j.
  Type indexType = iType.getElementType();
  Value tuples = reshapeTo(ctx, indices, {batch, k});
  auto columnType = shaped({batch, 1}, indexType);
  auto columnBools = shaped({batch, 1}, ctx.builder.getI1Type());
  Value flat, outside;
  int64_t stride = cells;
  for (int64_t j = 0; j < k; ++j) {
    int64_t dim = dType.getDimSize(j);
    stride /= dim;
    Value part = ctx.create<hgraph::SliceOp>(
        columnType, tuples, ctx.builder.getDenseI64ArrayAttr({0, j}),
        ctx.builder.getDenseI64ArrayAttr({1, 1}));
    part = wrapIndices(ctx, part, dim);
    if (k > 1) {
      // An index outside its dimension must not name another cell.
      Value low = ctx.create<hgraph::LessOp>(columnBools, part,
                                             scalarConstant(ctx, indexType, 0));
      Value high = ctx.create<hgraph::GreaterOrEqualOp>(
          columnBools, part, scalarConstant(ctx, indexType, double(dim)));
      Value bad = ctx.create<hgraph::OrOp>(columnBools, low, high);
      outside =
          outside ? ctx.create<hgraph::OrOp>(columnBools, outside, bad) : bad;
    }
    if (stride != 1)
      part = ctx.create<hgraph::MulOp>(columnType, part,
                                       scalarConstant(ctx, indexType, double(stride)));
    flat = flat ? ctx.create<hgraph::AddOp>(columnType, flat, part) : part;
  }

  // Run-time indices without a reduction: each update replaces its row
  // of the data (with its first k dimensions as one) by an indexed write, at a
  // cost that grows with the updates, not with the data.
  if (ctx.stringAttr("reduction", "none") == "none" && !constantInts(indices)) {
    if (outside)
      flat = ctx.create<hgraph::WhereOp>(
          columnType, outside, scalarConstant(ctx, indexType, -1.0), flat);
    // Rows keep the data's trailing dimensions, so that the reshapes are
    // views; scalar rows take a dimension of 1.
    SmallVector<int64_t> tableShape{cells}, rowsShape{batch};
    if (k < rank) {
      llvm::append_range(tableShape, dType.getShape().drop_front(k));
      llvm::append_range(rowsShape, dType.getShape().drop_front(k));
    } else {
      tableShape.push_back(1);
      rowsShape.push_back(1);
    }
    Value table = reshapeTo(ctx, data, tableShape);
    Value rows = reshapeTo(ctx, updates, rowsShape);
    Value written =
        ctx.create<hgraph::ScatterRowsOp>(shaped(tableShape, element), table,
                                          reshapeTo(ctx, flat, {batch}), rows);
    return SmallVector<Value>{reshapeTo(ctx, written, dType.getShape())};
  }
  FailureOr<Combine> combine = combineOf(ctx, element);
  if (failed(combine))
    return failure();
  SmallVector<APInt> positions;
  for (int64_t p = 0; p < cells; ++p)
    positions.push_back(APInt(indexType.getIntOrFloatBitWidth(), p));
  Value iota = hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(shaped({cells}, indexType), positions));
  // hit[p, 0, b]: tuple b names cell p. The updates are combined over b,
  // which goes last so that the combination is an innermost reduction.
  Value hit = ctx.create<hgraph::EqualOp>(
      shaped({cells, 1, batch}, ctx.builder.getI1Type()),
      reshapeTo(ctx, flat, {1, 1, batch}), reshapeTo(ctx, iota, {cells, 1, 1}));
  Value rows = reshapeTo(ctx, updates, {batch, rest});
  if (batch > 1 && rest > 1)
    rows = ctx.create<hgraph::TransposeOp>(
        shaped({rest, batch}, element), rows,
        ctx.builder.getDenseI64ArrayAttr({1, 0}));
  Value update = reshapeTo(ctx, rows, {1, rest, batch});
  auto floats = shaped({cells, rest, batch}, element);
  Value identity = splat(ctx, shaped({}, element), combine->identity);
  Value zero = scalarConstant(ctx, element, 0.0);
  Value contrib = ctx.create<hgraph::WhereOp>(floats, hit, update, identity);
  Value combined = reduceAxis(ctx, combine->kind, contrib, 2);
  // The count needs the updates' cells: ones shaped like one update.
  Value ones =
      splat(ctx, shaped({1, rest, 1}, element), FloatAttr::get(element, 1.0));
  Value count = ctx.create<hgraph::WhereOp>(floats, hit, ones, zero);
  Value landed = reduceAxis(ctx, hgraph::ReduceKind::sum, count, 2);
  combined = reshapeTo(ctx, combined, dType.getShape());
  landed = reshapeTo(ctx, landed, dType.getShape());
  return SmallVector<Value>{finish(ctx, data, combined, landed,
                                   ctx.stringAttr("reduction", "none"))};
}

/// MaxUnpool: zeros of the output shape (output_shape, or what the pool's
/// kernel, strides and pads undo), the values scattered at their flat
/// indices.
Results importMaxUnpool(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 3)))
    return failure();
  Value x = ctx.inputs[0], indices = ctx.inputs[1];
  RankedTensorType type = tensorType(x);
  int64_t rank = type.getRank();
  if (rank < 3 || tensorType(indices).getShape() != type.getShape())
    return ctx.error() << "X must be [N, C, D1, ...] and I of its shape, got "
                       << type << " and " << tensorType(indices);
  // The indices count positions of the tensor the pool read (what its
  // kernel, strides and pads undo); a larger output_shape pads that
  // tensor with zeros at the end of each spatial dimension.
  int64_t spatial = rank - 2;
  std::optional<SmallVector<int64_t>> kernel = ctx.intsAttr("kernel_shape");
  SmallVector<int64_t> strides =
      ctx.intsAttr("strides").value_or(SmallVector<int64_t>(spatial, 1));
  SmallVector<int64_t> pads =
      ctx.intsAttr("pads").value_or(SmallVector<int64_t>(2 * spatial, 0));
  if (!kernel || int64_t(kernel->size()) != spatial ||
      int64_t(strides.size()) != spatial || int64_t(pads.size()) != 2 * spatial)
    return ctx.error() << "needs kernel_shape, strides and pads for its "
                       << spatial << " spatial dimensions";
  SmallVector<int64_t> shape{type.getDimSize(0), type.getDimSize(1)};
  for (int64_t d = 0; d < spatial; ++d)
    shape.push_back((type.getDimSize(d + 2) - 1) * strides[d] - pads[d] -
                    pads[spatial + d] + (*kernel)[d]);
  SmallVector<int64_t> outShape(shape);
  if (Value given = ctx.input(2)) {
    std::optional<SmallVector<int64_t>> sizes = constantInts(given);
    if (!sizes)
      return ctx.error() << "output_shape must be a constant (an "
                            "initializer, a Constant node or an input given "
                            "with --input-value); hetc needs static shapes";
    outShape.assign(sizes->begin(), sizes->end());
    bool covers = int64_t(outShape.size()) == rank;
    for (int64_t d = 0; covers && d < rank; ++d)
      covers = d < 2 ? outShape[d] == shape[d] : outShape[d] >= shape[d];
    if (!covers)
      return ctx.error() << "output_shape [" << llvm::make_range(outShape.begin(), outShape.end())
                         << "] does not hold the unpooled ["
                         << llvm::make_range(shape.begin(), shape.end()) << "]";
  }
  int64_t total = 1;
  for (int64_t d : shape) {
    if (d < 1 || d > (int64_t(1) << 24) || total > (int64_t(1) << 24) / d)
      return ctx.error() << "output shape ["
                         << llvm::make_range(shape.begin(), shape.end())
                         << "] is empty or beyond 2^24 elements";
    total *= d;
  }
  Type element = type.getElementType();
  auto zerosType = RankedTensorType::get({total}, element);
  Value zeros = hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(zerosType, ctx.builder.getZeroAttr(element)));
  NodeContext scatter = ctx;
  scatter.inputs = {zeros, reshapeTo(ctx, indices, {type.getNumElements()}),
                    reshapeTo(ctx, x, {type.getNumElements()})};
  Results scattered = importScatterElements(scatter);
  if (failed(scattered))
    return failure();
  Value y = reshapeTo(ctx, (*scattered)[0], shape);
  if (outShape != shape) {
    SmallVector<int64_t> padding(2 * rank, 0);
    for (int64_t d = 0; d < rank; ++d)
      padding[rank + d] = outShape[d] - shape[d];
    y = ctx.create<hgraph::PadOp>(
        RankedTensorType::get(outShape, element), y,
        scalarConstant(ctx, element, 0.0),
        ctx.builder.getDenseI64ArrayAttr(padding),
        ctx.builder.getStringAttr("constant"));
  }
  return SmallVector<Value>{y};
}

/// TensorScatter (a KV-cache update): for every prefix of the cache's
/// dimensions before `axis` (batch sample b first), the update's
/// sequence_length rows along `axis` written at write_indices[b] onward
/// (modulo max_sequence_length in circular mode). Each is a row write by
/// run-time index into the cache taken as [prefix * max_sequence_length,
/// trailing dims...]; a linear write past the end is an error at run time.
Results importTensorScatter(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 3)))
    return failure();
  Value cache = ctx.inputs[0], update = ctx.inputs[1];
  Value writes = ctx.input(2);
  RankedTensorType cType = tensorType(cache), uType = tensorType(update);
  int64_t rank = cType.getRank();
  if (rank < 2)
    return ctx.error() << "past_cache must have a batch and a sequence "
                          "dimension, got "
                       << cType;
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.intAttr("axis", -2), rank);
  if (failed(axis))
    return failure();
  if (*axis == 0)
    return ctx.error() << "axis 0 is the batch dimension; the sequence "
                          "axis must come after it";
  std::string mode = ctx.stringAttr("mode", "linear");
  if (mode != "linear" && mode != "circular")
    return ctx.error() << "mode must be linear or circular, got '" << mode
                       << "'";
  if (uType.getElementType() != cType.getElementType() ||
      uType.getRank() != rank)
    return ctx.error() << "update " << uType
                       << " must have past_cache's rank and element type, "
                       << cType;
  for (int64_t d = 0; d < rank; ++d)
    if (d == *axis ? uType.getDimSize(d) > cType.getDimSize(d)
                   : uType.getDimSize(d) != cType.getDimSize(d))
      return ctx.error() << "update " << uType << " must match past_cache "
                         << cType
                         << " in every dimension but the sequence axis, "
                            "and be no longer along it";
  int64_t batch = cType.getDimSize(0);
  if (writes && tensorType(writes).getShape() != ArrayRef<int64_t>{batch})
    return ctx.error() << "write_indices must be [" << batch
                       << "], one index per batch sample, got "
                       << tensorType(writes);
  int64_t length = cType.getDimSize(*axis), steps = uType.getDimSize(*axis);
  int64_t prefix = 1;
  for (int64_t d = 0; d < *axis; ++d)
    prefix *= cType.getDimSize(d);
  if (steps == 0 || prefix == 0)
    return SmallVector<Value>{cache}; // nothing to write
  Type i64 = ctx.builder.getI64Type();
  // The sequence position of step i of batch sample b: w[b] + i.
  SmallVector<int64_t> stepShape(*axis + 1, 1), seqShape(*axis + 1, 1);
  stepShape.back() = steps;
  SmallVector<APInt> stepValues;
  for (int64_t i = 0; i < steps; ++i)
    stepValues.push_back(APInt(64, uint64_t(i)));
  Value position = hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(shaped(stepShape, i64), stepValues));
  Value outside;
  if (writes) {
    SmallVector<int64_t> sampleShape(*axis + 1, 1);
    sampleShape[0] = batch;
    seqShape = sampleShape;
    seqShape.back() = steps;
    position = ctx.create<hgraph::AddOp>(
        shaped(seqShape, i64), reshapeTo(ctx, writes, sampleShape), position);
    auto bools = shaped(seqShape, ctx.builder.getI1Type());
    if (mode == "circular") {
      position =
          ctx.create<hgraph::ModOp>(shaped(seqShape, i64), position,
                                    scalarConstant(ctx, i64, double(length)));
    } else {
      // A write outside the sequence must not land in a neighbour's rows.
      Value low = ctx.create<hgraph::LessOp>(bools, position,
                                             scalarConstant(ctx, i64, 0));
      Value high = ctx.create<hgraph::GreaterOrEqualOp>(
          bools, position, scalarConstant(ctx, i64, double(length)));
      outside = ctx.create<hgraph::OrOp>(bools, low, high);
    }
  }
  return SmallVector<Value>{
      scatterAlongAxis(ctx, cache, update, *axis, position, outside)};
}

} // namespace

void hetc::frontend::addScatterRules(llvm::StringMap<ImportRule> &rules) {
  rules.insert({
      {"ScatterElements", importScatterElements},
      {"MaxUnpool", importMaxUnpool},
      {"Scatter", importScatterElements},
      {"ScatterND", importScatterND},
      {"TensorScatter", importTensorScatter},
  });
}
