//===- OnnxShapeRules.cpp - Import rules of shape and data movement ops ===//
//
// Shapes are static after import, so Shape, Size and shape arithmetic give
// constants; Flatten, Squeeze and Unsqueeze become hgraph.reshape; the
// operands ONNX passes as tensors (axes, starts, repeats, pads) must be
// constants once folded, and become attributes.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/Dialect/Traits.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

Value constantI64(NodeContext &ctx, ArrayRef<int64_t> values, bool scalar) {
  auto type = RankedTensorType::get(
      scalar ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{int64_t(values.size())},
      ctx.builder.getI64Type());
  return hgraph::ConstantOp::create(ctx.builder, ctx.loc,
                                    DenseElementsAttr::get(type, values));
}

/// Integer list given as input `index` (newer opsets) or attribute `name`
/// (older ones); nullopt when neither is present. Reports an input that is
/// not constant.
FailureOr<std::optional<SmallVector<int64_t>>>
intsFromInputOrAttr(NodeContext &ctx, size_t index, StringRef name,
                    int64_t inputSince) {
  if (ctx.opset < inputSince)
    return ctx.intsAttr(name);
  Value v = ctx.input(index);
  if (!v)
    return std::optional<SmallVector<int64_t>>();
  std::optional<SmallVector<int64_t>> values = constantInts(v);
  if (!values)
    return ctx.error() << "input '" << name
                       << "' must be a constant (an initializer, Constant "
                          "node or shape computation that folds); hetc "
                          "needs static shapes"
                       << whyNotEvaluated(v);
  return std::optional<SmallVector<int64_t>>(*values);
}

/// Sizes that the operator requires (a target shape, repeats) from input
/// `index` or, before opset `inputSince`, attribute `name`: present and
/// each non-negative, since they become tensor dimensions.
FailureOr<SmallVector<int64_t>> requiredSizes(NodeContext &ctx, size_t index,
                                              StringRef name,
                                              int64_t inputSince) {
  auto given = intsFromInputOrAttr(ctx, index, name, inputSince);
  if (failed(given))
    return failure();
  if (!*given)
    return ctx.error() << "'" << name << "' is required";
  for (int64_t size : **given)
    if (size < 0)
      return ctx.error() << "'" << name << "' holds " << size
                         << "; sizes must not be negative";
  return **given;
}

/// Normalises and sorts axes, rejecting duplicates.
FailureOr<SmallVector<int64_t>> normalizeAxes(NodeContext &ctx,
                                              ArrayRef<int64_t> axes,
                                              int64_t rank) {
  SmallVector<int64_t> out;
  for (int64_t a : axes) {
    FailureOr<int64_t> n = normalizeAxis(ctx, a, rank, "axis");
    if (failed(n))
      return failure();
    if (llvm::is_contained(out, *n))
      return ctx.error() << "axis " << a << " is repeated";
    out.push_back(*n);
  }
  llvm::sort(out);
  return out;
}

Results importFlatten(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  int64_t rank = type.getRank();
  int64_t axis = ctx.intAttr("axis", 1);
  if (axis < -rank || axis > rank)
    return ctx.error() << "axis " << axis << " is out of range for rank "
                       << rank;
  if (axis < 0)
    axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < axis ? outer : inner) *= type.getDimSize(d);
  return SmallVector<Value>{reshapeTo(ctx, ctx.inputs[0], {outer, inner})};
}

/// DepthToSpace and SpaceToDepth: a reshape to rank 6, a transpose that
/// interleaves the block with the spatial dimensions, and a reshape back.
Results importBlockMove(NodeContext &ctx, bool toSpace) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  if (type.getRank() != 4)
    return ctx.error() << "input must be 4-D [N, C, H, W], got rank "
                       << type.getRank();
  int64_t b = ctx.intAttr("blocksize", 0);
  int64_t n = type.getDimSize(0), c = type.getDimSize(1),
          h = type.getDimSize(2), w = type.getDimSize(3);
  if (b < 1)
    return ctx.error() << "blocksize must be >= 1, got " << b;
  std::string mode = ctx.stringAttr("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    return ctx.error() << "mode must be DCR or CRD, got '" << mode << "'";
  SmallVector<int64_t> split, perm, result;
  if (toSpace) {
    if (c % (b * b) != 0)
      return ctx.error() << "channels (" << c
                         << ") must be a multiple of blocksize squared ("
                         << b * b << ")";
    int64_t cOut = c / (b * b);
    if (mode == "DCR") {
      split = {n, b, b, cOut, h, w};
      perm = {0, 3, 4, 1, 5, 2};
    } else {
      split = {n, cOut, b, b, h, w};
      perm = {0, 1, 4, 2, 5, 3};
    }
    result = {n, cOut, h * b, w * b};
  } else {
    if (h % b != 0 || w % b != 0)
      return ctx.error() << "height and width (" << h << ", " << w
                         << ") must be multiples of blocksize " << b;
    split = {n, c, h / b, b, w / b, b};
    perm = mode == "DCR" ? SmallVector<int64_t>{0, 3, 5, 1, 2, 4}
                         : SmallVector<int64_t>{0, 1, 3, 5, 2, 4};
    result = {n, c * b * b, h / b, w / b};
  }
  Value blocks = reshapeTo(ctx, ctx.inputs[0], split);
  SmallVector<int64_t> moved;
  for (int64_t p : perm)
    moved.push_back(split[p]);
  Value transposed = ctx.create<hgraph::TransposeOp>(
      RankedTensorType::get(moved, type.getElementType()), blocks,
      ctx.builder.getDenseI64ArrayAttr(perm));
  return SmallVector<Value>{reshapeTo(ctx, transposed, result)};
}

Results importSqueeze(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 2)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  auto given = intsFromInputOrAttr(ctx, 1, "axes", 13);
  if (failed(given))
    return failure();
  SmallVector<int64_t> axes;
  if (*given) {
    FailureOr<SmallVector<int64_t>> n =
        normalizeAxes(ctx, **given, type.getRank());
    if (failed(n))
      return failure();
    axes = *n;
  } else {
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.getDimSize(d) == 1)
        axes.push_back(d);
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!llvm::is_contained(axes, d)) {
      shape.push_back(type.getDimSize(d));
      continue;
    }
    if (type.getDimSize(d) != 1)
      return ctx.error() << "cannot squeeze dimension " << d << " of size "
                         << type.getDimSize(d);
  }
  return SmallVector<Value>{reshapeTo(ctx, ctx.inputs[0], shape)};
}

Results importUnsqueeze(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 2)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  auto given = intsFromInputOrAttr(ctx, 1, "axes", 13);
  if (failed(given))
    return failure();
  if (!*given)
    return ctx.error() << "axes are required";
  int64_t rank = type.getRank() + int64_t((*given)->size());
  FailureOr<SmallVector<int64_t>> axes = normalizeAxes(ctx, **given, rank);
  if (failed(axes))
    return failure();
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> in = type.getShape();
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(*axes, d)) {
      shape.push_back(1);
    } else {
      shape.push_back(in.front());
      in = in.drop_front();
    }
  }
  return SmallVector<Value>{reshapeTo(ctx, ctx.inputs[0], shape)};
}

Results importConcat(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1u << 16)))
    return failure();
  RankedTensorType first = tensorType(ctx.inputs[0]);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.intAttr("axis", 0), first.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  shape[*axis] = 0;
  SmallVector<Value> inputs;
  for (Value v : ctx.inputs) {
    if (!v)
      continue;
    RankedTensorType t = tensorType(v);
    if (t.getRank() != first.getRank() ||
        t.getElementType() != first.getElementType())
      return ctx.error() << "inputs " << first << " and " << t
                         << " differ in rank or element type";
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != *axis && t.getDimSize(d) != first.getDimSize(d))
        return ctx.error() << "inputs " << first << " and " << t
                           << " differ outside axis " << *axis;
    shape[*axis] += t.getDimSize(*axis);
    inputs.push_back(v);
  }
  return SmallVector<Value>{ctx.create<hgraph::ConcatOp>(
      RankedTensorType::get(shape, first.getElementType()), inputs,
      ctx.builder.getI64IntegerAttr(*axis))};
}

Results importSplit(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 2)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.intAttr("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  auto given = intsFromInputOrAttr(ctx, 1, "split", 13);
  if (failed(given))
    return failure();
  int64_t dim = type.getDimSize(*axis);
  SmallVector<int64_t> sizes;
  if (*given) {
    sizes = **given;
  } else {
    int64_t n = ctx.intAttr("num_outputs", ctx.node.output_size());
    if (n <= 0)
      return ctx.error() << "num_outputs must be positive";
    // Equal pieces; since opset 18 the last may be smaller.
    int64_t piece = (dim + n - 1) / n;
    if (ctx.opset < 18 && dim % n != 0)
      return ctx.error() << "dimension " << dim << " does not split into "
                         << n << " equal pieces";
    for (int64_t i = 0, left = dim; i < n; ++i, left -= piece)
      sizes.push_back(std::max<int64_t>(0, std::min(piece, left)));
  }
  int64_t total = 0;
  SmallVector<Type> types;
  for (int64_t s : sizes) {
    SmallVector<int64_t> shape(type.getShape());
    shape[*axis] = s;
    types.push_back(RankedTensorType::get(shape, type.getElementType()));
    total += s;
  }
  if (total != dim)
    return ctx.error() << "split sizes add up to " << total
                       << ", the dimension has " << dim;
  auto op = hgraph::SplitOp::create(ctx.builder, ctx.loc, types,
                                    ctx.inputs[0],
                                    ctx.builder.getI64IntegerAttr(*axis));
  return SmallVector<Value>(op.getResults());
}

Results importSlice(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 5)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  int64_t rank = type.getRank();
  std::optional<SmallVector<int64_t>> starts, ends, axes, steps;
  if (ctx.opset < 10) {
    starts = ctx.intsAttr("starts");
    ends = ctx.intsAttr("ends");
    axes = ctx.intsAttr("axes");
  } else {
    for (auto [i, slot, name] :
         llvm::zip(llvm::seq<size_t>(1, 5),
                   std::array<std::optional<SmallVector<int64_t>> *, 4>{
                       &starts, &ends, &axes, &steps},
                   std::array<StringRef, 4>{"starts", "ends", "axes",
                                            "steps"})) {
      auto v = intsFromInputOrAttr(ctx, i, name, 10);
      if (failed(v))
        return failure();
      *slot = *v;
    }
  }
  if (!starts || !ends || starts->size() != ends->size())
    return ctx.error() << "starts and ends are required and of equal length";
  if (!axes)
    axes = llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
  if (!steps)
    steps = SmallVector<int64_t>(starts->size(), 1);
  if (axes->size() != starts->size() || steps->size() != starts->size())
    return ctx.error() << "starts, ends, axes and steps differ in length";
  SmallVector<int64_t> begin(rank, 0), stride(rank, 1),
      shape(type.getShape());
  for (size_t i = 0; i < starts->size(); ++i) {
    FailureOr<int64_t> axis = normalizeAxis(ctx, (*axes)[i], rank);
    if (failed(axis))
      return failure();
    int64_t dim = type.getDimSize(*axis), step = (*steps)[i];
    if (step == 0)
      return ctx.error() << "step is zero";
    // ONNX clamping: to [0, dim] going forward, [-1, dim - 1] backwards.
    auto clampIndex = [&](int64_t v) {
      if (v < 0)
        v += dim;
      return step > 0 ? std::clamp<int64_t>(v, 0, dim)
                      : std::clamp<int64_t>(v, -1, dim - 1);
    };
    int64_t s = (*starts)[i], e = (*ends)[i];
    s = s < -dim ? (step > 0 ? 0 : -1) : clampIndex(s);
    e = e < -dim ? (step > 0 ? 0 : -1) : clampIndex(e);
    int64_t count = step > 0 ? (e - s + step - 1) / step
                             : (s - e + (-step) - 1) / (-step);
    count = std::max<int64_t>(count, 0);
    begin[*axis] = count ? s : 0;
    stride[*axis] = step;
    shape[*axis] = count;
  }
  return SmallVector<Value>{ctx.create<hgraph::SliceOp>(
      RankedTensorType::get(shape, type.getElementType()), ctx.inputs[0],
      ctx.builder.getDenseI64ArrayAttr(begin),
      ctx.builder.getDenseI64ArrayAttr(stride))};
}

Results importGather(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  RankedTensorType idx = tensorType(ctx.inputs[1]);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.intAttr("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(type.getShape().take_front(*axis));
  llvm::append_range(shape, idx.getShape());
  llvm::append_range(shape, type.getShape().drop_front(*axis + 1));
  return SmallVector<Value>{ctx.create<hgraph::GatherOp>(
      RankedTensorType::get(shape, type.getElementType()), ctx.inputs[0],
      ctx.inputs[1], ctx.builder.getI64IntegerAttr(*axis))};
}

Results importGatherElements(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.intAttr("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  if (tensorType(ctx.inputs[1]).getRank() != type.getRank())
    return ctx.error() << "indices " << tensorType(ctx.inputs[1])
                       << " must have the data's rank " << type.getRank();
  return SmallVector<Value>{ctx.create<hgraph::GatherElementsOp>(
      RankedTensorType::get(tensorType(ctx.inputs[1]).getShape(),
                            type.getElementType()),
      ctx.inputs[0], ctx.inputs[1], ctx.builder.getI64IntegerAttr(*axis))};
}

Results importExpand(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  auto shape = requiredSizes(ctx, 1, "shape", 0);
  if (failed(shape))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  SmallVector<int64_t> out;
  if (!OpTrait::util::getBroadcastedShape(type.getShape(), *shape, out))
    return ctx.error() << type << " does not broadcast to the requested shape";
  return SmallVector<Value>{ctx.create<hgraph::ExpandOp>(
      RankedTensorType::get(out, type.getElementType()), ctx.inputs[0])};
}

Results importTile(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  auto repeats = requiredSizes(ctx, 1, "repeats", 0);
  if (failed(repeats))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  if (int64_t(repeats->size()) != type.getRank())
    return ctx.error() << "repeats needs one entry per dimension";
  SmallVector<int64_t> shape;
  for (auto [d, r] : llvm::zip(type.getShape(), *repeats)) {
    int64_t size;
    if (llvm::MulOverflow(d, r, size))
      return ctx.error() << "repeats make a dimension of more than 2^63 "
                            "elements";
    shape.push_back(size);
  }
  return SmallVector<Value>{ctx.create<hgraph::TileOp>(
      RankedTensorType::get(shape, type.getElementType()), ctx.inputs[0],
      ctx.builder.getDenseI64ArrayAttr(*repeats))};
}

/// CenterCropPad: each listed axis cropped or zero-padded to the target
/// size around its centre (the extra element of an odd difference goes to
/// the end), as a slice and a pad.
Results importCenterCropPad(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  Value x = ctx.inputs[0];
  RankedTensorType type = tensorType(x);
  int64_t rank = type.getRank();
  std::optional<SmallVector<int64_t>> target = constantInts(ctx.inputs[1]);
  if (!target)
    return ctx.error() << "input 'shape' must be a constant (an initializer, "
                          "Constant node or shape computation that folds); "
                          "hetc needs static shapes"
                       << whyNotEvaluated(ctx.inputs[1]);
  SmallVector<int64_t> axes = ctx.intsAttr("axes").value_or(
      llvm::to_vector(llvm::seq<int64_t>(0, rank)));
  if (axes.size() != target->size())
    return ctx.error() << "shape has " << target->size()
                       << " values for " << axes.size() << " axes";
  SmallVector<int64_t> starts(rank, 0), cropped(type.getShape()),
      pads(2 * rank, 0);
  for (auto [i, a] : llvm::enumerate(axes)) {
    FailureOr<int64_t> axis = normalizeAxis(ctx, a, rank, "axes entry");
    if (failed(axis))
      return failure();
    int64_t have = type.getDimSize(*axis), want = (*target)[i];
    if (want <= 0)
      return ctx.error() << "shape values must be positive, got " << want;
    if (want < have) {
      starts[*axis] = (have - want) / 2;
      cropped[*axis] = want;
    } else if (want > have) {
      pads[*axis] = (want - have) / 2;
      pads[rank + *axis] = want - have - pads[*axis];
    }
  }
  Value result = x;
  if (ArrayRef<int64_t>(cropped) != type.getShape())
    result = ctx.create<hgraph::SliceOp>(
        RankedTensorType::get(cropped, type.getElementType()), x,
        ctx.builder.getDenseI64ArrayAttr(starts),
        ctx.builder.getDenseI64ArrayAttr(SmallVector<int64_t>(rank, 1)));
  if (llvm::any_of(pads, [](int64_t p) { return p != 0; })) {
    SmallVector<int64_t> shape(cropped);
    for (int64_t d = 0; d < rank; ++d)
      shape[d] += pads[d] + pads[rank + d];
    result = ctx.create<hgraph::PadOp>(
        RankedTensorType::get(shape, type.getElementType()), result, Value(),
        ctx.builder.getDenseI64ArrayAttr(pads),
        ctx.builder.getStringAttr("constant"));
  }
  return SmallVector<Value>{result};
}

Results importPad(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 4)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  int64_t rank = type.getRank();
  auto given = intsFromInputOrAttr(ctx, 1, "pads", 11);
  if (failed(given))
    return failure();
  if (!*given)
    return ctx.error() << "pads are required";
  SmallVector<int64_t> pads(2 * rank, 0);
  auto axesGiven = intsFromInputOrAttr(ctx, 3, "axes", 18);
  if (failed(axesGiven))
    return failure();
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (*axesGiven) {
    axes.clear();
    for (int64_t a : **axesGiven) {
      FailureOr<int64_t> n = normalizeAxis(ctx, a, rank);
      if (failed(n))
        return failure();
      axes.push_back(*n);
    }
  }
  if ((*given)->size() != 2 * axes.size())
    return ctx.error() << "pads has " << (*given)->size()
                       << " entries, expected " << 2 * axes.size();
  for (auto [i, a] : llvm::enumerate(axes)) {
    pads[a] = (**given)[i];
    pads[a + rank] = (**given)[i + axes.size()];
  }
  Value value = ctx.opset >= 11 ? ctx.input(2) : Value();
  if (ctx.opset < 11 && ctx.attr("value"))
    value = hgraph::ConstantOp::create(
        ctx.builder, ctx.loc,
        DenseElementsAttr::get(RankedTensorType::get({}, type.getElementType()),
                               ctx.floatAttr("value", 0)));
  if (value && tensorType(value).getRank() != 0)
    value = reshapeTo(ctx, value, {});
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size;
    if (llvm::AddOverflow(type.getDimSize(d), pads[d], size) ||
        llvm::AddOverflow(size, pads[d + rank], size) || size < 0)
      return ctx.error() << "pads " << pads[d] << " and " << pads[d + rank]
                         << " make dimension " << d << " of size "
                         << type.getDimSize(d)
                         << " negative or longer than 2^63";
    shape.push_back(size);
  }
  return SmallVector<Value>{ctx.create<hgraph::PadOp>(
      RankedTensorType::get(shape, type.getElementType()), ctx.inputs[0],
      value, ctx.builder.getDenseI64ArrayAttr(pads),
      ctx.builder.getStringAttr(ctx.stringAttr("mode", "constant")))};
}

Results importShape(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  ArrayRef<int64_t> shape = tensorType(ctx.inputs[0]).getShape();
  int64_t rank = shape.size();
  auto clampIndex = [&](int64_t v) {
    return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank);
  };
  int64_t start = clampIndex(ctx.intAttr("start", 0));
  int64_t end = clampIndex(ctx.intAttr("end", rank));
  SmallVector<int64_t> dims;
  for (int64_t d = start; d < end; ++d)
    dims.push_back(shape[d]);
  return SmallVector<Value>{constantI64(ctx, dims, false)};
}

Results importSize(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  return SmallVector<Value>{constantI64(
      ctx, {tensorType(ctx.inputs[0]).getNumElements()}, true)};
}

Results importConstantOfShape(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  auto shape = requiredSizes(ctx, 0, "input", 0);
  if (failed(shape))
    return failure();
  Attribute fill = ctx.builder.getF32FloatAttr(0.0f);
  Type element = ctx.builder.getF32Type();
  if (const onnx::AttributeProto *a = ctx.attr("value")) {
    std::string error;
    FailureOr<DenseElementsAttr> v =
        tensorToAttr(a->t(), ctx.builder.getContext(), error);
    if (failed(v))
      return ctx.error() << "attribute 'value' " << error;
    if (v->getNumElements() != 1)
      return ctx.error() << "attribute 'value' must hold one element";
    element = v->getElementType();
    fill = *v->value_begin<Attribute>();
  }
  auto type = RankedTensorType::get(*shape, element);
  return SmallVector<Value>{hgraph::ConstantOp::create(
      ctx.builder, ctx.loc, DenseElementsAttr::get(type, fill))};
}

Results importRange(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 3, 3)))
    return failure();
  Type element = tensorType(ctx.inputs[0]).getElementType();
  if (auto ints = constantInts(ctx.inputs[0])) {
    auto limit = constantInts(ctx.inputs[1]), delta = constantInts(ctx.inputs[2]);
    if (limit && delta && (*delta)[0] != 0) {
      int64_t n = std::max<int64_t>(
          0, int64_t(std::ceil(double((*limit)[0] - (*ints)[0]) /
                               double((*delta)[0]))));
      SmallVector<APInt> values;
      for (int64_t i = 0; i < n; ++i)
        values.push_back(APInt(element.getIntOrFloatBitWidth(),
                               uint64_t((*ints)[0] + i * (*delta)[0]), true,
                               true));
      return SmallVector<Value>{hgraph::ConstantOp::create(
          ctx.builder, ctx.loc,
          DenseElementsAttr::get(RankedTensorType::get({n}, element),
                                 values))};
    }
  } else if (auto start = constantFloats(ctx.inputs[0])) {
    auto limit = constantFloats(ctx.inputs[1]);
    auto delta = constantFloats(ctx.inputs[2]);
    if (limit && delta && (*delta)[0] != 0) {
      int64_t n = std::max<int64_t>(
          0, int64_t(std::ceil(((*limit)[0] - (*start)[0]) / (*delta)[0])));
      SmallVector<APFloat> values;
      for (int64_t i = 0; i < n; ++i) {
        APFloat v((*start)[0] + double(i) * (*delta)[0]);
        bool lost;
        v.convert(cast<FloatType>(element).getFloatSemantics(),
                  APFloat::rmNearestTiesToEven, &lost);
        values.push_back(v);
      }
      return SmallVector<Value>{hgraph::ConstantOp::create(
          ctx.builder, ctx.loc,
          DenseElementsAttr::get(RankedTensorType::get({n}, element),
                                 values))};
    }
  }
  return ctx.error() << "start, limit and delta must be constants (the "
                        "output's length depends on them; hetc needs static "
                        "shapes)";
}

Results importTrilu(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 2)))
    return failure();
  int64_t k = 0;
  if (Value kv = ctx.input(1)) {
    auto ints = constantInts(kv);
    if (!ints)
      return ctx.error() << "k must be a constant";
    k = (*ints)[0];
  }
  if (tensorType(ctx.inputs[0]).getRank() < 2)
    return ctx.error() << "input must have rank >= 2";
  return SmallVector<Value>{ctx.create<hgraph::TriluOp>(
      ctx.inputs[0], ctx.builder.getI64IntegerAttr(k),
      ctx.builder.getBoolAttr(ctx.intAttr("upper", 1) != 0))};
}

Value reduce(NodeContext &ctx, hgraph::ReduceKind kind, Value x,
             ArrayRef<int64_t> axes, bool keepdims) {
  RankedTensorType type = tensorType(x);
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!llvm::is_contained(axes, d))
      shape.push_back(type.getDimSize(d));
    else if (keepdims)
      shape.push_back(1);
  }
  return ctx.create<hgraph::ReduceOp>(
      RankedTensorType::get(shape, type.getElementType()),
      hgraph::ReduceKindAttr::get(ctx.builder.getContext(), kind), x,
      ctx.builder.getDenseI64ArrayAttr(axes), ctx.builder.getBoolAttr(keepdims));
}

/// Opset in which each reduction moved its axes from attribute to input.
template <hgraph::ReduceKind Kind, int64_t AxesInputSince>
Results importReduce(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 2)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  auto given = intsFromInputOrAttr(ctx, 1, "axes", AxesInputSince);
  if (failed(given))
    return failure();
  bool keepdims = ctx.intAttr("keepdims", 1) != 0;
  SmallVector<int64_t> axes;
  if (*given && !(*given)->empty()) {
    FailureOr<SmallVector<int64_t>> n =
        normalizeAxes(ctx, **given, type.getRank());
    if (failed(n))
      return failure();
    axes = *n;
  } else if (ctx.intAttr("noop_with_empty_axes", 0) == 0) {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  }
  return SmallVector<Value>{reduce(ctx, Kind, ctx.inputs[0], axes, keepdims)};
}

template <hgraph::ReduceKind Kind>
Results importGlobalPool(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  int64_t rank = tensorType(ctx.inputs[0]).getRank();
  if (rank < 3)
    return ctx.error() << "input must be N x C x D1 x ...";
  return SmallVector<Value>{
      reduce(ctx, Kind, ctx.inputs[0],
             llvm::to_vector(llvm::seq<int64_t>(2, rank)), true)};
}

template <bool Min>
Results importArgMax(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.intAttr("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  bool keepdims = ctx.intAttr("keepdims", 1) != 0;
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d != *axis)
      shape.push_back(type.getDimSize(d));
    else if (keepdims)
      shape.push_back(1);
  }
  return SmallVector<Value>{ctx.create<hgraph::ArgMaxOp>(
      RankedTensorType::get(shape, ctx.builder.getI64Type()), ctx.inputs[0],
      ctx.builder.getI64IntegerAttr(*axis), ctx.builder.getBoolAttr(keepdims),
      ctx.builder.getBoolAttr(Min),
      ctx.builder.getBoolAttr(ctx.intAttr("select_last_index", 0) != 0))};
}

/// CumSum and CumProd: the axis is a constant (a scalar or one value).
template <hgraph::ReduceKind Kind>
Results importCumulative(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 2)))
    return failure();
  RankedTensorType type = tensorType(ctx.inputs[0]);
  std::optional<SmallVector<int64_t>> axis = constantInts(ctx.inputs[1]);
  if (!axis || axis->size() != 1)
    return ctx.error() << "axis must be a constant with one value";
  if (type.getRank() == 0)
    return ctx.error() << "x must have rank 1 or more";
  FailureOr<int64_t> a = normalizeAxis(ctx, (*axis)[0], type.getRank());
  if (failed(a))
    return failure();
  if (type.getElementType().isInteger(1))
    return ctx.error() << "x must be numbers, got " << type;
  return SmallVector<Value>{ctx.create<hgraph::CumulativeOp>(
      type, hgraph::ReduceKindAttr::get(ctx.builder.getContext(), Kind),
      ctx.inputs[0], ctx.builder.getI64IntegerAttr(*a),
      ctx.builder.getBoolAttr(ctx.intAttr("exclusive", 0) != 0),
      ctx.builder.getBoolAttr(ctx.intAttr("reverse", 0) != 0))};
}

/// Dropout at inference is the identity; its optional mask is all true.
Results importDropout(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 3)))
    return failure();
  if (Value training = ctx.input(2)) {
    auto flag = constantInts(training);
    if (!flag)
      return ctx.error() << "training_mode must be a constant";
    if ((*flag)[0] != 0)
      return ctx.error() << "training_mode is set; hetc compiles for "
                            "inference only";
  }
  Value x = ctx.inputs[0];
  auto maskType =
      RankedTensorType::get(tensorType(x).getShape(), ctx.builder.getI1Type());
  Value mask = hgraph::ConstantOp::create(
      ctx.builder, ctx.loc, DenseElementsAttr::get(maskType, true));
  return SmallVector<Value>{x, mask};
}

} // namespace

void hetc::frontend::addShapeRules(llvm::StringMap<ImportRule> &rules) {
  using hgraph::ReduceKind;
  rules.insert({
      {"Flatten", importFlatten},
      {"DepthToSpace",
       [](NodeContext &ctx) { return importBlockMove(ctx, true); }},
      {"SpaceToDepth",
       [](NodeContext &ctx) { return importBlockMove(ctx, false); }},
      {"Squeeze", importSqueeze},
      {"Unsqueeze", importUnsqueeze},
      {"Concat", importConcat},
      {"Split", importSplit},
      {"Slice", importSlice},
      {"Gather", importGather},
      {"GatherElements", importGatherElements},
      {"Expand", importExpand},
      {"Tile", importTile},
      {"Pad", importPad},
      {"Shape", importShape},
      {"Size", importSize},
      {"ConstantOfShape", importConstantOfShape},
      {"Range", importRange},
      {"Trilu", importTrilu},
      {"Dropout", importDropout},
      {"ReduceSum", importReduce<ReduceKind::sum, 13>},
      {"ReduceMean", importReduce<ReduceKind::mean, 18>},
      {"ReduceMax", importReduce<ReduceKind::max, 18>},
      {"ReduceMin", importReduce<ReduceKind::min, 18>},
      {"ReduceProd", importReduce<ReduceKind::prod, 18>},
      {"ReduceSumSquare", importReduce<ReduceKind::sum_square, 18>},
      {"ReduceL1", importReduce<ReduceKind::l1, 18>},
      {"ReduceL2", importReduce<ReduceKind::l2, 18>},
      {"ReduceLogSum", importReduce<ReduceKind::log_sum, 18>},
      {"ReduceLogSumExp", importReduce<ReduceKind::log_sum_exp, 18>},
      {"GlobalAveragePool", importGlobalPool<ReduceKind::mean>},
      {"GlobalMaxPool", importGlobalPool<ReduceKind::max>},
      {"ArgMax", importArgMax<false>},
      {"CumSum", importCumulative<hgraph::ReduceKind::sum>},
      {"CenterCropPad", importCenterCropPad},
      {"CumProd", importCumulative<hgraph::ReduceKind::prod>},
      {"ArgMin", importArgMax<true>},
  });
}
