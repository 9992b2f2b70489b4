//===- C2cTest.cpp - The chip-to-chip links, looped back ---------------===//
//
// On test-chip, link 0 attaches to switch unit 0 at position 1, slice 0 is
// at position 2 and slice 1 at 3; a link moves a 64-byte vector in 4 cycles
// (c2c.bytes_per_cycle 16), a vector arrives 10 cycles after it is sent, the
// receive buffer holds 4 vectors, and a receive emits after 2 cycles
// (latency.switch_op).
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

namespace hetc::test {
namespace {

hetx::Instruction &linkOp(hetx::Artifact &artifact, uint64_t cycle,
                          hetx::Opcode opcode, uint32_t link) {
  hetx::Instruction &instr = *artifact.add_instructions();
  instr.set_cycle(cycle);
  instr.set_opcode(opcode);
  instr.set_unit(link);
  instr.set_node(1);
  return instr;
}

/// y = x sent over link 0 and received back: the read of x at 0 reaches the
/// switch at 2 (west), the send at 2 arrives at 12, the receive at `recvAt`
/// emits at recvAt + 2 and reaches slice 1 two hops east, where the write
/// stores it.
TestProgram loopback(const chip::ChipSpec &chip, uint64_t recvAt = 12) {
  uint64_t perSlice = chip.vectorsPerSlice();
  ProgramBuilder builder(chip);
  builder.setNode("Send_0");
  builder.input("x", {chip.lanes()}, 0);
  builder.output("y", {chip.lanes()}, perSlice);
  builder.read(0, 0, west(0));
  hetx::Artifact artifact = builder.build();
  hetx::Instruction &send = linkOp(artifact, 2, hetx::C2C_SEND, 0);
  send.add_src()->set_id(0);
  send.mutable_src(0)->set_dir(hetx::WEST);
  hetx::Instruction &recv = linkOp(artifact, recvAt, hetx::C2C_RECV, 0);
  recv.mutable_dst()->set_id(4);
  recv.mutable_dst()->set_dir(hetx::EAST);
  hetx::Instruction &write = *artifact.add_instructions();
  write.set_cycle(recvAt + 4);
  write.set_opcode(hetx::MEM_WRITE);
  write.set_unit(1);
  write.set_address(perSlice);
  write.add_src()->set_id(4);
  write.mutable_src(0)->set_dir(hetx::EAST);
  write.set_node(1);
  resort(artifact, chip);
  TestProgram program{artifact, {}};
  io::Tensor x{{chip.lanes()}, {}};
  for (uint32_t i = 0; i < chip.lanes(); ++i)
    x.data.push_back(float(i) - 7.5f);
  program.inputs["x"] = x;
  return program;
}

class C2cTest : public ::testing::Test {
protected:
  chip::ChipSpec chip = loadChip("test-chip");
};

// Tests a vector sent and received back over a looped-back link.
TEST_F(C2cTest, LoopbackCopy) {
  TestProgram program = loopback(chip);
  sim::SimResult result;
  std::string error;
  ASSERT_TRUE(
      sim::simulate(program.artifact, chip, program.inputs, result, error))
      << error;
  EXPECT_EQ(result.stats.cycles, 17u);
  ASSERT_EQ(result.outputs.size(), 1u);
  EXPECT_EQ(result.outputs[0].tensor.data, program.inputs["x"].data);
  ASSERT_EQ(result.stats.links.size(), 2u);
  EXPECT_EQ(result.stats.links[0].instructions, 1u);
  EXPECT_EQ(result.stats.links[0].cycles, 4u);
  // A later receive is fine: the vector waits in the buffer.
  EXPECT_EQ(simulateError(loopback(chip, 20), chip), "");
}

// Tests a receive before the vector arrived.
TEST_F(C2cTest, ReceiveTooEarly) {
  EXPECT_EQ(simulateError(loopback(chip, 11), chip),
            "hazard: too early at cycle 11: instruction #2 C2C_RECV on C2C "
            "link 0 (node 'Send_0'): C2C link 0 has no vector arrived by "
            "cycle 11: the next, from instruction #1 C2C_SEND, arrives at "
            "cycle 12");
}

// Tests that a vector nobody receives is reported.
TEST_F(C2cTest, NeverReceived) {
  TestProgram program = loopback(chip);
  program.artifact.mutable_instructions()->DeleteSubrange(2, 2);
  program.artifact.clear_outputs();
  resort(program.artifact, chip);
  EXPECT_EQ(simulateError(program, chip),
            "hazard: vector never received at cycle 12: instruction #1 "
            "C2C_SEND on C2C link 0 (node 'Send_0'): C2C link 0 still holds "
            "1 vector(s) at the end of the program, the first sent by this "
            "instruction; every vector sent must be received");
}

// Tests that a link sends one vector at a time, and that more arrived
// vectors than the receive buffer holds are an overflow.
TEST_F(C2cTest, LinkBusyAndOverflow) {
  TestProgram program = loopback(chip, 40);
  hetx::Artifact &artifact = program.artifact;
  // Four more sends, 4 cycles apart (one vector time), each of a fresh
  // read of x that reaches the switch as the send issues.
  ProgramBuilder more(chip, artifact);
  for (uint64_t k = 1; k <= 4; ++k)
    more.read(4 * k, 0, west(0));
  artifact = more.build();
  for (uint64_t k = 1; k <= 4; ++k) {
    hetx::Instruction &send = linkOp(artifact, 4 * k + 2, hetx::C2C_SEND, 0);
    send.add_src()->set_id(0);
    send.mutable_src(0)->set_dir(hetx::WEST);
  }
  resort(artifact, chip);
  EXPECT_NE(simulateError(program, chip)
                .find("hazard: receive buffer overflow at cycle 40: "
                      "instruction #10 C2C_RECV on C2C link 0 (node "
                      "'Send_0'): C2C link 0 holds 5 arrived vectors at this "
                      "cycle, but its receive buffer takes 4 "
                      "(c2c.receive_buffer)"),
            std::string::npos)
      << simulateError(program, chip);
  // Two sends 3 cycles apart: the link is still busy.
  for (hetx::Instruction &instr : *artifact.mutable_instructions())
    if (instr.opcode() == hetx::C2C_SEND && instr.cycle() == 6) {
      instr.set_cycle(5);
    }
  for (hetx::Instruction &instr : *artifact.mutable_instructions())
    if (instr.opcode() == hetx::MEM_READ && instr.cycle() == 4)
      instr.set_cycle(3);
  resort(artifact, chip);
  EXPECT_NE(simulateError(program, chip)
                .find("hazard: link busy at cycle 5: instruction #3 C2C_SEND "
                      "on C2C link 0 (node 'Send_0'): C2C link 0 is sending "
                      "the vector of instruction #1 C2C_SEND until cycle 6 "
                      "(one vector takes 4 cycles at 16 bytes per cycle, "
                      "c2c.bytes_per_cycle)"),
            std::string::npos)
      << simulateError(program, chip);
}

// Tests the link index check.
TEST_F(C2cTest, BadLink) {
  TestProgram program = loopback(chip);
  program.artifact.mutable_instructions(2)->set_unit(5);
  EXPECT_NE(simulateError(program, chip)
                .find("bad unit at cycle 12: instruction #2 C2C_RECV on C2C "
                      "link 5 (node 'Send_0'): C2C link 5 does not exist (the "
                      "chip has 2 links, c2c.links)"),
            std::string::npos)
      << simulateError(program, chip);
}

} // namespace
} // namespace hetc::test
