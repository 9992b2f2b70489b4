//===- CpuProgram.cpp - Running a checked kernel plan on the host ------===//

#include "runtime/cpu/CpuKernels.h"

#include "runtime/sim/DataTypes.h"
#include "runtime/sim/Sram.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

namespace hetc::cpu {

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
  program.state = plan::load(artifact, chip, error);
  return program.state != nullptr;
}

bool run(const CpuProgram &program,
         const std::map<std::string, io::Tensor> &inputs, CpuResult &result,
         std::string &error) {
  const Plan &state = *program.state;
  if (!sim::checkInputs(state.artifact, inputs, error))
    return false;
  result = CpuResult();
  auto start = std::chrono::steady_clock::now();
  Storage storage(state.buffers.size());
  uint64_t live = 0, peak = 0;
  // Freed storage, reused by later results: its pages are mapped already.
  std::vector<Words> pool;
  auto allocate = [&](uint32_t root, bool zero) {
    uint64_t elements = state.buffers[root].elements;
    auto best = pool.end();
    for (auto it = pool.begin(); it != pool.end(); ++it)
      if (it->capacity >= elements &&
          (best == pool.end() || it->capacity < best->capacity))
        best = it;
    Words &words = storage[root];
    if (best != pool.end()) {
      words = std::move(*best);
      pool.erase(best);
    } else {
      words.data.reset(new float[std::max<uint64_t>(elements, 1)]);
      words.capacity = elements;
    }
    words.size = elements;
    if (zero)
      std::memset(words.data.get(), 0, elements * sizeof(float));
    live += elements;
    peak = std::max(peak, live);
  };
  std::vector<float> converted;
  for (size_t i = 0; i < state.buffers.size(); ++i) {
    const PlanBufferInfo &b = state.buffers[i];
    if (b.origin != PlanBufferInfo::Origin::Input)
      continue;
    const io::Tensor &tensor = inputs.at(state.artifact.inputs(b.input).name());
    const float *words = sim::laneWords(tensor, converted);
    allocate(uint32_t(i), false);
    std::copy(words, words + b.elements, storage[i].data.get());
  }
  auto base = [&](uint32_t index) -> const float * {
    const PlanBufferInfo &b = state.buffers[index];
    return b.constant ? b.constant->data() : storage[b.root].data.get();
  };
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
    // A result the kernel writes whole needs no zeros first.
    if (!storage[root].data)
      allocate(root, !kernel.fills);
    Words &out = storage[root];
    auto kernelStart = std::chrono::steady_clock::now();
    bool ok;
    if (kernel.aliased) {
      std::unique_ptr<float[]> copy(new float[std::max<uint64_t>(out.size, 1)]);
      std::copy(out.data.get(), out.data.get() + out.size, copy.get());
      ok = runKernel(state, kernel, operands, copy.get(), error);
      out.data.swap(copy);
      out.capacity = out.size;
    } else {
      ok = runKernel(state, kernel, operands, out.data.get(), error);
    }
    if (!ok)
      return false;
    ++result.stats.kernels;
    result.stats.kernelSeconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                      kernelStart)
            .count());
    for (uint32_t b : kernel.frees) {
      live -= storage[b].size;
      pool.push_back(std::move(storage[b]));
      storage[b] = Words();
    }
  }
  auto end = std::chrono::steady_clock::now();
  result.stats.seconds = std::chrono::duration<double>(end - start).count();
  result.stats.peakBytes = peak * sizeof(float);
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
