//===- Sram.cpp - The MEM slices and the tensors laid out in them ------===//

#include "runtime/sim/Sram.h"

#include "runtime/sim/BindingIo.h"
#include "runtime/sim/DataTypes.h"
#include "runtime/sim/HostMemory.h"
#include "runtime/sim/VectorMath.h"

#include <algorithm>
#include <cstring>

namespace hetc::sim {

Sram::Sram(const chip::ChipSpec &chip, bool values)
    : values(values), lanes(chip.lanes()),
      chunks(((chip.totalVectors() * 4) >> kChunkBits) + 1, nullptr),
      owned(chunks.size()) {}

Sram::Sram(const Sram &image, bool values)
    : values(values), occupiedCount(image.occupiedCount), lanes(image.lanes),
      image(&image), chunks(image.chunks), owned(chunks.size()) {}

void Sram::makeImage() {
  for (Meta *chunk : chunks)
    if (chunk)
      for (size_t i = 0; i < (size_t(1) << kChunkBits); ++i)
        if (chunk[i].slot != kNoSlot)
          chunk[i].slot |= kImageSlot;
  size_t slots = pool.size() / lanes;
  rowExtent.resize(slots);
  rowFinite.resize(slots);
  for (size_t slot = 0; slot < slots; ++slot) {
    bool finite = true;
    rowExtent[slot] =
        copyWeightRow(pool.data() + slot * lanes, nullptr, lanes, finite);
    rowFinite[slot] = finite;
  }
  image = this;
}

Sram::Meta *Sram::ownChunk(size_t index) {
  constexpr size_t kChunk = size_t(1) << kChunkBits;
  owned[index] = std::make_unique<Meta[]>(kChunk);
  if (chunks[index])
    std::copy(chunks[index], chunks[index] + kChunk, owned[index].get());
  return chunks[index] = owned[index].get();
}

void Sram::settle() {
  constexpr size_t kChunk = size_t(1) << kChunkBits;
  for (size_t index = 0; index < owned.size(); ++index) {
    if (!owned[index] || chunks[index] != owned[index].get())
      continue;
    for (size_t k = 0; k < kChunk; ++k) {
      Meta &entry = owned[index][k];
      if (entry.storedAt == kNever)
        continue;
      entry.storedAt = -1;
      entry.writer = kPreloaded;
    }
  }
}

float *Sram::place(uint64_t word, uint32_t width, uint32_t writer,
                   int64_t storedAt) {
  // A vector this one overlaps, unless it has this one's place and width,
  // is no longer whole: its head loses its width and its words outside this
  // one belong to no vector, so that reading it is a width mismatch.
  for (uint32_t k = 0; k < width; ++k) {
    const Meta *entry = find(word + k);
    if (!entry || entry->storedAt == kNever)
      continue;
    uint64_t head = word + k - entry->lead;
    uint32_t old = find(head)->width;
    if (old == 0 || (head == word && old == width))
      continue;
    claim(head).width = 0;
    for (uint32_t j = 0; j < old; ++j)
      claim(head + j).lead = 0;
  }
  for (uint32_t k = 0; k < width; ++k) {
    Meta &entry = claim(word + k);
    entry.storedAt = storedAt;
    entry.writer = writer;
    entry.lead = uint8_t(k);
    entry.width = uint8_t(k ? 0 : width);
  }
  return values ? slotOf(claim(word)) : nullptr;
}

void Sram::preload(const hetx::TensorBinding &binding,
                   const BindingLayout &layout, const float *words) {
  placeRows(*this, {layout.word, layout.step, layout.width, 4}, layout.rows,
            layout.cols, binding.vectors_per_row(), lanes,
            values ? words : nullptr, kPreloaded);
}

bool Sram::fetch(const hetx::TensorBinding &binding,
                 const BindingLayout &layout, io::Tensor &out,
                 std::string &error) const {
  out.type = layout.type;
  out.shape.assign(binding.shape().begin(), binding.shape().end());
  return gatherRows(*this, {layout.word, layout.step, layout.width, 4},
                    layout.rows, layout.cols, binding.vectors_per_row(), lanes,
                    values, binding.name(), out, error);
}

void HostMemory::preload(const hetx::TensorBinding &binding,
                         const BindingLayout &layout, const float *words) {
  placeRows(*this, {binding.host_address(), 1, 1, 1}, layout.rows, layout.cols,
            binding.vectors_per_row(), lanes, values ? words : nullptr,
            Sram::kPreloaded);
}

bool HostMemory::fetch(const hetx::TensorBinding &binding,
                       const BindingLayout &layout, io::Tensor &out,
                       std::string &error) const {
  out.type = layout.type;
  out.shape.assign(binding.shape().begin(), binding.shape().end());
  return gatherRows(*this, {binding.host_address(), 1, 1, 1}, layout.rows,
                    layout.cols, binding.vectors_per_row(), lanes, values,
                    binding.name(), out, error);
}

const float *laneWords(const io::Tensor &tensor, std::vector<float> &storage) {
  if (io::isFloat(tensor.type))
    return tensor.data.data();
  storage.clear();
  storage.reserve(tensor.ints.size());
  for (int32_t value : tensor.ints)
    storage.push_back(wordOfInt(value));
  return storage.data();
}

void keepLaneWords(io::Tensor &tensor) {
  if (io::isFloat(tensor.type))
    return;
  tensor.ints.clear();
  tensor.ints.reserve(tensor.data.size());
  for (float word : tensor.data)
    tensor.ints.push_back(intOfWord(word));
  tensor.data.clear();
}

bool checkBinding(const hetx::TensorBinding &binding, const std::string &what,
                  const chip::ChipSpec &chip, BindingLayout &layout,
                  std::string &error) {
  auto fail = [&](const std::string &why) {
    error = what + ": " + why;
    return false;
  };
  std::optional<io::ElementType> type = elementTypeOf(binding.dtype());
  if (!type)
    return fail("dtype " + std::to_string(binding.dtype()) +
                " is not an element type the chip holds");
  layout.type = *type;
  std::vector<int64_t> shape(binding.shape().begin(), binding.shape().end());
  std::vector<int64_t> rowDims(shape.begin(),
                               shape.empty() ? shape.end() : shape.end() - 1);
  constexpr uint64_t kLimit = uint64_t(1) << 40;
  if (!io::elementCount(shape, layout.elements) ||
      !io::elementCount(rowDims, layout.rows) || layout.elements > kLimit ||
      layout.rows > kLimit)
    return fail("shape " + io::shapeString(shape) + " is invalid or too large");
  layout.cols = shape.empty() ? 1 : uint64_t(shape.back());
  uint64_t lanes = chip.lanes();
  uint64_t needed = (layout.cols + lanes - 1) / lanes;
  uint64_t perRow = binding.vectors_per_row();
  if (perRow < needed)
    return fail("a row of " + std::to_string(layout.cols) + " elements needs " +
                std::to_string(needed) + " vectors of " +
                std::to_string(lanes) + " lanes, but vectors_per_row is " +
                std::to_string(perRow));
  // Vectors of a narrow type share rows when packed (isa.md, "Native
  // width").
  layout.width = sramLaneBytes(layout.type);
  layout.step = binding.packed() ? layout.width : 4;
  uint64_t total = chip.totalVectors();
  uint64_t perAddress = 4 / layout.step;
  uint64_t room = binding.address() <= total
                      ? (total - binding.address()) * perAddress
                      : 0;
  bool fits = layout.rows == 0 || perRow <= room / layout.rows;
  if (!fits)
    return fail("it takes " + std::to_string(layout.rows) + " x " +
                std::to_string(perRow) + " vectors of " +
                io::typeName(layout.type) + (binding.packed() ? ", packed," : "") +
                " from address " + std::to_string(binding.address()) +
                ", beyond the chip's SRAM of " + std::to_string(total) +
                " rows");
  layout.word = binding.address() * 4;
  layout.vectors = layout.rows * perRow;
  return true;
}

} // namespace hetc::sim
