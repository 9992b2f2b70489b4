//===- Sram.h - The MEM slices and the tensors laid out in them -*- C++ -*-===//
//
// SRAM contents and, per vector address, when its last write stores (timing
// rule 5). Tensors are placed as hetx.proto's TensorBinding describes: row r
// of the tensor flattened to rows x cols starts at address + r *
// vectors_per_row, element c is lane c % lanes of vector c / lanes, and
// padding lanes are zero.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_SRAM_H
#define HETC_RUNTIME_SIM_SRAM_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/io/Tensor.h"
#include "runtime/schema/hetx.pb.h"
#include "runtime/sim/BufferCache.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace hetc::sim {

/// The layout of a binding: rows x cols, with `vectors_per_row` vectors
/// per row.
struct BindingLayout {
  io::ElementType type = io::ElementType::F32;
  uint64_t rows = 1;
  uint64_t cols = 1;
  uint64_t elements = 1;
  uint64_t vectors = 0;
};

/// The SRAM of a chip. Only what a program touches costs memory or time:
/// the per-address state lives in chunks allocated on first use and each
/// vector's values in a pool slot taken on first write, so that a small
/// program on a large chip starts fast. An SRAM built without values keeps
/// only the timing state of each address.
class Sram {
public:
  /// `storedAt` of an address that was never written.
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::min();
  /// `writer` of an address that holds an input or a constant.
  static constexpr uint32_t kPreloaded = std::numeric_limits<uint32_t>::max();

  explicit Sram(const chip::ChipSpec &chip, bool values = true);
  /// An SRAM that starts as `image` (see makeImage()) holds: a program's
  /// constants, placed once when it is loaded rather than on every run.
  /// The image's state and values are shared, read-only, until this SRAM
  /// writes: a write copies the state of the image's addresses near it
  /// (one chunk) and takes a slot of this SRAM's own for its values. The
  /// image must outlive this SRAM.
  Sram(const Sram &image, bool values);
  /// Makes this SRAM, which holds values, an image for others to start
  /// from; it must not be written after.
  void makeImage();
  /// Whether `values` is a vector of the image (as fixedVector() gives it),
  /// and if so its extent and finiteness as a weight row, found once by
  /// makeImage() (see copyWeightRow()).
  bool imageRow(const float *values, uint32_t &extent, bool &finite) const {
    if (!image)
      return false;
    auto at = reinterpret_cast<uintptr_t>(values);
    auto base = reinterpret_cast<uintptr_t>(image->pool.data());
    size_t offset = (at - base) / sizeof(float);
    if (at < base || offset >= image->pool.size() || offset % lanes)
      return false;
    extent = image->rowExtent[offset / lanes];
    finite = image->rowFinite[offset / lanes];
    return true;
  }
  Sram(const Sram &) = delete;
  Sram &operator=(const Sram &) = delete;

  /// Cycle at which the last write to `address` stores (-1 for preloaded
  /// data, kNever if none).
  int64_t storedAt(uint64_t address) const {
    const Meta *entry = find(address);
    return entry ? entry->storedAt : kNever;
  }
  /// The instruction that last wrote `address`, or kPreloaded.
  uint32_t writer(uint64_t address) const {
    const Meta *entry = find(address);
    return entry ? entry->writer : 0;
  }
  /// Addresses that hold data: preloaded, or written at least once.
  uint64_t occupied() const { return occupiedCount; }

  /// The vector at `address`; null if it holds no data or the SRAM keeps
  /// no values.
  const float *vector(uint64_t address) const {
    const Meta *entry = find(address);
    if (!entry || entry->slot == kNoSlot)
      return nullptr;
    if (entry->slot & kImageSlot)
      return image->pool.data() + size_t(entry->slot & ~kImageSlot) * lanes;
    return pool.data() + size_t(entry->slot) * lanes;
  }
  /// The vector at `address` if it is the image's (see Sram(const Sram &,
  /// bool)) and so stays unchanged while this SRAM lives, whatever is
  /// written; null otherwise.
  const float *fixedVector(uint64_t address) const {
    const Meta *entry = find(address);
    return entry && entry->slot != kNoSlot && (entry->slot & kImageSlot)
               ? image->pool.data() + size_t(entry->slot & ~kImageSlot) * lanes
               : nullptr;
  }
  /// Stores `data` (ignored without values) at `address` on behalf of
  /// instruction `writer`; the write lands at `storedAt`.
  void write(uint64_t address, const float *data, uint32_t writer,
             int64_t storedAt) {
    float *out = place(address, writer, storedAt);
    if (out && data)
      std::memcpy(out, data, sizeof(float) * lanes);
  }
  /// Records a write of `address` by `writer` landing at `storedAt` and
  /// returns where its values go (null without values), for the caller to
  /// fill.
  float *place(uint64_t address, uint32_t writer, int64_t storedAt) {
    Meta &entry = claim(address);
    entry.storedAt = storedAt;
    entry.writer = writer;
    return values ? slotOf(entry) : nullptr;
  }

  /// Makes room for the values of `vectors` addresses at once, so that the
  /// pool never moves while it fills up (no effect without values).
  void reserve(uint64_t vectors) {
    if (values)
      pool.reserve(size_t(vectors) * lanes);
  }

  /// Places `words` (the elements' lane words, row-major, as `layout`
  /// counts them; ignored without values) where `binding` says, as data
  /// present before cycle 0.
  void preload(const hetx::TensorBinding &binding, const BindingLayout &layout,
               const float *words);
  /// Reads the tensor `binding` describes, in its element type (only its
  /// shape and type without values).
  /// Fails, naming the binding, when part of it was never written.
  bool fetch(const hetx::TensorBinding &binding, const BindingLayout &layout,
             io::Tensor &out, std::string &error) const;

private:
  static constexpr uint32_t kNoSlot = std::numeric_limits<uint32_t>::max();
  /// Marks a slot of `image`'s pool. Slots are 32-bit, as before there was
  /// an image; a pool of 2^31 vectors (8 GiB of values at one lane) is
  /// beyond what the chip model runs.
  static constexpr uint32_t kImageSlot = uint32_t(1) << 31;
  /// Addresses per chunk of state, a power of two.
  static constexpr unsigned kChunkBits = 10;
  struct Meta {
    int64_t storedAt = kNever;
    uint32_t writer = 0;
    uint32_t slot = kNoSlot;
  };

  const Meta *find(uint64_t address) const {
    const Meta *chunk = chunks[address >> kChunkBits];
    return chunk ? &chunk[address & ((1u << kChunkBits) - 1)] : nullptr;
  }
  /// The state of `address`, counted as occupied from now on.
  Meta &claim(uint64_t address) {
    size_t index = address >> kChunkBits;
    Meta *chunk = chunks[index];
    if (!chunk || chunk != owned[index].get())
      chunk = ownChunk(index);
    Meta &entry = chunk[address & ((1u << kChunkBits) - 1)];
    occupiedCount += entry.storedAt == kNever;
    return entry;
  }
  /// Chunk `index` of this SRAM's own, allocated for it: the image's
  /// copied, or a fresh one.
  Meta *ownChunk(size_t index);
  /// The values of `entry`, taking a pool slot on first use (and on the
  /// first write over the image's values).
  float *slotOf(Meta &entry) {
    if (entry.slot == kNoSlot || (entry.slot & kImageSlot)) {
      entry.slot = uint32_t(pool.size() / lanes);
      pool.resize(pool.size() + lanes);
    }
    return pool.data() + size_t(entry.slot) * lanes;
  }

  bool values;
  uint64_t occupiedCount = 0;
  uint32_t lanes;
  const Sram *image = nullptr;
  /// The state of each chunk of addresses: null where nothing is held,
  /// else this SRAM's own chunk in `owned` or the image's.
  std::vector<Meta *> chunks;
  std::vector<std::unique_ptr<Meta[]>> owned;
  std::vector<float, CachedAllocator<float>> pool;
  /// An image's: per pool slot, imageRow()'s extent and finiteness.
  std::vector<uint32_t> rowExtent;
  std::vector<uint8_t> rowFinite;
};

/// The lane words of `tensor`'s elements: its own data for float types,
/// otherwise converted into `storage`.
const float *laneWords(const io::Tensor &tensor, std::vector<float> &storage);

/// Checks a binding against the chip (dtype, shape, row width, SRAM range)
/// and computes its layout. `what` names it in errors, e.g. "input 'x'".
bool checkBinding(const hetx::TensorBinding &binding, const std::string &what,
                  const chip::ChipSpec &chip, BindingLayout &layout,
                  std::string &error);

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_SRAM_H
