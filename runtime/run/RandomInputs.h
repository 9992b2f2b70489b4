//===- RandomInputs.h - Seeded inputs for `hetc run` ------------*- C++ -*-===//
//
// Inputs the user does not give are drawn uniformly from [-1, 1) by a
// generator of our own, so a seed gives the same tensors on every platform
// and standard library.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_RUN_RANDOMINPUTS_H
#define HETC_RUNTIME_RUN_RANDOMINPUTS_H

#include "runtime/io/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hetc::run {

/// A tensor of `shape` and `type`: floats uniform in [-1, 1) (rounded to
/// the type), integers uniform over the type's range (i32: [-1024,
/// 1024)), bools 0 or 1. The stream depends on `seed` and the input's
/// `name` only, so an input keeps its values whichever other inputs are
/// given.
io::Tensor randomTensor(const std::string &name,
                        const std::vector<int64_t> &shape, uint64_t seed,
                        io::ElementType type = io::ElementType::F32);

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_RANDOMINPUTS_H
