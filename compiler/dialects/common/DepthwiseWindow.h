//===- DepthwiseWindow.h - Shape rules of a channels-last depthwise window ===//
//
// The checks that hgraph.depthwise_conv_nhwc and htile.depthwise_conv share:
// a 2-D window (kernel, strides, pads as begin pads then end pads,
// dilations) over a map of H x W positions gives Ho x Wo positions, and
// every output position's window meets the map, so that each output row
// is a sum of at least one product. The windows of htile.plan_depthwise_conv
// and htile.plan_conv, of one to three dimensions over a channels-first
// map, follow windowExtents. The runtime checks an artifact's kernel plan by
// the same rules, so this header uses the standard library only.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_DIALECTS_COMMON_DEPTHWISEWINDOW_H
#define HETC_COMPILER_DIALECTS_COMMON_DEPTHWISEWINDOW_H

#include <cstdint>
#include <string>
#include <vector>

namespace hetc::depthwise {

/// The output positions along one dimension of a window of `kernel`
/// elements `dilation` apart, moved by `stride`, over `in` positions
/// padded by `begin` and `end` (all checked positive or non-negative by
/// the caller), in `out`; false when a figure overflows 64 bits.
inline bool outputExtent(int64_t in, int64_t kernel, int64_t stride,
                         int64_t begin, int64_t end, int64_t dilation,
                         int64_t &out) {
  // The window's extent, (k - 1) * dilation + 1, and the padded input.
  int64_t extent = 0, padded = 0;
  if (__builtin_mul_overflow(kernel - 1, dilation, &extent) ||
      __builtin_add_overflow(extent, int64_t(1), &extent) ||
      __builtin_add_overflow(in, begin, &padded) ||
      __builtin_add_overflow(padded, end, &padded))
    return false;
  out = padded < extent ? 0 : (padded - extent) / stride + 1;
  return true;
}

/// Why a window over `in` ([H, W]) with `kernel` ([kh, kw]) does not give
/// `out` ([Ho, Wo]), or "" when it does. Strides and dilations must be
/// positive, pads non-negative, and every output position's window must
/// hold a position of the input. `Ints` is any sequence of int64_t with
/// size() and operator[] (llvm::ArrayRef, std::vector).
template <typename Ints>
std::string windowMismatch(const Ints &in, const Ints &out, const Ints &kernel,
                           const Ints &strides, const Ints &pads,
                           const Ints &dilations) {
  if (in.size() != 2 || out.size() != 2 || kernel.size() != 2)
    return "the map, the result and the kernel need 2 dimensions";
  if (strides.size() != 2 || pads.size() != 4 || dilations.size() != 2)
    return "strides and dilations need 2 entries and pads 4";
  for (int d = 0; d < 2; ++d) {
    std::string axis = d == 0 ? "rows" : "columns";
    if (strides[d] <= 0 || dilations[d] <= 0 || pads[d] < 0 ||
        pads[d + 2] < 0 || kernel[d] <= 0)
      return "the window along the " + axis +
             " needs a positive kernel, stride and dilation and non-negative "
             "pads";
    int64_t given = 0;
    if (!outputExtent(in[d], kernel[d], strides[d], pads[d], pads[d + 2],
                      dilations[d], given))
      return "the window along the " + axis + " overflows 64 bits";
    if (given != out[d])
      return "the window gives " + std::to_string(given) + " output " + axis +
             ", the result has " + std::to_string(out[d]);
    // Output position o meets the input where its first tap at or after
    // the input's start (the smallest k with k * dilation >= pad - o *
    // stride) is a tap of the kernel and lies before the input's end.
    // Taps lie a dilation apart, so with a dilation of at most the input's
    // extent a window misses the input only by starting after its end or
    // ending before its start, which the last and the first output
    // positions would do first; larger dilations leave holes between
    // taps, and each position is checked.
    auto meets = [&](int64_t o) {
      int64_t lo = pads[d] - o * strides[d];
      int64_t k = lo <= 0 ? 0 : (lo - 1) / dilations[d] + 1;
      return k < kernel[d] && k * dilations[d] - lo < in[d];
    };
    std::vector<int64_t> positions;
    if (out[d] == 0) {
    } else if (dilations[d] <= in[d]) {
      positions = {0, out[d] - 1};
    } else {
      if (out[d] > (1 << 24))
        return "the window along the " + axis +
               " is too large to check (a dilation beyond the input with " +
               std::to_string(out[d]) + " output positions)";
      for (int64_t o = 0; o < out[d]; ++o)
        positions.push_back(o);
    }
    for (int64_t o : positions)
      if (!meets(o))
        return "the window of output position " + std::to_string(o) +
               " along the " + axis + " lies wholly in the padding";
  }
  return "";
}

/// The output extents of a window of one to three dimensions (`kernel`,
/// `strides`, `pads` as begin pads then end pads, `dilations`) over a map
/// of `map` positions, in `out`: per dimension, the positions at which the
/// window starts inside the padded map. A window may lie wholly in the
/// padding (its sum is zero). Returns why there are none, or "".
template <typename Ints>
std::string windowExtents(const Ints &map, const Ints &kernel,
                          const Ints &strides, const Ints &pads,
                          const Ints &dilations, std::vector<int64_t> &out) {
  size_t rank = kernel.size();
  out.clear();
  if (rank < 1 || rank > 3 || map.size() != rank || strides.size() != rank ||
      dilations.size() != rank || pads.size() != 2 * rank)
    return "the map, the kernel, the strides and the dilations need one to "
           "three dimensions alike, and the pads twice as many";
  for (size_t d = 0; d < rank; ++d) {
    std::string axis = "dimension " + std::to_string(d);
    if (kernel[d] <= 0 || strides[d] <= 0 || dilations[d] <= 0 || pads[d] < 0 ||
        pads[d + rank] < 0 || map[d] < 0)
      return "the window along " + axis +
             " needs a positive kernel, stride and dilation and a "
             "non-negative map and pads";
    int64_t given = 0;
    if (!outputExtent(map[d], kernel[d], strides[d], pads[d], pads[d + rank],
                      dilations[d], given))
      return "the window along " + axis + " overflows 64 bits";
    out.push_back(given);
  }
  return "";
}

} // namespace hetc::depthwise

#endif // HETC_COMPILER_DIALECTS_COMMON_DEPTHWISEWINDOW_H
