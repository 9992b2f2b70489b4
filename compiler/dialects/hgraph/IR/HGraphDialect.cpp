//===- HGraphDialect.cpp - The hgraph dialect -------------------------===//

#include "compiler/dialects/hgraph/IR/HGraph.h"

using namespace mlir;
using namespace hetc::hgraph;

#include "compiler/dialects/hgraph/IR/HGraphDialect.cpp.inc"
#include "compiler/dialects/hgraph/IR/HGraphEnums.cpp.inc"

void HGraphDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "compiler/dialects/hgraph/IR/HGraphOps.cpp.inc"
      >();
}

Operation *HGraphDialect::materializeConstant(OpBuilder &builder,
                                              Attribute value, Type type,
                                              Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
