//===- OnnxImporter.h - ONNX ModelProto to hgraph --------------*- C++ -*-===//
//
// Imports an ONNX model into a module holding one `func.func @main` in the
// hgraph dialect. Initializers become constants, each op's location is the
// ONNX node name, and shapes are specialised to static ones (symbolic
// dimensions are pinned with `dims`; inputs named in `inputValues` become
// constants). Problems are reported as MLIR
// diagnostics; every unsupported operator of a model is listed at once.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_FRONTEND_ONNXIMPORTER_H
#define HETC_COMPILER_FRONTEND_ONNXIMPORTER_H

#include "compiler/frontend/PrefillCaches.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace hetc::frontend {

/// Computes the values of a constant subgraph: `module` holds one
/// `func.func @main` of no arguments whose results are the values wanted.
/// Returns one elements attribute per result, or failure with `error`
/// saying why (the caller reports its own error then).
using ConstantEvaluator =
    std::function<mlir::FailureOr<llvm::SmallVector<mlir::DenseElementsAttr>>(
        mlir::ModuleOp module, std::string &error)>;

struct ImportOptions {
  /// Values for symbolic dimensions, by their ONNX `dim_param` name.
  std::map<std::string, int64_t> dims;
  /// Graph inputs fixed at compile time: input name -> the file holding its
  /// value (`.npy` or a serialised TensorProto). Each becomes a constant
  /// and is no longer an input of the compiled program.
  std::map<std::string, std::string> inputValues;
  /// When set, receives the path of every file the import reads (the
  /// model, its external data files, the input values), so that the caller
  /// can refuse to write over one of them.
  std::vector<std::string> *filesRead = nullptr;
  /// The most elements any tensor of the model may have: `hetc compile`
  /// sets the bytes of the chip's SRAM (no element takes less than a byte
  /// there). Graph inputs, initializers and every node's results are
  /// checked against it, without overflow, before anything of their size
  /// is allocated; the error names the node.
  int64_t maxElements = int64_t(1) << 30;
  /// Where an import rule needs a constant (a shape, axes, a condition)
  /// and the value is computed from constants by ops whose folders do not
  /// resolve it, the ops that compute it are evaluated with this, which
  /// compiles them for the chip and runs them (docs/architecture.md,
  /// "Frontend"). Without it, only the folders resolve constants.
  ConstantEvaluator evaluateConstants;
  /// Above 0: a decoder with a growing KV cache becomes a decode step of
  /// caches this many positions long (StaticCache.h).
  int64_t maxContext = 0;
  /// Above 0: a decode step of this many batch slots; the batch dimension
  /// of `input_ids`, when symbolic, is pinned to it. With `maxContext` and
  /// without it, a symbolic batch not in `dims` is 1; either way, a
  /// symbolic sequence not in `dims` is 1 (StaticCache.h:
  /// pinDecodeStepDims).
  int64_t maxBatch = 0;
  /// Whether the model is a prefill program of a decode step: one sequence
  /// (a symbolic batch dimension of `input_ids` is 1) of `prefillTokens`
  /// tokens when that is above 0 (its symbolic sequence dimension is
  /// pinned to it; PrefillCaches.h: pinPrefillDims).
  bool prefill = false;
  int64_t prefillTokens = 0;
  /// The decode step's KV caches, for a prefill: a graph without a past
  /// (no input of a cache's name) is rewritten to write them in place
  /// (PrefillCaches.h: writeCachesInPlace); one with its caches as inputs
  /// is left as it is.
  std::vector<PrefillCache> prefillCaches;
};

/// Reads and imports the ONNX file at `path`. Returns null after emitting
/// diagnostics if the file cannot be read or the model cannot be imported.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxFile(const std::string &path,
                                                 mlir::MLIRContext &context,
                                                 const ImportOptions &options);

/// Imports an already parsed model; `source` names it in diagnostics.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxModel(const onnx::ModelProto &model, const std::string &source,
                mlir::MLIRContext &context, const ImportOptions &options);

} // namespace hetc::frontend

#endif // HETC_COMPILER_FRONTEND_ONNXIMPORTER_H
