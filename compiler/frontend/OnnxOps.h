//===- OnnxOps.h - Per-operator ONNX import rules ---------------*- C++ -*-===//
#ifndef HETC_COMPILER_FRONTEND_ONNXOPS_H
#define HETC_COMPILER_FRONTEND_ONNXOPS_H

#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"

#include <onnx/onnx_pb.h>

namespace hetc::frontend {

/// What an operator import rule sees of one ONNX node.
struct NodeContext {
  mlir::OpBuilder &builder;
  mlir::Location loc;
  const onnx::NodeProto &node;
  /// The node's name (or a generated one when the model leaves it empty).
  std::string name;
  /// The default-domain opset the model imports.
  int64_t opset;
  /// The node's inputs; a missing optional input is a null Value.
  llvm::SmallVector<mlir::Value> inputs;

  /// Emits an error naming the node and returns failure.
  mlir::InFlightDiagnostic error();

  /// Attribute lookups with ONNX defaults.
  int64_t intAttr(llvm::StringRef name, int64_t fallback) const;
  float floatAttr(llvm::StringRef name, float fallback) const;
  std::optional<llvm::SmallVector<int64_t>> intsAttr(llvm::StringRef name) const;
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
};

/// Imports one node; returns its results (one Value per ONNX output).
using ImportRule =
    mlir::FailureOr<llvm::SmallVector<mlir::Value>> (*)(NodeContext &);

/// The rule for `opType` in the default domain, or null if unsupported.
ImportRule lookupImportRule(llvm::StringRef opType);

/// Converts a TensorProto (raw or typed fields) into an elements attribute;
/// `what` names it in the error message.
mlir::FailureOr<mlir::DenseElementsAttr>
tensorToAttr(const onnx::TensorProto &tensor, mlir::MLIRContext *context,
             std::string &error);

} // namespace hetc::frontend

#endif // HETC_COMPILER_FRONTEND_ONNXOPS_H
