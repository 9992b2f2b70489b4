//===- TypedMath.h - Numerics of the types other than fp32 ------*- C++ -*-===//
//
// The vector and matrix units on f16, bf16, i8, u8, i32 and bool lanes, and
// V_CAST on every type (see
// docs/isa.md, "Numerics"). Float types compute in fp32 and round each
// result to their type; integer lanes compute in int32 with two's-complement
// wrap-around; V_CAST converts with the rules of runtime/io/ElementType.h.
// Lanes hold 32-bit words as runtime/sim/DataTypes.h describes.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_TYPEDMATH_H
#define HETC_RUNTIME_SIM_TYPEDMATH_H

#include "runtime/io/ElementType.h"
#include "runtime/schema/hetx.pb.h"
#include "runtime/sim/VectorMath.h"

#include <cstdint>

namespace hetc::sim {

/// Rounds lanes [0, active) of `lanes` to float type `type` (a no-op for
/// F32).
void roundLanes(io::ElementType type, float *lanes, uint32_t active);

/// out = a op b on int32 lanes [0, active); zero beyond. Division truncates
/// towards zero; a division by zero gives 0, as does a remainder (V_MOD:
/// the divisor's sign, V_FMOD: the dividend's) by zero. V_AND, V_OR and
/// V_XOR work on the words bitwise (BOOL lanes hold 0 or 1).
void integerBinary(hetx::Opcode op, const float *a, const float *b, float *out,
                   uint32_t active, uint32_t width);

/// out = a <relation> b (V_EQUAL, V_LESS, V_LESS_EQUAL) as BOOL words on
/// lanes [0, active), comparing fp32 values (`isFloat`; NaN compares false)
/// or int32 words; zero beyond.
void compareLanes(hetx::Opcode op, bool isFloat, const float *a,
                  const float *b, float *out, uint32_t active, uint32_t width);

/// V_SELECT: out = condition ? a : b, lane words unchanged, on lanes
/// [0, active); zero beyond.
void selectLanes(const float *condition, const float *a, const float *b,
                 float *out, uint32_t active, uint32_t width);

/// out = op(a) on int32 lanes [0, active) (V_RELU, V_NEG, V_ABS, V_NOT);
/// zero beyond.
void integerUnary(hetx::Opcode op, const float *a, float *out, uint32_t active,
                  uint32_t width);

/// Reduces int32 lanes [0, active) of `a` into every lane of `out`.
void integerReduce(hetx::Opcode op, const float *a, float *out,
                   uint32_t active, uint32_t width);

/// V_CAST: converts lanes [0, active) of `a` from `from` to `to` with
/// `overflow` (Wrap for integer results, NoSaturate for float8 ones) and,
/// to F8E8M0, `rounding`; zero beyond.
void castLanes(io::ElementType from, io::ElementType to, const float *a,
               float *out, uint32_t active, uint32_t width,
               io::Overflow overflow = io::Overflow::Standard,
               io::E8M0Rounding rounding = io::E8M0Rounding::Up);

/// out[j] = sum_i x[i] * weights[i * width + j] over int32 lanes, with
/// int32 wrap-around (exact for i8 and u8 products over up to 2^17 rows).
/// Rows not in `weights.rows` and columns from `weights.cols` on are int32
/// zero (the bits of +0.0) and add nothing.
void integerMatmul(const float *x, const PlaneWeights &weights, float *out,
                   uint32_t width);

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_TYPEDMATH_H
