//===- KernelPlanEmitter.h - Placed htile to the artifact's kernel plan -*- C++
//-*-===//
//
// The kernel plan is the program at kernel level (docs/backends.md): the
// htile buffers and kernels of the module's function, in program order, which
// backends other than the chip run. Constants are not copied: a plan buffer
// names the artifact constant at its SRAM address.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_CODEGEN_KERNELPLANEMITTER_H
#define HETC_COMPILER_CODEGEN_KERNELPLANEMITTER_H

#include "runtime/schema/hetx.pb.h"

#include "mlir/IR/BuiltinOps.h"

namespace hetc::codegen {

/// Builds the kernel plan of a module whose one function holds placed htile
/// (every buffer has an address). Emits an error naming the op and fails
/// on anything a plan cannot express.
mlir::FailureOr<hetx::KernelPlan> emitKernelPlan(mlir::ModuleOp module);

/// Appends `indices` (-1: a zero) to `runs` as (first, step, count)
/// triples, each run within one of the lists `bounds` separates (the
/// exclusive ends of the inputs, increasing).
void appendIndexRuns(llvm::ArrayRef<int64_t> indices,
                     llvm::ArrayRef<int64_t> bounds,
                     google::protobuf::RepeatedField<int64_t> &runs);

} // namespace hetc::codegen

#endif // HETC_COMPILER_CODEGEN_KERNELPLANEMITTER_H
