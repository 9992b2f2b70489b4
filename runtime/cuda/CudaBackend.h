//===- CudaBackend.h - Running an artifact's kernel plan on a GPU -*- C++
//-*-===//
//
// The CUDA backend runs the kernel plan of a .hetx artifact (plan::Plan)
// on an NVIDIA GPU: matrix products through cuBLAS (fp32, without TF32),
// every other kernel as a device kernel that computes each element as the
// chip model does (runtime/cuda/CudaKernels.cu). Its memory is planned
// once, at load: the constants are uploaded, and every buffer gets a place
// in one device arena, shared with the buffers whose lifetimes do not
// overlap, so a run allocates nothing. This header needs no CUDA header;
// where hetc was built without the CUDA toolkit, load() says so.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_CUDA_CUDABACKEND_H
#define HETC_RUNTIME_CUDA_CUDABACKEND_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/io/Tensor.h"
#include "runtime/plan/Plan.h"
#include "runtime/schema/hetx.pb.h"
#include "runtime/sim/Simulator.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace hetc::cuda {

/// Figures and outputs of one run: device times, and the bytes of the
/// device arena as the peak.
using CudaStats = plan::RunStats;
using CudaResult = plan::RunResult;

/// A kernel plan checked, uploaded and made ready to run many times. It
/// refers to the artifact it was loaded from, which must outlive it.
class CudaProgram {
public:
  CudaProgram();
  ~CudaProgram();
  CudaProgram(CudaProgram &&) noexcept;
  CudaProgram &operator=(CudaProgram &&) noexcept;
  /// Kernels of the plan; 0 before a successful load().
  size_t kernels() const;
  /// The bytes of the constants on the device.
  uint64_t constantBytes() const;
  /// Kernel `i` as errors name it and its kind ("kernel #3 (node 'x')
  /// matmul").
  std::string kernelLabel(size_t i) const;
  /// The device, as "NVIDIA H200 (device 0)".
  std::string device() const;
  struct State;

private:
  std::unique_ptr<State> state;
  friend bool load(const hetx::Artifact &, const chip::ChipSpec &,
                   CudaProgram &, std::string &);
  friend bool run(const CudaProgram &,
                  const std::map<std::string, io::Tensor> &, CudaResult &,
                  std::string &);
  friend bool carry(CudaProgram &,
                    const std::vector<std::pair<std::string, std::string>> &,
                    std::string &);
  friend void restartCarried(CudaProgram &);
  friend bool fetchCarried(const CudaProgram &,
                           std::map<std::string, io::Tensor> &, std::string &);
};

/// Whether this hetc was built with the CUDA backend; `architectures`
/// then lists the GPU architectures its device code is built for
/// (CMAKE_CUDA_ARCHITECTURES, as "90").
bool built(std::string &architectures);

/// Whether this hetc has the CUDA backend and a CUDA device to run it on;
/// if not, `why` says which is missing.
bool available(std::string &why);

/// Checks the kernel plan of `artifact` (plan::load), refuses a kernel the
/// device kernels do not compute (naming it: an 8- or 4-bit float result,
/// a broadcast or transpose of more than eight dimensions that cannot be
/// merged), uploads the constants and places every buffer in the device
/// arena. Returns false with `error` saying what is wrong: the plan, the
/// kernel, no device, or a CUDA call that failed.
bool load(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
          CudaProgram &program, std::string &error);

/// Runs a loaded plan on `inputs` (checked as sim::checkInputs does). An
/// index of a run-time gather or scatter outside its table fails the run
/// with an error naming the node, as on the chip.
bool run(const CudaProgram &program,
         const std::map<std::string, io::Tensor> &inputs, CudaResult &result,
         std::string &error);

/// Keeps outputs in device memory from run to run as inputs of the next
/// run, as a decode step's KV cache: `pairs` holds (input, output) names,
/// each output of the input's shape and type. Every run leaves those
/// outputs out of its outputs and keeps them on the device; a run after
/// one that kept them takes each such input from there instead of from its
/// inputs (the first run after carry() or restartCarried() takes them from
/// its inputs). False with `error` naming a pair that does not fit.
bool carry(CudaProgram &program,
           const std::vector<std::pair<std::string, std::string>> &pairs,
           std::string &error);

/// Forgets the carried values: the next run takes every input from its
/// inputs again (a replay from the start).
void restartCarried(CudaProgram &program);

/// Copies the carried values, where a run left them, into `values` under
/// their input names (to hand the caches over to another backend).
bool fetchCarried(const CudaProgram &program,
                  std::map<std::string, io::Tensor> &values,
                  std::string &error);

} // namespace hetc::cuda

#endif // HETC_RUNTIME_CUDA_CUDABACKEND_H
