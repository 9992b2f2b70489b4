//===- HGraph.h - The hgraph dialect and its operators ---------*- C++ -*-===//
#ifndef HETC_DIALECTS_HGRAPH_IR_HGRAPH_H
#define HETC_DIALECTS_HGRAPH_IR_HGRAPH_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "compiler/dialects/hgraph/IR/HGraphDialect.h.inc"
#include "compiler/dialects/hgraph/IR/HGraphEnums.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialects/hgraph/IR/HGraphOps.h.inc"

namespace hetc::hgraph {
/// The attribute naming a model input or output (on func arguments/results).
constexpr llvm::StringLiteral kNameAttr = "hgraph.name";
} // namespace hetc::hgraph

#endif // HETC_DIALECTS_HGRAPH_IR_HGRAPH_H
