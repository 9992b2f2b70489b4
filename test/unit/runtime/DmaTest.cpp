//===- DmaTest.cpp - The DMA engines and staged inputs and outputs -----===//

#include "TestPrograms.h"

#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

namespace hetc::test {
namespace {

/// y = x through SRAM: x is staged in host memory at host vector 0, moved
/// by DMA_IN at `inAt` to SRAM address 100, and moved back by DMA_OUT at
/// `outAt` to host vector 10, where output y is read.
TestProgram passThrough(const chip::ChipSpec &chip, uint64_t inAt,
                        uint64_t outAt, uint32_t outEngine = 0) {
  ProgramBuilder builder(chip);
  builder.setNode("Copy_0");
  builder.input("x", {chip.lanes()}, 100);
  builder.output("y", {chip.lanes()}, 100);
  hetx::Artifact artifact = builder.build();
  artifact.mutable_inputs(0)->set_host_address(0);
  artifact.mutable_outputs(0)->set_host_address(10);
  for (auto [cycle, opcode, engine] :
       {std::tuple{inAt, hetx::DMA_IN, 0u},
        std::tuple{outAt, hetx::DMA_OUT, outEngine}}) {
    hetx::Instruction &instr = *artifact.add_instructions();
    instr.set_cycle(cycle);
    instr.set_opcode(opcode);
    instr.set_unit(engine);
    instr.set_address(100);
    instr.set_host_address(opcode == hetx::DMA_IN ? 0 : 10);
    instr.set_node(1);
  }
  resort(artifact, chip);
  TestProgram program{artifact, {}};
  io::Tensor x{{chip.lanes()}, {}};
  for (uint32_t i = 0; i < chip.lanes(); ++i)
    x.data.push_back(float(i) * 0.5f - 2.0f);
  program.inputs["x"] = x;
  return program;
}

class DmaTest : public ::testing::Test {
protected:
  chip::ChipSpec chip = loadChip("test-chip"); // DMA latency 20, 4 cycles/vector
};

// Tests a staged input moved in and out: the output equals the input and
// the program ends when the last DMA_OUT lands.
TEST_F(DmaTest, StagedPassThrough) {
  TestProgram program = passThrough(chip, 0, 20);
  sim::SimResult result;
  std::string error;
  ASSERT_TRUE(
      sim::simulate(program.artifact, chip, program.inputs, result, error))
      << error;
  EXPECT_EQ(result.stats.cycles, 40u);
  EXPECT_EQ(result.stats.cycles, program.artifact.predicted_cycles());
  ASSERT_EQ(result.outputs.size(), 1u);
  EXPECT_EQ(result.outputs[0].tensor.data, program.inputs["x"].data);
  ASSERT_EQ(result.stats.dma.size(), 2u);
  EXPECT_EQ(result.stats.dma[0].instructions, 2u);
  EXPECT_EQ(result.stats.dma[0].cycles, 8u);
  EXPECT_EQ(simulateError(program, chip), "");
}

// Tests that reading SRAM before DMA_IN stored it is a hazard.
TEST_F(DmaTest, OutBeforeInLands) {
  EXPECT_EQ(simulateError(passThrough(chip, 0, 19), chip),
            "hazard: read of in-flight write at cycle 19: instruction #1 "
            "DMA_OUT on DMA engine 0 (node 'Copy_0'): address 100 is being "
            "written by instruction #0 DMA_IN, which stores at cycle 20");
}

// Tests that an engine moves one vector at a time.
TEST_F(DmaTest, EngineBusy) {
  TestProgram program = passThrough(chip, 0, 20);
  hetx::Instruction &second = *program.artifact.add_instructions();
  second = program.artifact.instructions(0);
  second.set_cycle(3);
  second.set_address(200);
  resort(program.artifact, chip);
  EXPECT_EQ(simulateError(program, chip),
            "hazard: DMA engine busy at cycle 3: instruction #1 DMA_IN on DMA "
            "engine 0 (node 'Copy_0'): DMA engine 0 is moving the vector of "
            "instruction #0 DMA_IN until cycle 4 (one vector takes 4 cycles "
            "at 16 bytes per cycle, dma.bytes_per_cycle)");
  // The other engine is free.
  program.artifact.mutable_instructions(1)->set_unit(1);
  EXPECT_EQ(simulateError(program, chip), "");
}

// Tests the checks of DMA fields and staged bindings.
TEST_F(DmaTest, BadDmaInput) {
  TestProgram program = passThrough(chip, 0, 20, /*outEngine=*/2);
  EXPECT_NE(simulateError(program, chip)
                .find("bad unit at cycle 20: instruction #1 DMA_OUT on DMA "
                      "engine 2 (node 'Copy_0'): DMA engine 2 does not exist "
                      "(the chip has 2 engines)"),
            std::string::npos);
  program = passThrough(chip, 0, 20);
  program.artifact.mutable_instructions(0)->set_host_address(5);
  EXPECT_NE(simulateError(program, chip)
                .find("never-written read at cycle 0: instruction #0 DMA_IN "
                      "on DMA engine 0 (node 'Copy_0'): host address 5 holds "
                      "no staged input and was never written"),
            std::string::npos);
  program = passThrough(chip, 0, 20);
  program.artifact.mutable_instructions(0)->set_host_address(uint64_t(1) << 33);
  EXPECT_NE(simulateError(program, chip).find("is beyond the host memory"),
            std::string::npos);
  program = passThrough(chip, 0, 20);
  *program.artifact.add_inputs() = program.artifact.inputs(0);
  program.artifact.mutable_inputs(1)->set_name("x2");
  program.artifact.mutable_inputs(1)->set_address(300);
  program.inputs["x2"] = program.inputs["x"];
  EXPECT_EQ(simulateError(program, chip),
            "input 'x' (addresses 0 to 0) and input 'x2' (from address 0) "
            "overlap in host memory");
}

// Tests that an output the program never moves to host memory is reported.
TEST_F(DmaTest, OutputNeverStaged) {
  TestProgram program = passThrough(chip, 0, 20);
  program.artifact.mutable_instructions()->RemoveLast();
  resort(program.artifact, chip);
  EXPECT_EQ(simulateError(program, chip),
            "output 'y': the program never writes address 10 (row 0, "
            "elements 0 onwards)");
}

} // namespace
} // namespace hetc::test
