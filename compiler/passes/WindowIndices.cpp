//===- WindowIndices.cpp - Index maps of sliding-window ops -----------===//

#include "compiler/passes/WindowIndices.h"

using namespace hetc;
using namespace hetc::gather;

namespace {

int64_t product(Shape dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// Calls `fn(outPos, k, inSpatial, inside, insidePadded)` for every output
/// position (row-major over `out`'s spatial dimensions) and kernel element
/// k; `inSpatial` is the flat spatial index in the input when `inside`.
template <typename Fn>
void forEachWindowElement(Shape in, const Window &w, Shape out, Fn fn) {
  size_t dims = w.kernel.size();
  Shape inSp = in.drop_front(2), outSp = out.drop_front(2);
  int64_t positions = product(outSp), kernel = product(w.kernel);
  llvm::SmallVector<int64_t> o(dims), k(dims);
  for (int64_t p = 0; p < positions; ++p) {
    for (int64_t rest = p, d = int64_t(dims) - 1; d >= 0; --d) {
      o[d] = rest % outSp[d];
      rest /= outSp[d];
    }
    for (int64_t e = 0; e < kernel; ++e) {
      for (int64_t rest = e, d = int64_t(dims) - 1; d >= 0; --d) {
        k[d] = rest % w.kernel[d];
        rest /= w.kernel[d];
      }
      bool inside = true, padded = true;
      int64_t flat = 0;
      for (size_t d = 0; d < dims; ++d) {
        int64_t x = o[d] * w.strides[d] - w.pads[d] + k[d] * w.dilations[d];
        inside &= x >= 0 && x < inSp[d];
        padded &= x >= -w.pads[d] && x < inSp[d] + w.pads[d + dims];
        flat = flat * inSp[d] + x;
      }
      fn(p, e, flat, inside, padded);
    }
  }
}

} // namespace

Indices hetc::gather::poolWindows(Shape in, const Window &w, Shape out,
                                  int64_t fill) {
  int64_t planes = in[0] * in[1], inPlane = product(in.drop_front(2));
  int64_t positions = product(out.drop_front(2)), kernel = product(w.kernel);
  Indices plane(positions * kernel);
  forEachWindowElement(in, w, out,
                       [&](int64_t p, int64_t e, int64_t flat, bool inside,
                           bool) { plane[p * kernel + e] = inside ? flat : -1; });
  Indices result;
  result.reserve(planes * plane.size());
  for (int64_t c = 0; c < planes; ++c)
    for (int64_t i : plane)
      result.push_back(i < 0 ? fill : c * inPlane + i);
  return result;
}

std::vector<float> hetc::gather::windowCounts(Shape in, const Window &w,
                                              Shape out, bool includePad) {
  std::vector<float> counts(product(out.drop_front(2)), 0.0f);
  forEachWindowElement(in, w, out,
                       [&](int64_t p, int64_t, int64_t, bool inside,
                           bool padded) {
                         if (includePad ? padded : inside)
                           counts[p] += 1.0f;
                       });
  return counts;
}

Indices hetc::gather::convColumns(Shape in, const Window &w, Shape out,
                                  int64_t n, int64_t c0, int64_t channels) {
  int64_t inPlane = product(in.drop_front(2));
  int64_t positions = product(out.drop_front(2)), kernel = product(w.kernel);
  Indices plane(kernel * positions);
  forEachWindowElement(in, w, out,
                       [&](int64_t p, int64_t e, int64_t flat, bool inside,
                           bool) {
                         plane[e * positions + p] = inside ? flat : -1;
                       });
  Indices result;
  result.reserve(channels * plane.size());
  for (int64_t c = 0; c < channels; ++c) {
    int64_t base = (n * in[1] + c0 + c) * inPlane;
    for (int64_t i : plane)
      result.push_back(i < 0 ? -1 : base + i);
  }
  return result;
}

Indices hetc::gather::axisTaps(int64_t outer, int64_t inLength, int64_t inner,
                               int64_t outLength, int64_t stride,
                               int64_t start) {
  Indices result;
  result.reserve(size_t(outer * outLength * inner));
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t o = 0; o < outLength; ++o) {
      int64_t x = o * stride + start;
      bool inside = x >= 0 && x < inLength;
      for (int64_t b = 0; b < inner; ++b)
        result.push_back(inside ? (a * inLength + x) * inner + b : -1);
    }
  return result;
}
