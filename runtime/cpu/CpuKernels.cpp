//===- CpuKernels.cpp - The kernels of a plan, on the host -------------===//
//
// Each kernel computes its elements with the chip model's own numerics
// (runtime/sim/VectorMath.h and TypedMath.h): the vector unit's operations
// on whole rows, reductions a vector of the chip's lanes at a time and
// combined as the chip combines them. Float matrix products go through
// oneDNN's sgemm (fp32, the order of the sums being oneDNN's) and integer
// ones through a loop with int32 wrap-around, as on the chip.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/CpuKernels.h"

#include "runtime/cpu/Broadcast.h"

#include "runtime/sim/DataTypes.h"
#include "runtime/sim/LaneMath.h"
#include "runtime/sim/TypedMath.h"
#include "runtime/sim/VectorMath.h"
#include "runtime/sim/VectorUnit.h"
#include "runtime/sim/WidestVectors.h"

#include <dnnl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace hetc::cpu {

namespace {

using sim::Op;

/// The vector unit's `op` on `n` elements at once (the chip applies it to
/// one vector): sim::computeVector, which the chip model runs.
void lanes(const Op &op, std::initializer_list<const float *> src, float *out,
           uint32_t n) {
  sim::computeVector(op, src.begin(), out, n, n);
}

/// `op` of `type` lanes to `type`.
Op typed(hetx::Opcode opcode, io::ElementType type) {
  return sim::vectorOp(opcode, type, type);
}

/// One lane reduced: `opcode` over `a[0, n)`, in `type`.
float reduceLanes(hetx::Opcode opcode, io::ElementType type, const float *a,
                  uint32_t n, std::vector<float> &scratch) {
  scratch.resize(std::max<size_t>(n, 1));
  lanes(typed(opcode, type), {a}, scratch.data(), n);
  return scratch[0];
}

/// Combines two reduced lanes (partial results) with `opcode` in `type`.
float combine(hetx::Opcode opcode, io::ElementType type, float a, float b) {
  float out;
  lanes(typed(opcode, type), {&a, &b}, &out, 1);
  return out;
}

/// The largest count of elements one call of the lane routines takes.
constexpr uint64_t kChunk = uint64_t(1) << 20;

/// Calls `f(begin, end)` on blocks that cover [0, count), spread over the
/// OpenMP threads when the kernel's `work` (elements touched) is worth it.
template <typename F> void parallelBlocks(uint64_t count, uint64_t work, F f) {
#ifdef _OPENMP
  constexpr uint64_t kMinWork = uint64_t(1) << 15;
  int threads = omp_get_max_threads();
  if (threads > 1 && count > 1 && work >= kMinWork) {
    int64_t blocks = int64_t(std::min<uint64_t>(count, uint64_t(threads) * 4));
#pragma omp parallel for schedule(dynamic)
    for (int64_t b = 0; b < blocks; ++b)
      f(count * uint64_t(b) / uint64_t(blocks),
        count * uint64_t(b + 1) / uint64_t(blocks));
    return;
  }
#endif
  f(uint64_t(0), count);
}

/// Calls `f(at, n)` on pieces of at most kChunk elements covering
/// [0, elements), in parallel.
template <typename F> void forEachPiece(uint64_t elements, F f) {
  parallelBlocks(elements, elements, [&](uint64_t begin, uint64_t end) {
    for (uint64_t at = begin; at < end; at += kChunk)
      f(at, uint32_t(std::min(kChunk, end - at)));
  });
}

/// Calls `f(rowIndex, rowPointers)` for each row of `broadcast`'s result,
/// in parallel, with one pointer per operand to the row's elements (a
/// spread operand's element repeated in a row of the calling thread's).
template <typename F>
void forEachRow(const Broadcast &broadcast,
                const std::vector<const float *> &bases, F f) {
  uint64_t row = broadcast.rowLength(), rows = broadcast.rows();
  if (row == 0)
    return;
  parallelBlocks(rows, rows * row, [&](uint64_t begin, uint64_t end) {
    std::vector<const float *> pointers(bases.size());
    std::vector<std::vector<float>> spreadRows(bases.size());
    for (uint64_t r = begin; r < end; ++r) {
      for (size_t i = 0; i < bases.size(); ++i) {
        uint64_t at = broadcast.rowStart(i, r);
        if (broadcast.spread(i)) {
          spreadRows[i].assign(row, bases[i][at]);
          pointers[i] = spreadRows[i].data();
        } else {
          pointers[i] = bases[i] + at;
        }
      }
      f(r, pointers);
    }
  });
}

std::vector<const PlanBufferInfo *> operandInfos(const Plan &state,
                                                 const PlanKernelInfo &kernel) {
  std::vector<const PlanBufferInfo *> infos;
  for (uint32_t operand : kernel.operands)
    infos.push_back(&state.buffers[operand]);
  return infos;
}

void runBinary(const Plan &state, const PlanKernelInfo &kernel,
               const std::vector<const float *> &in, float *out) {
  const PlanBufferInfo &result = state.buffers[kernel.result];
  Broadcast broadcast(result.shape, operandInfos(state, kernel));
  if (broadcast.allSame()) {
    forEachPiece(result.elements, [&](uint64_t at, uint32_t n) {
      lanes(kernel.op, {in[0] + at, in[1] + at}, out + at, n);
    });
    return;
  }
  uint64_t row = broadcast.rowLength();
  forEachRow(broadcast, {in[0], in[1]},
             [&](uint64_t r, const std::vector<const float *> &p) {
               lanes(kernel.op, {p[0], p[1]}, out + r * row, uint32_t(row));
             });
}

void runSelect(const Plan &state, const PlanKernelInfo &kernel,
               const std::vector<const float *> &in, float *out) {
  const PlanBufferInfo &result = state.buffers[kernel.result];
  Broadcast broadcast(result.shape, operandInfos(state, kernel));
  uint64_t row = broadcast.rowLength();
  if (broadcast.allSame()) {
    forEachPiece(result.elements, [&](uint64_t at, uint32_t n) {
      sim::selectLanes(in[0] + at, in[1] + at, in[2] + at, out + at, n, n);
    });
    return;
  }
  forEachRow(broadcast, {in[0], in[1], in[2]},
             [&](uint64_t r, const std::vector<const float *> &p) {
               sim::selectLanes(p[0], p[1], p[2], out + r * row, uint32_t(row),
                                uint32_t(row));
             });
}

void runUnary(const PlanKernelInfo &kernel, uint64_t elements, const float *in,
              float *out) {
  forEachPiece(elements, [&](uint64_t at, uint32_t n) {
    lanes(kernel.op, {in + at}, out + at, n);
  });
}

void runReduce(const Plan &state, const PlanKernelInfo &kernel, const float *in,
               float *out) {
  const PlanBufferInfo &input = state.buffers[kernel.operands[0]];
  io::ElementType type = kernel.op.inType;
  hetx::Opcode opcode = kernel.op.opcode;
  hetx::Opcode join = opcode == hetx::V_REDUCE_SUM   ? hetx::V_ADD
                      : opcode == hetx::V_REDUCE_MAX ? hetx::V_MAX
                                                     : hetx::V_MIN;
  uint64_t row = input.rowLength(), width = state.lanes;
  if (row == 0) {
    // Rows of no elements: each result is 0.
    const PlanBufferInfo &result = state.buffers[kernel.result];
    std::fill(out, out + result.elements, 0.0f);
    return;
  }
  parallelBlocks(
      input.rows(), input.elements, [&](uint64_t begin, uint64_t end) {
        std::vector<float> scratch;
        for (uint64_t r = begin; r < end; ++r) {
          const float *x = in + r * row;
          float acc = 0.0f;
          for (uint64_t j = 0; j * width < row; ++j) {
            uint32_t n = uint32_t(std::min(width, row - j * width));
            float part = reduceLanes(opcode, type, x + j * width, n, scratch);
            acc = j ? combine(join, type, part, acc) : part;
          }
          out[r] = acc;
        }
      });
}

/// Softmax over f32 rows r in [begin, end), as runSoftmax computes it
/// vector by vector, with the loops laid out for the host: each maximum 16
/// lanes at a time, the exponentials over whole rows, and the sums of
/// kRows rows at once (each row still adds its lanes in order, but the
/// rows' sums are independent chains the adder interleaves).
void softmaxRowsF32(const float *in, float *out, uint64_t row, uint64_t width,
                    uint64_t begin, uint64_t end) {
  constexpr uint64_t kRows = 8;
  auto chunk = [&](uint64_t j) {
    return uint32_t(std::min(width, row - j * width));
  };
  for (uint64_t first = begin; first < end; first += kRows) {
    uint64_t count = std::min(kRows, end - first);
    float sums[kRows];
    for (uint64_t k = 0; k < count; ++k) {
      const float *x = in + (first + k) * row;
      float *y = out + (first + k) * row;
      float max = 0.0f;
      for (uint64_t j = 0; j * width < row; ++j) {
        float part = sim::maxInOrder(x + j * width, chunk(j));
        max = j ? sim::lane::maxOf(max, part) : part;
      }
      for (uint64_t i = 0; i < row; ++i)
        y[i] = x[i] - max;
      sim::vectorUnary(hetx::V_EXP, y, y, uint32_t(row), uint32_t(row));
    }
    for (uint64_t j = 0; j * width < row; ++j) {
      const float *y[kRows];
      float parts[kRows];
      for (uint64_t k = 0; k < kRows; ++k) {
        y[k] = out + (first + std::min(k, count - 1)) * row + j * width;
        parts[k] = 0.0f;
      }
      for (uint32_t i = 0, n = chunk(j); i < n; ++i)
        for (uint64_t k = 0; k < kRows; ++k)
          parts[k] = parts[k] + y[k][i];
      for (uint64_t k = 0; k < count; ++k)
        sums[k] = j ? sums[k] + parts[k] : parts[k];
    }
    for (uint64_t k = 0; k < count; ++k) {
      float *y = out + (first + k) * row;
      for (uint64_t i = 0; i < row; ++i)
        y[i] = y[i] / sums[k];
    }
  }
}

void runSoftmax(const Plan &state, const PlanKernelInfo &kernel,
                const float *in, float *out) {
  const PlanBufferInfo &input = state.buffers[kernel.operands[0]];
  io::ElementType type = kernel.op.inType;
  uint64_t row = input.rowLength(), width = state.lanes;
  if (type == io::ElementType::F32 && row <= uint64_t(UINT32_MAX)) {
    parallelBlocks(input.rows(), input.elements,
                   [&](uint64_t begin, uint64_t end) {
                     softmaxRowsF32(in, out, row, width, begin, end);
                   });
    return;
  }
  Op sub = typed(hetx::V_SUB, type), exp = typed(hetx::V_EXP, type),
     div = typed(hetx::V_DIV, type);
  parallelBlocks(
      input.rows(), input.elements, [&](uint64_t begin, uint64_t end) {
        std::vector<float> scratch, spread(width);
        for (uint64_t r = begin; r < end; ++r) {
          const float *x = in + r * row;
          float *y = out + r * row;
          float max = 0.0f, sum = 0.0f;
          for (uint64_t j = 0; j * width < row; ++j) {
            uint32_t n = uint32_t(std::min(width, row - j * width));
            float part = reduceLanes(hetx::V_REDUCE_MAX, type, x + j * width, n,
                                     scratch);
            max = j ? combine(hetx::V_MAX, type, max, part) : part;
          }
          // The exponentials go to the result, then are divided in place.
          std::fill(spread.begin(), spread.end(), max);
          for (uint64_t j = 0; j * width < row; ++j) {
            uint32_t n = uint32_t(std::min(width, row - j * width));
            lanes(sub, {x + j * width, spread.data()}, y + j * width, n);
            lanes(exp, {y + j * width}, y + j * width, n);
            float part = reduceLanes(hetx::V_REDUCE_SUM, type, y + j * width, n,
                                     scratch);
            sum = j ? combine(hetx::V_ADD, type, sum, part) : part;
          }
          std::fill(spread.begin(), spread.end(), sum);
          for (uint64_t j = 0; j * width < row; ++j) {
            uint32_t n = uint32_t(std::min(width, row - j * width));
            lanes(div, {y + j * width, spread.data()}, y + j * width, n);
          }
        }
      });
}

void runTranspose(const Plan &state, const PlanKernelInfo &kernel,
                  const float *in, float *out) {
  const PlanBufferInfo &input = state.buffers[kernel.operands[0]];
  const PlanBufferInfo &result = state.buffers[kernel.result];
  size_t rank = input.shape.size();
  if (result.elements == 0)
    return;
  if (rank == 0) {
    out[0] = in[0];
    return;
  }
  std::vector<uint64_t> inStride(rank, 1);
  for (size_t d = rank - 1; d-- > 0;)
    inStride[d] = inStride[d + 1] * uint64_t(input.shape[d + 1]);
  // Result dimension d walks input dimension perm[d].
  std::vector<uint64_t> stride(rank);
  for (size_t d = 0; d < rank; ++d)
    stride[d] = inStride[size_t(kernel.perm[d])];
  uint64_t inner = uint64_t(result.shape.back()), step = stride.back();
  parallelBlocks(result.elements / inner, result.elements,
                 [&](uint64_t begin, uint64_t end) {
                   for (uint64_t r = begin; r < end; ++r) {
                     uint64_t at = 0, rest = r;
                     for (size_t d = rank - 1; d-- > 0;) {
                       uint64_t size = uint64_t(result.shape[d]);
                       at += (rest % size) * stride[d];
                       rest /= size;
                     }
                     float *y = out + r * inner;
                     if (step == 1)
                       std::memcpy(y, in + at, inner * sizeof(float));
                     else
                       for (uint64_t j = 0; j < inner; ++j)
                         y[j] = in[at + j * step];
                   }
                 });
}

/// The window of a channels-last depthwise convolution: the map's, the
/// kernel's and the output's rows and columns, the strides, begin pads
/// and dilations, and the channels.
struct NhwcWindow {
  int64_t in[2], kernel[2], out[2], stride[2], pad[2], dilation[2];
  uint64_t channels;
};

/// Output row `oy` of a channels-last depthwise convolution: per output
/// position, the products of the input rows under the kernel elements
/// inside the map and their weight rows, summed in kernel order as the
/// chip sums them, then the bias row (when not null).
HETC_WIDEST_VECTORS void depthwiseRowNhwc(const NhwcWindow &w, int64_t oy,
                                          const float *__restrict x,
                                          const float *__restrict weight,
                                          const float *__restrict bias,
                                          float *__restrict out) {
  uint64_t channels = w.channels;
  for (int64_t ox = 0; ox < w.out[1]; ++ox) {
    float *__restrict acc = out + uint64_t(oy * w.out[1] + ox) * channels;
    bool first = true;
    for (int64_t i = 0; i < w.kernel[0]; ++i) {
      int64_t iy = oy * w.stride[0] - w.pad[0] + i * w.dilation[0];
      if (iy < 0 || iy >= w.in[0])
        continue;
      for (int64_t j = 0; j < w.kernel[1]; ++j) {
        int64_t ix = ox * w.stride[1] - w.pad[1] + j * w.dilation[1];
        if (ix < 0 || ix >= w.in[1])
          continue;
        const float *__restrict row =
            x + uint64_t(iy * w.in[1] + ix) * channels;
        const float *__restrict wr =
            weight + uint64_t(i * w.kernel[1] + j) * channels;
        if (first) {
          for (uint64_t c = 0; c < channels; ++c)
            acc[c] = row[c] * wr[c];
          first = false;
        } else {
          for (uint64_t c = 0; c < channels; ++c) {
            float product = row[c] * wr[c];
            acc[c] += product;
          }
        }
      }
    }
    if (bias)
      for (uint64_t c = 0; c < channels; ++c)
        acc[c] += bias[c];
  }
}

/// A depthwise convolution of an H x W x C map (PLAN_DEPTHWISE_CONV), an
/// output row at a time (depthwiseRowNhwc), the rows spread over the
/// threads.
void runDepthwiseConv(const Plan &state, const PlanKernelInfo &kernel,
                      const std::vector<const float *> &operands, float *out) {
  const std::vector<int64_t> &in = state.buffers[kernel.operands[0]].shape;
  const std::vector<int64_t> &k = state.buffers[kernel.operands[1]].shape;
  const std::vector<int64_t> &y = state.buffers[kernel.result].shape;
  NhwcWindow w{};
  for (int d = 0; d < 2; ++d) {
    w.in[d] = in[size_t(d)];
    w.kernel[d] = k[size_t(d)];
    w.out[d] = y[size_t(d)];
    w.stride[d] = kernel.strides[size_t(d)];
    w.pad[d] = kernel.pads[size_t(d)];
    w.dilation[d] = kernel.dilations[size_t(d)];
  }
  w.channels = uint64_t(in[2]);
  const float *bias = operands.size() > 2 ? operands[2] : nullptr;
  uint64_t work = uint64_t(y[0] * y[1] * k[0] * k[1]) * w.channels;
  parallelBlocks(uint64_t(y[0]), work, [&](uint64_t begin, uint64_t end) {
    for (uint64_t oy = begin; oy < end; ++oy)
      depthwiseRowNhwc(w, int64_t(oy), operands[0], operands[1], bias, out);
  });
}

/// Output row `row` of a depthwise plane from `lines` (the input rows the
/// kernel rows meet, `taps` the first weight of each), each output column
/// the sum of its kernel elements inside the map. Columns whose every
/// kernel column lies inside go through `interior` when it is given; the
/// rest one at a time.
template <typename Interior>
[[gnu::always_inline]] inline void
depthwiseRow(const plan::Window3 &w, const float *const *lines,
             const float *const *taps, int64_t count, float *__restrict row,
             Interior interior) {
  int64_t s = w.stride[2], d = w.dilation[2], p = w.pad[2];
  // Output column o reads input columns o * s - p + kx * d: all inside
  // for o in [lo, hi).
  int64_t lo = p <= 0 ? 0 : (p + s - 1) / s;
  int64_t last = w.in[2] - 1 + p - (w.kernel[2] - 1) * d;
  // (No std::min: a clone must not instantiate library templates.)
  int64_t hi = last < 0 ? 0 : last / s + 1;
  hi = hi < w.out[2] ? hi : w.out[2];
  lo = lo < w.out[2] ? lo : w.out[2];
  if (hi < lo)
    hi = lo;
  // The columns whose kernel columns reach past the map, one at a time.
  auto one = [&](int64_t o) __attribute__((always_inline)) {
    float acc = 0.0f;
    for (int64_t l = 0; l < count; ++l)
      for (int64_t kx = 0; kx < w.kernel[2]; ++kx) {
        int64_t ix = o * s - p + kx * d;
        if (ix >= 0 && ix < w.in[2])
          acc += lines[l][ix] * taps[l][kx];
      }
    row[o] = acc;
  };
  for (int64_t o = 0; o < lo; ++o)
    one(o);
  if (!interior(lines, taps, count, lo, hi, row))
    for (int64_t o = lo; o < hi; ++o)
      one(o);
  for (int64_t o = hi; o < w.out[2]; ++o)
    one(o);
}

/// The interior columns of a row of a K x K window of stride S and column
/// dilation 1, all K kernel rows inside the map: each output column's
/// K x K products summed at once, a loop the compiler vectorises over the
/// columns.
template <int K, int S>
[[gnu::always_inline]] inline bool
fixedInterior(const plan::Window3 &w, const float *const *lines,
              const float *const *taps, int64_t count, int64_t lo, int64_t hi,
              float *__restrict row) {
  if (count != K)
    return false;
  int64_t p = w.pad[2];
  const float *__restrict in[K];
  float weight[K * K];
  for (int i = 0; i < K; ++i) {
    in[i] = lines[i] - p;
    for (int j = 0; j < K; ++j)
      weight[i * K + j] = taps[i][j];
  }
  for (int64_t o = lo; o < hi; ++o) {
    float acc = 0.0f;
    for (int i = 0; i < K; ++i)
      for (int j = 0; j < K; ++j)
        acc += in[i][o * S + j] * weight[i * K + j];
    row[o] = acc;
  }
  return true;
}

/// fixedInterior as depthwiseRow takes it.
template <int K, int S> struct FixedInterior {
  const plan::Window3 &w;
  [[gnu::always_inline]] bool operator()(const float *const *lines,
                                         const float *const *taps,
                                         int64_t count, int64_t lo, int64_t hi,
                                         float *row) const {
    return fixedInterior<K, S>(w, lines, taps, count, lo, hi, row);
  }
};

/// No interior form: depthwiseRow takes every column one at a time.
struct NoInterior {
  [[gnu::always_inline]] bool operator()(const float *const *,
                                         const float *const *, int64_t, int64_t,
                                         int64_t, float *) const {
    return false;
  }
};

/// One channel plane of a channels-first depthwise convolution
/// (depthwiseRow per output row), `weights` in kernel order, plus `bias`.
/// 3 x 3 and 5 x 5 windows of stride 1 or 2 and column dilation 1 sum
/// their interior columns at once (fixedInterior). `lines` and `taps` are
/// room for a pointer per kernel row (kernel[0] x kernel[1]); the caller
/// makes them, as a clone must not instantiate library templates (clang
/// leaves them undefined).
HETC_WIDEST_VECTORS void
depthwisePlane(const plan::Window3 &w, const float *__restrict x,
               const float *__restrict weights, float bias, float *__restrict y,
               const float **lines, const float **taps) {
  int64_t outPlane = w.out[0] * w.out[1] * w.out[2];
  bool square = w.kernel[1] == w.kernel[2] && w.dilation[2] == 1;
  int64_t k = square ? w.kernel[2] : 0, s = w.stride[2];
  for (int64_t oz = 0; oz < w.out[0]; ++oz)
    for (int64_t oy = 0; oy < w.out[1]; ++oy) {
      float *row = y + (oz * w.out[1] + oy) * w.out[2];
      // The input rows the kernel rows meet inside the map.
      int64_t count = 0;
      for (int64_t kz = 0; kz < w.kernel[0]; ++kz) {
        int64_t iz = oz * w.stride[0] - w.pad[0] + kz * w.dilation[0];
        if (iz < 0 || iz >= w.in[0])
          continue;
        for (int64_t ky = 0; ky < w.kernel[1]; ++ky) {
          int64_t iy = oy * w.stride[1] - w.pad[1] + ky * w.dilation[1];
          if (iy < 0 || iy >= w.in[1])
            continue;
          lines[size_t(count)] = x + (iz * w.in[1] + iy) * w.in[2];
          taps[size_t(count)] = weights + (kz * w.kernel[1] + ky) * w.kernel[2];
          ++count;
        }
      }
      const float *const *l = lines, *const *t = taps;
      if (k == 3 && s == 1)
        depthwiseRow(w, l, t, count, row, FixedInterior<3, 1>{w});
      else if (k == 3 && s == 2)
        depthwiseRow(w, l, t, count, row, FixedInterior<3, 2>{w});
      else if (k == 5 && s == 1)
        depthwiseRow(w, l, t, count, row, FixedInterior<5, 1>{w});
      else if (k == 5 && s == 2)
        depthwiseRow(w, l, t, count, row, FixedInterior<5, 2>{w});
      else
        depthwiseRow(w, l, t, count, row, NoInterior{});
    }
  if (bias != 0.0f)
    for (int64_t i = 0; i < outPlane; ++i)
      y[i] += bias;
}

/// A channels-first depthwise convolution (PLAN_DEPTHWISE_CONV_CF), a
/// channel plane at a time (depthwisePlane), the planes spread over the
/// threads.
void runDepthwiseConvCf(const PlanKernelInfo &kernel,
                        const std::vector<const float *> &operands,
                        float *out) {
  const plan::Window3 &w = kernel.window;
  uint64_t channels = uint64_t(kernel.inputShape[1]);
  uint64_t planes = uint64_t(kernel.inputShape[0]) * channels;
  uint64_t taps = uint64_t(w.kernel[0] * w.kernel[1] * w.kernel[2]);
  uint64_t inPlane = uint64_t(w.in[0] * w.in[1] * w.in[2]);
  uint64_t outPlane = uint64_t(w.out[0] * w.out[1] * w.out[2]);
  const float *bias = operands.size() > taps + 1 ? operands[taps + 1] : nullptr;
  // Each channel's weights in kernel order, gathered from the columns.
  std::vector<float> weights(channels * taps);
  for (uint64_t t = 0; t < taps; ++t)
    for (uint64_t c = 0; c < channels; ++c)
      weights[c * taps + t] = operands[1 + t][c];
  size_t rows = size_t(w.kernel[0] * w.kernel[1]);
  parallelBlocks(
      planes, planes * outPlane * taps, [&](uint64_t begin, uint64_t end) {
        std::vector<const float *> lines(rows), rowTaps(rows);
        for (uint64_t plane = begin; plane < end; ++plane) {
          uint64_t c = plane % channels;
          depthwisePlane(w, operands[0] + plane * inPlane,
                         weights.data() + c * taps, bias ? bias[c] : 0.0f,
                         out + plane * outPlane, lines.data(), rowTaps.data());
        }
      });
}

void runGather(const PlanKernelInfo &kernel,
               const std::vector<const float *> &in, float *out) {
  float *y = out + kernel.firstElement;
  parallelBlocks(kernel.runs.size(), kernel.elements,
                 [&](uint64_t begin, uint64_t end) {
                   for (uint64_t r = begin; r < end; ++r) {
                     const IndexRun &run = kernel.runs[r];
                     float *to = y + run.offset;
                     if (run.first < 0) {
                       std::memset(to, 0, run.count * sizeof(float));
                     } else {
                       const float *x = in[run.operand] + run.first;
                       if (run.step == 1)
                         std::memcpy(to, x, run.count * sizeof(float));
                       else
                         for (uint64_t i = 0; i < run.count; ++i)
                           to[i] = x[int64_t(i) * run.step];
                     }
                   }
                 });
}

bool runRows(const Plan &state, const PlanKernelInfo &kernel,
             const std::vector<const float *> &in, float *out,
             std::string &error) {
  bool gather = kernel.kind == hetx::PLAN_GATHER_ROWS;
  const PlanBufferInfo &table =
      state.buffers[gather ? kernel.operands[0] : kernel.result];
  const PlanBufferInfo &indices = state.buffers[kernel.operands[1]];
  uint64_t rows = uint64_t(table.shape[0]);
  uint64_t row = rows ? table.elements / rows : 0;
  const float *index = in[1];
  for (uint64_t i = 0; i < indices.elements; ++i) {
    int32_t v = sim::intOfWord(index[i]);
    if (v < 0 || uint64_t(v) >= rows) {
      error = "index out of range: " + kernel.label + ": index " +
              std::to_string(v) + " (element " + std::to_string(i) +
              " of the indices) is outside the table's " +
              std::to_string(rows) + " rows";
      return false;
    }
  }
  // Rows of no elements (a table of shape [n, 0]): the indices are
  // checked, nothing moves.
  if (row == 0)
    return true;
  if (!gather) {
    // In order: of two updates of one row the later stays.
    for (uint64_t i = 0; i < indices.elements; ++i)
      std::memcpy(out + uint64_t(sim::intOfWord(index[i])) * row,
                  in[0] + i * row, row * sizeof(float));
    return true;
  }
  parallelBlocks(indices.elements, indices.elements * row,
                 [&](uint64_t begin, uint64_t end) {
                   for (uint64_t i = begin; i < end; ++i)
                     std::memcpy(out + i * row,
                                 in[0] +
                                     uint64_t(sim::intOfWord(index[i])) * row,
                                 row * sizeof(float));
                 });
  return true;
}

/// The type of a matmul's sums: fp32 for float inputs, int32 otherwise.
io::ElementType sumsType(const PlanKernelInfo &kernel) {
  return io::isFloat(kernel.op.inType) ? io::ElementType::F32
                                       : io::ElementType::I32;
}

/// Where a matmul's sums go: its result `out` when that holds them as they
/// are, else `room` (sized here).
float *sumsRoom(const PlanKernelInfo &kernel, float *out,
                std::vector<float> &room) {
  if (kernel.op.outType == sumsType(kernel))
    return out;
  room.resize(kernel.m * kernel.n);
  return room.data();
}

/// The sums of a matmul's rows in `acc` (fp32 or int32 words) finished as
/// the chip finishes them: scale, bias, activation, conversion to the
/// result's type into `out`. `in` are the kernel's operands as runKernel
/// takes them (its bias and scale rows after the two matrices).
void finishMatmul(const Plan &state, const PlanKernelInfo &kernel,
                  const std::vector<const float *> &in, float *acc,
                  float *out) {
  size_t next = 2;
  const float *bias = kernel.bias >= 0 ? in[next++] : nullptr;
  const float *scale = kernel.scale >= 0 ? in[next++] : nullptr;
  io::ElementType accType = sumsType(kernel);
  uint32_t n = uint32_t(kernel.n);
  std::vector<float> biasRow;
  if (bias) {
    io::ElementType type = state.buffers[uint32_t(kernel.bias)].type;
    if (type != accType) {
      biasRow.resize(n);
      lanes(sim::vectorOp(hetx::V_CAST, type, accType), {bias}, biasRow.data(),
            n);
      bias = biasRow.data();
    }
  }
  Op mul = typed(hetx::V_MUL, accType), add = typed(hetx::V_ADD, accType),
     activation = typed(kernel.activation, accType),
     cast = sim::vectorOp(hetx::V_CAST, accType, kernel.op.outType);
  for (uint64_t r = 0; r < kernel.m; ++r) {
    float *row = acc + r * kernel.n;
    if (scale)
      lanes(mul, {row, scale}, row, n);
    if (bias)
      lanes(add, {row, bias}, row, n);
    if (kernel.activation != hetx::OPCODE_UNSPECIFIED)
      lanes(activation, {row}, row, n);
    if (kernel.op.outType != accType)
      lanes(cast, {row}, out + r * kernel.n, n);
  }
}

void runMatmul(const Plan &state, const PlanKernelInfo &kernel,
               const std::vector<const float *> &in, float *out) {
  uint64_t m = kernel.m, k = kernel.k, n = kernel.n;
  if (m == 0 || n == 0)
    return;
  bool isFloat = io::isFloat(kernel.op.inType);
  std::vector<float> room;
  float *acc = sumsRoom(kernel, out, room);
  const float *x = in[0];
  const float *w =
      kernel.floatWeight.empty() ? in[1] : kernel.floatWeight.data();
  if (isFloat) {
    std::vector<float> converted;
    const PlanBufferInfo &weight = state.buffers[kernel.operands[1]];
    if (kernel.floatWeight.empty() && !io::isFloat(weight.type)) {
      converted.resize(weight.elements);
      for (uint64_t i = 0; i < weight.elements; ++i)
        converted[i] = float(sim::intOfWord(w[i]));
      w = converted.data();
    }
    if (k == 0)
      std::fill(acc, acc + m * n, 0.0f);
    else
      dnnl_sgemm('N', kernel.transposedWeight ? 'T' : 'N', dnnl_dim_t(m),
                 dnnl_dim_t(n), dnnl_dim_t(k), 1.0f, x, dnnl_dim_t(k), w,
                 dnnl_dim_t(kernel.transposedWeight ? k : n), 0.0f, acc,
                 dnnl_dim_t(n));
  } else {
    // int32 sums with wrap-around, exact for i8 and u8 products.
    std::vector<uint32_t> sums(n);
    for (uint64_t r = 0; r < m; ++r) {
      std::fill(sums.begin(), sums.end(), 0u);
      for (uint64_t i = 0; i < k; ++i) {
        int32_t xv = sim::intOfWord(x[r * k + i]);
        if (xv == 0)
          continue;
        const float *wr = w + i * n;
        for (uint64_t j = 0; j < n; ++j)
          sums[j] += uint32_t(xv) * uint32_t(sim::intOfWord(wr[j]));
      }
      for (uint64_t j = 0; j < n; ++j)
        acc[r * n + j] = sim::wordOfInt(int32_t(sums[j]));
    }
  }
  finishMatmul(state, kernel, in, acc, out);
}

} // namespace

void runWindowProduct(const Plan &state, const PlanKernelInfo &gather,
                      const PlanKernelInfo &matmul,
                      const std::vector<WindowRun> &windows,
                      const std::vector<const float *> &gatherOperands,
                      const std::vector<const float *> &matmulOperands,
                      float *out) {
  uint64_t m = matmul.m, k = matmul.k, n = matmul.n;
  std::vector<float> room;
  float *acc = sumsRoom(matmul, out, room);
  std::fill(acc, acc + m * n, 0.0f);
  const float *weights = matmulOperands[0];
  // w times `length` elements of x, `step` apart, added to y.
  auto axpy = [](float w, const float *x, int64_t step, uint64_t length,
                 float *y) {
    if (step == 1)
      for (uint64_t j = 0; j < length; ++j)
        y[j] += w * x[j];
    else
      for (uint64_t j = 0; j < length; ++j)
        y[j] += w * x[int64_t(j) * step];
  };
  if (std::all_of(weights, weights + m * k,
                  [](float w) { return std::isfinite(w); })) {
    for (const WindowRun &run : windows) {
      const float *x = gatherOperands[run.operand] + run.first;
      // The repetitions' rows and columns of the windows, walked.
      uint64_t row = run.at / n, column = run.at % n;
      uint64_t rowStep = run.atStride / n, columnStep = run.atStride % n;
      for (uint64_t rep = 0; rep < run.repeat; ++rep) {
        for (uint64_t r = 0; r < m; ++r)
          axpy(weights[r * k + row], x, run.step, run.count,
               acc + r * n + column);
        x += run.sourceStride;
        row += rowStep;
        column += columnStep;
        if (column >= n) {
          column -= n;
          ++row;
        }
      }
    }
  } else {
    // An infinite or NaN weight times the windows' zeros is NaN, as in
    // sgemm: every run of the gather is walked, its zeros too.
    static const float zero = 0.0f;
    for (const IndexRun &run : gather.runs) {
      uint64_t at = gather.firstElement + run.offset, left = run.count;
      bool zeros = run.first < 0;
      const float *x = zeros ? &zero : gatherOperands[run.operand] + run.first;
      int64_t step = zeros ? 0 : run.step;
      while (left > 0) {
        uint64_t row = at / n, column = at % n;
        uint64_t length = std::min(left, n - column);
        for (uint64_t r = 0; r < m; ++r)
          axpy(weights[r * k + row], x, step, length, acc + r * n + column);
        x += int64_t(length) * step;
        at += length;
        left -= length;
      }
    }
  }
  finishMatmul(state, matmul, matmulOperands, acc, out);
}

bool runKernel(const Plan &state, const PlanKernelInfo &kernel,
               const std::vector<const float *> &operands, float *result,
               std::string &error) {
  const PlanBufferInfo &out = state.buffers[kernel.result];
  switch (kernel.kind) {
  case hetx::PLAN_MATMUL:
    runMatmul(state, kernel, operands, result);
    return true;
  case hetx::PLAN_BINARY:
    runBinary(state, kernel, operands, result);
    return true;
  case hetx::PLAN_UNARY:
    runUnary(kernel, out.elements, operands[0], result);
    return true;
  case hetx::PLAN_CAST:
    runUnary(kernel, out.elements, operands[0], result);
    return true;
  case hetx::PLAN_SELECT:
    runSelect(state, kernel, operands, result);
    return true;
  case hetx::PLAN_SOFTMAX:
    runSoftmax(state, kernel, operands[0], result);
    return true;
  case hetx::PLAN_REDUCE:
    runReduce(state, kernel, operands[0], result);
    return true;
  case hetx::PLAN_TRANSPOSE:
    runTranspose(state, kernel, operands[0], result);
    return true;
  case hetx::PLAN_GATHER:
    runGather(kernel, operands, result);
    return true;
  case hetx::PLAN_DEPTHWISE_CONV:
    runDepthwiseConv(state, kernel, operands, result);
    return true;
  case hetx::PLAN_DEPTHWISE_CONV_CF:
    runDepthwiseConvCf(kernel, operands, result);
    return true;
  case hetx::PLAN_GATHER_ROWS:
  case hetx::PLAN_SCATTER_ROWS:
    return runRows(state, kernel, operands, result, error);
  case hetx::PLAN_CONV:
    error = kernel.label + ": a convolution runs as the program made it "
                           "ready at load (Convolution)";
    return false;
  default:
    error = kernel.label + ": not a kernel kind";
    return false;
  }
}

} // namespace hetc::cpu
