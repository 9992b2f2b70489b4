//===- OnnxNNRules.cpp - Import rules of normalisation, conv, quant ops ===//
//
// ONNX's auto_pad, output_shape and sizes attributes are resolved here into
// explicit pads and scales, so hgraph ops carry one static form.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/Dialect/Traits.h"

#include <cmath>

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

/// Rejects requests for optional outputs beyond the first `supported`.
LogicalResult onlyOutputs(NodeContext &ctx, int supported) {
  for (int i = supported; i < ctx.node.output_size(); ++i)
    if (!ctx.node.output(i).empty())
      return ctx.error() << "output " << i << " ('" << ctx.node.output(i)
                         << "') is not supported";
  return success();
}

template <typename OpTy>
Results importNorm(NodeContext &ctx) {
  bool hasBias = std::is_same_v<OpTy, hgraph::LayerNormOp>;
  if (failed(expectInputs(ctx, 2, hasBias ? 3 : 2)) ||
      failed(onlyOutputs(ctx, hasBias ? 3 : 1)))
    return failure();
  if (ctx.intAttr("stash_type", 1) != 1)
    return ctx.error() << "stash_type other than 1 (float) is not supported";
  RankedTensorType type = tensorType(ctx.inputs[0]);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.intAttr("axis", -1), type.getRank());
  if (failed(axis))
    return failure();
  float epsilon = ctx.floatAttr("epsilon", 1e-5f);
  bool statistics = ctx.node.output_size() > 1;
  if (!statistics)
    return SmallVector<Value>{ctx.create<OpTy>(
        type, ctx.inputs[0], ctx.inputs[1], ctx.input(2),
        ctx.builder.getI64IntegerAttr(*axis),
        ctx.builder.getF32FloatAttr(epsilon))};
  // With the Mean and InvStdDev outputs, the graph ONNX defines:
  // d = x - mean(x), inv = 1 / sqrt(mean(d * d) + epsilon),
  // y = d * inv * scale + bias; the statistics keep the reduced dimensions
  // with size 1.
  if (!type.getElementType().isF32())
    return ctx.error() << "the Mean and InvStdDev outputs need a float32 "
                          "input, got "
                       << type;
  SmallVector<int64_t> axes, kept(type.getShape());
  for (int64_t d = *axis; d < type.getRank(); ++d) {
    axes.push_back(d);
    kept[d] = 1;
  }
  auto keptType = RankedTensorType::get(kept, type.getElementType());
  auto mean = [&](Value v) -> Value {
    return ctx.create<hgraph::ReduceOp>(
        keptType,
        hgraph::ReduceKindAttr::get(ctx.builder.getContext(),
                                    hgraph::ReduceKind::mean),
        v, ctx.builder.getDenseI64ArrayAttr(axes),
        ctx.builder.getBoolAttr(true));
  };
  Value x = ctx.inputs[0];
  Value mu = mean(x);
  Value d = ctx.create<hgraph::SubOp>(type, x, mu);
  Value variance = mean(ctx.create<hgraph::MulOp>(type, d, d));
  Value eps = hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(
          RankedTensorType::get({}, ctx.builder.getF32Type()), epsilon));
  Value inv = ctx.create<hgraph::ReciprocalOp>(ctx.create<hgraph::SqrtOp>(
      ctx.create<hgraph::AddOp>(keptType, variance, eps)));
  Value y = ctx.create<hgraph::MulOp>(
      type, ctx.create<hgraph::MulOp>(type, d, inv), ctx.inputs[1]);
  if (Value bias = ctx.input(2))
    y = ctx.create<hgraph::AddOp>(type, y, bias);
  return SmallVector<Value>{y, mu, inv};
}

/// BatchNormalization. With training_mode (opset 14) the statistics are the
/// batch's own (mean and population variance over every dimension but 1),
/// and the second and third outputs are the running statistics
/// input * momentum + batch * (1 - momentum).
Results importBatchNorm(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 5, 5)))
    return failure();
  bool training = ctx.intAttr("training_mode", 0) != 0;
  if (!training && failed(onlyOutputs(ctx, 1)))
    return failure();
  Value x = ctx.inputs[0], mean = ctx.inputs[3], var = ctx.inputs[4];
  RankedTensorType type = tensorType(x);
  FloatAttr epsilon = ctx.builder.getF32FloatAttr(ctx.floatAttr("epsilon", 1e-5f));
  if (!training)
    return SmallVector<Value>{ctx.create<hgraph::BatchNormOp>(
        type, x, ctx.inputs[1], ctx.inputs[2], mean, var, epsilon)};
  int64_t rank = type.getRank();
  if (rank < 2 || !isa<FloatType>(type.getElementType()))
    return ctx.error() << "X must be a float tensor of rank 2 or more, got "
                       << type;
  Type element = type.getElementType();
  int64_t channels = type.getDimSize(1);
  SmallVector<int64_t> axes{0};
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  SmallVector<int64_t> kept(rank, 1);
  kept[1] = channels;
  auto keptType = RankedTensorType::get(kept, element);
  auto channelType = RankedTensorType::get({channels}, element);
  auto reduceMean = [&](Value v) {
    return ctx.create<hgraph::ReduceOp>(
        keptType,
        hgraph::ReduceKindAttr::get(ctx.builder.getContext(),
                                    hgraph::ReduceKind::mean),
        v, ctx.builder.getDenseI64ArrayAttr(axes), ctx.builder.getBoolAttr(true));
  };
  Value batchMean = reduceMean(x);
  Value centred = ctx.create<hgraph::SubOp>(type, x, batchMean);
  Value batchVar =
      reduceMean(ctx.create<hgraph::MulOp>(type, centred, centred));
  batchMean = ctx.create<hgraph::ReshapeOp>(channelType, batchMean);
  batchVar = ctx.create<hgraph::ReshapeOp>(channelType, batchVar);
  Value y = ctx.create<hgraph::BatchNormOp>(type, x, ctx.inputs[1],
                                            ctx.inputs[2], batchMean, batchVar,
                                            epsilon);
  double momentum = ctx.floatAttr("momentum", 0.9f);
  Value keep = scalarConstant(ctx, element, momentum);
  Value take = scalarConstant(ctx, element, 1.0 - momentum);
  auto running = [&](Value input, Value batch) -> Value {
    Value old = ctx.create<hgraph::MulOp>(channelType, input, keep);
    Value fresh = ctx.create<hgraph::MulOp>(channelType, batch, take);
    return ctx.create<hgraph::AddOp>(channelType, old, fresh);
  };
  Value runningMean = running(mean, batchMean);
  Value runningVar = running(var, batchVar);
  return SmallVector<Value>{y, runningMean, runningVar};
}

Results importConv(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 3)))
    return failure();
  RankedTensorType x = tensorType(ctx.inputs[0]), wt = tensorType(ctx.inputs[1]);
  if (x.getRank() < 3 || wt.getRank() != x.getRank())
    return ctx.error() << "X " << x << " and W " << wt
                       << " must be N x C x D1 x ... and M x C/g x k1 x ...";
  ArrayRef<int64_t> spatial = x.getShape().drop_front(2);
  FailureOr<Window> w = windowOf(ctx, wt.getShape().drop_front(2), spatial,
                                 false);
  if (failed(w))
    return failure();
  int64_t group = ctx.intAttr("group", 1);
  if (group <= 0 || x.getDimSize(1) != wt.getDimSize(1) * group)
    return ctx.error() << "X has " << x.getDimSize(1) << " channels; W "
                       << wt << " with group " << group << " expects "
                       << wt.getDimSize(1) * group;
  FailureOr<SmallVector<int64_t>> sizes = convOutputSizes(ctx, *w, spatial);
  if (failed(sizes))
    return failure();
  SmallVector<int64_t> shape{x.getDimSize(0), wt.getDimSize(0)};
  shape.append(sizes->begin(), sizes->end());
  Builder &b = ctx.builder;
  return SmallVector<Value>{ctx.create<hgraph::ConvOp>(
      RankedTensorType::get(shape, x.getElementType()), ctx.inputs[0],
      ctx.inputs[1], ctx.input(2), b.getDenseI64ArrayAttr(w->strides),
      b.getDenseI64ArrayAttr(w->pads), b.getDenseI64ArrayAttr(w->dilations),
      b.getI64IntegerAttr(group))};
}

Results importConvTranspose(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 3)))
    return failure();
  RankedTensorType x = tensorType(ctx.inputs[0]), wt = tensorType(ctx.inputs[1]);
  if (x.getRank() < 3 || wt.getRank() != x.getRank() ||
      wt.getDimSize(0) != x.getDimSize(1))
    return ctx.error() << "X " << x << " and W " << wt
                       << " must be N x C x D1 x ... and C x M/g x k1 x ...";
  ArrayRef<int64_t> spatial = x.getShape().drop_front(2);
  size_t n = spatial.size();
  FailureOr<Window> w = windowOf(ctx, wt.getShape().drop_front(2), spatial,
                                 true);
  if (failed(w))
    return failure();
  SmallVector<int64_t> outPad =
      ctx.intsAttr("output_padding").value_or(SmallVector<int64_t>(n, 0));
  if (outPad.size() != n)
    return ctx.error() << "output_padding needs one entry per spatial "
                          "dimension";
  int64_t group = ctx.intAttr("group", 1);
  SmallVector<int64_t> shape{x.getDimSize(0), wt.getDimSize(1) * group};
  std::optional<SmallVector<int64_t>> outputShape =
      ctx.intsAttr("output_shape");
  for (size_t d = 0; d < n; ++d) {
    int64_t k = (w->kernel[d] - 1) * w->dilations[d] + 1;
    int64_t full = w->strides[d] * (spatial[d] - 1) + outPad[d] + k;
    if (outputShape) {
      // The requested size fixes the total padding (SAME_UPPER split).
      int64_t want = (*outputShape)[outputShape->size() - n + d];
      int64_t total = full - want;
      bool lower = ctx.stringAttr("auto_pad", "NOTSET") == "SAME_LOWER";
      w->pads[d] = lower ? total - total / 2 : total / 2;
      w->pads[d + n] = total - w->pads[d];
    }
    shape.push_back(full - w->pads[d] - w->pads[d + n]);
  }
  Builder &b = ctx.builder;
  return SmallVector<Value>{ctx.create<hgraph::ConvTransposeOp>(
      RankedTensorType::get(shape, x.getElementType()), ctx.inputs[0],
      ctx.inputs[1], ctx.input(2), b.getDenseI64ArrayAttr(w->strides),
      b.getDenseI64ArrayAttr(w->pads), b.getDenseI64ArrayAttr(w->dilations),
      b.getDenseI64ArrayAttr(outPad), b.getI64IntegerAttr(group))};
}

template <typename OpTy>
Results poolOf(NodeContext &ctx, Value input, bool countIncludePad);

template <typename OpTy>
Results importPool(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)) || failed(onlyOutputs(ctx, 1)))
    return failure();
  return poolOf<OpTy>(ctx, ctx.inputs[0],
                      ctx.intAttr("count_include_pad", 0) != 0);
}

/// The pooling `OpTy` of `input` with the node's window attributes.
template <typename OpTy>
Results poolOf(NodeContext &ctx, Value input, bool countIncludePad) {
  RankedTensorType x = tensorType(input);
  std::optional<SmallVector<int64_t>> kernel = ctx.intsAttr("kernel_shape");
  if (x.getRank() < 3 || !kernel || int64_t(kernel->size()) != x.getRank() - 2)
    return ctx.error() << "needs kernel_shape with one entry per spatial "
                          "dimension of an N x C x D1 x ... input";
  if (ctx.intAttr("storage_order", 0) != 0)
    return ctx.error() << "storage_order 1 is not supported";
  ArrayRef<int64_t> spatial = x.getShape().drop_front(2);
  FailureOr<Window> w = windowOf(ctx, *kernel, spatial, false);
  if (failed(w))
    return failure();
  bool ceil = ctx.intAttr("ceil_mode", 0) != 0;
  size_t n = spatial.size();
  SmallVector<int64_t> shape{x.getDimSize(0), x.getDimSize(1)};
  for (size_t d = 0; d < n; ++d) {
    int64_t k = (w->kernel[d] - 1) * w->dilations[d] + 1;
    int64_t span = spatial[d] + w->pads[d] + w->pads[d + n] - k;
    int64_t size = (ceil ? (span + w->strides[d] - 1) / w->strides[d]
                         : span / w->strides[d]) +
                   1;
    // A window may not start in the end padding (ceil mode).
    if (ceil && (size - 1) * w->strides[d] >= spatial[d] + w->pads[d])
      --size;
    if (size <= 0)
      return ctx.error() << "the kernel does not fit spatial dimension " << d;
    shape.push_back(size);
  }
  Builder &b = ctx.builder;
  return SmallVector<Value>{ctx.create<OpTy>(
      RankedTensorType::get(shape, x.getElementType()), input,
      b.getDenseI64ArrayAttr(w->kernel), b.getDenseI64ArrayAttr(w->strides),
      b.getDenseI64ArrayAttr(w->pads), b.getDenseI64ArrayAttr(w->dilations),
      b.getBoolAttr(ceil), b.getBoolAttr(countIncludePad))};
}

/// LpPool: (sum of |x|^p over each window)^(1/p), padding counting as
/// zeros: an average pool of |x|^p that counts the padding, times the
/// window size, to the power 1/p.
Results importLpPool(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)) || failed(onlyOutputs(ctx, 1)))
    return failure();
  Value x = ctx.inputs[0];
  Type element = tensorType(x).getElementType();
  if (!isa<FloatType>(element))
    return ctx.error() << "X must be a float tensor, got " << tensorType(x);
  int64_t p = ctx.intAttr("p", 2);
  if (p <= 0)
    return ctx.error() << "p must be positive, got " << p;
  std::optional<SmallVector<int64_t>> kernel = ctx.intsAttr("kernel_shape");
  if (!kernel)
    return ctx.error() << "needs kernel_shape";
  auto scalar = [&](double v) { return scalarConstant(ctx, element, v); };
  Value powered = ctx.create<hgraph::AbsOp>(x);
  if (p != 1)
    powered = ctx.create<hgraph::PowOp>(tensorType(x), powered,
                                        scalar(double(p)));
  Results mean = poolOf<hgraph::AveragePoolOp>(ctx, powered, true);
  if (failed(mean))
    return failure();
  // The window's element count, as the float it scales by (no int64
  // product of attribute values that could overflow).
  double size = 1;
  for (int64_t k : *kernel)
    size *= double(k);
  RankedTensorType type = tensorType((*mean)[0]);
  Value sum = ctx.create<hgraph::MulOp>(type, (*mean)[0], scalar(size));
  if (p == 1)
    return SmallVector<Value>{sum};
  if (p == 2)
    return SmallVector<Value>{ctx.create<hgraph::SqrtOp>(sum)};
  return SmallVector<Value>{
      ctx.create<hgraph::PowOp>(type, sum, scalar(1.0 / double(p)))};
}

/// Resize, following ONNX's reference: `axes` (opset 18) lists the
/// dimensions that `roi`, `scales` and `sizes` describe (the others keep
/// scale 1); with `sizes` the scales are sizes / input sizes, or for
/// `keep_aspect_ratio_policy` not_larger / not_smaller their minimum /
/// maximum over the axes, with sizes rounded half up; with `scales` the
/// sizes are floor(input size * scale). Before opset 11 (and in Upsample)
/// the coordinates are asymmetric and nearest rounds down.
Results importResize(NodeContext &ctx) {
  bool upsample = ctx.node.op_type() == "Upsample";
  bool legacy = upsample || ctx.opset < 11;
  if (failed(expectInputs(ctx, 1, legacy ? 2 : 4)))
    return failure();
  RankedTensorType x = tensorType(ctx.inputs[0]);
  int64_t rank = x.getRank();
  Value roiInput = legacy ? Value() : ctx.input(1);
  Value scalesInput = legacy ? ctx.input(1) : ctx.input(2);
  Value sizesInput = legacy ? Value() : ctx.input(3);

  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (std::optional<SmallVector<int64_t>> given = ctx.intsAttr("axes")) {
    axes.clear();
    for (int64_t a : *given) {
      FailureOr<int64_t> axis = normalizeAxis(ctx, a, rank, "axes entry");
      if (failed(axis))
        return failure();
      if (llvm::is_contained(axes, *axis))
        return ctx.error() << "axes lists dimension " << *axis << " twice";
      axes.push_back(*axis);
    }
  }
  size_t count = axes.size();

  std::optional<SmallVector<double>> given;
  if (scalesInput) {
    given = constantFloats(scalesInput);
    if (!given)
      return ctx.error() << "scales must be a constant (it sets the output's "
                            "shape; hetc needs static shapes)";
  } else if (upsample && ctx.opset < 9) {
    if (const onnx::AttributeProto *a = ctx.attr("scales"))
      given = SmallVector<double>(a->floats().begin(), a->floats().end());
  }
  std::optional<SmallVector<int64_t>> sizes;
  if (sizesInput) {
    sizes = constantInts(sizesInput);
    if (!sizes)
      return ctx.error() << "sizes must be a constant (it sets the output's "
                            "shape; hetc needs static shapes)";
  }
  if (given && given->empty())
    given.reset();
  if (sizes && sizes->empty())
    sizes.reset();
  if (given && sizes)
    return ctx.error() << "give scales or sizes, not both";

  SmallVector<double> scales(rank, 1.0);
  SmallVector<int64_t> shape(x.getShape());
  // A computed dimension, refused (false) when it does not fit in int64.
  auto setDim = [&](int64_t d, double size) {
    if (!(size < 0x1p62))
      return false;
    shape[d] = int64_t(size);
    return true;
  };
  auto tooLarge = [&](int64_t d) {
    return ctx.error() << "scale " << scales[d] << " makes dimension " << d
                       << " of " << x.getDimSize(d)
                       << " too large to represent";
  };
  if (sizes) {
    if (sizes->size() != count)
      return ctx.error() << "sizes needs one entry per resized dimension ("
                         << count << "), got " << sizes->size();
    for (auto [i, d] : llvm::enumerate(axes)) {
      if ((*sizes)[i] <= 0)
        return ctx.error() << "sizes must be positive, got " << (*sizes)[i];
      scales[d] = double((*sizes)[i]) / double(x.getDimSize(d));
      shape[d] = (*sizes)[i];
    }
    std::string policy = ctx.stringAttr("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
      return ctx.error() << "keep_aspect_ratio_policy must be stretch, "
                            "not_larger or not_smaller, got '"
                         << policy << "'";
    if (policy != "stretch") {
      double scale = scales[axes[0]];
      for (int64_t d : axes)
        scale = policy == "not_larger" ? std::min(scale, scales[d])
                                       : std::max(scale, scales[d]);
      for (int64_t d : axes) {
        scales[d] = scale;
        if (!setDim(d, scale * double(x.getDimSize(d)) + 0.5))
          return tooLarge(d);
      }
    }
  } else if (given) {
    if (given->size() != count)
      return ctx.error() << "scales needs one entry per resized dimension ("
                         << count << "), got " << given->size();
    for (auto [i, d] : llvm::enumerate(axes)) {
      // Scales are float32 values; the reference computes in float64.
      double scale = double(float((*given)[i]));
      if (!(scale > 0))
        return ctx.error() << "scales must be positive, got " << scale;
      scales[d] = scale;
      if (!setDim(d, std::floor(double(x.getDimSize(d)) * scale)))
        return tooLarge(d);
    }
  } else {
    return ctx.error() << "needs scales or sizes";
  }
  for (int64_t d = 0; d < rank; ++d)
    if (shape[d] <= 0)
      return ctx.error() << "the output's dimension " << d
                         << " would be empty (input " << x.getDimSize(d)
                         << ", scale " << scales[d] << ")";

  std::string mode = ctx.stringAttr("mode", "nearest");
  std::string ctm =
      legacy ? "asymmetric"
             : ctx.stringAttr("coordinate_transformation_mode", "half_pixel");
  std::string nearest =
      legacy ? "floor" : ctx.stringAttr("nearest_mode", "round_prefer_floor");
  if (!llvm::is_contained({"nearest", "linear", "cubic"}, mode))
    return ctx.error() << "mode must be nearest, linear or cubic, got '"
                       << mode << "'";
  if (!llvm::is_contained({"half_pixel", "half_pixel_symmetric",
                           "pytorch_half_pixel", "align_corners", "asymmetric",
                           "tf_crop_and_resize"},
                          ctm))
    return ctx.error() << "coordinate_transformation_mode '" << ctm
                       << "' is not one of half_pixel, half_pixel_symmetric, "
                          "pytorch_half_pixel, align_corners, asymmetric and "
                          "tf_crop_and_resize";
  if (!llvm::is_contained(
          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
          nearest))
    return ctx.error() << "nearest_mode '" << nearest
                       << "' is not one of round_prefer_floor, "
                          "round_prefer_ceil, floor and ceil";
  bool antialias = ctx.intAttr("antialias", 0) != 0;
  if (antialias && mode == "nearest")
    return ctx.error() << "antialias is not defined for mode 'nearest'";
  Builder &b = ctx.builder;
  DenseF64ArrayAttr roi;
  if (ctm == "tf_crop_and_resize") {
    std::optional<SmallVector<double>> values =
        roiInput ? constantFloats(roiInput) : std::nullopt;
    if (!values)
      return ctx.error() << "tf_crop_and_resize needs roi as a constant";
    if (values->size() != 2 * count)
      return ctx.error() << "roi needs a start and an end per resized "
                            "dimension ("
                         << 2 * count << " values), got " << values->size();
    SmallVector<double> full(rank, 0.0);
    full.append(rank, 1.0);
    for (auto [i, d] : llvm::enumerate(axes)) {
      full[d] = (*values)[i];
      full[rank + d] = (*values)[count + i];
    }
    roi = b.getDenseF64ArrayAttr(full);
  }
  return SmallVector<Value>{ctx.create<hgraph::ResizeOp>(
      RankedTensorType::get(shape, x.getElementType()),
      ctx.inputs[0], b.getDenseF64ArrayAttr(scales), b.getStringAttr(mode),
      b.getStringAttr(ctm), b.getStringAttr(nearest),
      b.getF32FloatAttr(ctx.floatAttr("cubic_coeff_a", -0.75f)),
      b.getBoolAttr(ctx.intAttr("exclude_outside", 0) != 0),
      b.getF32FloatAttr(ctx.floatAttr("extrapolation_value", 0.0f)),
      b.getBoolAttr(antialias), roi)};
}

/// Quantisation operands: block quantisation (opset 21 block_size) is not
/// supported; `axis` is normalised. A per-tensor scale (one element)
/// ignores the axis, as ONNX does, and gets axis 0.
FailureOr<int64_t> quantAxis(NodeContext &ctx, int64_t rank) {
  if (ctx.intAttr("block_size", 0) != 0)
    return ctx.error() << "blocked quantisation (block_size) is not supported";
  if (tensorType(ctx.inputs[1]).getNumElements() == 1)
    return 0;
  return normalizeAxis(ctx, ctx.intAttr("axis", 1), std::max<int64_t>(rank, 1));
}

/// DynamicQuantizeLinear, as its ONNX function body: the range [min(x, 0),
/// max(x, 0)] maps onto uint8; y_scale = range / 255, y_zero_point =
/// saturate(round(-min / y_scale)), y = saturate(round(x / y_scale) +
/// y_zero_point), rounding half to even.
Results importDynamicQuantizeLinear(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  Value x = ctx.inputs[0];
  RankedTensorType type = tensorType(x);
  if (!type.getElementType().isF32())
    return ctx.error() << "x must be float32, got " << type;
  Type f32 = type.getElementType();
  auto scalarType = RankedTensorType::get({}, f32);
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  auto reduceAll = [&](hgraph::ReduceKind kind) -> Value {
    return ctx.create<hgraph::ReduceOp>(
        scalarType, hgraph::ReduceKindAttr::get(ctx.builder.getContext(), kind),
        x, ctx.builder.getDenseI64ArrayAttr(axes), ctx.builder.getBoolAttr(false));
  };
  Value zero = scalarConstant(ctx, f32, 0.0);
  Value low = ctx.create<hgraph::MinOp>(scalarType, reduceAll(hgraph::ReduceKind::min), zero);
  Value high = ctx.create<hgraph::MaxOp>(scalarType, reduceAll(hgraph::ReduceKind::max), zero);
  Value range = ctx.create<hgraph::SubOp>(scalarType, high, low);
  Value top = scalarConstant(ctx, f32, 255.0);
  Value scale = ctx.create<hgraph::DivOp>(scalarType, range, top);
  auto saturate = [&](Value v) -> Value {
    RankedTensorType vt = tensorType(v);
    Value clipped = ctx.create<hgraph::MaxOp>(vt, v, zero);
    return ctx.create<hgraph::MinOp>(vt, clipped, top);
  };
  Value lowScaled = ctx.create<hgraph::DivOp>(scalarType, low, scale);
  Value zeroPointF = saturate(ctx.create<hgraph::RoundOp>(
      ctx.create<hgraph::SubOp>(scalarType, zero, lowScaled)));
  Value scaled = ctx.create<hgraph::RoundOp>(
      ctx.create<hgraph::DivOp>(type, x, scale));
  Value y = saturate(ctx.create<hgraph::AddOp>(type, scaled, zeroPointF));
  Type u8 = IntegerType::get(ctx.builder.getContext(), 8, IntegerType::Unsigned);
  return SmallVector<Value>{castTo(ctx, y, u8), scale, castTo(ctx, zeroPointF, u8)};
}

/// QLinearMatMul (per-tensor scales and zero points), as ONNX's reference
/// computes it: the integer product (a - a_zero_point)(b - b_zero_point)
/// (exact in f32 while its sums stay below 2^24), scaled by a_scale *
/// b_scale / y_scale, rounded half to even, shifted by y_zero_point and
/// saturated to y's type.
Results importQLinearMatMul(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 8, 8)))
    return failure();
  Value a = ctx.inputs[0], b = ctx.inputs[3];
  for (size_t i : {1, 2, 4, 5, 6, 7})
    if (tensorType(ctx.inputs[i]).getNumElements() != 1)
      return ctx.error() << "only per-tensor scales and zero points are "
                            "supported, got input "
                         << i << " of type " << tensorType(ctx.inputs[i]);
  auto yType = dyn_cast<IntegerType>(tensorType(ctx.inputs[7]).getElementType());
  if (!yType || yType.getWidth() != 8)
    return ctx.error() << "y_zero_point must be int8 or uint8, got "
                       << tensorType(ctx.inputs[7]);
  Type f32 = ctx.builder.getF32Type();
  auto scalarType = RankedTensorType::get({}, f32);
  auto scalarOf = [&](Value v) -> Value {
    Value f = castTo(ctx, v, f32);
    return ctx.create<hgraph::ReshapeOp>(scalarType, f);
  };
  auto centred = [&](Value q, Value zeroPoint) -> Value {
    Value f = castTo(ctx, q, f32);
    return ctx.create<hgraph::SubOp>(tensorType(f), f, scalarOf(zeroPoint));
  };
  Value lhs = centred(a, ctx.inputs[2]);
  Value rhs = centred(b, ctx.inputs[5]);
  RankedTensorType lt = tensorType(lhs), rt = tensorType(rhs);
  if (lt.getRank() < 2 || rt.getRank() < 2)
    return ctx.error() << "a and b must have rank 2 or more";
  SmallVector<int64_t> batch;
  if (!OpTrait::util::getBroadcastedShape(lt.getShape().drop_back(2),
                                          rt.getShape().drop_back(2), batch))
    return ctx.error() << "batch dimensions of " << tensorType(a) << " and "
                       << tensorType(b) << " do not broadcast";
  SmallVector<int64_t> shape(batch);
  shape.append({lt.getShape().end()[-2], rt.getShape().back()});
  auto productType = RankedTensorType::get(shape, f32);
  Value product = ctx.create<hgraph::MatMulOp>(productType, lhs, rhs);
  Value aScale = scalarOf(ctx.inputs[1]);
  Value bScale = scalarOf(ctx.inputs[4]);
  Value scales = ctx.create<hgraph::MulOp>(scalarType, aScale, bScale);
  Value factor =
      ctx.create<hgraph::DivOp>(scalarType, scales, scalarOf(ctx.inputs[6]));
  Value rounded = ctx.create<hgraph::RoundOp>(
      ctx.create<hgraph::MulOp>(productType, product, factor));
  Value shifted = ctx.create<hgraph::AddOp>(productType, rounded,
                                            scalarOf(ctx.inputs[7]));
  bool isUnsigned = yType.isUnsigned();
  Value low = scalarConstant(ctx, f32, isUnsigned ? 0.0 : -128.0);
  Value high = scalarConstant(ctx, f32, isUnsigned ? 255.0 : 127.0);
  Value clipped = ctx.create<hgraph::MinOp>(
      productType, ctx.create<hgraph::MaxOp>(productType, shifted, low), high);
  return SmallVector<Value>{castTo(ctx, clipped, yType)};
}

Results importQuantizeLinear(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 3)))
    return failure();
  RankedTensorType x = tensorType(ctx.inputs[0]);
  FailureOr<int64_t> axis = quantAxis(ctx, x.getRank());
  if (failed(axis))
    return failure();
  Type element = IntegerType::get(ctx.builder.getContext(), 8,
                                  IntegerType::Unsigned);
  if (Value z = ctx.input(2))
    element = tensorType(z).getElementType();
  if (const onnx::AttributeProto *a = ctx.attr("output_dtype"))
    if (Type t = elementTypeOf(a->i(), ctx.builder.getContext()))
      element = t;
  // Float results are the 8- and 4-bit floats: x / scale (+ zero point),
  // rounded to the type and saturated.
  bool narrowFloat =
      isa<FloatType>(element) && element.getIntOrFloatBitWidth() <= 8;
  if (!isa<IntegerType>(element) && !narrowFloat)
    return ctx.error() << "quantising to " << element << " is not supported";
  if (narrowFloat && ctx.intAttr("saturate", 1) == 0)
    return ctx.error() << "quantising to " << element
                       << " with saturate=0 is not supported";
  // ONNX requires float8 zero points to be zero, and its reference leaves
  // them out (which keeps -0): the chip does the same, so a constant one
  // that is not zero is refused rather than ignored.
  if (narrowFloat && element.getIntOrFloatBitWidth() == 8)
    if (std::optional<SmallVector<double>> zero = constantFloats(ctx.input(2)))
      if (llvm::any_of(*zero, [](double v) { return v != 0.0; }))
        return ctx.error() << "the zero point of a quantisation to " << element
                           << " must be zero";
  return SmallVector<Value>{ctx.create<hgraph::QuantizeLinearOp>(
      RankedTensorType::get(x.getShape(), element), ctx.inputs[0],
      ctx.inputs[1], ctx.input(2), ctx.builder.getI64IntegerAttr(*axis))};
}

Results importDequantizeLinear(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 3)))
    return failure();
  RankedTensorType x = tensorType(ctx.inputs[0]);
  FailureOr<int64_t> axis = quantAxis(ctx, x.getRank());
  if (failed(axis))
    return failure();
  return SmallVector<Value>{ctx.create<hgraph::DequantizeLinearOp>(
      RankedTensorType::get(x.getShape(),
                            tensorType(ctx.inputs[1]).getElementType()),
      ctx.inputs[0], ctx.inputs[1], ctx.input(2),
      ctx.builder.getI64IntegerAttr(*axis))};
}

Results importMatMulInteger(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 4)))
    return failure();
  ArrayRef<int64_t> a = tensorType(ctx.inputs[0]).getShape();
  ArrayRef<int64_t> b = tensorType(ctx.inputs[1]).getShape();
  if (a.size() != 2 || b.size() != 2 || a[1] != b[0])
    return ctx.error() << "only 2-D operands with matching inner dimensions "
                          "are supported";
  Value za = ctx.input(2), zb = ctx.input(3);
  // The op takes both zero points or neither; a missing one is zero.
  auto zero = [&](Value like) {
    Type element = tensorType(like).getElementType();
    return hgraph::ConstantOp::create(
        ctx.builder, ctx.loc,
        DenseElementsAttr::get(RankedTensorType::get({}, element),
                               APInt(element.getIntOrFloatBitWidth(), 0)));
  };
  if (za || zb) {
    za = za ? za : zero(ctx.inputs[0]);
    zb = zb ? zb : zero(ctx.inputs[1]);
  }
  return SmallVector<Value>{ctx.create<hgraph::MatMulIntegerOp>(
      RankedTensorType::get({a[0], b[1]}, ctx.builder.getI32Type()),
      ctx.inputs[0], ctx.inputs[1], za, zb)};
}

} // namespace

FailureOr<Window> hetc::frontend::windowOf(NodeContext &ctx,
                                           ArrayRef<int64_t> kernel,
                                           ArrayRef<int64_t> in,
                                           bool transposed) {
  size_t n = kernel.size();
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides = ctx.intsAttr("strides").value_or(SmallVector<int64_t>(n, 1));
  w.dilations = ctx.intsAttr("dilations").value_or(SmallVector<int64_t>(n, 1));
  w.pads = ctx.intsAttr("pads").value_or(SmallVector<int64_t>(2 * n, 0));
  if (w.strides.size() != n || w.dilations.size() != n ||
      w.pads.size() != 2 * n)
    return ctx.error() << "strides, dilations and pads must have one entry "
                          "(pads: two) per spatial dimension ("
                       << n << ")";
  // Bounded so that the window arithmetic below cannot overflow: kernels
  // and inputs are bounded by the chip's size limits already.
  constexpr int64_t kLimit = int64_t(1) << 31;
  auto outside = [&](ArrayRef<int64_t> values, int64_t least) {
    return llvm::any_of(values,
                        [&](int64_t v) { return v < least || v >= kLimit; });
  };
  if (outside(w.strides, 1) || outside(w.dilations, 1) || outside(w.pads, 0) ||
      outside(w.kernel, 1))
    return ctx.error() << "strides and dilations must be in [1, 2^31), pads "
                          "in [0, 2^31) and kernel sizes at least 1";
  std::string autoPad = ctx.stringAttr("auto_pad", "NOTSET");
  if (autoPad == "NOTSET" || autoPad == "VALID") {
    if (autoPad == "VALID")
      w.pads.assign(2 * n, 0);
    return w;
  }
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return ctx.error() << "auto_pad '" << autoPad << "' is not supported";
  for (size_t d = 0; d < n; ++d) {
    int64_t k = (w.kernel[d] - 1) * w.dilations[d] + 1;
    int64_t total;
    if (transposed) {
      total = std::max<int64_t>(0, w.strides[d] * (in[d] - 1) + k -
                                       in[d] * w.strides[d]);
    } else {
      int64_t out = (in[d] + w.strides[d] - 1) / w.strides[d];
      total = std::max<int64_t>(0, (out - 1) * w.strides[d] + k - in[d]);
    }
    int64_t small = total / 2, large = total - small;
    bool upper = autoPad == "SAME_UPPER";
    w.pads[d] = upper ? small : large;
    w.pads[d + n] = upper ? large : small;
  }
  return w;
}

FailureOr<SmallVector<int64_t>>
hetc::frontend::convOutputSizes(NodeContext &ctx, const Window &w,
                                ArrayRef<int64_t> spatial) {
  SmallVector<int64_t> sizes;
  size_t n = spatial.size();
  for (size_t d = 0; d < n; ++d) {
    int64_t k = (w.kernel[d] - 1) * w.dilations[d] + 1;
    int64_t size =
        (spatial[d] + w.pads[d] + w.pads[d + n] - k) / w.strides[d] + 1;
    if (size <= 0)
      return ctx.error() << "the kernel does not fit spatial dimension " << d;
    sizes.push_back(size);
  }
  return sizes;
}

void hetc::frontend::addNNRules(llvm::StringMap<ImportRule> &rules) {
  rules.insert({
      {"LayerNormalization", importNorm<hgraph::LayerNormOp>},
      {"RMSNormalization", importNorm<hgraph::RMSNormOp>},
      {"BatchNormalization", importBatchNorm},
      {"Conv", importConv},
      {"ConvTranspose", importConvTranspose},
      {"MaxPool", importPool<hgraph::MaxPoolOp>},
      {"AveragePool", importPool<hgraph::AveragePoolOp>},
      {"LpPool", importLpPool},
      {"Resize", importResize},
      {"Upsample", importResize},
      {"QuantizeLinear", importQuantizeLinear},
      {"DynamicQuantizeLinear", importDynamicQuantizeLinear},
      {"QLinearMatMul", importQLinearMatMul},
      {"DequantizeLinear", importDequantizeLinear},
      {"MatMulInteger", importMatMulInteger},
  });
}
