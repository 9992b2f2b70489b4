//===- BufferCache.cpp - Large buffers reused from run to run ----------===//

#include "runtime/sim/BufferCache.h"

#include <vector>

namespace hetc::sim {

namespace {
/// Buffers below this many floats (64 KiB) come from the heap as usual.
constexpr size_t kSmall = size_t(1) << 14;
/// Buffers of one size kept per thread, the largest size kept (1 GiB), and
/// the most floats kept in all (1 GiB).
constexpr size_t kKeep = 8;
constexpr unsigned kLargestClass = 28;
constexpr size_t kMostKept = size_t(1) << 28;

/// The size class of `count`: log2 of it rounded up to a power of two.
unsigned classOf(size_t count) {
  unsigned bits = 0;
  while ((size_t(1) << bits) < count)
    ++bits;
  return bits;
}

struct Cache {
  std::vector<float *> free[kLargestClass + 1];
  size_t kept = 0;
  ~Cache() {
    for (auto &list : free)
      for (float *data : list)
        delete[] data;
  }
};

Cache &cache() {
  thread_local Cache instance;
  return instance;
}
} // namespace

float *takeBuffer(size_t count) {
  if (count < kSmall)
    return new float[count];
  unsigned size = classOf(count);
  if (size > kLargestClass)
    return new float[count];
  std::vector<float *> &list = cache().free[size];
  if (list.empty())
    return new float[size_t(1) << size];
  float *data = list.back();
  list.pop_back();
  cache().kept -= size_t(1) << size;
  return data;
}

void giveBuffer(float *data, size_t count) {
  if (!data)
    return;
  unsigned size = classOf(count);
  if (count < kSmall || size > kLargestClass) {
    delete[] data;
    return;
  }
  Cache &kept = cache();
  std::vector<float *> &list = kept.free[size];
  if (list.size() < kKeep && kept.kept + (size_t(1) << size) <= kMostKept) {
    list.push_back(data);
    kept.kept += size_t(1) << size;
  } else {
    delete[] data;
  }
}

} // namespace hetc::sim
