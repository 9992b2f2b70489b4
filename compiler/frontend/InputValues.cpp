//===- InputValues.cpp - Graph inputs fixed at compile time -----------===//

#include "compiler/frontend/InputValues.h"

#include "compiler/frontend/OnnxOps.h"

#include "runtime/io/Npy.h"
#include "runtime/io/SafeRead.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

/// The element type of a tensor `hetc run` reads from a .npy file, as the
/// importer types the matching ONNX input.
Type elementTypeOfNpy(io::ElementType type, MLIRContext *context) {
  Builder b(context);
  auto unsignedInt = [&](unsigned width) {
    return IntegerType::get(context, width, IntegerType::Unsigned);
  };
  switch (type) {
  case io::ElementType::F32:
    return b.getF32Type();
  case io::ElementType::F16:
    return b.getF16Type();
  case io::ElementType::BF16:
    return b.getBF16Type();
  case io::ElementType::Bool:
    return b.getI1Type();
  case io::ElementType::I8:
    return b.getI8Type();
  case io::ElementType::I16:
    return b.getI16Type();
  case io::ElementType::I32:
    return b.getI32Type();
  case io::ElementType::I64:
    return b.getI64Type();
  case io::ElementType::U8:
    return unsignedInt(8);
  case io::ElementType::U16:
    return unsignedInt(16);
  case io::ElementType::U32:
    return unsignedInt(32);
  case io::ElementType::U64:
    return unsignedInt(64);
  }
  return nullptr;
}

FailureOr<DenseElementsAttr> fromNpy(StringRef bytes, StringRef path,
                                     MLIRContext *context,
                                     std::string &error) {
  io::Tensor tensor;
  if (!io::parseNpy(bytes.str(), path.str(), tensor, error))
    return failure();
  Type element = elementTypeOfNpy(tensor.type, context);
  if (!element) {
    error = "holds an element type the compiler does not read";
    return failure();
  }
  auto type = RankedTensorType::get(tensor.shape, element);
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> values;
    for (float v : tensor.data) {
      APFloat value(v);
      bool lost;
      value.convert(floatType.getFloatSemantics(),
                    APFloat::rmNearestTiesToEven, &lost);
      values.push_back(value);
    }
    return DenseElementsAttr::get(type, ArrayRef<APFloat>(values));
  }
  if (element.isInteger(1)) {
    SmallVector<bool> values(tensor.ints.begin(), tensor.ints.end());
    return DenseElementsAttr::get(type, ArrayRef<bool>(values));
  }
  unsigned width = element.getIntOrFloatBitWidth();
  SmallVector<APInt> values;
  for (int32_t v : tensor.ints)
    values.push_back(APInt(width, uint64_t(int64_t(v)), /*isSigned=*/true,
                           /*implicitTrunc=*/true));
  return DenseElementsAttr::get(type, ArrayRef<APInt>(values));
}

} // namespace

FailureOr<DenseElementsAttr>
hetc::frontend::readInputValue(const std::string &path, MLIRContext *context,
                               std::string &error) {
  std::string bytes;
  if (!io::readRegularFile(path, io::kMaxReadBytes, bytes, error))
    return failure();
  return parseInputValue(bytes, StringRef(path).ends_with(".npy"), path,
                         context, error);
}

FailureOr<DenseElementsAttr>
hetc::frontend::parseInputValue(StringRef bytes, bool npy,
                                const std::string &source,
                                MLIRContext *context, std::string &error) {
  if (npy)
    return fromNpy(bytes, source, context, error);
  onnx::TensorProto tensor;
  if (bytes.size() > size_t(INT32_MAX) ||
      !tensor.ParseFromArray(bytes.data(), int(bytes.size()))) {
    error = "is neither a .npy file nor a serialised ONNX TensorProto";
    return failure();
  }
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    error = "keeps its data in an external file; save the tensor with its "
            "data";
    return failure();
  }
  std::string why;
  FailureOr<DenseElementsAttr> attr = tensorToAttr(tensor, context, why);
  if (failed(attr))
    error = "holds a tensor that " + why;
  return attr;
}
