//===- FuzzInputValue.cpp - `--input-value` files ----------------------===//
//
// An input value as `hetc compile --input-value` reads it: inputs whose
// first byte is odd are the rest of the input as a .npy file, the others a
// serialised ONNX TensorProto.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/InputValues.h"

#include "mlir/IR/MLIRContext.h"

#include <cstdint>
#include <string>

using namespace hetc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  static mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  llvm::StringRef bytes(reinterpret_cast<const char *>(data) + 1, size - 1);
  std::string error;
  (void)frontend::parseInputValue(bytes, data[0] & 1, "fuzz.value", &context,
                                  error);
  return 0;
}
