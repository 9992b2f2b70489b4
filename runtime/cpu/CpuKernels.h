//===- CpuKernels.h - A plan's kernels on the host ---------------*- C++
//-*-===//
#ifndef HETC_RUNTIME_CPU_CPUKERNELS_H
#define HETC_RUNTIME_CPU_CPUKERNELS_H

#include "runtime/cpu/Broadcast.h"
#include "runtime/cpu/CpuBackend.h"
#include "runtime/cpu/CpuSteps.h"
#include "runtime/plan/Plan.h"

#include <memory>
#include <string>
#include <vector>

namespace hetc::cpu {

using plan::IndexRun;
using plan::Plan;
using plan::PlanBufferInfo;
using plan::PlanKernelInfo;

/// Runs kernel `kernel` of `state`, reading `operands` (one pointer per
/// operand, to its first element) and writing `result`. False with
/// `error` when a run-time index is outside its table.
bool runKernel(const Plan &state, const PlanKernelInfo &kernel,
               const std::vector<const float *> &operands, float *result,
               std::string &error);

/// The matrix product `matmul` of the windows that `gather` would gather
/// (a Step::WindowProducts pair, `windows` its runs of elements): each
/// weight row times the elements the runs name, summed into the result,
/// which is finished as runKernel finishes a product. `gatherOperands` and
/// `matmulOperands` are the kernels' operands as runKernel takes them (the
/// windows' pointer unused). Runs on the calling thread alone.
void runWindowProduct(const Plan &state, const PlanKernelInfo &gather,
                      const PlanKernelInfo &matmul,
                      const std::vector<WindowRun> &windows,
                      const std::vector<const float *> &gatherOperands,
                      const std::vector<const float *> &matmulOperands,
                      float *result);

/// Elements [begin, end) of the result of `kernel`, a kernel of a
/// Step::Elementwise step, into `out` (the block's first element): a block
/// inside one row of the result or of whole rows. Per operand, `in` is
/// its first element, or where `held[i]`, the block's first element in a
/// slot; `broadcast` is over the kernel's operands (binary and select
/// kernels). `spreadRoom` has room for three blocks. Runs on the calling
/// thread alone.
void runBlock(const PlanKernelInfo &kernel, const Broadcast &broadcast,
              const std::vector<const float *> &in,
              const std::vector<bool> &held, float *out, uint64_t begin,
              uint64_t end, float *spreadRoom);

} // namespace hetc::cpu

#endif // HETC_RUNTIME_CPU_CPUKERNELS_H
