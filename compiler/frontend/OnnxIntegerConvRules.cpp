//===- OnnxIntegerConvRules.cpp - ConvInteger and QLinearConv -----------===//
//
// Both compute (x - x_zero_point) * (w - w_zero_point) exactly in i32 on
// the matrix unit's integer path: the input's windows are gathered into
// rows (im2col) by a constant index table, and each group's rows multiply
// its weights with hgraph.matmul_integer, which corrects the zero points
// by sums. Padding reads x_zero_point, so that it adds nothing once the
// zero point is taken off: the table indexes one extra column holding it.
// QLinearConv then adds the bias and requantises as ONNX's reference
// does: scaled by x_scale * w_scale / y_scale, plus y_zero_point,
// clamped to the output type and rounded half to even.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

bool isByte(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && i.getWidth() == 8;
}

/// The rows of the windows of one group: entry [p, j] is the position in
/// a batch element's flattened input [C * prod(S)] of window element j
/// (channel-major, then the kernel's positions) at output position p, or
/// `padSlot` where the window reads padding.
std::vector<int64_t> windowTable(const Window &w, ArrayRef<int64_t> spatial,
                                 ArrayRef<int64_t> out, int64_t firstChannel,
                                 int64_t channels, int64_t padSlot) {
  size_t n = spatial.size();
  int64_t pixels = 1, positions = 1, taps = 1;
  for (size_t d = 0; d < n; ++d) {
    pixels *= spatial[d];
    positions *= out[d];
    taps *= w.kernel[d];
  }
  std::vector<int64_t> table;
  table.reserve(size_t(positions * channels * taps));
  SmallVector<int64_t> at(n, 0), tap(n, 0);
  auto next = [](SmallVector<int64_t> &index, ArrayRef<int64_t> extent) {
    for (int64_t d = int64_t(index.size()) - 1; d >= 0; --d) {
      if (++index[size_t(d)] < extent[size_t(d)])
        return;
      index[size_t(d)] = 0;
    }
  };
  for (int64_t p = 0; p < positions; ++p, next(at, out)) {
    for (int64_t c = 0; c < channels; ++c) {
      std::fill(tap.begin(), tap.end(), 0);
      for (int64_t t = 0; t < taps; ++t, next(tap, w.kernel)) {
        int64_t offset = 0;
        bool inside = true;
        for (size_t d = 0; d < n; ++d) {
          int64_t i =
              at[d] * w.strides[d] - w.pads[d] + tap[d] * w.dilations[d];
          inside &= i >= 0 && i < spatial[d];
          offset = offset * spatial[d] + i;
        }
        table.push_back(inside ? (firstChannel + c) * pixels + offset
                               : padSlot);
      }
    }
  }
  return table;
}

/// (x - xZero) conv (w - wZero) in i32, [N, M, out...]; the zero points
/// are null where missing.
FailureOr<Value> integerConv(NodeContext &ctx, Value x, Value w, Value xZero,
                             Value wZero) {
  RankedTensorType xt = tensorType(x), wt = tensorType(w);
  if (!isByte(xt.getElementType()) || !isByte(wt.getElementType()))
    return ctx.error() << "x and w must be int8 or uint8, got " << xt << " and "
                       << wt;
  if (xt.getRank() < 3 || wt.getRank() != xt.getRank())
    return ctx.error() << "x " << xt << " and w " << wt
                       << " must be N x C x D1 x ... and M x C/g x k1 x ...";
  int64_t batch = xt.getDimSize(0), channels = xt.getDimSize(1),
          filters = wt.getDimSize(0);
  int64_t group = ctx.intAttr("group", 1);
  if (group <= 0 || channels != wt.getDimSize(1) * group ||
      filters % group != 0)
    return ctx.error() << "x has " << channels << " channels; w " << wt
                       << " with group " << group << " expects "
                       << wt.getDimSize(1) * group
                       << " and a multiple of the group in filters";
  if (xZero && tensorType(xZero).getNumElements() != 1)
    return ctx.error() << "x_zero_point must be one value, got "
                       << tensorType(xZero);
  if (wZero && tensorType(wZero).getNumElements() != 1 &&
      (tensorType(wZero).getRank() != 1 ||
       tensorType(wZero).getDimSize(0) != filters))
    return ctx.error() << "w_zero_point must be one value or one per filter ("
                       << filters << "), got " << tensorType(wZero);
  ArrayRef<int64_t> spatial = xt.getShape().drop_front(2);
  FailureOr<Window> window =
      windowOf(ctx, wt.getShape().drop_front(2), spatial, false);
  if (failed(window))
    return failure();
  FailureOr<SmallVector<int64_t>> out = convOutputSizes(ctx, *window, spatial);
  if (failed(out))
    return failure();
  int64_t pixels = 1, positions = 1, taps = 1;
  for (size_t d = 0; d < spatial.size(); ++d) {
    pixels *= spatial[d];
    positions *= (*out)[d];
    taps *= window->kernel[d];
  }
  int64_t groupChannels = channels / group, groupFilters = filters / group;
  int64_t rowLength = groupChannels * taps;
  std::string error;
  // The windows of a batch element's group, and the index tables of every
  // group (made here, on the host).
  if (!boundedElementCount({batch, positions, rowLength}, ctx.maxElements,
                           error) ||
      !boundedElementCount({group, positions, rowLength}, ctx.maxElements,
                           error))
    return ctx.error() << "its windows are too large: " << error;

  OpBuilder &b = ctx.builder;
  Type xElement = xt.getElementType(), wElement = wt.getElementType();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  // Both zero points or neither, as hgraph.matmul_integer takes them.
  auto zero = [&](Type element) -> Value {
    return hgraph::ConstantOp::create(
        b, ctx.loc,
        DenseElementsAttr::get(RankedTensorType::get({}, element),
                               b.getZeroAttr(element)));
  };
  if (xZero || wZero) {
    xZero = xZero ? xZero : zero(xElement);
    wZero = wZero ? wZero : zero(wElement);
  }
  // [N, C * prod(S) + 1]: each batch element's input, then its padding.
  Value flat = reshapeTo(ctx, x, {batch, channels * pixels});
  Value pad = reshapeTo(ctx, xZero ? xZero : zero(xElement), {1, 1});
  if (batch != 1)
    pad = ctx.create<hgraph::ExpandOp>(
        RankedTensorType::get({batch, 1}, xElement), pad);
  Value table = ctx.create<hgraph::ConcatOp>(
      RankedTensorType::get({batch, channels * pixels + 1}, xElement),
      ValueRange{flat, pad}, b.getI64IntegerAttr(1));

  SmallVector<Value> pieces;
  for (int64_t g = 0; g < group; ++g) {
    std::vector<int64_t> indices =
        windowTable(*window, spatial, *out, g * groupChannels, groupChannels,
                    channels * pixels);
    Value index = hgraph::ConstantOp::create(
        b, ctx.loc,
        DenseElementsAttr::get(
            RankedTensorType::get({positions, rowLength}, i64),
            ArrayRef<int64_t>(indices)));
    Value rows = ctx.create<hgraph::GatherOp>(
        RankedTensorType::get({batch, positions, rowLength}, xElement), table,
        index, b.getI64IntegerAttr(1));
    rows = reshapeTo(ctx, rows, {batch * positions, rowLength});
    Value filtersOf = w, zeroOf = wZero;
    if (group > 1) {
      SmallVector<int64_t> starts(size_t(wt.getRank()), 0),
          steps(size_t(wt.getRank()), 1), shape(wt.getShape());
      starts[0] = g * groupFilters;
      shape[0] = groupFilters;
      filtersOf = ctx.create<hgraph::SliceOp>(
          RankedTensorType::get(shape, wElement), w,
          b.getDenseI64ArrayAttr(starts), b.getDenseI64ArrayAttr(steps));
      if (wZero && tensorType(wZero).getNumElements() != 1)
        zeroOf = ctx.create<hgraph::SliceOp>(
            RankedTensorType::get({groupFilters}, wElement), wZero,
            b.getDenseI64ArrayAttr({g * groupFilters}),
            b.getDenseI64ArrayAttr({1}));
    }
    Value weights = ctx.create<hgraph::TransposeOp>(
        RankedTensorType::get({rowLength, groupFilters}, wElement),
        reshapeTo(ctx, filtersOf, {groupFilters, rowLength}),
        b.getDenseI64ArrayAttr({1, 0}));
    pieces.push_back(ctx.create<hgraph::MatMulIntegerOp>(
        RankedTensorType::get({batch * positions, groupFilters}, i32), rows,
        weights, xZero, zeroOf));
  }
  Value product =
      pieces.size() == 1
          ? pieces.front()
          : ctx.create<hgraph::ConcatOp>(
                RankedTensorType::get({batch * positions, filters}, i32),
                pieces, b.getI64IntegerAttr(1));
  Value moved = ctx.create<hgraph::TransposeOp>(
      RankedTensorType::get({batch, filters, positions}, i32),
      reshapeTo(ctx, product, {batch, positions, filters}),
      b.getDenseI64ArrayAttr({0, 2, 1}));
  SmallVector<int64_t> shape{batch, filters};
  shape.append(out->begin(), out->end());
  return reshapeTo(ctx, moved, shape);
}

Results importConvInteger(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 4)))
    return failure();
  FailureOr<Value> y = integerConv(ctx, ctx.inputs[0], ctx.inputs[1],
                                   ctx.input(2), ctx.input(3));
  if (failed(y))
    return failure();
  return SmallVector<Value>{*y};
}

/// `v` (one value, or one per filter) shaped to broadcast along the
/// filters of an [N, M, out...] result of rank `rank`.
Value perFilter(NodeContext &ctx, Value v, int64_t rank) {
  int64_t count = tensorType(v).getNumElements();
  if (count == 1)
    return reshapeTo(ctx, v, {});
  SmallVector<int64_t> shape(size_t(rank - 1), 1);
  shape[0] = count;
  return reshapeTo(ctx, v, shape);
}

Results importQLinearConv(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 8, 9)))
    return failure();
  Value x = ctx.inputs[0], xScale = ctx.inputs[1], xZero = ctx.inputs[2];
  Value w = ctx.inputs[3], wScale = ctx.inputs[4], wZero = ctx.inputs[5];
  Value yScale = ctx.inputs[6], yZero = ctx.inputs[7], bias = ctx.input(8);
  int64_t filters = tensorType(w).getRank() ? tensorType(w).getDimSize(0) : 0;
  for (auto [v, name] :
       {std::pair(xScale, "x_scale"), std::pair(yScale, "y_scale")})
    if (tensorType(v).getNumElements() != 1)
      return ctx.error() << name << " must be one value, got " << tensorType(v);
  int64_t wScales = tensorType(wScale).getNumElements();
  if (wScales != 1 && wScales != filters)
    return ctx.error() << "w_scale must be one value or one per filter ("
                       << filters << "), got " << tensorType(wScale);
  if (!isByte(tensorType(yZero).getElementType()) ||
      tensorType(yZero).getNumElements() != 1)
    return ctx.error() << "y_zero_point must be one int8 or uint8 value, got "
                       << tensorType(yZero);
  if (bias && (tensorType(bias).getNumElements() != filters ||
               !tensorType(bias).getElementType().isInteger(32)))
    return ctx.error() << "B must hold one int32 per filter (" << filters
                       << "), got " << tensorType(bias);
  FailureOr<Value> acc = integerConv(ctx, x, w, xZero, wZero);
  if (failed(acc))
    return failure();
  int64_t rank = tensorType(*acc).getRank();
  Value sum = *acc;
  if (bias)
    sum = broadcastBinary<hgraph::AddOp>(ctx, sum, perFilter(ctx, bias, rank));
  Type f32 = ctx.builder.getF32Type();
  Value factor = broadcastBinary<hgraph::DivOp>(
      ctx,
      broadcastBinary<hgraph::MulOp>(
          ctx, castTo(ctx, perFilter(ctx, xScale, rank), f32),
          castTo(ctx, perFilter(ctx, wScale, rank), f32)),
      castTo(ctx, perFilter(ctx, yScale, rank), f32));
  Value scaled =
      broadcastBinary<hgraph::MulOp>(ctx, castTo(ctx, sum, f32), factor);
  Value shifted = broadcastBinary<hgraph::AddOp>(
      ctx, scaled, castTo(ctx, perFilter(ctx, yZero, rank), f32));
  auto yType = cast<IntegerType>(tensorType(yZero).getElementType());
  bool isSigned = !yType.isUnsigned();
  RankedTensorType type = tensorType(shifted);
  Value clamped = ctx.create<hgraph::ClipOp>(
      type, shifted, scalarConstant(ctx, f32, isSigned ? -128.0 : 0.0),
      scalarConstant(ctx, f32, isSigned ? 127.0 : 255.0));
  Value rounded = ctx.create<hgraph::RoundOp>(type, clamped);
  return SmallVector<Value>{castTo(ctx, rounded, yType)};
}

} // namespace

void hetc::frontend::addIntegerConvRules(llvm::StringMap<ImportRule> &rules) {
  rules["ConvInteger"] = importConvInteger;
  rules["QLinearConv"] = importQLinearConv;
}
