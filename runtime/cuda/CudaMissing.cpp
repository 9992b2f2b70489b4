//===- CudaMissing.cpp - The CUDA backend of a build without CUDA ------===//
//
// Linked where hetc was configured without the CUDA toolkit (no nvcc, or
// -DHETC_CUDA=OFF): every entry point says so, so that `--backend cuda`
// fails with that reason instead of being an unknown option.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/CudaBackend.h"

namespace hetc::cuda {

struct CudaProgram::State {};

CudaProgram::CudaProgram() = default;
CudaProgram::~CudaProgram() = default;
CudaProgram::CudaProgram(CudaProgram &&) noexcept = default;
CudaProgram &CudaProgram::operator=(CudaProgram &&) noexcept = default;
size_t CudaProgram::kernels() const { return 0; }
uint64_t CudaProgram::constantBytes() const { return 0; }
std::string CudaProgram::kernelLabel(size_t) const { return std::string(); }
std::string CudaProgram::device() const { return std::string(); }

bool built(std::string &architectures) {
  architectures.clear();
  return false;
}

bool available(std::string &why) {
  why = "this hetc was built without the CUDA backend: the CUDA toolkit "
        "(nvcc) was not found when it was configured, or HETC_CUDA was OFF";
  return false;
}

bool load(const hetx::Artifact &, const chip::ChipSpec &, CudaProgram &,
          std::string &error) {
  available(error);
  return false;
}

bool run(const CudaProgram &, const std::map<std::string, io::Tensor> &,
         CudaResult &, std::string &error) {
  available(error);
  return false;
}

bool carry(CudaProgram &,
           const std::vector<std::pair<std::string, std::string>> &,
           std::string &error) {
  available(error);
  return false;
}

void restartCarried(CudaProgram &) {}

bool fetchCarried(const CudaProgram &, std::map<std::string, io::Tensor> &,
                  std::string &error) {
  available(error);
  return false;
}

} // namespace hetc::cuda
