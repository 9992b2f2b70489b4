//===- Broadcast.cpp - Where an elementwise kernel's operands lie ------===//

#include "runtime/cpu/Broadcast.h"

namespace hetc::cpu {

Broadcast::Broadcast(const std::vector<int64_t> &result,
                     const std::vector<const plan::PlanBufferInfo *> &inputs)
    : shape(result) {
  size_t rank = shape.size();
  row = rank ? uint64_t(shape.back()) : 1;
  for (size_t d = 0; d + 1 < rank; ++d)
    rowCount *= uint64_t(shape[d]);
  for (const plan::PlanBufferInfo *operand : inputs) {
    Operand o;
    o.strides.assign(rank, 0);
    size_t offset = rank - operand->shape.size();
    uint64_t stride = 1;
    for (size_t d = operand->shape.size(); d-- > 0;) {
      if (operand->shape[d] != 1)
        o.strides[offset + d] = stride;
      stride *= uint64_t(operand->shape[d]);
    }
    o.spread = rank && (operand->shape.empty() || operand->shape.back() == 1) &&
               row != 1;
    o.same = operand->shape == result;
    all &= o.same;
    operands.push_back(std::move(o));
  }
}

uint64_t Broadcast::rowStart(size_t i, uint64_t r) const {
  const Operand &o = operands[i];
  if (o.same)
    return r * row;
  uint64_t at = 0, rest = r;
  for (size_t d = shape.empty() ? 0 : shape.size() - 1; d-- > 0;) {
    uint64_t size = uint64_t(shape[d]);
    at += (rest % size) * o.strides[d];
    rest /= size;
  }
  return at;
}

} // namespace hetc::cpu
