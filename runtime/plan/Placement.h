//===- Placement.h - A plan's buffers in one arena, and index maps -*- C++
//-*-===//
//
// What a backend derives from a checked plan once, at load: where each
// buffer lives in one arena (the CPU and CUDA backends), so that a run
// allocates nothing, and the fewest dimensions an elementwise kernel or a
// transpose can walk its operands by (the CUDA backend).
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_PLAN_PLACEMENT_H
#define HETC_RUNTIME_PLAN_PLACEMENT_H

#include "runtime/plan/Plan.h"

#include <cstdint>
#include <vector>

namespace hetc::plan {

/// Every root buffer's place in one arena of lane words. A root lives from
/// the first kernel that writes it (inputs: from the start) to the last
/// that reads it (outputs: to the end); two roots whose lives overlap
/// never share a word. Constants, and scratch no kernel writes, have no
/// place.
struct Placement {
  /// Per buffer: the first word of its root's place (0 where it has none).
  std::vector<uint64_t> offset;
  /// Per buffer: whether its root has a place, and the kernels it lives
  /// over, first to last (last is the kernel count for the outputs).
  std::vector<bool> placed;
  std::vector<size_t> first, last;
  /// The words the arena needs.
  uint64_t words = 0;
};

/// What a backend knows of its buffers beyond the plan: per root, a kernel
/// it must live to and one it must live from (a backend that runs kernels
/// together reads some operands later, or writes a result into another
/// root's place earlier), and whether it needs no place (its elements
/// live in another root's). Empty vectors say nothing; `livesFrom` holds
/// SIZE_MAX where it says nothing.
struct PlacementHints {
  std::vector<size_t> livesTo, livesFrom;
  std::vector<bool> unplaced;
};

/// Places the roots largest first, each at the lowest offset (a multiple
/// of `alignWords`) free over its whole life, as `hints` extend it.
Placement placeBuffers(const Plan &plan, uint64_t alignWords,
                       const PlacementHints &hints = {});

/// An index map: result dimensions `shape`, and per operand the stride it
/// advances by along each (0 where it repeats).
struct IndexMap {
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> strides;
};

/// The same map over the fewest dimensions: dimensions of size 1 dropped,
/// and neighbours that every operand walks as one merged.
IndexMap collapse(const IndexMap &map);

/// The strides of `operand` broadcast to `result` as numpy broadcasts:
/// 0 along the dimensions where it repeats.
std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &operand,
                                      const std::vector<int64_t> &result);

} // namespace hetc::plan

#endif // HETC_RUNTIME_PLAN_PLACEMENT_H
