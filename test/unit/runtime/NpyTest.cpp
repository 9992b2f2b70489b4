//===- NpyTest.cpp - Reading and writing .npy files --------------------===//

#include "runtime/io/Npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace hetc::io {
namespace {

/// A .npy image with `dict` as its header, `version` 1 or 2, and `data`.
std::string image(const std::string &dict, const std::string &data,
                  int version = 1) {
  std::string header = dict + "\n";
  std::string out = "\x93NUMPY";
  out.push_back(char(version));
  out.push_back('\0');
  out.push_back(char(header.size() & 0xff));
  out.push_back(char(header.size() >> 8));
  if (version != 1) {
    out.push_back('\0');
    out.push_back('\0');
  }
  return out + header + data;
}

std::string parseError(const std::string &bytes) {
  Tensor tensor;
  std::string error;
  if (parseNpy(bytes, "t.npy", tensor, error))
    return "";
  return error;
}

const char *kDict2x3 =
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

TEST(NpyTest, RoundTrip) {
  for (const Tensor &tensor :
       {Tensor{{}, {3.5f}}, Tensor{{5}, {1, -2, 3.25f, 0, -0.0f}},
        Tensor{{2, 3}, {1, 2, 3, 4, 5, 6}}, Tensor{{0, 4}, {}},
        Tensor{{1, 2, 1, 2}, {1e-30f, 1e30f, -7, 8}}}) {
    std::string bytes, error;
    ASSERT_TRUE(serializeNpy(tensor, bytes, error)) << error;
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    size_t headerBytes = uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8);
    EXPECT_EQ((10 + headerBytes) % 64, 0u) << "data is 64-byte aligned";
    EXPECT_EQ(bytes[10 + headerBytes - 1], '\n');
    Tensor back;
    ASSERT_TRUE(parseNpy(bytes, "t.npy", back, error)) << error;
    EXPECT_EQ(back.shape, tensor.shape);
    EXPECT_EQ(back.data, tensor.data);
  }
}

TEST(NpyTest, HeaderText) {
  std::string bytes, error;
  ASSERT_TRUE(serializeNpy(Tensor{{5}, std::vector<float>(5)}, bytes, error));
  EXPECT_EQ(
      bytes.find("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }"),
      10u);
  ASSERT_TRUE(serializeNpy(Tensor{{}, {1}}, bytes, error));
  EXPECT_NE(bytes.find("'shape': (), }"), std::string::npos);
}

TEST(NpyTest, ReadsVersion2AndPythonVariants) {
  std::string data(24, '\0');
  Tensor tensor;
  std::string error;
  ASSERT_TRUE(parseNpy(image(kDict2x3, data, 2), "t.npy", tensor, error))
      << error;
  EXPECT_EQ(tensor.shape, (std::vector<int64_t>{2, 3}));
  // Key order is free, quotes may be double, Python 2 longs end in L.
  ASSERT_TRUE(parseNpy(image("{\"shape\": (2L, 3L), \"fortran_order\": "
                             "False, \"descr\": \"<f4\"}",
                             data),
                       "t.npy", tensor, error))
      << error;
  EXPECT_EQ(tensor.shape, (std::vector<int64_t>{2, 3}));
}

TEST(NpyTest, FileRoundTrip) {
  std::string path = ::testing::TempDir() + "npy_roundtrip.npy";
  Tensor tensor{{2, 2}, {1, 2, 3, 4}}, back;
  std::string error;
  ASSERT_TRUE(writeNpy(path, tensor, error)) << error;
  ASSERT_TRUE(readNpy(path, back, error)) << error;
  EXPECT_EQ(back.data, tensor.data);
  std::remove(path.c_str());
  EXPECT_FALSE(readNpy(path, back, error));
  EXPECT_EQ(error, path + ": .npy file cannot be opened: No such file or directory");
  EXPECT_FALSE(writeNpy("/no/such/dir/x.npy", tensor, error));
  EXPECT_EQ(error, "/no/such/dir/x.npy: cannot write: No such file or directory");
}

TEST(NpyTest, BadMagic) {
  EXPECT_EQ(parseError("PK\x03\x04 not numpy"),
            "t.npy: not a .npy file (missing the '\\x93NUMPY' magic)");
  EXPECT_EQ(parseError(""),
            "t.npy: not a .npy file (missing the '\\x93NUMPY' magic)");
}

TEST(NpyTest, UnsupportedVersion) {
  std::string bytes = image(kDict2x3, std::string(24, '\0'));
  bytes[6] = 4;
  EXPECT_EQ(parseError(bytes), "t.npy: unsupported .npy format version 4.0 "
                               "(supported: 1.0, 2.0, 3.0)");
}

TEST(NpyTest, UnsupportedDtype) {
  EXPECT_EQ(parseError(image("{'descr': '<f16', 'fortran_order': False, "
                             "'shape': (2,), }",
                             std::string(32, '\0'))),
            "t.npy: unsupported dtype '<f16' (float128); supported: float32 "
            "('<f4'), float16 ('<f2'), int8 ('|i1'), uint8 ('|u1'), int32 "
            "('<i4'), bool ('|b1'), and int16 ('<i2'), uint16 ('<u2'), "
            "uint32 ('<u4'), uint64 ('<u8') and int64 ('<i8') with values in "
            "the int32 range, float64 ('<f8', rounded to float32), "
            "little-endian (convert with array.astype(...))");
  EXPECT_NE(parseError(image("{'descr': '>f4', 'fortran_order': False, "
                             "'shape': (2,), }",
                             std::string(8, '\0')))
                .find("unsupported dtype '>f4' (big-endian float32)"),
            std::string::npos);
  EXPECT_NE(parseError(image("{'descr': '<c8', 'fortran_order': False, "
                             "'shape': (2,), }",
                             std::string(16, '\0')))
                .find("unsupported dtype '<c8'"),
            std::string::npos);
}

// Tests that float64 arrays are read rounded to float32 (to nearest even,
// beyond its range to infinity), as the chip holds them, and written back
// widened exactly.
TEST(NpyTest, Float64HeldAsFloat32) {
  const char *dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }";
  std::string data;
  for (double v : {0.1, -2.5, 1e300, 1.0 + 1e-12}) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    for (int b = 0; b < 8; ++b)
      data.push_back(char((bits >> (8 * b)) & 0xff));
  }
  Tensor tensor;
  std::string error;
  ASSERT_TRUE(parseNpy(image(dict, data), "t.npy", tensor, error)) << error;
  EXPECT_EQ(tensor.type, ElementType::F64);
  EXPECT_EQ(tensor.data, (std::vector<float>{0.1f, -2.5f, INFINITY, 1.0f}));
  std::string bytes;
  ASSERT_TRUE(serializeNpy(tensor, bytes, error)) << error;
  EXPECT_NE(bytes.find("'<f8'"), std::string::npos);
  double back;
  std::memcpy(&back, bytes.data() + bytes.size() - 32, 8);
  EXPECT_EQ(back, double(0.1f));
}

// Tests that int64 arrays are read into int32 values, refused outside the
// int32 range, and written back sign-extended.
TEST(NpyTest, Int64HeldAsInt32) {
  const char *dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }";
  std::string data;
  for (int64_t v : {int64_t(-5), int64_t(7), int64_t(2147483647)})
    for (int b = 0; b < 8; ++b)
      data.push_back(char((uint64_t(v) >> (8 * b)) & 0xff));
  Tensor tensor;
  std::string error;
  ASSERT_TRUE(parseNpy(image(dict, data), "t.npy", tensor, error)) << error;
  EXPECT_EQ(tensor.type, ElementType::I64);
  EXPECT_EQ(tensor.ints, (std::vector<int32_t>{-5, 7, 2147483647}));
  std::string bytes;
  ASSERT_TRUE(serializeNpy(tensor, bytes, error)) << error;
  EXPECT_NE(bytes.find("'<i8'"), std::string::npos);
  EXPECT_EQ(bytes.substr(bytes.size() - 24), data);

  std::string big = data;
  big[16 + 4] = 1; // 2^32 + 2147483647: outside int32
  EXPECT_EQ(parseError(image(dict, big)),
            "t.npy: element 2 is outside the range of i64 that the chip "
            "holds (as int32)");
}

// Tests the other host-only integer types: int16 and uint16 round-trip,
// uint32 values above the int32 range are refused.
TEST(NpyTest, NarrowAndUnsignedHeldAsInt32) {
  for (ElementType type : {ElementType::I16, ElementType::U16,
                           ElementType::U32, ElementType::U64}) {
    Tensor tensor;
    tensor.type = type;
    tensor.shape = {3};
    tensor.ints = {0, type == ElementType::I16 ? -32768 : 65535, 7};
    std::string bytes, error;
    ASSERT_TRUE(serializeNpy(tensor, bytes, error)) << error;
    Tensor back;
    ASSERT_TRUE(parseNpy(bytes, "t.npy", back, error)) << error;
    EXPECT_EQ(back.type, type) << typeName(type);
    EXPECT_EQ(back.ints, tensor.ints) << typeName(type);
  }
  std::string data = {'\xff', '\xff', '\xff', '\xff'};
  EXPECT_EQ(parseError(image("{'descr': '<u4', 'fortran_order': False, "
                             "'shape': (1,), }",
                             data)),
            "t.npy: element 0 is outside the range of u32 that the chip "
            "holds (as int32)");
}

TEST(NpyTest, FortranOrder) {
  EXPECT_EQ(parseError(image("{'descr': '<f4', 'fortran_order': True, "
                             "'shape': (2, 3), }",
                             std::string(24, '\0'))),
            "t.npy: Fortran-order arrays are not supported; save a C-order "
            "array (numpy.ascontiguousarray)");
}

TEST(NpyTest, TruncatedData) {
  EXPECT_EQ(parseError(image(kDict2x3, std::string(20, '\0'))),
            "t.npy: the data is truncated: shape [2, 3] needs 24 bytes, the "
            "file has 20");
}

TEST(NpyTest, ShapeDoesNotMatchData) {
  EXPECT_EQ(parseError(image(kDict2x3, std::string(28, '\0'))),
            "t.npy: the file has 4 bytes after the data of shape [2, 3]");
}

TEST(NpyTest, TruncatedHeader) {
  std::string bytes = image(kDict2x3, "");
  EXPECT_NE(parseError(bytes.substr(0, 30))
                .find("t.npy: the header is "
                      "truncated"),
            std::string::npos);
  EXPECT_EQ(parseError(bytes.substr(0, 9)), "t.npy: the header is truncated");
}

TEST(NpyTest, MalformedHeader) {
  const std::pair<const char *, const char *> cases[] = {
      {"'descr': '<f4'", "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False}", "no 'shape' key"},
      {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': ()}",
       "'fortran_order' must be True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
       "'shape' must be a tuple of non-negative integers"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}",
       "unexpected key 'x'"},
      {"{'descr: '<f4'}", "expected ':'"},
  };
  for (const auto &[dict, what] : cases) {
    std::string error = parseError(image(dict, ""));
    EXPECT_EQ(error.rfind("t.npy: malformed header: ", 0), 0u) << error;
    EXPECT_NE(error.find(what), std::string::npos) << error;
  }
}

TEST(NpyTest, SerializeRejectsInconsistentTensor) {
  std::string bytes, error;
  EXPECT_FALSE(serializeNpy(Tensor{{2, 2}, {1, 2, 3}}, bytes, error));
  EXPECT_EQ(error, "tensor of shape [2, 2] has 3 elements");
}

} // namespace
} // namespace hetc::io
