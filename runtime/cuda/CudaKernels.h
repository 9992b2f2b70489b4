//===- CudaKernels.h - The device kernels of the CUDA backend ----*- C++
//-*-===//
//
// What CudaProgram.cpp (host code, built by the C++ compiler) launches on
// the device, and the plain descriptions it passes: no type here needs
// CUDA's headers, so this file is shared by both compilers. Every buffer
// holds lane words, as on the chip and in the CPU backend: fp32 bits for the
// float types (F16 and BF16 values rounded to their type), int32 bits for
// the integer types and Bool.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_CUDA_CUDAKERNELS_H
#define HETC_RUNTIME_CUDA_CUDAKERNELS_H

#include "runtime/plan/Window3.h"
#include "runtime/sim/LaneMath.h"

#include <cstdint>

namespace hetc::cuda {

/// How one lane of a vector-unit operation is computed on the device
/// (runtime/sim/VectorUnit.cpp's computeVector, lane by lane).
struct LaneOp {
  /// The routine, as the chip model picks it (sim::laneRoutineOf).
  sim::LaneRoutine kind = sim::LaneRoutine::FloatBinary;
  /// A hetx::Opcode.
  int32_t opcode = 0;
  /// The rounding of a float result: to F32 (none), F16 or BF16.
  enum Round : int32_t { None, Half, BFloat };
  Round round = None;
  /// Cast: whether the source lanes are float and the result is; for an
  /// integer result, its range, bits and signedness as io::clampTo and
  /// io::wrapTo take them, and whether out-of-range values wrap.
  bool fromFloat = true, toFloat = true, toBool = false, wrap = false,
       isSigned = true;
  int32_t bits = 32;
  int64_t lo = 0, hi = 0;
};

/// The largest rank of a broadcast or transpose the device kernels take
/// (after merging dimensions that move together).
constexpr int kMaxRank = 8;

/// Where each operand of an elementwise kernel reads result element `i`:
/// the result's `rank` dimensions, and per operand a stride per dimension
/// (0 where it broadcasts).
struct Strides {
  int32_t rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t operand[3][kMaxRank] = {};
};

/// One run of a gather's indices (plan::IndexRun): `count` elements of
/// operand `operand`, from `first` by `step` (first -1: zeros), to
/// result element `offset`.
struct DeviceRun {
  int64_t first = -1, step = 0;
  uint64_t count = 0, offset = 0;
  uint32_t operand = 0;
};

/// Elementwise `op` over `count` result elements: operands `a`, `b`, `c`
/// (as many as the operation takes) read through `strides`, or at the
/// result's own index when `strides` is null.
void launchLanes(const LaneOp &op, const float *a, const float *b,
                 const float *c, const Strides *strides, float *out,
                 uint64_t count, void *stream);

/// Per row of `row` elements (`rows` of them): `opcode` (V_REDUCE_SUM,
/// _MAX, _MIN) over float lanes rounded to `round`, or int32 lanes, in the
/// chip's order: `lanes` elements (a vector) at a time, the partial results
/// combined in vector order.
void launchReduce(int32_t opcode, bool isFloat, LaneOp::Round round,
                  const float *in, float *out, uint64_t rows, uint64_t row,
                  uint64_t lanes, void *stream);

/// Softmax of each row of `row` float lanes, rounded to `round`, its sum
/// in the chip's order as launchReduce's.
void launchSoftmax(LaneOp::Round round, const float *in, float *out,
                   uint64_t rows, uint64_t row, uint64_t lanes, void *stream);

/// Result element i of the result's `shape` reads input element
/// sum(index_d * stride_d): strides.operand[0] holds the input stride of
/// each result dimension.
void launchTranspose(const Strides &strides, const float *in, float *out,
                     uint64_t count, void *stream);

/// The window of a depthwise convolution of an H x W x C map into
/// Ho x Wo x C by kh x kw weight rows (PLAN_DEPTHWISE_CONV).
struct DepthwiseWindow {
  int64_t height = 0, width = 0, channels = 0, outHeight = 0, outWidth = 0;
  int64_t kernelHeight = 0, kernelWidth = 0;
  int64_t strides[2] = {1, 1}, pads[2] = {0, 0}, dilations[2] = {1, 1};
};

/// The depthwise convolution `window` of `in` by `weight` (a row of
/// channels per kernel element) plus `bias` (C values, or null) into
/// `out`: products summed in kernel order, then the bias, in f32 as the
/// chip sums them.
void launchDepthwiseConv(const DepthwiseWindow &window, const float *in,
                         const float *weight, const float *bias, float *out,
                         void *stream);

/// The window of a channels-first depthwise convolution of `planes`
/// (N x C) maps (PLAN_DEPTHWISE_CONV_CF).
struct ChannelsFirstWindow {
  int64_t planes = 0, channels = 0;
  plan::Window3 window;
};

/// The depthwise convolution `window` of `in` by `taps` (device pointers,
/// on the device: a column of C weights per kernel element) plus `bias` (C
/// values, or null) into `out`: per output element, the products of the
/// input elements inside the map summed in kernel order, then the bias.
void launchDepthwiseConvCf(const ChannelsFirstWindow &window, const float *in,
                           const float *const *taps, const float *bias,
                           float *out, void *stream);

/// A convolution's shape (PLAN_CONV): `images` maps of `channels`, in
/// `groups`, into `outChannels`, each weight row ending in the bias where
/// `withBias`.
struct ConvWindow {
  int64_t images = 0, channels = 0, outChannels = 0, groups = 1;
  bool withBias = false;
  plan::Window3 window;
};

/// The convolution `window` of `in` by `weights` (device pointers, on the
/// device: each group's weight rows, as the plan holds them) into `out`:
/// per output element, the products of the group's input elements inside
/// the map and their weights, summed, then the bias.
void launchConv(const ConvWindow &window, const float *in,
                const float *const *weights, float *out, void *stream);

/// The runs of a gather (`runs` on the device, `count` of them, the longest
/// `longest`) from the operands `operands` (device pointers, on the
/// device) into `out`.
void launchGather(const DeviceRun *runs, uint64_t count, uint64_t longest,
                  const float *const *operands, float *out, void *stream);

/// Rows of `table` (`tableRows` rows of `row` elements) picked by the int32
/// `indices` (`count` of them) into `out`. An index outside the table moves
/// nothing and leaves in `*badIndex` the smallest element of the indices
/// that is, with its value: `element << 32 | uint32(value)` (it starts at
/// `count << 32`; a plan holds fewer than 2^32 indices).
void launchGatherRows(const float *table, uint64_t tableRows, uint64_t row,
                      const float *indices, uint64_t count, float *out,
                      uint64_t *badIndex, void *stream);

/// Rows of `rows` written into `table` at the int32 `indices`; of two
/// writes of one row the later stays (`lastWriter`, one int64 per table
/// row, is scratch). Bad indices as for launchGatherRows.
void launchScatterRows(const float *rows, const float *indices, uint64_t count,
                       float *table, uint64_t tableRows, uint64_t row,
                       int64_t *lastWriter, uint64_t *badIndex, void *stream);

/// int32 sums with wrap-around: out (m x n) = x (m x k) times w (k x n), of
/// i8 or u8 values in int32 lanes.
void launchIntegerMatmul(const float *x, const float *w, float *out, uint64_t m,
                         uint64_t k, uint64_t n, void *stream);

/// Float words of the int32 lanes `in` (an integer weight of a float
/// matrix product).
void launchIntToFloat(const float *in, float *out, uint64_t count,
                      void *stream);

/// The sums of a matrix product (`m` x `n`, fp32 or int32 words in `acc`)
/// finished as the chip finishes them: times the f32 row `scale`, plus the
/// row `bias` (converted by `biasCast` unless null), through `activation`
/// unless null, converted by `cast` unless null, into `out` (which may be
/// `acc`).
void launchFinishMatmul(const float *acc, uint64_t m, uint64_t n,
                        const float *scale, const LaneOp &mul,
                        const float *bias, const LaneOp *biasCast,
                        const LaneOp &add, const LaneOp *activation,
                        const LaneOp *cast, float *out, void *stream);

} // namespace hetc::cuda

#endif // HETC_RUNTIME_CUDA_CUDAKERNELS_H
