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

hetc::BufferLayout hetc::layoutOf(ShapedType type, uint32_t lanes) {
  BufferLayout layout = layoutOf(type.getShape(), lanes);
  layout.perSramRow = 4 / hisa::sramLaneBytes(type.getElementType());
  return layout;
}

hetc::BufferLayout hetc::layoutOf(ArrayRef<int64_t> shape, uint32_t lanes) {
  BufferLayout layout;
  if (shape.empty())
    return layout;
  layout.cols = shape.back();
  for (int64_t d : shape.drop_back())
    layout.rows *= d;
  layout.vectorsPerRow = (layout.cols + lanes - 1) / lanes;
  if (layout.cols == 0)
    layout.rows = 0;
  return layout;
}
