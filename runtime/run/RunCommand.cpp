//===- RunCommand.cpp - The `hetc run` command -------------------------===//

#include "runtime/run/RunCommand.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/chip/ChipSpec.h"
#include "runtime/io/Npy.h"
#include "runtime/io/SafeWrite.h"
#include "runtime/run/FileNames.h"
#include "runtime/run/PlanBackend.h"
#include "runtime/run/RandomInputs.h"
#include "runtime/run/RunSummary.h"
#include "runtime/run/TraceWriter.h"
#include "runtime/sim/DataTypes.h"
#include "runtime/sim/Simulator.h"
#include "runtime/sim/Sram.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <numeric>
#include <set>
#include <sstream>

#include <unistd.h>

namespace hetc::run {

namespace fs = std::filesystem;

std::string chipsDirectory() {
  const char *fromEnv = std::getenv("HETC_CHIPS_DIR");
  if (fromEnv && *fromEnv)
    return fromEnv;
  // The running binary's ../share/hetc/chips, as installed and as the
  // build tree lays it out (bin/ beside share/).
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    return "share/hetc/chips";
  return (exe.parent_path().parent_path() / "share" / "hetc" / "chips")
      .lexically_normal()
      .string();
}

bool loadChipFor(const hetx::Artifact &artifact,
                 const std::string &artifactPath, const std::string &chipPath,
                 chip::ChipSpec &chip, std::string &usedPath,
                 std::string &error) {
  std::string path = chipPath;
  if (path.empty()) {
    if (artifact.chip().name().empty()) {
      error = artifactPath + ": the artifact names no chip; pass a chip file";
      return false;
    }
    path = (fs::path(chipsDirectory()) /
            (sanitizeFileName(artifact.chip().name()) + ".chip"))
               .string();
  }
  if (!chip::ChipSpec::load(path, chip, error))
    return false;
  usedPath = path;
  return true;
}

namespace {

/// Runs one `hetc run`; every step returns false with `error` set.
class Runner {
public:
  Runner(const RunOptions &options, std::ostream &out)
      : options(options), out(out) {}

  bool run(std::string &error) {
    if (!checkOptions(error) ||
        !artifact::readFile(options.artifactPath, artifact, error,
                            isPlanBackend(options.backend)
                                ? artifact::Sections::WithoutInstructions
                                : artifact::Sections::All) ||
        !loadChip(error) || !artifact::checkChipMatch(artifact, chip, error) ||
        !makeOutputDir(error) || !gatherInputs(error) || !openTrace(error))
      return false;
    if (isPlanBackend(options.backend))
      return runPlan(options.backend, error);
    // The chip's time is known before it runs: a deadline it cannot meet
    // goes to the fallback at once.
    if (options.deadlineMs > 0) {
      double ms = double(artifact.predicted_cycles()) / chip.clockMHz() / 1e3;
      std::ostringstream why;
      why << "the chip takes " << ms << " ms (" << artifact.predicted_cycles()
          << " cycles at " << chip.clockMHz() << " MHz), past the deadline of "
          << options.deadlineMs << " ms";
      if (ms > options.deadlineMs)
        return fallBack(why.str(), error);
    }
    if (options.injectFault == "hazard" && !injectHazard(error))
      return false;
    if (runChip(error))
      return true;
    return !options.fallback.empty() &&
           fallBack("the chip run failed: " + error, error);
  }

private:
  bool checkOptions(std::string &error) const {
    bool plan = isPlanBackend(options.backend);
    if (!plan && options.repeat > 1) {
      error = "--repeat applies to --backend cpu and cuda; the chip model's "
              "cycles are the same on every run";
      return false;
    }
    if (plan && (!options.fallback.empty() || options.deadlineMs > 0 ||
                 !options.injectFault.empty() || !options.tracePath.empty())) {
      error = "--fallback, --deadline-ms, --inject-fault and --trace apply "
              "to the chip backend, not to --backend " +
              options.backend;
      return false;
    }
    return true;
  }

  /// Serves the request on the fallback, saying why; without one, fails
  /// with `why`.
  bool fallBack(const std::string &why, std::string &error) {
    if (options.fallback.empty()) {
      error = why;
      return false;
    }
    out << "fallback: " << why << "; serving on " << options.fallback << "\n";
    return runPlan(options.fallback, error, why);
  }

  /// Delays the last instruction that reads a stream by one cycle, where
  /// that keeps the program in cycle order: it then reads after its value
  /// has passed, which the chip model rejects as a hazard.
  bool injectHazard(std::string &error) {
    auto *instructions = artifact.mutable_instructions();
    for (int i = instructions->size(); i-- > 0;) {
      hetx::Instruction &inst = *instructions->Mutable(i);
      bool last = i + 1 == instructions->size();
      if (inst.src_size() == 0 ||
          (!last && instructions->Get(i + 1).cycle() <= inst.cycle()))
        continue;
      inst.set_cycle(inst.cycle() + 1);
      out << "injected fault: instruction #" << i << " issues one cycle late\n";
      return true;
    }
    error = "--inject-fault hazard: the program has no instruction to delay";
    return false;
  }

  /// Runs the kernel plan on backend `name` (cpu, cuda); `why` is the
  /// reason it serves a request meant for the chip, if it does.
  bool runPlan(const std::string &name, std::string &error,
               const std::string &why = "") {
    std::unique_ptr<PlanBackend> program =
        PlanBackend::load(name, artifact, chip, error);
    plan::RunResult result;
    if (!program || !program->run(inputs, result, error) ||
        !writeOutputs(result.outputs, error))
      return false;
    for (unsigned i = 1; i < options.repeat; ++i) {
      plan::RunResult again;
      if (!program->run(inputs, again, error))
        return false;
      if (again.stats.seconds < result.stats.seconds)
        result.stats = again.stats;
    }
    std::ostringstream ms;
    ms << std::fixed << std::setprecision(3) << result.stats.seconds * 1e3;
    out << "backend: " << name << " (" << result.stats.kernels << " kernels"
        << (program->device().empty() ? "" : " on " + program->device())
        << ")\n";
    out << program->clock() << " time: " << ms.str() << " ms"
        << (options.repeat > 1 ? " (the fastest of " +
                                     std::to_string(options.repeat) + " runs)"
                               : std::string())
        << "\n";
    out << "peak buffer memory: " << result.stats.peakBytes << " bytes (and "
        << program->constantBytes() << " bytes of constants)\n";
    // Where the time went, by kind of kernel and by kernel.
    std::map<std::string, double> byKind;
    for (size_t i = 0; i < result.stats.kernelSeconds.size(); ++i) {
      std::string label = program->kernelLabel(i);
      byKind[label.substr(label.rfind(' ') + 1)] +=
          result.stats.kernelSeconds[i];
    }
    std::vector<std::pair<std::string, double>> kinds(byKind.begin(),
                                                      byKind.end());
    std::stable_sort(kinds.begin(), kinds.end(),
                     [](auto &a, auto &b) { return a.second > b.second; });
    out << "time by kind:";
    for (const auto &[kind, seconds] : kinds) {
      std::ostringstream line;
      line << std::fixed << std::setprecision(3) << seconds * 1e3;
      out << (&kind == &kinds.front().first ? " " : ", ") << kind << " "
          << line.str() << " ms";
    }
    out << "\n";
    std::vector<size_t> order(result.stats.kernelSeconds.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return result.stats.kernelSeconds[a] > result.stats.kernelSeconds[b];
    });
    order.resize(std::min<size_t>(order.size(), options.slowest));
    if (!order.empty())
      out << "slowest kernels:\n";
    for (size_t i : order) {
      std::ostringstream line;
      line << std::fixed << std::setprecision(3)
           << result.stats.kernelSeconds[i] * 1e3;
      out << "  " << line.str() << " ms  " << program->kernelLabel(i) << "\n";
    }
    out << "served by: " << name << (why.empty() ? "" : " (" + why + ")")
        << "\n";
    return true;
  }

  bool runChip(std::string &error) {
    sim::SimOptions simOptions;
    if (!options.tracePath.empty())
      simOptions.observer = &recorder;
    sim::SimResult result;
    bool ok =
        sim::simulate(artifact, chip, inputs, simOptions, result, error) &&
        writeOutputs(result.outputs, error) && report(result.stats, error);
    // The trace of a run that stopped at a hazard shows what led to it, so
    // it is written either way; the run's own error comes first.
    std::string traceError;
    if (!options.tracePath.empty() && !finishTrace(traceError) && ok) {
      error = traceError;
      ok = false;
    }
    if (ok)
      out << "served by: chip\n";
    return ok;
  }

  bool loadChip(std::string &error) {
    if (!loadChipFor(artifact, options.artifactPath, options.chipPath, chip,
                     chipPath, error))
      return false;
    out << "artifact: " << options.artifactPath << " (for chip '"
        << artifact.chip().name() << "' revision " << artifact.chip().revision()
        << ")\n";
    out << "chip: " << chipPath << "\n";
    return true;
  }

  /// The files this run reads, which it must never write over.
  std::vector<std::string> inputFiles() const {
    std::vector<std::string> files{options.artifactPath, chipPath};
    for (const auto &[name, path] : options.inputs)
      files.push_back(path);
    return files;
  }

  /// Checks the trace path before the run, so that a bad one fails early:
  /// its folder must exist and be writable, and it must not be an input.
  bool openTrace(std::string &error) {
    if (options.tracePath.empty())
      return true;
    fs::path folder = fs::path(options.tracePath).parent_path();
    if (folder.empty())
      folder = ".";
    if (::access(folder.c_str(), W_OK) != 0) {
      error = options.tracePath + ": cannot write trace file: " +
              std::strerror(errno);
      return false;
    }
    return io::refuseInputAsOutput(options.tracePath, inputFiles(), "--trace",
                                   error);
  }

  /// Writes the trace atomically: a reader never sees half of one.
  bool finishTrace(std::string &error) {
    std::ostringstream trace;
    TraceCounts counts = writeTrace(trace, artifact, chip, recorder.recorded());
    if (!io::writeFileAtomically(options.tracePath, trace.str(), error))
      return false;
    out << "trace: " << counts.events << " events on " << counts.tracks
        << " tracks -> " << options.tracePath << "\n";
    return true;
  }

  bool makeOutputDir(std::string &error) {
    if (options.outputDir.empty())
      return true;
    std::error_code ec;
    fs::create_directories(options.outputDir, ec);
    if (ec) {
      error = options.outputDir +
              ": cannot create output directory: " + ec.message();
      return false;
    }
    return true;
  }

  /// Reads the inputs given as .npy files and generates the others.
  bool gatherInputs(std::string &error) {
    std::string names;
    for (const hetx::TensorBinding &input : artifact.inputs())
      names += (names.empty() ? "'" : ", '") + input.name() + "'";
    for (const auto &[name, path] : options.inputs) {
      auto it = std::find_if(
          artifact.inputs().begin(), artifact.inputs().end(),
          [&](const hetx::TensorBinding &b) { return b.name() == name; });
      if (it == artifact.inputs().end()) {
        error = "--input names '" + name + "' (" + path +
                "), but the artifact has no such input (its inputs: " +
                (names.empty() ? "none" : names) + ")";
        return false;
      }
    }
    std::set<std::string> taken;
    for (const hetx::TensorBinding &input : artifact.inputs()) {
      // The binding is checked against the chip before anything of its
      // size is allocated: a damaged artifact cannot ask for more memory
      // than the chip's SRAM holds.
      sim::BindingLayout layout;
      if (!sim::checkBinding(input, "input '" + input.name() + "'", chip,
                             layout, error))
        return false;
      std::vector<int64_t> shape(input.shape().begin(), input.shape().end());
      io::Tensor tensor;
      auto given = options.inputs.find(input.name());
      if (given != options.inputs.end()) {
        if (!io::readNpy(given->second, tensor, error))
          return false;
        if (tensor.shape != shape) {
          error = "input '" + input.name() + "' from " + given->second +
                  " has shape " + io::shapeString(tensor.shape) +
                  ", but the artifact expects " + io::shapeString(shape);
          return false;
        }
        out << "input '" << input.name() << "': shape "
            << io::shapeString(shape) << ", from " << given->second << "\n";
      } else {
        tensor = randomTensor(input.name(), shape, options.seed,
                              sim::elementTypeOf(input.dtype())
                                  .value_or(io::ElementType::F32));
        out << "input '" << input.name() << "': shape "
            << io::shapeString(shape) << ", generated (seed " << options.seed
            << ")";
        if (!options.outputDir.empty()) {
          fs::path dir = fs::path(options.outputDir) / "inputs";
          std::error_code ec;
          fs::create_directories(dir, ec);
          std::string path =
              (dir / (uniqueFileName(input.name(), taken) + ".npy")).string();
          if (ec || !writeOutput(path, "generated input '" + input.name() + "'",
                                 tensor, error)) {
            if (ec)
              error =
                  dir.string() + ": cannot create directory: " + ec.message();
            return false;
          }
          out << ", saved to " << path;
        }
        out << "\n";
      }
      inputs[input.name()] = std::move(tensor);
    }
    return true;
  }

  /// Writes one .npy file of the run, refusing to write over an input.
  bool writeOutput(const std::string &path, const std::string &what,
                   const io::Tensor &tensor, std::string &error) {
    return io::refuseInputAsOutput(path, inputFiles(), what, error) &&
           io::writeNpy(path, tensor, error);
  }

  bool writeOutputs(const std::vector<sim::NamedTensor> &outputs,
                    std::string &error) {
    std::set<std::string> taken;
    for (const sim::NamedTensor &output : outputs) {
      out << "output '" << output.name << "': shape "
          << io::shapeString(output.tensor.shape);
      if (!options.outputDir.empty()) {
        std::string path = (fs::path(options.outputDir) /
                            (uniqueFileName(output.name, taken) + ".npy"))
                               .string();
        if (!writeOutput(path, "output '" + output.name + "'", output.tensor,
                         error))
          return false;
        out << " -> " << path;
      }
      out << "\n";
    }
    return true;
  }

  bool report(const sim::SimStats &stats, std::string &error) {
    uint64_t predicted = artifact.predicted_cycles();
    out << "instructions: " << artifact.instructions_size() << " ("
        << stats.instructions << " issues)\n";
    out << "simulated cycles: " << stats.cycles << "\n";
    out << "predicted cycles: " << predicted << "\n";
    std::ostringstream time;
    time << std::fixed << std::setprecision(3)
         << double(stats.cycles) / chip.clockMHz();
    out << "time at " << chip.clockMHz() << " MHz: " << time.str() << " us\n";
    out << "busy cycles: vector unit " << stats.vector.cycles
        << busiest(", busiest MEM slice ", stats.slices)
        << busiest(", busiest matrix plane ", stats.planes)
        << (usesAny(stats.switches)
                ? busiest(", busiest switch ", stats.switches)
                : std::string())
        << "\n";
    bool match = predicted == stats.cycles;
    out << "predicted cycles == simulated cycles: " << (match ? "yes" : "no")
        << "\n";
    printUsage(out, stats, chip);
    if (!match)
      error = "the artifact predicts " + std::to_string(predicted) +
              " cycles, but the chip model took " +
              std::to_string(stats.cycles);
    return match;
  }

  static bool usesAny(const std::vector<sim::UnitBusy> &units) {
    for (const sim::UnitBusy &unit : units)
      if (unit.instructions)
        return true;
    return false;
  }

  static std::string busiest(const char *label,
                             const std::vector<sim::UnitBusy> &units) {
    size_t best = 0;
    for (size_t i = 1; i < units.size(); ++i)
      if (units[i].cycles > units[best].cycles)
        best = i;
    if (units.empty())
      return "";
    return label + std::to_string(best) + " " +
           std::to_string(units[best].cycles);
  }

  const RunOptions &options;
  std::ostream &out;
  hetx::Artifact artifact;
  chip::ChipSpec chip;
  std::map<std::string, io::Tensor> inputs;
  std::string chipPath;
  TraceRecorder recorder;
};
} // namespace

int runCommand(const RunOptions &options, std::ostream &out,
               std::ostream &err) {
  std::string error;
  if (Runner(options, out).run(error))
    return 0;
  err << "error: " << error << "\n";
  return 1;
}

} // namespace hetc::run
