//===- TypedNumericsTest.cpp - Rounding rules and the narrow types -----===//
//
// The conversions of runtime/io/ElementType.h, checked on hand-picked
// halfway cases and exhaustively where that is cheap, and the chip model on
// f16, bf16, i8 and i32 programs.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include "runtime/io/ElementType.h"
#include "runtime/io/Npy.h"
#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace hetc::test {
namespace {

using io::ElementType;

float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

// Tests round to nearest even into f16 on ties, just above and below ties,
// at the overflow threshold and in the subnormal range.
TEST(ElementTypeTest, HalfRoundsToNearestEven) {
  EXPECT_EQ(io::halfBits(1.0f), 0x3c00);
  EXPECT_EQ(io::halfBits(-0.0f), 0x8000);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to the even one, 1.
  EXPECT_EQ(io::halfBits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
  EXPECT_EQ(io::halfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  // Just above a tie rounds up.
  EXPECT_EQ(io::halfBits(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
            0x3c01);
  EXPECT_EQ(io::halfBits(65504.0f), 0x7bff);
  EXPECT_EQ(io::halfBits(65519.996f), 0x7bff);
  EXPECT_EQ(io::halfBits(65520.0f), 0x7c00); // the tie goes to infinity
  EXPECT_EQ(io::halfBits(-1e9f), 0xfc00);
  EXPECT_EQ(io::halfBits(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(io::halfBits(std::ldexp(1.0f, -25)), 0x0000); // tie to even 0
  EXPECT_EQ(io::halfBits(3 * std::ldexp(1.0f, -25)), 0x0002);
  EXPECT_EQ(io::halfBits(std::ldexp(1023.5f, -24)), 0x0400); // to min normal
  uint16_t nan = io::halfBits(std::nanf(""));
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
}

// Tests that every f16 value converts to fp32 and back to the same bits.
TEST(ElementTypeTest, HalfRoundTripsEveryValue) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    if ((bits & 0x7c00) == 0x7c00 && (bits & 0x03ff))
      continue; // NaNs: checked above
    ASSERT_EQ(io::halfBits(io::halfValue(uint16_t(bits))), bits) << bits;
  }
  EXPECT_EQ(io::halfValue(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(io::halfValue(0x7bff), 65504.0f);
}

// Tests bf16 rounding: ties to even, overflow to infinity, NaN kept.
TEST(ElementTypeTest, Bf16RoundsToNearestEven) {
  EXPECT_EQ(io::bf16Bits(1.0f), 0x3f80);
  EXPECT_EQ(io::bf16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(io::bf16Bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(io::bf16Bits(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)),
            0x3f81);
  EXPECT_EQ(io::bf16Bits(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_TRUE(std::isnan(io::bf16Value(io::bf16Bits(bitsToFloat(0x7f800001)))));
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    if ((bits & 0x7f80) == 0x7f80 && (bits & 0x007f))
      continue;
    ASSERT_EQ(io::bf16Bits(io::bf16Value(uint16_t(bits))), bits) << bits;
  }
}

// Tests float-to-integer conversion: truncation, saturation, NaN.
TEST(ElementTypeTest, IntegersTruncateAndSaturate) {
  EXPECT_EQ(io::saturateTo(ElementType::I8, 127.9f), 127);
  EXPECT_EQ(io::saturateTo(ElementType::I8, -1.7f), -1);
  EXPECT_EQ(io::saturateTo(ElementType::I8, -128.5f), -128);
  EXPECT_EQ(io::saturateTo(ElementType::I8, 300.0f), 127);
  EXPECT_EQ(io::saturateTo(ElementType::U8, -3.0f), 0);
  EXPECT_EQ(io::saturateTo(ElementType::U8, 255.9f), 255);
  EXPECT_EQ(io::saturateTo(ElementType::I32, 3e9f), 2147483647);
  EXPECT_EQ(io::saturateTo(ElementType::I32, -3e9f), -2147483647 - 1);
  EXPECT_EQ(io::saturateTo(ElementType::I8, std::nanf("")), 0);
  EXPECT_EQ(io::saturateTo(ElementType::Bool, 0.5f), 1);
  EXPECT_EQ(io::saturateTo(ElementType::Bool, -0.0f), 0);
  EXPECT_EQ(io::clampTo(ElementType::I8, 1000), 127);
  EXPECT_EQ(io::clampTo(ElementType::U8, -5), 0);
}

// Tests .npy round trips of every element type numpy has.
TEST(ElementTypeTest, NpyRoundTripsTypes) {
  for (ElementType type : {ElementType::F16, ElementType::I8, ElementType::U8,
                           ElementType::I32, ElementType::Bool}) {
    io::Tensor tensor;
    tensor.type = type;
    tensor.shape = {2, 2};
    if (io::isFloat(type))
      tensor.data = {1.0f, -0.5f, 65504.0f, std::ldexp(1.0f, -24)};
    else
      tensor.ints = {0, 1, type == ElementType::Bool ? 1 : 100,
                     type == ElementType::U8     ? 255
                     : type == ElementType::Bool ? 0
                                                 : -7};
    std::string bytes, error;
    ASSERT_TRUE(io::serializeNpy(tensor, bytes, error)) << error;
    io::Tensor back;
    ASSERT_TRUE(io::parseNpy(bytes, "t.npy", back, error)) << error;
    EXPECT_EQ(back.type, type) << io::typeName(type);
    EXPECT_EQ(back.shape, tensor.shape);
    EXPECT_EQ(back.data, tensor.data);
    EXPECT_EQ(back.ints, tensor.ints);
  }
}

/// Gives every binding and instruction of `program` the type `type`.
void retype(TestProgram &program, hetx::DataType type) {
  hetx::Artifact &artifact = program.artifact;
  for (hetx::TensorBinding &binding : *artifact.mutable_inputs())
    binding.set_dtype(type);
  for (hetx::TensorBinding &binding : *artifact.mutable_outputs())
    binding.set_dtype(type);
  for (hetx::Instruction &instr : *artifact.mutable_instructions())
    instr.set_dtype(type);
}

class TypedSimTest : public ::testing::Test {
protected:
  chip::ChipSpec chip = loadChip("test-chip");
};

// Tests that an f16 add rounds each sum to f16 (a = 1, b = 2^-11 + 2^-20 in
// lane 0: fp32 would keep 1 + 2^-11 + 2^-20, f16 gives 1 + 2^-10).
TEST_F(TypedSimTest, HalfAddRoundsToHalf) {
  TestProgram program = addProgram(chip);
  retype(program, hetx::F16);
  for (auto &[name, tensor] : program.inputs) {
    tensor.type = ElementType::F16;
    for (float &value : tensor.data)
      value = io::roundTo(ElementType::F16, value * 0.37f);
  }
  program.inputs["a"].data[0] = 1.0f;
  program.inputs["b"].data[0] = std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20);
  sim::SimResult result = simulateOk(program, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  const io::Tensor &y = result.outputs[0].tensor;
  EXPECT_EQ(y.type, ElementType::F16);
  EXPECT_EQ(y.data[0], 1.0f + std::ldexp(1.0f, -10));
  for (size_t i = 0; i < y.data.size(); ++i)
    EXPECT_EQ(y.data[i],
              io::roundTo(ElementType::F16, program.inputs["a"].data[i] +
                                                program.inputs["b"].data[i]))
        << "lane " << i;
}

// Tests bf16: the sum is rounded to 8 significant bits.
TEST_F(TypedSimTest, Bf16AddRoundsToBf16) {
  TestProgram program = addProgram(chip);
  retype(program, hetx::BF16);
  program.inputs["a"].data.assign(16, 1.0f);
  program.inputs["b"].data.assign(16, std::ldexp(3.0f, -8)); // 1.5 ulp
  sim::SimResult result = simulateOk(program, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  EXPECT_EQ(result.outputs[0].tensor.data[3], 1.0f + std::ldexp(1.0f, -6));
}

// Tests that i32 adds wrap around in two's complement.
TEST_F(TypedSimTest, Int32AddWraps) {
  TestProgram program = addProgram(chip);
  retype(program, hetx::I32);
  for (auto &[name, tensor] : program.inputs) {
    tensor.type = ElementType::I32;
    tensor.data.clear();
    tensor.ints.assign(16, name == "a" ? 2147483647 : 0);
  }
  program.inputs["b"].ints[0] = 1;
  program.inputs["b"].ints[1] = -5;
  sim::SimResult result = simulateOk(program, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  const io::Tensor &y = result.outputs[0].tensor;
  EXPECT_EQ(y.type, ElementType::I32);
  EXPECT_EQ(y.ints[0], -2147483647 - 1);
  EXPECT_EQ(y.ints[1], 2147483642);
}

/// The matmul reference program with i8 weights and inputs and an i32
/// result.
TestProgram int8MatmulProgram(const chip::ChipSpec &chip) {
  TestProgram program = matmulProgram(chip);
  hetx::Artifact &artifact = program.artifact;
  retype(program, hetx::I8);
  artifact.mutable_outputs(0)->set_dtype(hetx::I32);
  hetx::Constant &weights = *artifact.mutable_constants(0);
  weights.mutable_binding()->set_dtype(hetx::I8);
  std::string bytes;
  for (uint32_t i = 0; i < 16; ++i)
    for (uint32_t j = 0; j < 16; ++j)
      bytes.push_back(char(int8_t(int(i * 7 + j * 13) % 256 - 128)));
  weights.set_data(bytes);
  // The product travels as i32 to the write.
  for (hetx::Instruction &instr : *artifact.mutable_instructions())
    if (instr.opcode() == hetx::MEM_WRITE)
      instr.set_dtype(hetx::I32);
  io::Tensor &x = program.inputs["x"];
  x.type = ElementType::I8;
  x.data.clear();
  for (int i = 0; i < 16; ++i)
    x.ints.push_back(i % 2 ? -128 : 127 - i);
  return program;
}

// Tests i8 x i8 products accumulated exactly in i32.
TEST_F(TypedSimTest, Int8MatmulAccumulatesInInt32) {
  TestProgram program = int8MatmulProgram(chip);
  sim::SimResult result = simulateOk(program, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  const io::Tensor &y = result.outputs[0].tensor;
  EXPECT_EQ(y.type, ElementType::I32);
  const std::string &w = program.artifact.constants(0).data();
  for (int j = 0; j < 16; ++j) {
    int64_t sum = 0;
    for (int i = 0; i < 16; ++i)
      sum += int64_t(program.inputs["x"].ints[i]) * int8_t(w[16 * i + j]);
    EXPECT_EQ(y.ints[j], sum) << "column " << j;
  }
}

// Tests that the f16 matmul multiplies f16 values exactly and accumulates
// in fp32: the result is F32, not rounded to f16.
TEST_F(TypedSimTest, HalfMatmulAccumulatesInFp32) {
  TestProgram program = matmulProgram(chip);
  retype(program, hetx::F16);
  program.artifact.mutable_outputs(0)->set_dtype(hetx::F32);
  for (hetx::Instruction &instr : *program.artifact.mutable_instructions())
    if (instr.opcode() == hetx::MEM_WRITE)
      instr.set_dtype(hetx::F32);
  hetx::Constant &weights = *program.artifact.mutable_constants(0);
  weights.mutable_binding()->set_dtype(hetx::F16);
  std::string bytes;
  std::vector<float> w;
  for (int k = 0; k < 256; ++k) {
    w.push_back(io::roundTo(ElementType::F16, 1.0f + float(k) / 1024.0f));
    uint16_t bits = io::halfBits(w.back());
    bytes.push_back(char(bits & 0xff));
    bytes.push_back(char(bits >> 8));
  }
  weights.set_data(bytes);
  io::Tensor &x = program.inputs["x"];
  x.type = ElementType::F16;
  for (int i = 0; i < 16; ++i)
    x.data[i] = io::roundTo(ElementType::F16, 1.0f + float(i) / 2048.0f);
  sim::SimResult result = simulateOk(program, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  for (int j = 0; j < 16; ++j) {
    float sum = 0.0f;
    for (int i = 0; i < 16; ++i)
      sum = sum + x.data[i] * w[16 * i + j];
    EXPECT_EQ(result.outputs[0].tensor.data[j], sum) << "column " << j;
  }
  EXPECT_NE(result.outputs[0].tensor.data[5],
            io::roundTo(ElementType::F16, result.outputs[0].tensor.data[5]));
}

/// y = cast(a) from `from` to `to`: the add program without its second
/// operand.
TestProgram castProgram(const chip::ChipSpec &chip, hetx::DataType from,
                        hetx::DataType to) {
  TestProgram program = addProgram(chip);
  hetx::Artifact &artifact = program.artifact;
  retype(program, from);
  artifact.mutable_inputs()->DeleteSubrange(1, 1);
  program.inputs.erase("b");
  artifact.mutable_outputs(0)->set_dtype(to);
  auto &instrs = *artifact.mutable_instructions();
  instrs.DeleteSubrange(1, 1); // the read of b
  hetx::Instruction &cast = instrs[1];
  cast.set_opcode(hetx::V_CAST);
  cast.set_src_dtype(from);
  cast.set_dtype(to);
  cast.mutable_src()->DeleteSubrange(1, 1);
  instrs[2].set_dtype(to);
  resort(artifact, chip);
  return program;
}

// Tests V_CAST from f32 to i8: truncation, saturation, NaN to 0.
TEST_F(TypedSimTest, CastToInt8Saturates) {
  TestProgram program = castProgram(chip, hetx::F32, hetx::I8);
  std::vector<float> in = {127.9f, -1.7f, -128.5f, 300.0f, -1e30f,
                           std::nanf(""), 0.5f, -0.0f};
  std::vector<int32_t> want = {127, -1, -128, 127, -128, 0, 0, 0};
  io::Tensor &a = program.inputs["a"];
  for (size_t i = 0; i < in.size(); ++i)
    a.data[i] = in[i];
  sim::SimResult result = simulateOk(program, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  const io::Tensor &y = result.outputs[0].tensor;
  EXPECT_EQ(y.type, ElementType::I8);
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(y.ints[i], want[i]) << "lane " << i;
}

// Tests V_CAST from f32 to f16 (round to nearest even) and back (exact).
TEST_F(TypedSimTest, CastToHalfRounds) {
  TestProgram program = castProgram(chip, hetx::F32, hetx::F16);
  io::Tensor &a = program.inputs["a"];
  a.data[0] = 1.0f + std::ldexp(1.0f, -11);
  a.data[1] = 1e6f;
  sim::SimResult result = simulateOk(program, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  EXPECT_EQ(result.outputs[0].tensor.data[0], 1.0f);
  EXPECT_TRUE(std::isinf(result.outputs[0].tensor.data[1]));
}

// Tests V_CAST from f32 to f8E4M3FN: round to nearest even and saturation
// by default; NaN beyond the range and for infinity with no saturation.
TEST_F(TypedSimTest, CastToFloat8) {
  std::vector<float> in = {
      100.0f,        1e6f,  -std::numeric_limits<float>::infinity(),
      std::nanf(""), 0.46f, -0.0f};
  for (bool saturate : {true, false}) {
    TestProgram program = castProgram(chip, hetx::F32, hetx::F8E4M3FN);
    if (!saturate)
      program.artifact.mutable_instructions(1)->set_overflow(
          hetx::OVERFLOW_NO_SATURATE);
    io::Tensor &a = program.inputs["a"];
    for (size_t i = 0; i < in.size(); ++i)
      a.data[i] = in[i];
    sim::SimResult result = simulateOk(program, chip);
    ASSERT_EQ(result.outputs.size(), 1u);
    const io::Tensor &y = result.outputs[0].tensor;
    EXPECT_EQ(y.type, ElementType::F8E4M3FN);
    EXPECT_EQ(y.data[0], 96.0f);
    if (saturate) {
      EXPECT_EQ(y.data[1], 448.0f);
      EXPECT_EQ(y.data[2], -448.0f);
    } else {
      EXPECT_TRUE(std::isnan(y.data[1]));
      EXPECT_TRUE(std::isnan(y.data[2]));
    }
    EXPECT_TRUE(std::isnan(y.data[3]));
    EXPECT_EQ(y.data[4], 0.46875f);
    EXPECT_TRUE(std::signbit(y.data[5]));
  }
}

// Tests V_CAST from f32 to i4: saturating by default (as QuantizeLinear
// needs), keeping the low bits with OVERFLOW_WRAP (as ONNX Cast does).
TEST_F(TypedSimTest, CastToInt4SaturatesOrWraps) {
  std::vector<float> in = {-9.0f, 8.0f, 15.0f, -2.7f, 7.0f};
  std::vector<int32_t> saturated = {-8, 7, 7, -2, 7};
  std::vector<int32_t> wrapped = {7, -8, -1, -2, 7};
  for (bool wrap : {false, true}) {
    TestProgram program = castProgram(chip, hetx::F32, hetx::I4);
    if (wrap)
      program.artifact.mutable_instructions(1)->set_overflow(
          hetx::OVERFLOW_WRAP);
    io::Tensor &a = program.inputs["a"];
    for (size_t i = 0; i < in.size(); ++i)
      a.data[i] = in[i];
    sim::SimResult result = simulateOk(program, chip);
    ASSERT_EQ(result.outputs.size(), 1u);
    const io::Tensor &y = result.outputs[0].tensor;
    EXPECT_EQ(y.type, ElementType::I4);
    for (size_t i = 0; i < in.size(); ++i)
      EXPECT_EQ(y.ints[i], wrap ? wrapped[i] : saturated[i]) << "lane " << i;
  }
}

// Tests V_CAST to f8E8M0 with each e8m0_rounding.
TEST_F(TypedSimTest, CastToE8M0Rounds) {
  struct Case {
    hetx::E8M0Rounding rounding;
    float want;
  };
  for (Case c :
       {Case{hetx::E8M0_ROUND_UP, 4.0f}, Case{hetx::E8M0_ROUND_DOWN, 2.0f},
        Case{hetx::E8M0_ROUND_NEAREST, 4.0f}}) {
    TestProgram program = castProgram(chip, hetx::F32, hetx::F8E8M0);
    program.artifact.mutable_instructions(1)->set_e8m0_rounding(c.rounding);
    program.inputs["a"].data[0] = 3.0f;
    sim::SimResult result = simulateOk(program, chip);
    ASSERT_EQ(result.outputs.size(), 1u);
    EXPECT_EQ(result.outputs[0].tensor.data[0], c.want) << c.rounding;
  }
}

// Tests that a value read as another type than it was made is a hazard.
// (I32 has f32's width, so SRAM hands the lanes over.)
TEST_F(TypedSimTest, TypeMismatchOnStream) {
  TestProgram program = addProgram(chip);
  program.artifact.mutable_instructions(0)->set_dtype(hetx::I32);
  std::string error = simulateError(program, chip);
  EXPECT_EQ(error,
            "hazard: type mismatch at cycle 7: instruction #2 V_ADD on vector "
            "unit (node 'Add_0'): src[0] takes f32 lanes, but instruction #0 "
            "MEM_READ put i32 lanes there");
}

// Tests that reading SRAM at another width than it was written is a
// hazard: an f32 input read as f16 (native width: its bytes are not an f16
// vector).
TEST_F(TypedSimTest, WidthMismatchInSram) {
  TestProgram program = addProgram(chip);
  program.artifact.mutable_instructions(0)->set_dtype(hetx::F16);
  std::string error = simulateError(program, chip);
  EXPECT_EQ(error.rfind("hazard: width mismatch at cycle 2: instruction #0 "
                        "MEM_READ on MEM slice 0 (node 'Add_0'): the "
                        "instruction reads a vector of 2 bytes a lane at "
                        "address 0 part 0, but an input or constant placed "
                        "before cycle 0 holds those bytes",
                        0),
            0u)
      << error;
}

// Tests that a matmul on weights of another type is a hazard.
TEST_F(TypedSimTest, TypeMismatchOnWeights) {
  TestProgram program = matmulProgram(chip);
  // x is bf16 (its values are: small integers), so its read is.
  program.artifact.mutable_inputs(0)->set_dtype(hetx::BF16);
  program.inputs["x"].type = io::ElementType::BF16;
  for (hetx::Instruction &instr : *program.artifact.mutable_instructions())
    if (instr.opcode() == hetx::M_MATMUL ||
        (instr.opcode() == hetx::MEM_READ &&
         instr.address() == 2 * chip.vectorsPerSlice()))
      instr.set_dtype(hetx::BF16);
  std::string error = simulateError(program, chip);
  EXPECT_NE(error.find("hazard: type mismatch at cycle 22: instruction #33 "
                       "M_MATMUL on matrix plane 0"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("it multiplies bf16 inputs, but the weights of matrix "
                       "plane 0 are f32 (last loaded by instruction #32 "
                       "M_LOAD_WEIGHTS)"),
            std::string::npos)
      << error;
}

// Tests the decoder's checks of the dtype fields.
TEST_F(TypedSimTest, BadDtypes) {
  TestProgram program = addProgram(chip);
  program.artifact.mutable_instructions(2)->set_dtype(hetx::I8);
  EXPECT_NE(simulateError(program, chip)
                .find("bad dtype at cycle 7: instruction #2 V_ADD on vector "
                      "unit (node 'Add_0'): V_ADD is not defined on i8 lanes"),
            std::string::npos);
  program = addProgram(chip);
  program.artifact.mutable_instructions(2)->set_src_dtype(hetx::F16);
  EXPECT_NE(simulateError(program, chip)
                .find("src_dtype is set, but only V_CAST converts"),
            std::string::npos);
  program = castProgram(chip, hetx::F32, hetx::I8);
  program.artifact.mutable_instructions(1)->clear_src_dtype();
  EXPECT_NE(simulateError(program, chip)
                .find("V_CAST needs src_dtype, the type it converts from"),
            std::string::npos);
  program = castProgram(chip, hetx::F32, hetx::I8);
  program.artifact.mutable_instructions(1)->set_overflow(
      hetx::OVERFLOW_NO_SATURATE);
  EXPECT_NE(simulateError(program, chip)
                .find("V_CAST to i8 with OVERFLOW_NO_SATURATE (only the 8- "
                      "and 4-bit float types take it)"),
            std::string::npos);
  program = castProgram(chip, hetx::F32, hetx::F16);
  program.artifact.mutable_instructions(1)->set_overflow(hetx::OVERFLOW_WRAP);
  EXPECT_NE(simulateError(program, chip)
                .find("V_CAST to f16 with OVERFLOW_WRAP (only integer types "
                      "take it)"),
            std::string::npos);
  program = castProgram(chip, hetx::F32, hetx::F16);
  program.artifact.mutable_instructions(1)->set_e8m0_rounding(
      hetx::E8M0_ROUND_DOWN);
  EXPECT_NE(simulateError(program, chip)
                .find("V_CAST to f16 sets e8m0_rounding (only casts to "
                      "f8e8m0 round by it)"),
            std::string::npos);
  program = addProgram(chip);
  program.artifact.mutable_instructions(2)->set_overflow(hetx::OVERFLOW_WRAP);
  EXPECT_NE(simulateError(program, chip)
                .find("overflow or e8m0_rounding is set, but only V_CAST"),
            std::string::npos);
  // The narrow types are moved and converted, never computed on.
  program = addProgram(chip);
  retype(program, hetx::F8E4M3FN);
  EXPECT_NE(simulateError(program, chip)
                .find("V_ADD is not defined on f8e4m3fn lanes"),
            std::string::npos);
  program = addProgram(chip);
  program.artifact.mutable_instructions(2)->set_opcode(hetx::V_POW);
  program.artifact.mutable_instructions(2)->set_dtype(hetx::I32);
  EXPECT_NE(simulateError(program, chip).find("V_POW is not defined on i32"),
            std::string::npos);
}

// Tests that an input of the wrong element type is refused by name, and
// that a bf16 or f8 input may come as f32 values of the type, an i4 one as
// i8 values in its range.
TEST_F(TypedSimTest, InputTypesAreChecked) {
  TestProgram program = addProgram(chip);
  retype(program, hetx::F16);
  sim::SimResult result;
  std::string error;
  EXPECT_FALSE(sim::simulate(program.artifact, chip, program.inputs, result,
                             error));
  EXPECT_EQ(error, "input 'a' is f16, but the value given is f32");
  retype(program, hetx::BF16);
  program.inputs["a"].data[2] = 0.1f;
  EXPECT_FALSE(sim::simulate(program.artifact, chip, program.inputs, result,
                             error));
  EXPECT_NE(error.find("input 'a' is bf16, but element 2"), std::string::npos)
      << error;
  // f8 inputs come as f32 values of the type, i4 ones as i8 values in range.
  program = castProgram(chip, hetx::F8E5M2, hetx::F32);
  for (float &value : program.inputs["a"].data)
    value = io::roundTo(ElementType::F8E5M2, value);
  program.inputs["a"].data[2] = 0.75f;
  program.inputs["a"].data[3] = 4.5f;
  EXPECT_FALSE(
      sim::simulate(program.artifact, chip, program.inputs, result, error));
  EXPECT_NE(error.find("input 'a' is f8e5m2, but element 3 (4.500000) of the "
                       "f32 values given is not a f8e5m2 value"),
            std::string::npos)
      << error;
  program = castProgram(chip, hetx::I4, hetx::I8);
  io::Tensor &a = program.inputs["a"];
  a.type = ElementType::I8;
  a.ints.assign(a.data.size(), 7);
  a.data.clear();
  a.ints[4] = 8;
  EXPECT_FALSE(
      sim::simulate(program.artifact, chip, program.inputs, result, error));
  EXPECT_EQ(error, "input 'a' is i4, but element 4 (8) of the i8 values given "
                   "is outside its range");
  a.ints[4] = -8;
  EXPECT_TRUE(
      sim::simulate(program.artifact, chip, program.inputs, result, error))
      << error;
  EXPECT_EQ(result.outputs[0].tensor.ints[4], -8);
}

} // namespace
} // namespace hetc::test
