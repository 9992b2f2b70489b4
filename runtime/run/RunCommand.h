//===- RunCommand.h - The `hetc run` command --------------------*- C++ -*-===//
//
// Loads a .hetx artifact and its chip file, reads or generates the inputs,
// runs the program on the chip model (or its kernel plan on the CPU, or on
// the CPU when the chip run fails or would miss its deadline), writes the
// outputs as .npy files and prints a summary: on the chip the simulated
// and predicted cycles, unit utilisation and the SRAM high-water mark, and
// optionally a trace; on the CPU the wall time.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_RUN_RUNCOMMAND_H
#define HETC_RUNTIME_RUN_RUNCOMMAND_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/schema/hetx.pb.h"

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

namespace hetc::run {

/// What `hetc run` was asked to do.
struct RunOptions {
  /// The .hetx file to run.
  std::string artifactPath;
  /// The chip file; empty means "<chips dir>/<artifact chip name>.chip".
  std::string chipPath;
  /// Input name -> .npy file. Inputs not named here are generated.
  std::map<std::string, std::string> inputs;
  /// Where outputs go as <name>.npy and generated inputs as
  /// inputs/<name>.npy; empty writes no files.
  std::string outputDir;
  /// Seed of the generator for inputs not given.
  uint64_t seed = 0;
  /// Where to write a Chrome trace-event JSON of the run; empty writes
  /// none. Written also when the run stops at a hazard.
  std::string tracePath;
  /// "chip" (the chip model) or "cpu" (the kernel plan on the host).
  std::string backend = "chip";
  /// A backend ("cpu") that serves the request when the chip run fails or
  /// cannot meet `deadlineMs`; empty for none.
  std::string fallback;
  /// The chip run's deadline in milliseconds at the chip's clock; 0 for
  /// none.
  double deadlineMs = 0;
  /// --backend cpu: runs of the program; the summary gives the fastest
  /// (the first warms the caches and oneDNN's generated code).
  unsigned repeat = 1;
  /// --backend cpu or cuda: how many of the slowest kernels the summary
  /// lists.
  unsigned slowest = 3;
  /// Testing: a fault to inject into the chip run ("hazard": one
  /// instruction issues a cycle late, which the chip model rejects).
  std::string injectFault;
};

/// The directory of the bundled chip files: $HETC_CHIPS_DIR when set, else
/// share/hetc/chips beside the running binary's folder (bin/../share/hetc/
/// chips, where both the build tree and an install put them).
std::string chipsDirectory();

/// Loads the chip `artifact` runs on: `chipPath`, or when it is empty the
/// bundled file named after the artifact's chip; sets `usedPath`. On
/// failure `error` names the file (`artifactPath` when it names no chip).
bool loadChipFor(const hetx::Artifact &artifact,
                 const std::string &artifactPath, const std::string &chipPath,
                 chip::ChipSpec &chip, std::string &usedPath,
                 std::string &error);

/// Runs `options`, printing the summary to `out` and any error to `err`.
/// Returns 0 on success and 1 on any error, including a simulated cycle
/// count that differs from the artifact's prediction.
int runCommand(const RunOptions &options, std::ostream &out, std::ostream &err);

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_RUNCOMMAND_H
