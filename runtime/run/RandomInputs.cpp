//===- RandomInputs.cpp - Seeded inputs for `hetc run` -----------------===//

#include "runtime/run/RandomInputs.h"

#include "runtime/chip/ChipSpec.h"

namespace hetc::run {

namespace {
/// SplitMix64: small, fast and fully specified.
uint64_t nextRandom(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
} // namespace

io::Tensor randomTensor(const std::string &name,
                        const std::vector<int64_t> &shape, uint64_t seed,
                        io::ElementType type) {
  io::Tensor tensor;
  tensor.type = type;
  tensor.shape = shape;
  uint64_t count = 0;
  if (!io::elementCount(shape, count))
    return tensor;
  uint64_t state = seed ^ chip::fnv1a64(name);
  if (io::isFloat(type)) {
    tensor.data.resize(count);
    for (float &value : tensor.data) {
      // 24 random bits give every float in [0, 1) on a 2^-24 grid exactly.
      float unit = float(nextRandom(state) >> 40) * (1.0f / 16777216.0f);
      value = io::roundTo(type, 2.0f * unit - 1.0f);
    }
    return tensor;
  }
  bool wide = type == io::ElementType::I32 || type == io::ElementType::I64 ||
              type == io::ElementType::I16;
  int64_t lo = type == io::ElementType::I8 ? -128 : wide ? -1024 : 0;
  int64_t span = wide                            ? 2048
                 : type == io::ElementType::Bool ? 2
                                                 : 256;
  if (io::isSubByteInt(type)) { // the whole range: [-8, 7], [0, 3], ...
    lo = io::clampTo(type, INT32_MIN);
    span = int64_t(io::clampTo(type, INT32_MAX)) - lo + 1;
  }
  tensor.ints.resize(count);
  for (int32_t &value : tensor.ints)
    value = int32_t(lo + int64_t(nextRandom(state) % uint64_t(span)));
  return tensor;
}

} // namespace hetc::run
