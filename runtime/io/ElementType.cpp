//===- ElementType.cpp - Element types and their rounding rules --------===//

#include "runtime/io/ElementType.h"

#include <algorithm>
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
  case ElementType::I4:
    return {-8, 7};
  case ElementType::U4:
    return {0, 15};
  case ElementType::I2:
    return {-2, 1};
  case ElementType::U2:
    return {0, 3};
  default:
    return {std::numeric_limits<int32_t>::min(),
            std::numeric_limits<int32_t>::max()};
  }
}
/// Bits of an integer type as wrapTo keeps them (I64 and U64 are held in
/// int32).
unsigned bitWidth(ElementType type) {
  switch (type) {
  case ElementType::I2:
  case ElementType::U2:
    return 2;
  case ElementType::I4:
  case ElementType::U4:
    return 4;
  case ElementType::I8:
  case ElementType::U8:
    return 8;
  case ElementType::I16:
  case ElementType::U16:
    return 16;
  default:
    return 32;
  }
}

/// An 8- or 4-bit float format with a sign bit: `exponentBits` and
/// `mantissaBits` wide, `minExponent` the exponent of its smallest normal
/// value (1 - bias), `maxFinite` its largest finite value.
struct MiniFloat {
  int exponentBits, mantissaBits, minExponent;
  float maxFinite;
  bool hasInf, hasNaN, hasNegativeZero;
};

MiniFloat formatOf(ElementType type) {
  switch (type) {
  case ElementType::F8E4M3FN: // S.1111.111 is NaN; no infinity
    return {4, 3, -6, 448.0f, false, true, true};
  case ElementType::F8E4M3FNUZ: // 0x80 is the one NaN; no -0, no infinity
    return {4, 3, -7, 240.0f, false, true, false};
  case ElementType::F8E5M2: // IEEE-like
    return {5, 2, -14, 57344.0f, true, true, true};
  case ElementType::F8E5M2FNUZ:
    return {5, 2, -15, 57344.0f, false, true, false};
  default: // F4E2M1: neither infinity nor NaN
    return {2, 1, 0, 6.0f, false, false, true};
  }
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

/// `value` rounded to nearest even in `format`, with `overflow` deciding
/// what a value beyond the largest finite one becomes.
float roundToMiniFloat(const MiniFloat &format, float value,
                       Overflow overflow) {
  if (std::isnan(value)) {
    if (format.hasNaN)
      return kNaN;
    // F4E2M1 has no NaN. The ONNX reference (ml_dtypes) gives -0 for a
    // NaN with the sign bit clear and +0 for one with it set.
    return std::signbit(value) ? 0.0f : -0.0f;
  }
  bool saturate =
      overflow != Overflow::NoSaturate || (!format.hasInf && !format.hasNaN);
  auto beyond = [&] {
    if (saturate)
      return std::copysign(format.maxFinite, value);
    return format.hasInf ? std::copysign(kInf, value) : kNaN;
  };
  if (std::isinf(value))
    return beyond();
  double magnitude = std::fabs(double(value));
  double rounded = 0.0;
  if (magnitude != 0.0) {
    // The value in units of the format's spacing at its exponent (at least
    // that of the smallest normal: subnormals share its spacing), rounded
    // to nearest even. Both steps are exact in double.
    int exponent;
    std::frexp(magnitude, &exponent);
    exponent = std::max(exponent - 1, format.minExponent);
    double quantum = std::ldexp(1.0, exponent - format.mantissaBits);
    rounded = std::nearbyint(magnitude / quantum) * quantum;
  }
  if (rounded > format.maxFinite)
    return beyond();
  if (rounded == 0.0 && !format.hasNegativeZero)
    return 0.0f;
  return std::copysign(float(rounded), value);
}

/// `value` rounded to F8E8M0 as the ONNX reference does it on the fp32
/// bits (the sign is ignored; ONNX leaves negative values unspecified).
float roundToE8M0(float value, Overflow overflow, E8M0Rounding rounding) {
  bool saturate = overflow != Overflow::NoSaturate;
  if (std::isnan(value))
    return kNaN;
  if (std::isinf(value))
    return saturate ? 0x1p127f : kNaN;
  if (value == 0.0f && !saturate)
    return kNaN;
  uint32_t bits = bitsOf(value);
  uint32_t exponent = (bits >> 23) & 0xffu;
  bool up = false;
  switch (rounding) {
  case E8M0Rounding::Up:
    up = (bits & 0x7fffffu) != 0;
    break;
  case E8M0Rounding::Nearest: {
    bool guard = bits & 0x400000u, round = bits & 0x200000u,
         sticky = bits & 0x1fffffu;
    up = guard && (round || sticky || exponent > 0);
    break;
  }
  case E8M0Rounding::Down:
    break;
  }
  exponent += up;
  if (exponent == 0xffu) // beyond 2^127
    return saturate ? 0x1p127f : kNaN;
  return std::ldexp(1.0f, int(exponent) - 127);
}
} // namespace

unsigned byteWidth(ElementType type) {
  if (isNarrowFloat(type) || isSubByteInt(type))
    return 1;
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
  case ElementType::F64:
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
  case ElementType::F8E4M3FN:
    return "f8e4m3fn";
  case ElementType::F8E4M3FNUZ:
    return "f8e4m3fnuz";
  case ElementType::F8E5M2:
    return "f8e5m2";
  case ElementType::F8E5M2FNUZ:
    return "f8e5m2fnuz";
  case ElementType::F8E8M0:
    return "f8e8m0";
  case ElementType::F4E2M1:
    return "f4e2m1";
  case ElementType::I4:
    return "i4";
  case ElementType::U4:
    return "u4";
  case ElementType::I2:
    return "i2";
  case ElementType::U2:
    return "u2";
  case ElementType::F64:
    return "f64";
  }
  return "?";
}

std::optional<ElementType> parseTypeName(const std::string &name) {
  for (unsigned i = 0; i <= unsigned(ElementType::F64); ++i)
    if (typeName(ElementType(i)) == name)
      return ElementType(i);
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

float narrowFloatValue(ElementType type, uint8_t bits) {
  if (type == ElementType::F8E8M0)
    return bits == 0xffu ? kNaN : std::ldexp(1.0f, int(bits) - 127);
  MiniFloat format = formatOf(type);
  int width = 1 + format.exponentBits + format.mantissaBits;
  unsigned sign = (bits >> (width - 1)) & 1u;
  unsigned exponentField =
      (bits >> format.mantissaBits) & ((1u << format.exponentBits) - 1);
  unsigned mantissa = bits & ((1u << format.mantissaBits) - 1);
  unsigned allOnes = (1u << format.exponentBits) - 1;
  if (!format.hasNegativeZero && sign && !exponentField && !mantissa)
    return kNaN; // the FNUZ types' one NaN, where -0 would be
  if (type == ElementType::F8E4M3FN && exponentField == allOnes &&
      mantissa == (1u << format.mantissaBits) - 1)
    return sign ? -kNaN : kNaN;
  if (format.hasInf && exponentField == allOnes)
    return mantissa ? kNaN : (sign ? -kInf : kInf);
  double magnitude =
      exponentField == 0
          ? std::ldexp(double(mantissa),
                       format.minExponent - format.mantissaBits)
          : std::ldexp(double((1u << format.mantissaBits) | mantissa),
                       int(exponentField) - 1 + format.minExponent -
                           format.mantissaBits);
  return float(sign ? -magnitude : magnitude);
}

float roundTo(ElementType type, float value, Overflow overflow,
              E8M0Rounding rounding) {
  switch (type) {
  case ElementType::F16:
    return halfValue(halfBits(value));
  case ElementType::BF16:
    return bf16Value(bf16Bits(value));
  case ElementType::F8E8M0:
    return roundToE8M0(value, overflow, rounding);
  default:
    if (isNarrowFloat(type))
      return roundToMiniFloat(formatOf(type), value, overflow);
    return value;
  }
}

bool isValueOf(ElementType type, float value) {
  if (std::isnan(value))
    return std::isnan(roundTo(type, value));
  if (type == ElementType::F8E8M0) // rounding down keeps a power of two
    return value > 0.0f && bitsOf(roundTo(type, value, Overflow::NoSaturate,
                                          E8M0Rounding::Down)) == bitsOf(value);
  return bitsOf(roundTo(type, value, Overflow::NoSaturate)) == bitsOf(value);
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

int32_t wrapTo(ElementType type, int64_t value) {
  if (type == ElementType::Bool)
    return value != 0;
  unsigned bits = bitWidth(type);
  uint64_t low = uint64_t(value) & (bits == 64 ? ~0ull : (1ull << bits) - 1);
  bool isSigned = rangeOf(type).lo < 0;
  if (isSigned && bits < 64 && (low >> (bits - 1)))
    return int32_t(int64_t(low) - int64_t(1ull << bits));
  return int32_t(low);
}

int32_t wrapFloatTo(ElementType type, float value) {
  if (!std::isfinite(value))
    return 0;
  // Reduced modulo 2^32 (exactly, in double), which keeps every bit the
  // types hold.
  double truncated = std::fmod(std::trunc(double(value)), 4294967296.0);
  return wrapTo(type, int64_t(truncated));
}

bool inRange(ElementType type, int64_t value) {
  Range range = rangeOf(type);
  return value >= range.lo && value <= range.hi;
}

} // namespace hetc::io
