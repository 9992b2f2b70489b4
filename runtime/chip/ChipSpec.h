//===- ChipSpec.h - A loaded, validated chip description -------*- C++ -*-===//
//
// The chip file (runtime/schema/chip.proto, text format) is the one source of
// chip facts for the compiler and the chip model. ChipSpec loads and checks
// it and answers the geometric questions both sides ask (floorplan
// positions, address decoding); timing rules live with each user.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_CHIP_CHIPSPEC_H
#define HETC_RUNTIME_CHIP_CHIPSPEC_H

#include "runtime/schema/chip.pb.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace hetc::chip {

/// Bytes of one vector element. Every tensor is fp32 for now; the stream
/// group that carries a vector is this many byte-wide streams wide.
constexpr uint32_t kElementBytes = 4;

/// A validated chip description with derived geometry.
class ChipSpec {
public:
  /// Parses `text` (protobuf text format); `source` names it in errors.
  /// Returns false and sets `error` on a syntax error or an invalid field.
  static bool parse(const std::string &text, const std::string &source,
                    ChipSpec &out, std::string &error);
  /// Reads and parses the chip file at `path`.
  static bool load(const std::string &path, ChipSpec &out, std::string &error);

  const Chip &proto() const { return chip; }
  const std::string &name() const { return chip.name(); }
  uint32_t lanes() const { return chip.lanes(); }
  double clockMHz() const { return chip.clock_mhz(); }

  /// fp32 vectors one MEM slice holds.
  uint64_t vectorsPerSlice() const { return vectorsPerSliceValue; }
  /// fp32 vectors the whole SRAM holds (the address space).
  uint64_t totalVectors() const {
    return vectorsPerSliceValue * chip.memory().slices();
  }
  /// The slice that holds `address`, and the address's row within it
  /// (docs/chip-model.md, "Addresses"): runs of `memory.interleave_vectors`
  /// addresses go to slice after slice, or, without interleaving, each
  /// slice holds `vectorsPerSlice()` consecutive addresses.
  uint32_t sliceOf(uint64_t address) const {
    if (interleaveValue == 0)
      return static_cast<uint32_t>(address / vectorsPerSliceValue);
    return static_cast<uint32_t>((address / interleaveValue) %
                                 chip.memory().slices());
  }
  uint64_t rowInSlice(uint64_t address) const {
    if (interleaveValue == 0)
      return address % vectorsPerSliceValue;
    uint64_t run = interleaveValue * chip.memory().slices();
    return address / run * interleaveValue + address % interleaveValue;
  }
  uint32_t bankOf(uint64_t address) const {
    return static_cast<uint32_t>(rowInSlice(address) %
                                 chip.memory().banks_per_slice());
  }
  /// The bank holding `address`, numbered over the whole chip (slice by
  /// slice, then bank within its slice): two reads of one bank in a cycle
  /// conflict.
  uint64_t chipBankOf(uint64_t address) const {
    return uint64_t(sliceOf(address)) * chip.memory().banks_per_slice() +
           bankOf(address);
  }
  /// Whether addresses are interleaved over the slices.
  bool interleaved() const { return interleaveValue != 0; }
  /// The consecutive addresses one slice holds: a run of the interleaving,
  /// or the whole slice.
  uint64_t runVectors() const {
    return interleaveValue ? interleaveValue : vectorsPerSliceValue;
  }
  /// Stream groups (one vector each) per direction, and their width.
  uint32_t streamGroupWidth() const { return kElementBytes; }
  uint32_t streamGroups() const {
    return chip.streams().per_direction() / kElementBytes;
  }

  /// Floorplan positions, west (0) to east.
  uint32_t slicePosition(uint32_t slice) const { return slicePos.at(slice); }
  uint32_t planePosition(uint32_t plane) const { return planePos.at(plane); }
  uint32_t vectorPosition() const { return vectorPos; }
  /// Switch unit `k` is the k-th SWITCH entry of the floorplan.
  uint32_t switchPosition(uint32_t unit) const { return switchPos.at(unit); }
  uint32_t switches() const { return uint32_t(switchPos.size()); }
  /// The switch unit C2C link `link` attaches to.
  uint32_t linkSwitch(uint32_t link) const {
    return link % uint32_t(switchPos.size());
  }
  /// Cycles a C2C link takes per vector: ceil(lanes * 4 /
  /// c2c.bytes_per_cycle).
  uint32_t linkCyclesPerVector() const {
    uint64_t bytes = uint64_t(lanes()) * kElementBytes;
    uint64_t rate = chip.c2c().bytes_per_cycle();
    return uint32_t((bytes + rate - 1) / rate);
  }
  uint32_t positions() const { return positionCount; }
  /// Cycles a DMA engine takes per vector: ceil(lanes * 4 /
  /// dma.bytes_per_cycle).
  uint32_t dmaCyclesPerVector() const {
    uint64_t bytes = uint64_t(lanes()) * kElementBytes;
    uint64_t rate = chip.dma().bytes_per_cycle();
    return uint32_t((bytes + rate - 1) / rate);
  }

  /// Cycles a plane is busy with one M_MATMUL whose inputs are `bits`
  /// wide: 1 for 8-bit, matrix.cycles_16bit / cycles_32bit (at least 1)
  /// for wider ones.
  uint32_t matmulCycles(unsigned bits) const {
    uint32_t cycles = bits <= 8    ? 1
                      : bits <= 16 ? chip.matrix().cycles_16bit()
                                   : chip.matrix().cycles_32bit();
    return cycles == 0 ? 1 : cycles;
  }

  /// Weight rows one plane takes per cycle (matrix.install_rows, at
  /// least 1).
  uint32_t installRows() const {
    return std::max<uint32_t>(chip.matrix().install_rows(), 1);
  }

  /// FNV-1a 64 of the canonical binary form: the identity a .hetx records.
  uint64_t fingerprint() const { return fingerprintValue; }

private:
  bool validate(const std::string &source, std::string &error);

  Chip chip;
  uint64_t vectorsPerSliceValue = 0;
  /// memory.interleave_vectors, 0 when a slice holds one range.
  uint64_t interleaveValue = 0;
  std::vector<uint32_t> slicePos;
  std::vector<uint32_t> planePos;
  std::vector<uint32_t> switchPos;
  uint32_t vectorPos = 0;
  uint32_t positionCount = 0;
  uint64_t fingerprintValue = 0;
};

/// FNV-1a 64 over `bytes`; used for chip fingerprints and .hetx checksums.
uint64_t fnv1a64(const char *bytes, size_t size);
inline uint64_t fnv1a64(const std::string &bytes) {
  return fnv1a64(bytes.data(), bytes.size());
}

} // namespace hetc::chip

#endif // HETC_RUNTIME_CHIP_CHIPSPEC_H
