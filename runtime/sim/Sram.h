//===- Sram.h - The MEM slices and the tensors laid out in them -*- C++ -*-===//
//
// SRAM contents and, per word, when its last write stores (timing rule 5).
// A word is a quarter of a row (`lanes` bytes): a vector takes as many words
// as a lane of its type takes bytes (docs/isa.md, "Native width"), from the
// word `row * 4 + part * width`. Tensors are placed as hetx.proto's
// TensorBinding describes: row r of the tensor flattened to rows x cols is
// vectors r * vectors_per_row onwards, element c is lane c % lanes of its
// vector c / lanes, and padding lanes are zero.
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
/// per row; in SRAM, vector v starts at word `word + v * step` and takes
/// `width` words.
struct BindingLayout {
  io::ElementType type = io::ElementType::F32;
  uint64_t rows = 1;
  uint64_t cols = 1;
  uint64_t elements = 1;
  uint64_t vectors = 0;
  uint64_t word = 0;
  uint32_t step = 4;
  uint32_t width = 4;
  /// The SRAM rows it spans from its address.
  uint64_t sramRows() const { return (vectors * step + 3) / 4; }
};

/// The SRAM of a chip. Only what a program touches costs memory or time:
/// the per-word state lives in chunks allocated on first use and each
/// vector's values in a pool slot taken on first write, so that a small
/// program on a large chip starts fast. An SRAM built without values keeps
/// only the timing state of each word.
class Sram {
public:
  /// `storedAt` of a word that was never written.
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::min();
  /// `writer` of a word that holds an input or a constant.
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

  /// Cycle at which the last write to `word` stores (-1 for preloaded
  /// data, kNever if none).
  int64_t storedAt(uint64_t word) const {
    const Meta *entry = find(word);
    return entry ? entry->storedAt : kNever;
  }
  /// The instruction that last wrote `word`, or kPreloaded.
  uint32_t writer(uint64_t word) const {
    const Meta *entry = find(word);
    return entry ? entry->writer : 0;
  }
  /// Whether a whole vector of `width` words starts at `word`: written
  /// there at that width and not overwritten in part since.
  bool holds(uint64_t word, uint32_t width) const {
    const Meta *entry = find(word);
    return entry && entry->width == width;
  }
  /// Words that hold data: preloaded, or written at least once.
  uint64_t occupied() const { return occupiedCount; }

  /// The vector at `word`; null if no vector starts there or the SRAM
  /// keeps no values.
  const float *vector(uint64_t word) const {
    const Meta *entry = find(word);
    if (!entry || entry->slot == kNoSlot)
      return nullptr;
    if (entry->slot & kImageSlot)
      return image->pool.data() + size_t(entry->slot & ~kImageSlot) * lanes;
    return pool.data() + size_t(entry->slot) * lanes;
  }
  /// The vector at `word` if it is the image's (see Sram(const Sram &,
  /// bool)) and so stays unchanged while this SRAM lives, whatever is
  /// written; null otherwise.
  const float *fixedVector(uint64_t word) const {
    const Meta *entry = find(word);
    return entry && entry->slot != kNoSlot && (entry->slot & kImageSlot)
               ? image->pool.data() + size_t(entry->slot & ~kImageSlot) * lanes
               : nullptr;
  }
  /// Stores the vector `data` (ignored without values) of `width` words
  /// at `word` on behalf of instruction `writer`; the write lands at
  /// `storedAt`.
  void write(uint64_t word, uint32_t width, const float *data,
             uint32_t writer, int64_t storedAt) {
    float *out = place(word, width, writer, storedAt);
    if (out && data)
      std::memcpy(out, data, sizeof(float) * lanes);
  }
  /// Records a write of a vector of `width` words at `word` by `writer`
  /// landing at `storedAt` and returns where its values go (null without
  /// values), for the caller to fill. A vector it overwrites in part is no
  /// longer whole (holds() is false for it).
  float *place(uint64_t word, uint32_t width, uint32_t writer,
               int64_t storedAt);

  /// Ends a run: every word that holds data counts from now on as data
  /// present before cycle 0 (stored at -1 by no instruction), so that the
  /// next run reads what this one left, as a chip running one program
  /// after another would.
  void settle();
  /// Makes room for the values of `vectors` vectors at once, so that the
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
  /// Words per chunk of state, a power of two.
  static constexpr unsigned kChunkBits = 10;
  /// The state of a word. A vector's first word (its head) holds its
  /// values' slot and width; each of its words records the write and how
  /// far back its head is.
  struct Meta {
    int64_t storedAt = kNever;
    uint32_t writer = 0;
    uint32_t slot = kNoSlot;
    /// Width of the whole vector that starts here; 0 for none.
    uint8_t width = 0;
    /// Words back to the head of the vector this word belongs to.
    uint8_t lead = 0;
  };

  const Meta *find(uint64_t word) const {
    const Meta *chunk = chunks[word >> kChunkBits];
    return chunk ? &chunk[word & ((1u << kChunkBits) - 1)] : nullptr;
  }
  /// The state of `word`, counted as occupied from now on.
  Meta &claim(uint64_t word) {
    size_t index = word >> kChunkBits;
    Meta *chunk = chunks[index];
    if (!chunk || chunk != owned[index].get())
      chunk = ownChunk(index);
    Meta &entry = chunk[word & ((1u << kChunkBits) - 1)];
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
  /// The state of each chunk of words: null where nothing is held,
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

/// Makes `tensor`, whose `data` holds lane words, a tensor of its type:
/// the inverse of laneWords(). The words of a float type are its values;
/// those of the other types are int32s, moved to where integer tensors
/// keep their elements.
void keepLaneWords(io::Tensor &tensor);

/// Checks a binding against the chip (dtype, shape, row width, SRAM range)
/// and computes its layout. `what` names it in errors, e.g. "input 'x'".
bool checkBinding(const hetx::TensorBinding &binding, const std::string &what,
                  const chip::ChipSpec &chip, BindingLayout &layout,
                  std::string &error);

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_SRAM_H
