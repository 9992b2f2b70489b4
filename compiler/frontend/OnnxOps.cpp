//===- OnnxOps.cpp - Per-operator ONNX import rules -------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/dialects/hgraph/IR/HGraphFold.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

InFlightDiagnostic NodeContext::error() {
  return emitError(loc) << node.op_type() << " (opset " << opset << "): ";
}

std::string NodeContext::stringAttr(StringRef name, StringRef fallback) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : fallback.str();
}

const onnx::AttributeProto *NodeContext::attr(StringRef name) const {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeContext::intAttr(StringRef name, int64_t fallback) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : fallback;
}

float NodeContext::floatAttr(StringRef name, float fallback) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : fallback;
}

std::optional<SmallVector<int64_t>>
NodeContext::intsAttr(StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

//===----------------------------------------------------------------------===//
// Tensor data
//===----------------------------------------------------------------------===//

namespace {
/// ONNX data types newer than the onnx schema hetc builds against (1.12),
/// by their TensorProto.DataType numbers.
enum NewerDataType : int {
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUInt2 = 25,
  kInt2 = 26,
};
} // namespace

std::string hetc::frontend::dataTypeName(int dataType) {
  static const char *const kNewer[] = {
      "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",
      "INT4",         "FLOAT4E2M1",     "FLOAT8E8M0", "UINT2",          "INT2"};
  if (dataType >= kFloat8E4M3FN && dataType <= kInt2)
    return kNewer[dataType - kFloat8E4M3FN];
  std::string name = onnx::TensorProto::DataType_Name(
      static_cast<onnx::TensorProto::DataType>(dataType));
  return name.empty() ? "number " + std::to_string(dataType) : name;
}

RankedTensorType hetc::frontend::broadcastResultType(Value a, Value b,
                                                    Type element) {
  SmallVector<int64_t> shape;
  bool broadcasts = OpTrait::util::getBroadcastedShape(
      tensorType(a).getShape(), tensorType(b).getShape(), shape);
  assert(broadcasts && "operand shapes must broadcast");
  (void)broadcasts;
  return RankedTensorType::get(shape,
                               element ? element : tensorType(a).getElementType());
}

Value hetc::frontend::scalarConstant(NodeContext &ctx, Type element,
                                     double value) {
  auto type = RankedTensorType::get({}, element);
  DenseElementsAttr attr;
  if (auto floatType = dyn_cast<FloatType>(element)) {
    APFloat v(value);
    bool lost;
    v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &lost);
    attr = DenseElementsAttr::get(type, v);
  } else if (element.isInteger(1)) {
    attr = DenseElementsAttr::get(type, value != 0);
  } else {
    attr = DenseElementsAttr::get(
        type, APInt(element.getIntOrFloatBitWidth(), int64_t(value),
                    /*isSigned=*/true));
  }
  return hgraph::ConstantOp::create(ctx.builder, ctx.loc, attr);
}

Value hetc::frontend::reshapeTo(NodeContext &ctx, Value v,
                                ArrayRef<int64_t> shape) {
  RankedTensorType type = tensorType(v);
  if (type.getShape() == shape)
    return v;
  return ctx.create<hgraph::ReshapeOp>(
      RankedTensorType::get(shape, type.getElementType()), v);
}

Value hetc::frontend::positionsAlong(NodeContext &ctx, int64_t n,
                                     int64_t axis, int64_t rank) {
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = n;
  SmallVector<int64_t> values = llvm::to_vector(llvm::seq<int64_t>(0, n));
  return hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(
          RankedTensorType::get(shape, ctx.builder.getI64Type()),
          ArrayRef<int64_t>(values)));
}

Value hetc::frontend::wrapIndices(NodeContext &ctx, Value indices,
                                  int64_t n) {
  RankedTensorType type = tensorType(indices);
  Type element = type.getElementType();
  Value negative = ctx.create<hgraph::LessOp>(
      RankedTensorType::get(type.getShape(), ctx.builder.getI1Type()),
      indices, scalarConstant(ctx, element, 0));
  Value wrapped = ctx.create<hgraph::AddOp>(
      type, indices, scalarConstant(ctx, element, double(n)));
  return ctx.create<hgraph::WhereOp>(type, negative, wrapped, indices);
}

Type hetc::frontend::elementTypeOf(int dataType, MLIRContext *context) {
  Builder b(context);
  auto unsignedInt = [&](unsigned width) {
    return IntegerType::get(context, width, IntegerType::Unsigned);
  };
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  case onnx::TensorProto::INT8:
    return b.getI8Type();
  case onnx::TensorProto::INT16:
    return b.getI16Type();
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::UINT8:
    return unsignedInt(8);
  case onnx::TensorProto::UINT16:
    return unsignedInt(16);
  case onnx::TensorProto::UINT32:
    return unsignedInt(32);
  case onnx::TensorProto::UINT64:
    return unsignedInt(64);
  case kFloat8E4M3FN:
    return b.getType<Float8E4M3FNType>();
  case kFloat8E4M3FNUZ:
    return b.getType<Float8E4M3FNUZType>();
  case kFloat8E5M2:
    return b.getType<Float8E5M2Type>();
  case kFloat8E5M2FNUZ:
    return b.getType<Float8E5M2FNUZType>();
  case kFloat8E8M0:
    return b.getType<Float8E8M0FNUType>();
  case kFloat4E2M1:
    return b.getType<Float4E2M1FNType>();
  case kInt4:
    return b.getIntegerType(4);
  case kUInt4:
    return unsignedInt(4);
  case kInt2:
    return b.getIntegerType(2);
  case kUInt2:
    return unsignedInt(2);
  default:
    return nullptr;
  }
}

namespace {
/// Elements of a type narrower than a byte (4- and 2-bit floats and
/// integers) and the 8-bit floats from `bytes`: one element per byte for
/// 8-bit types, else packed from the least significant bits up, as ONNX
/// stores them in raw_data and int32_data.
FailureOr<DenseElementsAttr> unpackNarrow(RankedTensorType type,
                                          ArrayRef<uint8_t> bytes,
                                          std::string &error) {
  Type element = type.getElementType();
  unsigned width = element.getIntOrFloatBitWidth();
  int64_t count = type.getNumElements();
  size_t needed = size_t((count * width + 7) / 8);
  if (bytes.size() != needed) {
    error = "has " + std::to_string(bytes.size()) + " bytes of data, " +
            "expected " + std::to_string(needed);
    return failure();
  }
  auto bitsAt = [&](int64_t i) {
    uint64_t bit = uint64_t(i) * width;
    return APInt(width, (bytes[bit / 8] >> (bit % 8)) & ((1u << width) - 1));
  };
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < count; ++i)
      values.emplace_back(floatType.getFloatSemantics(), bitsAt(i));
    return DenseElementsAttr::get(type, ArrayRef<APFloat>(values));
  }
  SmallVector<APInt> values;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(bitsAt(i));
  return DenseElementsAttr::get(type, ArrayRef<APInt>(values));
}

/// Whether elements of `type` are 8-bit floats or narrower than a byte
/// (unpackNarrow reads them).
bool isNarrowStorage(Type type) {
  unsigned width = type.getIntOrFloatBitWidth();
  return width > 1 && (width < 8 || (width == 8 && isa<FloatType>(type)));
}
} // namespace

std::optional<int64_t>
hetc::frontend::boundedElementCount(ArrayRef<int64_t> shape, int64_t limit,
                                    std::string &error) {
  std::optional<int64_t> count = hgraph::boundedElementCount(shape, limit);
  if (count)
    return count;
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    error = "has a negative or unknown dimension";
  else
    error = "has more than " + std::to_string(limit) +
            " elements or a dimension longer than that, beyond what the "
            "chip can hold";
  return std::nullopt;
}

FailureOr<DenseElementsAttr>
hetc::frontend::tensorToAttr(const onnx::TensorProto &tensor,
                             MLIRContext *context, std::string &error,
                             ExternalDataReader reader, int64_t maxElements) {
  SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  std::optional<int64_t> bounded =
      boundedElementCount(shape, maxElements, error);
  if (!bounded)
    return failure();
  int64_t count = *bounded;
  Type element = elementTypeOf(tensor.data_type(), context);
  if (!element) {
    error = "has element type " + dataTypeName(tensor.data_type()) +
            ", which hetc does not support";
    return failure();
  }
  auto type = RankedTensorType::get(shape, element);
  std::string external;
  const std::string *raw = tensor.has_raw_data() ? &tensor.raw_data() : nullptr;
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    if (!reader) {
      error = "keeps its data in an external file, which is not supported here";
      return failure();
    }
    if (!reader(tensor, external, error))
      return failure();
    raw = &external;
  }
  if (isNarrowStorage(element)) {
    // Bytes, from raw data or one per int32_data entry (one element each
    // for 8-bit floats, packed ones for narrower types).
    SmallVector<uint8_t> bytes;
    if (raw)
      bytes.assign(raw->begin(), raw->end());
    else
      for (int32_t v : tensor.int32_data())
        bytes.push_back(uint8_t(v));
    return unpackNarrow(type, bytes, error);
  }
  if (raw) {
    // Raw data is little-endian, densely packed; booleans take a byte.
    size_t width = element.isInteger(1)
                       ? 1
                       : (element.getIntOrFloatBitWidth() + 7) / 8;
    if (raw->size() != size_t(count) * width) {
      error = "has " + std::to_string(raw->size()) + " bytes of raw data, " +
              "expected " + std::to_string(count * width);
      return failure();
    }
    if (element.isInteger(1)) {
      SmallVector<bool> values;
      for (char c : *raw)
        values.push_back(c != 0);
      return DenseElementsAttr::get(type, ArrayRef<bool>(values));
    }
    return DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(raw->data(), raw->size()));
  }
  // Typed fields: each data type keeps its values in one repeated field.
  auto checkCount = [&](int64_t size) {
    if (size == count)
      return true;
    error = "has " + std::to_string(size) + " values, expected " +
            std::to_string(count);
    return false;
  };
  auto fromFloats = [&](const auto &field,
                        auto convert) -> FailureOr<DenseElementsAttr> {
    if (!checkCount(field.size()))
      return failure();
    SmallVector<APFloat> values;
    for (auto v : field)
      values.push_back(convert(v));
    return DenseElementsAttr::get(type, ArrayRef<APFloat>(values));
  };
  auto fromInts = [&](const auto &field) -> FailureOr<DenseElementsAttr> {
    if (!checkCount(field.size()))
      return failure();
    unsigned width = element.getIntOrFloatBitWidth();
    SmallVector<APInt> values;
    for (auto v : field)
      values.push_back(APInt(width, uint64_t(v), /*isSigned=*/true,
                             /*implicitTrunc=*/true));
    return DenseElementsAttr::get(type, ArrayRef<APInt>(values));
  };
  auto fromBits = [&](uint16_t bits) {
    // FLOAT16 and BFLOAT16 keep their bit patterns in int32_data.
    return APFloat(cast<FloatType>(element).getFloatSemantics(),
                   APInt(16, bits));
  };
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    return fromFloats(tensor.float_data(), [](float v) { return APFloat(v); });
  case onnx::TensorProto::DOUBLE:
    return fromFloats(tensor.double_data(),
                      [](double v) { return APFloat(v); });
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    return fromFloats(tensor.int32_data(),
                      [&](int32_t v) { return fromBits(uint16_t(v)); });
  case onnx::TensorProto::INT64:
    return fromInts(tensor.int64_data());
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    return fromInts(tensor.uint64_data());
  default:
    return fromInts(tensor.int32_data());
  }
}

//===----------------------------------------------------------------------===//
// Import rules
//===----------------------------------------------------------------------===//

RankedTensorType hetc::frontend::tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

LogicalResult hetc::frontend::expectInputs(NodeContext &ctx, size_t min,
                                           size_t max) {
  size_t n = ctx.inputs.size();
  if (n < min || n > max)
    return ctx.error() << "expects " << min
                       << (min == max ? "" : " to " + std::to_string(max))
                       << " inputs, got " << n;
  for (size_t i = 0; i < min; ++i)
    if (!ctx.inputs[i])
      return ctx.error() << "input " << i << " is required";
  return success();
}

std::optional<SmallVector<int64_t>> hetc::frontend::constantInts(Value v) {
  DenseElementsAttr attr = constantValue(v);
  if (!attr || !isa<IntegerType>(attr.getElementType()))
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &x : attr.getValues<APInt>())
    values.push_back(x.getSExtValue());
  return values;
}

std::optional<SmallVector<double>> hetc::frontend::constantFloats(Value v) {
  DenseElementsAttr attr = constantValue(v);
  if (!attr || !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  SmallVector<double> values;
  for (APFloat x : attr.getValues<APFloat>()) {
    bool lost;
    x.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    values.push_back(x.convertToDouble());
  }
  return values;
}

FailureOr<int64_t> hetc::frontend::normalizeAxis(NodeContext &ctx,
                                                 int64_t axis, int64_t rank,
                                                 StringRef what) {
  if (axis < -rank || axis >= rank)
    return ctx.error() << what << " " << axis << " is out of range for rank "
                       << rank;
  return axis < 0 ? axis + rank : axis;
}

Value hetc::frontend::castTo(NodeContext &ctx, Value v, Type element) {
  RankedTensorType type = tensorType(v);
  if (type.getElementType() == element)
    return v;
  return ctx.create<hgraph::CastOp>(
      RankedTensorType::get(type.getShape(), element), v);
}

namespace {

using Results = FailureOr<SmallVector<Value>>;

Results importIdentity(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  return SmallVector<Value>{ctx.inputs[0]};
}

Results importMatMul(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  ArrayRef<int64_t> a = tensorType(ctx.inputs[0]).getShape();
  ArrayRef<int64_t> b = tensorType(ctx.inputs[1]).getShape();
  if (a.empty() || b.empty())
    return ctx.error() << "inputs must have rank >= 1";
  SmallVector<int64_t> lhs(a), rhs(b);
  if (lhs.size() == 1)
    lhs.insert(lhs.begin(), 1);
  if (rhs.size() == 1)
    rhs.push_back(1);
  if (lhs.back() != rhs[rhs.size() - 2])
    return ctx.error() << "cannot multiply " << tensorType(ctx.inputs[0])
                       << " by " << tensorType(ctx.inputs[1])
                       << ": contraction dimensions " << lhs.back() << " and "
                       << rhs[rhs.size() - 2] << " differ";
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(ArrayRef(lhs).drop_back(2),
                                          ArrayRef(rhs).drop_back(2), shape))
    return ctx.error() << "batch dimensions do not broadcast";
  if (a.size() > 1)
    shape.push_back(lhs[lhs.size() - 2]);
  if (b.size() > 1)
    shape.push_back(rhs.back());
  auto type = RankedTensorType::get(
      shape, tensorType(ctx.inputs[0]).getElementType());
  return SmallVector<Value>{hgraph::MatMulOp::create(
      ctx.builder, ctx.loc, type, ctx.inputs[0], ctx.inputs[1])};
}

Results importGemm(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 3)))
    return failure();
  RankedTensorType a = tensorType(ctx.inputs[0]), b = tensorType(ctx.inputs[1]);
  if (a.getRank() != 2 || b.getRank() != 2)
    return ctx.error() << "A and B must be 2-D, got " << a << " and " << b;
  bool transA = ctx.intAttr("transA", 0), transB = ctx.intAttr("transB", 0);
  int64_t m = a.getDimSize(transA ? 1 : 0), ka = a.getDimSize(transA ? 0 : 1);
  int64_t kb = b.getDimSize(transB ? 1 : 0), n = b.getDimSize(transB ? 0 : 1);
  if (ka != kb)
    return ctx.error() << "contraction dimensions differ: " << ka << " (A) vs "
                       << kb << " (B)";
  Value c = ctx.inputs.size() > 2 ? ctx.inputs[2] : Value();
  if (c) {
    SmallVector<int64_t> shape;
    if (!OpTrait::util::getBroadcastedShape(tensorType(c).getShape(), {m, n},
                                            shape) ||
        shape != SmallVector<int64_t>{m, n})
      return ctx.error() << "C of type " << tensorType(c)
                         << " does not broadcast to " << m << "x" << n;
  }
  OpBuilder &b2 = ctx.builder;
  auto type = RankedTensorType::get({m, n}, a.getElementType());
  return SmallVector<Value>{hgraph::GemmOp::create(
      b2, ctx.loc, type, ctx.inputs[0], ctx.inputs[1], c,
      b2.getF32FloatAttr(ctx.floatAttr("alpha", 1.0f)),
      b2.getF32FloatAttr(ctx.floatAttr("beta", 1.0f)), b2.getBoolAttr(transA),
      b2.getBoolAttr(transB))};
}

Results importTranspose(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  int64_t rank = type.getRank();
  SmallVector<int64_t> perm;
  if (auto given = ctx.intsAttr("perm"))
    perm = *given;
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (int64_t(perm.size()) != rank || p < 0 || p >= rank || seen[p])
      return ctx.error() << "perm is not a permutation of [0, " << rank << ")";
    seen[p] = true;
    shape.push_back(type.getDimSize(p));
  }
  return SmallVector<Value>{ctx.create<hgraph::TransposeOp>(
      RankedTensorType::get(shape, type.getElementType()), ctx.inputs[0],
      ctx.builder.getDenseI64ArrayAttr(perm))};
}

Results importReshape(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  std::optional<SmallVector<int64_t>> shapeValues = constantInts(ctx.inputs[1]);
  if (!shapeValues)
    return ctx.error() << "the shape input must be a constant INT64 tensor "
                          "(an initializer, a Constant node or a computation "
                          "on them that folds)"
                       << whyNotEvaluated(ctx.inputs[1]);
  bool allowZero = ctx.intAttr("allowzero", 0) != 0;
  SmallVector<int64_t> shape;
  int64_t inferred = -1, known = 1;
  for (auto [i, entry] : llvm::enumerate(*shapeValues)) {
    int64_t dim = entry;
    if (dim == 0 && !allowZero) {
      if (i >= size_t(type.getRank()))
        return ctx.error() << "shape entry " << i
                           << " is 0 but the input has rank "
                           << type.getRank();
      dim = type.getDimSize(i);
    }
    if (dim == -1) {
      if (inferred >= 0)
        return ctx.error() << "shape has more than one -1 entry";
      inferred = i;
    } else if (dim < 0) {
      return ctx.error() << "shape entry " << i << " is " << dim;
    } else if (llvm::MulOverflow(known, dim, known)) {
      return ctx.error() << "shape entries up to " << i
                         << " multiply past 2^63 elements";
    }
    shape.push_back(dim);
  }
  int64_t total = type.getNumElements();
  if (inferred >= 0) {
    if (known == 0 || total % known != 0)
      return ctx.error() << "cannot infer the -1 entry: " << total
                         << " elements are not a multiple of " << known;
    shape[inferred] = total / known;
  } else if (known != total) {
    return ctx.error() << "cannot reshape " << type << " (" << total
                       << " elements) to " << known << " elements";
  }
  return SmallVector<Value>{ctx.create<hgraph::ReshapeOp>(
      RankedTensorType::get(shape, type.getElementType()), ctx.inputs[0])};
}

Results importConstant(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 0, 0)))
    return failure();
  MLIRContext *mlirCtx = ctx.builder.getContext();
  Builder &b = ctx.builder;
  DenseElementsAttr value;
  if (const onnx::AttributeProto *a = ctx.attr("value")) {
    std::string error;
    FailureOr<DenseElementsAttr> attr = tensorToAttr(a->t(), mlirCtx, error);
    if (failed(attr))
      return ctx.error() << "attribute 'value' " << error;
    value = *attr;
  } else if (const onnx::AttributeProto *a = ctx.attr("value_float")) {
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                   a->f());
  } else if (const onnx::AttributeProto *a = ctx.attr("value_floats")) {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(v.size())}, b.getF32Type()),
        ArrayRef<float>(v));
  } else if (const onnx::AttributeProto *a = ctx.attr("value_int")) {
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                                   int64_t(a->i()));
  } else if (const onnx::AttributeProto *a = ctx.attr("value_ints")) {
    SmallVector<int64_t> v(a->ints().begin(), a->ints().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(v.size())}, b.getI64Type()),
        ArrayRef<int64_t>(v));
  } else {
    return ctx.error() << "has no supported value attribute (value, "
                          "value_float(s), value_int(s))";
  }
  return SmallVector<Value>{
      hgraph::ConstantOp::create(ctx.builder, ctx.loc, value)};
}

} // namespace

ImportRule hetc::frontend::lookupImportRule(StringRef domain,
                                            StringRef opType) {
  if (domain.empty() || domain == "ai.onnx")
    return lookupImportRule(opType);
  if (domain == "ai.onnx.preview.training")
    return lookupTrainingRule(opType);
  if (domain == "ai.onnx.preview")
    return lookupPreviewRule(opType);
  return nullptr;
}

ImportRule hetc::frontend::lookupImportRule(StringRef opType) {
  static const llvm::StringMap<ImportRule> rules = [] {
    llvm::StringMap<ImportRule> r = {
        {"MatMul", importMatMul},     {"Gemm", importGemm},
        {"Reshape", importReshape},   {"Transpose", importTranspose},
        {"Constant", importConstant}, {"Identity", importIdentity},
    };
    addElementwiseRules(r);
    addShapeRules(r);
    addNNRules(r);
    addAttentionRules(r);
    addLossRules(r);
    addIndexRules(r);
    addScatterRules(r);
    addRecurrentRules(r);
    addStatNormRules(r);
    addEinsumRule(r);
    addRotaryRule(r);
    addStatefulConvRule(r);
    addLinearAttentionRule(r);
    addAffineGridRule(r);
    addGridSampleRule(r);
    addIntegerConvRules(r);
    addRoiAlignRule(r);
    addSpectralRules(r);
    addValueShapedRules(r);
    return r;
  }();
  auto it = rules.find(opType);
  return it == rules.end() ? nullptr : it->second;
}
