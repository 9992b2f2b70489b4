//===- DataTypes.h - hetx element types as the chip model sees them -*- C++
//-*-//
//
// The artifact's DataType enum mapped to io::ElementType, and the 32-bit
// lane word each element type occupies in SRAM, on streams and in weight
// buffers (see hetx.proto): fp32 bits for float types (the narrow ones
// widened exactly), int32 bits for integer types and Bool.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_DATATYPES_H
#define HETC_RUNTIME_SIM_DATATYPES_H

#include "runtime/io/ElementType.h"
#include "runtime/schema/hetx.pb.h"
#include "runtime/sim/LaneMath.h"

#include <cstdint>
#include <cstring>
#include <optional>

namespace hetc::sim {

/// The element type of `type`, or nullopt for DTYPE_UNSPECIFIED and
/// unknown values.
inline std::optional<io::ElementType> elementTypeOf(hetx::DataType type) {
  switch (type) {
  case hetx::F32:
    return io::ElementType::F32;
  case hetx::F16:
    return io::ElementType::F16;
  case hetx::BF16:
    return io::ElementType::BF16;
  case hetx::I8:
    return io::ElementType::I8;
  case hetx::U8:
    return io::ElementType::U8;
  case hetx::I32:
    return io::ElementType::I32;
  case hetx::BOOL:
    return io::ElementType::Bool;
  case hetx::I64:
    return io::ElementType::I64;
  case hetx::I16:
    return io::ElementType::I16;
  case hetx::U16:
    return io::ElementType::U16;
  case hetx::U32:
    return io::ElementType::U32;
  case hetx::U64:
    return io::ElementType::U64;
  case hetx::F8E4M3FN:
    return io::ElementType::F8E4M3FN;
  case hetx::F8E4M3FNUZ:
    return io::ElementType::F8E4M3FNUZ;
  case hetx::F8E5M2:
    return io::ElementType::F8E5M2;
  case hetx::F8E5M2FNUZ:
    return io::ElementType::F8E5M2FNUZ;
  case hetx::F8E8M0:
    return io::ElementType::F8E8M0;
  case hetx::F4E2M1:
    return io::ElementType::F4E2M1;
  case hetx::I4:
    return io::ElementType::I4;
  case hetx::U4:
    return io::ElementType::U4;
  case hetx::I2:
    return io::ElementType::I2;
  case hetx::U2:
    return io::ElementType::U2;
  case hetx::F64:
    return io::ElementType::F64;
  default:
    return std::nullopt;
  }
}

/// The artifact's DataType of `type`, the inverse of elementTypeOf().
inline hetx::DataType dataTypeOf(io::ElementType type) {
  for (int raw = hetx::DataType_MIN; raw <= hetx::DataType_MAX; ++raw)
    if (hetx::DataType_IsValid(raw) &&
        elementTypeOf(hetx::DataType(raw)) == type)
      return hetx::DataType(raw);
  return hetx::DTYPE_UNSPECIFIED;
}

/// The bytes a lane of `type` takes in SRAM (docs/isa.md, "Native width"):
/// 4 for the 32-bit types and the integer types held as I32, 2 for F16 and
/// BF16, 1 for the 8-bit and narrower types. A row holds 4 / laneBytes
/// vectors of the type.
inline uint32_t sramLaneBytes(io::ElementType type) {
  switch (type) {
  case io::ElementType::F16:
  case io::ElementType::BF16:
    return 2;
  case io::ElementType::I8:
  case io::ElementType::U8:
  case io::ElementType::Bool:
  case io::ElementType::F8E4M3FN:
  case io::ElementType::F8E4M3FNUZ:
  case io::ElementType::F8E5M2:
  case io::ElementType::F8E5M2FNUZ:
  case io::ElementType::F8E8M0:
  case io::ElementType::F4E2M1:
  case io::ElementType::I4:
  case io::ElementType::U4:
  case io::ElementType::I2:
  case io::ElementType::U2:
    return 1;
  default:
    return 4;
  }
}

/// The int32 held in a lane word, and the lane word holding one
/// (LaneMath.h, shared with the device kernels).
inline int32_t intOfWord(float word) { return lane::intOf(word); }
inline float wordOfInt(int32_t value) { return lane::wordOf(value); }

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_DATATYPES_H
