//===- Tensor.cpp - Shape helpers for host tensors ---------------------===//

#include "runtime/io/Tensor.h"

namespace hetc::io {

bool elementCount(const std::vector<int64_t> &shape, uint64_t &count) {
  constexpr uint64_t kLimit = uint64_t(1) << 62;
  count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return false;
    if (dim != 0 && count > kLimit / uint64_t(dim))
      return false;
    count *= uint64_t(dim);
  }
  return true;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

} // namespace hetc::io
