//===- NativeWidthTest.cpp - Narrow vectors share SRAM rows --------------===//
//
// docs/isa.md, "Native width": a row holds one vector of a 32-bit type,
// two of F16/BF16 and four of an 8-bit type; `part` says which. On
// test-chip (16 lanes, 1024 rows a slice), a packed f16 input of two
// vectors takes one row, and reading bytes at a width they were not
// written at is a hazard.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"
#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

using namespace hetc;
using namespace hetc::test;

namespace {

constexpr uint64_t kX = 0;    // slice 0
constexpr uint64_t kY = 5120; // slice 5

class NativeWidthTest : public ::testing::Test {
protected:
  chip::ChipSpec chip = loadChip("test-chip");
  uint32_t lanes = chip.lanes();
  uint32_t read = latencyOf(chip, hetx::MEM_READ);

  /// When a value read from slice `from` at `cycle` passes slice `to`.
  uint64_t at(uint64_t cycle, uint32_t from, uint32_t to) const {
    uint32_t a = chip.slicePosition(from), b = chip.slicePosition(to);
    return cycle + read + uint64_t(b - a) * chip.proto().streams().hop_cycles();
  }

  void packed(hetx::TensorBinding &binding) {
    binding.set_dtype(hetx::F16);
    binding.set_packed(true);
  }

  /// y (f16, 2 x lanes, packed in one row of slice 5) takes x's two rows
  /// (f16, packed in one row of slice 0) swapped: row 0 from part 1 (read
  /// at cycle 2), row 1 from part 0 (read at `second`).
  TestProgram swapProgram(uint64_t second = 3) {
    ProgramBuilder builder(chip);
    builder.setNode("Swap_0");
    builder.input("x", {2, lanes}, kX);
    builder.output("y", {2, lanes}, kY);
    builder.read(2, kX, east(0)).set_dtype(hetx::F16);
    builder.read(second, kX, east(4)).set_dtype(hetx::F16);
    hetx::Artifact artifact = builder.build();
    artifact.mutable_instructions(0)->set_part(1);
    packed(*artifact.mutable_inputs(0));
    packed(*artifact.mutable_outputs(0));
    ProgramBuilder writes(chip, artifact);
    writes.write(at(2, 0, 5), kY, east(0)).set_dtype(hetx::F16);
    writes.write(at(second, 0, 5), kY, east(4)).set_dtype(hetx::F16);
    artifact = writes.build();
    for (hetx::Instruction &instr : *artifact.mutable_instructions())
      if (instr.opcode() == hetx::MEM_WRITE && instr.src(0).id() == 4)
        instr.set_part(1);
    TestProgram program{artifact, {}};
    io::Tensor x{{2, lanes}, {}};
    x.type = io::ElementType::F16;
    for (uint32_t i = 0; i < 2 * lanes; ++i)
      x.data.push_back(0.5f * float(i) - 3.0f);
    program.inputs["x"] = x;
    return program;
  }
};

// Tests that two f16 vectors share a row: each part reads and writes its
// own vector, and the data take half the bytes fp32 would.
TEST_F(NativeWidthTest, PackedF16VectorsShareARow) {
  TestProgram program = swapProgram();
  sim::SimResult result = simulateOk(program, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  const std::vector<float> &x = program.inputs["x"].data;
  const std::vector<float> &y = result.outputs[0].tensor.data;
  ASSERT_EQ(y.size(), 2u * lanes);
  for (uint32_t i = 0; i < lanes; ++i) {
    EXPECT_EQ(y[i], x[lanes + i]) << "lane " << i;
    EXPECT_EQ(y[lanes + i], x[i]) << "lane " << i;
  }
  // x and y: two rows of lanes * 4 bytes; fp32 would take four.
  EXPECT_EQ(result.stats.sramHighWater, 2u * lanes * 4);
}

// Tests that the two reads of one row's parts in one cycle take one bank
// port each: on a chip with one access per bank and cycle they conflict.
TEST_F(NativeWidthTest, PartsOfARowShareItsBank) {
  TestProgram program = swapProgram(2);
  std::string error = simulateError(program, chip);
  EXPECT_NE(error.find("bank 0 of MEM slice 0 already serves 1 access at this "
                       "cycle"),
            std::string::npos)
      << error;
}

// Tests that an f16 write into part 1 of an f32 input's row leaves no f32
// vector there: reading it as f32 names the write.
TEST_F(NativeWidthTest, OverwriteInPartIsAWidthMismatch) {
  ProgramBuilder builder(chip);
  builder.setNode("Clobber_0");
  builder.input("a", {lanes}, kY);
  builder.input("x", {2, lanes}, kX);
  builder.output("y", {lanes}, kY);
  builder.read(2, kX, east(0)).set_dtype(hetx::F16);
  builder.write(at(2, 0, 5), kY, east(0)).set_dtype(hetx::F16);
  builder.read(at(2, 0, 5) + 4, kY, east(4));
  hetx::Artifact artifact = builder.build();
  packed(*artifact.mutable_inputs(1));
  artifact.mutable_instructions(1)->set_part(1);
  TestProgram program{artifact, {}};
  io::Tensor a{{lanes}, std::vector<float>(lanes, 1.0f)};
  io::Tensor x{{2, lanes}, std::vector<float>(2 * lanes, 2.0f)};
  x.type = io::ElementType::F16;
  program.inputs["a"] = a;
  program.inputs["x"] = x;
  std::string error = simulateError(program, chip);
  EXPECT_NE(error.find("hazard: width mismatch"), std::string::npos) << error;
  EXPECT_NE(error.find("reads a vector of 4 bytes a lane at address 5120, but "
                       "instruction #1 MEM_WRITE"),
            std::string::npos)
      << error;
}

// Tests the loader's checks of `part`: within the row's vectors of the
// type, and only on MEM and DMA instructions.
TEST_F(NativeWidthTest, PartIsChecked) {
  TestProgram program = addProgram(chip);
  program.artifact.mutable_instructions(0)->set_part(1);
  EXPECT_NE(simulateError(program, chip)
                .find("bad part at cycle 2: instruction #0 MEM_READ on MEM "
                      "slice 0 (node 'Add_0'): part 1 is not a part of a "
                      "row, which holds 1 vector of f32"),
            std::string::npos);
  program = swapProgram();
  program.artifact.mutable_instructions(0)->set_part(2);
  EXPECT_NE(simulateError(program, chip)
                .find("part 2 is not a part of a row, which holds 2 vectors "
                      "of f16"),
            std::string::npos);
  program = addProgram(chip);
  program.artifact.mutable_instructions(2)->set_part(1);
  EXPECT_NE(simulateError(program, chip)
                .find("part is set, but only MEM and DMA instructions take "
                      "it"),
            std::string::npos);
}

} // namespace
