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

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace hetc::sim {

/// The layout of a binding: rows x cols, with `vectors_per_row` vectors
/// per row.
struct BindingLayout {
  uint64_t rows = 1;
  uint64_t cols = 1;
  uint64_t elements = 1;
  uint64_t vectors = 0;
};

/// The SRAM of a chip. Slices are allocated when first written.
class Sram {
public:
  /// `storedAt` of an address that was never written.
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::min();
  /// `writer` of an address that holds an input or a constant.
  static constexpr uint32_t kPreloaded = std::numeric_limits<uint32_t>::max();

  explicit Sram(const chip::ChipSpec &chip);

  /// Cycle at which the last write to `address` stores (-1 for preloaded
  /// data, kNever if none).
  int64_t storedAt(uint64_t address) const { return meta[address].storedAt; }
  /// The instruction that last wrote `address`, or kPreloaded.
  uint32_t writer(uint64_t address) const { return meta[address].writer; }

  /// The vector at `address`; null if its slice was never written.
  const float *vector(uint64_t address) const;
  /// Stores `data` at `address` on behalf of instruction `writer`; the
  /// write lands at `storedAt`.
  void write(uint64_t address, const float *data, uint32_t writer,
             int64_t storedAt);

  /// Places `elements` (row-major, as `layout` counts them) where
  /// `binding` says, as data present before cycle 0.
  void preload(const hetx::TensorBinding &binding, const BindingLayout &layout,
               const float *elements);
  /// Reads the tensor `binding` describes. Fails, naming the binding, when
  /// part of it was never written.
  bool fetch(const hetx::TensorBinding &binding, const BindingLayout &layout,
             io::Tensor &out, std::string &error) const;

private:
  struct Meta {
    int64_t storedAt = kNever;
    uint32_t writer = 0;
  };
  float *mutableVector(uint64_t address);

  uint32_t lanes;
  uint64_t vectorsPerSlice;
  std::vector<std::unique_ptr<float[]>> slices;
  std::vector<Meta> meta;
};

/// Checks a binding against the chip (dtype, shape, row width, SRAM range)
/// and computes its layout. `what` names it in errors, e.g. "input 'x'".
bool checkBinding(const hetx::TensorBinding &binding, const std::string &what,
                  const chip::ChipSpec &chip, BindingLayout &layout,
                  std::string &error);

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_SRAM_H
