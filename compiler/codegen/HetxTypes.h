//===- HetxTypes.h - hisa kinds and types as the artifact names them -*- C++
//-*-===//
//
// The artifact's opcodes for the vector unit's operation kinds and its
// DataType for MLIR element types, shared by the instruction stream and the
// kernel plan.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_CODEGEN_HETXTYPES_H
#define HETC_COMPILER_CODEGEN_HETXTYPES_H

#include "compiler/dialects/hisa/IR/HIsa.h"
#include "runtime/schema/hetx.pb.h"

#include <optional>

namespace hetc::codegen {

hetx::Opcode binaryOpcode(hisa::VBinaryKind kind);
hetx::Opcode unaryOpcode(hisa::VUnaryKind kind);
hetx::Opcode compareOpcode(hisa::VCompareKind kind);
hetx::Opcode reduceOpcode(hisa::VReduceKind kind);

/// The artifact's DataType for a lane type (hisa::isLaneType), and for i64
/// I64 in an input or output `binding` (int64 on the host, int32 lanes on
/// the chip) and I32 elsewhere; nullopt for other types.
std::optional<hetx::DataType> dataTypeOf(mlir::Type type, bool binding = false);

} // namespace hetc::codegen

#endif // HETC_COMPILER_CODEGEN_HETXTYPES_H
