//===- HTileDialect.cpp - The htile dialect ---------------------------===//

#include "compiler/dialects/htile/IR/HTile.h"

using namespace mlir;
using namespace hetc::htile;

#include "compiler/dialects/htile/IR/HTileDialect.cpp.inc"
#include "compiler/dialects/htile/IR/HTileEnums.cpp.inc"

void HTileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "compiler/dialects/htile/IR/HTileOps.cpp.inc"
      >();
}
