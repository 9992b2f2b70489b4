//===- HostMemory.h - The host memory the DMA engines reach -----*- C++ -*-===//
//
// Vectors of host memory (see hetx.proto, TensorBinding.host_address): the
// staged inputs before cycle 0, and what DMA_OUT stores, with the cycle each
// vector's last store lands. Only vectors that are used cost memory.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_HOSTMEMORY_H
#define HETC_RUNTIME_SIM_HOSTMEMORY_H

#include "runtime/sim/Sram.h"

#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace hetc::sim {

class HostMemory {
public:
  HostMemory(uint32_t lanes, bool values) : lanes(lanes), values(values) {}

  /// Cycle at which the last store to `address` lands (-1 for staged
  /// inputs), or Sram::kNever.
  int64_t storedAt(uint64_t address) const {
    auto it = entries.find(address);
    return it == entries.end() ? Sram::kNever : it->second.storedAt;
  }
  /// The instruction that last stored `address`, or Sram::kPreloaded.
  uint32_t writer(uint64_t address) const {
    auto it = entries.find(address);
    return it == entries.end() ? 0 : it->second.writer;
  }
  /// The vector at `address`; null without values or data.
  const float *vector(uint64_t address) const {
    auto it = entries.find(address);
    return it == entries.end() || !values
               ? nullptr
               : pool.data() + size_t(it->second.slot) * lanes;
  }
  /// Whether `address` holds a vector: host memory keeps one vector per
  /// address whatever its type (`width` is the SRAM's notion).
  bool holds(uint64_t address, uint32_t /*width*/) const {
    return entries.count(address) != 0;
  }
  /// Stores `data` (ignored without values) at `address`, landing at
  /// `storedAt`, on behalf of instruction `writer`.
  void write(uint64_t address, const float *data, uint32_t writer,
             int64_t storedAt) {
    float *out = place(address, 1, writer, storedAt);
    if (out && data)
      std::memcpy(out, data, sizeof(float) * lanes);
  }
  /// Records a store to `address` by `writer` landing at `storedAt` and
  /// returns where its values go (null without values). One vector takes
  /// one address whatever its type.
  float *place(uint64_t address, uint32_t /*width*/, uint32_t writer,
               int64_t storedAt) {
    auto [it, fresh] = entries.try_emplace(address);
    if (fresh) {
      it->second.slot = uint32_t(pool.size() / lanes);
      if (values)
        pool.resize(pool.size() + lanes, 0.0f);
    }
    it->second.storedAt = storedAt;
    it->second.writer = writer;
    return values ? pool.data() + size_t(it->second.slot) * lanes : nullptr;
  }

  /// Places a staged input's lane words (row-major; ignored without
  /// values) from `binding.host_address()` on, laid out as in SRAM.
  void preload(const hetx::TensorBinding &binding, const BindingLayout &layout,
               const float *words);
  /// Reads a staged output from `binding.host_address()`; fails, naming
  /// the binding, when part of it was never stored.
  bool fetch(const hetx::TensorBinding &binding, const BindingLayout &layout,
             io::Tensor &out, std::string &error) const;

private:
  struct Entry {
    int64_t storedAt = Sram::kNever;
    uint32_t writer = 0;
    uint32_t slot = 0;
  };
  uint32_t lanes;
  bool values;
  std::unordered_map<uint64_t, Entry> entries;
  std::vector<float> pool;
};

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_HOSTMEMORY_H
