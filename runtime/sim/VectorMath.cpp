//===- VectorMath.cpp - fp32 numerics of the vector and matrix units ---===//
//
// Built with -ffp-contract=off: a fused multiply-add would round once
// instead of twice and change results.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/VectorMath.h"

#include "runtime/sim/LaneMath.h"
#include "runtime/sim/WidestVectors.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace hetc::sim {

namespace {
/// `out[i] = lane::floatBinary(Op, a[i], b[i])` over the active lanes, the
/// rest zero; the opcode a template argument, so that its switch folds away
/// and the loop is the operation alone. Inlined into each clone of its
/// caller, so that it is compiled for that clone's vectors.
template <hetx::Opcode Op>
[[gnu::always_inline]] inline void binaryLanes(const float *a, const float *b,
                                               float *out, uint32_t active,
                                               uint32_t width) {
  for (uint32_t i = 0; i < active; ++i)
    out[i] = lane::floatBinary(Op, a[i], b[i]);
  std::fill(out + active, out + width, 0.0f);
}

template <hetx::Opcode Op>
[[gnu::always_inline]] inline void unaryLanes(const float *a, float *out,
                                              uint32_t active, uint32_t width) {
  for (uint32_t i = 0; i < active; ++i)
    out[i] = lane::floatUnary(Op, a[i]);
  std::fill(out + active, out + width, 0.0f);
}
} // namespace

// The lane routines in the widest vectors the host has: each lane is
// computed on its own, so the bits do not depend on the width.
HETC_WIDEST_VECTORS void vectorBinary(hetx::Opcode op, const float *a,
                                      const float *b, float *out,
                                      uint32_t active, uint32_t width) {
  switch (op) {
  case hetx::V_ADD:
    return binaryLanes<hetx::V_ADD>(a, b, out, active, width);
  case hetx::V_SUB:
    return binaryLanes<hetx::V_SUB>(a, b, out, active, width);
  case hetx::V_MUL:
    return binaryLanes<hetx::V_MUL>(a, b, out, active, width);
  case hetx::V_DIV:
    return binaryLanes<hetx::V_DIV>(a, b, out, active, width);
  case hetx::V_MIN:
    return binaryLanes<hetx::V_MIN>(a, b, out, active, width);
  case hetx::V_POW:
    return binaryLanes<hetx::V_POW>(a, b, out, active, width);
  case hetx::V_FMOD:
    return binaryLanes<hetx::V_FMOD>(a, b, out, active, width);
  case hetx::V_MOD:
    return binaryLanes<hetx::V_MOD>(a, b, out, active, width);
  default:
    return binaryLanes<hetx::V_MAX>(a, b, out, active, width);
  }
}

HETC_WIDEST_VECTORS void vectorUnary(hetx::Opcode op, const float *a,
                                     float *out, uint32_t active,
                                     uint32_t width) {
  switch (op) {
  case hetx::V_RELU:
    return unaryLanes<hetx::V_RELU>(a, out, active, width);
  case hetx::V_SIGMOID:
    return unaryLanes<hetx::V_SIGMOID>(a, out, active, width);
  case hetx::V_TANH:
    return unaryLanes<hetx::V_TANH>(a, out, active, width);
  case hetx::V_NEG:
    return unaryLanes<hetx::V_NEG>(a, out, active, width);
  case hetx::V_ABS:
    return unaryLanes<hetx::V_ABS>(a, out, active, width);
  case hetx::V_SQRT:
    return unaryLanes<hetx::V_SQRT>(a, out, active, width);
  case hetx::V_RECIPROCAL:
    return unaryLanes<hetx::V_RECIPROCAL>(a, out, active, width);
  case hetx::V_LOG:
    return unaryLanes<hetx::V_LOG>(a, out, active, width);
  case hetx::V_ERF:
    return unaryLanes<hetx::V_ERF>(a, out, active, width);
  case hetx::V_FLOOR:
    return unaryLanes<hetx::V_FLOOR>(a, out, active, width);
  case hetx::V_CEIL:
    return unaryLanes<hetx::V_CEIL>(a, out, active, width);
  case hetx::V_SIN:
    return unaryLanes<hetx::V_SIN>(a, out, active, width);
  case hetx::V_COS:
    return unaryLanes<hetx::V_COS>(a, out, active, width);
  case hetx::V_ROUND:
    return unaryLanes<hetx::V_ROUND>(a, out, active, width);
  default:
    return unaryLanes<hetx::V_EXP>(a, out, active, width);
  }
}

namespace {
/// The fold `lane::maxOf(... lane::maxOf(a[0], a[1]) ..., a[n-1])` (minOf
/// for !Max) computed 16 lanes at a time: a NaN anywhere gives the quiet
/// NaN; otherwise the fold keeps the first lane holding the extreme value,
/// which only matters for zeros (+0.0 and -0.0 are equal), found last.
template <bool Max>
[[gnu::always_inline]] inline float extremeInOrder(const float *a, uint32_t n) {
  constexpr uint32_t kWays = 16;
  if (n < kWays) {
    float result = a[0];
    for (uint32_t i = 1; i < n; ++i)
      result = Max ? lane::maxOf(result, a[i]) : lane::minOf(result, a[i]);
    return result;
  }
  float best[kWays];
  int32_t nan[kWays];
  for (uint32_t k = 0; k < kWays; ++k) {
    best[k] = a[k];
    nan[k] = a[k] != a[k];
  }
  uint32_t i = kWays;
  for (; i + kWays <= n; i += kWays)
    for (uint32_t k = 0; k < kWays; ++k) {
      float v = a[i + k];
      nan[k] |= v != v;
      best[k] = (Max ? best[k] < v : v < best[k]) ? v : best[k];
    }
  for (uint32_t k = 0; i + k < n; ++k) {
    float v = a[i + k];
    nan[k] |= v != v;
    best[k] = (Max ? best[k] < v : v < best[k]) ? v : best[k];
  }
  float result = best[0];
  int32_t anyNaN = nan[0];
  for (uint32_t k = 1; k < kWays; ++k) {
    anyNaN |= nan[k];
    result = (Max ? result < best[k] : best[k] < result) ? best[k] : result;
  }
  if (anyNaN)
    return lane::quietNaN();
  if (result == 0.0f)
    for (uint32_t j = 0; j < n; ++j)
      if (a[j] == 0.0f)
        return a[j];
  return result;
}
} // namespace

float sumInOrder(const float *a, uint32_t n) {
  float sum = 0.0f;
  for (uint32_t i = 0; i < n; ++i)
    sum = sum + a[i];
  return sum;
}

HETC_WIDEST_VECTORS float maxInOrder(const float *a, uint32_t n) {
  return extremeInOrder<true>(a, n);
}

HETC_WIDEST_VECTORS float minInOrder(const float *a, uint32_t n) {
  return extremeInOrder<false>(a, n);
}

void vectorReduce(hetx::Opcode op, const float *a, float *out, uint32_t active,
                  uint32_t width) {
  float result = op == hetx::V_REDUCE_SUM   ? sumInOrder(a, active)
                 : op == hetx::V_REDUCE_MAX ? maxInOrder(a, active)
                                            : minInOrder(a, active);
  // The result goes to every lane, so that a reduction of a row's valid
  // lanes can be combined with vectors of any lane count.
  std::fill(out, out + width, result);
}

namespace {
/// out[j] += x * row[j] for j in [0, count): one row of the product. Every
/// row that may meet two NaNs in one operation runs this same code, so that
/// which NaN survives (an x86 detail that IEEE leaves open, and that
/// depends on the operand order the compiler picks) is always the same.
[[gnu::noinline]] void accumulateRow(float x, const float *row, float *out,
                                     uint32_t count) {
  for (uint32_t j = 0; j < count; ++j) {
    float product = x * row[j];
    out[j] = out[j] + product;
  }
}

/// The same for a finite x and a row of finite weights, in the widest
/// vectors the host has. No operation here can meet two NaNs: a product of
/// finite values is never NaN, so a sum has at most one NaN operand (the
/// partial sum, which then passes through). Every multiply and add is
/// rounded on its own (-ffp-contract=off), lane by lane, so the bits do not
/// depend on the vector width or the operand order.
HETC_WIDEST_VECTORS void accumulateFiniteRow(float x, const float *row,
                                             float *out, uint32_t count) {
  for (uint32_t j = 0; j < count; ++j) {
    float product = x * row[j];
    out[j] = out[j] + product;
  }
}

/// out[j] = (((out[j] + x[0] * r0[j]) + x[1] * r1[j]) + x[2] * r2[j]) +
/// x[3] * r3[j] for j in [0, count): four rows of the product in their order,
/// the partial sum kept in a register between them. For finite x and finite
/// rows only, for the reason given at accumulateFiniteRow: every operation
/// is the one four calls of it would make, rounded on its own.
HETC_WIDEST_VECTORS void accumulateFiniteRows4(const float *x, const float *r0,
                                               const float *r1, const float *r2,
                                               const float *r3, float *out,
                                               uint32_t count) {
  float x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
  for (uint32_t j = 0; j < count; ++j) {
    float sum = out[j];
    sum = sum + x0 * r0[j];
    sum = sum + x1 * r1[j];
    sum = sum + x2 * r2[j];
    sum = sum + x3 * r3[j];
    out[j] = sum;
  }
}

/// Whether all of `values` are finite; counted without branches.
bool allFinite(const float *values, uint32_t count) {
  uint32_t notFinite = 0;
  for (uint32_t j = 0; j < count; ++j) {
    uint32_t bits;
    std::memcpy(&bits, &values[j], sizeof bits);
    notFinite |= uint32_t((bits & 0x7f800000u) == 0x7f800000u);
  }
  return !notFinite;
}
} // namespace

[[gnu::target_clones("avx512f", "avx2", "default")]] uint32_t
copyWeightRow(const float *src, float *dst, uint32_t count, bool &finite) {
  // One pass, without a branch per lane: narrow layers leave long tails of
  // zeros, found 16 lanes at a time; infinite or NaN is all exponent bits
  // set.
  uint32_t extent = 0, notFinite = 0;
  for (uint32_t first = 0; first < count; first += 16) {
    uint32_t end = std::min(count, first + 16), any = 0;
    for (uint32_t j = first; j < end; ++j) {
      uint32_t bits;
      std::memcpy(&bits, &src[j], sizeof bits);
      any |= bits;
      notFinite |= uint32_t((bits & 0x7f800000u) == 0x7f800000u);
      if (dst)
        dst[j] = src[j];
    }
    if (any)
      extent = end;
  }
  // The last block with a value: back to past its last value.
  while (extent > 0 && src[extent - 1] == 0.0f &&
         !std::signbit(src[extent - 1]))
    --extent;
  finite = !notFinite;
  return extent;
}

void matmul(const float *x, const PlaneWeights &weights, float *out,
            uint32_t width) {
  // Skipping work is exact, bit for bit, because of three facts:
  // - No partial sum is ever -0.0. Each starts at +0.0, and in
  //   round-to-nearest a sum is -0.0 only when both addends are -0.0 (an
  //   exact cancellation gives +0.0, and a sum never underflows to zero).
  // - So adding +0.0 or -0.0 to a partial sum leaves it unchanged: s + 0
  //   is s for every s but -0.0, NaN included (s is an arithmetic result,
  //   hence a quiet NaN, which passes through unchanged).
  // - x[i] * +0.0 is +0.0 or -0.0 when x[i] is finite, but NaN when x[i]
  //   is infinite or NaN.
  // Hence a row of +0.0 weights (one not in `rows`), and the columns from
  // `cols` on of any row, add nothing as long as x[i] is finite. A row whose
  // x[i] is not finite is computed in full, in its turn, so that its NaNs
  // land in every column exactly as in the full product.
  std::fill(out, out + width, 0.0f);
  std::vector<float> zeros;
  uint32_t next = 0;
  for (uint32_t i = 0; i < width; ++i) {
    bool live = next < weights.rowCount && weights.rows[next] == i;
    next += live;
    float xi = x[i];
    bool finite = std::isfinite(xi);
    if (live) {
      const float *row = weights.row(i, width);
      if (finite && weights.finite[i])
        accumulateFiniteRow(xi, row, out, weights.cols);
      else
        accumulateRow(xi, row, out, finite ? weights.cols : width);
    } else if (!finite) {
      // A row of +0.0 that is not in memory.
      zeros.resize(width, 0.0f);
      accumulateRow(xi, zeros.data(), out, width);
    }
  }
}

void matmulBatch(const float *const *xs, float *const *outs, uint32_t count,
                 const PlaneWeights &weights, uint32_t width) {
  // The batched order is exact only where matmul() takes its finite path
  // for every row: all inputs and all listed rows finite. Then matmul()
  // adds, per column below `cols`, the products of the listed rows in
  // increasing row order to +0.0, and leaves the other columns +0.0; so
  // does this, four rows at a time. Anything else goes through matmul().
  bool finite = true;
  for (uint32_t k = 0; k < weights.rowCount && finite; ++k)
    finite = weights.finite[weights.rows[k]];
  for (uint32_t b = 0; b < count && finite; ++b)
    finite = allFinite(xs[b], width);
  if (!finite) {
    for (uint32_t b = 0; b < count; ++b)
      matmul(xs[b], weights, outs[b], width);
    return;
  }
  for (uint32_t b = 0; b < count; ++b)
    std::fill(outs[b], outs[b] + width, 0.0f);
  uint32_t k = 0;
  for (; k + 4 <= weights.rowCount; k += 4) {
    const uint32_t *rows = weights.rows + k;
    const float *r0 = weights.row(rows[0], width);
    const float *r1 = weights.row(rows[1], width);
    const float *r2 = weights.row(rows[2], width);
    const float *r3 = weights.row(rows[3], width);
    for (uint32_t b = 0; b < count; ++b) {
      float x[4] = {xs[b][rows[0]], xs[b][rows[1]], xs[b][rows[2]],
                    xs[b][rows[3]]};
      accumulateFiniteRows4(x, r0, r1, r2, r3, outs[b], weights.cols);
    }
  }
  for (; k < weights.rowCount; ++k) {
    uint32_t i = weights.rows[k];
    for (uint32_t b = 0; b < count; ++b)
      accumulateFiniteRow(xs[b][i], weights.row(i, width), outs[b],
                          weights.cols);
  }
}

} // namespace hetc::sim
