//===- Simulator.cpp - Loading a program and its tensors, then running it ===//

#include "runtime/sim/Simulator.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/sim/HazardText.h"
#include "runtime/sim/Machine.h"
#include "runtime/sim/Program.h"
#include "runtime/sim/Sram.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace hetc::sim {

namespace {
/// A binding with its checked layout.
struct Placed {
  const hetx::TensorBinding *binding;
  std::string what;
  BindingLayout layout;
};

std::string describe(const char *role, const hetx::TensorBinding &binding) {
  return std::string(role) + " '" + binding.name() + "'";
}

/// Checks every binding and that inputs and constants do not overlap.
bool placeBindings(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
                   std::vector<Placed> &preloaded, std::vector<Placed> &outputs,
                   std::string &error) {
  std::set<std::string> inputNames;
  for (const hetx::TensorBinding &input : artifact.inputs()) {
    Placed placed{&input, describe("input", input), {}};
    if (!inputNames.insert(input.name()).second) {
      error = "artifact has two inputs named '" + input.name() + "'";
      return false;
    }
    if (!checkBinding(input, placed.what, chip, placed.layout, error))
      return false;
    preloaded.push_back(placed);
  }
  for (const hetx::Constant &constant : artifact.constants()) {
    Placed placed{
        &constant.binding(), describe("constant", constant.binding()), {}};
    if (!checkBinding(constant.binding(), placed.what, chip, placed.layout,
                      error))
      return false;
    if (constant.data().size() != placed.layout.elements * 4) {
      error = placed.what + ": data holds " +
              std::to_string(constant.data().size()) + " bytes, but shape " +
              io::shapeString({constant.binding().shape().begin(),
                               constant.binding().shape().end()}) +
              " needs " + std::to_string(placed.layout.elements * 4);
      return false;
    }
    preloaded.push_back(placed);
  }
  for (const hetx::TensorBinding &output : artifact.outputs()) {
    Placed placed{&output, describe("output", output), {}};
    if (!checkBinding(output, placed.what, chip, placed.layout, error))
      return false;
    outputs.push_back(placed);
  }
  std::vector<const Placed *> sorted;
  for (const Placed &placed : preloaded)
    if (placed.layout.vectors)
      sorted.push_back(&placed);
  std::sort(sorted.begin(), sorted.end(), [](const Placed *a, const Placed *b) {
    return a->binding->address() < b->binding->address();
  });
  for (size_t i = 1; i < sorted.size(); ++i) {
    const Placed &a = *sorted[i - 1], &b = *sorted[i];
    uint64_t aEnd = a.binding->address() + a.layout.vectors;
    if (b.binding->address() < aEnd) {
      error = a.what + " (addresses " + std::to_string(a.binding->address()) +
              " to " + std::to_string(aEnd - 1) + ") and " + b.what +
              " (from address " + std::to_string(b.binding->address()) +
              ") overlap in SRAM";
      return false;
    }
  }
  return true;
}

/// Checks that `inputs` gives each artifact input once, with its shape.
bool checkInputs(const hetx::Artifact &artifact,
                 const std::map<std::string, io::Tensor> &inputs,
                 std::string &error) {
  std::string expected;
  for (const hetx::TensorBinding &input : artifact.inputs())
    expected += (expected.empty() ? "'" : ", '") + input.name() + "'";
  for (const auto &[name, tensor] : inputs) {
    auto it = std::find_if(
        artifact.inputs().begin(), artifact.inputs().end(),
        [&](const hetx::TensorBinding &b) { return b.name() == name; });
    if (it == artifact.inputs().end()) {
      error = "the artifact has no input '" + name +
              "' (its inputs: " + (expected.empty() ? "none" : expected) + ")";
      return false;
    }
    std::vector<int64_t> want(it->shape().begin(), it->shape().end());
    uint64_t count = 0;
    if (tensor.shape != want || !io::elementCount(tensor.shape, count) ||
        count != tensor.data.size()) {
      error = "input '" + name + "' has shape " +
              io::shapeString(tensor.shape) + " (" +
              std::to_string(tensor.data.size()) +
              " elements), but the artifact expects " + io::shapeString(want);
      return false;
    }
  }
  for (const hetx::TensorBinding &input : artifact.inputs()) {
    if (!inputs.count(input.name())) {
      error = "no value given for input '" + input.name() + "'";
      return false;
    }
  }
  return true;
}

/// Decodes a constant's little-endian fp32 bytes.
std::vector<float> decodeConstant(const std::string &bytes) {
  std::vector<float> values(bytes.size() / 4);
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t bits = 0;
    for (int b = 0; b < 4; ++b)
      bits |= uint32_t(static_cast<unsigned char>(bytes[4 * i + b])) << (8 * b);
    std::memcpy(&values[i], &bits, 4);
  }
  return values;
}
} // namespace

/// Everything about a program that does not depend on its inputs.
struct LoadedProgram::State {
  State(const hetx::Artifact &artifact, const chip::ChipSpec &chip)
      : artifact(artifact), chip(chip), text(artifact, chip) {}

  const hetx::Artifact &artifact;
  const chip::ChipSpec &chip;
  HazardText text;
  std::vector<Op> ops;
  std::vector<Placed> preloaded, outputs;
  /// The constants' values, in artifact order.
  std::vector<std::vector<float>> constants;
  /// The most addresses a run's SRAM holds values for: those preloaded and
  /// those written.
  uint64_t sramVectors = 0;
  /// Machine::executionOrder(ops).
  std::vector<uint32_t> order;
};

LoadedProgram::LoadedProgram() = default;
LoadedProgram::~LoadedProgram() = default;
LoadedProgram::LoadedProgram(LoadedProgram &&) noexcept = default;
LoadedProgram &LoadedProgram::operator=(LoadedProgram &&) noexcept = default;

size_t LoadedProgram::instructions() const {
  return state ? state->ops.size() : 0;
}

bool load(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
          LoadedProgram &program, std::string &error) {
  program.state.reset();
  if (!artifact::checkChipMatch(artifact, chip, error))
    return false;
  auto state = std::make_unique<LoadedProgram::State>(artifact, chip);
  if (!decodeProgram(artifact, chip, state->text, state->ops, error) ||
      !placeBindings(artifact, chip, state->preloaded, state->outputs, error))
    return false;
  for (const hetx::Constant &constant : artifact.constants())
    state->constants.push_back(decodeConstant(constant.data()));
  std::vector<uint64_t> written;
  for (const Op &op : state->ops)
    if (op.kind == OpClass::MemWrite)
      written.push_back(op.address);
  std::sort(written.begin(), written.end());
  state->sramVectors =
      uint64_t(std::unique(written.begin(), written.end()) - written.begin());
  for (const Placed &placed : state->preloaded)
    state->sramVectors += placed.layout.vectors;
  state->order = Machine::executionOrder(state->ops);
  program.state = std::move(state);
  return true;
}

bool run(const LoadedProgram &program,
         const std::map<std::string, io::Tensor> &inputs,
         const SimOptions &options, SimResult &result, std::string &error) {
  const LoadedProgram::State &state = *program.state;
  if (!options.timingOnly && !checkInputs(state.artifact, inputs, error))
    return false;
  bool values = !options.timingOnly;
  Sram sram(state.chip, values);
  sram.reserve(state.sramVectors);
  size_t inputCount = size_t(state.artifact.inputs_size());
  for (size_t i = 0; i < state.preloaded.size(); ++i) {
    const Placed &placed = state.preloaded[i];
    const float *data = nullptr;
    if (values)
      data = i < inputCount ? inputs.at(placed.binding->name()).data.data()
                            : state.constants[i - inputCount].data();
    sram.preload(*placed.binding, placed.layout, data);
  }

  Machine machine(state.chip, state.text, state.ops, sram, options);
  result = SimResult();
  if (!machine.run(state.order, result.stats, error))
    return false;
  result.stats.sramHighWater = sram.occupied();
  for (const Placed &placed : state.outputs) {
    NamedTensor output{placed.binding->name(), {}};
    if (!sram.fetch(*placed.binding, placed.layout, output.tensor, error))
      return false;
    if (values)
      result.outputs.push_back(std::move(output));
  }
  return true;
}

bool simulate(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
              const std::map<std::string, io::Tensor> &inputs,
              SimResult &result, std::string &error) {
  return simulate(artifact, chip, inputs, SimOptions(), result, error);
}

bool simulate(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
              const std::map<std::string, io::Tensor> &inputs,
              const SimOptions &options, SimResult &result,
              std::string &error) {
  LoadedProgram program;
  return load(artifact, chip, program, error) &&
         run(program, inputs, options, result, error);
}

} // namespace hetc::sim
