//===- CpuBackendTest.cpp - The kernel plan on the CPU backend ----------===//
//
// A small plan, y = relu(x * w), z = y * y, t = z transposed by a gather,
// rows = table[ids], runs with the values worked out by hand; then each
// kind of damage to the plan is refused at load with an error that names
// what is wrong, and a row index outside its table stops the run.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/CpuBackend.h"
#include "TestPrograms.h"

#include <gtest/gtest.h>

using namespace hetc;
using namespace hetc::test;

namespace {

hetx::PlanBuffer *addBuffer(hetx::KernelPlan &plan, hetx::DataType dtype,
                            std::vector<int64_t> shape) {
  hetx::PlanBuffer *buffer = plan.add_buffers();
  buffer->set_dtype(dtype);
  for (int64_t d : shape)
    buffer->add_shape(d);
  return buffer;
}

hetx::PlanKernel *addKernel(hetx::KernelPlan &plan, hetx::PlanKernelKind kind,
                            std::vector<uint32_t> operands, uint32_t result,
                            hetx::Opcode opcode = hetx::OPCODE_UNSPECIFIED) {
  hetx::PlanKernel *kernel = plan.add_kernels();
  kernel->set_kind(kind);
  kernel->set_node("node" + std::to_string(plan.kernels_size() - 1));
  for (uint32_t operand : operands)
    kernel->add_operands(operand);
  kernel->set_result(result);
  kernel->set_opcode(opcode);
  return kernel;
}

/// The artifact: bindings and constants (no instructions: the CPU runs the
/// plan alone) and the plan.
hetx::Artifact planned(const chip::ChipSpec &chip) {
  ProgramBuilder b(chip);
  b.input("x", {2, 3}, 0);
  b.input("ids", {3}, 16);
  b.constant("w", {3, 2}, 64, {1, -1, 2, 0, -1, 1});
  b.constant("table", {4, 2}, 128, {0, 1, 10, 11, 20, 21, 30, 31});
  b.output("y", {2, 2}, 32);
  b.output("t", {2, 2}, 40);
  b.output("rows", {3, 2}, 48);
  hetx::Artifact artifact = b.build();
  artifact.mutable_inputs(1)->set_dtype(hetx::I32);
  hetx::KernelPlan &plan = *artifact.mutable_kernel_plan();
  addBuffer(plan, hetx::F32, {2, 3})->set_input("x");            // 0
  addBuffer(plan, hetx::F32, {3, 2})->set_constant_address(64);  // 1
  addBuffer(plan, hetx::F32, {2, 2})->set_scratch(true);         // 2
  addBuffer(plan, hetx::F32, {2, 2})->set_scratch(true);         // 3
  addBuffer(plan, hetx::F32, {2, 2})->set_scratch(true);         // 4
  addBuffer(plan, hetx::I32, {3})->set_input("ids");             // 5
  addBuffer(plan, hetx::F32, {4, 2})->set_constant_address(128); // 6
  addBuffer(plan, hetx::F32, {3, 2})->set_scratch(true);         // 7
  addKernel(plan, hetx::PLAN_MATMUL, {0, 1}, 2, hetx::V_RELU);
  addKernel(plan, hetx::PLAN_BINARY, {2, 2}, 3, hetx::V_MUL);
  hetx::PlanKernel *transpose = addKernel(plan, hetx::PLAN_GATHER, {3}, 4);
  for (int64_t v : {0, 2, 2, 1, 2, 2})
    transpose->add_index_runs(v);
  addKernel(plan, hetx::PLAN_GATHER_ROWS, {6, 5}, 7);
  for (auto [name, buffer] :
       {std::pair<const char *, uint32_t>{"y", 2}, {"t", 4}, {"rows", 7}}) {
    hetx::PlanBinding *binding = plan.add_outputs();
    binding->set_name(name);
    binding->set_buffer(buffer);
  }
  return artifact;
}

class CpuBackend : public ::testing::Test {
protected:
  std::map<std::string, io::Tensor> inputs(std::vector<int32_t> ids) {
    io::Tensor x{{2, 3}, {1, 2, 3, -1, -2, -3}};
    io::Tensor i{{3}, {}, ids, io::ElementType::I32};
    return {{"x", x}, {"ids", i}};
  }
  /// Loads `damaged` and expects the error to contain `text`.
  void expectRefused(const hetx::Artifact &damaged, const std::string &text) {
    cpu::CpuProgram program;
    std::string error;
    EXPECT_FALSE(cpu::load(damaged, chip, program, error));
    EXPECT_NE(error.find(text), std::string::npos) << error;
  }
  chip::ChipSpec chip = loadChip("test-chip");
  hetx::Artifact artifact = planned(chip);
};

// Tests that the plan computes what its kernels say: x * w = [[2, 2],
// [-2, -2]], relu, squared, transposed, and rows picked by index.
TEST_F(CpuBackend, RunsThePlan) {
  cpu::CpuProgram program;
  std::string error;
  ASSERT_TRUE(cpu::load(artifact, chip, program, error)) << error;
  cpu::CpuResult result;
  ASSERT_TRUE(cpu::run(program, inputs({3, 0, 2}), result, error)) << error;
  ASSERT_EQ(result.outputs.size(), 3u);
  EXPECT_EQ(result.outputs[0].name, "y");
  EXPECT_EQ(result.outputs[0].tensor.data, (std::vector<float>{2, 2, 0, 0}));
  EXPECT_EQ(result.outputs[1].tensor.data, (std::vector<float>{4, 0, 4, 0}));
  EXPECT_EQ(result.outputs[2].tensor.data,
            (std::vector<float>{30, 31, 0, 1, 20, 21}));
  EXPECT_EQ(result.stats.kernels, 4u);
  EXPECT_EQ(result.stats.kernelSeconds.size(), 4u);
}

// Tests that a row index outside the table stops the run, naming the
// kernel and its node, as on the chip.
TEST_F(CpuBackend, RowIndexOutsideTheTableStopsTheRun) {
  cpu::CpuProgram program;
  std::string error;
  ASSERT_TRUE(cpu::load(artifact, chip, program, error)) << error;
  cpu::CpuResult result;
  EXPECT_FALSE(cpu::run(program, inputs({3, 4, 0}), result, error));
  EXPECT_NE(error.find("index out of range: kernel #3 (node 'node3'): index 4"),
            std::string::npos)
      << error;
}

TEST_F(CpuBackend, ArtifactWithoutPlanIsRefused) {
  artifact.clear_kernel_plan();
  expectRefused(artifact, "holds no kernel plan");
}

TEST_F(CpuBackend, OperandOutsideThePlanIsRefused) {
  artifact.mutable_kernel_plan()->mutable_kernels(1)->set_operands(0, 99);
  expectRefused(artifact, "kernel #1 (node 'node1'): operand buffer #99 "
                          "does not exist");
}

TEST_F(CpuBackend, BufferLargerThanTheChipIsRefused) {
  hetx::PlanBuffer &buffer =
      *artifact.mutable_kernel_plan()->mutable_buffers(3);
  buffer.set_shape(0, int64_t(1) << 40);
  buffer.set_shape(1, int64_t(1) << 40);
  expectRefused(artifact, "buffer #3: shape [1099511627776, 1099511627776] "
                          "is invalid or larger than the chip's SRAM");
}

TEST_F(CpuBackend, MissingConstantIsRefused) {
  artifact.mutable_kernel_plan()->mutable_buffers(1)->set_constant_address(7);
  expectRefused(artifact, "no constant of the artifact is at SRAM address 7");
}

TEST_F(CpuBackend, GatherRunLeavingItsOperandIsRefused) {
  artifact.mutable_kernel_plan()->mutable_kernels(2)->set_index_runs(1, 4);
  expectRefused(artifact, "index run 0 leaves operand 0");
}

TEST_F(CpuBackend, ReadBeforeWriteIsRefused) {
  artifact.mutable_kernel_plan()->mutable_kernels()->SwapElements(0, 1);
  expectRefused(artifact, "reads buffer #2 before any kernel writes it");
}

TEST_F(CpuBackend, WritingAConstantIsRefused) {
  artifact.mutable_kernel_plan()->mutable_kernels(1)->set_result(1);
  expectRefused(artifact, "writes a constant");
}

TEST_F(CpuBackend, WrongOpcodeIsRefused) {
  artifact.mutable_kernel_plan()->mutable_kernels(1)->set_kind(
      hetx::PLAN_UNARY);
  artifact.mutable_kernel_plan()
      ->mutable_kernels(1)
      ->mutable_operands()
      ->RemoveLast();
  expectRefused(artifact, "is not a one-operand operation");
}

TEST_F(CpuBackend, UnboundOutputIsRefused) {
  artifact.mutable_kernel_plan()->mutable_outputs()->RemoveLast();
  expectRefused(artifact, "output 'rows': has no buffer in the plan");
}

TEST_F(CpuBackend, MismatchedMatmulIsRefused) {
  artifact.mutable_kernel_plan()->mutable_buffers(2)->set_shape(1, 3);
  expectRefused(artifact, "a matrix product of [2, 3] and [3, 2] into [2, 3]");
}

} // namespace
