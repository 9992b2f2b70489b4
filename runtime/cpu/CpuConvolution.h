//===- CpuConvolution.h - A plan's convolutions through oneDNN ---*- C++
//-*-===//
//
// A PLAN_CONV kernel on the host: oneDNN's convolution primitive, chosen
// at load for the host's CPU (in the layout it prefers: blocks of
// channels), its weights laid out once where they are constants, the map
// and the result reordered between the plan's channels-first order and
// that layout at each run. Where oneDNN offers no primitive, a direct
// loop computes the same sums.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_CPU_CPUCONVOLUTION_H
#define HETC_RUNTIME_CPU_CPUCONVOLUTION_H

#include "runtime/plan/Plan.h"

#include <memory>
#include <string>
#include <vector>

namespace hetc::cpu {

class Convolution {
public:
  /// Makes kernel `kernel` of `plan` (a checked PLAN_CONV) ready to run.
  /// False with `error` when oneDNN fails other than by having no
  /// primitive for it.
  static std::unique_ptr<Convolution> make(const plan::Plan &plan,
                                           const plan::PlanKernelInfo &kernel,
                                           std::string &error);
  ~Convolution();

  /// The bytes of room a run takes for the map and the result in the
  /// primitive's layout (0 where it is the plan's); the convolutions of a
  /// program share one room.
  uint64_t roomBytes() const;

  /// The convolution of `operands` (the map, then each group's weights,
  /// as runKernel takes them) into `out`, `room` (roomBytes(), 64-byte
  /// aligned) holding the map and the result in the primitive's layout.
  /// False with `error` when oneDNN fails.
  bool run(const std::vector<const float *> &operands, float *out, void *room,
           std::string &error);

  struct Primitive;

private:
  Convolution(const plan::PlanKernelInfo &kernel);
  /// The weights of `operands` as one G x M/G x C/G x K array, and the
  /// bias, into `weights` and `bias`.
  void splitWeights(const std::vector<const float *> &operands);
  void runDirect(const float *in, float *out) const;

  const plan::PlanKernelInfo &kernel;
  uint64_t groups;
  bool constantWeights = false;
  std::vector<float> weights, bias;
  std::unique_ptr<Primitive> primitive;
};

} // namespace hetc::cpu

#endif // HETC_RUNTIME_CPU_CPUCONVOLUTION_H
