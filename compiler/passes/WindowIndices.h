//===- WindowIndices.h - Index maps of sliding-window ops -------*- C++ -*-===//
//
// The compile-time index maps (in GatherIndices' convention: the element of
// the inputs, taken as one list, that each result element copies; -1 is
// zero) with which pooling and convolution gather their windows, and the
// element counts that averages divide by. Input and output shapes are
// N x C x D1 x ...; a window position is out * stride - pad_begin +
// k * dilation in each spatial dimension.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_PASSES_WINDOWINDICES_H
#define HETC_COMPILER_PASSES_WINDOWINDICES_H

#include "compiler/passes/GatherIndices.h"

#include "llvm/ADT/SmallVector.h"

namespace hetc::gather {

struct Window {
  llvm::SmallVector<int64_t> kernel, strides, pads, dilations;
};

/// Pooling windows: a result of shape [N, C, out spatial..., K] (K the
/// kernel's element count) whose element copies the input element under
/// the window, or `fill` where the window lies outside the input.
Indices poolWindows(Shape in, const Window &window, Shape out, int64_t fill);

/// For each output position (row-major over the spatial dimensions), the
/// number of window elements inside the input or, with `includePad`,
/// inside the padded input [-pad_begin, in + pad_end).
std::vector<float> windowCounts(Shape in, const Window &window, Shape out,
                                bool includePad);

/// Convolution columns of batch `n` and channels [c0, c0 + channels): a
/// result of shape [channels * K, out positions], row c * K + k holding
/// kernel element k of channel c0 + c at every output position (-1 in the
/// padding).
Indices convColumns(Shape in, const Window &window, Shape out, int64_t n,
                    int64_t c0, int64_t channels);

/// One kernel element's reach along one axis: a result of shape
/// [outer, outLength, inner] whose element (a, o, b) copies element
/// (a, o * stride + start, b) of an input [outer, inLength, inner], or is
/// -1 where that lies outside it. With start = k * dilation - pad_begin it
/// takes kernel element k along that axis at every output position; a
/// 2-D window is one such move along its columns, then one along its rows.
Indices axisTaps(int64_t outer, int64_t inLength, int64_t inner,
                 int64_t outLength, int64_t stride, int64_t start);

} // namespace hetc::gather

#endif // HETC_COMPILER_PASSES_WINDOWINDICES_H
