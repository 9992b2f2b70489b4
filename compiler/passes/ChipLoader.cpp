//===- ChipLoader.cpp - The chip description for passes --------------===//

#include "compiler/passes/ChipLoader.h"

#include "compiler/dialects/hetc/IR/HetcTarget.h"
#include "compiler/dialects/hisa/IR/HIsa.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;

LogicalResult hetc::forEachFunctionOnChip(
    ModuleOp module, StringRef passArg,
    function_ref<LogicalResult(func::FuncOp, const chip::ChipSpec &)> fn) {
  FailureOr<chip::ChipSpec> spec = target::getChip(module, passArg);
  if (failed(spec))
    return failure();
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  for (func::FuncOp func : funcs)
    if (failed(fn(func, *spec)))
      return failure();
  return success();
}
