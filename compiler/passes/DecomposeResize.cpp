//===- DecomposeResize.cpp - Resize as products with constant matrices ===//
//
// The pattern of `hetc-hgraph-decompose` for `hgraph.resize`. ONNX's
// resampling is separable: each output coordinate along a dimension is a
// weighted sum of a few input coordinates along it, with weights that
// depend only on the coordinates. So each resampled dimension becomes a
// product with a constant [in, out] matrix (on the chip's matrix units),
// plus a constant row where tf_crop_and_resize extrapolates. The weights
// follow ONNX's reference implementation: the coordinate transformation,
// the coefficients of the mode (antialiased ones stretched by the scale),
// the n nearest input coordinates with edge clamping, and exclude_outside
// renormalisation.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/DecomposePatterns.h"

#include "compiler/passes/AxisProduct.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/IR/PatternMatch.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

namespace {

/// The resampling of one dimension: output x reads sum_i weights[i][x] *
/// input[i], plus bias[x].
struct AxisMap {
  int64_t in, out;
  std::vector<double> weights; // [in][out], row-major
  std::vector<double> bias;    // [out]
};

/// The cubic convolution kernel with parameter a at distance x.
double cubicKernel(double x, double a) {
  x = std::abs(x);
  if (x <= 1)
    return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2)
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

/// The coefficients of the neighbours around a coordinate with fractional
/// part `ratio` (1 when the coordinate is an integer).
std::vector<double> coefficients(ResizeOp op, double ratio, double scale) {
  StringRef mode = op.getMode();
  if (mode == "nearest") {
    StringRef rounding = op.getNearestMode();
    if (ratio == 1.0 || rounding == "ceil")
      return {0, 1};
    if (rounding == "floor")
      return {1, 0};
    bool up = rounding == "round_prefer_floor" ? ratio > 0.5 : ratio >= 0.5;
    return {up ? 0.0 : 1.0, up ? 1.0 : 0.0};
  }
  double a = op.getCubicCoeffA().convertToDouble();
  if (!op.getAntialias()) {
    if (mode == "linear")
      return {1 - ratio, ratio};
    return {cubicKernel(ratio + 1, a), cubicKernel(ratio, a),
            cubicKernel(1 - ratio, a), cubicKernel(2 - ratio, a)};
  }
  // Antialiased: the kernel is stretched by 1/scale when downsampling.
  scale = std::min(scale, 1.0);
  double reach = mode == "linear" ? 1.0 : 2.0;
  int64_t start = int64_t(std::floor(-reach / scale) + 1);
  int64_t end = mode == "linear" ? 1 - start + 1 : 2 - start;
  std::vector<double> c;
  double sum = 0;
  for (int64_t i = start; i < end; ++i) {
    double arg = scale * (double(i) - ratio);
    double v = mode == "linear" ? std::clamp(1 - std::abs(arg), 0.0, 1.0)
                                : cubicKernel(arg, a);
    c.push_back(v);
    sum += v;
  }
  for (double &v : c)
    v /= sum;
  return c;
}

/// The input coordinate output `x` maps to; nullopt where
/// tf_crop_and_resize falls outside the input.
std::optional<double> sourceCoordinate(ResizeOp op, int64_t d, int64_t x,
                                       int64_t in, int64_t out) {
  double scale = op.getScales()[d];
  double width = scale * double(in);
  StringRef ctm = op.getCoordinateTransformationMode();
  if (ctm == "align_corners")
    return width == 1 ? 0.0 : double(x) * double(in - 1) / (width - 1);
  if (ctm == "asymmetric")
    return double(x) / scale;
  if (ctm == "pytorch_half_pixel")
    return width == 1 ? -0.5 : (double(x) + 0.5) / scale - 0.5;
  if (ctm == "half_pixel_symmetric") {
    double adjustment = double(out) / width;
    double center = double(in) / 2;
    return center * (1 - adjustment) + (double(x) + 0.5) / scale - 0.5;
  }
  if (ctm == "tf_crop_and_resize") {
    ArrayRef<double> roi = *op.getRoi();
    int64_t rank = int64_t(op.getScales().size());
    double start = roi[d], end = roi[rank + d];
    double source = width == 1
                        ? (end - start) * double(in - 1) / 2
                        : double(x) * (end - start) * double(in - 1) /
                              (width - 1);
    source += start * double(in - 1);
    if (source < 0 || source > double(in - 1))
      return std::nullopt;
    return source;
  }
  return (double(x) + 0.5) / scale - 0.5; // half_pixel
}

AxisMap axisMap(ResizeOp op, int64_t d) {
  AxisMap map;
  map.in = op.getInput().getType().getDimSize(d);
  map.out = op.getType().getDimSize(d);
  map.weights.assign(map.in * map.out, 0.0);
  map.bias.assign(map.out, 0.0);
  double scale = op.getScales()[d];
  for (int64_t x = 0; x < map.out; ++x) {
    std::optional<double> source = sourceCoordinate(op, d, x, map.in, map.out);
    if (!source) {
      map.bias[x] = op.getExtrapolationValue().convertToDouble();
      continue;
    }
    double floor = std::floor(*source);
    double ratio = *source == floor ? 1.0 : *source - floor;
    std::vector<double> c = coefficients(op, ratio, scale);
    int64_t n = int64_t(c.size());
    // The n coordinates nearest to the source (ties to the lower one), in
    // the input padded by ceil(n / 2) edge copies on each side. They lie
    // within n + 1 of floor(source), so only those are candidates.
    int64_t pad = (n + 1) / 2;
    int64_t base = int64_t(floor);
    std::vector<int64_t> near;
    for (int64_t i = std::max(-pad, base - n - 1);
         i <= std::min(map.in + pad - 1, base + n + 1); ++i)
      near.push_back(i);
    std::stable_sort(near.begin(), near.end(), [&](int64_t a, int64_t b) {
      return std::abs(*source - double(a)) < std::abs(*source - double(b));
    });
    near.resize(std::min<size_t>(near.size(), size_t(n)));
    std::sort(near.begin(), near.end());
    if (op.getExcludeOutside()) {
      double sum = 0;
      for (auto [i, index] : llvm::enumerate(near)) {
        if (index < 0 || index >= map.in)
          c[i] = 0;
        sum += c[i];
      }
      for (double &v : c)
        v /= sum;
    }
    for (auto [i, index] : llvm::enumerate(near)) {
      int64_t clamped = std::clamp<int64_t>(index, 0, map.in - 1);
      map.weights[clamped * map.out + x] += c[i];
    }
  }
  return map;
}

/// Whether resampling dimension `d` leaves it unchanged.
bool isIdentity(ResizeOp op, int64_t d) {
  if (op.getScales()[d] != 1.0 ||
      op.getInput().getType().getDimSize(d) != op.getType().getDimSize(d))
    return false;
  if (op.getCoordinateTransformationMode() != "tf_crop_and_resize")
    return true;
  // A crop of the whole dimension.
  ArrayRef<double> roi = *op.getRoi();
  return roi[d] == 0.0 && roi[op.getScales().size() + d] == 1.0;
}

struct DecomposeResize : OpRewritePattern<ResizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ResizeOp op,
                                PatternRewriter &rewriter) const override {
    auto element = dyn_cast<FloatType>(op.getType().getElementType());
    if (!element)
      return op.emitOpError("resizes float tensors only on the chip, got ")
             << op.getType().getElementType();
    Location loc = op.getLoc();
    Value x = op.getInput();
    int64_t rank = op.getType().getRank();
    for (int64_t d = 0; d < rank; ++d) {
      if (isIdentity(op, d))
        continue;
      AxisMap map = axisMap(op, d);
      x = multiplyAlongAxis(rewriter, loc, x, d, map.weights, map.out,
                            map.bias);
    }
    rewriter.replaceOp(op, x);
    return success();
  }
};

} // namespace

void hetc::populateDecomposeResizePatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeResize>(patterns.getContext());
}
