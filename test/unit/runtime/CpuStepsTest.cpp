//===- CpuStepsTest.cpp - A plan's kernels as the CPU backend runs them ===//
//
// Plans shaped as the compiler cuts models: a convolution by groups (per
// channel, its windows gathered and multiplied by the channel's weights,
// then the channels put together), a chain of elementwise kernels behind a
// gather, over rows longer than a block, and copies (a row taken from a
// buffer, results put together). Each test checks the steps the CPU
// backend makes of the plan and the values the run gives, worked out here
// element by element.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"
#include "runtime/cpu/CpuBackend.h"
#include "runtime/cpu/CpuSteps.h"
#include "runtime/plan/Placement.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace hetc;
using namespace hetc::test;

namespace {

constexpr int64_t kPositions = 6, kTaps = 3;

/// Binds each (name, buffer) as an output of the plan.
void bindOutputs(hetx::KernelPlan &plan,
                 const std::vector<std::pair<const char *, uint32_t>> &outputs) {
  for (auto [name, buffer] : outputs) {
    hetx::PlanBinding *binding = plan.add_outputs();
    binding->set_name(name);
    binding->set_buffer(buffer);
  }
}

/// Two channels of six positions, each convolved with its own three
/// weights (one position of zero padding on the left): per channel c a
/// gather of the windows [3 x 4] (row t: x[c, p - 1 + t]) and their
/// product with w_c [1 x 3]; then the channels' results put together as
/// the output [2 x 4]. `w1` is channel 1's weights.
hetx::Artifact groupedConv(const chip::ChipSpec &chip, std::vector<float> w1) {
  ProgramBuilder b(chip);
  b.input("x", {2, kPositions}, 0);
  b.constant("w0", {1, kTaps}, 64, {1, 10, 100});
  b.constant("w1", {1, kTaps}, 80, w1);
  b.output("y", {2, 4}, 96);
  hetx::Artifact artifact = b.build();
  hetx::KernelPlan &plan = *artifact.mutable_kernel_plan();
  addPlanBuffer(plan, hetx::F32, {2, kPositions})->set_input("x");  // 0
  addPlanBuffer(plan, hetx::F32, {1, kTaps})->set_constant_address(64); // 1
  addPlanBuffer(plan, hetx::F32, {1, kTaps})->set_constant_address(80); // 2
  for (int c = 0; c < 2; ++c) {
    addPlanBuffer(plan, hetx::F32, {kTaps, 4})->set_scratch(true); // 3, 5
    addPlanBuffer(plan, hetx::F32, {1, 4})->set_scratch(true);     // 4, 6
  }
  addPlanBuffer(plan, hetx::F32, {2, 4})->set_scratch(true); // 7
  for (uint32_t c = 0; c < 2; ++c) {
    hetx::PlanKernel *gather =
        addPlanKernel(plan, hetx::PLAN_GATHER, {0}, 3 + 2 * c);
    int64_t row = int64_t(c) * kPositions;
    for (int64_t v : {int64_t(-1), int64_t(0), int64_t(1), // a zero
                      row, int64_t(1), int64_t(3),         // x[p - 1]
                      row, int64_t(1), int64_t(4),         // x[p]
                      row + 1, int64_t(1), int64_t(4)})    // x[p + 1]
      gather->add_index_runs(v);
    addPlanKernel(plan, hetx::PLAN_MATMUL, {1 + c, 3 + 2 * c}, 4 + 2 * c);
  }
  hetx::PlanKernel *join = addPlanKernel(plan, hetx::PLAN_GATHER, {4, 6}, 7);
  for (int64_t v : {0, 1, 4, 4, 1, 4}) // a run stays within one operand
    join->add_index_runs(v);
  bindOutputs(plan, {{"y", 7}});
  return artifact;
}

/// The steps the CPU backend makes of `artifact`'s plan.
std::vector<cpu::Step> stepsOf(const hetx::Artifact &artifact,
                               const chip::ChipSpec &chip) {
  std::string error;
  auto checked = plan::load(artifact, chip, error);
  EXPECT_TRUE(checked) << error;
  if (!checked)
    return {};
  return cpu::stepPlan(*checked, 16).steps;
}

/// Runs `artifact`'s plan on the CPU backend and returns its first output.
std::vector<float> runCpu(const hetx::Artifact &artifact,
                          const chip::ChipSpec &chip,
                          const std::map<std::string, io::Tensor> &inputs) {
  std::string error;
  cpu::CpuProgram program;
  EXPECT_TRUE(cpu::load(artifact, chip, program, error)) << error;
  cpu::CpuResult result;
  EXPECT_TRUE(cpu::run(program, inputs, result, error)) << error;
  return result.outputs.empty() ? std::vector<float>()
                                : result.outputs[0].tensor.data;
}

std::map<std::string, io::Tensor> convInputs() {
  std::vector<float> x(2 * kPositions);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i + 1);
  return {{"x", io::Tensor{{2, kPositions}, x}}};
}

/// y[c][p] = w_c . (x[c][p - 1], x[c][p], x[c][p + 1]), zero left of x.
std::vector<float> convExpected(const std::vector<float> &w1) {
  std::vector<float> w0{1, 10, 100}, y;
  for (int c = 0; c < 2; ++c)
    for (int p = 0; p < 4; ++p) {
      const std::vector<float> &w = c ? w1 : w0;
      float left = p ? float(c * kPositions + p) : 0.0f;
      float sum = w[0] * left;
      sum += w[1] * float(c * kPositions + p + 1);
      sum += w[2] * float(c * kPositions + p + 2);
      y.push_back(sum);
    }
  return y;
}

// Tests that the channels' gathers and products become one step of
// window products (the windows never gathered), each product written in
// its place in the output (the gather that puts them together left out),
// and that the step gives each channel's sums.
TEST(CpuSteps, GroupsOfAConvolutionAreWindowProducts) {
  chip::ChipSpec chip = loadChip("test-chip");
  std::vector<float> w1{2, 3, 4};
  hetx::Artifact artifact = groupedConv(chip, w1);
  std::vector<cpu::Step> steps = stepsOf(artifact, chip);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].kind, cpu::Step::Kind::WindowProducts);
  EXPECT_EQ(steps[0].first, 0u);
  EXPECT_EQ(steps[0].count, 4u);
  // Per channel: its windows' three rows as runs (the zero left out),
  // the rows x[p] and x[p + 1] one run of two repetitions.
  ASSERT_EQ(steps[0].windows.size(), 2u);
  EXPECT_EQ(steps[0].windows[1].size(), 2u);
  EXPECT_EQ(steps[1].kind, cpu::Step::Kind::LeftOut);
  EXPECT_EQ(runCpu(artifact, chip, convInputs()), convExpected(w1));
}

// Tests that an infinite weight times the padding's zero gives NaN, as a
// product of the gathered windows does, and infinity elsewhere.
TEST(CpuSteps, InfiniteWeightTimesPaddingIsNaN) {
  chip::ChipSpec chip = loadChip("test-chip");
  float inf = std::numeric_limits<float>::infinity();
  hetx::Artifact artifact = groupedConv(chip, {inf, 1, 1});
  std::vector<float> y = runCpu(artifact, chip, convInputs());
  ASSERT_EQ(y.size(), 8u);
  EXPECT_TRUE(std::isnan(y[4])) << y[4];
  for (int p = 5; p < 8; ++p)
    EXPECT_EQ(y[size_t(p)], inf);
}

// Tests that windows read again after their product are gathered by the
// gather itself: the pair runs as two kernels.
TEST(CpuSteps, WindowsReadLaterAreGathered) {
  chip::ChipSpec chip = loadChip("test-chip");
  hetx::Artifact artifact = groupedConv(chip, {2, 3, 4});
  hetx::KernelPlan &plan = *artifact.mutable_kernel_plan();
  // The output now takes channel 1's windows' first two rows.
  plan.mutable_kernels(4)->set_operands(0, 5);
  plan.mutable_kernels(4)->set_operands(1, 6);
  std::vector<cpu::Step> steps = stepsOf(artifact, chip);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].kind, cpu::Step::Kind::WindowProducts);
  EXPECT_EQ(steps[0].count, 2u);
  EXPECT_EQ(steps[1].kind, cpu::Step::Kind::Kernel);
  EXPECT_EQ(steps[2].kind, cpu::Step::Kind::Kernel);
  std::vector<float> y = runCpu(artifact, chip, convInputs());
  EXPECT_EQ(y, (std::vector<float>{0, 7, 8, 9, 7, 8, 9, 10}));
}

constexpr int64_t kRows = 3, kRow = 5000;

/// g = x with each row turned left by one (a gather), t = g * s (s: one
/// value per row), u = t + d (d: one row), y = relu(u), z = y - t; the
/// outputs y and z; with `readZ`, a gather of z's first row as a third.
hetx::Artifact chain(const chip::ChipSpec &chip, bool readZ) {
  ProgramBuilder b(chip);
  b.input("x", {kRows, kRow}, 0);
  b.input("s", {kRows, 1}, 2000);
  b.input("d", {kRow}, 2100);
  b.output("y", {kRows, kRow}, 3000);
  b.output("z", {kRows, kRow}, 5000);
  if (readZ)
    b.output("first", {kRow}, 7000);
  hetx::Artifact artifact = b.build();
  hetx::KernelPlan &plan = *artifact.mutable_kernel_plan();
  addPlanBuffer(plan, hetx::F32, {kRows, kRow})->set_input("x"); // 0
  addPlanBuffer(plan, hetx::F32, {kRows, 1})->set_input("s");    // 1
  addPlanBuffer(plan, hetx::F32, {kRow})->set_input("d");        // 2
  for (int i = 0; i < 5; ++i) // g t u y z: 3 .. 7
    addPlanBuffer(plan, hetx::F32, {kRows, kRow})->set_scratch(true);
  hetx::PlanKernel *turn = addPlanKernel(plan, hetx::PLAN_GATHER, {0}, 3);
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t v : {r * kRow + 1, int64_t(1), kRow - 1, r * kRow, int64_t(1),
                      int64_t(1)})
      turn->add_index_runs(v);
  addPlanKernel(plan, hetx::PLAN_BINARY, {3, 1}, 4, hetx::V_MUL);
  addPlanKernel(plan, hetx::PLAN_BINARY, {4, 2}, 5, hetx::V_ADD);
  addPlanKernel(plan, hetx::PLAN_UNARY, {5}, 6, hetx::V_RELU);
  addPlanKernel(plan, hetx::PLAN_BINARY, {6, 4}, 7, hetx::V_SUB);
  std::vector<std::pair<const char *, uint32_t>> outputs{{"y", 6}, {"z", 7}};
  if (readZ) {
    addPlanBuffer(plan, hetx::F32, {kRow})->set_scratch(true); // 8
    hetx::PlanKernel *first = addPlanKernel(plan, hetx::PLAN_GATHER, {7}, 8);
    for (int64_t v : {int64_t(0), int64_t(1), kRow})
      first->add_index_runs(v);
    outputs.push_back({"first", 8});
  }
  bindOutputs(plan, outputs);
  return artifact;
}

// Tests that the chain runs as one Elementwise step, by blocks (rows
// longer than a block are cut), t held in a thread's slot (it is read
// only inside the step), and gives each element's value.
TEST(CpuSteps, ElementwiseChainRunsByBlocks) {
  chip::ChipSpec chip = loadChip("test-chip");
  hetx::Artifact artifact = chain(chip, /*readZ=*/true);
  std::vector<cpu::Step> steps = stepsOf(artifact, chip);
  ASSERT_EQ(steps.size(), 2u);
  const cpu::Step &step = steps[0];
  EXPECT_EQ(step.kind, cpu::Step::Kind::Elementwise);
  EXPECT_EQ(step.count, 5u);
  // g, t and u live only inside the step; y and z are outputs.
  EXPECT_EQ(step.resultSlots[3], -1);
  EXPECT_EQ(step.resultSlots[4], -1);
  EXPECT_GE(step.resultSlots[1], 0);
  EXPECT_EQ(step.operandSlots[4][1], step.resultSlots[1]);
  // The gather of z's first row reads z's rows out of order: a kernel of
  // its own.
  EXPECT_EQ(steps[1].kind, cpu::Step::Kind::Kernel);

  std::vector<float> x(size_t(kRows * kRow)), s{2, -1, 0.5f}, d(kRow);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(int(i % 97) - 40);
  for (size_t i = 0; i < d.size(); ++i)
    d[i] = float(int(i % 13) - 6);
  std::string error;
  cpu::CpuProgram program;
  ASSERT_TRUE(cpu::load(artifact, chip, program, error)) << error;
  cpu::CpuResult result;
  ASSERT_TRUE(cpu::run(program,
                       {{"x", io::Tensor{{kRows, kRow}, x}},
                        {"s", io::Tensor{{kRows, 1}, s}},
                        {"d", io::Tensor{{kRow}, d}}},
                       result, error))
      << error;
  ASSERT_EQ(result.outputs.size(), 3u);
  const std::vector<float> &y = result.outputs[0].tensor.data;
  const std::vector<float> &z = result.outputs[1].tensor.data;
  ASSERT_EQ(y.size(), x.size());
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t j = 0; j < kRow; ++j) {
      float g = x[size_t(r * kRow + (j + 1) % kRow)];
      float t = g * s[size_t(r)];
      float u = t + d[size_t(j)];
      float relu = u > 0 ? u : 0;
      size_t at = size_t(r * kRow + j);
      ASSERT_EQ(y[at], relu) << "row " << r << " column " << j;
      ASSERT_EQ(z[at], relu - t) << "row " << r << " column " << j;
    }
  EXPECT_EQ(result.outputs[2].tensor.data,
            std::vector<float>(z.begin(), z.begin() + kRow));
}

/// y = -x [2 x 8]; r = y's row 1 (a copy: a gather of one run); `twice`
/// = r + r; with `overwrite`, y = -y again (in place of y) before `twice`
/// reads r. Outputs: `twice`, and (with `overwrite`) y.
hetx::Artifact rowCopy(const chip::ChipSpec &chip, bool overwrite) {
  ProgramBuilder b(chip);
  b.input("x", {2, 8}, 0);
  b.output("twice", {8}, 32);
  if (overwrite)
    b.output("y", {2, 8}, 64);
  hetx::Artifact artifact = b.build();
  hetx::KernelPlan &plan = *artifact.mutable_kernel_plan();
  addPlanBuffer(plan, hetx::F32, {2, 8})->set_input("x");   // 0
  addPlanBuffer(plan, hetx::F32, {2, 8})->set_scratch(true); // 1: y
  addPlanBuffer(plan, hetx::F32, {8})->set_scratch(true);    // 2: r
  addPlanBuffer(plan, hetx::F32, {8})->set_scratch(true);    // 3: twice
  addPlanKernel(plan, hetx::PLAN_UNARY, {0}, 1, hetx::V_NEG);
  hetx::PlanKernel *row = addPlanKernel(plan, hetx::PLAN_GATHER, {1}, 2);
  for (int64_t v : {8, 1, 8})
    row->add_index_runs(v);
  if (overwrite)
    addPlanKernel(plan, hetx::PLAN_UNARY, {1}, 1, hetx::V_NEG);
  addPlanKernel(plan, hetx::PLAN_BINARY, {2, 2}, 3, hetx::V_ADD);
  std::vector<std::pair<const char *, uint32_t>> outputs{{"twice", 3}};
  if (overwrite)
    outputs.push_back({"y", 1});
  bindOutputs(plan, outputs);
  return artifact;
}

std::map<std::string, io::Tensor> rowInputs() {
  std::vector<float> x(16);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i);
  return {{"x", io::Tensor{{2, 8}, x}}};
}

// Tests that a copy of a row is left out, the row read where it lies.
TEST(CpuSteps, RowCopyIsLeftOut) {
  chip::ChipSpec chip = loadChip("test-chip");
  hetx::Artifact artifact = rowCopy(chip, /*overwrite=*/false);
  std::vector<cpu::Step> steps = stepsOf(artifact, chip);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[1].kind, cpu::Step::Kind::LeftOut);
  EXPECT_EQ(runCpu(artifact, chip, rowInputs()),
            (std::vector<float>{-16, -18, -20, -22, -24, -26, -28, -30}));
}

// Tests that a copy whose source is overwritten while the copy is read is
// made: the copy keeps the values of before.
TEST(CpuSteps, CopyOfAnOverwrittenRowIsMade) {
  chip::ChipSpec chip = loadChip("test-chip");
  hetx::Artifact artifact = rowCopy(chip, /*overwrite=*/true);
  std::vector<cpu::Step> steps = stepsOf(artifact, chip);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[1].kind, cpu::Step::Kind::Kernel);
  EXPECT_EQ(runCpu(artifact, chip, rowInputs()),
            (std::vector<float>{-16, -18, -20, -22, -24, -26, -28, -30}));
}

/// a = -x, b = x + x (each [4]), then both copied into c [2 x 4] (a gather
/// of two runs), then d = c * c. With `readC`, the copy of b comes after
/// a kernel that reads c (e = c + c), which then sees c without b.
hetx::Artifact concatenation(const chip::ChipSpec &chip, bool readC) {
  ProgramBuilder b(chip);
  b.input("x", {4}, 0);
  b.output("d", {2, 4}, 32);
  if (readC)
    b.output("e", {2, 4}, 64);
  hetx::Artifact artifact = b.build();
  hetx::KernelPlan &plan = *artifact.mutable_kernel_plan();
  addPlanBuffer(plan, hetx::F32, {4})->set_input("x");       // 0
  addPlanBuffer(plan, hetx::F32, {4})->set_scratch(true);    // 1: a
  addPlanBuffer(plan, hetx::F32, {4})->set_scratch(true);    // 2: b
  addPlanBuffer(plan, hetx::F32, {2, 4})->set_scratch(true); // 3: c
  addPlanBuffer(plan, hetx::F32, {2, 4})->set_scratch(true); // 4: d
  addPlanBuffer(plan, hetx::F32, {2, 4})->set_scratch(true); // 5: e
  addPlanKernel(plan, hetx::PLAN_UNARY, {0}, 1, hetx::V_NEG);
  addPlanKernel(plan, hetx::PLAN_BINARY, {0, 0}, 2, hetx::V_ADD);
  // c's first row from a, then (after e with readC) its second from b.
  hetx::PlanKernel *first = addPlanKernel(plan, hetx::PLAN_GATHER, {1}, 3);
  for (int64_t v : {0, 1, 4})
    first->add_index_runs(v);
  if (readC)
    addPlanKernel(plan, hetx::PLAN_BINARY, {3, 3}, 5, hetx::V_ADD);
  hetx::PlanKernel *second = addPlanKernel(plan, hetx::PLAN_GATHER, {2}, 3);
  second->set_first_row(1);
  for (int64_t v : {0, 1, 4})
    second->add_index_runs(v);
  addPlanKernel(plan, hetx::PLAN_BINARY, {3, 3}, 4, hetx::V_MUL);
  std::vector<std::pair<const char *, uint32_t>> outputs{{"d", 4}};
  if (readC)
    outputs.push_back({"e", 5});
  bindOutputs(plan, outputs);
  return artifact;
}

// Tests that results copied whole into their places in a concatenation
// are written there: both copies are left out.
TEST(CpuSteps, ResultsAreWrittenInTheirPlaceInAConcatenation) {
  chip::ChipSpec chip = loadChip("test-chip");
  hetx::Artifact artifact = concatenation(chip, /*readC=*/false);
  std::vector<cpu::Step> steps = stepsOf(artifact, chip);
  size_t leftOut = 0;
  for (const cpu::Step &step : steps)
    leftOut += step.kind == cpu::Step::Kind::LeftOut;
  EXPECT_EQ(leftOut, 2u);
  EXPECT_EQ(runCpu(artifact, chip, {{"x", io::Tensor{{4}, {1, 2, 3, 4}}}}),
            (std::vector<float>{1, 4, 9, 16, 4, 16, 36, 64}));
}

// Tests that a result is not written in its place early when a kernel
// reads the concatenation before its copy: that kernel sees zeros there.
TEST(CpuSteps, ResultIsNotWrittenEarlyWhereTheConcatenationIsRead) {
  chip::ChipSpec chip = loadChip("test-chip");
  hetx::Artifact artifact = concatenation(chip, /*readC=*/true);
  std::string error;
  cpu::CpuProgram program;
  ASSERT_TRUE(cpu::load(artifact, chip, program, error)) << error;
  cpu::CpuResult result;
  ASSERT_TRUE(cpu::run(program, {{"x", io::Tensor{{4}, {1, 2, 3, 4}}}},
                       result, error))
      << error;
  ASSERT_EQ(result.outputs.size(), 2u);
  EXPECT_EQ(result.outputs[0].tensor.data,
            (std::vector<float>{1, 4, 9, 16, 4, 16, 36, 64}));
  EXPECT_EQ(result.outputs[1].tensor.data,
            (std::vector<float>{-2, -4, -6, -8, 0, 0, 0, 0}));
}

/// a = -x, b = x + x (each [4]) put together as c [4 x 2] by two gathers
/// whose runs cut across them: a and the first half of b (c's rows 0-2),
/// then b's second half (row 3); d = c * c. With `twice`, a is also copied
/// into e [4], and e + e is a second output.
hetx::Artifact splitConcatenation(const chip::ChipSpec &chip, bool twice) {
  ProgramBuilder b(chip);
  b.input("x", {4}, 0);
  b.output("d", {4, 2}, 32);
  if (twice)
    b.output("e2", {4}, 64);
  hetx::Artifact artifact = b.build();
  hetx::KernelPlan &plan = *artifact.mutable_kernel_plan();
  addPlanBuffer(plan, hetx::F32, {4})->set_input("x");       // 0
  addPlanBuffer(plan, hetx::F32, {4})->set_scratch(true);    // 1: a
  addPlanBuffer(plan, hetx::F32, {4})->set_scratch(true);    // 2: b
  addPlanBuffer(plan, hetx::F32, {4, 2})->set_scratch(true); // 3: c
  addPlanBuffer(plan, hetx::F32, {4, 2})->set_scratch(true); // 4: d
  addPlanBuffer(plan, hetx::F32, {4})->set_scratch(true);    // 5: e
  addPlanBuffer(plan, hetx::F32, {4})->set_scratch(true);    // 6: e + e
  addPlanKernel(plan, hetx::PLAN_UNARY, {0}, 1, hetx::V_NEG);
  addPlanKernel(plan, hetx::PLAN_BINARY, {0, 0}, 2, hetx::V_ADD);
  // Runs index the operands as one: a is elements 0-3, b 4-7.
  hetx::PlanKernel *first = addPlanKernel(plan, hetx::PLAN_GATHER, {1, 2}, 3);
  for (int64_t v : {0, 1, 4, 4, 1, 2})
    first->add_index_runs(v);
  hetx::PlanKernel *second = addPlanKernel(plan, hetx::PLAN_GATHER, {1, 2}, 3);
  second->set_first_row(3);
  for (int64_t v : {6, 1, 2})
    second->add_index_runs(v);
  addPlanKernel(plan, hetx::PLAN_BINARY, {3, 3}, 4, hetx::V_MUL);
  std::vector<std::pair<const char *, uint32_t>> outputs{{"d", 4}};
  if (twice) {
    hetx::PlanKernel *copy = addPlanKernel(plan, hetx::PLAN_GATHER, {1}, 5);
    for (int64_t v : {0, 1, 4})
      copy->add_index_runs(v);
    addPlanKernel(plan, hetx::PLAN_BINARY, {5, 5}, 6, hetx::V_ADD);
    outputs.push_back({"e2", 6});
  }
  bindOutputs(plan, outputs);
  return artifact;
}

size_t leftOut(const std::vector<cpu::Step> &steps) {
  size_t count = 0;
  for (const cpu::Step &step : steps)
    count += step.kind == cpu::Step::Kind::LeftOut;
  return count;
}

// Tests that results put together by gathers whose runs cut across them
// (as a concatenation of attention heads is) are written in their places.
TEST(CpuSteps, ResultsCutAcrossGathersAreWrittenInTheirPlaces) {
  chip::ChipSpec chip = loadChip("test-chip");
  hetx::Artifact artifact = splitConcatenation(chip, /*twice=*/false);
  EXPECT_EQ(leftOut(stepsOf(artifact, chip)), 2u);
  EXPECT_EQ(runCpu(artifact, chip, {{"x", io::Tensor{{4}, {1, 2, 3, 4}}}}),
            (std::vector<float>{1, 4, 9, 16, 4, 16, 36, 64}));
}

// Tests that a result copied into two places (here: viewed by a copy of
// it, and put into a concatenation) lives in one: the concatenation's
// gathers, which copy it and the other result, are run.
TEST(CpuSteps, ResultCopiedTwiceIsCopied) {
  chip::ChipSpec chip = loadChip("test-chip");
  hetx::Artifact artifact = splitConcatenation(chip, /*twice=*/true);
  std::vector<cpu::Step> steps = stepsOf(artifact, chip);
  EXPECT_EQ(steps[2].kind, cpu::Step::Kind::Kernel);
  EXPECT_EQ(runCpu(artifact, chip, {{"x", io::Tensor{{4}, {1, 2, 3, 4}}}}),
            (std::vector<float>{1, 4, 9, 16, 4, 16, 36, 64}));
}

/// x [20000]; for each of `copies` buffers t_i = -x, r_i = t_i's element
/// i (a copy); then the sum of the r_i, the output. Each t_i dies at its
/// copy in the plan; left out, the copies would keep every t_i alive.
hetx::Artifact elementCopies(const chip::ChipSpec &chip, int copies) {
  constexpr int64_t kLength = 20000;
  ProgramBuilder b(chip);
  b.input("x", {kLength}, 0);
  b.output("sum", {1}, 4000);
  hetx::Artifact artifact = b.build();
  hetx::KernelPlan &plan = *artifact.mutable_kernel_plan();
  addPlanBuffer(plan, hetx::F32, {kLength})->set_input("x"); // 0
  std::vector<uint32_t> rows;
  for (int i = 0; i < copies; ++i) {
    uint32_t t = uint32_t(plan.buffers_size());
    addPlanBuffer(plan, hetx::F32, {kLength})->set_scratch(true);
    addPlanBuffer(plan, hetx::F32, {1})->set_scratch(true);
    addPlanKernel(plan, hetx::PLAN_UNARY, {0}, t, hetx::V_NEG);
    hetx::PlanKernel *copy = addPlanKernel(plan, hetx::PLAN_GATHER, {t}, t + 1);
    for (int64_t v : {int64_t(i), int64_t(1), int64_t(1)})
      copy->add_index_runs(v);
    rows.push_back(t + 1);
  }
  uint32_t sum = rows[0];
  for (size_t i = 1; i < rows.size(); ++i) {
    uint32_t next = uint32_t(plan.buffers_size());
    addPlanBuffer(plan, hetx::F32, {1})->set_scratch(true);
    addPlanKernel(plan, hetx::PLAN_BINARY, {sum, rows[i]}, next, hetx::V_ADD);
    sum = next;
  }
  bindOutputs(plan, {{"sum", sum}});
  return artifact;
}

std::map<std::string, io::Tensor> elementInputs() {
  std::vector<float> x(20000);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i);
  return {{"x", io::Tensor{{20000}, x}}};
}

// Tests that copies are left out while the buffers they keep alive take
// at most twice the plan's own arena: two copies are left out, five are
// made (leaving them out would hold five buffers of 20000 where the plan
// holds one), with the same sums.
TEST(CpuSteps, CopiesAreMadeWhereLeavingThemOutWouldTakeTooMuch) {
  chip::ChipSpec chip = loadChip("test-chip");
  hetx::Artifact two = elementCopies(chip, 2);
  EXPECT_EQ(leftOut(stepsOf(two, chip)), 2u);
  EXPECT_EQ(runCpu(two, chip, elementInputs()), (std::vector<float>{-1}));
  hetx::Artifact five = elementCopies(chip, 5);
  EXPECT_EQ(leftOut(stepsOf(five, chip)), 0u);
  EXPECT_EQ(runCpu(five, chip, elementInputs()), (std::vector<float>{-10}));
}

} // namespace
