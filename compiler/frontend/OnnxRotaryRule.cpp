//===- OnnxRotaryRule.cpp - RotaryEmbedding as elementwise ops ---------===//
//
// RotaryEmbedding (opset 23) rotates pairs of each head's first
// `rotary_embedding_dim` features by the angles whose cosines and sines
// the caches hold: real = cos x1 - sin x2, imag = sin x1 + cos x2, where
// (x1, x2) are the two halves of those features, or, `interleaved`, the
// even and odd ones. With position_ids the caches are looked up by
// position (a Gather); without, they are given per batch and position.
// The ops are those of ONNX's own function body for the operator.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

struct Rotary {
  NodeContext &ctx;
  Type element;

  RankedTensorType type(ArrayRef<int64_t> shape) const {
    return RankedTensorType::get(shape, element);
  }
  /// `v[..., start : start + count * step : step]` along the last axis.
  Value lastSlice(Value v, int64_t start, int64_t count, int64_t step) {
    ArrayRef<int64_t> in = tensorType(v).getShape();
    if (start == 0 && step == 1 && count == in.back())
      return v;
    SmallVector<int64_t> shape(in), starts(in.size(), 0), steps(in.size(), 1);
    shape.back() = count;
    starts.back() = start;
    steps.back() = step;
    return ctx.create<hgraph::SliceOp>(type(shape), v,
                                       ctx.builder.getDenseI64ArrayAttr(starts),
                                       ctx.builder.getDenseI64ArrayAttr(steps));
  }
  Value reshape(Value v, ArrayRef<int64_t> shape) {
    return reshapeTo(ctx, v, shape);
  }
  Value concatLast(ValueRange parts) {
    SmallVector<int64_t> shape(tensorType(parts.front()).getShape());
    shape.back() = 0;
    for (Value p : parts)
      shape.back() += tensorType(p).getShape().back();
    return ctx.create<hgraph::ConcatOp>(
        type(shape), parts,
        ctx.builder.getI64IntegerAttr(int64_t(shape.size()) - 1));
  }
  Value swap12(Value v) {
    ArrayRef<int64_t> s = tensorType(v).getShape();
    return ctx.create<hgraph::TransposeOp>(
        type({s[0], s[2], s[1], s[3]}), v,
        ctx.builder.getDenseI64ArrayAttr({0, 2, 1, 3}));
  }
  template <typename OpTy>
  Value binary(Value a, Value b) {
    return broadcastBinary<OpTy>(ctx, a, b, element);
  }
};

Results importRotaryEmbedding(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 3, 4)))
    return failure();
  Value x = ctx.inputs[0], cosCache = ctx.inputs[1], sinCache = ctx.inputs[2];
  Value positions = ctx.input(3);
  RankedTensorType xType = tensorType(x);
  Type element = xType.getElementType();
  if (!isa<FloatType>(element) || tensorType(cosCache).getElementType() != element ||
      tensorType(sinCache).getElementType() != element)
    return ctx.error() << "X and the caches must hold one float type, got "
                       << xType << ", " << tensorType(cosCache) << " and "
                       << tensorType(sinCache);
  Rotary r{ctx, element};
  int64_t rank = xType.getRank();
  int64_t heads = ctx.intAttr("num_heads", 0);
  // [batch, seq, heads, head_size]
  Value v;
  if (rank == 4) {
    v = r.swap12(x);
  } else if (rank == 3) {
    int64_t hidden = xType.getDimSize(2);
    if (heads < 1 || hidden % heads)
      return ctx.error() << "a 3-D input needs num_heads dividing its hidden "
                            "size "
                         << hidden << ", got " << heads;
    v = r.reshape(x, {xType.getDimSize(0), xType.getDimSize(1), heads,
                      hidden / heads});
  } else {
    return ctx.error() << "X must be 3-D or 4-D, got " << xType;
  }
  ArrayRef<int64_t> shape = tensorType(v).getShape();
  int64_t batch = shape[0], seq = shape[1], headSize = shape[3];
  int64_t rotary = ctx.intAttr("rotary_embedding_dim", 0);
  if (rotary == 0)
    rotary = headSize;
  if (rotary < 2 || rotary > headSize || rotary % 2)
    return ctx.error() << "rotary_embedding_dim must be even and in [2, "
                       << headSize << "], got " << rotary;
  int64_t half = rotary / 2;
  // The caches as [batch, seq, 1, half].
  auto angles = [&](Value cache) -> FailureOr<Value> {
    RankedTensorType c = tensorType(cache);
    Value looked = cache;
    if (positions) {
      RankedTensorType p = tensorType(positions);
      if (c.getRank() != 2 || p.getRank() != 2 || p.getDimSize(0) != batch ||
          p.getDimSize(1) != seq)
        return FailureOr<Value>(
            ctx.error() << "with position_ids " << p << ", the caches must "
                        << "be [max_position, dim / 2], got " << c);
      looked = ctx.create<hgraph::GatherOp>(
          r.type({batch, seq, c.getDimSize(1)}), cache, positions,
          ctx.builder.getI64IntegerAttr(0));
    } else if (c.getRank() != 3 || c.getDimSize(0) != batch ||
               c.getDimSize(1) != seq) {
      return FailureOr<Value>(ctx.error()
                              << "without position_ids, the caches must be "
                              << "[" << batch << ", " << seq
                              << ", dim / 2], got " << c);
    }
    if (tensorType(looked).getShape().back() < half)
      return FailureOr<Value>(ctx.error()
                              << "the caches hold "
                              << tensorType(looked).getShape().back()
                              << " angles per position, fewer than " << half);
    return r.reshape(r.lastSlice(looked, 0, half, 1), {batch, seq, 1, half});
  };
  FailureOr<Value> cos = angles(cosCache), sin = angles(sinCache);
  if (failed(cos) || failed(sin))
    return failure();
  bool interleaved = ctx.intAttr("interleaved", 0) != 0;
  Value rotated = r.lastSlice(v, 0, rotary, 1);
  Value x1 = interleaved ? r.lastSlice(rotated, 0, half, 2)
                         : r.lastSlice(rotated, 0, half, 1);
  Value x2 = interleaved ? r.lastSlice(rotated, 1, half, 2)
                         : r.lastSlice(rotated, half, half, 1);
  Value real = r.binary<hgraph::SubOp>(r.binary<hgraph::MulOp>(*cos, x1),
                                       r.binary<hgraph::MulOp>(*sin, x2));
  Value imag = r.binary<hgraph::AddOp>(r.binary<hgraph::MulOp>(*sin, x1),
                                       r.binary<hgraph::MulOp>(*cos, x2));
  Value out;
  if (interleaved) {
    // Back in pairs: [.., half, 2] flattened.
    Value pairs = r.concatLast({r.reshape(real, {batch, seq, shape[2], half, 1}),
                                r.reshape(imag, {batch, seq, shape[2], half, 1})});
    out = r.reshape(pairs, {batch, seq, shape[2], rotary});
  } else {
    out = r.concatLast({real, imag});
  }
  if (rotary < headSize)
    out = r.concatLast({out, r.lastSlice(v, rotary, headSize - rotary, 1)});
  Value y = rank == 4 ? r.swap12(out) : r.reshape(out, xType.getShape());
  return SmallVector<Value>{y};
}

} // namespace

void hetc::frontend::addRotaryRule(llvm::StringMap<ImportRule> &rules) {
  rules["RotaryEmbedding"] = importRotaryEmbedding;
}
