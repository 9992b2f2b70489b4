//===- HIsaDialect.cpp - The hisa dialect, types and attributes -------===//

#include "compiler/dialects/hisa/IR/HIsa.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace hetc::hisa;

#include "compiler/dialects/hisa/IR/HIsaDialect.cpp.inc"
#include "compiler/dialects/hisa/IR/HIsaEnums.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "compiler/dialects/hisa/IR/HIsaTypes.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "compiler/dialects/hisa/IR/HIsaAttrs.cpp.inc"

void HIsaDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "compiler/dialects/hisa/IR/HIsaTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "compiler/dialects/hisa/IR/HIsaAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "compiler/dialects/hisa/IR/HIsaOps.cpp.inc"
      >();
}
