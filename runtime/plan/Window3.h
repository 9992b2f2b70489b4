//===- Window3.h - A window of one to three spatial dimensions as three ---===//
//
// A channels-first depthwise convolution's window (PLAN_DEPTHWISE_CONV_CF)
// as the backends run it: its one to three spatial dimensions as three,
// the missing leading ones of extent 1. Plain data, for host and device
// code alike.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_PLAN_WINDOW3_H
#define HETC_RUNTIME_PLAN_WINDOW3_H

#include <cstdint>

namespace hetc::plan {

/// Per dimension: the input, output and kernel extents, the stride, the
/// begin pad and the dilation.
struct Window3 {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
};

} // namespace hetc::plan

#endif // HETC_RUNTIME_PLAN_WINDOW3_H
