//===- BindingIo.h - Placing tensors in memory and reading them back -*- C++ -*-//
//
// A tensor binding laid out in memory (hetx.proto, TensorBinding): row r
// is vectors r * vectors_per_row onwards, element c is lane c % lanes of
// its vector c / lanes, padding lanes are zero. One walk serves SRAM (in
// words, several vectors to a row when packed) and host memory (one vector
// per address) alike: any memory with place(address, width, writer,
// storedAt) (which returns where the values go, or null), storedAt(address),
// holds(address, width) and vector(address).
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_BINDINGIO_H
#define HETC_RUNTIME_SIM_BINDINGIO_H

#include "runtime/io/Tensor.h"
#include "runtime/schema/hetx.pb.h"
#include "runtime/sim/DataTypes.h"
#include "runtime/sim/Sram.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace hetc::sim {

/// Where a binding's vectors are in a memory: vector v at `base + v *
/// step`, taking `width` of its addresses, of which `perRow` make one
/// address of the artifact (4 SRAM words to a row; 1 in host memory).
struct VectorPlacement {
  uint64_t base;
  uint64_t step;
  uint32_t width;
  uint32_t perRow;
  uint64_t at(uint64_t vector) const { return base + vector * step; }
};

/// Writes the lane words `words` (row-major; may be null when the memory
/// keeps no values) of a tensor with `rows` x `cols` elements into `memory`
/// where `at` says, as data present before cycle 0 (stored at -1 by
/// `writer`).
template <typename Memory>
void placeRows(Memory &memory, VectorPlacement at, uint64_t rows,
               uint64_t cols, uint64_t vectorsPerRow, uint32_t lanes,
               const float *words, uint32_t writer) {
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t v = 0; v < vectorsPerRow; ++v) {
      float *out = memory.place(at.at(r * vectorsPerRow + v), at.width,
                                writer, -1);
      if (!out || !words)
        continue;
      uint64_t first = v * lanes;
      uint64_t count =
          first < cols ? std::min<uint64_t>(lanes, cols - first) : 0;
      std::memcpy(out, words + r * cols + first, sizeof(float) * count);
      std::fill(out + count, out + lanes, 0.0f);
    }
}

/// Reads a tensor of `type` and `shape` (`rows` x `cols` elements) back
/// from `memory`, where `at` says, into `out`; with `values` false only its
/// shape and type. Fails, naming output `name`, when a vector was never
/// written whole.
template <typename Memory>
bool gatherRows(const Memory &memory, VectorPlacement at, uint64_t rows,
                uint64_t cols, uint64_t vectorsPerRow, uint32_t lanes,
                bool values, const std::string &name, io::Tensor &out,
                std::string &error) {
  out.ints.clear();
  out.data.assign(values ? rows * cols : 0, 0.0f);
  uint64_t used = (cols + lanes - 1) / lanes;
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t v = 0; v < used; ++v) {
      uint64_t address = at.at(r * vectorsPerRow + v);
      bool never =
          memory.storedAt(address) == std::numeric_limits<int64_t>::min();
      if (never || !memory.holds(address, at.width)) {
        error = "output '" + name + "': the program " +
                (never ? "never writes" : "overwrites in part the vector at") +
                " address " + std::to_string(address / at.perRow) + " (row " +
                std::to_string(r) + ", elements " + std::to_string(v * lanes) +
                " onwards)";
        return false;
      }
      if (!values)
        continue;
      uint64_t first = v * lanes;
      uint64_t count = std::min<uint64_t>(lanes, cols - first);
      std::memcpy(out.data.data() + r * cols + first, memory.vector(address),
                  sizeof(float) * count);
    }
  }
  keepLaneWords(out);
  return true;
}

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_BINDINGIO_H
