//===- ElementType.h - Element types and their rounding rules ---*- C++ -*-===//
//
// The element types a tensor may have on the chip, and the scalar
// conversions between them. These are the rounding rules of docs/isa.md
// ("Numerics"), shared by the host side (reading and writing tensors) and
// the chip model:
//   - to F16 and BF16: round to nearest, ties to even; values beyond the
//     largest finite value become infinity; NaN stays NaN (quiet);
//   - to an integer type: truncate towards zero, then saturate to the
//     type's range; NaN becomes 0;
//   - F16 and BF16 widen to fp32 exactly, and every 8-bit integer and every
//     int32 up to 2^24 in magnitude converts to fp32 exactly (larger int32
//     values round to nearest even);
//   - to the 8- and 4-bit float types (ONNX FLOAT8E4M3FN, FLOAT8E4M3FNUZ,
//     FLOAT8E5M2, FLOAT8E5M2FNUZ, FLOAT4E2M1): round to nearest, ties to
//     even; values beyond the largest finite value saturate to it unless
//     the cast asks for no saturation (then infinity where the type has
//     one, else NaN); the FNUZ types have no negative zero; F4E2M1, which
//     has neither infinity nor NaN, always saturates and turns NaN into
//     -0 (+0 for a NaN with its sign bit set), as the ONNX reference does;
//   - to F8E8M0 (ONNX FLOAT8E8M0, powers of two from 2^-127 to 2^127):
//     the exponent of the fp32 value, rounded up, down or to nearest as
//     the cast asks (ONNX Cast's round_mode), the sign ignored; beyond
//     2^127 and infinity saturate to 2^127 (NaN without saturation), and
//     zero gives 2^-127 (NaN without saturation), as the ONNX Cast table
//     specifies;
//   - to the 4- and 2-bit integer types: as to any integer type, or, when
//     the cast asks to wrap, the low bits of the value truncated towards
//     zero (as ONNX Cast does for them).
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_IO_ELEMENTTYPE_H
#define HETC_RUNTIME_IO_ELEMENTTYPE_H

#include <cstdint>
#include <optional>
#include <string>

namespace hetc::io {

/// I64, I16, U16, U32 and U64 are host types only: the chip holds them as
/// int32 lanes, so their elements are int32 values (Tensor::ints) and their
/// range is the type's range within that of I32. The 8- and 4-bit float
/// types (F8*, F4E2M1) keep their values widened exactly to fp32
/// (Tensor::data), the 4- and 2-bit integer types as int32 values.
enum class ElementType : uint8_t {
  F32,
  F16,
  BF16,
  I8,
  U8,
  I32,
  Bool,
  I64,
  I16,
  U16,
  U32,
  U64,
  F8E4M3FN,
  F8E4M3FNUZ,
  F8E5M2,
  F8E5M2FNUZ,
  F8E8M0,
  F4E2M1,
  I4,
  U4,
  I2,
  U2,
  /// Bindings only: held as F32 (docs/isa.md, "Element types").
  F64
};

/// What a conversion makes of a value beyond the result type's range.
enum class Overflow : uint8_t {
  /// The type's rule: integers and the 8- and 4-bit floats saturate to the
  /// type's range; F16 and BF16 overflow to infinity.
  Standard,
  /// To the float8 types only (ONNX Cast saturate=0): infinity where the
  /// type has one (F8E5M2), else NaN. F4E2M1, which has neither,
  /// saturates.
  NoSaturate,
  /// To integer types only: the low bits of the integer (two's complement
  /// for signed types); from floats after truncation towards zero, NaN and
  /// infinities giving 0.
  Wrap,
};

/// How a value rounds to F8E8M0 (ONNX Cast's round_mode).
enum class E8M0Rounding : uint8_t {
  /// To the next power of two away from zero (the ONNX default).
  Up,
  /// To the power of two towards zero (the exponent, mantissa dropped).
  Down,
  /// To the nearest power of two by the fp32 mantissa, halfway cases up.
  Nearest,
};

/// Whether `type` exists only at the chip's edge (held as I32 lanes, or
/// F32 for F64; heldAs()).
inline bool isHostOnly(ElementType type) {
  return type == ElementType::I64 || type == ElementType::I16 ||
         type == ElementType::U16 || type == ElementType::U32 ||
         type == ElementType::U64 || type == ElementType::F64;
}

/// The lane type the chip holds a host-only type in: F32 for F64, I32 for
/// the integers.
inline ElementType heldAs(ElementType type) {
  return type == ElementType::F64 ? ElementType::F32 : ElementType::I32;
}

/// Whether `type` is one of the 8- and 4-bit float types, which the chip
/// holds as fp32 values and only converts (V_CAST), never computes on.
inline bool isNarrowFloat(ElementType type) {
  return type >= ElementType::F8E4M3FN && type <= ElementType::F4E2M1;
}

/// Whether `type` is one of the 4- and 2-bit integer types (I4, U4, I2,
/// U2), held as int32 lanes and only converted, never computed on.
inline bool isSubByteInt(ElementType type) {
  return type >= ElementType::I4 && type <= ElementType::U2;
}

/// Whether elements of `type` are floating-point values (F32, F16, BF16,
/// the narrow float types, and F64, whose tensors the runtime keeps
/// rounded to fp32).
inline bool isFloat(ElementType type) {
  return type == ElementType::F32 || type == ElementType::F16 ||
         type == ElementType::BF16 || isNarrowFloat(type) ||
         type == ElementType::F64;
}

/// Whether the vector unit computes on `type` as floats (F32, F16, BF16).
inline bool isArithmeticFloat(ElementType type) {
  return isFloat(type) && !isNarrowFloat(type);
}

/// Bytes one element takes in a dense tensor file or constant (the 4- and
/// 2-bit types take a byte each: constants hold them unpacked).
unsigned byteWidth(ElementType type);

/// The type's name as the docs and errors spell it: "f32", "bf16", "i8",
/// "bool", "f8e4m3fn", "u4", ...
std::string typeName(ElementType type);

/// Parses a name typeName() gives.
std::optional<ElementType> parseTypeName(const std::string &name);

/// IEEE binary16 bits of `value`, rounded to nearest even.
uint16_t halfBits(float value);
/// The fp32 value of IEEE binary16 `bits` (exact).
float halfValue(uint16_t bits);
/// bfloat16 bits of `value`, rounded to nearest even.
uint16_t bf16Bits(float value);
/// The fp32 value of bfloat16 `bits` (exact).
float bf16Value(uint16_t bits);

/// The fp32 value of `bits`, an encoding of narrow float type `type`
/// (isNarrowFloat; exact).
float narrowFloatValue(ElementType type, uint8_t bits);

/// `value` rounded to a float type (identity for F32) as the header
/// describes; `overflow` (Standard or NoSaturate) and `rounding` matter
/// only for the narrow float types and F8E8M0 respectively.
float roundTo(ElementType type, float value,
              Overflow overflow = Overflow::Standard,
              E8M0Rounding rounding = E8M0Rounding::Up);

/// Whether `value` is exactly a value of float type `type`, bit for bit
/// (so -0 is not an FNUZ value); NaN is one where the type has NaN.
bool isValueOf(ElementType type, float value);

/// `value` converted to an integer type: truncated towards zero and
/// saturated to the type's range (0 or 1 for Bool: any non-zero value is
/// true); NaN gives 0.
int32_t saturateTo(ElementType type, float value);

/// `value` clamped to an integer type's range (for Bool: value != 0).
int32_t clampTo(ElementType type, int64_t value);

/// The low bits of `value` as an integer type (two's complement for the
/// signed ones; I64 and U64 as held in int32; for Bool: value != 0).
int32_t wrapTo(ElementType type, int64_t value);

/// `value` truncated towards zero, then wrapped to an integer type as
/// wrapTo does; NaN and infinities give 0.
int32_t wrapFloatTo(ElementType type, float value);

/// Whether `value` is a value of integer type `type`.
bool inRange(ElementType type, int64_t value);

} // namespace hetc::io

#endif // HETC_RUNTIME_IO_ELEMENTTYPE_H
