//===- Simulator.cpp - Loading a program and its tensors, then running it ===//

#include "runtime/sim/Simulator.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/sim/DataTypes.h"
#include "runtime/sim/Dispatch.h"
#include "runtime/sim/HazardText.h"
#include "runtime/sim/Machine.h"
#include "runtime/sim/Program.h"
#include "runtime/sim/Sram.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
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

/// Checks that a staged binding fits in host memory.
bool checkHostRange(const Placed &placed, std::string &error) {
  const hetx::TensorBinding &binding = *placed.binding;
  if (!binding.has_host_address() ||
      (binding.host_address() <= kMaxHostVectors &&
       placed.layout.vectors <= kMaxHostVectors - binding.host_address()))
    return true;
  error = placed.what + ": it takes " + std::to_string(placed.layout.vectors) +
          " vectors from host address " +
          std::to_string(binding.host_address()) +
          ", beyond the host memory of " + std::to_string(kMaxHostVectors) +
          " vectors";
  return false;
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
    if (!checkBinding(input, placed.what, chip, placed.layout, error) ||
        !checkHostRange(placed, error))
      return false;
    preloaded.push_back(placed);
  }
  for (const hetx::Constant &constant : artifact.constants()) {
    Placed placed{
        &constant.binding(), describe("constant", constant.binding()), {}};
    if (!checkBinding(constant.binding(), placed.what, chip, placed.layout,
                      error))
      return false;
    if (io::isHostOnly(placed.layout.type)) {
      error = placed.what + ": is " + io::typeName(placed.layout.type) +
              ", a type of input and output bindings only; constants hold "
              "such data as " + io::typeName(io::heldAs(placed.layout.type));
      return false;
    }
    if (constant.binding().has_host_address()) {
      error = placed.what + ": has a host_address, but constants are "
                            "preloaded into SRAM (only inputs and outputs are "
                            "staged in host memory)";
      return false;
    }
    uint64_t bytes = placed.layout.elements * io::byteWidth(placed.layout.type);
    if (constant.data().size() != bytes) {
      error = placed.what + ": data holds " +
              std::to_string(constant.data().size()) + " bytes, but shape " +
              io::shapeString({constant.binding().shape().begin(),
                               constant.binding().shape().end()}) + " of " +
              io::typeName(placed.layout.type) + " needs " +
              std::to_string(bytes);
      return false;
    }
    preloaded.push_back(placed);
  }
  for (const hetx::TensorBinding &output : artifact.outputs()) {
    Placed placed{&output, describe("output", output), {}};
    if (!checkBinding(output, placed.what, chip, placed.layout, error) ||
        !checkHostRange(placed, error))
      return false;
    outputs.push_back(placed);
  }
  // Inputs and constants in SRAM must not overlap there, nor staged inputs
  // in host memory.
  auto overlapFree = [&](bool staged) {
    auto start = [staged](const Placed *p) {
      return staged ? p->binding->host_address() : p->binding->address();
    };
    std::vector<const Placed *> sorted;
    for (const Placed &placed : preloaded)
      if (placed.layout.vectors && placed.binding->has_host_address() == staged)
        sorted.push_back(&placed);
    std::sort(sorted.begin(), sorted.end(),
              [&](const Placed *a, const Placed *b) {
                return start(a) < start(b);
              });
    for (size_t i = 1; i < sorted.size(); ++i) {
      const Placed &a = *sorted[i - 1], &b = *sorted[i];
      uint64_t aEnd = start(&a) + (staged ? a.layout.vectors
                                          : a.layout.sramRows());
      if (start(&b) < aEnd) {
        const char *space = staged ? " in host memory" : " in SRAM";
        error = a.what + " (addresses " + std::to_string(start(&a)) + " to " +
                std::to_string(aEnd - 1) + ") and " + b.what +
                " (from address " + std::to_string(start(&b)) + ") overlap" +
                space;
        return false;
      }
    }
    return true;
  };
  return overlapFree(false) && overlapFree(true);
}

/// Checks that `tensor` holds values of `want`, the type of input `name`.
/// An input of a float type that numpy lacks (bf16, the 8- and 4-bit
/// floats) may come as F32 values that are all values of the type, and one
/// of a 4- or 2-bit integer type as I8 (signed) or U8 (unsigned) values in
/// the type's range.
bool checkInputType(const std::string &name, const io::Tensor &tensor,
                    io::ElementType want, std::string &error) {
  bool asF32 = (want == io::ElementType::BF16 || io::isNarrowFloat(want)) &&
               tensor.type == io::ElementType::F32;
  bool asByte = io::isSubByteInt(want) &&
                tensor.type == (io::inRange(want, -1) ? io::ElementType::I8
                                                      : io::ElementType::U8);
  if (asF32) {
    for (size_t i = 0; i < tensor.data.size(); ++i) {
      float value = tensor.data[i];
      if (!io::isValueOf(want, value)) {
        error = "input '" + name + "' is " + io::typeName(want) +
                ", but element " + std::to_string(i) + " (" +
                std::to_string(value) + ") of the f32 values given is not a " +
                io::typeName(want) + " value";
        return false;
      }
    }
    return true;
  }
  if (asByte) {
    for (size_t i = 0; i < tensor.ints.size(); ++i) {
      if (!io::inRange(want, tensor.ints[i])) {
        error = "input '" + name + "' is " + io::typeName(want) +
                ", but element " + std::to_string(i) + " (" +
                std::to_string(tensor.ints[i]) + ") of the " +
                io::typeName(tensor.type) +
                " values given is outside its "
                "range";
        return false;
      }
    }
    return true;
  }
  if (tensor.type == want)
    return true;
  error = "input '" + name + "' is " + io::typeName(want) +
          ", but the value given is " + io::typeName(tensor.type);
  return false;
}

} // namespace

/// Checks that `inputs` gives each artifact input once, with its shape and
/// element type; an input for which `optional` holds may be left out.
bool checkInputs(
    const hetx::Artifact &artifact,
    const std::map<std::string, io::Tensor> &inputs, std::string &error,
    const std::function<bool(const hetx::TensorBinding &)> &optional) {
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
        count != tensor.size()) {
      error = "input '" + name + "' has shape " +
              io::shapeString(tensor.shape) + " (" +
              std::to_string(tensor.size()) +
              " elements), but the artifact expects " + io::shapeString(want);
      return false;
    }
    if (!checkInputType(name, tensor, *elementTypeOf(it->dtype()), error))
      return false;
  }
  for (const hetx::TensorBinding &input : artifact.inputs()) {
    if (!inputs.count(input.name()) && !(optional && optional(input))) {
      error = "no value given for input '" + input.name() + "'";
      return false;
    }
  }
  return true;
}

namespace {
/// Fills `words` with `decode` of each little-endian element of `bytes`,
/// `Width` bytes each: one loop per element type, so that the type is not
/// asked again for each of a model's millions of weights.
template <unsigned Width, typename Decode>
void decodeEach(const std::string &bytes, std::vector<float> &words,
                Decode decode) {
  const auto *in = reinterpret_cast<const unsigned char *>(bytes.data());
  for (size_t i = 0; i < words.size(); ++i, in += Width) {
    uint32_t bits = 0;
    for (unsigned b = 0; b < Width; ++b)
      bits |= uint32_t(in[b]) << (8 * b);
    words[i] = decode(bits);
  }
}
} // namespace

/// Decodes a constant's little-endian bytes of `type` into lane words.
std::vector<float> decodeConstant(const std::string &bytes,
                                  io::ElementType type) {
  unsigned width = io::byteWidth(type);
  std::vector<float> words(bytes.size() / width);
  switch (type) {
  case io::ElementType::F32:
    // The lane word is the element's own bits (x86 and Arm are
    // little-endian, as the artifact is). An empty constant has no
    // storage to copy into.
    if (!words.empty())
      std::memcpy(words.data(), bytes.data(), words.size() * sizeof(float));
    break;
  case io::ElementType::F16:
    decodeEach<2>(bytes, words,
                  [](uint32_t bits) { return io::halfValue(uint16_t(bits)); });
    break;
  case io::ElementType::BF16:
    decodeEach<2>(bytes, words,
                  [](uint32_t bits) { return io::bf16Value(uint16_t(bits)); });
    break;
  case io::ElementType::I8:
  case io::ElementType::I4: // sign-extended to a byte
  case io::ElementType::I2:
    decodeEach<1>(bytes, words,
                  [](uint32_t bits) { return wordOfInt(int8_t(bits)); });
    break;
  case io::ElementType::Bool:
    decodeEach<1>(bytes, words,
                  [](uint32_t bits) { return wordOfInt(bits != 0); });
    break;
  default: // U8, I32, U4, U2 and the narrow floats
    if (io::isNarrowFloat(type))
      decodeEach<1>(bytes, words, [type](uint32_t bits) {
        return io::narrowFloatValue(type, uint8_t(bits));
      });
    else if (width == 1)
      decodeEach<1>(bytes, words,
                    [](uint32_t bits) { return wordOfInt(int32_t(bits)); });
    else if (width == 2)
      decodeEach<2>(bytes, words,
                    [](uint32_t bits) { return wordOfInt(int32_t(bits)); });
    else
      decodeEach<4>(bytes, words,
                    [](uint32_t bits) { return wordOfInt(int32_t(bits)); });
    break;
  }
  return words;
}

namespace {
/// Places input `placed` (its lane `words`, null without values) where its
/// binding says: in host memory when staged there, else in SRAM.
void preloadInput(const Placed &placed, const float *words, Sram &sram,
                  HostMemory &host) {
  if (placed.binding->has_host_address())
    host.preload(*placed.binding, placed.layout, words);
  else
    sram.preload(*placed.binding, placed.layout, words);
}

/// Reads output `placed` from where its binding says.
bool fetchOutput(const Placed &placed, const Sram &sram, const HostMemory &host,
                 io::Tensor &out, std::string &error) {
  return placed.binding->has_host_address()
             ? host.fetch(*placed.binding, placed.layout, out, error)
             : sram.fetch(*placed.binding, placed.layout, out, error);
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
  /// The constants placed in SRAM, where every run starts from (see
  /// Sram(const Sram &, bool)): placing megabytes of weights once per run
  /// cost more than a small model's run.
  std::unique_ptr<Sram> constants;
  /// The most addresses a run's SRAM holds values of its own for: the
  /// inputs and those written.
  uint64_t sramVectors = 0;
  /// Machine::plan(ops, chip).
  ExecutionPlan plan;
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
      !checkDispatch(state->ops, chip, state->text, error) ||
      !placeBindings(artifact, chip, state->preloaded, state->outputs, error))
    return false;
  state->constants = std::make_unique<Sram>(chip);
  // All of the constants' vectors at once: a pool that grows one vector
  // at a time moves its values again and again.
  uint64_t constantVectors = 0;
  for (int i = 0; i < artifact.constants_size(); ++i)
    constantVectors +=
        state->preloaded[size_t(artifact.inputs_size() + i)].layout.vectors;
  state->constants->reserve(constantVectors);
  for (int i = 0; i < artifact.constants_size(); ++i) {
    const Placed &placed = state->preloaded[size_t(artifact.inputs_size() + i)];
    std::vector<float> words =
        decodeConstant(artifact.constants(i).data(), placed.layout.type);
    state->constants->preload(*placed.binding, placed.layout, words.data());
  }
  state->constants->makeImage();
  std::vector<uint64_t> written;
  for (const Op &op : state->ops)
    if (op.kind == OpClass::MemWrite || op.opcode == hetx::DMA_IN)
      written.push_back(op.address);
  std::sort(written.begin(), written.end());
  state->sramVectors =
      uint64_t(std::unique(written.begin(), written.end()) - written.begin());
  for (int i = 0; i < artifact.inputs_size(); ++i)
    state->sramVectors += state->preloaded[size_t(i)].layout.vectors;
  state->plan = Machine::plan(state->ops, chip);
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
  Sram sram(*state.constants, values);
  HostMemory host(state.chip.lanes(), values);
  sram.reserve(state.sramVectors);
  std::vector<float> storage;
  for (int i = 0; i < state.artifact.inputs_size(); ++i) {
    const Placed &placed = state.preloaded[size_t(i)];
    const float *words =
        values ? laneWords(inputs.at(placed.binding->name()), storage)
               : nullptr;
    preloadInput(placed, words, sram, host);
  }

  Machine machine(state.chip, state.text, state.ops, sram, host, options);
  result = SimResult();
  if (!machine.run(state.plan, result.stats, error))
    return false;
  result.stats.sramHighWater = sram.occupied() * state.chip.lanes();
  for (const Placed &placed : state.outputs) {
    NamedTensor output{placed.binding->name(), {}};
    if (!fetchOutput(placed, sram, host, output.tensor, error))
      return false;
    if (values)
      result.outputs.push_back(std::move(output));
  }
  return true;
}

Session::Session(const LoadedProgram &program) : state(*program.state) {
  const auto &inputs = state.artifact.inputs();
  const auto &outputs = state.artifact.outputs();
  residentInput.assign(size_t(inputs.size()), false);
  residentOutput.assign(size_t(outputs.size()), false);
  auto sameLayout = [](const BindingLayout &a, const BindingLayout &b) {
    return a.type == b.type && a.rows == b.rows && a.cols == b.cols &&
           a.vectors == b.vectors && a.word == b.word && a.step == b.step &&
           a.width == b.width;
  };
  for (int i = 0; i < inputs.size(); ++i) {
    const Placed &in = state.preloaded[size_t(i)];
    if (in.binding->has_host_address())
      continue;
    for (int o = 0; o < outputs.size(); ++o) {
      const Placed &out = state.outputs[size_t(o)];
      if (residentOutput[size_t(o)] || out.binding->has_host_address() ||
          !sameLayout(in.layout, out.layout) ||
          !std::equal(in.binding->shape().begin(), in.binding->shape().end(),
                      out.binding->shape().begin(), out.binding->shape().end()))
        continue;
      residentInput[size_t(i)] = residentOutput[size_t(o)] = true;
      residentPairs.emplace_back(in.binding->name(), out.binding->name());
      break;
    }
  }
}

Session::~Session() = default;

bool Session::isResident(const std::string &name) const {
  for (const auto &[input, output] : residentPairs)
    if (input == name)
      return true;
  return false;
}

bool Session::stopped(std::string &error) const {
  if (failure.empty())
    return false;
  error = "the session stopped at run " + std::to_string(runs) + ": " + failure;
  return true;
}

bool Session::step(const std::map<std::string, io::Tensor> &inputs,
                   SimResult &result, std::string &error,
                   ExecutionObserver *observer) {
  if (stopped(error))
    return false;
  bool first = runs == 0;
  if (!first)
    for (const auto &[input, output] : residentPairs)
      if (inputs.count(input)) {
        error = "input '" + input +
                "' is resident: the chip holds its value from the run "
                "before (output '" +
                output + "'), and only the first run may give it";
        return false;
      }
  auto resident = [&](const hetx::TensorBinding &binding) {
    return isResident(binding.name());
  };
  if (!checkInputs(state.artifact, inputs, error, resident))
    return false;
  if (first)
    start(inputs);
  else
    sram->settle();
  HostMemory host(state.chip.lanes(), /*values=*/true);
  std::vector<float> storage;
  for (int i = 0; i < state.artifact.inputs_size(); ++i) {
    if (residentInput[size_t(i)])
      continue; // placed by start()
    const Placed &placed = state.preloaded[size_t(i)];
    preloadInput(placed, laneWords(inputs.at(placed.binding->name()), storage),
                 *sram, host);
  }
  ++runs;
  return execute(state, host, residentOutput, observer, result, error);
}

bool Session::execute(const LoadedProgram::State &program, HostMemory &host,
                      const std::vector<bool> &kept,
                      ExecutionObserver *observer, SimResult &result,
                      std::string &error) {
  SimOptions options;
  options.observer = observer;
  Machine machine(program.chip, program.text, program.ops, *sram, host,
                  options);
  result = SimResult();
  if (!machine.run(program.plan, result.stats, error)) {
    failure = error;
    return false;
  }
  result.stats.sramHighWater = sram->occupied() * program.chip.lanes();
  for (size_t o = 0; o < program.outputs.size(); ++o) {
    if (kept[o])
      continue;
    const Placed &placed = program.outputs[o];
    NamedTensor output{placed.binding->name(), {}};
    if (!fetchOutput(placed, *sram, host, output.tensor, error)) {
      failure = error;
      return false;
    }
    result.outputs.push_back(std::move(output));
  }
  return true;
}

void Session::start(const std::map<std::string, io::Tensor> &inputs) {
  sram = std::make_unique<Sram>(*state.constants, /*values=*/true);
  sram->reserve(state.sramVectors);
  HostMemory host(state.chip.lanes(), /*values=*/true);
  std::vector<float> storage;
  for (int i = 0; i < state.artifact.inputs_size(); ++i) {
    if (!residentInput[size_t(i)])
      continue;
    const Placed &placed = state.preloaded[size_t(i)];
    auto given = inputs.find(placed.binding->name());
    const float *words;
    if (given != inputs.end()) {
      words = laneWords(given->second, storage);
    } else {
      storage.assign(size_t(placed.layout.elements), 0.0f);
      words = storage.data();
    }
    preloadInput(placed, words, *sram, host);
  }
}

namespace {

/// The SRAM rows [begin, end) a placed binding spans.
std::pair<uint64_t, uint64_t> rowsOf(const Placed &placed) {
  uint64_t begin = placed.binding->address();
  return {begin, begin + placed.layout.sramRows()};
}

bool sameBinding(const Placed &a, const Placed &b) {
  const BindingLayout &x = a.layout, &y = b.layout;
  return a.binding->address() == b.binding->address() &&
         !a.binding->has_host_address() && !b.binding->has_host_address() &&
         x.type == y.type && x.rows == y.rows && x.cols == y.cols &&
         x.vectors == y.vectors && x.word == y.word && x.step == y.step &&
         x.width == y.width;
}

/// The batch slot of `whole` (first dimension B > 1) whose rows `part`
/// (first dimension 1, otherwise the same) is; none when it is no slot.
std::optional<int64_t> slotOf(const Placed &part, const Placed &whole) {
  const hetx::TensorBinding &p = *part.binding, &w = *whole.binding;
  const BindingLayout &x = part.layout, &y = whole.layout;
  if (p.has_host_address() || w.has_host_address() || p.shape_size() == 0 ||
      p.shape_size() != w.shape_size() || p.shape(0) != 1 || w.shape(0) <= 1 ||
      !std::equal(p.shape().begin() + 1, p.shape().end(),
                  w.shape().begin() + 1) ||
      x.type != y.type || x.cols != y.cols || x.step != y.step ||
      x.width != y.width)
    return std::nullopt;
  // A slot's vectors fill whole SRAM rows, so slot b starts b of them on.
  uint64_t batch = uint64_t(w.shape(0)), words = x.vectors * x.step;
  if (words == 0 || words % 4 || x.rows * batch != y.rows ||
      x.vectors * batch != y.vectors || x.word < y.word ||
      (x.word - y.word) % words || (x.word - y.word) / words >= batch)
    return std::nullopt;
  uint64_t slot = (x.word - y.word) / words;
  if (p.address() != w.address() + slot * words / 4)
    return std::nullopt;
  return int64_t(slot);
}

} // namespace

bool Session::companionSlot(const LoadedProgram &other, int64_t &slot,
                            std::string &error) const {
  return checkCompanion(*other.state, slot, error);
}

bool Session::checkCompanion(const LoadedProgram::State &other, int64_t &slot,
                             std::string &error) const {
  slot = -1;
  if (&other.chip != &state.chip &&
      other.chip.fingerprint() != state.chip.fingerprint()) {
    error = "the prefill program is for another chip";
    return false;
  }
  // What this program keeps from run to run: its constants and its
  // resident inputs, as SRAM rows.
  std::vector<std::pair<uint64_t, uint64_t>> kept;
  size_t inputs = size_t(state.artifact.inputs_size());
  for (size_t i = 0; i < state.preloaded.size(); ++i)
    if (i >= inputs || residentInput[i])
      kept.push_back(rowsOf(state.preloaded[i]));
  auto clash = [&](uint64_t begin, uint64_t end) {
    return std::any_of(kept.begin(), kept.end(), [&](const auto &range) {
      return begin < range.second && range.first < end;
    });
  };
  auto residentOf = [&](const std::string &name,
                        bool output) -> const Placed * {
    for (size_t i = 0; i < residentPairs.size(); ++i) {
      const auto &[input, updated] = residentPairs[i];
      if ((output ? updated : input) != name)
        continue;
      for (size_t j = 0; j < inputs; ++j)
        if (state.preloaded[j].binding->name() == input)
          return &state.preloaded[j];
    }
    return nullptr;
  };
  // A cache binding is the step's, or (a prefill of one sequence for a
  // step of several slots) one slot's rows of it, the same slot for all.
  bool whole = false, sliced = false;
  auto matches = [&](const Placed &placed, const Placed &mine) {
    if (sameBinding(placed, mine)) {
      whole = true;
      return !sliced;
    }
    std::optional<int64_t> part = slotOf(placed, mine);
    if (!part || whole || (sliced && *part != slot))
      return false;
    sliced = true;
    slot = *part;
    return true;
  };
  auto misplaced = [&](const Placed &placed, const Placed &mine) {
    error = "the prefill program's " + placed.what +
            " is not where, or not as, the decode step keeps it on the chip "
            "(address " +
            std::to_string(mine.binding->address()) + ")";
    return false;
  };
  size_t otherInputs = size_t(other.artifact.inputs_size());
  for (size_t i = 0; i < other.preloaded.size(); ++i) {
    const Placed &placed = other.preloaded[i];
    const Placed *mine =
        i < otherInputs ? residentOf(placed.binding->name(), false) : nullptr;
    if (mine && !matches(placed, *mine))
      return misplaced(placed, *mine);
    if (mine || !placed.layout.vectors || placed.binding->has_host_address())
      continue;
    auto [begin, end] = rowsOf(placed);
    if (clash(begin, end)) {
      error = "the prefill program's " + placed.what + " (SRAM rows " +
              std::to_string(begin) + " to " + std::to_string(end - 1) +
              ") would overwrite the decode step's constants or caches";
      return false;
    }
  }
  for (const Placed &placed : other.outputs) {
    const Placed *mine = residentOf(placed.binding->name(), true);
    if (mine && !matches(placed, *mine))
      return misplaced(placed, *mine);
  }
  // Its writes where it names them: a row, or a scatter's table (whose
  // rows by index the chip model checks against the table as it runs). A
  // cache the prefill updates in place is its to write.
  std::vector<std::pair<uint64_t, uint64_t>> updated;
  for (const auto &pair : residentPairs)
    if (const Placed *mine = residentOf(pair.first, false))
      updated.push_back(rowsOf(*mine));
  for (size_t i = 0; i < other.ops.size(); ++i) {
    const Op &op = other.ops[i];
    bool writes = op.kind == OpClass::MemWrite ||
                  op.kind == OpClass::MemScatter ||
                  (op.kind == OpClass::Dma && op.opcode == hetx::DMA_IN);
    bool intoCache =
        std::any_of(updated.begin(), updated.end(), [&](const auto &range) {
          return op.address >= range.first && op.address < range.second;
        });
    if (writes && !intoCache && clash(op.address, op.address + 1)) {
      error = "the prefill program's instruction #" + std::to_string(i) +
              " writes SRAM row " + std::to_string(op.address) +
              ", which holds the decode step's constants";
      return false;
    }
  }
  return true;
}

bool Session::runCompanion(const LoadedProgram &other,
                           const std::map<std::string, io::Tensor> &inputs,
                           SimResult &result, std::string &error,
                           ExecutionObserver *observer) {
  if (stopped(error))
    return false;
  const LoadedProgram::State &program = *other.state;
  int64_t slot;
  if (!checkCompanion(program, slot, error))
    return false;
  auto onChip = [&](const hetx::TensorBinding &binding) {
    return isResident(binding.name());
  };
  if (!checkInputs(program.artifact, inputs, error, onChip))
    return false;
  for (const auto &[input, output] : residentPairs)
    if (inputs.count(input)) {
      error = "input '" + input +
              "' is the decode step's, which the chip holds; the prefill "
              "program updates it in place";
      return false;
    }
  if (runs == 0)
    start({});
  else
    sram->settle();
  // Its own constants, over whatever this program's runs left there.
  size_t otherInputs = size_t(program.artifact.inputs_size());
  for (int i = 0; i < program.artifact.constants_size(); ++i) {
    const Placed &placed = program.preloaded[otherInputs + size_t(i)];
    std::vector<float> words = decodeConstant(
        program.artifact.constants(i).data(), placed.layout.type);
    sram->preload(*placed.binding, placed.layout, words.data());
  }
  HostMemory host(program.chip.lanes(), /*values=*/true);
  std::vector<float> storage;
  for (size_t i = 0; i < otherInputs; ++i) {
    const Placed &placed = program.preloaded[i];
    if (!isResident(placed.binding->name()))
      preloadInput(placed,
                   laneWords(inputs.at(placed.binding->name()), storage), *sram,
                   host);
  }
  ++runs;
  // Its outputs that update the decode step's caches stay on the chip.
  std::vector<bool> kept;
  for (const Placed &placed : program.outputs)
    kept.push_back(std::any_of(residentPairs.begin(), residentPairs.end(),
                               [&](const auto &pair) {
                                 return pair.second == placed.binding->name();
                               }));
  return execute(program, host, kept, observer, result, error);
}

bool Session::fetch(const std::string &name, io::Tensor &out,
                    std::string &error) const {
  for (int i = 0; i < state.artifact.inputs_size(); ++i) {
    const Placed &placed = state.preloaded[size_t(i)];
    if (placed.binding->name() != name || !residentInput[size_t(i)])
      continue;
    if (!sram) {
      error = "input '" + name + "' has no value yet: no run has started";
      return false;
    }
    return sram->fetch(*placed.binding, placed.layout, out, error);
  }
  error = "input '" + name + "' is not resident";
  return false;
}

bool Session::store(const std::string &name, const io::Tensor &value,
                    std::string &error) {
  for (int i = 0; i < state.artifact.inputs_size(); ++i) {
    const Placed &placed = state.preloaded[size_t(i)];
    if (placed.binding->name() != name || !residentInput[size_t(i)])
      continue;
    if (!sram) {
      error = "input '" + name +
              "' has no place yet: no run has started (give its value to "
              "the first run)";
      return false;
    }
    std::map<std::string, io::Tensor> one{{name, value}};
    if (!checkInputs(
            state.artifact, one, error,
            [&](const hetx::TensorBinding &b) { return b.name() != name; }))
      return false;
    std::vector<float> storage;
    sram->settle();
    sram->preload(*placed.binding, placed.layout, laneWords(value, storage));
    return true;
  }
  error = "input '" + name + "' is not resident";
  return false;
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
