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
//     values round to nearest even).
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
/// range is the type's range within that of I32.
enum class ElementType : uint8_t {
  F32, F16, BF16, I8, U8, I32, Bool, I64, I16, U16, U32, U64
};

/// Whether `type` exists only at the chip's edge (held as I32 lanes).
inline bool isHostOnly(ElementType type) {
  return type == ElementType::I64 || type == ElementType::I16 ||
         type == ElementType::U16 || type == ElementType::U32 ||
         type == ElementType::U64;
}

/// Whether elements of `type` are floating-point values (F32, F16, BF16).
inline bool isFloat(ElementType type) {
  return type == ElementType::F32 || type == ElementType::F16 ||
         type == ElementType::BF16;
}

/// Bytes one element takes in a dense tensor file or constant.
unsigned byteWidth(ElementType type);

/// The type's name as the docs and errors spell it: "f32", "bf16", "i8",
/// "bool", ...
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

/// `value` rounded to a float type (identity for F32).
float roundTo(ElementType type, float value);

/// `value` converted to an integer type: truncated towards zero and
/// saturated to the type's range (0 or 1 for Bool: any non-zero value is
/// true); NaN gives 0.
int32_t saturateTo(ElementType type, float value);

/// `value` clamped to an integer type's range (for Bool: value != 0).
int32_t clampTo(ElementType type, int64_t value);

/// Whether `value` is a value of integer type `type`.
bool inRange(ElementType type, int64_t value);

} // namespace hetc::io

#endif // HETC_RUNTIME_IO_ELEMENTTYPE_H
