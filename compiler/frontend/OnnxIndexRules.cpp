//===- OnnxIndexRules.cpp - Operators built from index comparisons ----===//
//
// Hardmax and OneHot compare indices with the positions along an axis and
// select, and TopK picks and masks k times; EyeLike and the window
// functions (HannWindow, HammingWindow, BlackmanWindow) depend only on
// positions, so their values are constants computed here; LpNormalization
// divides by a norm along an axis; ReverseSequence gathers each sequence's
// elements by positions computed from its length (t < len ? len - 1 - t :
// t), which fold when the lengths are constants.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

/// Hardmax: 1 where the element is the first largest along `axis`, else 0.
Results importHardmax(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  Value x = ctx.inputs[0];
  RankedTensorType type = tensorType(x);
  int64_t rank = type.getRank();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.intAttr("axis", ctx.opset >= 13 ? -1 : 1), rank);
  if (failed(axis))
    return failure();
  // Before opset 13 the input was flattened to 2-D at the axis; that equals
  // the per-axis form only when the axis is the last one.
  if (ctx.opset < 13 && *axis != rank - 1)
    return ctx.error() << "axis " << *axis
                       << " flattens the input before opset 13, which is "
                          "supported for the last axis only";
  SmallVector<int64_t> kept(type.getShape());
  kept[*axis] = 1;
  Value best = ctx.create<hgraph::ArgMaxOp>(
      RankedTensorType::get(kept, ctx.builder.getI64Type()), x,
      ctx.builder.getI64IntegerAttr(*axis), ctx.builder.getBoolAttr(true),
      ctx.builder.getBoolAttr(false), ctx.builder.getBoolAttr(false));
  Value hit = ctx.create<hgraph::EqualOp>(
      RankedTensorType::get(type.getShape(), ctx.builder.getI1Type()), best,
      positionsAlong(ctx, type.getDimSize(*axis), *axis, rank));
  Type element = type.getElementType();
  Value one = scalarConstant(ctx, element, 1);
  Value zero = scalarConstant(ctx, element, 0);
  return SmallVector<Value>{
      ctx.create<hgraph::WhereOp>(type, hit, one, zero)};
}

/// OneHot(indices, depth, values = [off, on]): a new dimension of size
/// depth at `axis`, `on` where the position equals the index (negative
/// indices count from the end) and `off` elsewhere.
Results importOneHot(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 3, 3)))
    return failure();
  Value indices = ctx.inputs[0], values = ctx.inputs[2];
  // depth may be of any numeric type; a float one is truncated.
  std::optional<SmallVector<double>> depthValues = constantFloats(ctx.inputs[1]);
  if (std::optional<SmallVector<int64_t>> ints = constantInts(ctx.inputs[1]))
    depthValues = SmallVector<double>(ints->begin(), ints->end());
  if (!depthValues || depthValues->size() != 1)
    return ctx.error() << "depth must be a constant with one value (it sets "
                          "the output's shape; hetc needs static shapes)";
  int64_t depth = int64_t(std::trunc((*depthValues)[0]));
  if (depth <= 0)
    return ctx.error() << "depth must be positive, got " << depth;
  RankedTensorType valuesType = tensorType(values);
  if (valuesType.getNumElements() != 2)
    return ctx.error() << "values must hold two elements [off, on], got "
                       << valuesType;
  RankedTensorType idxType = tensorType(indices);
  int64_t rank = idxType.getRank() + 1;
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.intAttr("axis", -1), rank);
  if (failed(axis))
    return failure();
  // Indices of any numeric type are truncated to integers.
  Value index = wrapIndices(
      ctx, castTo(ctx, indices, ctx.builder.getI64Type()), depth);
  SmallVector<int64_t> spread(idxType.getShape());
  spread.insert(spread.begin() + *axis, 1);
  index = ctx.create<hgraph::ReshapeOp>(
      RankedTensorType::get(spread, ctx.builder.getI64Type()), index);
  SmallVector<int64_t> shape(idxType.getShape());
  shape.insert(shape.begin() + *axis, depth);
  Value hit = ctx.create<hgraph::EqualOp>(
      RankedTensorType::get(shape, ctx.builder.getI1Type()), index,
      positionsAlong(ctx, depth, *axis, rank));
  Type element = valuesType.getElementType();
  auto pick = [&](int64_t i) -> Value {
    Value flat = ctx.create<hgraph::ReshapeOp>(
        RankedTensorType::get({2}, element), values);
    Value one = ctx.create<hgraph::SliceOp>(
        RankedTensorType::get({1}, element), flat,
        ctx.builder.getDenseI64ArrayAttr({i}),
        ctx.builder.getDenseI64ArrayAttr({1}));
    return ctx.create<hgraph::ReshapeOp>(RankedTensorType::get({}, element),
                                         one);
  };
  Value off = pick(0);
  Value on = pick(1);
  return SmallVector<Value>{ctx.create<hgraph::WhereOp>(
      RankedTensorType::get(shape, element), hit, on, off)};
}

/// TopK: k rounds of picking the largest (or smallest) element along the
/// axis, the first of equal ones, then masking it with the most negative
/// (or positive) finite value of the type. The values and int64 indices
/// come out sorted. An input holding that extreme value itself (or an
/// infinity beyond it) can be picked twice.
Results importTopK(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  Value x = ctx.inputs[0];
  RankedTensorType type = tensorType(x);
  int64_t rank = type.getRank();
  if (rank == 0)
    return ctx.error() << "X must have rank 1 or more";
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.intAttr("axis", -1), rank);
  if (failed(axis))
    return failure();
  std::optional<SmallVector<int64_t>> kValues = constantInts(ctx.inputs[1]);
  if (!kValues || kValues->size() != 1)
    return ctx.error() << "K must be a constant with one value (it sets the "
                          "outputs' shape; hetc needs static shapes)";
  int64_t k = (*kValues)[0], n = type.getDimSize(*axis);
  if (k < 1 || k > n)
    return ctx.error() << "K = " << k << " is outside [1, " << n << "]";
  bool largest = ctx.intAttr("largest", 1) != 0;
  Type element = type.getElementType();
  double extreme;
  if (auto f = dyn_cast<FloatType>(element))
    extreme = APFloat::getLargest(f.getFloatSemantics()).convertToDouble();
  else if (isa<IntegerType>(element) && !element.isInteger(1) &&
           !(element.isUnsignedInteger() && largest))
    extreme = double(std::numeric_limits<int32_t>::max());
  else if (element.isUnsignedInteger())
    return ctx.error() << "the largest of unsigned integers is not supported: "
                          "no value below them masks the picked ones";
  else
    return ctx.error() << "X must be numbers, got " << type;
  Value sentinel = scalarConstant(ctx, element, largest ? -extreme : extreme);
  SmallVector<int64_t> kept(type.getShape());
  kept[*axis] = 1;
  auto keptType = RankedTensorType::get(kept, element);
  auto indexType = RankedTensorType::get(kept, ctx.builder.getI64Type());
  Value along = positionsAlong(ctx, n, *axis, rank);
  Value masked = x;
  SmallVector<Value> values, indices;
  for (int64_t i = 0; i < k; ++i) {
    Value best = ctx.create<hgraph::ReduceOp>(
        keptType,
        hgraph::ReduceKindAttr::get(ctx.builder.getContext(),
                                    largest ? hgraph::ReduceKind::max
                                            : hgraph::ReduceKind::min),
        masked, ctx.builder.getDenseI64ArrayAttr({*axis}),
        ctx.builder.getBoolAttr(true));
    Value where = ctx.create<hgraph::ArgMaxOp>(
        indexType, masked, ctx.builder.getI64IntegerAttr(*axis),
        ctx.builder.getBoolAttr(true), ctx.builder.getBoolAttr(!largest),
        ctx.builder.getBoolAttr(false));
    values.push_back(best);
    indices.push_back(where);
    if (i + 1 < k) {
      Value taken = ctx.create<hgraph::EqualOp>(
          RankedTensorType::get(type.getShape(), ctx.builder.getI1Type()),
          where, along);
      masked = ctx.create<hgraph::WhereOp>(type, taken, sentinel, masked);
    }
  }
  SmallVector<int64_t> outShape(type.getShape());
  outShape[*axis] = k;
  auto join = [&](ArrayRef<Value> parts, Type t) -> Value {
    if (parts.size() == 1)
      return parts[0];
    return ctx.create<hgraph::ConcatOp>(RankedTensorType::get(outShape, t),
                                        parts,
                                        ctx.builder.getI64IntegerAttr(*axis));
  };
  Value allValues = join(values, element);
  Value allIndices = join(indices, ctx.builder.getI64Type());
  return SmallVector<Value>{allValues, allIndices};
}

/// EyeLike: ones on diagonal k of a 2-D tensor shaped like the input.
Results importEyeLike(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  if (type.getRank() != 2)
    return ctx.error() << "the input must be 2-D, got " << type;
  Type element = type.getElementType();
  if (const onnx::AttributeProto *dtype = ctx.attr("dtype")) {
    element = elementTypeOf(dtype->i(), ctx.builder.getContext());
    if (!element)
      return ctx.error() << "dtype " << dataTypeName(dtype->i())
                         << " is not supported";
  }
  int64_t k = ctx.intAttr("k", 0);
  auto resultType = RankedTensorType::get(type.getShape(), element);
  SmallVector<Attribute> values;
  for (int64_t r = 0; r < type.getDimSize(0); ++r)
    for (int64_t c = 0; c < type.getDimSize(1); ++c) {
      double v = c - r == k ? 1.0 : 0.0;
      if (auto f = dyn_cast<FloatType>(element))
        values.push_back(FloatAttr::get(f, v));
      else
        values.push_back(IntegerAttr::get(element, APInt(
            element.getIntOrFloatBitWidth(), int64_t(v))));
    }
  return SmallVector<Value>{hgraph::ConstantOp::create(
      ctx.builder, ctx.loc, DenseElementsAttr::get(resultType, values))};
}

/// The generalised cosine windows: a0 - a1 cos(2 pi n / D) + a2 cos(4 pi n
/// / D), D = size (periodic) or size - 1 (symmetric).
template <int Window>
Results importWindow(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  std::optional<SmallVector<int64_t>> size = constantInts(ctx.inputs[0]);
  if (!size || size->size() != 1)
    return ctx.error() << "size must be a constant with one value (it sets "
                          "the output's shape; hetc needs static shapes)";
  int64_t n = (*size)[0];
  if (n <= 0)
    return ctx.error() << "size must be positive, got " << n;
  Type element = elementTypeOf(
      int(ctx.intAttr("output_datatype", onnx::TensorProto::FLOAT)),
      ctx.builder.getContext());
  if (!element)
    return ctx.error() << "output_datatype "
                       << dataTypeName(int(ctx.intAttr("output_datatype", 1)))
                       << " is not supported";
  bool periodic = ctx.intAttr("periodic", 1) != 0;
  double a0 = Window == 0 ? 0.5 : Window == 1 ? 25.0 / 46.0 : 0.42;
  double a1 = Window == 0 ? 0.5 : Window == 1 ? 21.0 / 46.0 : 0.5;
  double a2 = Window == 2 ? 0.08 : 0.0;
  double d = periodic ? double(n) : double(n - 1);
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < n; ++i) {
    double t = d > 0 ? 2.0 * M_PI * double(i) / d : 0.0;
    double v = a0 - a1 * std::cos(t) + a2 * std::cos(2.0 * t);
    if (auto f = dyn_cast<FloatType>(element))
      values.push_back(FloatAttr::get(f, v));
    else
      values.push_back(IntegerAttr::get(
          element, APInt(element.getIntOrFloatBitWidth(), int64_t(v),
                         /*isSigned=*/true)));
  }
  return SmallVector<Value>{hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(RankedTensorType::get({n}, element), values))};
}

/// LpNormalization: x / norm_p(x) along `axis` (p = 1 or 2).
Results importLpNormalization(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  Value x = ctx.inputs[0];
  RankedTensorType type = tensorType(x);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.intAttr("axis", -1), type.getRank());
  if (failed(axis))
    return failure();
  int64_t p = ctx.intAttr("p", 2);
  if (p != 1 && p != 2)
    return ctx.error() << "p must be 1 or 2, got " << p;
  SmallVector<int64_t> kept(type.getShape());
  kept[*axis] = 1;
  Value norm = ctx.create<hgraph::ReduceOp>(
      RankedTensorType::get(kept, type.getElementType()),
      hgraph::ReduceKindAttr::get(ctx.builder.getContext(),
                                  p == 1 ? hgraph::ReduceKind::l1
                                         : hgraph::ReduceKind::l2),
      x, ctx.builder.getDenseI64ArrayAttr({*axis}),
      ctx.builder.getBoolAttr(true));
  // A zero norm divides by 1 instead (its slice is all zeros), as ONNX's
  // reference does.
  auto keptType = RankedTensorType::get(kept, type.getElementType());
  Value zeroNorm = ctx.create<hgraph::EqualOp>(
      RankedTensorType::get(kept, ctx.builder.getI1Type()), norm,
      scalarConstant(ctx, type.getElementType(), 0));
  Value divisor = ctx.create<hgraph::WhereOp>(
      keptType, zeroNorm, scalarConstant(ctx, type.getElementType(), 1), norm);
  return SmallVector<Value>{ctx.create<hgraph::DivOp>(type, x, divisor)};
}

Results importReverseSequence(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  Value x = ctx.inputs[0], lengths = ctx.inputs[1];
  RankedTensorType type = tensorType(x);
  int64_t rank = type.getRank();
  int64_t batchAxis = ctx.intAttr("batch_axis", 1);
  int64_t timeAxis = ctx.intAttr("time_axis", 0);
  if (rank < 2 || !((batchAxis == 0 && timeAxis == 1) ||
                    (batchAxis == 1 && timeAxis == 0)))
    return ctx.error() << "batch_axis and time_axis must be 0 and 1 (in "
                          "either order) of an input of rank >= 2, got "
                       << batchAxis << " and " << timeAxis << " for " << type;
  RankedTensorType lenType = tensorType(lengths);
  int64_t batch = type.getDimSize(batchAxis), time = type.getDimSize(timeAxis);
  if (lenType.getRank() != 1 || lenType.getDimSize(0) != batch ||
      !isa<IntegerType>(lenType.getElementType()))
    return ctx.error() << "sequence_lens must be [" << batch
                       << "] integers, got " << lenType;
  Type i64 = ctx.builder.getI64Type();
  SmallVector<int64_t> lenShape(rank, 1), gridShape(rank, 1);
  lenShape[batchAxis] = batch;
  gridShape[batchAxis] = batch;
  gridShape[timeAxis] = time;
  Value len = ctx.create<hgraph::ReshapeOp>(RankedTensorType::get(lenShape, i64),
                                            castTo(ctx, lengths, i64));
  Value t = positionsAlong(ctx, time, timeAxis, rank);
  auto grid = RankedTensorType::get(gridShape, i64);
  Value inside = ctx.create<hgraph::LessOp>(
      RankedTensorType::get(gridShape, ctx.builder.getI1Type()), t, len);
  Value mirrored = ctx.create<hgraph::SubOp>(
      grid, ctx.create<hgraph::SubOp>(lenType.clone(lenShape, i64), len,
                                      scalarConstant(ctx, i64, 1)),
      t);
  Value from = ctx.create<hgraph::WhereOp>(grid, inside, mirrored, t);
  if (type.getShape() != ArrayRef<int64_t>(gridShape))
    from = ctx.create<hgraph::ExpandOp>(RankedTensorType::get(type.getShape(), i64),
                                        from);
  return SmallVector<Value>{ctx.create<hgraph::GatherElementsOp>(
      type, x, from, ctx.builder.getI64IntegerAttr(timeAxis))};
}

} // namespace

void hetc::frontend::addIndexRules(llvm::StringMap<ImportRule> &rules) {
  rules.insert({
      {"ReverseSequence", importReverseSequence},
      {"Hardmax", importHardmax},
      {"TopK", importTopK},
      {"OneHot", importOneHot},
      {"EyeLike", importEyeLike},
      {"HannWindow", importWindow<0>},
      {"HammingWindow", importWindow<1>},
      {"BlackmanWindow", importWindow<2>},
      {"LpNormalization", importLpNormalization},
  });
}
