//===- HTile.h - The htile dialect and its operators -----------*- C++ -*-===//
#ifndef HETC_DIALECTS_HTILE_IR_HTILE_H
#define HETC_DIALECTS_HTILE_IR_HTILE_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "compiler/dialects/hisa/IR/HIsa.h"

#include "compiler/dialects/htile/IR/HTileDialect.h.inc"

namespace hetc::htile {

/// The trait of ops for the kernel plan only (htile.plan_*). Such an op
/// writes its output as the chip kernels before it that fill that buffer
/// do, in one kernel another backend runs directly; the kernel plan runs it
/// in their place (codegen::emitKernelPlan drops what only they needed).
/// The chip runs nothing for it: memory planning and the passes that
/// rewrite kernels do not count its uses, and a pass that removes a buffer
/// it uses removes it too.
template <typename ConcreteType>
class PlanOnly : public mlir::OpTrait::TraitBase<ConcreteType, PlanOnly> {};

/// Whether `op` is for the kernel plan only.
inline bool isPlanOnly(mlir::Operation *op) { return op->hasTrait<PlanOnly>(); }

} // namespace hetc::htile

#include "compiler/dialects/htile/IR/HTileEnums.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialects/htile/IR/HTileOps.h.inc"

namespace hetc::htile {

/// Whether `buffer` is used, and only by ops of the kernel plan (directly
/// or through views): the chip never touches it, so it takes no SRAM.
bool isPlanOnlyBuffer(mlir::Value buffer);

/// The buffer an op of the kernel plan only writes.
mlir::Value planOutput(mlir::Operation *op);

} // namespace hetc::htile

#include <optional>
#include <utility>

namespace hetc::htile {

/// The vector unit's unary operation a matmul's `activation` applies, or
/// nullopt for none.
std::optional<hisa::VUnaryKind> activationKind(Activation activation);

/// A comparison kind as the vector unit computes it: its comparison, and
/// whether the operands swap (greater is less with them swapped); nullopt
/// for the kinds that are not comparisons.
std::optional<std::pair<hisa::VCompareKind, bool>>
comparisonOf(BinaryKind kind);

} // namespace hetc::htile

#endif // HETC_DIALECTS_HTILE_IR_HTILE_H
