//===- CpuAliases.h - Copies the CPU backend leaves out ----------*- C++
//-*-===//
//
// The chip moves data between buffers where the host needs no move: a
// gather that copies one range of a buffer (the head of an attention
// taken from its batch, a row view's scratch copy) or that copies a whole
// buffer into a range of another (a product put into its place in a
// concatenation). The CPU backend leaves such a copy out where the plan's
// lives allow it: the copy's result then lives in the place of what it
// copies (a view), or what it copies lives in its place in the result
// from the kernel that writes it on.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_CPU_CPUALIASES_H
#define HETC_RUNTIME_CPU_CPUALIASES_H

#include "runtime/plan/Placement.h"
#include "runtime/plan/Plan.h"

#include <cstdint>
#include <vector>

namespace hetc::cpu {

/// Where the elements of each root live once copies are left out.
struct Aliases {
  /// Per buffer that is a root: the root whose place holds its elements
  /// (itself, but for a copy's result or source), and the element of that
  /// root its first element is.
  std::vector<uint32_t> holder;
  std::vector<uint64_t> offset;
  /// Per kernel: whether it is a copy left out.
  std::vector<bool> leftOut;

  /// The root whose place holds buffer `b`'s elements.
  uint32_t holderOf(const plan::Plan &plan, uint32_t b) const {
    return holder[plan.buffers[b].root];
  }
};

/// No copies left out: every root holds its own elements.
Aliases noAliases(const plan::Plan &plan);

/// The copies of `plan` to leave out, by its own lives (`lives`): a gather
/// of one run of step 1, left out where nothing overwrites what the two
/// buffers then share while both are in use.
Aliases planAliases(const plan::Plan &plan, const plan::Placement &lives);

/// Adds to `hints` what the aliases need of the placement: a copy's
/// source lives as long as the copy's result is read, a result that a
/// source lives in lives from the source's writer on, and neither a left
/// out copy's result nor a source that lives in another root needs a
/// place of its own.
void aliasHints(const plan::Plan &plan, const plan::Placement &lives,
                const Aliases &aliases, plan::PlacementHints &hints);

} // namespace hetc::cpu

#endif // HETC_RUNTIME_CPU_CPUALIASES_H
