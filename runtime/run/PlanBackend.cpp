//===- PlanBackend.cpp - The CPU and CUDA backends behind one interface -===//

#include "runtime/run/PlanBackend.h"

#include "runtime/cpu/CpuBackend.h"
#include "runtime/cuda/CudaBackend.h"

namespace hetc::run {

namespace {

/// The CPU and CUDA backends' entry points, by name.
struct CpuEntry {
  using Program = cpu::CpuProgram;
  static constexpr const char *kName = "cpu", *kWhere = "the CPU",
                              *kClock = "wall";
  static bool load(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
                   Program &program, std::string &error) {
    return cpu::load(artifact, chip, program, error);
  }
  static bool run(const Program &program,
                  const std::map<std::string, io::Tensor> &inputs,
                  plan::RunResult &result, std::string &error) {
    return cpu::run(program, inputs, result, error);
  }
};

struct CudaEntry {
  using Program = cuda::CudaProgram;
  static constexpr const char *kName = "cuda", *kWhere = "the GPU",
                              *kClock = "device";
  static bool load(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
                   Program &program, std::string &error) {
    return cuda::load(artifact, chip, program, error);
  }
  static bool run(const Program &program,
                  const std::map<std::string, io::Tensor> &inputs,
                  plan::RunResult &result, std::string &error) {
    return cuda::run(program, inputs, result, error);
  }
};

/// A PlanBackend over one backend's program.
template <typename Entry> class PlanOn : public PlanBackend {
public:
  bool load(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
            std::string &error) {
    return Entry::load(artifact, chip, program, error);
  }
  std::string name() const override { return Entry::kName; }
  std::string where() const override { return Entry::kWhere; }
  std::string clock() const override { return Entry::kClock; }
  uint64_t constantBytes() const override { return program.constantBytes(); }
  std::string kernelLabel(size_t i) const override {
    return program.kernelLabel(i);
  }
  bool run(const std::map<std::string, io::Tensor> &inputs,
           plan::RunResult &result, std::string &error) const override {
    return Entry::run(program, inputs, result, error);
  }

protected:
  typename Entry::Program program;
};

/// The GPU's memory is its own: the KV cache stays there.
class CudaPlan : public PlanOn<CudaEntry> {
public:
  std::string device() const override { return program.device(); }
  bool carry(const std::vector<std::pair<std::string, std::string>> &pairs,
             std::string &error) override {
    return cuda::carry(program, pairs, error);
  }
  void restartCarried() override { cuda::restartCarried(program); }
  bool fetchCarried(std::map<std::string, io::Tensor> &values,
                    std::string &error) const override {
    return cuda::fetchCarried(program, values, error);
  }
};

template <typename Backend>
std::unique_ptr<PlanBackend> loaded(const hetx::Artifact &artifact,
                                    const chip::ChipSpec &chip,
                                    std::string &error) {
  auto backend = std::make_unique<Backend>();
  if (!backend->load(artifact, chip, error))
    return nullptr;
  return backend;
}

} // namespace

std::unique_ptr<PlanBackend> PlanBackend::load(const std::string &name,
                                               const hetx::Artifact &artifact,
                                               const chip::ChipSpec &chip,
                                               std::string &error) {
  if (name == "cpu")
    return loaded<PlanOn<CpuEntry>>(artifact, chip, error);
  if (name == "cuda")
    return loaded<CudaPlan>(artifact, chip, error);
  error = "no backend '" + name + "' runs a kernel plan (cpu, cuda)";
  return nullptr;
}

void listBackends(std::ostream &out) {
  out << "chip: ready (the cycle-accurate chip model: hetc run, hetc "
         "generate)\n";
  out << "cpu: ready (the kernel plan on the host: oneDNN's sgemm and "
         "convolutions, OpenMP threads)\n";
  std::string architectures, why;
  if (!cuda::built(architectures)) {
    cuda::available(why);
    out << "cuda: unavailable (" << why << ")\n";
    return;
  }
  if (!cuda::available(why)) {
    out << "cuda: unavailable (built for sm_" << architectures << "; " << why
        << ")\n";
    return;
  }
  out << "cuda: ready (built for sm_" << architectures
      << "; the kernel plan on the GPU: cuBLAS, hetc's device kernels)\n";
}

} // namespace hetc::run
