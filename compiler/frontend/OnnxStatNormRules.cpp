//===- OnnxStatNormRules.cpp - Normalisations by the input's own stats -===//
//
// InstanceNormalization, GroupNormalization and MeanVarianceNormalization
// normalise by a mean and variance computed from the input over some of its
// dimensions, as reductions and elementwise ops in the order of ONNX's
// definitions; LRN by the sum of squares over a window of channels, as
// shifted slices of the zero-padded squares.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

/// The mean of `x` over `axes`, kept as unit dimensions.
Value meanOver(NodeContext &ctx, Value x, ArrayRef<int64_t> axes) {
  RankedTensorType type = tensorType(x);
  SmallVector<int64_t> kept(type.getShape());
  for (int64_t a : axes)
    kept[a] = 1;
  return ctx.create<hgraph::ReduceOp>(
      RankedTensorType::get(kept, type.getElementType()),
      hgraph::ReduceKindAttr::get(ctx.builder.getContext(),
                                  hgraph::ReduceKind::mean),
      x, ctx.builder.getDenseI64ArrayAttr(axes), ctx.builder.getBoolAttr(true));
}

/// (x - mean) / sqrt(var + epsilon) over `axes` (population variance).
Value standardise(NodeContext &ctx, Value x, ArrayRef<int64_t> axes,
                  double epsilon) {
  RankedTensorType type = tensorType(x);
  Value mean = meanOver(ctx, x, axes);
  Value centred = ctx.create<hgraph::SubOp>(type, x, mean);
  Value var = meanOver(ctx, ctx.create<hgraph::MulOp>(type, centred, centred),
                       axes);
  Value eps = scalarConstant(ctx, type.getElementType(), epsilon);
  Value deviation = ctx.create<hgraph::SqrtOp>(
      ctx.create<hgraph::AddOp>(tensorType(var), var, eps));
  return ctx.create<hgraph::DivOp>(type, centred, deviation);
}

/// `v` [C] shaped [C, 1, ...] to broadcast along dimension 1 of rank `rank`.
Value perChannel(NodeContext &ctx, Value v, int64_t rank) {
  RankedTensorType type = tensorType(v);
  SmallVector<int64_t> shape(std::max<int64_t>(rank - 1, 1), 1);
  shape[0] = type.getNumElements();
  return ctx.create<hgraph::ReshapeOp>(
      RankedTensorType::get(shape, type.getElementType()), v);
}

/// normed * scale + bias, both [C] per channel (dimension 1).
Value scaleAndShift(NodeContext &ctx, Value normed, Value scale, Value bias) {
  RankedTensorType type = tensorType(normed);
  int64_t rank = type.getRank();
  Value scaled =
      ctx.create<hgraph::MulOp>(type, normed, perChannel(ctx, scale, rank));
  return ctx.create<hgraph::AddOp>(type, scaled, perChannel(ctx, bias, rank));
}

LogicalResult checkFloatInput(NodeContext &ctx, int64_t minRank) {
  RankedTensorType type = tensorType(ctx.inputs[0]);
  if (!isa<FloatType>(type.getElementType()) || type.getRank() < minRank)
    return ctx.error() << "X must be a float tensor of rank " << minRank
                       << " or more, got " << type;
  return success();
}

/// InstanceNormalization: per sample and channel over the spatial
/// dimensions, then scale and bias per channel.
Results importInstanceNorm(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 3, 3)) || failed(checkFloatInput(ctx, 3)))
    return failure();
  Value x = ctx.inputs[0];
  RankedTensorType type = tensorType(x);
  int64_t rank = type.getRank(), channels = type.getDimSize(1);
  for (Value p : {ctx.inputs[1], ctx.inputs[2]})
    if (tensorType(p).getNumElements() != channels)
      return ctx.error() << "scale and B must hold one value per channel ("
                         << channels << "), got " << tensorType(p);
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(2, rank));
  Value normed = standardise(ctx, x, axes, ctx.floatAttr("epsilon", 1e-5f));
  return SmallVector<Value>{
      scaleAndShift(ctx, normed, ctx.inputs[1], ctx.inputs[2])};
}

/// GroupNormalization: the channels split into num_groups groups, each
/// normalised over its channels and the spatial dimensions; scale and bias
/// are per channel (opset 21) or per group (opset 18).
Results importGroupNorm(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 3, 3)) || failed(checkFloatInput(ctx, 2)))
    return failure();
  Value x = ctx.inputs[0];
  RankedTensorType type = tensorType(x);
  int64_t batch = type.getDimSize(0),
          channels = type.getDimSize(1);
  int64_t groups = ctx.intAttr("num_groups", 0);
  if (groups <= 0 || channels % groups != 0)
    return ctx.error() << "num_groups " << groups
                       << " must be positive and divide the " << channels
                       << " channels";
  int64_t perGroup = type.getNumElements() / (batch * groups);
  int64_t given = tensorType(ctx.inputs[1]).getNumElements();
  if ((given != channels && given != groups) ||
      tensorType(ctx.inputs[2]).getNumElements() != given)
    return ctx.error() << "scale and bias must hold one value per channel ("
                       << channels << ") or per group (" << groups << ")";
  Type element = type.getElementType();
  auto groupedType = RankedTensorType::get({batch, groups, perGroup}, element);
  Value grouped = ctx.create<hgraph::ReshapeOp>(groupedType, x);
  Value normed = standardise(ctx, grouped, {2},
                             ctx.floatAttr("epsilon", 1e-5f));
  if (given == groups && groups != channels) {
    Value s = ctx.create<hgraph::ReshapeOp>(
        RankedTensorType::get({groups, 1}, element), ctx.inputs[1]);
    Value b = ctx.create<hgraph::ReshapeOp>(
        RankedTensorType::get({groups, 1}, element), ctx.inputs[2]);
    normed = ctx.create<hgraph::AddOp>(
        groupedType, ctx.create<hgraph::MulOp>(groupedType, normed, s), b);
    return SmallVector<Value>{ctx.create<hgraph::ReshapeOp>(type, normed)};
  }
  Value back = ctx.create<hgraph::ReshapeOp>(type, normed);
  return SmallVector<Value>{
      scaleAndShift(ctx, back, ctx.inputs[1], ctx.inputs[2])};
}

/// MeanVarianceNormalization, as its ONNX function body: (x - E[x]) /
/// (sqrt(E[x^2] - E[x]^2) + 1e-9) over `axes` (default 0, 2, 3).
Results importMeanVarianceNorm(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)) || failed(checkFloatInput(ctx, 1)))
    return failure();
  Value x = ctx.inputs[0];
  RankedTensorType type = tensorType(x);
  SmallVector<int64_t> given =
      ctx.intsAttr("axes").value_or(SmallVector<int64_t>{0, 2, 3});
  SmallVector<int64_t> axes;
  for (int64_t a : given) {
    FailureOr<int64_t> axis = normalizeAxis(ctx, a, type.getRank(), "axes entry");
    if (failed(axis))
      return failure();
    if (!llvm::is_contained(axes, *axis))
      axes.push_back(*axis);
  }
  llvm::sort(axes);
  Value mean = meanOver(ctx, x, axes);
  Value meanSquare =
      meanOver(ctx, ctx.create<hgraph::MulOp>(type, x, x), axes);
  RankedTensorType kept = tensorType(mean);
  Value variance = ctx.create<hgraph::SubOp>(
      kept, meanSquare, ctx.create<hgraph::MulOp>(kept, mean, mean));
  Value root = ctx.create<hgraph::SqrtOp>(variance);
  Value tiny = scalarConstant(ctx, type.getElementType(), 1e-9);
  Value deviation = ctx.create<hgraph::AddOp>(kept, root, tiny);
  return SmallVector<Value>{ctx.create<hgraph::DivOp>(
      type, ctx.create<hgraph::SubOp>(type, x, mean), deviation)};
}

/// LRN: y = x / (bias + alpha / size * sum of x^2 over the channels
/// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)])^beta.
Results importLrn(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  Value x = ctx.inputs[0];
  RankedTensorType type = tensorType(x);
  if (type.getRank() < 3)
    return ctx.error() << "input must be [N, C, D1, ...], got " << type;
  if (!isa<FloatType>(type.getElementType()))
    return ctx.error() << "input must hold floats, got " << type;
  int64_t size = ctx.intAttr("size", 0);
  int64_t channels = type.getDimSize(1);
  if (size < 1 || size > 2 * channels + 1)
    return ctx.error() << "size must be in [1, " << 2 * channels + 1
                       << "] for " << channels << " channels, got " << size;
  double alpha = ctx.floatAttr("alpha", 1e-4f);
  double beta = ctx.floatAttr("beta", 0.75f);
  double bias = ctx.floatAttr("bias", 1.0f);
  Type element = type.getElementType();
  Value square = ctx.create<hgraph::MulOp>(type, x, x);
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  int64_t rank = type.getRank();
  SmallVector<int64_t> pads(2 * rank, 0), padded(type.getShape());
  pads[1] = before;
  pads[rank + 1] = after;
  padded[1] += before + after;
  Value wide = ctx.create<hgraph::PadOp>(
      RankedTensorType::get(padded, element), square,
      scalarConstant(ctx, element, 0.0), ctx.builder.getDenseI64ArrayAttr(pads),
      ctx.builder.getStringAttr("constant"));
  Value sum;
  for (int64_t k = 0; k < size; ++k) {
    SmallVector<int64_t> starts(rank, 0), steps(rank, 1);
    starts[1] = k;
    Value window = ctx.create<hgraph::SliceOp>(
        type, wide, ctx.builder.getDenseI64ArrayAttr(starts),
        ctx.builder.getDenseI64ArrayAttr(steps));
    sum = sum ? ctx.create<hgraph::AddOp>(type, sum, window) : window;
  }
  Value scaled = ctx.create<hgraph::MulOp>(
      type, sum, scalarConstant(ctx, element, alpha / double(size)));
  Value base =
      ctx.create<hgraph::AddOp>(type, scaled, scalarConstant(ctx, element, bias));
  Value denominator = ctx.create<hgraph::PowOp>(
      type, base, scalarConstant(ctx, element, beta));
  return SmallVector<Value>{ctx.create<hgraph::DivOp>(type, x, denominator)};
}

} // namespace

void hetc::frontend::addStatNormRules(llvm::StringMap<ImportRule> &rules) {
  rules.insert({
      {"LRN", importLrn},
      {"InstanceNormalization", importInstanceNorm},
      {"GroupNormalization", importGroupNorm},
      {"MeanVarianceNormalization", importMeanVarianceNorm},
  });
}
