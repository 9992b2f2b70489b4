//===- VectorMath.h - fp32 numerics of the vector and matrix units -*- C++ -*-//
//
// The arithmetic of the docs/isa.md "Numerics" section: IEEE fp32, active
// lanes computed and the rest zeroed, matrix products accumulated in order
// from +0.0.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_VECTORMATH_H
#define HETC_RUNTIME_SIM_VECTORMATH_H

#include "runtime/schema/hetx.pb.h"

#include <cstddef>
#include <cstdint>

namespace hetc::sim {

/// out = a op b on lanes [0, active); lanes [active, width) become zero.
void vectorBinary(hetx::Opcode op, const float *a, const float *b, float *out,
                  uint32_t active, uint32_t width);

/// out = op(a) on lanes [0, active); lanes [active, width) become zero.
void vectorUnary(hetx::Opcode op, const float *a, float *out, uint32_t active,
                 uint32_t width);

/// Reduces lanes [0, active) of `a` (a sum in lane order from +0.0; the
/// maximum or minimum as a fold from lane 0, quiet NaN if any lane is NaN)
/// and writes the result to every lane [0, width) of `out`.
/// The float reductions of vectorReduce: `((+0.0 + a[0]) + a[1]) + ...`,
/// and the folds `maxOf(maxOf(a[0], a[1]), ...)` and minOf's (which start
/// from a[0], and so give it for n = 0).
float sumInOrder(const float *a, uint32_t n);
float maxInOrder(const float *a, uint32_t n);
float minInOrder(const float *a, uint32_t n);

void vectorReduce(hetx::Opcode op, const float *a, float *out, uint32_t active,
                  uint32_t width);

/// A plane's weights, and where they may be non-zero.
struct PlaneWeights {
  /// width x width; only the rows listed in `rows` are read (the others
  /// are all +0.0 and their memory may hold anything).
  const float *data = nullptr;
  /// When set, row i is at rowData[i] instead of data + i * width.
  const float *const *rowData = nullptr;

  /// Row `i`'s `width` values.
  const float *row(uint32_t i, uint32_t width) const {
    return rowData ? rowData[i] : data + size_t(i) * width;
  }
  /// The `rowCount` rows that may hold anything but +0.0, in increasing
  /// order.
  const uint32_t *rows = nullptr;
  uint32_t rowCount = 0;
  /// Columns `cols` .. width - 1 are +0.0 in every row.
  uint32_t cols = 0;
  /// Per row: nonzero when the row holds only finite values.
  const uint8_t *finite = nullptr;
};

/// Copies a weight row of `count` values from `src` to `dst` (unless `dst`
/// is null) and returns its extent, the index past its last value that is
/// not +0.0 (0 for a row of +0.0); `finite` says whether all its values
/// are finite.
uint32_t copyWeightRow(const float *src, float *dst, uint32_t count,
                       bool &finite);

/// out[j] = sum_i x[i] * weights[i * width + j], accumulated in fp32 from
/// +0.0 in order i = 0 .. width - 1, bit-identical to computing every row
/// and column.
void matmul(const float *x, const PlaneWeights &weights, float *out,
            uint32_t width);

/// matmul(xs[b], weights, outs[b], width) for every b < count, with the same
/// bits, but each weight row read once for the whole batch rather than once
/// per vector. No out may alias an x.
void matmulBatch(const float *const *xs, float *const *outs, uint32_t count,
                 const PlaneWeights &weights, uint32_t width);

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_VECTORMATH_H
