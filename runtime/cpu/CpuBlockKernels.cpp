//===- CpuBlockKernels.cpp - A kernel on a block of its elements -------===//
//
// The kernels of an Elementwise step (CpuSteps.h), a block of elements at
// a time, with the numerics of the whole kernels (CpuKernels.cpp): the
// chip model's lane routines, which compute each element alone.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/CpuKernels.h"

#include "runtime/sim/TypedMath.h"
#include "runtime/sim/VectorUnit.h"

#include <algorithm>
#include <cstring>

namespace hetc::cpu {

namespace {

/// Elements [begin, end) of a gather's result, from its runs.
void gatherRange(const PlanKernelInfo &kernel,
                 const std::vector<const float *> &in, float *out,
                 uint64_t begin, uint64_t end) {
  // The runs fill the result in order: the first that reaches past
  // `begin` is the one before the first that starts after it.
  auto it = std::upper_bound(
      kernel.runs.begin(), kernel.runs.end(), begin,
      [](uint64_t at, const IndexRun &run) { return at < run.offset; });
  for (--it; it != kernel.runs.end() && it->offset < end; ++it) {
    const IndexRun &run = *it;
    uint64_t from = std::max(begin, run.offset);
    uint64_t to = std::min(end, run.offset + run.count);
    float *y = out + (from - begin);
    uint64_t n = to - from, skip = from - run.offset;
    if (run.first < 0) {
      std::memset(y, 0, n * sizeof(float));
      continue;
    }
    const float *x = in[run.operand] + run.first + int64_t(skip) * run.step;
    if (run.step == 1)
      std::memcpy(y, x, n * sizeof(float));
    else
      for (uint64_t i = 0; i < n; ++i)
        y[i] = x[int64_t(i) * run.step];
  }
}

/// The kernel's lane routine on `n` elements of each operand.
void compute(const PlanKernelInfo &kernel, const float *const *src, float *out,
             uint32_t n) {
  if (kernel.kind == hetx::PLAN_SELECT)
    sim::selectLanes(src[0], src[1], src[2], out, n, n);
  else
    sim::computeVector(kernel.op, src, out, n, n);
}

} // namespace

void runBlock(const PlanKernelInfo &kernel, const Broadcast &broadcast,
              const std::vector<const float *> &in,
              const std::vector<bool> &held, float *out, uint64_t begin,
              uint64_t end, float *spreadRoom) {
  if (end <= begin)
    return;
  if (kernel.kind == hetx::PLAN_GATHER) {
    gatherRange(kernel, in, out, begin, end);
    return;
  }
  size_t operands = in.size();
  const float *src[3];
  // Every operand's elements lie in the result's order: one call.
  bool elementwise =
      kernel.kind == hetx::PLAN_UNARY || kernel.kind == hetx::PLAN_CAST;
  bool inOrder = true;
  for (size_t i = 0; i < operands; ++i)
    inOrder &= held[i] || elementwise || broadcast.same(i);
  if (inOrder) {
    for (size_t i = 0; i < operands; ++i)
      src[i] = held[i] ? in[i] : in[i] + begin;
    compute(kernel, src, out, uint32_t(end - begin));
    return;
  }
  // Row by row: each operand's part of the row where it lies.
  uint64_t row = broadcast.rowLength();
  for (uint64_t r = begin / row; r * row < end; ++r) {
    uint64_t from = std::max(begin, r * row), to = std::min(end, (r + 1) * row);
    uint32_t n = uint32_t(to - from);
    for (size_t i = 0; i < operands; ++i) {
      if (held[i]) {
        src[i] = in[i] + (from - begin);
      } else if (broadcast.spread(i)) {
        float *spread = spreadRoom + i * (end - begin);
        std::fill(spread, spread + n, in[i][broadcast.rowStart(i, r)]);
        src[i] = spread;
      } else {
        src[i] = in[i] + broadcast.rowStart(i, r) + (from - r * row);
      }
    }
    compute(kernel, src, out + (from - begin), n);
  }
}

} // namespace hetc::cpu
