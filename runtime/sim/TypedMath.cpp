//===- TypedMath.cpp - Numerics of the types other than fp32 -----------===//

#include "runtime/sim/TypedMath.h"

#include "runtime/sim/DataTypes.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace hetc::sim {

namespace {
/// Two's-complement wrap-around arithmetic without signed overflow.
int32_t wrap(uint32_t bits) { return int32_t(bits); }

int32_t divide(int32_t a, int32_t b) {
  if (b == 0)
    return 0;
  if (a == std::numeric_limits<int32_t>::min() && b == -1)
    return a;
  return a / b;
}

/// The remainder of a / b with the dividend's sign (C's %); 0 for b = 0.
int32_t truncatedRemainder(int32_t a, int32_t b) {
  if (b == 0 || b == -1)
    return 0;
  return a % b;
}

/// The remainder of a / b with the divisor's sign; 0 for b = 0.
int32_t flooredRemainder(int32_t a, int32_t b) {
  int32_t r = truncatedRemainder(a, b);
  return r != 0 && ((r < 0) != (b < 0)) ? wrap(uint32_t(r) + uint32_t(b)) : r;
}

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
    int32_t y = intOfWord(b[i]);
    switch (op) {
    case hetx::V_ADD:
      return wrap(uint32_t(x) + uint32_t(y));
    case hetx::V_SUB:
      return wrap(uint32_t(x) - uint32_t(y));
    case hetx::V_MUL:
      return wrap(uint32_t(x) * uint32_t(y));
    case hetx::V_DIV:
      return divide(x, y);
    case hetx::V_MIN:
      return std::min(x, y);
    case hetx::V_MOD:
      return flooredRemainder(x, y);
    case hetx::V_FMOD:
      return truncatedRemainder(x, y);
    case hetx::V_AND:
      return x & y;
    case hetx::V_OR:
      return x | y;
    case hetx::V_XOR:
      return x ^ y;
    case hetx::V_SHL:
      return y < 0 || y > 31 ? 0 : wrap(uint32_t(x) << y);
    case hetx::V_SHR:
      return y < 0 || y > 31 ? 0 : wrap(uint32_t(x) >> y);
    default: // V_MAX
      return std::max(x, y);
    }
  });
}

void compareLanes(hetx::Opcode op, bool isFloat, const float *a,
                  const float *b, float *out, uint32_t active, uint32_t width) {
  for (uint32_t i = 0; i < active; ++i) {
    bool holds;
    if (isFloat) {
      float x = a[i], y = b[i];
      holds = op == hetx::V_EQUAL  ? x == y
              : op == hetx::V_LESS ? x < y
                                   : x <= y;
    } else {
      int32_t x = intOfWord(a[i]), y = intOfWord(b[i]);
      holds = op == hetx::V_EQUAL  ? x == y
              : op == hetx::V_LESS ? x < y
                                   : x <= y;
    }
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
  applyInt(a, out, active, width, [op](int32_t x, uint32_t) {
    switch (op) {
    case hetx::V_RELU:
      return std::max(x, 0);
    case hetx::V_NEG:
      return wrap(0u - uint32_t(x));
    case hetx::V_NOT:
      return x == 0 ? 1 : 0;
    default: // V_ABS
      return x < 0 ? wrap(0u - uint32_t(x)) : x;
    }
  });
}

void integerReduce(hetx::Opcode op, const float *a, float *out,
                   uint32_t active, uint32_t width) {
  int32_t result = op == hetx::V_REDUCE_SUM ? 0 : intOfWord(a[0]);
  for (uint32_t i = op == hetx::V_REDUCE_SUM ? 0 : 1; i < active; ++i) {
    int32_t x = intOfWord(a[i]);
    result = op == hetx::V_REDUCE_SUM   ? wrap(uint32_t(result) + uint32_t(x))
             : op == hetx::V_REDUCE_MAX ? std::max(result, x)
                                        : std::min(result, x);
  }
  std::fill(out, out + width, wordOfInt(result));
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
