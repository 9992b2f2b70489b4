//===- OnnxRoiAlignRule.cpp - RoiAlign as gathers of pixel rows ---------===//
//
// RoiAlign pools each region of interest into an output_height x
// output_width grid of bins, each the average (or maximum) of
// sampling_ratio^2 bilinear samples. As GridSample does, the input
// [N, C, H, W] becomes a table of pixel rows [N * H * W, C]; the samples'
// coordinates follow elementwise from the regions (a run-time input) and
// a constant per-sample offset, and each sample's four corner rows are
// read with one run-time row gather. The sampling rules are those of
// ONNX's reference: a sample beyond one pixel outside the input weighs 0,
// coordinates clamp at 0 and at the last pixel, and max mode takes the
// largest weighted corner. A sampling_ratio of 0 (samples per bin from
// each region's size at run time) has no static schedule and is refused.
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

/// Column `index` of the [R, 4] regions, as [R, 1].
Value regionColumn(NodeContext &ctx, Value rois, int64_t index) {
  int64_t regions = tensorType(rois).getDimSize(0);
  return ctx.create<hgraph::SliceOp>(
      RankedTensorType::get({regions, 1}, ctx.builder.getF32Type()), rois,
      ctx.builder.getDenseI64ArrayAttr({0, index}),
      ctx.builder.getDenseI64ArrayAttr({1, 1}));
}

/// The low and high pixel of each sample along one dimension of `extent`
/// pixels and the high one's weight, from the sample coordinates `at`,
/// as ONNX's reference clamps them.
struct Axis {
  Value low, high, highWeight;
};

Axis axisOf(FloatMath &a, Value at, int64_t extent) {
  Value clamped = a.max(at, 0.0);
  Value low = a.floor(clamped);
  Value last = a.atLeast(low, double(extent - 1));
  Value lastIndex = a.scalar(double(extent - 1));
  Axis axis;
  axis.low = a.where(last, lastIndex, low);
  axis.high = a.where(last, lastIndex, a.add(low, 1.0));
  axis.highWeight = a.sub(a.where(last, axis.low, clamped), axis.low);
  return axis;
}

Results importRoiAlign(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 3, 3)))
    return failure();
  Value input = ctx.inputs[0], rois = ctx.inputs[1],
        batchIndices = ctx.inputs[2];
  RankedTensorType inputType = tensorType(input), roiType = tensorType(rois);
  Type element = inputType.getElementType();
  if (inputType.getRank() != 4 || !isa<FloatType>(element))
    return ctx.error() << "X must be (N, C, H, W) of floats, got " << inputType;
  int64_t regions = roiType.getRank() == 2 ? roiType.getDimSize(0) : -1;
  if (regions < 0 || roiType.getDimSize(1) != 4 ||
      !isa<FloatType>(roiType.getElementType()) ||
      tensorType(batchIndices).getRank() != 1 ||
      tensorType(batchIndices).getDimSize(0) != regions ||
      !tensorType(batchIndices).getElementType().isInteger())
    return ctx.error() << "rois must be (R, 4) floats and batch_indices (R) "
                          "integers, got "
                       << roiType << " and " << tensorType(batchIndices);
  std::string mode = ctx.stringAttr("mode", "avg");
  if (mode != "avg" && mode != "max")
    return ctx.error() << "mode must be avg or max, got '" << mode << "'";
  std::string transform =
      ctx.stringAttr("coordinate_transformation_mode",
                     ctx.opset >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    return ctx.error() << "coordinate_transformation_mode must be half_pixel "
                          "or output_half_pixel, got '"
                       << transform << "'";
  bool halfPixel = transform == "half_pixel";
  int64_t outH = ctx.intAttr("output_height", 1);
  int64_t outW = ctx.intAttr("output_width", 1);
  int64_t ratio = ctx.intAttr("sampling_ratio", 0);
  double spatialScale = ctx.floatAttr("spatial_scale", 1.0f);
  if (outH <= 0 || outW <= 0 || outH > 4096 || outW > 4096)
    return ctx.error() << "output_height and output_width must be in "
                          "[1, 4096], got "
                       << outH << " and " << outW;
  if (ratio <= 0 || ratio > 64)
    return ctx.error() << "sampling_ratio " << ratio
                       << " is not supported: 0 picks each bin's samples "
                          "from its region's size at run time, which a "
                          "static schedule cannot hold; give sampling_ratio "
                          "in [1, 64]";

  int64_t n = inputType.getDimSize(0), channels = inputType.getDimSize(1),
          height = inputType.getDimSize(2), width = inputType.getDimSize(3);
  int64_t samples = outH * outW * ratio * ratio;
  if (n * height * width > (int64_t(1) << 24))
    return ctx.error() << "X has " << n * height * width
                       << " pixels, more than the 2^24 that RoiAlign's row "
                          "indices address";
  std::string error;
  if (!boundedElementCount({4, regions, samples, channels}, ctx.maxElements,
                           error))
    return ctx.error() << "its samples are too many: " << error;

  OpBuilder &b = ctx.builder;
  Type f32 = b.getF32Type();
  FloatMath a{ctx, RankedTensorType::get({regions, samples}, f32),
              RankedTensorType::get({regions, samples}, b.getI1Type())};
  // Sample s = (ph, pw, iy, ix) lies at ph + (iy + 0.5) / ratio bins from
  // the region's start (and pw + (ix + 0.5) / ratio across).
  std::vector<float> down, across;
  for (int64_t ph = 0; ph < outH; ++ph)
    for (int64_t pw = 0; pw < outW; ++pw)
      for (int64_t iy = 0; iy < ratio; ++iy)
        for (int64_t ix = 0; ix < ratio; ++ix) {
          down.push_back(
              float(double(ph) + (double(iy) + 0.5) / double(ratio)));
          across.push_back(
              float(double(pw) + (double(ix) + 0.5) / double(ratio)));
        }
  auto offsets = [&](ArrayRef<float> values) -> Value {
    return hgraph::ConstantOp::create(
        b, ctx.loc,
        DenseElementsAttr::get(RankedTensorType::get({1, samples}, f32),
                               values));
  };
  Value boxes = castTo(ctx, rois, f32);
  double shift = halfPixel ? 0.5 : 0.0;
  auto edge = [&](int64_t column) {
    return a.add(a.mul(regionColumn(ctx, boxes, column), spatialScale), -shift);
  };
  auto coordinates = [&](Value start, Value end, int64_t bins,
                         ArrayRef<float> at) {
    Value size = a.sub(end, start);
    if (!halfPixel)
      size = ctx.create<hgraph::MaxOp>(tensorType(size), size, a.scalar(1.0));
    Value bin = a.mul(size, 1.0 / double(bins));
    return a.add(start, a.mul(bin, offsets(at)));
  };
  Value x = coordinates(edge(0), edge(2), outW, across);
  Value y = coordinates(edge(1), edge(3), outH, down);
  // A sample more than one pixel outside the input weighs nothing.
  Value outside =
      a.either(a.either(a.less(y, -1.0), a.greater(y, double(height))),
               a.either(a.less(x, -1.0), a.greater(x, double(width))));
  Value keep = a.asFloat(ctx.create<hgraph::NotOp>(a.flags, outside));
  Axis ya = axisOf(a, y, height), xa = axisOf(a, x, width);
  Value yLowWeight = a.sub(a.scalar(1.0), ya.highWeight);
  Value xLowWeight = a.sub(a.scalar(1.0), xa.highWeight);
  Value base =
      a.mul(castTo(ctx, reshapeTo(ctx, batchIndices, {regions, 1}), f32),
            double(height * width));
  SmallVector<Value> rows, weights;
  for (auto [yi, yw] :
       {std::pair(ya.low, yLowWeight), std::pair(ya.high, ya.highWeight)})
    for (auto [xi, xw] :
         {std::pair(xa.low, xLowWeight), std::pair(xa.high, xa.highWeight)}) {
      Value row = a.add(base, a.add(a.mul(yi, double(width)), xi));
      rows.push_back(reshapeTo(ctx, castTo(ctx, row, b.getI64Type()),
                               {1, regions, samples}));
      weights.push_back(
          reshapeTo(ctx, a.mul(a.mul(yw, xw), keep), {1, regions, samples, 1}));
    }
  Value indices = ctx.create<hgraph::ConcatOp>(
      RankedTensorType::get({4, regions, samples}, b.getI64Type()), rows,
      b.getI64IntegerAttr(0));
  Value weight = ctx.create<hgraph::ConcatOp>(
      RankedTensorType::get({4, regions, samples, 1}, f32), weights,
      b.getI64IntegerAttr(0));
  Value table = ctx.create<hgraph::TransposeOp>(
      RankedTensorType::get({n, height, width, channels}, element), input,
      b.getDenseI64ArrayAttr({0, 2, 3, 1}));
  table = reshapeTo(ctx, table, {n * height * width, channels});
  Value picked = ctx.create<hgraph::GatherOp>(
      RankedTensorType::get({4, regions, samples, channels}, element), table,
      indices, b.getI64IntegerAttr(0));
  Value weighted =
      broadcastBinary<hgraph::MulOp>(ctx, picked, castTo(ctx, weight, element));
  bool average = mode == "avg";
  auto reduce = [&](Value v, int64_t axis, ArrayRef<int64_t> shape) {
    return ctx.create<hgraph::ReduceOp>(
        RankedTensorType::get(shape, element),
        hgraph::ReduceKindAttr::get(b.getContext(),
                                    average ? hgraph::ReduceKind::sum
                                            : hgraph::ReduceKind::max),
        v, b.getDenseI64ArrayAttr({axis}), b.getBoolAttr(false));
  };
  // Over the corners, then over each bin's samples.
  Value perSample = reduce(weighted, 0, {regions, samples, channels});
  Value bins =
      reduce(reshapeTo(ctx, perSample,
                       {regions, outH * outW, ratio * ratio, channels}),
             2, {regions, outH * outW, channels});
  if (average)
    bins = broadcastBinary<hgraph::MulOp>(
        ctx, bins, scalarConstant(ctx, element, 1.0 / double(ratio * ratio)));
  Value result = ctx.create<hgraph::TransposeOp>(
      RankedTensorType::get({regions, channels, outH * outW}, element), bins,
      b.getDenseI64ArrayAttr({0, 2, 1}));
  return SmallVector<Value>{
      reshapeTo(ctx, result, {regions, channels, outH, outW})};
}

} // namespace

void hetc::frontend::addRoiAlignRule(llvm::StringMap<ImportRule> &rules) {
  rules["RoiAlign"] = importRoiAlign;
}
