//===- LaneMath.h - One lane of the vector unit, on host and device -*- C++
//-*-===//
//
// The vector unit's arithmetic on one lane word, defined once: the chip
// model and the CPU backend apply it to vectors and rows
// (VectorMath.cpp, TypedMath.cpp, built by the host compiler), and the CUDA
// backend's device kernels to one element a thread (CudaKernels.cu, built
// by nvcc). Every function is inline and marked for both sides; the math
// library calls are std:: on the host and CUDA's on the device, which
// differ only in the last ulps of the transcendental functions
// (docs/backends.md, "Numerics"). Lane words are fp32 bits for the float
// types and int32 bits for the others (DataTypes.h).
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_LANEMATH_H
#define HETC_RUNTIME_SIM_LANEMATH_H

#include "runtime/schema/hetx.pb.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define HETC_LANE __host__ __device__ inline
#else
#define HETC_LANE inline
#endif

namespace hetc::sim {

/// The routines of the vector unit, one per kind of lane arithmetic
/// (laneRoutineOf() in VectorUnit.h picks an operation's).
enum class LaneRoutine : int32_t {
  FloatBinary,
  IntBinary,
  /// A comparison giving Bool, of float or of int32 lanes.
  FloatCompare,
  IntCompare,
  FloatUnary,
  IntUnary,
  /// V_CAST: between float lanes, from int32 lanes to float, from float
  /// or int32 lanes to an integer type.
  Cast,
  Select,
  FloatReduce,
  IntReduce,
  /// V_BROADCAST: one lane's word to every lane.
  Broadcast,
  /// Not an operation of the vector unit.
  None
};

} // namespace hetc::sim

namespace hetc::sim::lane {

/// The int32 held in a lane word, and the lane word holding one.
HETC_LANE int32_t intOf(float word) {
  int32_t value;
  std::memcpy(&value, &word, sizeof value);
  return value;
}
HETC_LANE float wordOf(int32_t value) {
  float word;
  std::memcpy(&word, &value, sizeof word);
  return word;
}

/// Two's-complement wrap-around without signed overflow.
HETC_LANE int32_t wrap(uint32_t bits) { return int32_t(bits); }

/// The quiet NaN the vector unit gives: 0x7fc00000, glibc's nanf("").
HETC_LANE float quietNaN() { return wordOf(0x7fc00000); }

/// The larger and the smaller of two values; NaN if either is NaN.
HETC_LANE float maxOf(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return quietNaN();
  return a < b ? b : a;
}
HETC_LANE float minOf(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return quietNaN();
  return b < a ? b : a;
}

/// A float binary operation (V_ADD ... V_MOD; anything else is V_MAX).
HETC_LANE float floatBinary(hetx::Opcode op, float x, float y) {
  switch (op) {
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
    return std::pow(x, y);
  case hetx::V_FMOD:
    return std::fmod(x, y);
  case hetx::V_MOD: {
    // numpy's mod: the remainder takes the divisor's sign, a zero one too.
    float r = std::fmod(x, y);
    if (r == 0.0f)
      return std::copysign(0.0f, y);
    return (r < 0.0f) != (y < 0.0f) ? r + y : r;
  }
  default:
    return maxOf(x, y);
  }
}

/// The vector unit's exponential (V_EXP, and V_SIGMOID's): x = n ln 2 + r
/// with ln 2 in two parts (Cody and Waite), e^r by Cephes' degree-6
/// polynomial on [-ln 2 / 2, ln 2 / 2], then times 2^n as two powers of
/// two, so that a subnormal result is rounded once. Every operation is
/// rounded on its own and no library function is called: every backend
/// gives the same bits, and a loop of them vectorises. Within 2 ulp of the
/// correctly rounded result (tested against the double exponential).
HETC_LANE float exp(float x) {
  // Below -104 the result rounds to +0, above 89 to +inf; NaN goes to
  // -104 here, and the result is the quiet NaN (of whatever sign and
  // payload the operand had, which vector code would not keep alike).
  float c = x > -104.0f ? (x < 89.0f ? x : 89.0f) : -104.0f;
  // n = round(c / ln 2), to nearest even by adding and taking off 1.5 * 2^23.
  float n = (c * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  // 0.693359375 has 9 significant bits and |n| <= 150: the product is exact.
  float r = c - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  float y = p * (r * r) + r + 1.0f;
  int32_t k = int32_t(n), half = k >> 1;
  float e = y * wordOf((half + 127) << 23) * wordOf((k - half + 127) << 23);
  return x != x ? quietNaN() : e;
}

/// A float one-operand operation (V_RELU ... V_ROUND; anything else is
/// V_EXP).
HETC_LANE float floatUnary(hetx::Opcode op, float x) {
  switch (op) {
  case hetx::V_RELU:
    return std::isnan(x) ? x : (x > 0.0f ? x : 0.0f);
  case hetx::V_SIGMOID:
    return 1.0f / (1.0f + exp(-x));
  case hetx::V_TANH:
    return std::tanh(x);
  case hetx::V_NEG:
    return -x;
  case hetx::V_ABS:
    return std::fabs(x);
  case hetx::V_SQRT:
    return std::sqrt(x);
  case hetx::V_RECIPROCAL:
    return 1.0f / x;
  case hetx::V_LOG:
    return std::log(x);
  case hetx::V_ERF:
    return std::erf(x);
  case hetx::V_FLOOR:
    return std::floor(x);
  case hetx::V_CEIL:
    return std::ceil(x);
  case hetx::V_SIN:
    return std::sin(x);
  case hetx::V_COS:
    return std::cos(x);
  case hetx::V_ROUND:
    // The default rounding mode: to nearest, ties to even.
    return std::nearbyint(x);
  default:
    return exp(x);
  }
}

/// An int32 binary operation, wrapping around (anything unlisted is
/// V_MAX). Division by zero gives 0, INT32_MIN / -1 gives INT32_MIN; MOD's
/// remainder takes the divisor's sign, FMOD's the dividend's; shifts by
/// less than 0 or more than 31 give 0.
HETC_LANE int32_t intBinary(hetx::Opcode op, int32_t x, int32_t y) {
  switch (op) {
  case hetx::V_ADD:
    return wrap(uint32_t(x) + uint32_t(y));
  case hetx::V_SUB:
    return wrap(uint32_t(x) - uint32_t(y));
  case hetx::V_MUL:
    return wrap(uint32_t(x) * uint32_t(y));
  case hetx::V_DIV:
    if (y == 0)
      return 0;
    return x == INT32_MIN && y == -1 ? x : x / y;
  case hetx::V_MIN:
    return y < x ? y : x;
  case hetx::V_MOD:
  case hetx::V_FMOD: {
    int32_t r = y == 0 || y == -1 ? 0 : x % y;
    if (op == hetx::V_MOD && r != 0 && ((r < 0) != (y < 0)))
      r = wrap(uint32_t(r) + uint32_t(y));
    return r;
  }
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
  default:
    return x < y ? y : x;
  }
}

/// An int32 one-operand operation (V_RELU, V_NEG, V_NOT; anything else is
/// V_ABS), wrapping around.
HETC_LANE int32_t intUnary(hetx::Opcode op, int32_t x) {
  switch (op) {
  case hetx::V_RELU:
    return x > 0 ? x : 0;
  case hetx::V_NEG:
    return wrap(0u - uint32_t(x));
  case hetx::V_NOT:
    return x == 0 ? 1 : 0;
  default:
    return x < 0 ? wrap(0u - uint32_t(x)) : x;
  }
}

/// V_EQUAL, V_LESS or (anything else) V_LESS_EQUAL of two floats or two
/// int32 values.
template <typename T> HETC_LANE bool compare(hetx::Opcode op, T x, T y) {
  return op == hetx::V_EQUAL ? x == y : op == hetx::V_LESS ? x < y : x <= y;
}

/// Two partial results of a reduction (V_REDUCE_SUM, _MAX or _MIN)
/// combined, of float or of int32 lane words.
HETC_LANE float join(hetx::Opcode reduction, bool isFloat, float a, float b) {
  if (isFloat)
    return reduction == hetx::V_REDUCE_SUM   ? a + b
           : reduction == hetx::V_REDUCE_MAX ? maxOf(a, b)
                                             : minOf(a, b);
  int32_t x = intOf(a), y = intOf(b);
  return wordOf(reduction == hetx::V_REDUCE_SUM
                    ? wrap(uint32_t(x) + uint32_t(y))
                : reduction == hetx::V_REDUCE_MAX ? (x < y ? y : x)
                                                  : (y < x ? y : x));
}

} // namespace hetc::sim::lane

#endif // HETC_RUNTIME_SIM_LANEMATH_H
