//===- CudaKernels.cu - The device kernels of the CUDA backend ---------===//
//
// Each lane is computed as runtime/sim/VectorMath.cpp and TypedMath.cpp
// compute it on the host: the same operations in the same order, rounded
// to the result's type after each. Built with --fmad=false, as the host
// code is built with -ffp-contract=off. What differs from the CPU backend
// is stated in docs/backends.md ("Numerics"): the device's exp, log, pow,
// tanh, erf, sin and cos (within their documented ulps of the correctly
// rounded result), and the order of the terms of a reduction.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/CudaKernels.h"

#include "runtime/schema/hetx.pb.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace hetc::cuda {

namespace {

constexpr int kThreads = 256;

__device__ int32_t intOf(float word) { return __float_as_int(word); }
__device__ float wordOf(int32_t value) { return __int_as_float(value); }
__device__ int32_t wrapped(uint32_t bits) { return int32_t(bits); }

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

/// The larger and smaller of two values; NaN if either is NaN.
__device__ float maxOf(float a, float b) {
  if (isnan(a) || isnan(b))
    return __int_as_float(0x7fc00000);
  return a < b ? b : a;
}
__device__ float minOf(float a, float b) {
  if (isnan(a) || isnan(b))
    return __int_as_float(0x7fc00000);
  return b < a ? b : a;
}

__device__ float floatBinary(int32_t opcode, float x, float y) {
  switch (opcode) {
  case hetx::V_ADD:
    return x + y;
  case hetx::V_SUB:
    return x - y;
  case hetx::V_MUL:
    return x * y;
  case hetx::V_DIV:
    return x / y;
  case hetx::V_MIN:
    return minOf(x, y);
  case hetx::V_POW:
    return powf(x, y);
  case hetx::V_FMOD:
    return fmodf(x, y);
  case hetx::V_MOD: {
    // numpy's mod: the remainder takes the divisor's sign, a zero one too.
    float r = fmodf(x, y);
    if (r == 0.0f)
      return copysignf(0.0f, y);
    return (r < 0.0f) != (y < 0.0f) ? r + y : r;
  }
  default: // V_MAX
    return maxOf(x, y);
  }
}

__device__ int32_t intBinary(int32_t opcode, int32_t x, int32_t y) {
  switch (opcode) {
  case hetx::V_ADD:
    return wrapped(uint32_t(x) + uint32_t(y));
  case hetx::V_SUB:
    return wrapped(uint32_t(x) - uint32_t(y));
  case hetx::V_MUL:
    return wrapped(uint32_t(x) * uint32_t(y));
  case hetx::V_DIV:
    if (y == 0)
      return 0;
    return x == INT32_MIN && y == -1 ? x : x / y;
  case hetx::V_MIN:
    return x < y ? x : y;
  case hetx::V_MOD:
  case hetx::V_FMOD: {
    // C's remainder (the dividend's sign); MOD takes the divisor's.
    int32_t r = y == 0 || y == -1 ? 0 : x % y;
    if (opcode == hetx::V_MOD && r != 0 && ((r < 0) != (y < 0)))
      r = wrapped(uint32_t(r) + uint32_t(y));
    return r;
  }
  case hetx::V_AND:
    return x & y;
  case hetx::V_OR:
    return x | y;
  case hetx::V_XOR:
    return x ^ y;
  case hetx::V_SHL:
    return y < 0 || y > 31 ? 0 : wrapped(uint32_t(x) << y);
  case hetx::V_SHR:
    return y < 0 || y > 31 ? 0 : wrapped(uint32_t(x) >> y);
  default: // V_MAX
    return x < y ? y : x;
  }
}

template <typename T> __device__ bool compare(int32_t opcode, T x, T y) {
  return opcode == hetx::V_EQUAL  ? x == y
         : opcode == hetx::V_LESS ? x < y
                                  : x <= y;
}

__device__ float floatUnary(int32_t opcode, float x) {
  switch (opcode) {
  case hetx::V_RELU:
    return isnan(x) ? x : (x > 0.0f ? x : 0.0f);
  case hetx::V_SIGMOID:
    return 1.0f / (1.0f + expf(-x));
  case hetx::V_TANH:
    return tanhf(x);
  case hetx::V_NEG:
    return -x;
  case hetx::V_ABS:
    return fabsf(x);
  case hetx::V_SQRT:
    return sqrtf(x);
  case hetx::V_RECIPROCAL:
    return 1.0f / x;
  case hetx::V_LOG:
    return logf(x);
  case hetx::V_ERF:
    return erff(x);
  case hetx::V_FLOOR:
    return floorf(x);
  case hetx::V_CEIL:
    return ceilf(x);
  case hetx::V_SIN:
    return sinf(x);
  case hetx::V_COS:
    return cosf(x);
  case hetx::V_ROUND:
    return rintf(x); // to nearest, ties to even
  default:           // V_EXP
    return expf(x);
  }
}

__device__ int32_t intUnary(int32_t opcode, int32_t x) {
  switch (opcode) {
  case hetx::V_RELU:
    return x > 0 ? x : 0;
  case hetx::V_NEG:
    return wrapped(0u - uint32_t(x));
  case hetx::V_NOT:
    return x == 0 ? 1 : 0;
  default: // V_ABS
    return x < 0 ? wrapped(0u - uint32_t(x)) : x;
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
__device__ float lane(const LaneOp &op, float a, float b, float c) {
  switch (op.kind) {
  case LaneOp::FloatBinary:
    return rounded(op.round, floatBinary(op.opcode, a, b));
  case LaneOp::IntBinary:
    return wordOf(intBinary(op.opcode, intOf(a), intOf(b)));
  case LaneOp::FloatCompare:
    return wordOf(compare(op.opcode, a, b) ? 1 : 0);
  case LaneOp::IntCompare:
    return wordOf(compare(op.opcode, intOf(a), intOf(b)) ? 1 : 0);
  case LaneOp::FloatUnary:
    return rounded(op.round, floatUnary(op.opcode, a));
  case LaneOp::IntUnary:
    return wordOf(intUnary(op.opcode, intOf(a)));
  case LaneOp::Select:
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
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count;
       i += uint64_t(gridDim.x) * blockDim.x) {
    uint64_t ia = i, ib = i, ic = i;
    if (broadcast) {
      ia = offsetOf(strides, 0, i);
      ib = b ? offsetOf(strides, 1, i) : 0;
      ic = c ? offsetOf(strides, 2, i) : 0;
    }
    out[i] = lane(op, a[ia], b ? b[ib] : 0.0f, c ? c[ic] : 0.0f);
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

/// Combines two partial results of a reduction.
__device__ float join(int32_t opcode, bool isFloat, float a, float b) {
  if (isFloat)
    return opcode == hetx::V_REDUCE_SUM   ? a + b
           : opcode == hetx::V_REDUCE_MAX ? maxOf(a, b)
                                          : minOf(a, b);
  int32_t x = intOf(a), y = intOf(b);
  return wordOf(opcode == hetx::V_REDUCE_SUM
                    ? wrapped(uint32_t(x) + uint32_t(y))
                : opcode == hetx::V_REDUCE_MAX ? (x < y ? y : x)
                                               : (x < y ? x : y));
}

/// The block's threads combine their `value` with `opcode`; every thread
/// gets the result.
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

__device__ float identityOf(int32_t opcode, bool isFloat, float first) {
  if (opcode == hetx::V_REDUCE_SUM)
    return isFloat ? 0.0f : wordOf(0);
  return first; // max and min: the row's first element changes nothing
}

__global__ void reduceKernel(int32_t opcode, bool isFloat, LaneOp::Round round,
                             const float *in, float *out, uint64_t rows,
                             uint64_t row) {
  for (uint64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float *x = in + r * row;
    float acc = identityOf(opcode, isFloat, row ? x[0] : 0.0f);
    for (uint64_t j = threadIdx.x; j < row; j += blockDim.x)
      acc = join(opcode, isFloat, acc, x[j]);
    acc = blockReduce(opcode, isFloat, acc);
    if (threadIdx.x == 0)
      out[r] = isFloat ? rounded(round, acc) : acc;
  }
}

__global__ void softmaxKernel(LaneOp::Round round, const float *in, float *out,
                              uint64_t rows, uint64_t row) {
  for (uint64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float *x = in + r * row;
    float *y = out + r * row;
    float max = row ? x[0] : 0.0f;
    for (uint64_t j = threadIdx.x; j < row; j += blockDim.x)
      max = maxOf(max, x[j]);
    max = blockReduce(hetx::V_REDUCE_MAX, true, max);
    // The exponentials go to the result, then are divided in place.
    float sum = 0.0f;
    for (uint64_t j = threadIdx.x; j < row; j += blockDim.x) {
      float e = rounded(round, expf(rounded(round, x[j] - max)));
      y[j] = e;
      sum += e;
    }
    sum = rounded(round, blockReduce(hetx::V_REDUCE_SUM, true, sum));
    for (uint64_t j = threadIdx.x; j < row; j += blockDim.x)
      y[j] = rounded(round, y[j] / sum);
  }
}

__global__ void transposeKernel(Strides strides, const float *in, float *out,
                                uint64_t count) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count;
       i += uint64_t(gridDim.x) * blockDim.x)
    out[i] = in[offsetOf(strides, 0, i)];
}

__global__ void gatherKernel(const DeviceRun *runs, uint64_t count,
                             const float *const *operands, float *out) {
  for (uint64_t r = blockIdx.y; r < count; r += gridDim.y) {
    DeviceRun run = runs[r];
    float *to = out + run.offset;
    for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x;
         i < run.count; i += uint64_t(gridDim.x) * blockDim.x)
      to[i] = run.first < 0
                  ? 0.0f
                  : operands[run.operand][run.first + int64_t(i) * run.step];
  }
}

__global__ void gatherRowsKernel(const float *table, uint64_t tableRows,
                                 uint64_t row, const float *indices,
                                 uint64_t count, float *out,
                                 unsigned long long *badIndex) {
  uint64_t total = count * row;
  for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < total;
       e += uint64_t(gridDim.x) * blockDim.x) {
    uint64_t i = e / row;
    int32_t v = intOf(indices[i]);
    if (v < 0 || uint64_t(v) >= tableRows) {
      atomicMin(badIndex, (unsigned long long)i);
      continue;
    }
    out[e] = table[uint64_t(v) * row + e % row];
  }
}

__global__ void lastWriterKernel(const float *indices, uint64_t count,
                                 uint64_t tableRows, long long *lastWriter,
                                 unsigned long long *badIndex) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count;
       i += uint64_t(gridDim.x) * blockDim.x) {
    int32_t v = intOf(indices[i]);
    if (v < 0 || uint64_t(v) >= tableRows)
      atomicMin(badIndex, (unsigned long long)i);
    else if (lastWriter)
      atomicMax(&lastWriter[v], (long long)i);
  }
}

__global__ void scatterRowsKernel(const float *rows, const float *indices,
                                  uint64_t count, float *table,
                                  uint64_t tableRows, uint64_t row,
                                  const long long *lastWriter) {
  uint64_t total = count * row;
  for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < total;
       e += uint64_t(gridDim.x) * blockDim.x) {
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
  for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < m * n;
       e += uint64_t(gridDim.x) * blockDim.x) {
    uint64_t r = e / n, j = e % n;
    uint32_t sum = 0;
    for (uint64_t i = 0; i < k; ++i)
      sum += uint32_t(intOf(x[r * k + i])) * uint32_t(intOf(w[i * n + j]));
    out[e] = wordOf(int32_t(sum));
  }
}

__global__ void intToFloatKernel(const float *in, float *out, uint64_t count) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count;
       i += uint64_t(gridDim.x) * blockDim.x)
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
  for (uint64_t e = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; e < m * n;
       e += uint64_t(gridDim.x) * blockDim.x) {
    uint64_t j = e % n;
    float v = acc[e];
    if (scale)
      v = lane(f.mul, v, scale[j], 0.0f);
    if (bias) {
      float b = f.hasBiasCast ? lane(f.biasCast, bias[j], 0.0f, 0.0f) : bias[j];
      v = lane(f.add, v, b, 0.0f);
    }
    if (f.hasActivation)
      v = lane(f.activation, v, 0.0f, 0.0f);
    out[e] = f.hasCast ? lane(f.cast, v, 0.0f, 0.0f) : v;
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
                  void *stream) {
  if (!rows)
    return;
  unsigned blocks = unsigned(rows < 65535 ? rows : 65535);
  reduceKernel<<<blocks, kThreads, 0, streamOf(stream)>>>(
      opcode, isFloat, round, in, out, rows, row);
}

void launchSoftmax(LaneOp::Round round, const float *in, float *out,
                   uint64_t rows, uint64_t row, void *stream) {
  if (!rows || !row)
    return;
  unsigned blocks = unsigned(rows < 65535 ? rows : 65535);
  softmaxKernel<<<blocks, kThreads, 0, streamOf(stream)>>>(round, in, out, rows,
                                                           row);
}

void launchTranspose(const Strides &strides, const float *in, float *out,
                     uint64_t count, void *stream) {
  if (!count)
    return;
  transposeKernel<<<blocksFor(count), kThreads, 0, streamOf(stream)>>>(
      strides, in, out, count);
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
