//===- InputValues.h - Graph inputs fixed at compile time -------*- C++ -*-===//
//
// `hetc compile --input-value NAME=FILE` gives a graph input its value at
// compile time: the importer makes it a constant, so that inputs which set
// shapes (ReduceSum's axes, Reshape's shape, Pad's pads, ...) fold the way
// initializers do. FILE is an ONNX TensorProto (`.pb`, exact for every
// element type) or a numpy `.npy` file (the dtypes `hetc run` reads).
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_FRONTEND_INPUTVALUES_H
#define HETC_COMPILER_FRONTEND_INPUTVALUES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace hetc::frontend {

/// Reads the tensor in `path` (`.npy`, otherwise a serialised TensorProto).
/// On failure `error` says why (without the path).
mlir::FailureOr<mlir::DenseElementsAttr>
readInputValue(const std::string &path, mlir::MLIRContext *context,
               std::string &error);

/// Parses the bytes of an input value: a `.npy` file when `npy` is set,
/// else a serialised TensorProto; `source` names it in errors.
mlir::FailureOr<mlir::DenseElementsAttr>
parseInputValue(llvm::StringRef bytes, bool npy, const std::string &source,
                mlir::MLIRContext *context, std::string &error);

} // namespace hetc::frontend

#endif // HETC_COMPILER_FRONTEND_INPUTVALUES_H
