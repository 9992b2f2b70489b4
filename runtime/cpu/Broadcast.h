//===- Broadcast.h - Where an elementwise kernel's operands lie --*- C++
//-*-===//
//
// An elementwise kernel of the plan walks its result a row (innermost
// dimension) at a time; each operand, broadcast to the result's shape as
// numpy broadcasts, gives that row as a run of its own elements or as one
// element spread over the row.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_CPU_BROADCAST_H
#define HETC_RUNTIME_CPU_BROADCAST_H

#include "runtime/plan/Plan.h"

#include <cstdint>
#include <vector>

namespace hetc::cpu {

/// Rows of a result and, for each operand, where its row starts (or the
/// one element it spreads over the row).
class Broadcast {
public:
  Broadcast(const std::vector<int64_t> &result,
            const std::vector<const plan::PlanBufferInfo *> &operands);

  /// Where operand `i`'s part of result row `r` starts among its elements:
  /// a run of rowLength() elements, or the one element spread() over it.
  uint64_t rowStart(size_t i, uint64_t r) const;
  /// Whether operand `i` gives each row one element.
  bool spread(size_t i) const { return operands[i].spread; }
  /// Whether operand `i` has the result's shape (its rows lie in order).
  bool same(size_t i) const { return operands[i].same; }
  /// Whether every operand has the result's shape.
  bool allSame() const { return all; }
  uint64_t rowLength() const { return row; }
  uint64_t rows() const { return rowCount; }

private:
  struct Operand {
    std::vector<uint64_t> strides;
    bool spread = false, same = false;
  };
  std::vector<int64_t> shape;
  uint64_t row = 1, rowCount = 1;
  bool all = true;
  std::vector<Operand> operands;
};

} // namespace hetc::cpu

#endif // HETC_RUNTIME_CPU_BROADCAST_H
