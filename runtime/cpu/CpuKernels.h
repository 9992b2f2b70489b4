//===- CpuKernels.h - A plan's kernels on the host ---------------*- C++
//-*-===//
#ifndef HETC_RUNTIME_CPU_CPUKERNELS_H
#define HETC_RUNTIME_CPU_CPUKERNELS_H

#include "runtime/cpu/CpuBackend.h"
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

} // namespace hetc::cpu

#endif // HETC_RUNTIME_CPU_CPUKERNELS_H
