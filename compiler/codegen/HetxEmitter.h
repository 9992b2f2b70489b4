//===- HetxEmitter.h - Scheduled hisa to a .hetx artifact ------*- C++ -*-===//
#ifndef HETC_COMPILER_CODEGEN_HETXEMITTER_H
#define HETC_COMPILER_CODEGEN_HETXEMITTER_H

#include "compiler/dialects/hetc/IR/NodeName.h"
#include "runtime/chip/ChipSpec.h"
#include "runtime/schema/hetx.pb.h"

#include "mlir/IR/BuiltinOps.h"

namespace hetc::codegen {

/// The producer string recorded in every artifact.
constexpr const char *kProducer = "hetc 0.1.0";

/// Builds the artifact for a module whose `main` function holds scheduled
/// hisa instructions: bindings, constants, the instruction stream sorted by
/// cycle, ONNX node names and per-kernel (per-node) cycle ranges. Emits an
/// error and fails if an instruction is unscheduled.
mlir::FailureOr<hetx::Artifact> emitArtifact(mlir::ModuleOp module,
                                             const chip::ChipSpec &chip);

} // namespace hetc::codegen

#endif // HETC_COMPILER_CODEGEN_HETXEMITTER_H
