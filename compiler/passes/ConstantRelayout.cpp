//===- ConstantRelayout.cpp - Constants laid out again for the chip ------===//

#include "compiler/passes/ConstantRelayout.h"

using namespace mlir;
using namespace hetc;

SmallVector<htile::ConstantOp> relayout::constantsOf(func::FuncOp func) {
  SmallVector<htile::ConstantOp> constants;
  func.walk([&](htile::ConstantOp constant) { constants.push_back(constant); });
  return constants;
}

void relayout::replaceConstant(
    htile::ConstantOp constant, MemRefType type, DenseElementsAttr value,
    function_ref<Value(OpOperand &, Value)> retarget) {
  OpBuilder builder(constant);
  auto replacement = htile::ConstantOp::create(
      builder, constant.getLoc(), type, value, constant.getAddressAttr());
  for (OpOperand &use :
       llvm::make_early_inc_range(constant.getBuffer().getUses()))
    use.set(retarget ? retarget(use, replacement.getBuffer())
                     : replacement.getBuffer());
  constant.erase();
}
