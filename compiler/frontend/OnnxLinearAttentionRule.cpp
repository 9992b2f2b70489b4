//===- OnnxLinearAttentionRule.cpp - LinearAttention, step by step -----===//
//
// LinearAttention (opset 27) keeps a state S (batch, kv heads, d_k, d_v)
// instead of a KV cache and updates it once per position t, in fp32:
//   gated rules:  S = S * exp(decay_t)            (per head or per key row)
//   delta rules:  v_t = beta_t * (v_t - k_t S)    (the delta correction)
//   every rule:   S = S + k_t^T v_t
//   output:       o_t = scale * q_t S             (S repeated per query head)
// with update_rule linear (neither), gated, delta or gated_delta. The
// positions are unrolled at compile time: each is a few batched matrix
// products and elementwise ops on [batch, heads, ...] tensors, and the
// outputs are concatenated along the sequence. The output takes the
// query's type and the present state the past state's (else the query's).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include <cmath>

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

struct Builder {
  NodeContext &ctx;
  Type f32;

  RankedTensorType type(ArrayRef<int64_t> shape) const {
    return RankedTensorType::get(shape, f32);
  }
  ArrayRef<int64_t> shape(Value v) const { return tensorType(v).getShape(); }
  /// (B, T, H * D) -> (B, H, T, D) in f32.
  Value heads(Value x, int64_t h) {
    ArrayRef<int64_t> s = shape(x);
    int64_t d = s[2] / h;
    Value split = reshapeTo(ctx, castTo(ctx, x, f32), {s[0], s[1], h, d});
    return ctx.create<hgraph::TransposeOp>(
        type({s[0], h, s[1], d}), split,
        ctx.builder.getDenseI64ArrayAttr({0, 2, 1, 3}));
  }
  /// x[:, :, t : t + 1, :] of a (B, H, T, D) tensor.
  Value at(Value x, int64_t t) {
    SmallVector<int64_t> s(shape(x));
    s[2] = 1;
    return ctx.create<hgraph::SliceOp>(
        type(s), x, ctx.builder.getDenseI64ArrayAttr({0, 0, t, 0}),
        ctx.builder.getDenseI64ArrayAttr({1, 1, 1, 1}));
  }
  /// (B, H, 1, D) -> (B, H, D, 1).
  Value column(Value x) {
    ArrayRef<int64_t> s = shape(x);
    return reshapeTo(ctx, x, {s[0], s[1], s[3], 1});
  }
  template <typename OpTy> Value binary(Value a, Value b) {
    return broadcastBinary<OpTy>(ctx, a, b, f32);
  }
  Value matmul(Value a, Value b) {
    ArrayRef<int64_t> x = shape(a), y = shape(b);
    return ctx.create<hgraph::MatMulOp>(type({x[0], x[1], x[2], y[3]}), a, b);
  }
};

Results importLinearAttention(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 3, 6)))
    return failure();
  Value query = ctx.inputs[0], key = ctx.inputs[1], value = ctx.inputs[2];
  Value past = ctx.input(3), decay = ctx.input(4), beta = ctx.input(5);
  std::string rule = ctx.stringAttr("update_rule", "gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" &&
      rule != "gated_delta")
    return ctx.error() << "update_rule '" << rule
                       << "' is not one of 'linear', 'gated', 'delta' and "
                          "'gated_delta'";
  bool gating = rule == "gated" || rule == "gated_delta";
  bool delta = rule == "delta" || rule == "gated_delta";
  if (gating != bool(decay))
    return ctx.error() << "update_rule '" << rule << "' "
                       << (gating ? "needs" : "takes no") << " decay input";
  if (delta != bool(beta))
    return ctx.error() << "update_rule '" << rule << "' "
                       << (delta ? "needs" : "takes no") << " beta input";
  int64_t hq = ctx.intAttr("q_num_heads", 0),
          hkv = ctx.intAttr("kv_num_heads", 0);
  if (hq <= 0 || hkv <= 0 || hq % hkv != 0)
    return ctx.error() << "q_num_heads (" << hq
                       << ") must be a positive multiple of kv_num_heads ("
                       << hkv << ")";
  RankedTensorType qType = tensorType(query);
  for (Value v : {query, key, value, decay, beta})
    if (v && (tensorType(v).getRank() != 3 ||
              !isa<FloatType>(tensorType(v).getElementType())))
      return ctx.error() << "query, key, value, decay and beta are float "
                            "tensors of rank 3, got "
                         << tensorType(v);
  int64_t b = qType.getDimSize(0), t = qType.getDimSize(1);
  ArrayRef<int64_t> ks = tensorType(key).getShape(),
                    vs = tensorType(value).getShape();
  if (qType.getDimSize(2) % hq != 0 || vs[2] % hkv != 0 ||
      ks != ArrayRef<int64_t>({b, t, hkv * (qType.getDimSize(2) / hq)}) ||
      vs[0] != b || vs[1] != t)
    return ctx.error() << "query " << qType << ", key " << tensorType(key)
                       << " and value " << tensorType(value)
                       << " do not have (B, T, heads * d) shapes for " << hq
                       << " query and " << hkv << " kv heads";
  int64_t dk = qType.getDimSize(2) / hq, dv = vs[2] / hkv;
  Builder x{ctx, ctx.builder.getF32Type()};
  auto stateType = x.type({b, hkv, dk, dv});
  Type stateElement = qType.getElementType();
  if (past) {
    RankedTensorType pastType = tensorType(past);
    if (pastType.getShape() != stateType.getShape() ||
        !isa<FloatType>(pastType.getElementType()))
      return ctx.error() << "past_state must be (" << b << ", " << hkv << ", "
                         << dk << ", " << dv << ") of floats, got " << pastType;
    stateElement = pastType.getElementType();
  }
  Value q4 = x.heads(query, hq), k4 = x.heads(key, hkv),
        v4 = x.heads(value, hkv);
  // exp(decay) per kv head (one value, or one per key row), (B, Hkv, T, 1 or
  // d_k); beta per kv head or shared, (B, Hkv or 1, T, 1).
  Value gate, strength;
  if (decay) {
    int64_t last = tensorType(decay).getDimSize(2);
    if (tensorType(decay).getDimSize(0) != b ||
        tensorType(decay).getDimSize(1) != t ||
        (last != hkv && last != hkv * dk))
      return ctx.error() << "decay must be (" << b << ", " << t << ", " << hkv
                         << " or " << hkv * dk << "), got "
                         << tensorType(decay);
    gate = ctx.create<hgraph::ExpOp>(x.heads(decay, hkv));
  }
  if (beta) {
    int64_t last = tensorType(beta).getDimSize(2);
    if (tensorType(beta).getDimSize(0) != b ||
        tensorType(beta).getDimSize(1) != t || (last != hkv && last != 1))
      return ctx.error() << "beta must be (" << b << ", " << t << ", " << hkv
                         << " or 1), got " << tensorType(beta);
    strength = x.heads(beta, last);
  }
  double scale = ctx.floatAttr("scale", 0.0f);
  if (scale == 0.0)
    scale = 1.0 / std::sqrt(double(dk));
  Value scaleValue = scalarConstant(ctx, x.f32, scale);

  Value state = past ? castTo(ctx, past, x.f32)
                     : hgraph::ConstantOp::create(
                           ctx.builder, ctx.loc,
                           DenseElementsAttr::get(
                               stateType, ctx.builder.getZeroAttr(x.f32)));
  int64_t group = hq / hkv;
  SmallVector<Value> outputs;
  for (int64_t i = 0; i < t; ++i) {
    Value k = x.at(k4, i), v = x.at(v4, i); // (B, Hkv, 1, d)
    if (gate)
      state = x.binary<hgraph::MulOp>(state, x.column(x.at(gate, i)));
    if (strength) {
      Value retrieved = x.matmul(k, state); // (B, Hkv, 1, d_v)
      v = x.binary<hgraph::MulOp>(x.at(strength, i),
                                  x.binary<hgraph::SubOp>(v, retrieved));
    }
    state = x.binary<hgraph::AddOp>(state, x.matmul(x.column(k), v));
    Value read = state;
    if (group > 1) {
      Value five = reshapeTo(ctx, state, {b, hkv, 1, dk, dv});
      Value repeated = ctx.create<hgraph::ExpandOp>(
          RankedTensorType::get({b, hkv, group, dk, dv}, x.f32), five);
      read = reshapeTo(ctx, repeated, {b, hq, dk, dv});
    }
    outputs.push_back(
        x.binary<hgraph::MulOp>(x.matmul(x.at(q4, i), read), scaleValue));
  }
  Value all =
      outputs.size() == 1
          ? outputs.front()
          : ctx.create<hgraph::ConcatOp>(x.type({b, hq, t, dv}), outputs,
                                         ctx.builder.getI64IntegerAttr(2));
  Value merged = reshapeTo(ctx,
                           ctx.create<hgraph::TransposeOp>(
                               x.type({b, t, hq, dv}), all,
                               ctx.builder.getDenseI64ArrayAttr({0, 2, 1, 3})),
                           {b, t, hq * dv});
  return SmallVector<Value>{castTo(ctx, merged, qType.getElementType()),
                            castTo(ctx, state, stateElement)};
}

} // namespace

void hetc::frontend::addLinearAttentionRule(
    llvm::StringMap<ImportRule> &rules) {
  rules["LinearAttention"] = importLinearAttention;
}
