//===- CpuSteps.h - A plan's kernels as the host runs them -------*- C++
//-*-===//
//
// The CPU backend runs a kernel plan as steps: each kernel on its own, in
// the plan's order, except where a few consecutive kernels run better
// together. The plan is the chip's (a convolution cut into one matrix
// product per group, its windows gathered for each); the steps are chosen
// once, at load, from what the plan says, each choice checked against the
// buffers' lives and places (plan::Placement) so that the results are the
// kernels' own.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_CPU_CPUSTEPS_H
#define HETC_RUNTIME_CPU_CPUSTEPS_H

#include "runtime/cpu/CpuAliases.h"
#include "runtime/plan/Placement.h"
#include "runtime/plan/Plan.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hetc::cpu {

/// Index runs of a gather whose elements a window product reads (the
/// windows are K x N): `repeat` repetitions of `count` elements of operand
/// `operand`, `step` apart, from `first`, the repetitions `sourceStride`
/// apart; repetition r fills `count` elements of one row of the windows,
/// from element `at + r * atStride` of them. The gather's zeros are left
/// out (they add nothing to a product of finite weights).
struct WindowRun {
  uint32_t operand = 0;
  int64_t first = 0, step = 0, sourceStride = 0;
  uint64_t count = 0, repeat = 1, at = 0, atStride = 0;
};

/// Consecutive kernels of a plan, run as one step.
struct Step {
  enum class Kind {
    /// One kernel, as CpuKernels.h runs it.
    Kernel,
    /// A copy left out (CpuAliases.h): nothing runs.
    LeftOut,
    /// Pairs of a gather and the float matrix product that alone reads its
    /// result as its windows (K x N), with a few rows (M) of weights: each
    /// product is computed from the gather's index runs, the windows never
    /// written, and the pairs, which neither read what another writes nor
    /// write where another does, run on parallel threads. A convolution
    /// cut into groups (depthwise ones with few positions per channel) is
    /// one such step.
    WindowProducts,
    /// Elementwise kernels (binary, unary, cast, select) and gathers that
    /// write their whole result, all of results of one shape, each
    /// reading the others' results element for element (a gather: none
    /// of them): run a block of elements at a time, every kernel on a
    /// block before the next block, the blocks on parallel threads, so
    /// that a block's values stay in the core's cache. A result that no
    /// kernel after the step reads is never written to its buffer: each
    /// thread holds it a block at a time in a slot of its own.
    Elementwise,
  };
  Kind kind = Kind::Kernel;
  /// The kernels it runs: [first, first + count).
  size_t first = 0, count = 1;
  /// WindowProducts: per pair, its gather's runs of elements, as a product
  /// reads them.
  std::vector<std::vector<WindowRun>> windows;
  /// Elementwise: per kernel, the slot its result is held in, or -1 where
  /// it is written to its buffer; per kernel and operand, the slot the
  /// operand is read from, or -1 for its buffer; the slots a thread needs.
  std::vector<int> resultSlots;
  std::vector<std::vector<int>> operandSlots;
  uint32_t slots = 0;
};

/// How the buffers of `plan` must be placed (plan::placeBuffers' hints)
/// for the copies `aliases` leaves out, and for the kernels that may run
/// as steps to find their operands still there while they run: a window
/// product reads the gather's operands after the gather, and an
/// Elementwise step reads every operand from outside it until its last
/// block. `lives` is the plan's own placement.
plan::PlacementHints stepHints(const plan::Plan &plan,
                               const plan::Placement &lives,
                               const Aliases &aliases);

/// The steps of `plan`, whose buffers are placed by `placement` (with
/// stepHints), the copies `aliases` leaves out left out.
std::vector<Step> planSteps(const plan::Plan &plan,
                            const plan::Placement &placement,
                            const Aliases &aliases);

/// A plan as the CPU backend runs it: the copies it leaves out, where its
/// buffers live, and its steps.
struct SteppedPlan {
  Aliases aliases;
  plan::Placement placement;
  std::vector<Step> steps;
};

/// Places the buffers of `plan` twice: its own lives show which copies
/// can be left out and which kernels may run as steps, whose buffers then
/// live as stepHints says. Where that takes more words than twice the
/// plan's own placement (and 2^16 more), nothing is left out and the
/// plan's placement stays, the steps chosen where it allows them: no plan
/// makes the CPU backend hold much more than the chip would.
SteppedPlan stepPlan(const plan::Plan &plan, uint64_t alignWords);

} // namespace hetc::cpu

#endif // HETC_RUNTIME_CPU_CPUSTEPS_H
