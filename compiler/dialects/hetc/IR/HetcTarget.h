//===- HetcTarget.h - The hetc target dialect ------------------*- C++ -*-===//
#ifndef HETC_DIALECTS_HETC_IR_HETCTARGET_H
#define HETC_DIALECTS_HETC_IR_HETCTARGET_H

#include "runtime/chip/ChipSpec.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"

#include "compiler/dialects/hetc/IR/HetcTargetDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/dialects/hetc/IR/HetcTargetAttrs.h.inc"

namespace hetc::target {

/// The name of the module attribute that holds the chip.
inline constexpr llvm::StringLiteral kChipAttrName = "hetc.chip";
/// The name of the module attribute that holds the SRAM layout of another
/// program that this module's shares (compiler/passes/SharedLayout.h).
inline constexpr llvm::StringLiteral kSharedLayoutAttrName =
    "hetc.shared_layout";

/// The figures the passes record on a function they compiled (integers):
/// the most SRAM vectors live at once and the bytes the tensors live then
/// hold at their own element width (hetc-htile-plan-memory), the
/// instruction count, the predicted cycles and the scheduler's lower bound
/// (hetc-hisa-schedule), the physical bound (hetc-htile-physical-bound);
/// and the two bounds' reasons (strings).
inline constexpr llvm::StringLiteral kFunctionFigures[] = {
    "hetc.sram_peak_vectors", "hetc.sram_peak_tensor_bytes",
    "hetc.instructions", "hetc.predicted_cycles", "hetc.lower_bound",
    "hetc.physical_bound"};
inline constexpr llvm::StringLiteral kLowerBoundReasonAttrName =
    "hetc.lower_bound_reason";
/// The chip's physical limit for the program (hetc-htile-physical-bound)
/// and the terms it is the largest of.
inline constexpr llvm::StringLiteral kPhysicalBoundAttrName =
    "hetc.physical_bound";
inline constexpr llvm::StringLiteral kPhysicalBoundReasonAttrName =
    "hetc.physical_bound_reason";
/// The buffers live at the SRAM peak with the most padding
/// (hetc-htile-plan-memory's peak-buffers): an array of dictionaries of
/// `node` (a string), `type` (a type), `vectors` and `tensor_bytes`
/// (integers).
inline constexpr llvm::StringLiteral kSramPeakBuffersAttrName =
    "hetc.sram_peak_buffers";

/// The attribute describing `spec`.
ChipAttr getChipAttr(mlir::MLIRContext *context, const chip::ChipSpec &spec);

/// Sets `module`'s chip.
void setChip(mlir::ModuleOp module, const chip::ChipSpec &spec);

/// The chip `module` is compiled for; when it has none, emits an error on
/// the module saying that `passArg` needs one and how to set it.
mlir::FailureOr<chip::ChipSpec> getChip(mlir::ModuleOp module,
                                        llvm::StringRef passArg);

} // namespace hetc::target

#endif // HETC_DIALECTS_HETC_IR_HETCTARGET_H
