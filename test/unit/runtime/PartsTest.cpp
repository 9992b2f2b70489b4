//===- PartsTest.cpp - Reads and weight loads of several parts -----------===//
//
// docs/isa.md, "Native width": a MEM_READ of `parts` vectors takes them
// from one SRAM row at once, and only an M_LOAD_WEIGHTS of as many takes
// that value, installing part q as row `row + q`. On test-chip (16 lanes),
// an f16 weight of 16 rows lies in 8 rows of SRAM, two weight rows to a
// row, and installs with 8 reads and 8 loads.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"
#include "runtime/io/ElementType.h"

#include "gtest/gtest.h"

#include <cstring>
#include <functional>

namespace hetc::test {
namespace {

/// matmulProgram (y = x W on plane 0, W in slice 1) in f16: W packed two
/// rows to an SRAM row (row g holds W rows 2g and 2g + 1), installed by a
/// read and a load of two parts per SRAM row, x read as f16.
TestProgram pairsProgram(const chip::ChipSpec &chip) {
  TestProgram program = matmulProgram(chip);
  hetx::Artifact &artifact = program.artifact;
  uint32_t lanes = chip.lanes();
  uint64_t addrW = chip.vectorsPerSlice();
  // The constant: [lanes / 2, 2 * lanes] of f16, [g][q * lanes + c] =
  // W[2g + q][c], which is row-major order of W itself.
  hetx::Constant &w = *artifact.mutable_constants(0);
  std::vector<float> values(w.data().size() / sizeof(float));
  std::memcpy(values.data(), w.data().data(), w.data().size());
  std::string half;
  for (float v : values) {
    uint16_t bits = io::halfBits(v);
    half.append(reinterpret_cast<const char *>(&bits), sizeof bits);
  }
  w.set_data(half);
  hetx::TensorBinding &binding = *w.mutable_binding();
  binding.set_dtype(hetx::F16);
  binding.set_packed(true);
  binding.clear_shape();
  binding.add_shape(lanes / 2);
  binding.add_shape(2 * lanes);
  binding.set_vectors_per_row(2);
  hetx::TensorBinding &x = *artifact.mutable_inputs(0);
  x.set_dtype(hetx::F16);
  x.set_packed(true);
  // Keep the reads and loads of even rows, as reads and loads of pairs.
  google::protobuf::RepeatedPtrField<hetx::Instruction> kept;
  for (const hetx::Instruction &in : artifact.instructions()) {
    bool weightRead = in.opcode() == hetx::MEM_READ && in.address() >= addrW &&
                      in.address() < addrW + lanes;
    bool weightLoad = in.opcode() == hetx::M_LOAD_WEIGHTS;
    uint64_t row = weightRead ? in.address() - addrW : in.row();
    if ((weightRead || weightLoad) && row % 2)
      continue;
    hetx::Instruction &copy = *kept.Add() = in;
    if (weightRead)
      copy.set_address(addrW + row / 2);
    if (weightRead || weightLoad)
      copy.set_parts(2);
    if (weightRead || weightLoad || copy.opcode() == hetx::M_MATMUL ||
        (copy.opcode() == hetx::MEM_READ && !weightRead))
      copy.set_dtype(hetx::F16);
  }
  artifact.mutable_instructions()->Swap(&kept);
  program.inputs["x"].type = io::ElementType::F16;
  return program;
}

TEST(PartsTest, ALoadOfTwoPartsInstallsTwoRows) {
  chip::ChipSpec chip = loadChip("test-chip");
  sim::SimResult expected = simulateOk(matmulProgram(chip), chip);
  TestProgram pairs = pairsProgram(chip);
  ASSERT_EQ(pairs.artifact.instructions_size(),
            matmulProgram(chip).artifact.instructions_size() -
                int(chip.lanes()));
  sim::SimResult result = simulateOk(pairs, chip);
  ASSERT_EQ(result.outputs.size(), 1u);
  // Small integers: exact in f16 and in the sums.
  EXPECT_EQ(result.outputs[0].tensor.data, expected.outputs[0].tensor.data);
}

/// The error of pairsProgram with its first `opcode` instruction edited.
std::string errorWith(const chip::ChipSpec &chip, hetx::Opcode opcode,
                      const std::function<void(hetx::Instruction &)> &edit) {
  TestProgram program = pairsProgram(chip);
  edit(*program.artifact.mutable_instructions(
      firstWith(program.artifact, opcode)));
  return simulateError(program, chip);
}

TEST(PartsTest, OnlyALoadOfAsManyPartsTakesThem) {
  chip::ChipSpec chip = loadChip("test-chip");
  std::string error =
      errorWith(chip, hetx::M_LOAD_WEIGHTS,
                [](hetx::Instruction &load) { load.set_parts(1); });
  EXPECT_NE(error.find("parts mismatch"), std::string::npos) << error;
  EXPECT_NE(error.find("it takes 1 vector of a row at once, but instruction"),
            std::string::npos)
      << error;
}

TEST(PartsTest, PartsStayInTheirRowAndPlane) {
  chip::ChipSpec chip = loadChip("test-chip");
  std::string pastRow = errorWith(
      chip, hetx::MEM_READ, [](hetx::Instruction &read) { read.set_part(1); });
  EXPECT_NE(pastRow.find("bad parts"), std::string::npos) << pastRow;
  EXPECT_NE(pastRow.find("parts 1 to 2 are not parts of one row, which "
                         "holds 2 vectors of f16"),
            std::string::npos)
      << pastRow;
  std::string pastPlane =
      errorWith(chip, hetx::M_LOAD_WEIGHTS, [&](hetx::Instruction &load) {
        load.set_row(chip.lanes() - 1);
      });
  EXPECT_NE(pastPlane.find("its last part would install weight row 16"),
            std::string::npos)
      << pastPlane;
  std::string notTaken =
      errorWith(chip, hetx::M_MATMUL,
                [](hetx::Instruction &multiply) { multiply.set_parts(2); });
  EXPECT_NE(notTaken.find("only MEM_READ, V_CAST and M_LOAD_WEIGHTS take "
                          "several parts"),
            std::string::npos)
      << notTaken;
}

} // namespace
} // namespace hetc::test
