//===- SimBench.cpp - Speed of the chip model, full and timing-only ----===//
//
// Usage: hetc-sim-bench MODEL.hetx [--chip FILE] [--input NAME=FILE.npy ...]
//                       [--runs N] [--seed N] [--timing-only]
//        hetc-sim-bench --synthetic INSTRUCTIONS [--chip FILE] [--runs N]
//                       [--timing-only]
// Loads a program into the chip model once (sim::load: decoding and
// checking every instruction and binding), then runs it N times in full
// mode (timing and fp32 values) and N times timing-only, and prints the
// instructions, the load time, and the median wall time of one run and the
// simulated instructions per second of each mode. A run (sim::run) is
// preloading SRAM, executing and reading the outputs, as a session run of
// ONNX Runtime is one inference on a loaded model; the median CPU time of
// a run is printed too, which other processes on a shared machine disturb
// less. Each mode runs once, untimed, before it is timed. --timing-only
// skips the full mode. Without --runs each mode repeats for half a second
// (at least 3 runs). --synthetic builds a valid program of about that many
// instructions (see SyntheticProgram.h) for the chip, tsp-v1 by default.
//
//===----------------------------------------------------------------------===//

#include "bench/sim/SyntheticProgram.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/io/Npy.h"
#include "runtime/run/FileNames.h"
#include "runtime/run/RandomInputs.h"
#include "runtime/run/RunCommand.h"
#include "runtime/sim/DataTypes.h"
#include "runtime/sim/Simulator.h"

#include <google/protobuf/arena.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

using namespace hetc;

namespace {
struct BenchOptions {
  std::string artifactPath;
  std::string chipPath;
  std::map<std::string, std::string> inputs;
  uint64_t synthetic = 0;
  uint64_t runs = 0;
  uint64_t seed = 0;
  bool timingOnly = false;
};

int usage() {
  std::fprintf(stderr,
               "usage: hetc-sim-bench MODEL.hetx [--chip FILE] "
               "[--input NAME=FILE.npy ...] [--runs N] [--seed N] "
               "[--timing-only]\n"
               "       hetc-sim-bench --synthetic INSTRUCTIONS [--chip FILE] "
               "[--runs N] [--timing-only]\n");
  return 2;
}

bool parseArgs(int argc, char **argv, BenchOptions &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool hasValue = i + 1 < argc;
    if (arg == "--chip" && hasValue) {
      options.chipPath = argv[++i];
    } else if (arg == "--input" && hasValue) {
      std::string pair = argv[++i];
      size_t eq = pair.find('=');
      if (eq == std::string::npos || eq == 0)
        return false;
      options.inputs[pair.substr(0, eq)] = pair.substr(eq + 1);
    } else if (arg == "--synthetic" && hasValue) {
      options.synthetic = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--runs" && hasValue) {
      options.runs = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--timing-only") {
      options.timingOnly = true;
    } else if (arg == "--seed" && hasValue) {
      options.seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (!arg.empty() && arg[0] != '-' && options.artifactPath.empty()) {
      options.artifactPath = arg;
    } else {
      return false;
    }
  }
  return options.artifactPath.empty() != (options.synthetic == 0);
}

/// Loads the artifact, its chip and its inputs (given or generated).
bool loadProgram(const BenchOptions &options, chip::ChipSpec &chip,
                 hetx::Artifact &artifact,
                 std::map<std::string, io::Tensor> &inputs,
                 std::string &error) {
  std::string chipPath = options.chipPath;
  if (options.synthetic) {
    if (chipPath.empty())
      chipPath = run::chipsDirectory() + "/tsp-v1.chip";
    return chip::ChipSpec::load(chipPath, chip, error) &&
           bench::buildSyntheticProgram(chip, options.synthetic, artifact,
                                        inputs, error);
  }
  if (!artifact::readFile(options.artifactPath, artifact, error))
    return false;
  if (chipPath.empty())
    chipPath = run::chipsDirectory() + "/" +
               run::sanitizeFileName(artifact.chip().name()) + ".chip";
  if (!chip::ChipSpec::load(chipPath, chip, error))
    return false;
  for (const hetx::TensorBinding &input : artifact.inputs()) {
    auto given = options.inputs.find(input.name());
    if (given == options.inputs.end()) {
      inputs[input.name()] = run::randomTensor(
          input.name(), {input.shape().begin(), input.shape().end()},
          options.seed,
          sim::elementTypeOf(input.dtype()).value_or(io::ElementType::F32));
    } else if (!io::readNpy(given->second, inputs[input.name()], error)) {
      return false;
    }
  }
  return true;
}

/// CPU time of this thread in seconds: on a shared machine, what a run
/// costs without the time other processes held the core.
double cpuTime() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

/// Times runs of one mode and prints its line; false on a simulation error.
bool measure(const char *label, const sim::LoadedProgram &program,
             const std::map<std::string, io::Tensor> &inputs,
             const sim::SimOptions &simOptions, uint64_t runs) {
  using Clock = std::chrono::steady_clock;
  // One run first, untimed, as ONNX Runtime is warmed up before it is
  // timed: it fills the per-thread buffer cache (see BufferCache.h).
  {
    sim::SimResult result;
    std::string error;
    if (!sim::run(program, inputs, simOptions, result, error)) {
      std::fprintf(stderr, "error: %s\n", error.c_str());
      return false;
    }
  }
  std::vector<double> seconds, cpuSeconds;
  double total = 0;
  uint64_t instructions = 0;
  while (runs
             ? seconds.size() < runs
             : (seconds.size() < 3 || total < 0.5) && seconds.size() < 100000) {
    sim::SimResult result;
    std::string error;
    auto start = Clock::now();
    double cpuStart = cpuTime();
    bool ok = sim::run(program, inputs, simOptions, result, error);
    cpuSeconds.push_back(cpuTime() - cpuStart);
    double elapsed =
        std::chrono::duration<double>(Clock::now() - start).count();
    if (!ok) {
      std::fprintf(stderr, "error: %s\n", error.c_str());
      return false;
    }
    instructions = result.stats.instructions;
    seconds.push_back(elapsed);
    total += elapsed;
  }
  std::sort(seconds.begin(), seconds.end());
  std::sort(cpuSeconds.begin(), cpuSeconds.end());
  double median = seconds[seconds.size() / 2];
  std::printf("%s: %zu runs, median %.3f us/run, %.2f M instructions/s "
              "(CPU time %.3f us/run)\n",
              label, seconds.size(), median * 1e6,
              double(instructions) / median / 1e6,
              cpuSeconds[cpuSeconds.size() / 2] * 1e6);
  return true;
}
} // namespace

int main(int argc, char **argv) {
  BenchOptions options;
  if (!parseArgs(argc, argv, options))
    return usage();
  // Millions of instructions build much faster on an arena.
  google::protobuf::Arena arena;
  auto *artifact = google::protobuf::Arena::Create<hetx::Artifact>(&arena);
  chip::ChipSpec chip;
  std::map<std::string, io::Tensor> inputs;
  std::string error;
  if (!loadProgram(options, chip, *artifact, inputs, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  std::printf("program: %s for chip '%s': %d instructions, %llu cycles\n",
              options.synthetic ? "synthetic" : options.artifactPath.c_str(),
              chip.name().c_str(), artifact->instructions_size(),
              static_cast<unsigned long long>(artifact->predicted_cycles()));
  sim::LoadedProgram program;
  auto start = std::chrono::steady_clock::now();
  if (!sim::load(*artifact, chip, program, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  double loadSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("load: %.3f us, %.2f M instructions/s\n", loadSeconds * 1e6,
              double(program.instructions()) / loadSeconds / 1e6);
  sim::SimOptions full, timing;
  timing.timingOnly = true;
  if ((!options.timingOnly &&
       !measure("full", program, inputs, full, options.runs)) ||
      !measure("timing-only", program, inputs, timing, options.runs))
    return 1;
  return 0;
}
