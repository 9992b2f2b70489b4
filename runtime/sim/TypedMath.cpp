//===- TypedMath.cpp - Numerics of the types other than fp32 -----------===//

#include "runtime/sim/TypedMath.h"

#include "runtime/sim/DataTypes.h"
#include "runtime/sim/LaneMath.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace hetc::sim {

namespace {
using lane::wrap;

template <typename Fn>
void applyInt(const float *a, float *out, uint32_t active, uint32_t width,
              Fn fn) {
  for (uint32_t i = 0; i < active; ++i)
    out[i] = wordOfInt(fn(intOfWord(a[i]), i));
  std::fill(out + active, out + width, 0.0f);
}
} // namespace

void roundLanes(io::ElementType type, float *lanes, uint32_t active) {
  if (type == io::ElementType::F32)
    return;
  for (uint32_t i = 0; i < active; ++i)
    lanes[i] = io::roundTo(type, lanes[i]);
}

void integerBinary(hetx::Opcode op, const float *a, const float *b, float *out,
                   uint32_t active, uint32_t width) {
  applyInt(a, out, active, width, [op, b](int32_t x, uint32_t i) {
    return lane::intBinary(op, x, intOfWord(b[i]));
  });
}

void compareLanes(hetx::Opcode op, bool isFloat, const float *a,
                  const float *b, float *out, uint32_t active, uint32_t width) {
  for (uint32_t i = 0; i < active; ++i) {
    bool holds = isFloat ? lane::compare(op, a[i], b[i])
                         : lane::compare(op, intOfWord(a[i]), intOfWord(b[i]));
    out[i] = wordOfInt(holds ? 1 : 0);
  }
  std::fill(out + active, out + width, 0.0f);
}

void selectLanes(const float *condition, const float *a, const float *b,
                 float *out, uint32_t active, uint32_t width) {
  for (uint32_t i = 0; i < active; ++i)
    std::memcpy(&out[i], intOfWord(condition[i]) != 0 ? &a[i] : &b[i],
                sizeof(float));
  std::fill(out + active, out + width, 0.0f);
}

void integerUnary(hetx::Opcode op, const float *a, float *out, uint32_t active,
                  uint32_t width) {
  applyInt(a, out, active, width,
           [op](int32_t x, uint32_t) { return lane::intUnary(op, x); });
}

void integerReduce(hetx::Opcode op, const float *a, float *out,
                   uint32_t active, uint32_t width) {
  float result = op == hetx::V_REDUCE_SUM ? wordOfInt(0) : a[0];
  for (uint32_t i = op == hetx::V_REDUCE_SUM ? 0 : 1; i < active; ++i)
    result = lane::join(op, false, result, a[i]);
  std::fill(out, out + width, result);
}

void castLanes(io::ElementType from, io::ElementType to, const float *a,
               float *out, uint32_t active, uint32_t width,
               io::Overflow overflow, io::E8M0Rounding rounding) {
  bool fromFloat = io::isFloat(from), toFloat = io::isFloat(to);
  bool wrap = overflow == io::Overflow::Wrap;
  for (uint32_t i = 0; i < active; ++i) {
    if (toFloat) {
      float value = fromFloat ? a[i] : float(intOfWord(a[i]));
      out[i] = io::roundTo(to, value, overflow, rounding);
    } else if (fromFloat) {
      out[i] = wordOfInt(wrap ? io::wrapFloatTo(to, a[i])
                              : io::saturateTo(to, a[i]));
    } else {
      out[i] = wordOfInt(wrap ? io::wrapTo(to, intOfWord(a[i]))
                              : io::clampTo(to, intOfWord(a[i])));
    }
  }
  std::fill(out + active, out + width, 0.0f);
}

void integerMatmul(const float *x, const PlaneWeights &weights, float *out,
                   uint32_t width) {
  std::fill(out, out + width, 0.0f); // the word of int32 0
  for (uint32_t k = 0; k < weights.rowCount; ++k) {
    uint32_t i = weights.rows[k];
    uint32_t xi = uint32_t(intOfWord(x[i]));
    if (xi == 0)
      continue; // adds nothing: integer sums are exact in any order
    const float *row = weights.row(i, width);
    for (uint32_t j = 0; j < weights.cols; ++j)
      out[j] = wordOfInt(wrap(uint32_t(intOfWord(out[j])) +
                              xi * uint32_t(intOfWord(row[j]))));
  }
}

} // namespace hetc::sim
