//===- ElementType.cpp - Element types and their rounding rules --------===//

#include "runtime/io/ElementType.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace hetc::io {

namespace {
uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

struct Range {
  int64_t lo, hi;
};

Range rangeOf(ElementType type) {
  switch (type) {
  case ElementType::I8:
    return {-128, 127};
  case ElementType::U8:
    return {0, 255};
  case ElementType::Bool:
    return {0, 1};
  case ElementType::I16:
    return {-32768, 32767};
  case ElementType::U16:
    return {0, 65535};
  case ElementType::U32:
  case ElementType::U64:
    return {0, std::numeric_limits<int32_t>::max()};
  default:
    return {std::numeric_limits<int32_t>::min(),
            std::numeric_limits<int32_t>::max()};
  }
}
} // namespace

unsigned byteWidth(ElementType type) {
  switch (type) {
  case ElementType::F16:
  case ElementType::BF16:
    return 2;
  case ElementType::I8:
  case ElementType::U8:
  case ElementType::Bool:
    return 1;
  case ElementType::I64:
  case ElementType::U64:
    return 8;
  case ElementType::I16:
  case ElementType::U16:
    return 2;
  default:
    return 4;
  }
}

std::string typeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::I8:
    return "i8";
  case ElementType::U8:
    return "u8";
  case ElementType::I32:
    return "i32";
  case ElementType::Bool:
    return "bool";
  case ElementType::I64:
    return "i64";
  case ElementType::I16:
    return "i16";
  case ElementType::U16:
    return "u16";
  case ElementType::U32:
    return "u32";
  case ElementType::U64:
    return "u64";
  }
  return "?";
}

std::optional<ElementType> parseTypeName(const std::string &name) {
  for (ElementType type :
       {ElementType::F32, ElementType::F16, ElementType::BF16, ElementType::I8,
        ElementType::U8, ElementType::I32, ElementType::Bool,
        ElementType::I64, ElementType::I16, ElementType::U16, ElementType::U32,
        ElementType::U64})
    if (typeName(type) == name)
      return type;
  return std::nullopt;
}

uint16_t halfBits(float value) {
  uint32_t bits = bitsOf(value);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) // inf or NaN (NaN stays quiet NaN)
    return sign | (magnitude > 0x7f800000u ? 0x7e00u : 0x7c00u);
  // 65520 = largest half (65504) + half an ulp: from here on it rounds up to
  // infinity.
  if (magnitude >= 0x477ff000u)
    return sign | 0x7c00u;
  if (magnitude < 0x38800000u) {
    // Subnormal half (or zero): the value in units of 2^-24, rounded to
    // nearest even. fp32 represents value * 2^24 exactly here.
    float scaled = floatOf(magnitude) * 16777216.0f;
    return sign | uint16_t(std::nearbyint(scaled));
  }
  // Normal: drop 13 mantissa bits, rounding to nearest even; a carry into
  // the exponent is the right result (up to infinity).
  uint32_t rebased = magnitude - 0x38000000u; // exponent bias 127 -> 15
  uint32_t half = rebased >> 13;
  uint32_t rest = rebased & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
    ++half;
  return sign | uint16_t(half);
}

float halfValue(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    float magnitude = float(mantissa) * (1.0f / 16777216.0f); // 2^-24
    return floatOf(bitsOf(magnitude) | sign);
  }
  if (exponent == 0x1f)
    return floatOf(sign | 0x7f800000u | (mantissa << 13));
  return floatOf(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

uint16_t bf16Bits(float value) {
  uint32_t bits = bitsOf(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet
    return uint16_t((bits >> 16) | 0x0040u);
  uint32_t rest = bits & 0xffffu;
  uint32_t upper = bits >> 16;
  if (rest > 0x8000u || (rest == 0x8000u && (upper & 1u)))
    ++upper;
  return uint16_t(upper);
}

float bf16Value(uint16_t bits) { return floatOf(uint32_t(bits) << 16); }

float roundTo(ElementType type, float value) {
  switch (type) {
  case ElementType::F16:
    return halfValue(halfBits(value));
  case ElementType::BF16:
    return bf16Value(bf16Bits(value));
  default:
    return value;
  }
}

int32_t saturateTo(ElementType type, float value) {
  if (std::isnan(value))
    return 0;
  if (type == ElementType::Bool)
    return value != 0.0f;
  Range range = rangeOf(type);
  double truncated = std::trunc(double(value));
  if (truncated <= double(range.lo))
    return int32_t(range.lo);
  if (truncated >= double(range.hi))
    return int32_t(range.hi);
  return int32_t(truncated);
}

int32_t clampTo(ElementType type, int64_t value) {
  if (type == ElementType::Bool)
    return value != 0;
  Range range = rangeOf(type);
  return int32_t(value < range.lo ? range.lo
                                  : value > range.hi ? range.hi : value);
}

bool inRange(ElementType type, int64_t value) {
  Range range = rangeOf(type);
  return value >= range.lo && value <= range.hi;
}

} // namespace hetc::io
