//===- Tensor.h - A dense tensor in host memory -----------------*- C++ -*-===//
//
// The runtime's host-side tensor: an element type, a shape and its elements
// in row-major (C) order. Inputs and outputs of `hetc run` and the chip
// model use it.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_IO_TENSOR_H
#define HETC_RUNTIME_IO_TENSOR_H

#include "runtime/io/ElementType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hetc::io {

/// A dense tensor. Float types keep their elements in `data` (F16 and BF16
/// values widened exactly), integer types and Bool in `ints`; the other
/// vector stays empty.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;
  std::vector<int32_t> ints;
  ElementType type = ElementType::F32;

  /// Elements held, in whichever vector the type uses.
  size_t size() const { return isFloat(type) ? data.size() : ints.size(); }
};

/// Returns the element count of `shape` in `count`, or false when a
/// dimension is negative or the product does not fit in 63 bits.
bool elementCount(const std::vector<int64_t> &shape, uint64_t &count);

/// Formats a shape as "[2, 3]" ("[]" for a scalar).
std::string shapeString(const std::vector<int64_t> &shape);

} // namespace hetc::io

#endif // HETC_RUNTIME_IO_TENSOR_H
