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
#include "compiler/dialects/htile/IR/HTileEnums.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialects/htile/IR/HTileOps.h.inc"

#endif // HETC_DIALECTS_HTILE_IR_HTILE_H
