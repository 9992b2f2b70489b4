//===- HIsa.h - The hisa dialect and its instructions ----------*- C++ -*-===//
#ifndef HETC_DIALECTS_HISA_IR_HISA_H
#define HETC_DIALECTS_HISA_IR_HISA_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "compiler/dialects/hisa/IR/HIsaDialect.h.inc"
#include "compiler/dialects/hisa/IR/HIsaEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialects/hisa/IR/HIsaTypes.h.inc"
#define GET_ATTRDEF_CLASSES
#include "compiler/dialects/hisa/IR/HIsaAttrs.h.inc"
#define GET_OP_CLASSES
#include "compiler/dialects/hisa/IR/HIsaOps.h.inc"

#endif // HETC_DIALECTS_HISA_IR_HISA_H
