//===- Tensor.h - A dense fp32 tensor in host memory ------------*- C++ -*-===//
//
// The runtime's host-side tensor: a shape and its elements in row-major (C)
// order. Inputs and outputs of `hetc run` and the chip model use it.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_IO_TENSOR_H
#define HETC_RUNTIME_IO_TENSOR_H

#include <cstdint>
#include <string>
#include <vector>

namespace hetc::io {

/// A dense fp32 tensor; `data` holds the elements in row-major order.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

/// Returns the element count of `shape` in `count`, or false when a
/// dimension is negative or the product does not fit in 63 bits.
bool elementCount(const std::vector<int64_t> &shape, uint64_t &count);

/// Formats a shape as "[2, 3]" ("[]" for a scalar).
std::string shapeString(const std::vector<int64_t> &shape);

} // namespace hetc::io

#endif // HETC_RUNTIME_IO_TENSOR_H
