//===- NarrowTypesTest.cpp - The 8-, 4- and 2-bit element types ---------===//
//
// The conversions of runtime/io/ElementType.h to and from the ONNX float8,
// float4, int4 and int2 types: halfway cases, saturation, NaN and infinity,
// subnormals and the FNUZ types' zero, checked against values the ONNX
// reference (ml_dtypes) gives, and exhaustively over every encoding.
//
//===----------------------------------------------------------------------===//

#include "runtime/io/ElementType.h"
#include "runtime/io/Npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <set>

namespace hetc::test {
namespace {

using io::E8M0Rounding;
using io::ElementType;
using io::Overflow;

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::nanf("");

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

/// Whether `a` and `b` are the same float bit for bit, or both NaN.
bool same(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || bitsOf(a) == bitsOf(b);
}

float round(ElementType type, float value,
            Overflow overflow = Overflow::Standard) {
  return io::roundTo(type, value, overflow);
}

const ElementType kFloat8[] = {ElementType::F8E4M3FN, ElementType::F8E4M3FNUZ,
                               ElementType::F8E5M2, ElementType::F8E5M2FNUZ};

// Tests round to nearest even on ties, just off ties and in the subnormal
// range of f8E4M3FN (3 mantissa bits: spacing 1/8 in [1, 2), subnormals
// are multiples of 2^-9).
TEST(NarrowTypesTest, E4M3FNRoundsToNearestEven) {
  ElementType t = ElementType::F8E4M3FN;
  EXPECT_EQ(round(t, 1.0625f), 1.0f);   // halfway 1 and 1.125: even 1
  EXPECT_EQ(round(t, 1.1875f), 1.25f);  // halfway 1.125 and 1.25: 1.25
  EXPECT_EQ(round(t, 1.0626f), 1.125f); // just above halfway
  EXPECT_EQ(round(t, 100.0f), 96.0f);   // halfway 96 and 104: 96
  EXPECT_EQ(round(t, 0.46875f), 0.46875f);
  EXPECT_EQ(round(t, std::ldexp(1.0f, -9)), std::ldexp(1.0f, -9));
  EXPECT_EQ(round(t, std::ldexp(3.0f, -11)), std::ldexp(1.0f, -9)); // 0.75 ulp
  EXPECT_TRUE(same(round(t, std::ldexp(1.0f, -10)), 0.0f));         // tie to 0
  EXPECT_TRUE(same(round(t, -std::ldexp(1.0f, -11)), -0.0f));
  EXPECT_EQ(round(t, std::ldexp(3.0f, -10)), std::ldexp(1.0f, -8)); // tie up
}

// Tests the float8 overflow rules of ONNX Cast: with saturation beyond the
// largest finite value and infinity give it; without, infinity (E5M2) or
// NaN; the rounding decides what is beyond (464 ties down to 448 in
// f8E4M3FN, but 248 up to 256 in f8E4M3FNUZ, whose 240 is odd).
TEST(NarrowTypesTest, Float8Saturation) {
  struct Case {
    ElementType type;
    float max, tieDown, aboveTie;
  };
  for (Case c : {Case{ElementType::F8E4M3FN, 448, 464, 464.5f},
                 Case{ElementType::F8E4M3FNUZ, 240, 244, 248},
                 Case{ElementType::F8E5M2, 57344, 57344, 61440},
                 Case{ElementType::F8E5M2FNUZ, 57344, 57344, 61440}}) {
    SCOPED_TRACE(io::typeName(c.type));
    bool hasInf = c.type == ElementType::F8E5M2;
    EXPECT_EQ(round(c.type, c.max), c.max);
    EXPECT_EQ(round(c.type, c.tieDown, Overflow::NoSaturate), c.max);
    EXPECT_EQ(round(c.type, c.aboveTie), c.max);
    EXPECT_EQ(round(c.type, -1e30f), -c.max);
    EXPECT_EQ(round(c.type, kInf), c.max);
    EXPECT_EQ(round(c.type, -kInf), -c.max);
    float beyond = round(c.type, c.aboveTie, Overflow::NoSaturate);
    float inf = round(c.type, -kInf, Overflow::NoSaturate);
    if (hasInf) {
      EXPECT_EQ(beyond, kInf);
      EXPECT_EQ(inf, -kInf);
    } else {
      EXPECT_TRUE(std::isnan(beyond));
      EXPECT_TRUE(std::isnan(inf));
    }
    EXPECT_TRUE(std::isnan(round(c.type, kNaN)));
    EXPECT_TRUE(std::isnan(round(c.type, kNaN, Overflow::NoSaturate)));
  }
}

// Tests that the FNUZ types have no negative zero: -0 and negative values
// rounding to zero give +0, while the FN types keep -0.
TEST(NarrowTypesTest, FnuzHasNoNegativeZero) {
  for (ElementType t : {ElementType::F8E4M3FNUZ, ElementType::F8E5M2FNUZ}) {
    EXPECT_TRUE(same(round(t, -0.0f), 0.0f)) << io::typeName(t);
    EXPECT_TRUE(same(round(t, -1e-30f), 0.0f)) << io::typeName(t);
    EXPECT_FALSE(io::isValueOf(t, -0.0f)) << io::typeName(t);
  }
  EXPECT_TRUE(same(round(ElementType::F8E4M3FN, -0.0f), -0.0f));
  EXPECT_TRUE(same(round(ElementType::F8E5M2, -1e-30f), -0.0f));
  // The FNUZ types' subnormals reach one exponent further down.
  EXPECT_EQ(round(ElementType::F8E4M3FNUZ, std::ldexp(1.0f, -10)),
            std::ldexp(1.0f, -10));
  EXPECT_EQ(round(ElementType::F8E5M2FNUZ, std::ldexp(1.0f, -17)),
            std::ldexp(1.0f, -17));
  EXPECT_EQ(round(ElementType::F8E5M2, std::ldexp(1.0f, -17)), 0.0f);
}

// Tests every encoding of each float8 type: it decodes to a value that
// rounds to itself, the finite values are distinct, and the special
// encodings are where the formats put them.
TEST(NarrowTypesTest, EveryFloat8EncodingRoundTrips) {
  for (ElementType t : kFloat8) {
    SCOPED_TRACE(io::typeName(t));
    std::set<uint32_t> finite;
    int nans = 0, infs = 0;
    for (unsigned bits = 0; bits < 256; ++bits) {
      float value = io::narrowFloatValue(t, uint8_t(bits));
      if (std::isnan(value)) {
        ++nans;
        continue;
      }
      if (std::isinf(value))
        ++infs;
      EXPECT_TRUE(same(round(t, value, Overflow::NoSaturate), value))
          << "encoding " << bits;
      EXPECT_TRUE(io::isValueOf(t, value)) << "encoding " << bits;
      finite.insert(bitsOf(value));
    }
    bool fnuz = t == ElementType::F8E4M3FNUZ || t == ElementType::F8E5M2FNUZ;
    EXPECT_EQ(nans, fnuz ? 1 : t == ElementType::F8E5M2 ? 6 : 2);
    EXPECT_EQ(infs, t == ElementType::F8E5M2 ? 2 : 0);
    EXPECT_EQ(finite.size(), size_t(256 - nans));
  }
  EXPECT_TRUE(std::isnan(io::narrowFloatValue(ElementType::F8E4M3FNUZ, 0x80)));
  EXPECT_TRUE(std::isnan(io::narrowFloatValue(ElementType::F8E4M3FN, 0x7f)));
  EXPECT_EQ(io::narrowFloatValue(ElementType::F8E4M3FN, 0x7e), 448.0f);
  EXPECT_EQ(io::narrowFloatValue(ElementType::F8E4M3FNUZ, 0x7f), 240.0f);
  EXPECT_EQ(io::narrowFloatValue(ElementType::F8E5M2, 0x7c), kInf);
  EXPECT_EQ(io::narrowFloatValue(ElementType::F8E5M2FNUZ, 0x7f), 57344.0f);
  EXPECT_EQ(io::narrowFloatValue(ElementType::F8E4M3FN, 0x01),
            std::ldexp(1.0f, -9));
}

// Tests f4E2M1 (values 0, 0.5, 1, 1.5, 2, 3, 4, 6): ties to even,
// saturation whatever the overflow asks, and NaN, which the type lacks,
// to -0 as the ONNX reference gives.
TEST(NarrowTypesTest, Float4E2M1) {
  ElementType t = ElementType::F4E2M1;
  const float in[] = {0.25f, 0.75f, 1.25f, 2.5f, 5.0f,
                      7.0f,  1e6f,  -kInf, 1e-7f};
  const float want[] = {0.0f, 1.0f, 1.0f, 2.0f, 4.0f, 6.0f, 6.0f, -6.0f, 0.0f};
  for (size_t i = 0; i < std::size(in); ++i)
    EXPECT_EQ(round(t, in[i]), want[i]) << in[i];
  EXPECT_EQ(round(t, kInf, Overflow::NoSaturate), 6.0f);
  EXPECT_TRUE(same(round(t, kNaN), -0.0f));
  EXPECT_TRUE(same(round(t, -kNaN), 0.0f));
  EXPECT_TRUE(same(round(t, -0.0f), -0.0f));
  for (unsigned bits = 0; bits < 16; ++bits) {
    float value = io::narrowFloatValue(t, uint8_t(bits));
    EXPECT_TRUE(same(round(t, value), value)) << "encoding " << bits;
  }
  EXPECT_EQ(io::narrowFloatValue(t, 0x7), 6.0f);
  EXPECT_EQ(io::narrowFloatValue(t, 0x1), 0.5f);
  EXPECT_FALSE(io::isValueOf(t, kNaN));
  EXPECT_FALSE(io::isValueOf(t, 5.0f));
}

// Tests f8E8M0: the three rounding modes, its range [2^-127, 2^127] and
// the ONNX Cast table's special values.
TEST(NarrowTypesTest, E8M0Rounding) {
  ElementType t = ElementType::F8E8M0;
  auto e8m0 = [t](float value, E8M0Rounding rounding,
                  Overflow overflow = Overflow::Standard) {
    return io::roundTo(t, value, overflow, rounding);
  };
  // The ONNX conformance inputs: 0.124 up to 0.125, 1.1 up to 2.
  EXPECT_EQ(e8m0(0.124f, E8M0Rounding::Up), 0.125f);
  EXPECT_EQ(e8m0(1.1f, E8M0Rounding::Up), 2.0f);
  EXPECT_EQ(e8m0(2.0f, E8M0Rounding::Up), 2.0f);
  EXPECT_EQ(e8m0(1.1f, E8M0Rounding::Down), 1.0f);
  EXPECT_EQ(e8m0(1.4f, E8M0Rounding::Nearest), 1.0f);
  EXPECT_EQ(e8m0(1.5f, E8M0Rounding::Nearest), 2.0f); // halfway: up
  EXPECT_EQ(e8m0(-3.0f, E8M0Rounding::Down), 2.0f);   // the sign is ignored
  EXPECT_EQ(e8m0(0.0f, E8M0Rounding::Up), std::ldexp(1.0f, -127));
  EXPECT_EQ(e8m0(std::ldexp(1.5f, -127), E8M0Rounding::Up),
            std::ldexp(1.0f, -126));
  EXPECT_EQ(e8m0(3e38f, E8M0Rounding::Up), std::ldexp(1.0f, 127));
  EXPECT_EQ(e8m0(kInf, E8M0Rounding::Up), std::ldexp(1.0f, 127));
  EXPECT_TRUE(std::isnan(e8m0(3e38f, E8M0Rounding::Up, Overflow::NoSaturate)));
  EXPECT_TRUE(
      std::isnan(e8m0(kInf, E8M0Rounding::Nearest, Overflow::NoSaturate)));
  EXPECT_TRUE(
      std::isnan(e8m0(0.0f, E8M0Rounding::Nearest, Overflow::NoSaturate)));
  EXPECT_TRUE(std::isnan(e8m0(kNaN, E8M0Rounding::Up)));
  for (unsigned bits = 0; bits < 255; ++bits) {
    float value = io::narrowFloatValue(t, uint8_t(bits));
    EXPECT_EQ(value, std::ldexp(1.0f, int(bits) - 127));
    EXPECT_TRUE(io::isValueOf(t, value)) << bits;
  }
  EXPECT_TRUE(std::isnan(io::narrowFloatValue(t, 0xff)));
  EXPECT_FALSE(io::isValueOf(t, 3.0f));
  EXPECT_FALSE(io::isValueOf(t, 0.0f));
}

// Tests the 4- and 2-bit integers: saturation (QuantizeLinear, the
// standard V_CAST) and wrap-around (ONNX Cast), from floats and integers.
TEST(NarrowTypesTest, SubByteIntegers) {
  EXPECT_EQ(io::saturateTo(ElementType::I4, -9.0f), -8);
  EXPECT_EQ(io::saturateTo(ElementType::I4, 7.9f), 7);
  EXPECT_EQ(io::saturateTo(ElementType::U4, -1.0f), 0);
  EXPECT_EQ(io::saturateTo(ElementType::U4, 16.0f), 15);
  EXPECT_EQ(io::saturateTo(ElementType::I2, 5.0f), 1);
  EXPECT_EQ(io::saturateTo(ElementType::U2, kNaN), 0);
  EXPECT_EQ(io::clampTo(ElementType::I4, -100), -8);
  // The ONNX conformance values: -9 -> 7, 8 -> -8, 15 -> -1 (int4);
  // -9 -> 7, -1 -> 15 (uint4); -3 -> 1, 2 -> -2 (int2); -1 -> 3 (uint2).
  EXPECT_EQ(io::wrapFloatTo(ElementType::I4, -9.0f), 7);
  EXPECT_EQ(io::wrapFloatTo(ElementType::I4, 8.0f), -8);
  EXPECT_EQ(io::wrapFloatTo(ElementType::I4, 15.0f), -1);
  EXPECT_EQ(io::wrapFloatTo(ElementType::U4, -9.0f), 7);
  EXPECT_EQ(io::wrapFloatTo(ElementType::U4, -1.0f), 15);
  EXPECT_EQ(io::wrapFloatTo(ElementType::I2, -3.0f), 1);
  EXPECT_EQ(io::wrapFloatTo(ElementType::I2, 2.0f), -2);
  EXPECT_EQ(io::wrapFloatTo(ElementType::U2, -1.0f), 3);
  EXPECT_EQ(io::wrapFloatTo(ElementType::I4, -2.7f), -2); // truncated first
  EXPECT_EQ(io::wrapFloatTo(ElementType::U4, 3e9f), 0);   // 3e9 % 16 == 0
  EXPECT_EQ(io::wrapFloatTo(ElementType::I4, kNaN), 0);
  EXPECT_EQ(io::wrapFloatTo(ElementType::I4, -kInf), 0);
  EXPECT_EQ(io::wrapTo(ElementType::I4, 200), -8);
  EXPECT_EQ(io::wrapTo(ElementType::I8, 200), -56); // ONNX's own example
  EXPECT_EQ(io::wrapTo(ElementType::U2, -5), 3);
  EXPECT_TRUE(io::inRange(ElementType::U4, 15));
  EXPECT_FALSE(io::inRange(ElementType::I2, 2));
}

// Tests the names and the .npy forms: narrow floats as float32 (exact),
// 4- and 2-bit integers as int8 or uint8.
TEST(NarrowTypesTest, NamesAndNpy) {
  for (unsigned i = 0; i <= unsigned(ElementType::U2); ++i) {
    ElementType type = ElementType(i);
    EXPECT_EQ(io::parseTypeName(io::typeName(type)), type);
  }
  EXPECT_EQ(io::typeName(ElementType::F8E4M3FNUZ), "f8e4m3fnuz");
  EXPECT_EQ(io::byteWidth(ElementType::F4E2M1), 1u);
  struct Case {
    ElementType type, fileType;
  };
  for (Case c : {Case{ElementType::F8E5M2, ElementType::F32},
                 Case{ElementType::F4E2M1, ElementType::F32},
                 Case{ElementType::I4, ElementType::I8},
                 Case{ElementType::U2, ElementType::U8}}) {
    io::Tensor tensor;
    tensor.type = c.type;
    tensor.shape = {3};
    if (io::isFloat(c.type))
      tensor.data = {1.5f, -0.0f, 6.0f};
    else
      tensor.ints = {0, 1, c.type == ElementType::I4 ? -8 : 3};
    std::string bytes, error;
    ASSERT_TRUE(io::serializeNpy(tensor, bytes, error)) << error;
    io::Tensor back;
    ASSERT_TRUE(io::parseNpy(bytes, "t.npy", back, error)) << error;
    EXPECT_EQ(back.type, c.fileType) << io::typeName(c.type);
    EXPECT_EQ(back.data.size(), tensor.data.size());
    for (size_t i = 0; i < back.data.size(); ++i)
      EXPECT_TRUE(same(back.data[i], tensor.data[i]));
    EXPECT_EQ(back.ints, tensor.ints);
  }
}

} // namespace
} // namespace hetc::test
