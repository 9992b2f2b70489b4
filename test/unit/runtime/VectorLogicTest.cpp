//===- VectorLogicTest.cpp - Comparisons, logic, select and remainders -===//
//
// The vector-unit opcodes of docs/isa.md that give or take bool lanes
// (V_EQUAL, V_LESS, V_LESS_EQUAL, V_AND, V_OR, V_XOR, V_NOT, V_SELECT) and
// the remainders V_MOD and V_FMOD, on the chip model.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include "runtime/sim/HazardText.h"
#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace hetc::test {
namespace {

using io::ElementType;

/// addProgram with its V_ADD replaced by `opcode` on `in` operands, the
/// result an `out` output.
TestProgram binaryProgram(const chip::ChipSpec &chip, hetx::Opcode opcode,
                          hetx::DataType in, hetx::DataType out) {
  TestProgram program = addProgram(chip);
  hetx::Artifact &artifact = program.artifact;
  for (hetx::TensorBinding &binding : *artifact.mutable_inputs())
    binding.set_dtype(in);
  artifact.mutable_outputs(0)->set_dtype(out);
  for (hetx::Instruction &instr : *artifact.mutable_instructions()) {
    bool writes = instr.opcode() == hetx::MEM_WRITE;
    if (instr.opcode() == hetx::V_ADD)
      instr.set_opcode(opcode);
    instr.set_dtype(writes ? out : in);
  }
  return program;
}

/// Sets input `name` to integer lanes of `type`.
void setInts(TestProgram &program, const std::string &name, ElementType type,
             std::vector<int32_t> values) {
  io::Tensor &tensor = program.inputs[name];
  values.resize(tensor.shape[0], 0);
  tensor.type = type;
  tensor.data.clear();
  tensor.ints = values;
}

sim::SimResult run(const TestProgram &program, const chip::ChipSpec &chip) {
  sim::SimResult result;
  std::string error;
  EXPECT_TRUE(
      sim::simulate(program.artifact, chip, program.inputs, result, error))
      << error;
  return result;
}

class VectorLogicTest : public ::testing::Test {
protected:
  chip::ChipSpec chip = loadChip("test-chip");
};

// Tests V_LESS on f32 lanes: bool results, NaN compares false, -0 == +0.
TEST_F(VectorLogicTest, LessOnFloatsGivesBool) {
  TestProgram program = binaryProgram(chip, hetx::V_LESS, hetx::F32, hetx::BOOL);
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {1, 2, -0.0f, nan, -INFINITY, 3};
  std::vector<float> b = {2, 1, 0.0f, 1, 0, nan};
  for (size_t i = 0; i < a.size(); ++i) {
    program.inputs["a"].data[i] = a[i];
    program.inputs["b"].data[i] = b[i];
  }
  sim::SimResult result = run(program, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  const io::Tensor &y = result.outputs[0].tensor;
  EXPECT_EQ(y.type, ElementType::Bool);
  std::vector<int32_t> want = {1, 0, 0, 0, 1, 0};
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(y.ints[i], want[i]) << "lane " << i;
  for (size_t i = 0; i < y.ints.size(); ++i)
    EXPECT_EQ(y.ints[i], program.inputs["a"].data[i] <
                             program.inputs["b"].data[i])
        << "lane " << i;
}

// Tests V_EQUAL and V_LESS_EQUAL on i32 lanes.
TEST_F(VectorLogicTest, IntegerComparisons) {
  for (hetx::Opcode opcode : {hetx::V_EQUAL, hetx::V_LESS_EQUAL}) {
    TestProgram program = binaryProgram(chip, opcode, hetx::I32, hetx::BOOL);
    setInts(program, "a", ElementType::I32, {5, -3, 7, -2147483647 - 1});
    setInts(program, "b", ElementType::I32, {5, 4, -7, 2147483647});
    sim::SimResult result = run(program, chip);
    ASSERT_EQ(result.outputs.size(), 1u);
    std::vector<int32_t> want = opcode == hetx::V_EQUAL
                                    ? std::vector<int32_t>{1, 0, 0, 0, 1}
                                    : std::vector<int32_t>{1, 1, 0, 1, 1};
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_EQ(result.outputs[0].tensor.ints[i], want[i])
          << sim::HazardText::opcodeName(opcode) << " lane " << i;
  }
}

// Tests V_AND, V_OR, V_XOR on bool lanes and V_NOT.
TEST_F(VectorLogicTest, LogicalOnBool) {
  std::vector<int32_t> a = {0, 0, 1, 1}, b = {0, 1, 0, 1};
  struct Case {
    hetx::Opcode opcode;
    std::vector<int32_t> want;
  };
  for (const Case &c : {Case{hetx::V_AND, {0, 0, 0, 1}},
                        Case{hetx::V_OR, {0, 1, 1, 1}},
                        Case{hetx::V_XOR, {0, 1, 1, 0}}}) {
    TestProgram program = binaryProgram(chip, c.opcode, hetx::BOOL, hetx::BOOL);
    setInts(program, "a", ElementType::Bool, a);
    setInts(program, "b", ElementType::Bool, b);
    sim::SimResult result = run(program, chip);
    ASSERT_EQ(result.outputs.size(), 1u);
    for (size_t i = 0; i < c.want.size(); ++i)
      EXPECT_EQ(result.outputs[0].tensor.ints[i], c.want[i])
          << sim::HazardText::opcodeName(c.opcode) << " lane " << i;
  }
  // V_NOT: the add program's second operand dropped (b is still read, and
  // nobody takes it).
  TestProgram program = binaryProgram(chip, hetx::V_NOT, hetx::BOOL, hetx::BOOL);
  for (hetx::Instruction &instr : *program.artifact.mutable_instructions())
    if (instr.opcode() == hetx::V_NOT)
      instr.mutable_src()->DeleteSubrange(1, 1);
  setInts(program, "b", ElementType::Bool, b);
  setInts(program, "a", ElementType::Bool, a);
  sim::SimResult result = run(program, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  EXPECT_EQ(result.outputs[0].tensor.ints[0], 1);
  EXPECT_EQ(result.outputs[0].tensor.ints[3], 0);
}

// Tests that V_AND, V_OR and V_XOR work bitwise on i32 lanes, and that
// V_NOT stays bool-only.
TEST_F(VectorLogicTest, BitwiseOnInt32) {
  std::vector<int32_t> a = {0x0f0f, -1, 6, -2147483647 - 1};
  std::vector<int32_t> b = {0x00ff, 12345, 3, -1};
  struct Case {
    hetx::Opcode opcode;
    std::vector<int32_t> want;
  };
  for (const Case &c :
       {Case{hetx::V_AND, {0x000f, 12345, 2, -2147483647 - 1}},
        Case{hetx::V_OR, {0x0fff, -1, 7, -1}},
        Case{hetx::V_XOR, {0x0ff0, ~12345, 5, 2147483647}}}) {
    TestProgram program = binaryProgram(chip, c.opcode, hetx::I32, hetx::I32);
    setInts(program, "a", ElementType::I32, a);
    setInts(program, "b", ElementType::I32, b);
    sim::SimResult result = run(program, chip);
    ASSERT_EQ(result.outputs.size(), 1u);
    for (size_t i = 0; i < c.want.size(); ++i)
      EXPECT_EQ(result.outputs[0].tensor.ints[i], c.want[i])
          << sim::HazardText::opcodeName(c.opcode) << " lane " << i;
  }
  TestProgram program = binaryProgram(chip, hetx::V_NOT, hetx::I32, hetx::I32);
  for (hetx::Instruction &instr : *program.artifact.mutable_instructions())
    if (instr.opcode() == hetx::V_NOT)
      instr.mutable_src()->DeleteSubrange(1, 1);
  EXPECT_NE(simulateError(program, chip).find("V_NOT is not defined on i32"),
            std::string::npos);
}

// Tests the logical shifts on i32 lanes: zeros shift in from either side
// (V_SHR takes the word as unsigned), a count outside [0, 31] gives 0, and
// float lanes are refused.
TEST_F(VectorLogicTest, ShiftsOnInt32) {
  std::vector<int32_t> a = {1, -1, 0x40000000, -8, 5, 5};
  std::vector<int32_t> b = {3, 4, 1, 1, 32, -1};
  struct Case {
    hetx::Opcode opcode;
    std::vector<int32_t> want;
  };
  for (const Case &c :
       {Case{hetx::V_SHL, {8, -16, -2147483647 - 1, -16, 0, 0}},
        Case{hetx::V_SHR, {0, 0x0fffffff, 0x20000000, 0x7ffffffc, 0, 0}}}) {
    TestProgram program = binaryProgram(chip, c.opcode, hetx::I32, hetx::I32);
    setInts(program, "a", ElementType::I32, a);
    setInts(program, "b", ElementType::I32, b);
    sim::SimResult result = run(program, chip);
    ASSERT_EQ(result.outputs.size(), 1u);
    for (size_t i = 0; i < c.want.size(); ++i)
      EXPECT_EQ(result.outputs[0].tensor.ints[i], c.want[i])
          << sim::HazardText::opcodeName(c.opcode) << " lane " << i;
  }
  TestProgram program = binaryProgram(chip, hetx::V_SHL, hetx::F32, hetx::F32);
  EXPECT_NE(simulateError(program, chip).find("shifts take i32 lanes"),
            std::string::npos);
}

// Tests the remainders: V_MOD takes the divisor's sign, V_FMOD the
// dividend's; an integer remainder by zero is 0; float fmod is C's fmodf.
TEST_F(VectorLogicTest, Remainders) {
  std::vector<int32_t> a = {7, -7, 7, -7, 5, -2147483647 - 1};
  std::vector<int32_t> b = {3, 3, -3, -3, 0, -1};
  std::vector<int32_t> mod = {1, 2, -2, -1, 0, 0};
  std::vector<int32_t> fmod = {1, -1, 1, -1, 0, 0};
  for (hetx::Opcode opcode : {hetx::V_MOD, hetx::V_FMOD}) {
    TestProgram program = binaryProgram(chip, opcode, hetx::I32, hetx::I32);
    setInts(program, "a", ElementType::I32, a);
    setInts(program, "b", ElementType::I32, b);
    sim::SimResult result = run(program, chip);
    ASSERT_EQ(result.outputs.size(), 1u);
    const std::vector<int32_t> &want = opcode == hetx::V_MOD ? mod : fmod;
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_EQ(result.outputs[0].tensor.ints[i], want[i])
          << sim::HazardText::opcodeName(opcode) << " lane " << i;
  }
  TestProgram program = binaryProgram(chip, hetx::V_FMOD, hetx::F32, hetx::F32);
  sim::SimResult result = run(program, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  for (size_t i = 0; i < result.outputs[0].tensor.data.size(); ++i) {
    float want = std::fmod(program.inputs["a"].data[i],
                           program.inputs["b"].data[i]);
    EXPECT_EQ(std::memcmp(&result.outputs[0].tensor.data[i], &want, 4), 0)
        << "lane " << i;
  }
  // Float V_MOD is numpy's mod: the divisor's sign, zeros included.
  program = binaryProgram(chip, hetx::V_MOD, hetx::F32, hetx::F32);
  std::vector<float> x = {7, -7, 7, -1, 6, -6, 1};
  std::vector<float> y = {3, 3, -3, INFINITY, 3, -3, 0};
  std::vector<float> want = {1, 2, -2, INFINITY, 0.0f, -0.0f, NAN};
  for (size_t i = 0; i < x.size(); ++i) {
    program.inputs["a"].data[i] = x[i];
    program.inputs["b"].data[i] = y[i];
  }
  result = run(program, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  for (size_t i = 0; i < want.size(); ++i) {
    float got = result.outputs[0].tensor.data[i];
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got)) << "lane " << i;
    else
      EXPECT_TRUE(got == want[i] && std::signbit(got) == std::signbit(want[i]))
          << "lane " << i << ": " << got;
  }
}

// Tests that the new opcodes are refused on types they are not defined on.
TEST_F(VectorLogicTest, BadDtypes) {
  TestProgram program = binaryProgram(chip, hetx::V_AND, hetx::F32, hetx::F32);
  EXPECT_NE(simulateError(program, chip).find("V_AND is not defined on f32"),
            std::string::npos);
  program = binaryProgram(chip, hetx::V_MOD, hetx::BOOL, hetx::BOOL);
  EXPECT_NE(simulateError(program, chip).find("V_MOD is not defined on bool"),
            std::string::npos);
  program = binaryProgram(chip, hetx::V_LESS, hetx::I8, hetx::BOOL);
  EXPECT_NE(simulateError(program, chip).find("V_LESS is not defined on i8"),
            std::string::npos);
  // Host-only types never reach an instruction.
  program = binaryProgram(chip, hetx::V_ADD, hetx::I64, hetx::I64);
  EXPECT_NE(simulateError(program, chip)
                .find("i64 is a binding type only; the chip holds such "
                      "tensors as I32 lanes"),
            std::string::npos);
  // A comparison's result is bool: writing it as f32 is a type mismatch.
  program = binaryProgram(chip, hetx::V_LESS, hetx::F32, hetx::F32);
  EXPECT_NE(simulateError(program, chip).find("type mismatch"),
            std::string::npos);
}

/// y = c ? a : b: a from slice 0 flowing east, b from slice 4 and the bool
/// condition c from slice 6 flowing west, y written to slice 5.
TestProgram selectProgram(const chip::ChipSpec &chip, hetx::DataType type) {
  uint32_t lanes = chip.lanes();
  uint64_t perSlice = chip.vectorsPerSlice();
  uint64_t addrA = 0, addrB = 4 * perSlice, addrY = 5 * perSlice,
           addrC = 6 * perSlice;
  uint32_t posA = chip.slicePosition(0), posB = chip.slicePosition(4),
           posY = chip.slicePosition(5), posC = chip.slicePosition(6),
           posV = chip.vectorPosition();
  uint32_t readLat = latencyOf(chip, hetx::MEM_READ);
  uint32_t hop = chip.proto().streams().hop_cycles();
  ProgramBuilder builder(chip);
  builder.setNode("Where_0");
  builder.input("c", {lanes}, addrC);
  builder.input("a", {lanes}, addrA);
  builder.input("b", {lanes}, addrB);
  builder.output("y", {lanes}, addrY);
  uint64_t atVector = 2 + readLat + (posV - posA) * hop + (posC - posV) * hop;
  builder.read(atVector - (posV - posA) * hop - readLat, addrA, east(0))
      .set_dtype(type);
  builder.read(atVector - (posB - posV) * hop - readLat, addrB, west(0))
      .set_dtype(type);
  builder.read(atVector - (posC - posV) * hop - readLat, addrC, west(4))
      .set_dtype(hetx::BOOL);
  builder.vector(atVector, hetx::V_SELECT, {west(4), east(0), west(0)},
                 east(4))
      .set_dtype(type);
  builder
      .write(atVector + latencyOf(chip, hetx::V_SELECT) + (posY - posV) * hop,
             addrY, east(4))
      .set_dtype(type);
  TestProgram program{builder.build(), {}};
  auto &bindings = *program.artifact.mutable_inputs();
  bindings[0].set_dtype(hetx::BOOL);
  bindings[1].set_dtype(type);
  bindings[2].set_dtype(type);
  program.artifact.mutable_outputs(0)->set_dtype(type);
  io::Tensor c{{lanes}, {}}, a{{lanes}, {}}, b{{lanes}, {}};
  c.type = ElementType::Bool;
  for (uint32_t i = 0; i < lanes; ++i) {
    c.ints.push_back(i % 3 == 0);
    a.data.push_back(float(i) + 0.5f);
    b.data.push_back(-float(i));
  }
  program.inputs = {{"c", c}, {"a", a}, {"b", b}};
  return program;
}

// Tests that V_SELECT takes three sources and moves the chosen words
// unchanged, infinities and NaN payloads included.
TEST_F(VectorLogicTest, SelectMovesWords) {
  ASSERT_GT(chip.slicePosition(6), chip.vectorPosition());
  TestProgram program = selectProgram(chip, hetx::F32);
  uint32_t payload = 0x7fc01234u;
  float nan;
  std::memcpy(&nan, &payload, 4);
  program.inputs["a"].data[0] = nan;
  program.inputs["a"].data[3] = INFINITY;
  sim::SimResult result = run(program, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  const io::Tensor &y = result.outputs[0].tensor;
  uint32_t bits;
  std::memcpy(&bits, &y.data[0], 4);
  EXPECT_EQ(bits, payload);
  EXPECT_EQ(y.data[3], INFINITY);
  for (size_t i = 1; i < y.data.size(); ++i)
    if (i != 3)
      EXPECT_EQ(y.data[i], i % 3 == 0 ? float(i) + 0.5f : -float(i))
          << "lane " << i;
}

// Tests that a select whose condition is not bool is a type mismatch.
TEST_F(VectorLogicTest, SelectNeedsABoolCondition) {
  TestProgram program = selectProgram(chip, hetx::F32);
  for (hetx::Instruction &instr : *program.artifact.mutable_instructions())
    if (instr.opcode() == hetx::MEM_READ && instr.dtype() == hetx::BOOL)
      instr.set_dtype(hetx::F32);
  program.artifact.mutable_inputs(0)->set_dtype(hetx::F32);
  program.inputs["c"].type = ElementType::F32;
  program.inputs["c"].ints.clear();
  program.inputs["c"].data.assign(chip.lanes(), 1.0f);
  EXPECT_NE(simulateError(program, chip)
                .find("src[0] takes bool lanes, but instruction"),
            std::string::npos);
}

} // namespace
} // namespace hetc::test
