//===- PlanBackendTest.cpp - The kernel plan on the CPU and CUDA backends ===//
//
// A small plan, y = relu(x * w), z = y * y, t = z transposed by a gather,
// rows = table[ids], runs with the values worked out by hand; then each
// kind of damage to the plan is refused at load with an error that names
// what is wrong, and a row index outside its table stops the run. Each
// test runs on both backends; the CUDA backend's runs are skipped, saying
// why, where there is no GPU, and its refusals where hetc was built
// without it.
//
//===----------------------------------------------------------------------===//

#include "runtime/run/PlanBackend.h"
#include "TestPrograms.h"
#include "runtime/cuda/CudaBackend.h"
#include "runtime/plan/Placement.h"

#include <gtest/gtest.h>

using namespace hetc;
using namespace hetc::test;

namespace {

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
  addPlanBuffer(plan, hetx::F32, {2, 3})->set_input("x");            // 0
  addPlanBuffer(plan, hetx::F32, {3, 2})->set_constant_address(64);  // 1
  addPlanBuffer(plan, hetx::F32, {2, 2})->set_scratch(true);         // 2
  addPlanBuffer(plan, hetx::F32, {2, 2})->set_scratch(true);         // 3
  addPlanBuffer(plan, hetx::F32, {2, 2})->set_scratch(true);         // 4
  addPlanBuffer(plan, hetx::I32, {3})->set_input("ids");             // 5
  addPlanBuffer(plan, hetx::F32, {4, 2})->set_constant_address(128); // 6
  addPlanBuffer(plan, hetx::F32, {3, 2})->set_scratch(true);         // 7
  addPlanKernel(plan, hetx::PLAN_MATMUL, {0, 1}, 2, hetx::V_RELU);
  addPlanKernel(plan, hetx::PLAN_BINARY, {2, 2}, 3, hetx::V_MUL);
  hetx::PlanKernel *transpose = addPlanKernel(plan, hetx::PLAN_GATHER, {3}, 4);
  for (int64_t v : {0, 2, 2, 1, 2, 2})
    transpose->add_index_runs(v);
  addPlanKernel(plan, hetx::PLAN_GATHER_ROWS, {6, 5}, 7);
  for (auto [name, buffer] :
       {std::pair<const char *, uint32_t>{"y", 2}, {"t", 4}, {"rows", 7}}) {
    hetx::PlanBinding *binding = plan.add_outputs();
    binding->set_name(name);
    binding->set_buffer(buffer);
  }
  return artifact;
}

class PlanBackends : public ::testing::TestWithParam<std::string> {
protected:
  /// Skips the test where the backend cannot run here (the CUDA backend
  /// without a GPU).
  bool canRun() {
    std::string why;
    return GetParam() != "cuda" || cuda::available(why);
  }
  /// Whether the backend checks plans here (the CUDA backend does where it
  /// was built, GPU or not).
  bool checksPlans() {
    std::string architectures;
    return GetParam() != "cuda" || cuda::built(architectures);
  }
  std::unique_ptr<run::PlanBackend> load(const hetx::Artifact &artifact,
                                         std::string &error) {
    return run::PlanBackend::load(GetParam(), artifact, chip, error);
  }
  std::map<std::string, io::Tensor> inputs(std::vector<int32_t> ids) {
    io::Tensor x{{2, 3}, {1, 2, 3, -1, -2, -3}};
    io::Tensor i{{3}, {}, ids, io::ElementType::I32};
    return {{"x", x}, {"ids", i}};
  }
  /// Loads `damaged` and expects the error to contain `text`.
  void expectRefused(const hetx::Artifact &damaged, const std::string &text) {
    if (!checksPlans())
      GTEST_SKIP() << "hetc was built without the CUDA backend";
    std::string error;
    EXPECT_FALSE(load(damaged, error));
    EXPECT_NE(error.find(text), std::string::npos) << error;
  }
  chip::ChipSpec chip = loadChip("test-chip");
  hetx::Artifact artifact = planned(chip);
};

// Tests that the plan computes what its kernels say: x * w = [[2, 2],
// [-2, -2]], relu, squared, transposed, and rows picked by index.
TEST_P(PlanBackends, RunsThePlan) {
  std::string error;
  if (!canRun()) {
    // It says why, and runs nothing.
    EXPECT_FALSE(load(artifact, error));
    EXPECT_NE(error.find("CUDA"), std::string::npos) << error;
    GTEST_SKIP() << error;
  }
  auto program = load(artifact, error);
  ASSERT_TRUE(program) << error;
  plan::RunResult result;
  ASSERT_TRUE(program->run(inputs({3, 0, 2}), result, error)) << error;
  const std::vector<sim::NamedTensor> &outputs = result.outputs;
  const plan::RunStats &stats = result.stats;
  ASSERT_EQ(outputs.size(), 3u);
  EXPECT_EQ(outputs[0].name, "y");
  EXPECT_EQ(outputs[0].tensor.data, (std::vector<float>{2, 2, 0, 0}));
  EXPECT_EQ(outputs[1].tensor.data, (std::vector<float>{4, 0, 4, 0}));
  EXPECT_EQ(outputs[2].tensor.data, (std::vector<float>{30, 31, 0, 1, 20, 21}));
  EXPECT_EQ(stats.kernels, 4u);
  EXPECT_EQ(stats.kernelSeconds.size(), 4u);
  // A second run of the same program gives the same.
  plan::RunResult again;
  ASSERT_TRUE(program->run(inputs({3, 0, 2}), again, error)) << error;
  EXPECT_EQ(again.outputs[2].tensor.data, outputs[2].tensor.data);
}

// Tests that a transposed weight is multiplied as its transpose: w held as
// the 2 x 3 [[1, -1, 2], [0, -1, 1]] gives x * w^T = [[5, 1], [-5, -1]].
TEST_P(PlanBackends, TransposedWeightIsMultipliedTransposed) {
  if (!canRun())
    GTEST_SKIP() << "no CUDA device here";
  hetx::KernelPlan &plan = *artifact.mutable_kernel_plan();
  plan.mutable_buffers(1)->set_shape(0, 2);
  plan.mutable_buffers(1)->set_shape(1, 3);
  plan.mutable_kernels(0)->set_transposed_weight(true);
  std::string error;
  auto program = load(artifact, error);
  ASSERT_TRUE(program) << error;
  plan::RunResult result;
  ASSERT_TRUE(program->run(inputs({3, 0, 2}), result, error)) << error;
  EXPECT_EQ(result.outputs[0].tensor.data, (std::vector<float>{5, 1, 0, 0}));
  EXPECT_EQ(result.outputs[1].tensor.data, (std::vector<float>{25, 0, 1, 0}));
}

// Tests that a row index outside the table stops the run, naming the
// kernel and its node, as on the chip.
TEST_P(PlanBackends, RowIndexOutsideTheTableStopsTheRun) {
  if (!canRun())
    GTEST_SKIP() << "no CUDA device here";
  std::string error;
  auto program = load(artifact, error);
  ASSERT_TRUE(program) << error;
  plan::RunResult result;
  EXPECT_FALSE(program->run(inputs({3, 4, 0}), result, error));
  EXPECT_NE(error.find("index out of range: kernel #3 (node 'node3'): index 4"),
            std::string::npos)
      << error;
}

TEST_P(PlanBackends, ArtifactWithoutPlanIsRefused) {
  artifact.clear_kernel_plan();
  expectRefused(artifact, "holds no kernel plan");
}

TEST_P(PlanBackends, OperandOutsideThePlanIsRefused) {
  artifact.mutable_kernel_plan()->mutable_kernels(1)->set_operands(0, 99);
  expectRefused(artifact, "kernel #1 (node 'node1'): operand buffer #99 "
                          "does not exist");
}

TEST_P(PlanBackends, BufferLargerThanTheChipIsRefused) {
  hetx::PlanBuffer &buffer =
      *artifact.mutable_kernel_plan()->mutable_buffers(3);
  buffer.set_shape(0, int64_t(1) << 40);
  buffer.set_shape(1, int64_t(1) << 40);
  expectRefused(artifact, "buffer #3: shape [1099511627776, 1099511627776] "
                          "is invalid or larger than the chip's SRAM");
}

TEST_P(PlanBackends, MissingConstantIsRefused) {
  artifact.mutable_kernel_plan()->mutable_buffers(1)->set_constant_address(7);
  expectRefused(artifact, "no constant of the artifact is at SRAM address 7");
}

TEST_P(PlanBackends, GatherRunLeavingItsOperandIsRefused) {
  artifact.mutable_kernel_plan()->mutable_kernels(2)->set_index_runs(1, 4);
  expectRefused(artifact, "index run 0 leaves operand 0");
}

TEST_P(PlanBackends, ReadBeforeWriteIsRefused) {
  artifact.mutable_kernel_plan()->mutable_kernels()->SwapElements(0, 1);
  expectRefused(artifact, "reads buffer #2 before any kernel writes it");
}

TEST_P(PlanBackends, BiasNoKernelWritesIsRefused) {
  hetx::KernelPlan &plan = *artifact.mutable_kernel_plan();
  addPlanBuffer(plan, hetx::F32, {2})->set_scratch(true); // 8
  plan.mutable_kernels(0)->set_bias(8);
  expectRefused(artifact, "kernel #0 (node 'node0'): reads buffer #8 before "
                          "any kernel writes it");
}

TEST_P(PlanBackends, WritingAConstantIsRefused) {
  artifact.mutable_kernel_plan()->mutable_kernels(1)->set_result(1);
  expectRefused(artifact, "writes a constant");
}

TEST_P(PlanBackends, WrongOpcodeIsRefused) {
  artifact.mutable_kernel_plan()->mutable_kernels(1)->set_kind(
      hetx::PLAN_UNARY);
  artifact.mutable_kernel_plan()
      ->mutable_kernels(1)
      ->mutable_operands()
      ->RemoveLast();
  expectRefused(artifact, "is not a one-operand operation");
}

// A reduction or a lane broadcast is not an elementwise operation of two
// operands, whatever class of the vector unit it is.
TEST_P(PlanBackends, OneLaneOpcodeOfABinaryIsRefused) {
  for (hetx::Opcode opcode : {hetx::V_BROADCAST, hetx::V_REDUCE_SUM}) {
    hetx::Artifact bad = artifact;
    bad.mutable_kernel_plan()->mutable_kernels(1)->set_opcode(opcode);
    expectRefused(bad, "is not a two-operand operation");
  }
}

TEST_P(PlanBackends, UnboundOutputIsRefused) {
  artifact.mutable_kernel_plan()->mutable_outputs()->RemoveLast();
  expectRefused(artifact, "output 'rows': has no buffer in the plan");
}

TEST_P(PlanBackends, MismatchedMatmulIsRefused) {
  artifact.mutable_kernel_plan()->mutable_buffers(2)->set_shape(1, 3);
  expectRefused(artifact, "a matrix product of [2, 3] and [3, 2] into [2, 3]");
}

TEST_P(PlanBackends, MismatchedTransposedMatmulIsRefused) {
  artifact.mutable_kernel_plan()->mutable_kernels(0)->set_transposed_weight(
      true);
  expectRefused(artifact,
                "a matrix product of [2, 3] and [3, 2] transposed into [2, 2]");
}

/// An artifact whose plan is one depthwise convolution of a 2 x 2 map of
/// two channels (x[., ., 0] = 1, 2, 3, 4; x[., ., 1] ten times that) by a
/// 3 x 3 window padded by one: channel 0's weights are all 1, channel 1's
/// the kernel element's index (3i + j); the bias is 0.5 and -1.
hetx::Artifact depthwisePlanned(const chip::ChipSpec &chip) {
  ProgramBuilder b(chip);
  b.input("x", {2, 2, 2}, 0);
  std::vector<float> w;
  for (int t = 0; t < 9; ++t)
    w.insert(w.end(), {1.0f, float(t)});
  b.constant("w", {3, 3, 2}, 64, w);
  b.constant("b", {2}, 128, {0.5f, -1.0f});
  b.output("y", {2, 2, 2}, 32);
  hetx::Artifact artifact = b.build();
  hetx::KernelPlan &plan = *artifact.mutable_kernel_plan();
  addPlanBuffer(plan, hetx::F32, {2, 2, 2})->set_input("x");           // 0
  addPlanBuffer(plan, hetx::F32, {3, 3, 2})->set_constant_address(64); // 1
  addPlanBuffer(plan, hetx::F32, {2})->set_constant_address(128);      // 2
  addPlanBuffer(plan, hetx::F32, {2, 2, 2})->set_scratch(true);        // 3
  hetx::PlanKernel *conv =
      addPlanKernel(plan, hetx::PLAN_DEPTHWISE_CONV, {0, 1, 2}, 3);
  for (int64_t v : {1, 1})
    conv->add_strides(v);
  for (int64_t v : {1, 1, 1, 1})
    conv->add_pads(v);
  for (int64_t v : {1, 1})
    conv->add_dilations(v);
  hetx::PlanBinding *binding = plan.add_outputs();
  binding->set_name("y");
  binding->set_buffer(3);
  return artifact;
}

// Tests a depthwise convolution worked out by hand: every window holds the
// whole map, so channel 0 is 1 + 2 + 3 + 4 + 0.5 everywhere; at (0, 0)
// channel 1 meets elements 4, 5, 7 and 8: 10 * 4 + 20 * 5 + 30 * 7 +
// 40 * 8 - 1 = 669, and so on.
TEST_P(PlanBackends, DepthwiseConvolution) {
  if (!canRun())
    GTEST_SKIP() << "no CUDA device here";
  std::string error;
  // The program refers to its artifact, which outlives it.
  hetx::Artifact depthwise = depthwisePlanned(chip);
  auto program = load(depthwise, error);
  ASSERT_TRUE(program) << error;
  io::Tensor x{{2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40}};
  plan::RunResult result;
  ASSERT_TRUE(program->run({{"x", x}}, result, error)) << error;
  EXPECT_EQ(result.outputs[0].tensor.data,
            (std::vector<float>{10.5, 669, 10.5, 569, 10.5, 369, 10.5, 269}));
}

TEST_P(PlanBackends, MismatchedDepthwiseWindowIsRefused) {
  hetx::Artifact damaged = depthwisePlanned(chip);
  damaged.mutable_kernel_plan()->mutable_kernels(0)->set_strides(0, 2);
  expectRefused(damaged, "kernel #0 (node 'node0'): the window gives 1 "
                         "output rows, the result has 2");
}

TEST_P(PlanBackends, DepthwiseBiasOfOtherChannelsIsRefused) {
  hetx::Artifact damaged = depthwisePlanned(chip);
  damaged.mutable_kernel_plan()->mutable_kernels(0)->set_operands(2, 1);
  expectRefused(damaged, "a bias of [3, 3, 2] for 2 channels");
}

/// A channels-first depthwise convolution (PLAN_DEPTHWISE_CONV_CF) of an
/// input `x` of `map` (N x C x spatial extents) by `columns` (one of C
/// weights per kernel element) and `bias` (none when empty) with
/// `strides`, `pads` and `dilations`, into an output `y` of `out`.
struct ChannelsFirst {
  std::vector<int64_t> map, kernel, strides, pads, dilations, out;
  std::vector<std::vector<float>> columns;
  std::vector<float> bias;
};

/// A kernel of `kind` over the window of `conv` (a map, a kernel, strides,
/// pads and dilations), its result bound to the output "y".
template <typename Conv>
void addWindowKernel(hetx::KernelPlan &plan, hetx::PlanKernelKind kind,
                     const std::vector<uint32_t> &operands, uint32_t result,
                     const Conv &conv) {
  hetx::PlanKernel *kernel = addPlanKernel(plan, kind, operands, result);
  for (int64_t v : conv.map)
    kernel->add_input_shape(v);
  for (int64_t v : conv.kernel)
    kernel->add_kernel_shape(v);
  for (int64_t v : conv.strides)
    kernel->add_strides(v);
  for (int64_t v : conv.pads)
    kernel->add_pads(v);
  for (int64_t v : conv.dilations)
    kernel->add_dilations(v);
  hetx::PlanBinding *binding = plan.add_outputs();
  binding->set_name("y");
  binding->set_buffer(result);
}

hetx::Artifact channelsFirstPlanned(const chip::ChipSpec &chip,
                                    const ChannelsFirst &conv) {
  ProgramBuilder b(chip);
  b.input("x", conv.map, 0);
  int64_t channels = conv.map[1];
  uint64_t address = 64;
  for (size_t t = 0; t < conv.columns.size(); ++t)
    b.constant("w" + std::to_string(t), {channels}, address + t,
               conv.columns[t]);
  if (!conv.bias.empty())
    b.constant("b", {channels}, 128, conv.bias);
  b.output("y", conv.out, 32);
  hetx::Artifact artifact = b.build();
  hetx::KernelPlan &plan = *artifact.mutable_kernel_plan();
  addPlanBuffer(plan, hetx::F32, conv.map)->set_input("x");
  std::vector<uint32_t> operands{0};
  for (size_t t = 0; t < conv.columns.size(); ++t) {
    operands.push_back(uint32_t(plan.buffers_size()));
    addPlanBuffer(plan, hetx::F32, {channels})
        ->set_constant_address(address + t);
  }
  if (!conv.bias.empty()) {
    operands.push_back(uint32_t(plan.buffers_size()));
    addPlanBuffer(plan, hetx::F32, {channels})->set_constant_address(128);
  }
  uint32_t result = uint32_t(plan.buffers_size());
  addPlanBuffer(plan, hetx::F32, conv.out)->set_scratch(true);
  addWindowKernel(plan, hetx::PLAN_DEPTHWISE_CONV_CF, operands, result, conv);
  return artifact;
}

/// The convolution above channels-first: the map 1 x 2 x 2 x 2 (channel 0
/// = 1, 2, 3, 4; channel 1 ten times that), a column of the two channels'
/// weights per kernel element (1 and t), the bias 0.5 and -1.
ChannelsFirst channelsFirstSame() {
  ChannelsFirst conv{{1, 2, 2, 2}, {3, 3},       {1, 1}, {1, 1, 1, 1},
                     {1, 1},       {1, 2, 2, 2}, {},     {0.5f, -1.0f}};
  for (int t = 0; t < 9; ++t)
    conv.columns.push_back({1.0f, float(t)});
  return conv;
}

// Tests the channels-first form on the same values: the channels' planes
// one after the other.
TEST_P(PlanBackends, ChannelsFirstDepthwiseConvolution) {
  if (!canRun())
    GTEST_SKIP() << "no CUDA device here";
  std::string error;
  hetx::Artifact depthwise = channelsFirstPlanned(chip, channelsFirstSame());
  auto program = load(depthwise, error);
  ASSERT_TRUE(program) << error;
  io::Tensor x{{1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40}};
  plan::RunResult result;
  ASSERT_TRUE(program->run({{"x", x}}, result, error)) << error;
  EXPECT_EQ(result.outputs[0].tensor.data,
            (std::vector<float>{10.5, 10.5, 10.5, 10.5, 669, 569, 369, 269}));
}

// Tests windows the interior form takes (3 x 3, strides 1 and 2) against
// sums worked out element by element: a 1 x 1 x 5 x 7 map of 0..34, the
// kernel element t weighing t + 1, no bias. Stride 1, padded by one: the
// output column 0 reads columns -1 (zero), 0 and 1.
TEST_P(PlanBackends, ChannelsFirstWindowsOfBothStrides) {
  if (!canRun())
    GTEST_SKIP() << "no CUDA device here";
  io::Tensor x{{1, 1, 5, 7}, {}};
  for (int i = 0; i < 35; ++i)
    x.data.push_back(float(i));
  for (int64_t stride : {1, 2}) {
    int64_t rows = (5 + 2 - 3) / stride + 1, cols = (7 + 2 - 3) / stride + 1;
    ChannelsFirst conv{{1, 1, 5, 7}, {3, 3}, {stride, stride},
                       {1, 1, 1, 1}, {1, 1}, {1, 1, rows, cols},
                       {},           {}};
    for (int t = 0; t < 9; ++t)
      conv.columns.push_back({float(t + 1)});
    std::vector<float> want;
    for (int64_t oy = 0; oy < rows; ++oy)
      for (int64_t ox = 0; ox < cols; ++ox) {
        float sum = 0.0f;
        for (int64_t ky = 0; ky < 3; ++ky)
          for (int64_t kx = 0; kx < 3; ++kx) {
            int64_t iy = oy * stride - 1 + ky, ix = ox * stride - 1 + kx;
            if (iy >= 0 && iy < 5 && ix >= 0 && ix < 7)
              sum += x.data[size_t(iy * 7 + ix)] * float(ky * 3 + kx + 1);
          }
        want.push_back(sum);
      }
    hetx::Artifact depthwise = channelsFirstPlanned(chip, conv);
    std::string error;
    auto program = load(depthwise, error);
    ASSERT_TRUE(program) << error;
    plan::RunResult result;
    ASSERT_TRUE(program->run({{"x", x}}, result, error)) << error;
    // Integers summed exactly in any order.
    EXPECT_EQ(result.outputs[0].tensor.data, want) << "stride " << stride;
  }
}

// Tests a strided 1-D window with an end pad, without a bias: x = 1..5,
// weights 1 and 10 two apart, a window past the end reading zero:
// [1 + 20, 3 + 40, 5].
TEST_P(PlanBackends, ChannelsFirstStridedWindow) {
  if (!canRun())
    GTEST_SKIP() << "no CUDA device here";
  ChannelsFirst conv{{1, 1, 5},         {2}, {2}, {0, 1}, {1}, {1, 1, 3},
                     {{1.0f}, {10.0f}}, {}};
  hetx::Artifact depthwise = channelsFirstPlanned(chip, conv);
  std::string error;
  auto program = load(depthwise, error);
  ASSERT_TRUE(program) << error;
  io::Tensor x{{1, 1, 5}, {1, 2, 3, 4, 5}};
  plan::RunResult result;
  ASSERT_TRUE(program->run({{"x", x}}, result, error)) << error;
  EXPECT_EQ(result.outputs[0].tensor.data, (std::vector<float>{21, 43, 5}));
}

TEST_P(PlanBackends, ChannelsFirstColumnsForAnotherKernelAreRefused) {
  hetx::Artifact damaged = channelsFirstPlanned(chip, channelsFirstSame());
  damaged.mutable_kernel_plan()->mutable_kernels(0)->set_kernel_shape(0, 5);
  expectRefused(damaged, "a kernel of [5, 3] (one to three positive "
                         "extents, a column operand for each element)");
}

TEST_P(PlanBackends, ChannelsFirstResultOfOtherSizeIsRefused) {
  hetx::Artifact damaged = channelsFirstPlanned(chip, channelsFirstSame());
  damaged.mutable_kernel_plan()->mutable_kernels(0)->set_strides(0, 2);
  expectRefused(damaged, "a depthwise convolution of [1, 2, 2, 2] needs 8 "
                         "input and 4 result elements, its buffers hold 8 "
                         "and 8");
}

/// A convolution (PLAN_CONV) of an input `x` of `map` (N x C x spatial
/// extents) by `groups` weight buffers of `rows` rows each (C / G x K
/// values, and the bias last where `bias`), with `strides`, `pads` and
/// `dilations`. The weights are constants, or with `weightInputs` run-time
/// inputs "w0", "w1", ...
struct Conv {
  std::vector<int64_t> map, kernel, strides, pads, dilations;
  int64_t groups = 1, rows = 1;
  bool bias = false, weightInputs = false;
  /// Weight element e of group g's rows.
  float weight(int64_t g, int64_t e) const {
    return float((g * 7 + e * 3) % 5) - 2.0f;
  }
  int64_t taps() const {
    int64_t t = 1;
    for (int64_t k : kernel)
      t *= k;
    return t;
  }
  int64_t width() const { return map[1] / groups * taps() + (bias ? 1 : 0); }
  std::vector<float> weights(int64_t g) const {
    std::vector<float> values;
    for (int64_t e = 0; e < rows * width(); ++e)
      values.push_back(weight(g, e));
    return values;
  }
  /// The output's extents, and its elements summed here by the
  /// definition.
  std::vector<int64_t> out() const {
    std::vector<int64_t> extents{map[0], groups * rows};
    size_t rank = kernel.size();
    for (size_t d = 0; d < rank; ++d)
      extents.push_back((map[2 + d] + pads[d] + pads[rank + d] -
                         (kernel[d] - 1) * dilations[d] - 1) /
                            strides[d] +
                        1);
    return extents;
  }
  std::vector<float> sums(const std::vector<float> &x) const {
    std::vector<int64_t> o = out();
    size_t rank = kernel.size();
    int64_t cg = map[1] / groups, inPlane = 1, outPlane = 1;
    for (size_t d = 0; d < rank; ++d) {
      inPlane *= map[2 + d];
      outPlane *= o[2 + d];
    }
    std::vector<float> y;
    for (int64_t n = 0; n < map[0]; ++n)
      for (int64_t m = 0; m < groups * rows; ++m)
        for (int64_t p = 0; p < outPlane; ++p) {
          int64_t g = m / rows, r = m % rows;
          float sum = 0.0f;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t t = 0; t < taps(); ++t) {
              // Position p and kernel element t along each dimension.
              int64_t at = 0, pr = p, tr = t, scaleOut = outPlane,
                      scaleTap = taps();
              bool inside = true;
              for (size_t d = 0; d < rank; ++d) {
                scaleOut /= o[2 + d];
                scaleTap /= kernel[d];
                int64_t od = pr / scaleOut, kd = tr / scaleTap;
                pr %= scaleOut;
                tr %= scaleTap;
                int64_t i = od * strides[d] + kd * dilations[d] - pads[d];
                inside &= i >= 0 && i < map[2 + d];
                at = at * map[2 + d] + i;
              }
              if (inside)
                sum += x[size_t((n * map[1] + g * cg + c) * inPlane + at)] *
                       weight(g, r * width() + c * taps() + t);
            }
          if (bias)
            sum += weight(g, r * width() + width() - 1);
          y.push_back(sum);
        }
    return y;
  }
};

hetx::Artifact convPlanned(const chip::ChipSpec &chip, const Conv &conv) {
  ProgramBuilder b(chip);
  b.input("x", conv.map, 0);
  uint64_t address = 64;
  for (int64_t g = 0; g < conv.groups; ++g) {
    std::string name = "w" + std::to_string(g);
    if (conv.weightInputs)
      b.input(name, {conv.rows, conv.width()}, address + 8 * uint64_t(g));
    else
      b.constant(name, {conv.rows, conv.width()}, address + 8 * uint64_t(g),
                 conv.weights(g));
  }
  b.output("y", conv.out(), 32);
  hetx::Artifact artifact = b.build();
  hetx::KernelPlan &plan = *artifact.mutable_kernel_plan();
  addPlanBuffer(plan, hetx::F32, conv.map)->set_input("x");
  std::vector<uint32_t> operands{0};
  for (int64_t g = 0; g < conv.groups; ++g) {
    operands.push_back(uint32_t(plan.buffers_size()));
    hetx::PlanBuffer *weights =
        addPlanBuffer(plan, hetx::F32, {conv.rows, conv.width()});
    if (conv.weightInputs)
      weights->set_input("w" + std::to_string(g));
    else
      weights->set_constant_address(address + 8 * uint64_t(g));
  }
  uint32_t result = uint32_t(plan.buffers_size());
  addPlanBuffer(plan, hetx::F32, conv.out())->set_scratch(true);
  addWindowKernel(plan, hetx::PLAN_CONV, operands, result, conv);
  return artifact;
}

/// Runs `conv` on a map of small integers (the sums are exact in any
/// order) and expects the sums of the definition.
void expectConvSums(run::PlanBackend &program, const Conv &conv) {
  io::Tensor x{conv.map, {}};
  int64_t elements = 1;
  for (int64_t extent : conv.map)
    elements *= extent;
  for (int64_t i = 0; i < elements; ++i)
    x.data.push_back(float(i % 11) - 3.0f);
  std::map<std::string, io::Tensor> inputs{{"x", x}};
  if (conv.weightInputs)
    for (int64_t g = 0; g < conv.groups; ++g)
      inputs["w" + std::to_string(g)] =
          io::Tensor{{conv.rows, conv.width()}, conv.weights(g)};
  std::string error;
  plan::RunResult result;
  ASSERT_TRUE(program.run(inputs, result, error)) << error;
  EXPECT_EQ(result.outputs[0].tensor.data, conv.sums(x.data));
}

// Tests convolutions against sums of the definition: 2-D of two groups,
// strided, dilated and unevenly padded, with the bias in the rows and
// without; 1-D; 3-D; two images.
TEST_P(PlanBackends, Convolution) {
  if (!canRun())
    GTEST_SKIP() << "no CUDA device here";
  std::vector<Conv> convs = {
      {{1, 4, 7, 9}, {3, 3}, {1, 2}, {1, 0, 2, 1}, {1, 2}, 2, 3, true},
      {{1, 4, 7, 9}, {3, 3}, {1, 2}, {1, 0, 2, 1}, {1, 2}, 2, 3, false},
      {{1, 3, 12}, {4}, {3}, {2, 1}, {1}, 1, 5, true},
      {{1, 2, 3, 4, 5},
       {2, 2, 3},
       {1, 1, 2},
       {0, 1, 1, 1, 0, 1},
       {1, 1, 1},
       1,
       4,
       true},
      {{2, 6, 5, 5}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 3, 2, true}};
  for (const Conv &conv : convs) {
    std::string error;
    hetx::Artifact planned = convPlanned(chip, conv);
    auto program = load(planned, error);
    ASSERT_TRUE(program) << error;
    expectConvSums(*program, conv);
    // A second run gives the same.
    expectConvSums(*program, conv);
  }
}

// Tests weights that come in at run time (not laid out once at load),
// windows wholly in the padding (the first three output positions: a pad
// of 3 before a kernel of 1), which sum to the bias alone, and a map of no
// channels (no library primitive: the direct loop), the bias alone too.
TEST_P(PlanBackends, ConvolutionWeightsAtRunTimeAndWindowsInThePadding) {
  if (!canRun())
    GTEST_SKIP() << "no CUDA device here";
  Conv runTime{{1, 4, 6, 6}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2, 2,
               true,         true};
  Conv padded{{1, 2, 4}, {1}, {1}, {3, 0}, {1}, 1, 2, true};
  Conv noChannels{{1, 0, 4}, {1}, {1}, {0, 0}, {1}, 1, 2, true};
  for (const Conv &conv : {runTime, padded, noChannels}) {
    std::string error;
    hetx::Artifact planned = convPlanned(chip, conv);
    auto program = load(planned, error);
    ASSERT_TRUE(program) << error;
    expectConvSums(*program, conv);
  }
}

TEST_P(PlanBackends, ConvolutionRowsOfAnotherKernelAreRefused) {
  Conv conv{{1, 4, 7, 9}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2, 3, true};
  hetx::Artifact damaged = convPlanned(chip, conv);
  damaged.mutable_kernel_plan()->mutable_kernels(0)->set_kernel_shape(0, 2);
  expectRefused(damaged, "weights of [3, 19] in 2 group(s) for 4 input "
                         "channels (rows of C/G x K values, and the bias)");
}

TEST_P(PlanBackends, ConvolutionGroupsNotDividingTheChannelsAreRefused) {
  Conv conv{{1, 4, 7, 9}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2, 3, true};
  hetx::Artifact damaged = convPlanned(chip, conv);
  damaged.mutable_kernel_plan()->mutable_kernels(0)->set_input_shape(1, 5);
  expectRefused(damaged, "in 2 group(s) for 5 input channels");
}

TEST_P(PlanBackends, ConvolutionResultOfOtherSizeIsRefused) {
  Conv conv{{1, 4, 7, 9}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2, 3, true};
  hetx::Artifact damaged = convPlanned(chip, conv);
  damaged.mutable_kernel_plan()->mutable_kernels(0)->set_strides(1, 2);
  expectRefused(damaged, "a convolution of [1, 4, 7, 9] needs 252 input and "
                         "210 result elements, its buffers hold 252 and 378");
}

// Tests that the arena of a backend with memory of its own (CUDA) never
// gives two buffers alive at once the same word, that the outputs live to
// the end, and that buffers whose lives do not overlap share words.
TEST(Placement, BuffersAliveAtOnceNeverShareWords) {
  chip::ChipSpec chip = loadChip("test-chip");
  hetx::Artifact artifact = planned(chip);
  std::string error;
  std::unique_ptr<plan::Plan> checked = plan::load(artifact, chip, error);
  ASSERT_TRUE(checked) << error;
  plan::Placement p = plan::placeBuffers(*checked, 4);
  uint64_t separate = 0;
  size_t count = checked->buffers.size();
  auto words = [&](size_t i) {
    return (checked->buffers[i].elements + 3) / 4 * 4;
  };
  for (size_t i = 0; i < count; ++i) {
    if (!p.placed[i] || checked->buffers[i].root != i)
      continue;
    separate += words(i);
    EXPECT_LE(p.offset[i] + words(i), p.words);
    for (size_t j = i + 1; j < count; ++j) {
      if (!p.placed[j] || checked->buffers[j].root != j ||
          p.last[i] < p.first[j] || p.last[j] < p.first[i])
        continue;
      bool apart = p.offset[i] + words(i) <= p.offset[j] ||
                   p.offset[j] + words(j) <= p.offset[i];
      EXPECT_TRUE(apart) << "buffers #" << i << " and #" << j;
    }
  }
  for (uint32_t output : checked->outputs)
    EXPECT_EQ(p.last[output], checked->kernels.size());
  EXPECT_FALSE(p.placed[1]); // a constant
  // x is read by the first kernel only: later buffers take its words.
  EXPECT_LT(p.words, separate);
}

// Tests that an index map drops dimensions of size 1 and merges the
// neighbours every operand walks as one, and no others.
TEST(Placement, IndexMapsCollapse) {
  // [2, 3, 4]: one operand whole, one a broadcast row of 4.
  plan::IndexMap map{{2, 3, 4},
                     {{12, 4, 1}, plan::broadcastStrides({4}, {2, 3, 4})}};
  plan::IndexMap c = plan::collapse(map);
  EXPECT_EQ(c.shape, (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(c.strides[0], (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(c.strides[1], (std::vector<int64_t>{0, 1}));
  // A transpose of [2, 3] walks its input across: nothing merges.
  c = plan::collapse({{3, 2}, {{1, 3}}});
  EXPECT_EQ(c.shape, (std::vector<int64_t>{3, 2}));
  c = plan::collapse({{1, 5, 1}, {{5, 1, 1}}});
  EXPECT_EQ(c.shape, (std::vector<int64_t>{5}));
  EXPECT_EQ(c.strides[0], (std::vector<int64_t>{1}));
  EXPECT_EQ(plan::broadcastStrides({3, 1}, {2, 3, 4}),
            (std::vector<int64_t>{0, 1, 0}));
}

INSTANTIATE_TEST_SUITE_P(Backends, PlanBackends,
                         ::testing::Values("cpu", "cuda"),
                         [](const auto &info) { return info.param; });

} // namespace
