//===- OnnxGridSampleRule.cpp - GridSample as gathers of pixel rows -----===//
//
// GridSample reads its input at coordinates computed at run time. The chip
// reads by run-time index only whole rows of a table, so the input
// [N, C, S...] becomes a table of pixels, [N * prod(S), C]: row r holds the
// C channels of one pixel. Each output position needs a few pixels per
// spatial dimension (taps: 1 for nearest, 2 for linear, 4 for cubic), and
// the product of the per-dimension taps gives its T^d corners. The
// importer computes, elementwise on the grid, each corner's row index and
// weight (the padding mode folded into both: an index outside the input is
// clamped or reflected, and under "zeros" its weight becomes 0), gathers
// the corners' rows with one hgraph.gather, and sums the weighted rows.
// The coordinate rules follow the ONNX reference: denormalisation by
// align_corners, round-half-to-even for nearest, border and reflection
// applied to the coordinate before the taps, and the cubic coefficients
// of Keys with A = -0.75.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/FloatMath.h"
#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

enum class Mode { Nearest, Linear, Cubic };
enum class Padding { Zeros, Border, Reflection };

/// One tap along one spatial dimension: the input index (an integral f32)
/// and its weight, or a null weight where it is 1.
struct Tap {
  Value index;
  Value weight;
};

/// Keys' cubic convolution coefficients (A = -0.75) of the four taps at
/// offsets -1, 0, 1, 2 from floor(x), for t = x - floor(x).
SmallVector<Value> cubicWeights(FloatMath &a, Value t) {
  const double A = -0.75;
  auto outer = [&](Value s) { // ((A s - 5A) s + 8A) s - 4A, for s in [1, 2]
    Value v = a.add(a.mul(s, A), -5 * A);
    v = a.add(a.mul(v, s), 8 * A);
    return a.add(a.mul(v, s), -4 * A);
  };
  auto inner = [&](Value s) { // ((A + 2) s - (A + 3)) s s + 1, for s in [0, 1]
    Value v = a.add(a.mul(s, A + 2), -(A + 3));
    return a.add(a.mul(a.mul(v, s), s), 1.0);
  };
  Value oneMinus = a.sub(a.scalar(1.0), t);
  return {outer(a.add(t, 1.0)), inner(t), inner(oneMinus),
          outer(a.sub(a.scalar(2.0), t))};
}

/// The taps of one spatial dimension of `extent` pixels at the
/// denormalised coordinates `x`, with the padding rule applied to each
/// tap's index (and, under "zeros", to its weight).
SmallVector<Tap> tapsAlong(FloatMath &a, Value x, int64_t extent, Mode mode,
                           Padding padding, bool align) {
  double lo = align ? 0.0 : -0.5;
  double hi = align ? double(extent) - 1.0 : double(extent) - 0.5;
  if (mode == Mode::Nearest)
    x = a.round(x);
  // The coordinate itself is moved inside first.
  if (padding == Padding::Border) {
    Value clamped = a.clip(x, 0, double(extent) - 1);
    x = a.where(a.less(x, lo), clamped, a.where(a.greater(x, hi), clamped, x));
  } else if (padding == Padding::Reflection)
    x = a.reflect(x, lo, hi);

  SmallVector<Tap> taps;
  if (mode == Mode::Nearest) {
    taps.push_back({x, Value()});
  } else {
    Value base = a.floor(x);
    Value t = a.sub(x, base);
    if (mode == Mode::Linear) {
      taps.push_back({base, a.sub(a.scalar(1.0), t)});
      taps.push_back({a.add(base, 1.0), t});
    } else {
      SmallVector<Value> w = cubicWeights(a, t);
      for (int64_t k = 0; k < 4; ++k)
        taps.push_back({a.add(base, double(k - 1)), w[size_t(k)]});
    }
  }
  // Each tap's index into [0, extent).
  double last = double(extent) - 1.0;
  for (Tap &tap : taps) {
    switch (padding) {
    case Padding::Zeros: {
      Value inside =
          a.both(a.greater(tap.index, -0.5), a.less(tap.index, last + 0.5));
      Value keep = a.asFloat(inside);
      tap.weight = tap.weight ? a.mul(tap.weight, keep) : keep;
      tap.index = a.clip(tap.index, 0, last);
      break;
    }
    case Padding::Border:
      tap.index = a.clip(tap.index, 0, last);
      break;
    case Padding::Reflection:
      // int() of the reflected index truncates toward zero; the index lies
      // in [lo, hi], so that is the floor of its clamp to [0, last].
      tap.index = a.floor(a.clip(a.reflect(tap.index, lo, hi), 0, last));
      break;
    }
  }
  return taps;
}

Results importGridSample(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  Value input = ctx.inputs[0], grid = ctx.inputs[1];
  RankedTensorType inputType = tensorType(input), gridType = tensorType(grid);
  Type element = inputType.getElementType();
  if (!isa<FloatType>(element) || !isa<FloatType>(gridType.getElementType()))
    return ctx.error() << "X and grid must be floats, got " << inputType
                       << " and " << gridType;
  int64_t rank = inputType.getRank(), dims = rank - 2;
  if (rank < 3 || gridType.getRank() != rank ||
      gridType.getDimSize(0) != inputType.getDimSize(0) ||
      gridType.getDimSize(rank - 1) != dims)
    return ctx.error() << "grid must be (N, D1, ..., " << dims
                       << ") for X of rank " << rank << ", got " << gridType
                       << " and " << inputType;

  std::string modeName =
      ctx.stringAttr("mode", ctx.opset >= 20 ? "linear" : "bilinear");
  Mode mode;
  if (modeName == "nearest")
    mode = Mode::Nearest;
  else if (modeName == "linear" || modeName == "bilinear")
    mode = Mode::Linear;
  else if (modeName == "cubic" || modeName == "bicubic")
    mode = Mode::Cubic;
  else
    return ctx.error() << "mode must be nearest, linear or cubic, got '"
                       << modeName << "'";
  std::string paddingName = ctx.stringAttr("padding_mode", "zeros");
  Padding padding;
  if (paddingName == "zeros")
    padding = Padding::Zeros;
  else if (paddingName == "border")
    padding = Padding::Border;
  else if (paddingName == "reflection")
    padding = Padding::Reflection;
  else
    return ctx.error() << "padding_mode must be zeros, border or reflection, "
                          "got '"
                       << paddingName << "'";
  bool align = ctx.intAttr("align_corners", 0) != 0;

  int64_t n = inputType.getDimSize(0), channels = inputType.getDimSize(1);
  ArrayRef<int64_t> spatial = inputType.getShape().drop_front(2);
  ArrayRef<int64_t> outSpatial = gridType.getShape().slice(1, size_t(dims));
  int64_t pixels = 1, positions = 1;
  for (int64_t extent : spatial)
    pixels *= extent;
  for (int64_t extent : outSpatial)
    positions *= extent;
  int64_t tapsPerDim = mode == Mode::Nearest ? 1 : mode == Mode::Linear ? 2 : 4;
  int64_t corners = 1;
  for (int64_t d = 0; d < dims; ++d)
    corners *= tapsPerDim;
  // Row indices are computed exactly in f32, so the table must have at
  // most 2^24 rows; the gathered corners must fit the element limit.
  if (n * pixels > (int64_t(1) << 24))
    return ctx.error() << "X has " << n * pixels
                       << " pixels, more than the 2^24 that GridSample's row "
                          "indices address";
  std::string error;
  if (!boundedElementCount({corners, n, positions, channels}, ctx.maxElements,
                           error))
    return ctx.error() << "its " << corners
                       << " gathered corners per output are too large: "
                       << error;
  if (n * positions * channels == 0)
    return SmallVector<Value>{hgraph::ConstantOp::create(
        ctx.builder, ctx.loc,
        DenseElementsAttr::get(RankedTensorType::get(
                                   [&] {
                                     SmallVector<int64_t> s{n, channels};
                                     s.append(outSpatial.begin(),
                                              outSpatial.end());
                                     return s;
                                   }(),
                                   element),
                               ctx.builder.getZeroAttr(element)))};
  if (pixels == 0)
    return ctx.error() << "X has no pixels (a spatial dimension of size 0) "
                          "to sample at "
                       << n * positions << " grid points";

  OpBuilder &b = ctx.builder;
  Type f32 = b.getF32Type();
  FloatMath a{ctx, RankedTensorType::get({n, positions}, f32),
              RankedTensorType::get({n, positions}, b.getI1Type())};
  Value grid32 = castTo(ctx, grid, f32);

  // Per spatial dimension i (the grid lists them last first), its taps.
  SmallVector<SmallVector<Tap>> taps;
  for (int64_t i = 0; i < dims; ++i) {
    SmallVector<int64_t> starts(size_t(rank), 0), steps(size_t(rank), 1);
    starts.back() = dims - 1 - i;
    SmallVector<int64_t> sliceShape(gridType.getShape());
    sliceShape.back() = 1;
    Value component = ctx.create<hgraph::SliceOp>(
        RankedTensorType::get(sliceShape, f32), grid32,
        b.getDenseI64ArrayAttr(starts), b.getDenseI64ArrayAttr(steps));
    component = reshapeTo(ctx, component, {n, positions});
    double extent = double(spatial[size_t(i)]);
    // Denormalise: [-1, 1] onto the corner pixels' centres (align_corners)
    // or onto the outer edges of the corner pixels.
    Value x =
        align ? a.mul(a.add(component, 1.0), (extent - 1.0) / 2.0)
              : a.mul(a.add(a.mul(a.add(component, 1.0), extent), -1.0), 0.5);
    taps.push_back(tapsAlong(a, x, spatial[size_t(i)], mode, padding, align));
  }

  // Each corner: its row in the pixel table and its weight.
  Value batchBase =
      a.mul(castTo(ctx, positionsAlong(ctx, n, 0, 2), f32), double(pixels));
  SmallVector<Value> rows, weights;
  SmallVector<int64_t> pick(size_t(dims), 0);
  for (int64_t c = 0; c < corners; ++c) {
    Value row = batchBase, weight;
    int64_t stride = pixels;
    for (int64_t i = 0; i < dims; ++i) {
      stride /= spatial[size_t(i)];
      const Tap &tap = taps[size_t(i)][size_t(pick[size_t(i)])];
      row = a.add(row, a.mul(tap.index, double(stride)));
      if (tap.weight)
        weight = weight ? a.mul(weight, tap.weight) : tap.weight;
    }
    rows.push_back(
        reshapeTo(ctx, castTo(ctx, row, b.getI64Type()), {1, n, positions}));
    if (weight)
      weights.push_back(reshapeTo(ctx, weight, {1, n, positions, 1}));
    for (int64_t i = dims - 1; i >= 0; --i) {
      if (++pick[size_t(i)] < tapsPerDim)
        break;
      pick[size_t(i)] = 0;
    }
  }
  Value indices =
      rows.size() == 1
          ? rows.front()
          : ctx.create<hgraph::ConcatOp>(
                RankedTensorType::get({corners, n, positions}, b.getI64Type()),
                rows, b.getI64IntegerAttr(0));

  // The pixel table [N * prod(S), C] and the corners' rows.
  SmallVector<int64_t> channelsLast{0};
  for (int64_t d = 2; d < rank; ++d)
    channelsLast.push_back(d);
  channelsLast.push_back(1);
  SmallVector<int64_t> lastShape{n};
  lastShape.append(spatial.begin(), spatial.end());
  lastShape.push_back(channels);
  Value table = ctx.create<hgraph::TransposeOp>(
      RankedTensorType::get(lastShape, element), input,
      b.getDenseI64ArrayAttr(channelsLast));
  table = reshapeTo(ctx, table, {n * pixels, channels});
  Value picked = ctx.create<hgraph::GatherOp>(
      RankedTensorType::get({corners, n, positions, channels}, element), table,
      indices, b.getI64IntegerAttr(0));
  if (!weights.empty()) {
    Value weight =
        weights.size() == 1
            ? weights.front()
            : ctx.create<hgraph::ConcatOp>(
                  RankedTensorType::get({corners, n, positions, 1}, f32),
                  weights, b.getI64IntegerAttr(0));
    picked = broadcastBinary<hgraph::MulOp>(ctx, picked,
                                            castTo(ctx, weight, element));
  }
  Value sum = picked;
  if (corners > 1)
    sum = ctx.create<hgraph::ReduceOp>(
        RankedTensorType::get({n, positions, channels}, element),
        hgraph::ReduceKindAttr::get(b.getContext(), hgraph::ReduceKind::sum),
        picked, b.getDenseI64ArrayAttr({0}), b.getBoolAttr(false));
  else
    sum = reshapeTo(ctx, sum, {n, positions, channels});
  Value result = ctx.create<hgraph::TransposeOp>(
      RankedTensorType::get({n, channels, positions}, element), sum,
      b.getDenseI64ArrayAttr({0, 2, 1}));
  SmallVector<int64_t> shape{n, channels};
  shape.append(outSpatial.begin(), outSpatial.end());
  return SmallVector<Value>{reshapeTo(ctx, result, shape)};
}

} // namespace

void hetc::frontend::addGridSampleRule(llvm::StringMap<ImportRule> &rules) {
  rules["GridSample"] = importGridSample;
}
