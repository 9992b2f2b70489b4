//===- BufferCache.h - Large buffers reused from run to run -----*- C++ -*-===//
//
// A run of the chip model needs a few large buffers (SRAM values, plane
// weights, stream values) that the operating system hands out as fresh
// zero pages: on a small program, taking those page faults cost more than
// simulating. The buffers a run frees are kept here, per thread, for the
// next run, much as an inference runtime keeps its memory arena between
// runs. A buffer comes back uninitialised.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_BUFFERCACHE_H
#define HETC_RUNTIME_SIM_BUFFERCACHE_H

#include <cstddef>
#include <memory>

namespace hetc::sim {

/// Takes and returns buffers of `count` floats. Small ones go straight to
/// the heap; large ones are rounded up to a power of two and kept per
/// thread when freed (a bounded number of each size).
float *takeBuffer(size_t count);
void giveBuffer(float *data, size_t count);

/// Frees a buffer from takeBuffer() through giveBuffer().
struct BufferDeleter {
  size_t count = 0;
  void operator()(float *data) const { giveBuffer(data, count); }
};
using Buffer = std::unique_ptr<float[], BufferDeleter>;

inline Buffer makeBuffer(size_t count) {
  return Buffer(takeBuffer(count), BufferDeleter{count});
}

/// A std::vector allocator over takeBuffer() and giveBuffer().
template <typename T> struct CachedAllocator {
  static_assert(sizeof(T) == sizeof(float), "buffers hold floats");
  using value_type = T;
  CachedAllocator() = default;
  template <typename U> CachedAllocator(const CachedAllocator<U> &) {}
  T *allocate(size_t count) {
    return reinterpret_cast<T *>(takeBuffer(count));
  }
  void deallocate(T *data, size_t count) {
    giveBuffer(reinterpret_cast<float *>(data), count);
  }
  template <typename U> bool operator==(const CachedAllocator<U> &) const {
    return true;
  }
  template <typename U> bool operator!=(const CachedAllocator<U> &) const {
    return false;
  }
};

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_BUFFERCACHE_H
