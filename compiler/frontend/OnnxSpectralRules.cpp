//===- OnnxSpectralRules.cpp - DFT as a matmul by twiddle factors ------===//
//
// DFT of a signal of length N is a product by the N x K matrix of
// e^(-2 pi i k n / N) (e^(+...) / N inverse): the signal axis is moved
// innermost, the real (and imaginary) parts are multiplied by one constant
// matrix whose columns alternate the real and imaginary part of each
// frequency, so that the product is the [.., K, 2] complex output
// directly, and the axis is moved back. A one-sided transform keeps
// K = N / 2 + 1 frequencies; its inverse (irfft) takes them and gives the
// real signal, each frequency but the first (and, N even, the last)
// counted twice, as numpy.fft.irfft does. The matrix is computed in double
// and rounded once to the element type, as Resize's interpolation weights.
// STFT gathers the signal's frames (constant indices), multiplies them by
// the window and transforms each the same way.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

/// The largest twiddle matrix (in elements) the importer builds.
constexpr int64_t kMaxTwiddleElements = int64_t(1) << 24;

/// An optional scalar integer input (`name`) that must be a constant, or
/// `fallback` when absent.
FailureOr<int64_t> scalarInput(NodeContext &ctx, size_t i, StringRef name,
                               int64_t fallback) {
  Value v = ctx.input(i);
  if (!v)
    return fallback;
  std::optional<SmallVector<int64_t>> ints = constantInts(v);
  if (!ints || ints->size() != 1)
    return ctx.error() << "input '" << name
                       << "' must be a constant scalar (an initializer, "
                          "Constant node or a value given with "
                          "--input-value); hetc needs static shapes";
  return (*ints)[0];
}

Value moveAxis(NodeContext &ctx, Value v, int64_t from, int64_t to) {
  if (from == to)
    return v;
  RankedTensorType type = tensorType(v);
  SmallVector<int64_t> order;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != from)
      order.push_back(d);
  order.insert(order.begin() + to, from);
  SmallVector<int64_t> shape;
  for (int64_t d : order)
    shape.push_back(type.getDimSize(d));
  return ctx.create<hgraph::TransposeOp>(
      RankedTensorType::get(shape, type.getElementType()), v,
      ctx.builder.getDenseI64ArrayAttr(order));
}

FailureOr<Value> transform(NodeContext &ctx, Value x, int64_t signalAxis,
                           int64_t n, bool inverse, bool onesided);

Results importDft(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 3)))
    return failure();
  Value x = ctx.inputs[0];
  RankedTensorType type = tensorType(x);
  Type element = type.getElementType();
  int64_t rank = type.getRank();
  if (!isa<FloatType>(element) || rank < 2 ||
      (type.getShape().back() != 1 && type.getShape().back() != 2))
    return ctx.error() << "input must be floats of shape [.., N, 1] (real) "
                          "or [.., N, 2] (complex), got "
                       << type;
  bool inverse = ctx.intAttr("inverse", 0) != 0;
  bool onesided = ctx.intAttr("onesided", 0) != 0;
  FailureOr<int64_t> axis =
      ctx.opset >= 20 ? scalarInput(ctx, 2, "axis", -2)
                      : FailureOr<int64_t>(ctx.intAttr("axis", 1));
  if (failed(axis))
    return failure();
  // The axis counts the complex dimension in the rank, which it may not
  // name.
  if (*axis < -rank || *axis >= rank - 1 || *axis == -1)
    return ctx.error() << "axis " << *axis << " is not a signal axis of "
                       << type;
  int64_t signalAxis = *axis < 0 ? *axis + rank : *axis;
  int64_t given = type.getDimSize(signalAxis);
  bool irfft = inverse && onesided;
  FailureOr<int64_t> length =
      scalarInput(ctx, 1, "dft_length", irfft ? 2 * (given - 1) : given);
  if (failed(length))
    return failure();
  FailureOr<Value> out =
      transform(ctx, x, signalAxis, *length, inverse, onesided);
  if (failed(out))
    return failure();
  return SmallVector<Value>{*out};
}

/// The DFT of length `n` of `x` ([.., 1 or 2] real or complex) along
/// `signalAxis`, as the file comment says.
FailureOr<Value> transform(NodeContext &ctx, Value x, int64_t signalAxis,
                           int64_t n, bool inverse, bool onesided) {
  RankedTensorType type = tensorType(x);
  Type element = type.getElementType();
  int64_t rank = type.getRank();
  bool complexIn = type.getShape().back() == 2;
  int64_t given = type.getDimSize(signalAxis);
  bool irfft = inverse && onesided;
  if (onesided && !inverse && complexIn)
    return ctx.error() << "onesided applies to a real input, got " << type;
  if (irfft && !complexIn)
    return ctx.error() << "an inverse one-sided DFT takes a complex input, "
                          "got "
                       << type;
  if (n < 1 || n > (int64_t(1) << 20))
    return ctx.error() << "dft_length " << n << " is not in [1, 2^20]";
  // Input samples the transform reads and frequencies it gives.
  int64_t reads = irfft ? std::min(given, n / 2 + 1) : std::min(given, n);
  int64_t frequencies = irfft ? n : onesided ? n / 2 + 1 : n;
  int64_t parts = complexIn ? 2 : 1, outParts = irfft ? 1 : 2;
  if (reads * parts * frequencies * outParts > kMaxTwiddleElements)
    return ctx.error() << "its twiddle matrix of " << reads * parts << " x "
                       << frequencies * outParts << " exceeds "
                       << kMaxTwiddleElements << " elements";

  // [rest.., N, parts] with the signal innermost but one, then the first
  // `reads` samples as rows of reads * parts.
  Value v = moveAxis(ctx, x, signalAxis, rank - 2);
  SmallVector<int64_t> moved(tensorType(v).getShape());
  if (reads < given) {
    SmallVector<int64_t> starts(rank, 0), steps(rank, 1), shape(moved);
    shape[rank - 2] = reads;
    v = ctx.create<hgraph::SliceOp>(RankedTensorType::get(shape, element), v,
                                    ctx.builder.getDenseI64ArrayAttr(starts),
                                    ctx.builder.getDenseI64ArrayAttr(steps));
  }
  int64_t rows = 1;
  for (int64_t d = 0; d < rank - 2; ++d)
    rows *= moved[d];
  v = ctx.create<hgraph::ReshapeOp>(
      RankedTensorType::get({rows, reads * parts}, element), v);

  // Row (sample m, part p) by column (frequency k, part q).
  SmallVector<double> w(size_t(reads * parts * frequencies * outParts), 0.0);
  double sign = inverse ? 1.0 : -1.0;
  double scale = inverse ? 1.0 / double(n) : 1.0;
  for (int64_t m = 0; m < reads; ++m)
    for (int64_t k = 0; k < frequencies; ++k) {
      // irfft: the output sample is k, the input frequency m.
      int64_t product = (m * k) % n;
      double angle = 2.0 * M_PI * double(product) / double(n);
      double c = std::cos(angle) * scale, s = sign * std::sin(angle) * scale;
      if (irfft) {
        // Frequencies other than 0 and N / 2 stand for their mirror too.
        double twice = (m == 0 || 2 * m == n) ? 1.0 : 2.0;
        w[size_t((m * 2 + 0) * frequencies + k)] = twice * c;
        w[size_t((m * 2 + 1) * frequencies + k)] = -twice * s;
        continue;
      }
      int64_t cols = frequencies * 2;
      // (a + ib)(c + is) = (ac - bs) + i(as + bc)
      w[size_t((m * parts) * cols + 2 * k)] = c;
      w[size_t((m * parts) * cols + 2 * k + 1)] = s;
      if (complexIn) {
        w[size_t((m * parts + 1) * cols + 2 * k)] = -s;
        w[size_t((m * parts + 1) * cols + 2 * k + 1)] = c;
      }
    }
  auto floatType = cast<FloatType>(element);
  SmallVector<APFloat> values;
  values.reserve(w.size());
  for (double d : w) {
    APFloat f(d);
    bool inexact;
    f.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &inexact);
    values.push_back(f);
  }
  auto weightType =
      RankedTensorType::get({reads * parts, frequencies * outParts}, element);
  Value weight = hgraph::ConstantOp::create(
      ctx.builder, ctx.loc, DenseElementsAttr::get(weightType, values));
  Value product = hgraph::MatMulOp::create(
      ctx.builder, ctx.loc,
      RankedTensorType::get({rows, frequencies * outParts}, element), v,
      weight);
  SmallVector<int64_t> shape(moved);
  shape[rank - 2] = frequencies;
  shape[rank - 1] = outParts;
  Value out = ctx.create<hgraph::ReshapeOp>(
      RankedTensorType::get(shape, element), product);
  return moveAxis(ctx, out, rank - 2, signalAxis);
}

/// STFT: frames of `frame_length` samples every `frame_step`, times the
/// window, each transformed (one-sided by default): [batch, frames, bins,
/// 2]. The frames are a constant-index gather of the signal.
Results importStft(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 4)))
    return failure();
  Value signal = ctx.inputs[0], window = ctx.input(2);
  RankedTensorType type = tensorType(signal);
  Type element = type.getElementType();
  if (!isa<FloatType>(element) || type.getRank() != 3 ||
      (type.getDimSize(2) != 1 && type.getDimSize(2) != 2))
    return ctx.error() << "signal must be floats of shape [batch, length, 1] "
                          "or [batch, length, 2], got "
                       << type;
  FailureOr<int64_t> step = scalarInput(ctx, 1, "frame_step", 0);
  if (failed(step))
    return failure();
  int64_t fallback = window ? tensorType(window).getNumElements() : 0;
  FailureOr<int64_t> length = scalarInput(ctx, 3, "frame_length", fallback);
  if (failed(length))
    return failure();
  int64_t samples = type.getDimSize(1);
  if (*step < 1 || *length < 1 || *length > samples)
    return ctx.error() << "frame_step (" << *step << ") must be positive and "
                       << "frame_length (" << *length << ") in [1, " << samples
                       << "], the signal's length";
  if (window && (tensorType(window).getRank() != 1 ||
                 tensorType(window).getDimSize(0) != *length))
    return ctx.error() << "window must be [" << *length << "], got "
                       << tensorType(window);
  int64_t frames = (samples - *length) / *step + 1;
  if (frames * *length > kMaxTwiddleElements)
    return ctx.error() << "its " << frames << " frames of " << *length
                       << " samples exceed " << kMaxTwiddleElements
                       << " elements";
  SmallVector<int64_t> picks;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < *length; ++j)
      picks.push_back(f * *step + j);
  Value indices = hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(
          RankedTensorType::get({frames, *length}, ctx.builder.getI64Type()),
          ArrayRef<int64_t>(picks)));
  int64_t batch = type.getDimSize(0), parts = type.getDimSize(2);
  auto framesType =
      RankedTensorType::get({batch, frames, *length, parts}, element);
  Value framed = ctx.create<hgraph::GatherOp>(
      framesType, signal, indices, ctx.builder.getI64IntegerAttr(1));
  if (window) {
    Value column = ctx.create<hgraph::ReshapeOp>(
        RankedTensorType::get({*length, 1}, element), window);
    framed = ctx.create<hgraph::MulOp>(framesType, framed, column);
  }
  FailureOr<Value> out = transform(ctx, framed, 2, *length, /*inverse=*/false,
                                   ctx.intAttr("onesided", 1) != 0);
  if (failed(out))
    return failure();
  return SmallVector<Value>{*out};
}

} // namespace

void hetc::frontend::addSpectralRules(llvm::StringMap<ImportRule> &rules) {
  rules["DFT"] = importDft;
  rules["STFT"] = importStft;
}
