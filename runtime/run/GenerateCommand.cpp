//===- GenerateCommand.cpp - The `hetc generate` command ---------------===//

#include "runtime/run/GenerateCommand.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/cpu/CpuBackend.h"
#include "runtime/run/RunCommand.h"
#include "runtime/sim/DataTypes.h"
#include "runtime/sim/Simulator.h"
#include "runtime/sim/Sram.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <iomanip>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

namespace hetc::run {

namespace {

/// The output a `past*` input's next value comes from: `present*` for
/// `past*`, and `present.*` for Hugging Face's `past_key_values.*`.
std::string presentNameOf(const std::string &input) {
  const std::string hf = "past_key_values";
  if (input.rfind(hf, 0) == 0)
    return "present" + input.substr(hf.size());
  if (input.rfind("past", 0) == 0)
    return "present" + input.substr(4);
  return "";
}

const hetx::TensorBinding *findBinding(
    const google::protobuf::RepeatedPtrField<hetx::TensorBinding> &bindings,
    const std::string &name) {
  for (const hetx::TensorBinding &b : bindings)
    if (b.name() == name)
      return &b;
  return nullptr;
}

std::string namesOf(
    const google::protobuf::RepeatedPtrField<hetx::TensorBinding> &bindings) {
  std::string names;
  for (const hetx::TensorBinding &b : bindings)
    names += (names.empty() ? "'" : ", '") + b.name() + "'";
  return names.empty() ? "none" : names;
}

uint64_t elementsOf(const hetx::TensorBinding &binding) {
  uint64_t count = 1;
  for (int64_t d : binding.shape())
    count *= uint64_t(d);
  return count;
}

bool isIntegerBinding(const hetx::TensorBinding &binding) {
  std::optional<io::ElementType> type = sim::elementTypeOf(binding.dtype());
  return type && !io::isFloat(*type) && *type != io::ElementType::Bool;
}

/// A one-element integer tensor of `binding`'s shape and type.
io::Tensor scalarTensor(const hetx::TensorBinding &binding, int64_t value) {
  io::Tensor t;
  t.shape.assign(binding.shape().begin(), binding.shape().end());
  t.type = sim::elementTypeOf(binding.dtype()).value_or(io::ElementType::I64);
  t.ints.assign(1, int32_t(value));
  return t;
}

/// A tensor of zeros of `binding`'s shape and type.
io::Tensor zerosLike(const hetx::TensorBinding &binding) {
  io::Tensor t;
  t.shape.assign(binding.shape().begin(), binding.shape().end());
  t.type = sim::elementTypeOf(binding.dtype()).value_or(io::ElementType::F32);
  if (io::isFloat(t.type))
    t.data.assign(elementsOf(binding), 0.0f);
  else
    t.ints.assign(elementsOf(binding), 0);
  return t;
}

/// What one step gave: its outputs, and its cycles on the chip model or
/// its wall time on the CPU.
struct StepResult {
  std::vector<sim::NamedTensor> outputs;
  uint64_t cycles = 0;
  double seconds = 0;
};

/// Runs one generation; every step returns false with `error` set.
class Generator {
public:
  Generator(const GenerateOptions &options, std::ostream &out)
      : options(options), out(out), random(options.seed) {}

  bool run(std::string &error) {
    if (!checkOptions(error) ||
        !artifact::readFile(options.artifactPath, artifact, error) ||
        !loadChipFor(artifact, options.artifactPath, options.chipPath, chip,
                     chipPath, error) ||
        !artifact::checkChipMatch(artifact, chip, error) ||
        !findBindings(error))
      return false;
    bool cpu = options.backend == "cpu";
    bool prefillCpu = options.prefillBackend == "cpu";
    bool fallback = options.fallback == "cpu";
    if (((cpu || prefillCpu || fallback) &&
         !cpu::load(artifact, chip, cpuProgram, error)) ||
        (!cpu && !sim::load(artifact, chip, program, error)))
      return false;
    // A cache the step updates in place stays on the chip from step to
    // step (the session's resident inputs); any other goes through the
    // host, from the step's output to the next step's input. On the CPU
    // every cache is in host memory.
    size_t onChip = 0;
    if (!cpu) {
      session = std::make_unique<sim::Session>(program);
      for (const auto &[past, present] : states)
        if (session->isResident(past)) {
          // After a prefill on the CPU, the first step on the chip takes
          // the caches the CPU left as the resident inputs' values.
          if (!prefillCpu)
            inputs.erase(past);
          resident.push_back(past);
          ++onChip;
        }
    }
    uint64_t predicted = artifact.predicted_cycles();
    out << "artifact: " << options.artifactPath << " (for chip '"
        << artifact.chip().name() << "')\n";
    out << "chip: " << chipPath << "\n";
    out << "prompt: " << options.promptIds.size()
        << (options.promptIds.size() == 1 ? " token" : " tokens")
        << "; one step: " << predicted << " cycles predicted\n";
    out << "KV cache: " << states.size() << " tensor"
        << (states.size() == 1 ? "" : "s");
    if (states.empty())
      out << "\n";
    else if (cpu)
      out << ", carried in host memory from step to step (--backend cpu)\n";
    else if (onChip == states.size())
      out << ", kept on the chip from step to step (updated in place)"
          << (prefillCpu ? ", handed over after the prompt's steps on the CPU"
                         : "")
          << "\n";
    else
      out << ", " << onChip << " kept on the chip, " << states.size() - onChip
          << " carried through the host (the step does not update them "
             "in place in SRAM)\n";
    out << "tokens:" << std::flush;
    std::vector<uint64_t> cycles;
    std::vector<double> seconds;
    int64_t generated = 0;
    int64_t next = options.promptIds.front();
    for (int64_t position = 0;; ++position) {
      bool prompt = position < int64_t(options.promptIds.size());
      int64_t token = prompt ? options.promptIds[size_t(position)] : next;
      bool onCpu = cpu || (prefillCpu && prompt) || fellBack;
      StepResult result;
      fed.push_back(token);
      bool ok;
      if (!onCpu && position == options.injectFaultStep) {
        error = "step " + std::to_string(position) +
                ": injected fault (--inject-fault-at-step)";
        ok = false;
      } else {
        ok = step(token, position, onCpu, result, error);
      }
      if (!ok && !onCpu && fallback) {
        // The chip failed: the CPU rebuilds the caches from the tokens fed
        // so far, runs this step, and serves the rest.
        fellBack = true;
        fallbackStep = position;
        fallbackNote = "fallback: step " + std::to_string(position) +
                       " failed on the chip (" + error +
                       "); the CPU rebuilt the caches from the " +
                       std::to_string(position) +
                       " tokens before it and served the rest";
        error.clear();
        onCpu = true;
        ok = replay(position, error) &&
             step(token, position, true, result, error);
      }
      if (ok && prefillCpu && !onCpu && !handedOver) {
        // The caches moved to the chip with the first step there; from
        // now on they stay.
        for (const std::string &past : resident)
          inputs.erase(past);
        handedOver = true;
      }
      if (ok && !onCpu && result.cycles != predicted) {
        error = "step " + std::to_string(position) + " took " +
                std::to_string(result.cycles) +
                " cycles, but the artifact predicts " +
                std::to_string(predicted);
        ok = false;
      }
      if (ok && position + 1 >= int64_t(options.promptIds.size()))
        ok = pick(result, next, error);
      if (!ok) {
        out << "\n"; // ends the line of tokens
        return false;
      }
      cycles.push_back(result.cycles);
      seconds.push_back(result.seconds);
      if (position + 1 < int64_t(options.promptIds.size()))
        continue;
      out << " " << next << std::flush;
      ++generated;
      if (generated >= options.maxNewTokens || isStop(next))
        break;
    }
    out << "\n";
    if (fellBack)
      reportFallback(seconds, generated);
    else if (cpu)
      reportCpu(seconds, generated);
    else if (prefillCpu)
      reportPrefill(cycles, seconds, generated);
    else
      report(cycles, generated);
    return true;
  }

private:
  bool isStop(int64_t id) const {
    return std::find(options.stopIds.begin(), options.stopIds.end(), id) !=
           options.stopIds.end();
  }

  bool checkOptions(std::string &error) const {
    if (options.promptIds.empty())
      error = "--prompt-ids needs at least one token id";
    else if (options.maxNewTokens < 1)
      error = "--max-new-tokens must be 1 or more, got " +
              std::to_string(options.maxNewTokens);
    else if (!(options.temperature >= 0.0) ||
             !std::isfinite(options.temperature))
      error = "--temperature must be 0 (greedy) or more";
    else if (options.topK < 0)
      error = "--top-k must be 0 (all tokens) or more";
    else if (!(options.topP > 0.0 && options.topP <= 1.0))
      error = "--top-p must be in (0, 1]";
    else if (!options.fallback.empty() &&
             (options.fallback != "cpu" || options.backend != "chip"))
      error = "--fallback cpu serves the steps the chip fails: it needs "
              "--backend chip";
    else if (options.injectFaultStep >= 0 && options.backend != "chip")
      error = "--inject-fault-at-step makes a chip step fail: it needs "
              "--backend chip";
    else if (options.backend != "chip" && options.backend != "cpu")
      error = "--backend must be chip or cpu, not '" + options.backend + "'";
    else if (!options.prefillBackend.empty() &&
             (options.prefillBackend != "cpu" || options.backend != "chip"))
      error = "--prefill-backend cpu runs the prompt on the CPU and the "
              "decode on the chip: it needs --backend chip";
    else if (options.tokenInput == options.positionInput)
      error = "--token-input and --position-input name the same input '" +
              options.tokenInput + "'";
    for (int64_t id : options.promptIds)
      if (error.empty() && (id < 0 || id > INT32_MAX))
        error = "prompt token id " + std::to_string(id) +
                " is not a token id (0 to 2^31 - 1)";
    return error.empty();
  }

  /// Finds the token, position and logits bindings and pairs every other
  /// input with the output that gives its next value.
  bool findBindings(std::string &error) {
    token = findBinding(artifact.inputs(), options.tokenInput);
    position = findBinding(artifact.inputs(), options.positionInput);
    logits = findBinding(artifact.outputs(), options.logitsOutput);
    auto missing = [&](const char *what, const std::string &name,
                       const char *flag, bool input) {
      error = options.artifactPath + ": the step has no " + what + " '" + name +
              "' (" + flag + "; its " + (input ? "inputs" : "outputs") + ": " +
              namesOf(input ? artifact.inputs() : artifact.outputs()) + ")";
      return false;
    };
    if (!token)
      return missing("token-id input", options.tokenInput, "--token-input",
                     true);
    if (!position)
      return missing("position input", options.positionInput,
                     "--position-input", true);
    if (!logits)
      return missing("logits output", options.logitsOutput, "--logits-output",
                     false);
    for (const hetx::TensorBinding *b : {token, position})
      if (!isIntegerBinding(*b) || elementsOf(*b) != 1) {
        error = options.artifactPath + ": input '" + b->name() +
                "' must be one integer (one sequence, one token a step); "
                "batch slots are not supported yet";
        return false;
      }
    std::optional<io::ElementType> logitsType =
        sim::elementTypeOf(logits->dtype());
    if (!logitsType || !io::isFloat(*logitsType) || logits->shape_size() == 0 ||
        elementsOf(*logits) !=
            uint64_t(logits->shape().Get(logits->shape_size() - 1))) {
      error = options.artifactPath + ": output '" + logits->name() +
              "' must be the floating-point logits of one token (its last "
              "dimension the vocabulary)";
      return false;
    }
    for (const hetx::TensorBinding &input : artifact.inputs()) {
      if (&input == token || &input == position)
        continue;
      std::string present = presentNameOf(input.name());
      const hetx::TensorBinding *output =
          present.empty() ? nullptr : findBinding(artifact.outputs(), present);
      if (!output ||
          !std::equal(input.shape().begin(), input.shape().end(),
                      output->shape().begin(), output->shape().end()) ||
          input.dtype() != output->dtype()) {
        error = options.artifactPath + ": input '" + input.name() +
                "' is neither the token, the position nor a cache that an "
                "output gives back (an input past* with an output present* "
                "of its shape and type)";
        return false;
      }
      states.push_back({input.name(), present});
      inputs[input.name()] = zerosLike(input);
    }
    return true;
  }

  bool step(int64_t id, int64_t at, bool onCpu, StepResult &result,
            std::string &error) {
    inputs[token->name()] = scalarTensor(*token, id);
    inputs[position->name()] = scalarTensor(*position, at);
    lastStep = at;
    bool ok;
    if (!onCpu) {
      sim::SimResult simulated;
      ok = session->step(inputs, simulated, error);
      result.outputs = std::move(simulated.outputs);
      result.cycles = simulated.stats.cycles;
    } else {
      cpu::CpuResult ran;
      ok = cpu::run(cpuProgram, inputs, ran, error);
      result.outputs = std::move(ran.outputs);
      result.seconds = ran.stats.seconds;
    }
    if (!ok) {
      error = "step " + std::to_string(at) + " (token " + std::to_string(id) +
              "): " + error;
      return false;
    }
    for (sim::NamedTensor &output : result.outputs)
      for (const auto &[past, present] : states)
        if (output.name == present)
          inputs[past] = output.tensor;
    return true;
  }

  /// The next token: the most likely, or drawn from the tempered softmax
  /// of the candidates top-k and top-p keep.
  bool pick(const StepResult &result, int64_t &next, std::string &error) {
    const io::Tensor *scores = nullptr;
    for (const sim::NamedTensor &output : result.outputs)
      if (output.name == logits->name())
        scores = &output.tensor;
    if (!scores || scores->data.empty()) {
      error = "the step gave no logits";
      return false;
    }
    const std::vector<float> &v = scores->data;
    if (std::any_of(v.begin(), v.end(),
                    [](float x) { return !std::isfinite(x); })) {
      error = "the logits of step " + std::to_string(lastStep) +
              " are not all finite; no token can be picked";
      return false;
    }
    std::vector<size_t> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    // Most likely first; ties to the lower id, as argmax does.
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return v[a] > v[b]; });
    if (options.temperature == 0.0) {
      next = int64_t(order.front());
      return true;
    }
    size_t keep = options.topK > 0
                      ? std::min(order.size(), size_t(options.topK))
                      : order.size();
    std::vector<double> p(keep);
    double sum = 0.0;
    for (size_t i = 0; i < keep; ++i)
      sum += p[i] =
          std::exp(double(v[order[i]] - v[order[0]]) / options.temperature);
    double mass = 0.0;
    size_t kept = 0;
    while (kept < keep && (kept == 0 || mass < options.topP * sum))
      mass += p[kept++];
    std::uniform_real_distribution<double> uniform(0.0, mass);
    double draw = uniform(random);
    for (size_t i = 0; i < kept; ++i) {
      draw -= p[i];
      if (draw < 0.0 || i + 1 == kept) {
        next = int64_t(order[i]);
        return true;
      }
    }
    return true;
  }

  void report(const std::vector<uint64_t> &cycles, int64_t generated) {
    uint64_t predicted = artifact.predicted_cycles();
    size_t promptSteps = options.promptIds.size();
    uint64_t ttft = 0;
    for (size_t i = 0; i < promptSteps; ++i)
      ttft += cycles[i];
    out << "generated: " << generated << " tokens in " << cycles.size()
        << " steps\n";
    out << "time to first token: predicted " << predicted * promptSteps
        << " cycles (" << us(predicted * promptSteps) << "), simulated " << ttft
        << " cycles\n";
    out << "inter-token latency: predicted " << predicted << " cycles ("
        << us(predicted) << "), simulated " << cycles.back()
        << " cycles, the same at every step\n";
    std::ostringstream rate;
    rate << std::fixed << std::setprecision(1)
         << chip.clockMHz() * 1e6 / double(predicted);
    out << "tokens per second at " << chip.clockMHz() << " MHz: " << rate.str()
        << "\n";
  }

  /// The CPU's wall times: the prompt's steps to the first token, and the
  /// median of the steps after it; the chip's exact figures for
  /// comparison.
  void reportCpu(const std::vector<double> &seconds, int64_t generated) {
    size_t promptSteps = options.promptIds.size();
    double ttft = 0;
    for (size_t i = 0; i < promptSteps; ++i)
      ttft += seconds[i];
    std::vector<double> later(seconds.begin() + long(promptSteps),
                              seconds.end());
    if (later.empty())
      later.push_back(seconds.back());
    std::sort(later.begin(), later.end());
    double itl = later[later.size() / 2];
    out << "generated: " << generated << " tokens in " << seconds.size()
        << " steps on the CPU\n";
    out << "time to first token: " << ms(ttft)
        << " wall (the chip: " << artifact.predicted_cycles() * promptSteps
        << " cycles)\n";
    out << "inter-token latency: " << ms(itl)
        << " wall, the median of the steps after the prompt (the chip: "
        << artifact.predicted_cycles() << " cycles)\n";
    std::ostringstream rate;
    rate << std::fixed << std::setprecision(1) << 1.0 / itl;
    out << "tokens per second on the CPU: " << rate.str() << "\n";
  }

  /// The bytes and chip cycles of moving the resident caches from host
  /// memory into SRAM over the chip's DMA engines, as DMA_IN moves a
  /// vector (docs/isa.md): the engines' latency once, then each vector at
  /// the engines' rate, the engines working side by side.
  std::pair<uint64_t, uint64_t> handOver() const {
    uint64_t bytes = 0, vectors = 0;
    for (const std::string &name : resident) {
      const hetx::TensorBinding *b = findBinding(artifact.inputs(), name);
      sim::BindingLayout layout;
      std::string ignored;
      if (!b || !sim::checkBinding(*b, name, chip, layout, ignored))
        continue;
      vectors += layout.vectors;
      bytes += layout.elements * sim::sramLaneBytes(layout.type);
    }
    uint64_t engines = std::max<uint64_t>(chip.proto().dma().engines(), 1);
    uint64_t cycles =
        chip.proto().dma().latency() +
        (vectors + engines - 1) / engines * chip.dmaCyclesPerVector();
    return {bytes, cycles};
  }

  /// Runs the tokens fed before position `upTo` through the CPU from zero
  /// caches, leaving the caches in host memory as a chip that had not
  /// failed would hold them.
  bool replay(int64_t upTo, std::string &error) {
    for (const auto &[past, present] : states)
      inputs[past] = zerosLike(*findBinding(artifact.inputs(), past));
    session.reset();
    for (int64_t q = 0; q < upTo; ++q) {
      StepResult ignored;
      if (!step(fed[size_t(q)], q, true, ignored, error))
        return false;
    }
    return true;
  }

  /// The steps before the failure on the chip, the rest on the CPU (the
  /// median wall time of its steps, the replay not counted).
  void reportFallback(const std::vector<double> &seconds, int64_t generated) {
    out << fallbackNote << "\n";
    out << "generated: " << generated << " tokens in " << seconds.size()
        << " steps (" << fallbackStep << " on the chip, "
        << int64_t(seconds.size()) - fallbackStep << " on the CPU)\n";
    std::vector<double> after(seconds.begin() + long(fallbackStep),
                              seconds.end());
    std::sort(after.begin(), after.end());
    out << "step latency on the CPU: " << ms(after[after.size() / 2])
        << " wall, the median (the chip: " << artifact.predicted_cycles()
        << " cycles)\n";
  }

  /// The prompt on the CPU, the hand-over, then the chip's exact steps.
  void reportPrefill(const std::vector<uint64_t> &cycles,
                     const std::vector<double> &seconds, int64_t generated) {
    size_t promptSteps = options.promptIds.size();
    double prefill = 0;
    for (size_t i = 0; i < promptSteps; ++i)
      prefill += seconds[i];
    auto [bytes, moved] = handOver();
    uint64_t predicted = artifact.predicted_cycles();
    out << "generated: " << generated << " tokens in " << cycles.size()
        << " steps (" << promptSteps << " on the CPU, "
        << cycles.size() - promptSteps << " on the chip)\n";
    out << "time to first token: " << ms(prefill)
        << " wall, the prompt's steps on the CPU\n";
    out << "hand-over: " << resident.size() << " cache tensors, " << bytes
        << " bytes, into the chip's SRAM over its DMA engines: " << moved
        << " cycles (" << us(moved)
        << "), before the first step on the "
           "chip\n";
    if (cycles.size() > promptSteps)
      out << "inter-token latency: predicted " << predicted << " cycles ("
          << us(predicted) << "), simulated " << cycles.back()
          << " cycles, the same at every step on the chip\n";
  }

  /// `cycles` as microseconds at the chip's clock, and `seconds` as
  /// milliseconds, as the reports print them.
  std::string us(uint64_t cycles) const {
    std::ostringstream text;
    text << std::fixed << std::setprecision(3)
         << double(cycles) / chip.clockMHz() << " us";
    return text.str();
  }
  static std::string ms(double seconds) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(3) << seconds * 1e3 << " ms";
    return text.str();
  }

  const GenerateOptions &options;
  std::ostream &out;
  hetx::Artifact artifact;
  chip::ChipSpec chip;
  std::string chipPath;
  sim::LoadedProgram program;
  std::unique_ptr<sim::Session> session;
  cpu::CpuProgram cpuProgram;
  /// The caches the chip keeps resident, and whether a prefill on the CPU
  /// has handed them over.
  std::vector<std::string> resident;
  bool handedOver = false;
  /// The token fed at each position so far; whether the CPU took over
  /// from a failed chip step, and what happened.
  std::vector<int64_t> fed;
  bool fellBack = false;
  int64_t fallbackStep = 0;
  std::string fallbackNote;
  const hetx::TensorBinding *token = nullptr, *position = nullptr,
                            *logits = nullptr;
  /// (input, output) of each cache carried from step to step.
  std::vector<std::pair<std::string, std::string>> states;
  std::map<std::string, io::Tensor> inputs;
  std::mt19937_64 random;
  /// The position of the step run last.
  int64_t lastStep = 0;
};

} // namespace

int generateCommand(const GenerateOptions &options, std::ostream &out,
                    std::ostream &err) {
  std::string error;
  if (Generator(options, out).run(error))
    return 0;
  err << "error: " << error << "\n";
  return 1;
}

} // namespace hetc::run
