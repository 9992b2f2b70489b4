//===- CudaKernels.cu - The device kernels of the CUDA backend ---------===//
//
// Each lane is computed with the chip model's own routines
// (runtime/sim/LaneMath.h, which VectorMath.cpp and TypedMath.cpp apply on
// the host), rounded to the result's type after each operation. Built with
// --fmad=false, as the host code is built with -ffp-contract=off; reductions
// add their terms in the chip's order. What differs from the CPU backend is
// stated in docs/backends.md ("Numerics"): the device's log, pow, tanh,
// erf, sin and cos (within their documented ulps of the correctly rounded
// result; exp is the vector unit's own, lane::exp), and NaN bits through
// F16 and BF16.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/CudaKernels.h"

#include "runtime/sim/LaneMath.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace hetc::cuda {

namespace {

constexpr int kThreads = 256;

namespace lane = sim::lane;
using lane::intOf;
using lane::wordOf;

/// The indices [0, count) the calling thread takes in a grid-stride loop:
/// its own, then one grid further each time.
class GridStride {
public:
  struct Iterator {
    uint64_t at, step;
    __device__ uint64_t operator*() const { return at; }
    __device__ Iterator &operator++() {
      at += step;
      return *this;
    }
    __device__ bool operator!=(const Iterator &end) const {
      return at < end.at;
    }
  };
  __device__ explicit GridStride(uint64_t count) : count(count) {}
  __device__ Iterator begin() const {
    return {blockIdx.x * uint64_t(blockDim.x) + threadIdx.x,
            uint64_t(gridDim.x) * blockDim.x};
  }
  __device__ Iterator end() const { return {count, 0}; }

private:
  uint64_t count;
};

/// A float result rounded to its type (io::roundTo for F16 and BF16).
__device__ float rounded(LaneOp::Round round, float x) {
  switch (round) {
  case LaneOp::Half:
    return __half2float(__float2half_rn(x));
  case LaneOp::BFloat:
    return __bfloat162float(__float2bfloat16_rn(x));
  default:
    return x;
  }
}

/// io::wrapTo and io::clampTo for the cast's integer type.
__device__ int32_t toInteger(const LaneOp &op, int64_t value, bool wrap) {
  if (op.toBool)
    return value != 0;
  if (!wrap)
    return int32_t(value < op.lo ? op.lo : value > op.hi ? op.hi : value);
  uint64_t low = uint64_t(value) &
                 (op.bits >= 64 ? ~0ull : (1ull << unsigned(op.bits)) - 1);
  if (op.isSigned && op.bits < 64 && (low >> unsigned(op.bits - 1)))
    return int32_t(int64_t(low) - int64_t(1ull << unsigned(op.bits)));
  return int32_t(low);
}

__device__ float cast(const LaneOp &op, float a) {
  if (op.toFloat)
    return rounded(op.round, op.fromFloat ? a : float(intOf(a)));
  if (!op.fromFloat)
    return wordOf(toInteger(op, intOf(a), op.wrap));
  if (op.wrap) {
    // io::wrapFloatTo: reduced modulo 2^32, exactly, in double.
    if (!isfinite(a))
      return wordOf(0);
    return wordOf(
        toInteger(op, int64_t(fmod(trunc(double(a)), 4294967296.0)), true));
  }
  // io::saturateTo.
  if (isnan(a))
    return wordOf(0);
  if (op.toBool)
    return wordOf(a != 0.0f);
  double t = trunc(double(a));
  if (t <= double(op.lo))
    return wordOf(int32_t(op.lo));
  if (t >= double(op.hi))
    return wordOf(int32_t(op.hi));
  return wordOf(int32_t(t));
}

/// One lane of `op` from the lane words a, b, c.
__device__ float compute(const LaneOp &op, float a, float b, float c) {
  hetx::Opcode opcode = hetx::Opcode(op.opcode);
  switch (op.kind) {
  case sim::LaneRoutine::FloatBinary:
    return rounded(op.round, lane::floatBinary(opcode, a, b));
  case sim::LaneRoutine::IntBinary:
    return wordOf(lane::intBinary(opcode, intOf(a), intOf(b)));
  case sim::LaneRoutine::FloatCompare:
    return wordOf(lane::compare(opcode, a, b) ? 1 : 0);
  case sim::LaneRoutine::IntCompare:
    return wordOf(lane::compare(opcode, intOf(a), intOf(b)) ? 1 : 0);
  case sim::LaneRoutine::FloatUnary:
    return rounded(op.round, lane::floatUnary(opcode, a));
  case sim::LaneRoutine::IntUnary:
    return wordOf(lane::intUnary(opcode, intOf(a)));
  case sim::LaneRoutine::Select:
    return intOf(a) != 0 ? b : c;
  default:
    return cast(op, a);
  }
}

/// Operand `which`'s element for result element `i`.
__device__ uint64_t offsetOf(const Strides &s, int which, uint64_t i) {
  uint64_t at = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    uint64_t size = uint64_t(s.shape[d]);
    at += (i % size) * uint64_t(s.operand[which][d]);
    i /= size;
  }
  return at;
}

__global__ void lanesKernel(LaneOp op, const float *a, const float *b,
                            const float *c, Strides strides, bool broadcast,
                            float *out, uint64_t count) {
  for (uint64_t i : GridStride(count)) {
    uint64_t ia = i, ib = i, ic = i;
    if (broadcast) {
      ia = offsetOf(strides, 0, i);
      ib = b ? offsetOf(strides, 1, i) : 0;
      ic = c ? offsetOf(strides, 2, i) : 0;
    }
    out[i] = compute(op, a[ia], b ? b[ib] : 0.0f, c ? c[ic] : 0.0f);
  }
}

/// A grid of blocks that covers `count` items, one thread each, capped
/// (the kernels stride over the rest).
unsigned blocksFor(uint64_t count) {
  uint64_t blocks = (count + kThreads - 1) / kThreads;
  return unsigned(blocks < 65535 ? (blocks ? blocks : 1) : 65535);
}

cudaStream_t streamOf(void *stream) {
  return static_cast<cudaStream_t>(stream);
}

/// Two partial results of a reduction combined (lane::join).
__device__ float join(int32_t opcode, bool isFloat, float a, float b) {
  return lane::join(hetx::Opcode(opcode), isFloat, a, b);
}

/// The block's threads combine their `value` with `opcode`; every thread
/// gets the result. For maxima and minima, whose result does not depend on
/// the order.
__device__ float blockReduce(int32_t opcode, bool isFloat, float value) {
  __shared__ float partial[kThreads];
  partial[threadIdx.x] = value;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      partial[threadIdx.x] = join(opcode, isFloat, partial[threadIdx.x],
                                  partial[threadIdx.x + half]);
    __syncthreads();
  }
  float result = partial[0];
  __syncthreads();
  return result;
}

/// `opcode` over the `row` lane words at `x` in the chip's order, as the
/// chip model and the CPU backend reduce a row: a vector of `lanes` at a
/// time, each in lane order and rounded to its type, the partial results
/// combined in vector order and rounded after each. The block's threads
/// reduce the vectors side by side; thread 0 combines them. Every thread
/// gets the result.
__device__ float reduceRow(int32_t opcode, bool isFloat, LaneOp::Round round,
                           const float *x, uint64_t row, uint64_t lanes) {
  __shared__ float partial[kThreads];
  bool sum = opcode == hetx::V_REDUCE_SUM;
  uint64_t vectors = (row + lanes - 1) / lanes;
  float acc = isFloat ? 0.0f : wordOf(0);
  for (uint64_t first = 0; first < vectors; first += blockDim.x) {
    uint64_t v = first + threadIdx.x;
    if (v < vectors) {
      const float *p = x + v * lanes;
      uint64_t n = row - v * lanes < lanes ? row - v * lanes : lanes;
      float part = sum ? (isFloat ? 0.0f : wordOf(0)) : p[0];
      for (uint64_t i = sum ? 0 : 1; i < n; ++i)
        part = join(opcode, isFloat, part, p[i]);
      partial[threadIdx.x] = isFloat ? rounded(round, part) : part;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      uint64_t count =
          vectors - first < blockDim.x ? vectors - first : uint64_t(blockDim.x);
      for (uint64_t k = 0; k < count; ++k) {
        float part = partial[k];
        if (first + k == 0)
          acc = part;
        else
          acc = isFloat ? rounded(round, join(opcode, true, part, acc))
                        : join(opcode, false, part, acc);
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partial[0] = acc;
  __syncthreads();
  float result = partial[0];
  __syncthreads();
  return result;
}

__global__ void reduceKernel(int32_t opcode, bool isFloat, LaneOp::Round round,
                             const float *in, float *out, uint64_t rows,
                             uint64_t row, uint64_t lanes) {
  for (uint64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    float acc = reduceRow(opcode, isFloat, round, in + r * row, row, lanes);
    if (threadIdx.x == 0)
      out[r] = acc;
  }
}

__global__ void softmaxKernel(LaneOp::Round round, const float *in, float *out,
                              uint64_t rows, uint64_t row, uint64_t lanes) {
  for (uint64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float *x = in + r * row;
    float *y = out + r * row;
    float max = x[0];
    for (uint64_t j = threadIdx.x; j < row; j += blockDim.x)
      max = lane::maxOf(max, x[j]);
    max = blockReduce(hetx::V_REDUCE_MAX, true, max);
    // The exponentials go to the result, then are divided in place.
    for (uint64_t j = threadIdx.x; j < row; j += blockDim.x)
      y[j] = rounded(
          round, lane::floatUnary(hetx::V_EXP,
                                  rounded(round, lane::floatBinary(
                                                     hetx::V_SUB, x[j], max))));
    __syncthreads();
    float sum = reduceRow(hetx::V_REDUCE_SUM, true, round, y, row, lanes);
    for (uint64_t j = threadIdx.x; j < row; j += blockDim.x)
      y[j] = rounded(round, lane::floatBinary(hetx::V_DIV, y[j], sum));
    __syncthreads();
  }
}

__global__ void transposeKernel(Strides strides, const float *in, float *out,
                                uint64_t count) {
  for (uint64_t i : GridStride(count))
    out[i] = in[offsetOf(strides, 0, i)];
}

__global__ void depthwiseConvKernel(DepthwiseWindow w, const float *in,
                                    const float *weight, const float *bias,
                                    float *out, uint64_t count) {
  for (uint64_t e : GridStride(count)) {
    int64_t c = int64_t(e % uint64_t(w.channels));
    int64_t position = int64_t(e / uint64_t(w.channels));
    int64_t oy = position / w.outWidth, ox = position % w.outWidth;
    float sum = 0.0f;
    bool first = true;
    for (int64_t i = 0; i < w.kernelHeight; ++i) {
      int64_t iy = oy * w.strides[0] - w.pads[0] + i * w.dilations[0];
      if (iy < 0 || iy >= w.height)
        continue;
      for (int64_t j = 0; j < w.kernelWidth; ++j) {
        int64_t ix = ox * w.strides[1] - w.pads[1] + j * w.dilations[1];
        if (ix < 0 || ix >= w.width)
          continue;
        float product = in[(iy * w.width + ix) * w.channels + c] *
                        weight[(i * w.kernelWidth + j) * w.channels + c];
        sum = first ? product : sum + product;
        first = false;
      }
    }
    out[e] = bias ? sum + bias[c] : sum;
  }
}

/// Over the window of output position `position` of a map `x` (a plane
/// of `w.in`), the sum of each element inside the map times `weight(t)`,
/// t its kernel element, in kernel order.
template <typename Weight>
__device__ float windowSum(const plan::Window3 &w, const float *x,
                           int64_t position, Weight weight) {
  int64_t ox = position % w.out[2];
  int64_t oy = position / w.out[2] % w.out[1];
  int64_t oz = position / w.out[2] / w.out[1];
  float sum = 0.0f;
  for (int64_t kz = 0; kz < w.kernel[0]; ++kz) {
    int64_t iz = oz * w.stride[0] - w.pad[0] + kz * w.dilation[0];
    if (iz < 0 || iz >= w.in[0])
      continue;
    for (int64_t ky = 0; ky < w.kernel[1]; ++ky) {
      int64_t iy = oy * w.stride[1] - w.pad[1] + ky * w.dilation[1];
      if (iy < 0 || iy >= w.in[1])
        continue;
      for (int64_t kx = 0; kx < w.kernel[2]; ++kx) {
        int64_t ix = ox * w.stride[2] - w.pad[2] + kx * w.dilation[2];
        if (ix < 0 || ix >= w.in[2])
          continue;
        int64_t t = (kz * w.kernel[1] + ky) * w.kernel[2] + kx;
        sum += x[(iz * w.in[1] + iy) * w.in[2] + ix] * weight(t);
      }
    }
  }
  return sum;
}

__global__ void depthwiseConvCfKernel(ChannelsFirstWindow cf, const float *in,
                                      const float *const *taps,
                                      const float *bias, float *out,
                                      uint64_t count) {
  const plan::Window3 &w = cf.window;
  int64_t outPlane = w.out[0] * w.out[1] * w.out[2];
  int64_t inPlane = w.in[0] * w.in[1] * w.in[2];
  for (uint64_t e : GridStride(count)) {
    int64_t plane = int64_t(e / uint64_t(outPlane));
    int64_t c = plane % cf.channels;
    float sum =
        windowSum(w, in + plane * inPlane, int64_t(e % uint64_t(outPlane)),
                  [&](int64_t t) { return taps[t][c]; });
    out[e] = bias ? sum + bias[c] : sum;
  }
}

__global__ void convKernel(ConvWindow cw, const float *in,
                           const float *const *weights, float *out,
                           uint64_t count) {
  const plan::Window3 &w = cw.window;
  int64_t outPlane = w.out[0] * w.out[1] * w.out[2];
  int64_t inPlane = w.in[0] * w.in[1] * w.in[2];
  int64_t taps = w.kernel[0] * w.kernel[1] * w.kernel[2];
  int64_t rows = cw.outChannels / cw.groups;
  int64_t cg = cw.channels / cw.groups;
  int64_t width = cg * taps + (cw.withBias ? 1 : 0);
  for (uint64_t e : GridStride(count)) {
    int64_t plane = int64_t(e / uint64_t(outPlane));
    int64_t position = int64_t(e % uint64_t(outPlane));
    int64_t image = plane / cw.outChannels, m = plane % cw.outChannels;
    int64_t g = m / rows;
    const float *row = weights[g] + (m % rows) * width;
    float sum = 0.0f;
    for (int64_t ci = 0; ci < cg; ++ci) {
      const float *wc = row + ci * taps;
      sum += windowSum(w, in + (image * cw.channels + g * cg + ci) * inPlane,
                       position, [&](int64_t t) { return wc[t]; });
    }
    out[e] = cw.withBias ? sum + row[cg * taps] : sum;
  }
}

__global__ void gatherKernel(const DeviceRun *runs, uint64_t count,
                             const float *const *operands, float *out) {
  for (uint64_t r = blockIdx.y; r < count; r += gridDim.y) {
    DeviceRun run = runs[r];
    float *to = out + run.offset;
    for (uint64_t i : GridStride(run.count))
      to[i] = run.first < 0
                  ? 0.0f
                  : operands[run.operand][run.first + int64_t(i) * run.step];
  }
}

/// An index outside its table, as launchGatherRows reports it: the
/// smallest element wins.
__device__ unsigned long long badKey(uint64_t element, int32_t value) {
  return (unsigned long long)(element << 32) | uint32_t(value);
}

__global__ void gatherRowsKernel(const float *table, uint64_t tableRows,
                                 uint64_t row, const float *indices,
                                 uint64_t count, float *out,
                                 unsigned long long *badIndex) {
  uint64_t total = count * row;
  for (uint64_t e : GridStride(total)) {
    uint64_t i = e / row;
    int32_t v = intOf(indices[i]);
    if (v < 0 || uint64_t(v) >= tableRows) {
      if (e % row == 0)
        atomicMin(badIndex, badKey(i, v));
      continue;
    }
    out[e] = table[uint64_t(v) * row + e % row];
  }
}

__global__ void lastWriterKernel(const float *indices, uint64_t count,
                                 uint64_t tableRows, long long *lastWriter,
                                 unsigned long long *badIndex) {
  for (uint64_t i : GridStride(count)) {
    int32_t v = intOf(indices[i]);
    if (v < 0 || uint64_t(v) >= tableRows)
      atomicMin(badIndex, badKey(i, v));
    else if (lastWriter)
      atomicMax(&lastWriter[v], (long long)i);
  }
}

__global__ void scatterRowsKernel(const float *rows, const float *indices,
                                  uint64_t count, float *table,
                                  uint64_t tableRows, uint64_t row,
                                  const long long *lastWriter) {
  uint64_t total = count * row;
  for (uint64_t e : GridStride(total)) {
    uint64_t i = e / row;
    int32_t v = intOf(indices[i]);
    // Of two updates of one row the later stays: only its last writer
    // moves it.
    if (v >= 0 && uint64_t(v) < tableRows && lastWriter[v] == (long long)i)
      table[uint64_t(v) * row + e % row] = rows[e];
  }
}

__global__ void integerMatmulKernel(const float *x, const float *w, float *out,
                                    uint64_t m, uint64_t k, uint64_t n) {
  for (uint64_t e : GridStride(m * n)) {
    uint64_t r = e / n, j = e % n;
    uint32_t sum = 0;
    for (uint64_t i = 0; i < k; ++i)
      sum += uint32_t(intOf(x[r * k + i])) * uint32_t(intOf(w[i * n + j]));
    out[e] = wordOf(int32_t(sum));
  }
}

__global__ void intToFloatKernel(const float *in, float *out, uint64_t count) {
  for (uint64_t i : GridStride(count))
    out[i] = float(intOf(in[i]));
}

/// What launchFinishMatmul passes to its kernel by value.
struct Finish {
  LaneOp mul, add, biasCast, activation, cast;
  bool hasBiasCast, hasActivation, hasCast;
};

__global__ void finishMatmulKernel(const float *acc, uint64_t m, uint64_t n,
                                   const float *scale, const float *bias,
                                   Finish f, float *out) {
  for (uint64_t e : GridStride(m * n)) {
    uint64_t j = e % n;
    float v = acc[e];
    if (scale)
      v = compute(f.mul, v, scale[j], 0.0f);
    if (bias) {
      float b =
          f.hasBiasCast ? compute(f.biasCast, bias[j], 0.0f, 0.0f) : bias[j];
      v = compute(f.add, v, b, 0.0f);
    }
    if (f.hasActivation)
      v = compute(f.activation, v, 0.0f, 0.0f);
    out[e] = f.hasCast ? compute(f.cast, v, 0.0f, 0.0f) : v;
  }
}

} // namespace

void launchLanes(const LaneOp &op, const float *a, const float *b,
                 const float *c, const Strides *strides, float *out,
                 uint64_t count, void *stream) {
  if (!count)
    return;
  lanesKernel<<<blocksFor(count), kThreads, 0, streamOf(stream)>>>(
      op, a, b, c, strides ? *strides : Strides(), strides != nullptr, out,
      count);
}

void launchReduce(int32_t opcode, bool isFloat, LaneOp::Round round,
                  const float *in, float *out, uint64_t rows, uint64_t row,
                  uint64_t lanes, void *stream) {
  if (!rows || !row)
    return;
  unsigned blocks = unsigned(rows < 65535 ? rows : 65535);
  reduceKernel<<<blocks, kThreads, 0, streamOf(stream)>>>(
      opcode, isFloat, round, in, out, rows, row, lanes);
}

void launchSoftmax(LaneOp::Round round, const float *in, float *out,
                   uint64_t rows, uint64_t row, uint64_t lanes, void *stream) {
  if (!rows || !row)
    return;
  unsigned blocks = unsigned(rows < 65535 ? rows : 65535);
  softmaxKernel<<<blocks, kThreads, 0, streamOf(stream)>>>(round, in, out, rows,
                                                           row, lanes);
}

void launchTranspose(const Strides &strides, const float *in, float *out,
                     uint64_t count, void *stream) {
  if (!count)
    return;
  transposeKernel<<<blocksFor(count), kThreads, 0, streamOf(stream)>>>(
      strides, in, out, count);
}

void launchDepthwiseConv(const DepthwiseWindow &window, const float *in,
                         const float *weight, const float *bias, float *out,
                         void *stream) {
  uint64_t count =
      uint64_t(window.outHeight * window.outWidth * window.channels);
  if (!count)
    return;
  depthwiseConvKernel<<<blocksFor(count), kThreads, 0, streamOf(stream)>>>(
      window, in, weight, bias, out, count);
}

void launchDepthwiseConvCf(const ChannelsFirstWindow &window, const float *in,
                           const float *const *taps, const float *bias,
                           float *out, void *stream) {
  const plan::Window3 &w = window.window;
  uint64_t count = uint64_t(window.planes * w.out[0] * w.out[1] * w.out[2]);
  if (!count)
    return;
  depthwiseConvCfKernel<<<blocksFor(count), kThreads, 0, streamOf(stream)>>>(
      window, in, taps, bias, out, count);
}

void launchConv(const ConvWindow &window, const float *in,
                const float *const *weights, float *out, void *stream) {
  const plan::Window3 &w = window.window;
  uint64_t count = uint64_t(window.images * window.outChannels * w.out[0] *
                            w.out[1] * w.out[2]);
  if (!count)
    return;
  convKernel<<<blocksFor(count), kThreads, 0, streamOf(stream)>>>(
      window, in, weights, out, count);
}

void launchGather(const DeviceRun *runs, uint64_t count, uint64_t longest,
                  const float *const *operands, float *out, void *stream) {
  if (!count || !longest)
    return;
  dim3 grid(blocksFor(longest) < 1024 ? blocksFor(longest) : 1024,
            unsigned(count < 65535 ? count : 65535));
  gatherKernel<<<grid, kThreads, 0, streamOf(stream)>>>(runs, count, operands,
                                                        out);
}

void launchGatherRows(const float *table, uint64_t tableRows, uint64_t row,
                      const float *indices, uint64_t count, float *out,
                      uint64_t *badIndex, void *stream) {
  if (!count)
    return;
  // Rows of no elements: the indices are still checked.
  if (!row) {
    long long *none = nullptr;
    lastWriterKernel<<<blocksFor(count), kThreads, 0, streamOf(stream)>>>(
        indices, count, tableRows, none,
        reinterpret_cast<unsigned long long *>(badIndex));
    return;
  }
  gatherRowsKernel<<<blocksFor(count * row), kThreads, 0, streamOf(stream)>>>(
      table, tableRows, row, indices, count, out,
      reinterpret_cast<unsigned long long *>(badIndex));
}

void launchScatterRows(const float *rows, const float *indices, uint64_t count,
                       float *table, uint64_t tableRows, uint64_t row,
                       int64_t *lastWriter, uint64_t *badIndex, void *stream) {
  if (!count)
    return;
  cudaStream_t s = streamOf(stream);
  // -1 in every row: no writer yet (all bytes 0xff).
  cudaMemsetAsync(lastWriter, 0xff, tableRows * sizeof(int64_t), s);
  lastWriterKernel<<<blocksFor(count), kThreads, 0, s>>>(
      indices, count, tableRows, reinterpret_cast<long long *>(lastWriter),
      reinterpret_cast<unsigned long long *>(badIndex));
  if (!row)
    return;
  scatterRowsKernel<<<blocksFor(count * row), kThreads, 0, s>>>(
      rows, indices, count, table, tableRows, row,
      reinterpret_cast<const long long *>(lastWriter));
}

void launchIntegerMatmul(const float *x, const float *w, float *out, uint64_t m,
                         uint64_t k, uint64_t n, void *stream) {
  if (!m || !n)
    return;
  integerMatmulKernel<<<blocksFor(m * n), kThreads, 0, streamOf(stream)>>>(
      x, w, out, m, k, n);
}

void launchIntToFloat(const float *in, float *out, uint64_t count,
                      void *stream) {
  if (!count)
    return;
  intToFloatKernel<<<blocksFor(count), kThreads, 0, streamOf(stream)>>>(in, out,
                                                                        count);
}

void launchFinishMatmul(const float *acc, uint64_t m, uint64_t n,
                        const float *scale, const LaneOp &mul,
                        const float *bias, const LaneOp *biasCast,
                        const LaneOp &add, const LaneOp *activation,
                        const LaneOp *cast, float *out, void *stream) {
  if (!m || !n)
    return;
  Finish f;
  f.mul = mul;
  f.add = add;
  f.hasBiasCast = biasCast != nullptr;
  f.hasActivation = activation != nullptr;
  f.hasCast = cast != nullptr;
  if (biasCast)
    f.biasCast = *biasCast;
  if (activation)
    f.activation = *activation;
  if (cast)
    f.cast = *cast;
  finishMatmulKernel<<<blocksFor(m * n), kThreads, 0, streamOf(stream)>>>(
      acc, m, n, scale, bias, f, out);
}

} // namespace hetc::cuda
