//===- CpuBackend.h - Running an artifact's kernel plan on the host -*- C++
//-*-===//
//
// The CPU backend runs the kernel plan of a .hetx artifact (hetx.proto,
// `KernelPlan`): the same kernels the chip program was made of, in order,
// on host threads, with matrix products through oneDNN's sgemm and the
// convolutions the plan keeps whole through its convolution primitive
// (CpuConvolution.h). It computes
// every element as the chip does (lane words of runtime/sim/DataTypes.h, the
// vector unit's numerics of runtime/sim/TypedMath.h, reductions a vector
// of the chip's lanes at a time); only the order in which a matrix
// product or a convolution adds its terms differs (docs/backends.md,
// "Numerics").
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_CPU_CPUBACKEND_H
#define HETC_RUNTIME_CPU_CPUBACKEND_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/io/Tensor.h"
#include "runtime/plan/Plan.h"
#include "runtime/schema/hetx.pb.h"
#include "runtime/sim/Simulator.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace hetc::cpu {

/// Figures and outputs of one run (wall times).
using CpuStats = plan::RunStats;
using CpuResult = plan::RunResult;

struct CpuArena;

/// A kernel plan checked and made ready to run many times. It refers to
/// the artifact it was loaded from, which must outlive it. Its buffers
/// live in one arena, placed and allocated at load (plan::placeBuffers), so
/// a run allocates nothing and touches no fresh pages; a program therefore
/// serves one run at a time.
class CpuProgram {
public:
  CpuProgram();
  ~CpuProgram();
  CpuProgram(CpuProgram &&) noexcept;
  CpuProgram &operator=(CpuProgram &&) noexcept;
  /// Kernels of the plan; 0 before a successful load().
  size_t kernels() const;
  /// The bytes of the constants, as the backend holds them.
  uint64_t constantBytes() const;
  /// Kernel `i` as errors name it, "kernel #i (node 'name')", and its kind
  /// in lower case ("matmul").
  std::string kernelLabel(size_t i) const;

private:
  std::unique_ptr<plan::Plan> state;
  std::unique_ptr<CpuArena> arena;
  friend bool load(const hetx::Artifact &, const chip::ChipSpec &, CpuProgram &,
                   std::string &);
  friend bool run(const CpuProgram &, const std::map<std::string, io::Tensor> &,
                  CpuResult &, std::string &);
};

/// Checks the kernel plan of `artifact`, compiled for `chip`, and decodes
/// its constants (plan::load: every buffer, kernel and index is checked
/// before anything of its size is allocated). Returns false with `error`
/// naming the buffer or kernel (and its ONNX node) that is wrong, or saying
/// that the artifact has no plan.
bool load(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
          CpuProgram &program, std::string &error);

/// Runs a loaded plan on `inputs` (checked as sim::checkInputs does).
/// An index of a run-time gather or scatter outside its table stops the
/// run with an error naming the node, as on the chip.
bool run(const CpuProgram &program,
         const std::map<std::string, io::Tensor> &inputs, CpuResult &result,
         std::string &error);

} // namespace hetc::cpu

#endif // HETC_RUNTIME_CPU_CPUBACKEND_H
