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
                        const std::vector<int64_t> &shape, uint64_t seed) {
  io::Tensor tensor;
  tensor.shape = shape;
  uint64_t count = 0;
  if (!io::elementCount(shape, count))
    return tensor;
  tensor.data.resize(count);
  uint64_t state = seed ^ chip::fnv1a64(name);
  for (float &value : tensor.data) {
    // 24 random bits give every float in [0, 1) on a 2^-24 grid exactly.
    float unit = float(nextRandom(state) >> 40) * (1.0f / 16777216.0f);
    value = 2.0f * unit - 1.0f;
  }
  return tensor;
}

} // namespace hetc::run
