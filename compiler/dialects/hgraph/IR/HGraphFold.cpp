//===- HGraphFold.cpp - Host evaluation of hgraph ops on constants ----===//

#include "compiler/dialects/hgraph/IR/HGraphFold.h"

#include "mlir/Dialect/Traits.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace hetc::hgraph;

std::string hetc::hgraph::shapeStr(ArrayRef<int64_t> shape) {
  std::string out = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    out += (i ? ", " : "") + std::to_string(d);
  return out + "]";
}

SmallVector<int64_t> hetc::hgraph::stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

void hetc::hgraph::forEachCoord(
    ArrayRef<int64_t> shape,
    llvm::function_ref<void(ArrayRef<int64_t>, int64_t)> fn) {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  SmallVector<int64_t> coord(shape.size(), 0);
  for (int64_t k = 0; k < count; ++k) {
    fn(coord, k);
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++coord[d] < shape[d])
        break;
      coord[d] = 0;
    }
  }
}

int64_t hetc::hgraph::broadcastIndex(ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> coord) {
  int64_t offset = int64_t(coord.size()) - int64_t(shape.size()), flat = 0;
  for (auto [d, dim] : llvm::enumerate(shape))
    flat = flat * dim + (dim == 1 ? 0 : coord[d + offset]);
  return flat;
}

std::optional<HostTensor> HostTensor::read(Attribute attr) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  HostTensor t;
  t.type = dense.getType();
  t.splat = dense.isSplat();
  // Operands are read whole into doubles or int64s: a larger constant is
  // not folded (it stays an op), whatever the result's size.
  if (!t.splat && !foldable(t.type, kMaxFoldOperandElements))
    return std::nullopt;
  Type element = t.type.getElementType();
  if (isa<FloatType>(element)) {
    t.isFloat = true;
    auto values = dense.getValues<APFloat>();
    int64_t n = t.splat ? 1 : t.type.getNumElements();
    for (int64_t k = 0; k < n; ++k) {
      APFloat v = values[k];
      bool lost;
      v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      t.f.push_back(v.convertToDouble());
    }
    return t;
  }
  auto intType = dyn_cast<IntegerType>(element);
  if (!intType || intType.getWidth() > 64)
    return std::nullopt;
  bool zeroExtend = intType.isUnsigned() || intType.getWidth() == 1;
  auto values = dense.getValues<APInt>();
  int64_t n = t.splat ? 1 : t.type.getNumElements();
  for (int64_t k = 0; k < n; ++k) {
    APInt v = values[k];
    t.i.push_back(zeroExtend ? int64_t(v.getZExtValue()) : v.getSExtValue());
  }
  return t;
}

HostTensor HostTensor::alloc(ShapedType type) {
  HostTensor t;
  t.type = type;
  t.isFloat = isa<FloatType>(type.getElementType());
  if (t.isFloat)
    t.f.resize(type.getNumElements());
  else
    t.i.resize(type.getNumElements());
  return t;
}

DenseElementsAttr HostTensor::toAttr() const {
  Type element = type.getElementType();
  int64_t n = splat ? 1 : type.getNumElements();
  auto finish = [&](auto values) -> DenseElementsAttr {
    if (splat)
      return DenseElementsAttr::get(type, values.front());
    return DenseElementsAttr::get(type, ArrayRef(values));
  };
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> values;
    for (int64_t k = 0; k < n; ++k) {
      APFloat v(getF(k));
      bool lost;
      v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      values.push_back(v);
    }
    return finish(values);
  }
  auto intType = cast<IntegerType>(element);
  SmallVector<APInt> values;
  for (int64_t k = 0; k < n; ++k) {
    int64_t v = getI(k);
    if (intType.getWidth() == 1)
      v = v != 0;
    values.push_back(APInt(intType.getWidth(), uint64_t(v),
                           /*isSigned=*/!intType.isUnsigned(),
                           /*implicitTrunc=*/true));
  }
  return finish(values);
}

std::optional<int64_t>
hetc::hgraph::boundedElementCount(ArrayRef<int64_t> shape, int64_t limit) {
  int64_t count = 1;
  for (int64_t d : shape)
    // Each dimension is bounded too: a zero elsewhere must not let a
    // dimension of 2^62 through to code that loops over it.
    if (d < 0 || d > limit || llvm::MulOverflow(count, d, count) ||
        count > limit)
      return std::nullopt;
  return count;
}

bool hetc::hgraph::foldable(ShapedType type, int64_t limit) {
  return type.hasStaticShape() &&
         boundedElementCount(type.getShape(), limit).has_value();
}

OpFoldResult hetc::hgraph::foldElementwise(
    ArrayRef<Attribute> operands, ShapedType resultType,
    std::function<double(ArrayRef<double>)> floatFn,
    std::function<int64_t(ArrayRef<int64_t>)> intFn) {
  if (!foldable(resultType) || operands.empty())
    return {};
  SmallVector<HostTensor> in;
  for (Attribute a : operands) {
    std::optional<HostTensor> t = HostTensor::read(a);
    if (!t)
      return {};
    in.push_back(std::move(*t));
  }
  bool floatInputs = in.back().isFloat;
  if ((floatInputs && !floatFn) || (!floatInputs && !intFn))
    return {};
  if (!isa<FloatType, IntegerType>(resultType.getElementType()))
    return {};
  bool allSplat = llvm::all_of(in, [](const HostTensor &t) { return t.splat; });
  HostTensor out = HostTensor::alloc(resultType);
  if (allSplat) {
    out.splat = true;
    out.f.resize(1);
    out.i.resize(1);
  }
  bool outFloat = out.isFloat;
  SmallVector<double> fs(in.size());
  SmallVector<int64_t> is(in.size());
  auto evaluate = [&](ArrayRef<int64_t> coord, int64_t k) {
    for (auto [j, t] : llvm::enumerate(in)) {
      int64_t index = t.splat ? 0 : broadcastIndex(t.type.getShape(), coord);
      if (floatInputs)
        fs[j] = t.getF(index);
      else
        is[j] = t.getI(index);
    }
    if (floatInputs) {
      double v = floatFn(fs);
      if (outFloat)
        out.f[k] = v;
      else
        out.i[k] = int64_t(v);
    } else {
      int64_t v = intFn(is);
      if (outFloat)
        out.f[k] = double(v);
      else
        out.i[k] = v;
    }
  };
  if (allSplat) {
    SmallVector<int64_t> zeros(resultType.getRank(), 0);
    evaluate(zeros, 0);
  } else {
    forEachCoord(resultType.getShape(), evaluate);
  }
  return out.toAttr();
}

OpFoldResult hetc::hgraph::foldGather(
    Attribute input, ShapedType resultType,
    llvm::function_ref<int64_t(ArrayRef<int64_t>)> source) {
  if (!foldable(resultType))
    return {};
  std::optional<HostTensor> in = HostTensor::read(input);
  if (!in)
    return {};
  HostTensor out = HostTensor::alloc(resultType);
  if (in->splat || resultType.getNumElements() == 0) {
    if (in->splat) {
      out.splat = true;
      out.f.assign(1, in->isFloat ? in->f[0] : 0);
      out.i.assign(1, in->isFloat ? 0 : in->i[0]);
    }
    return out.toAttr();
  }
  forEachCoord(resultType.getShape(), [&](ArrayRef<int64_t> coord, int64_t k) {
    out.copyFrom(*in, source(coord), k);
  });
  return out.toAttr();
}

LogicalResult hetc::hgraph::verifyBroadcastShape(Operation *op,
                                                 ArrayRef<int64_t> lhs,
                                                 ArrayRef<int64_t> rhs,
                                                 ArrayRef<int64_t> result) {
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(lhs, rhs, shape))
    return op->emitOpError("operand shapes ")
           << shapeStr(lhs) << " and " << shapeStr(rhs) << " do not broadcast";
  if (ArrayRef<int64_t>(shape) != result)
    return op->emitOpError("result shape ")
           << shapeStr(result) << " should be the broadcast shape "
           << shapeStr(shape);
  return success();
}
