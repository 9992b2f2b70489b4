//===- HGraphShape.cpp - Data movement and reduction verifiers, folders ===//

#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/dialects/hgraph/IR/HGraphFold.h"

#include "mlir/Dialect/Traits.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace hetc::hgraph;

namespace {

/// Checks that `axis` indexes a dimension of a rank-`rank` tensor.
LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= std::max<int64_t>(rank, 1))
    return op->emitOpError("axis ")
           << axis << " is out of range for rank " << rank;
  return success();
}

LogicalResult verifyShape(Operation *op, ArrayRef<int64_t> actual,
                          ArrayRef<int64_t> expected) {
  if (actual != expected)
    return op->emitOpError("result shape ")
           << shapeStr(actual) << " should be " << shapeStr(expected);
  return success();
}

LogicalResult verifySameElement(Operation *op, ShapedType a, ShapedType b) {
  if (a.getElementType() != b.getElementType())
    return op->emitOpError("result element type ")
           << b.getElementType() << " should be the input's, "
           << a.getElementType();
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Concat and split
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::verify() {
  int64_t axis = int64_t(getAxis()), rank = getType().getRank();
  if (getInputs().empty())
    return emitOpError("needs at least one operand");
  if (failed(verifyAxis(*this, axis, rank)))
    return failure();
  SmallVector<int64_t> expected(getType().getShape());
  expected[axis] = 0;
  for (Value input : getInputs()) {
    auto type = cast<ShapedType>(input.getType());
    if (failed(verifySameElement(*this, type, getType())))
      return failure();
    if (type.getRank() != rank)
      return emitOpError("operand of rank ")
             << type.getRank() << " does not match the result rank " << rank;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && type.getDimSize(d) != expected[d])
        return emitOpError("operand shape ")
               << shapeStr(type.getShape()) << " differs from the result "
               << shapeStr(getType().getShape()) << " outside axis " << axis;
    expected[axis] += type.getDimSize(axis);
  }
  return verifyShape(*this, getType().getShape(), expected);
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  ShapedType type = getType();
  if (!foldable(type))
    return {};
  SmallVector<HostTensor> in;
  for (Attribute a : adaptor.getInputs()) {
    std::optional<HostTensor> t = HostTensor::read(a);
    if (!t)
      return {};
    in.push_back(std::move(*t));
  }
  int64_t axis = int64_t(getAxis());
  HostTensor out = HostTensor::alloc(type);
  forEachCoord(type.getShape(), [&](ArrayRef<int64_t> coord, int64_t k) {
    int64_t at = coord[axis];
    for (const HostTensor &t : in) {
      ArrayRef<int64_t> shape = t.type.getShape();
      if (at >= shape[axis]) {
        at -= shape[axis];
        continue;
      }
      SmallVector<int64_t> local(coord);
      local[axis] = at;
      int64_t flat = 0;
      for (auto [d, dim] : llvm::enumerate(shape))
        flat = flat * dim + local[d];
      out.copyFrom(t, flat, k);
      return;
    }
  });
  return out.toAttr();
}

LogicalResult SplitOp::verify() {
  ShapedType in = getInput().getType();
  int64_t axis = int64_t(getAxis());
  if (failed(verifyAxis(*this, axis, in.getRank())))
    return failure();
  int64_t total = 0;
  for (Type t : getResultTypes()) {
    auto type = cast<ShapedType>(t);
    SmallVector<int64_t> expected(in.getShape());
    if (type.getRank() != in.getRank())
      return emitOpError("result rank ") << type.getRank() << " differs";
    expected[axis] = type.getDimSize(axis);
    if (failed(verifyShape(*this, type.getShape(), expected)) ||
        failed(verifySameElement(*this, in, type)))
      return failure();
    total += type.getDimSize(axis);
  }
  if (total != in.getDimSize(axis))
    return emitOpError("pieces add up to ")
           << total << " along axis " << axis << ", the input has "
           << in.getDimSize(axis);
  return success();
}

//===----------------------------------------------------------------------===//
// Slice, gather, expand, tile
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  ShapedType in = getInput().getType();
  ArrayRef<int64_t> starts = getStarts(), steps = getSteps();
  if (int64_t(starts.size()) != in.getRank() ||
      int64_t(steps.size()) != in.getRank())
    return emitOpError("starts and steps need one entry per dimension (")
           << in.getRank() << ")";
  if (failed(verifySameElement(*this, in, getType())) ||
      getType().getRank() != in.getRank())
    return emitOpError("result must have the input's rank and element type");
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t n = getType().getDimSize(d);
    if (steps[d] == 0)
      return emitOpError("step of dimension ") << d << " is zero";
    if (n == 0)
      continue;
    int64_t last = starts[d] + (n - 1) * steps[d];
    if (starts[d] < 0 || starts[d] >= in.getDimSize(d) || last < 0 ||
        last >= in.getDimSize(d))
      return emitOpError("dimension ")
             << d << " reads indices " << starts[d] << " to " << last
             << ", outside [0, " << in.getDimSize(d) << ")";
  }
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getStarts(), [](int64_t s) { return s == 0; }) &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getInput();
  SmallVector<int64_t> strides = stridesOf(getInput().getType().getShape());
  ArrayRef<int64_t> starts = getStarts(), steps = getSteps();
  return foldGather(adaptor.getInput(), getType(),
                    [&](ArrayRef<int64_t> coord) {
                      int64_t flat = 0;
                      for (auto [d, c] : llvm::enumerate(coord))
                        flat += (starts[d] + c * steps[d]) * strides[d];
                      return flat;
                    });
}

LogicalResult GatherOp::verify() {
  ShapedType in = getInput().getType(), idx = getIndices().getType();
  int64_t axis = int64_t(getAxis());
  if (failed(verifyAxis(*this, axis, in.getRank())) ||
      failed(verifySameElement(*this, in, getType())))
    return failure();
  if (!idx.getElementType().isInteger(64) &&
      !idx.getElementType().isInteger(32))
    return emitOpError("indices must be i32 or i64, got ")
           << idx.getElementType();
  SmallVector<int64_t> expected(in.getShape().take_front(axis));
  llvm::append_range(expected, idx.getShape());
  llvm::append_range(expected, in.getShape().drop_front(axis + 1));
  return verifyShape(*this, getType().getShape(), expected);
}

/// Checks a row lookup's or row scatter's table (rank 2 or more, of the
/// result's element type) and indices (i32 or i64), and returns the shape
/// of its rows taken together: the indices' shape followed by a row's.
static FailureOr<SmallVector<int64_t>> verifyRowAccess(Operation *op,
                                                       ShapedType table,
                                                       ShapedType idx,
                                                       ShapedType result) {
  if (table.getRank() < 2)
    return op->emitOpError("table must have rank 2 or more (rows of at "
                           "least one dimension), got ")
           << table;
  if (failed(verifySameElement(op, table, result)))
    return failure();
  if (!idx.getElementType().isInteger(64) &&
      !idx.getElementType().isInteger(32))
    return op->emitOpError("indices must be i32 or i64, got ")
           << idx.getElementType();
  SmallVector<int64_t> rows(idx.getShape());
  llvm::append_range(rows, table.getShape().drop_front());
  return rows;
}

LogicalResult GatherRowsOp::verify() {
  FailureOr<SmallVector<int64_t>> rows = verifyRowAccess(
      *this, getTable().getType(), getIndices().getType(), getType());
  if (failed(rows))
    return failure();
  return verifyShape(*this, getType().getShape(), *rows);
}

LogicalResult ScatterRowsOp::verify() {
  ShapedType table = getTable().getType(), updates = getUpdates().getType();
  FailureOr<SmallVector<int64_t>> rows =
      verifyRowAccess(*this, table, getIndices().getType(), getType());
  if (failed(rows) || failed(verifySameElement(*this, table, updates)))
    return failure();
  if (updates.getShape() != ArrayRef<int64_t>(*rows))
    return emitOpError("updates must have the indices' shape followed by "
                       "the table's row shape, got ")
           << updates << " for indices " << getIndices().getType()
           << " and table " << table;
  return verifyShape(*this, getType().getShape(), table.getShape());
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  std::optional<HostTensor> idx = HostTensor::read(adaptor.getIndices());
  if (!idx)
    return {};
  ShapedType in = getInput().getType();
  int64_t axis = int64_t(getAxis()), dim = in.getDimSize(axis);
  int64_t idxRank = getIndices().getType().getRank();
  SmallVector<int64_t> idxStrides = stridesOf(getIndices().getType().getShape());
  SmallVector<int64_t> strides = stridesOf(in.getShape());
  // Out-of-range indices are an error at run time; leave them alone.
  for (int64_t k = 0, n = getIndices().getType().getNumElements(); k < n; ++k)
    if (idx->getI(k) < -dim || idx->getI(k) >= dim)
      return {};
  return foldGather(adaptor.getInput(), getType(), [&](ArrayRef<int64_t> c) {
    int64_t flat = 0, i = 0;
    for (int64_t d = 0; d < idxRank; ++d)
      i += c[axis + d] * idxStrides[d];
    int64_t index = idx->getI(i);
    if (index < 0)
      index += dim;
    for (int64_t d = 0; d < axis; ++d)
      flat += c[d] * strides[d];
    flat += index * strides[axis];
    for (int64_t d = axis + 1; d < in.getRank(); ++d)
      flat += c[d - 1 + idxRank] * strides[d];
    return flat;
  });
}

LogicalResult GatherElementsOp::verify() {
  ShapedType in = getInput().getType(), idx = getIndices().getType();
  if (failed(verifyAxis(*this, int64_t(getAxis()), in.getRank())) ||
      failed(verifySameElement(*this, in, getType())))
    return failure();
  if (idx.getRank() != in.getRank())
    return emitOpError("indices must have the input's rank ") << in.getRank();
  return verifyShape(*this, getType().getShape(), idx.getShape());
}

LogicalResult ExpandOp::verify() {
  SmallVector<int64_t> shape;
  if (failed(verifySameElement(*this, getInput().getType(), getType())))
    return failure();
  if (!OpTrait::util::getBroadcastedShape(getInput().getType().getShape(),
                                          getType().getShape(), shape) ||
      ArrayRef<int64_t>(shape) != getType().getShape())
    return emitOpError("input shape ")
           << shapeStr(getInput().getType().getShape())
           << " does not broadcast to " << shapeStr(getType().getShape());
  return success();
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  ArrayRef<int64_t> in = getInput().getType().getShape();
  return foldGather(adaptor.getInput(), getType(),
                    [&](ArrayRef<int64_t> c) { return broadcastIndex(in, c); });
}

LogicalResult TileOp::verify() {
  ArrayRef<int64_t> in = getInput().getType().getShape();
  if (getRepeats().size() != in.size())
    return emitOpError("repeats needs one entry per dimension (")
           << in.size() << ")";
  SmallVector<int64_t> expected;
  for (auto [d, r] : llvm::zip(in, getRepeats())) {
    if (r < 0)
      return emitOpError("repeats must not be negative");
    expected.push_back(d * r);
  }
  if (failed(verifySameElement(*this, getInput().getType(), getType())))
    return failure();
  return verifyShape(*this, getType().getShape(), expected);
}

OpFoldResult TileOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  ArrayRef<int64_t> in = getInput().getType().getShape();
  SmallVector<int64_t> strides = stridesOf(in);
  return foldGather(adaptor.getInput(), getType(), [&](ArrayRef<int64_t> c) {
    int64_t flat = 0;
    for (auto [d, x] : llvm::enumerate(c))
      flat += (x % in[d]) * strides[d];
    return flat;
  });
}

LogicalResult PadOp::verify() {
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> pads = getPads();
  if (pads.size() != 2 * in.size())
    return emitOpError("pads needs two entries per dimension (")
           << 2 * in.size() << "), got " << pads.size();
  StringRef mode = getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return emitOpError("mode must be constant, reflect, edge or wrap, got ")
           << mode;
  SmallVector<int64_t> expected;
  for (auto [d, dim] : llvm::enumerate(in)) {
    expected.push_back(dim + pads[d] + pads[d + in.size()]);
    // Edge, reflect and wrap repeat the input's elements: an empty
    // dimension has none to repeat.
    if (mode != "constant" && dim == 0 && expected.back() > 0)
      return emitOpError("mode ")
             << mode << " has nothing to repeat along dimension " << d
             << ", which is empty; only constant padding can grow it";
  }
  if (Value v = getValue()) {
    auto type = cast<ShapedType>(v.getType());
    if (type.getNumElements() != 1 ||
        type.getElementType() != getType().getElementType())
      return emitOpError("value must be one element of the input's type");
  }
  if (failed(verifySameElement(*this, getInput().getType(), getType())))
    return failure();
  return verifyShape(*this, getType().getShape(), expected);
}

LogicalResult TriluOp::verify() {
  if (getType().getRank() < 2)
    return emitOpError("input must have rank >= 2, got ")
           << getType().getRank();
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

namespace {

SmallVector<int64_t> reducedShape(ArrayRef<int64_t> in, ArrayRef<int64_t> axes,
                                  bool keepdims) {
  SmallVector<int64_t> out;
  for (auto [d, dim] : llvm::enumerate(in)) {
    if (!llvm::is_contained(axes, int64_t(d)))
      out.push_back(dim);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

} // namespace

LogicalResult CumulativeOp::verify() {
  if (getKind() != ReduceKind::sum && getKind() != ReduceKind::prod)
    return emitOpError("kind must be sum or prod, got ")
           << stringifyReduceKind(getKind());
  if (getType().getElementType().isInteger(1))
    return emitOpError("is not defined on booleans");
  return verifyAxis(*this, int64_t(getAxis()), getType().getRank());
}

LogicalResult ReduceOp::verify() {
  ShapedType in = getInput().getType();
  int64_t previous = -1;
  for (int64_t a : getAxes()) {
    if (a <= previous || a >= in.getRank())
      return emitOpError("axes must be sorted, unique and in [0, ")
             << in.getRank() << "), got " << shapeStr(getAxes());
    previous = a;
  }
  if (failed(verifySameElement(*this, in, getType())))
    return failure();
  return verifyShape(*this, getType().getShape(),
                     reducedShape(in.getShape(), getAxes(), getKeepdims()));
}

OpFoldResult ReduceOp::fold(FoldAdaptor adaptor) {
  if (getAxes().empty() && getInput().getType() == getType())
    return getInput();
  ShapedType inType = getInput().getType();
  if (!foldable(inType))
    return {};
  std::optional<HostTensor> in = HostTensor::read(adaptor.getInput());
  if (!in)
    return {};
  ReduceKind kind = getKind();
  // Accumulate in double (floats) or int64 (integers), as onnx's
  // reference implementation does through numpy.
  SmallVector<double> acc(getType().getNumElements());
  SmallVector<int64_t> count(acc.size(), 0);
  SmallVector<int64_t> kept = reducedShape(inType.getShape(), getAxes(), true);
  forEachCoord(inType.getShape(), [&](ArrayRef<int64_t> coord, int64_t k) {
    int64_t o = 0;
    for (auto [d, dim] : llvm::enumerate(kept))
      o = o * dim + (dim == 1 && inType.getDimSize(d) != 1 ? 0 : coord[d]);
    double x = in->getF(k);
    double &a = acc[o];
    bool first = count[o]++ == 0;
    switch (kind) {
    case ReduceKind::sum:
    case ReduceKind::mean:
    case ReduceKind::log_sum:
      a = first ? x : a + x;
      break;
    case ReduceKind::max:
      a = first ? x : std::max(a, x);
      break;
    case ReduceKind::min:
      a = first ? x : std::min(a, x);
      break;
    case ReduceKind::prod:
      a = first ? x : a * x;
      break;
    case ReduceKind::sum_square:
    case ReduceKind::l2:
      a = first ? x * x : a + x * x;
      break;
    case ReduceKind::l1:
      a = first ? std::fabs(x) : a + std::fabs(x);
      break;
    case ReduceKind::log_sum_exp:
      a = first ? std::exp(x) : a + std::exp(x);
      break;
    }
  });
  HostTensor out = HostTensor::alloc(getType());
  for (auto [o, a] : llvm::enumerate(acc)) {
    double v = a;
    if (count[o] == 0) {
      // Reducing an empty set: the identity of the combination.
      double inf = std::numeric_limits<double>::infinity();
      v = kind == ReduceKind::prod ? 1
          : kind == ReduceKind::max ? -inf
          : kind == ReduceKind::min ? inf
          : kind == ReduceKind::log_sum || kind == ReduceKind::log_sum_exp
              ? -inf
              : 0;
    } else if (kind == ReduceKind::mean) {
      v = a / double(count[o]);
    } else if (kind == ReduceKind::l2) {
      v = std::sqrt(a);
    } else if (kind == ReduceKind::log_sum || kind == ReduceKind::log_sum_exp) {
      v = std::log(a);
    }
    if (out.isFloat) {
      out.f[o] = v;
      continue;
    }
    // Integers (and booleans): an infinite identity is the type's end of
    // its range (ONNX: the lowest value for ReduceMax of an empty set).
    auto integer = cast<IntegerType>(getType().getElementType());
    unsigned width = std::min(integer.getWidth(), 63u);
    bool isSigned = !integer.isUnsigned() && integer.getWidth() != 1;
    int64_t lo = isSigned ? -(int64_t(1) << (width - 1)) : 0;
    int64_t hi = isSigned ? (int64_t(1) << (width - 1)) - 1
                          : integer.getWidth() == 1 ? 1
                                                    : (int64_t(1) << width) - 1;
    out.i[o] = std::isinf(v) ? (v < 0 ? lo : hi)
               : std::isnan(v) ? 0
                               : int64_t(v);
  }
  return out.toAttr();
}

LogicalResult ArgMaxOp::verify() {
  ShapedType in = getInput().getType();
  int64_t axis = int64_t(getAxis());
  if (failed(verifyAxis(*this, axis, in.getRank())))
    return failure();
  if (!getType().getElementType().isInteger(64))
    return emitOpError("result must hold i64");
  return verifyShape(*this, getType().getShape(),
                     reducedShape(in.getShape(), {axis}, getKeepdims()));
}
