//===- CpuProgram.cpp - Running a checked kernel plan on the host ------===//

#include "runtime/cpu/CpuKernels.h"
#include "runtime/plan/Placement.h"

#include "runtime/sim/DataTypes.h"
#include "runtime/sim/Sram.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

namespace hetc::cpu {

/// Where a program's buffers live (see CpuProgram).
struct CpuArena {
  plan::Placement placement;
  std::vector<float> words;
  /// Room for the result of a kernel that reads what it overwrites.
  std::vector<float> scratch;
};

namespace {
/// Buffers start on 64-byte lines, as the vector routines prefer.
constexpr uint64_t kAlignWords = 16;
} // namespace

CpuProgram::CpuProgram() = default;
CpuProgram::~CpuProgram() = default;
CpuProgram::CpuProgram(CpuProgram &&) noexcept = default;
CpuProgram &CpuProgram::operator=(CpuProgram &&) noexcept = default;

size_t CpuProgram::kernels() const { return state ? state->kernels.size() : 0; }

uint64_t CpuProgram::constantBytes() const {
  return state ? state->constantBytes : 0;
}

std::string CpuProgram::kernelLabel(size_t i) const {
  return plan::kernelLabel(*state, i);
}

bool load(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
          CpuProgram &program, std::string &error) {
  program.arena.reset();
  program.state = plan::load(artifact, chip, error);
  if (!program.state)
    return false;
  // plan::load has bounded the buffers live at once by the chip's SRAM,
  // and with it the arena.
  auto arena = std::make_unique<CpuArena>();
  arena->placement = plan::placeBuffers(*program.state, kAlignWords);
  arena->words.assign(std::max<uint64_t>(arena->placement.words, 1), 0.0f);
  uint64_t scratch = 0;
  for (const PlanKernelInfo &kernel : program.state->kernels)
    if (kernel.aliased)
      scratch = std::max(
          scratch,
          program.state->buffers[program.state->buffers[kernel.result].root]
              .elements);
  arena->scratch.assign(std::max<uint64_t>(scratch, 1), 0.0f);
  program.arena = std::move(arena);
  return true;
}

bool run(const CpuProgram &program,
         const std::map<std::string, io::Tensor> &inputs, CpuResult &result,
         std::string &error) {
  const Plan &state = *program.state;
  CpuArena &arena = *program.arena;
  if (!sim::checkInputs(state.artifact, inputs, error))
    return false;
  result = CpuResult();
  auto start = std::chrono::steady_clock::now();
  auto base = [&](uint32_t index) -> float * {
    const PlanBufferInfo &b = state.buffers[index];
    return b.constant ? const_cast<float *>(b.constant->data())
                      : arena.words.data() + arena.placement.offset[index];
  };
  // Roots written so far in this run: the first kernel to write one that
  // does not write it whole finds zeros there, whatever the last run left.
  std::vector<bool> written(state.buffers.size(), false);
  std::vector<float> converted;
  for (size_t i = 0; i < state.buffers.size(); ++i) {
    const PlanBufferInfo &b = state.buffers[i];
    if (b.origin != PlanBufferInfo::Origin::Input)
      continue;
    const io::Tensor &tensor = inputs.at(state.artifact.inputs(b.input).name());
    const float *words = sim::laneWords(tensor, converted);
    std::copy(words, words + b.elements, base(uint32_t(i)));
    written[b.root] = true;
  }
  std::vector<const float *> operands;
  for (const PlanKernelInfo &kernel : state.kernels) {
    operands.clear();
    for (uint32_t operand : kernel.operands)
      operands.push_back(base(operand));
    if (kernel.bias >= 0)
      operands.push_back(base(uint32_t(kernel.bias)));
    if (kernel.scale >= 0)
      operands.push_back(base(uint32_t(kernel.scale)));
    uint32_t root = state.buffers[kernel.result].root;
    uint64_t elements = state.buffers[root].elements;
    float *out = base(root);
    if (!written[root] && !kernel.fills)
      std::memset(out, 0, elements * sizeof(float));
    written[root] = true;
    auto kernelStart = std::chrono::steady_clock::now();
    bool ok;
    if (kernel.aliased) {
      // The kernel reads what it overwrites: it writes a copy, which then
      // takes the result's place.
      std::copy(out, out + elements, arena.scratch.data());
      ok = runKernel(state, kernel, operands, arena.scratch.data(), error);
      std::copy(arena.scratch.data(), arena.scratch.data() + elements, out);
    } else {
      ok = runKernel(state, kernel, operands, out, error);
    }
    if (!ok)
      return false;
    ++result.stats.kernels;
    result.stats.kernelSeconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                      kernelStart)
            .count());
  }
  auto end = std::chrono::steady_clock::now();
  result.stats.seconds = std::chrono::duration<double>(end - start).count();
  result.stats.peakBytes = arena.placement.words * sizeof(float);
  for (size_t i = 0; i < state.outputs.size(); ++i) {
    const hetx::TensorBinding &binding = state.artifact.outputs(int(i));
    const PlanBufferInfo &b = state.buffers[state.outputs[i]];
    sim::NamedTensor output{binding.name(), {}};
    io::Tensor &tensor = output.tensor;
    tensor.type = *sim::elementTypeOf(binding.dtype());
    tensor.shape.assign(binding.shape().begin(), binding.shape().end());
    const float *words = base(state.outputs[i]);
    tensor.data.assign(words, words + b.elements);
    sim::keepLaneWords(tensor);
    result.outputs.push_back(std::move(output));
  }
  return true;
}

} // namespace hetc::cpu
