//===- HIsa.h - The hisa dialect and its instructions ----------*- C++ -*-===//
#ifndef HETC_DIALECTS_HISA_IR_HISA_H
#define HETC_DIALECTS_HISA_IR_HISA_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "compiler/dialects/hisa/IR/HIsaDialect.h.inc"
#include "compiler/dialects/hisa/IR/HIsaEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialects/hisa/IR/HIsaTypes.h.inc"
#define GET_ATTRDEF_CLASSES
#include "compiler/dialects/hisa/IR/HIsaAttrs.h.inc"
#include "compiler/dialects/hisa/IR/HIsaInstruction.h"
#include "compiler/dialects/hisa/IR/HIsaInterfaces.h.inc"
#define GET_OP_CLASSES
#include "compiler/dialects/hisa/IR/HIsaOps.h.inc"

namespace hetc::hisa {

/// Whether `type` is an element type of the chip's lanes (docs/isa.md,
/// "Element types"): f32, f16, bf16, i8 (ONNX int8), ui8, i32, i1 (bool),
/// or one of the narrow types (isNarrowLane).
bool isLaneType(mlir::Type type);

/// Whether `type` is one of the 8- and 4-bit floats (f8E4M3FN, f8E4M3FNUZ,
/// f8E5M2, f8E5M2FNUZ, f8E8M0FNU, f4E2M1FN) or 4- and 2-bit integers (i4,
/// ui4, i2, ui2): lane types the chip moves and converts (vcast) but does
/// not compute on.
bool isNarrowLane(mlir::Type type);

/// The chip's lane types as errors list them.
inline constexpr const char *kLaneTypeNames =
    "f32, f16, bf16, i8, ui8, i32, i1; moved and converted only: f8E4M3FN, "
    "f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ, f8E8M0FNU, f4E2M1FN, i4, ui4, i2, ui2";

/// Every element type the chip holds, as errors list them: the lane types
/// (kLaneTypeNames), then those held in i32 lanes and in f32 lanes
/// (laneTypeOf).
std::string heldTypeNames();

/// The lane type that holds elements of `type` on the chip: `type` itself
/// for a lane type, i32 for the integer types held as int32 lanes and
/// converted at the chip's edge (i64, i16, ui16, ui32, ui64; docs/isa.md),
/// f32 for f64 (likewise), null otherwise.
mlir::Type laneTypeOf(mlir::Type type);

/// Whether `type` is held as i32 lanes but is narrower than int32 or
/// unsigned (i16, ui16, ui32, ui64): arithmetic whose result could leave
/// its range does not run on it, as the chip would not wrap as the type
/// does. (i64 is held as i32 too, and wraps at 32 bits.)
bool isNarrowHeld(mlir::Type type);

/// The bytes a lane of element type `type` takes in SRAM (docs/isa.md,
/// "Native width"): 2 for f16 and bf16, 1 for i8, ui8, i1 and the narrow
/// lane types, 4 for the rest (f32, i32 and the types held as i32). A row
/// holds `4 / sramLaneBytes` vectors of the type.
int64_t sramLaneBytes(mlir::Type type);

/// Whether `type` is one of the float lane types f32, f16 and bf16.
bool isFloatLane(mlir::Type type);

/// Whether the vector unit defines `kind` on lanes of `type` (docs/isa.md,
/// "Element types"), and the lane types it is defined on, as errors list
/// them. The instructions' verifiers and the lowering of hgraph ops check
/// the one rule through these.
bool isDefinedOn(VBinaryKind kind, mlir::Type type);
bool isDefinedOn(VUnaryKind kind, mlir::Type type);
/// Comparisons (vcompare) of any kind.
bool isComparisonDefinedOn(mlir::Type type);
llvm::StringRef typesDefinedOn(VBinaryKind kind);
llvm::StringRef typesDefinedOn(VUnaryKind kind);
inline constexpr const char *kComparisonTypes = "f32, f16, bf16, i32 and i1";

/// The element type instruction `op` works on: its `dtype` attribute, or
/// f32 when it has none.
mlir::Type dtypeOf(mlir::Operation *op);

} // namespace hetc::hisa

#endif // HETC_DIALECTS_HISA_IR_HISA_H
