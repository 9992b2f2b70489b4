//===- PlanBackend.h - The backends that run a kernel plan ------*- C++ -*-===//
//
// `hetc run` and `hetc generate` run an artifact on the chip model or run
// its kernel plan on another backend: "cpu" (host threads, oneDNN) or
// "cuda" (a GPU, cuBLAS). This is what both commands, the fallback and the
// prefill hand-over see of the latter, whichever it is.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_RUN_PLANBACKEND_H
#define HETC_RUNTIME_RUN_PLANBACKEND_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/io/Tensor.h"
#include "runtime/plan/Plan.h"
#include "runtime/schema/hetx.pb.h"
#include "runtime/sim/Simulator.h"

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace hetc::run {

/// The names `--backend`, `--fallback` and `--prefill-backend` take for a
/// backend other than the chip.
inline bool isPlanBackend(const std::string &name) {
  return name == "cpu" || name == "cuda";
}

/// A kernel plan loaded on one backend. It refers to the artifact it was
/// loaded from, which must outlive it.
class PlanBackend {
public:
  /// Loads `artifact`'s plan on backend `name` ("cpu" or "cuda"); null
  /// with `error` saying why (a bad plan, no GPU, a build without CUDA).
  static std::unique_ptr<PlanBackend> load(const std::string &name,
                                           const hetx::Artifact &artifact,
                                           const chip::ChipSpec &chip,
                                           std::string &error);
  virtual ~PlanBackend() = default;
  /// "cpu" or "cuda".
  virtual std::string name() const = 0;
  /// Where it runs, for sentences: "the CPU", "the GPU".
  virtual std::string where() const = 0;
  /// What its times measure: "wall" (CPU) or "device" (GPU).
  virtual std::string clock() const = 0;
  /// The device, for the summary: "NVIDIA H200 (device 0)"; empty on the
  /// CPU.
  virtual std::string device() const { return std::string(); }
  virtual uint64_t constantBytes() const = 0;
  /// Kernel `i` and its kind: "kernel #3 (node 'x') matmul".
  virtual std::string kernelLabel(size_t i) const = 0;
  /// Runs the plan on `inputs`; the outputs come in binding order, but
  /// for those carried (carry()); the times are wall times on the CPU,
  /// device times on the GPU.
  virtual bool run(const std::map<std::string, io::Tensor> &inputs,
                   plan::RunResult &result, std::string &error) const = 0;
  /// Keeps the outputs of `pairs` (input, output) in the backend's memory
  /// from run to run as the next run's inputs, where it has memory of its
  /// own (the GPU's): a decode step's KV cache then never crosses to the
  /// host. A run after one that left them takes those inputs from there,
  /// ignoring its `inputs`' values, and leaves the outputs out. The CPU
  /// backend's memory is the host's: it carries nothing, and its runs
  /// return every output.
  virtual bool carry(const std::vector<std::pair<std::string, std::string>> &,
                     std::string &) {
    return true;
  }
  /// Forgets the carried values: the next run takes all its inputs from
  /// `inputs` (a replay from the first step).
  virtual void restartCarried() {}
  /// Copies the carried values into `values` under their input names, for
  /// a hand-over to the chip.
  virtual bool fetchCarried(std::map<std::string, io::Tensor> &,
                            std::string &) const {
    return true;
  }
};

/// Lists the backends, one line each, saying whether it can run here:
/// "chip: ready (...)", "cpu: ready (...)", "cuda: ready (NVIDIA H200
/// (device 0); built for sm_90)" or "cuda: unavailable (why)". For
/// `hetc backends`, and for test suites that need a GPU.
void listBackends(std::ostream &out);

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_PLANBACKEND_H
