//===- OnnxAttentionRule.cpp - Import rule of ONNX Attention ----------===//
//
// Attention (opsets 23 to 25) imports as the graph that ONNX's reference
// computes, in its order of operations: heads split from packed 3-D
// inputs, the KV cache concatenated, KV heads repeated for grouped-query
// attention, Q and K each scaled by sqrt(scale), Q x K^T, softcap, the
// additive bias (attn_mask, causal and sliding-window masks), softmax
// along the keys, and the product with V. The causal and window masks are
// constants built here; a query row that they mask entirely gets zero
// probabilities, as ONNX defines. FlexAttention (ai.onnx.preview) shares
// the head repetition and the scaled scores, and imports its score_mod
// and prob_mod graphs inline.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/Dialect/Traits.h"

#include <cmath>
#include <limits>
#include <tuple>

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

RankedTensorType f32Tensor(OpBuilder &b, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, b.getF32Type());
}

Value f32Constant(NodeContext &ctx, ArrayRef<int64_t> shape,
                  ArrayRef<float> values) {
  return hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(f32Tensor(ctx.builder, shape), values));
}

Value scalar(NodeContext &ctx, float value) {
  return f32Constant(ctx, {}, {value});
}

Value reshape(NodeContext &ctx, Value v, ArrayRef<int64_t> shape) {
  return ctx.create<hgraph::ReshapeOp>(f32Tensor(ctx.builder, shape), v);
}

Value transpose(NodeContext &ctx, Value v, ArrayRef<int64_t> perm) {
  ArrayRef<int64_t> in = tensorType(v).getShape();
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(in[p]);
  return ctx.create<hgraph::TransposeOp>(f32Tensor(ctx.builder, shape), v,
                                         ctx.builder.getDenseI64ArrayAttr(perm));
}

Value matmul(NodeContext &ctx, Value a, Value b) {
  ArrayRef<int64_t> as = tensorType(a).getShape(), bs = tensorType(b).getShape();
  SmallVector<int64_t> shape;
  OpTrait::util::getBroadcastedShape(as.drop_back(2), bs.drop_back(2), shape);
  shape.append({as[as.size() - 2], bs.back()});
  return hgraph::MatMulOp::create(ctx.builder, ctx.loc,
                                  f32Tensor(ctx.builder, shape), a, b);
}

/// [B, S, heads * size] -> [B, heads, S, size].
Value splitHeads(NodeContext &ctx, Value x, int64_t heads) {
  ArrayRef<int64_t> s = tensorType(x).getShape();
  Value r = reshape(ctx, x, {s[0], s[1], heads, s[2] / heads});
  return transpose(ctx, r, {0, 2, 1, 3});
}

/// Grouped-query attention: each of the kvHeads heads of `keys` and
/// `values` ([B, kvHeads, S, size]) serves qHeads / kvHeads query heads,
/// repeated in place ([h0, h0, h1, h1, ...]).
LogicalResult repeatKvHeads(NodeContext &ctx, Value &keys, Value &values,
                            int64_t qHeads) {
  int64_t kvHeads = tensorType(keys).getDimSize(1);
  if (qHeads == kvHeads)
    return success();
  if (kvHeads <= 0 || qHeads % kvHeads != 0)
    return ctx.error() << "q_num_heads " << qHeads
                       << " is not a multiple of kv_num_heads " << kvHeads;
  SmallVector<int64_t> heads;
  for (int64_t h = 0; h < qHeads; ++h)
    heads.push_back(h / (qHeads / kvHeads));
  Value indices = hgraph::ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(
          RankedTensorType::get({qHeads}, ctx.builder.getI64Type()),
          ArrayRef<int64_t>(heads)));
  auto repeat = [&](Value x) -> Value {
    SmallVector<int64_t> shape(tensorType(x).getShape());
    shape[1] = qHeads;
    return ctx.create<hgraph::GatherOp>(f32Tensor(ctx.builder, shape), x,
                                        indices,
                                        ctx.builder.getI64IntegerAttr(1));
  };
  keys = repeat(keys);
  values = repeat(values);
  return success();
}

/// Q x K^T with Q and K each scaled by sqrt(scale), as ONNX's definitions
/// do; scale is the node's attribute or 1 / sqrt(head size).
Value scaledScores(NodeContext &ctx, Value q, Value keys, int64_t headSize) {
  double scale = 1.0 / std::sqrt(double(headSize));
  if (const onnx::AttributeProto *s = ctx.attr("scale"))
    scale = s->f();
  Value root = scalar(ctx, float(std::sqrt(scale)));
  Value qScaled = broadcastBinary<hgraph::MulOp>(ctx, q, root);
  Value kScaled = broadcastBinary<hgraph::MulOp>(ctx, keys, root);
  return matmul(ctx, qScaled, transpose(ctx, kScaled, {0, 1, 3, 2}));
}

/// Refuses a softmax_precision other than float32 (or double, which the
/// chip holds as float32).
LogicalResult checkSoftmaxPrecision(NodeContext &ctx) {
  if (const onnx::AttributeProto *p = ctx.attr("softmax_precision"))
    if (p->i() != onnx::TensorProto::FLOAT &&
        p->i() != onnx::TensorProto::DOUBLE)
      return ctx.error() << "softmax_precision " << dataTypeName(int(p->i()))
                         << " is not supported; the softmax runs in float32";
  return success();
}

Results importAttentionF32(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 3, 7)))
    return failure();
  Value q = ctx.inputs[0], k = ctx.inputs[1], v = ctx.inputs[2];
  Value mask = ctx.input(3), pastKey = ctx.input(4),
        pastValue = ctx.input(5);
  for (Value x : {q, k, v, pastKey, pastValue})
    if (x && !tensorType(x).getElementType().isF32())
      return ctx.error() << "Q, K, V and the caches must all be float32, "
                            "float16 or bfloat16 (one type), got "
                         << tensorType(x);
  if (ctx.input(6) && pastKey)
    return ctx.error() << "nonpad_kv_seqlen cannot be combined with "
                          "past_key and past_value";
  if (!pastKey != !pastValue)
    return ctx.error() << "past_key and past_value must be given together";
  int64_t rank = tensorType(q).getRank();
  if ((rank != 3 && rank != 4) || tensorType(k).getRank() != rank ||
      tensorType(v).getRank() != rank)
    return ctx.error() << "Q, K and V must all be 3-D or all 4-D, got "
                       << tensorType(q) << ", " << tensorType(k) << " and "
                       << tensorType(v);
  if (failed(checkSoftmaxPrecision(ctx)))
    return failure();
  int64_t mode = ctx.intAttr("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3)
    return ctx.error() << "qk_matmul_output_mode " << mode
                       << " is not one of 0, 1, 2, 3";

  if (rank == 3) {
    int64_t qHeads = ctx.intAttr("q_num_heads", 0);
    int64_t kvHeads = ctx.intAttr("kv_num_heads", 0);
    if (qHeads <= 0 || kvHeads <= 0)
      return ctx.error() << "3-D inputs need positive q_num_heads and "
                            "kv_num_heads attributes";
    if (tensorType(q).getDimSize(2) % qHeads != 0 ||
        tensorType(k).getDimSize(2) % kvHeads != 0 ||
        tensorType(v).getDimSize(2) % kvHeads != 0)
      return ctx.error() << "the hidden sizes of Q, K and V must divide by "
                            "their head counts";
    q = splitHeads(ctx, q, qHeads);
    k = splitHeads(ctx, k, kvHeads);
    v = splitHeads(ctx, v, kvHeads);
  }
  ArrayRef<int64_t> qs = tensorType(q).getShape();
  int64_t batch = qs[0], qHeads = qs[1], seq = qs[2], headSize = qs[3];
  int64_t kvHeads = tensorType(k).getDimSize(1);
  // The caches extend K and V along the sequence: the other dimensions
  // must be those of the (split) K and V.
  for (auto [past, now, name] : {std::tuple(pastKey, k, "past_key"),
                                 std::tuple(pastValue, v, "past_value")}) {
    if (!past)
      continue;
    ArrayRef<int64_t> ps = tensorType(past).getShape(),
                      ns = tensorType(now).getShape();
    if (ps.size() != 4 || ps[0] != ns[0] || ps[1] != ns[1] || ps[3] != ns[3])
      return ctx.error() << name << " must be 4-D [batch, heads, past, size] "
                         << "matching [" << ns[0] << ", " << ns[1] << ", ?, "
                         << ns[3] << "], got " << tensorType(past);
  }

  // The KV cache: present = concat(past, new) along the sequence.
  auto appendCache = [&](Value past, Value now) -> Value {
    if (!past)
      return now;
    SmallVector<int64_t> shape(tensorType(now).getShape());
    shape[2] += tensorType(past).getDimSize(2);
    return ctx.create<hgraph::ConcatOp>(f32Tensor(ctx.builder, shape),
                                        ValueRange{past, now},
                                        ctx.builder.getI64IntegerAttr(2));
  };
  Value presentKey = appendCache(pastKey, k);
  Value presentValue = appendCache(pastValue, v);
  int64_t pastLength = pastKey ? tensorType(pastKey).getDimSize(2) : 0;
  int64_t kvLength = tensorType(presentKey).getDimSize(2);

  Value keys = presentKey, values = presentValue;
  if (failed(repeatKvHeads(ctx, keys, values, qHeads)))
    return failure();
  Value scores = scaledScores(ctx, q, keys, headSize);
  float softcap = ctx.floatAttr("softcap", 0.0f);
  if (softcap > 0.0f) {
    Value cap = scalar(ctx, softcap);
    Value t = ctx.create<hgraph::TanhOp>(broadcastBinary<hgraph::DivOp>(ctx, scores, cap));
    scores = broadcastBinary<hgraph::MulOp>(ctx, t, cap);
  }
  Value qkOutput = scores;

  // The constant part of the bias: causal and sliding-window masks, with
  // the query block aligned after the cache (offset = past length).
  const float negInf = -std::numeric_limits<float>::infinity();
  bool causal = ctx.intAttr("is_causal", 0) != 0;
  int64_t left = ctx.intAttr("left_window_size", -1);
  int64_t right = ctx.intAttr("right_window_size", -1);
  bool window = left >= 0 || right >= 0;
  // nonpad_kv_seqlen (an external cache): keys at or past nonpad[b] are
  // padding, and the causal and window masks align the query block to end
  // at nonpad[b] (offset = nonpad[b] - seq): a bias computed at run time.
  Value paddingBias;
  if (Value nonpad = ctx.input(6)) {
    if (tensorType(nonpad).getNumElements() != batch)
      return ctx.error() << "nonpad_kv_seqlen " << tensorType(nonpad)
                         << " must hold one length per batch element ("
                         << batch << ")";
    Type i64 = ctx.builder.getI64Type(), i1 = ctx.builder.getI1Type();
    Value lens = castTo(
        ctx,
        ctx.create<hgraph::ReshapeOp>(
            RankedTensorType::get({batch, 1, 1, 1},
                                  tensorType(nonpad).getElementType()),
            nonpad),
        i64);
    Value keyAt = positionsAlong(ctx, kvLength, 3, 4);
    Value queryAt = positionsAlong(ctx, seq, 2, 4);
    Value allowed = broadcastBinary<hgraph::LessOp>(ctx, keyAt, lens, i1);
    if (causal || window) {
      auto i64Scalar = [&](int64_t v) -> Value {
        return scalarConstant(ctx, i64, double(v));
      };
      // diff = i + offset - j, offset = nonpad[b] - seq.
      Value offset = broadcastBinary<hgraph::SubOp>(ctx, lens, i64Scalar(seq), i64);
      Value shifted = broadcastBinary<hgraph::AddOp>(ctx, queryAt, offset, i64);
      Value diff = broadcastBinary<hgraph::SubOp>(ctx, shifted, keyAt, i64);
      auto also = [&](Value condition) {
        allowed = broadcastBinary<hgraph::AndOp>(ctx, allowed, condition, i1);
      };
      if (causal)
        also(broadcastBinary<hgraph::GreaterOrEqualOp>(ctx, diff, i64Scalar(0), i1));
      if (left >= 0)
        also(broadcastBinary<hgraph::LessOrEqualOp>(ctx, diff, i64Scalar(left), i1));
      if (right >= 0)
        also(broadcastBinary<hgraph::GreaterOrEqualOp>(ctx, diff, i64Scalar(-right),
                                              i1));
    }
    Value open = scalar(ctx, 0.0f);
    Value closed = scalar(ctx, -std::numeric_limits<float>::infinity());
    RankedTensorType at = tensorType(allowed);
    paddingBias = ctx.create<hgraph::WhereOp>(
        f32Tensor(ctx.builder, at.getShape()), allowed, open, closed);
    // The run-time bias replaces the constant causal and window masks.
    causal = false;
    left = right = -1;
    window = false;
  }
  SmallVector<float> fixed(seq * kvLength, 0.0f);
  SmallVector<float> keepRow(seq, 1.0f);
  bool anyMasked = false;
  for (int64_t i = 0; i < seq; ++i) {
    bool allMasked = true;
    for (int64_t j = 0; j < kvLength; ++j) {
      int64_t diff = i + pastLength - j;
      bool allowed = !(causal && diff < 0) && !(left >= 0 && diff > left) &&
                     !(right >= 0 && -diff > right);
      fixed[i * kvLength + j] = allowed ? 0.0f : negInf;
      allMasked &= !allowed;
    }
    if (allMasked && kvLength > 0) {
      keepRow[i] = 0.0f;
      anyMasked = true;
    }
  }

  // attn_mask: boolean (true attends) or additive, padded with masked
  // keys up to the total sequence length.
  Value bias;
  if (mask) {
    RankedTensorType mt = tensorType(mask);
    if (mt.getElementType().isInteger(1)) {
      mask = ctx.create<hgraph::WhereOp>(f32Tensor(ctx.builder, mt.getShape()),
                                         mask, scalar(ctx, 0.0f),
                                         scalar(ctx, negInf));
    } else if (!mt.getElementType().isF32()) {
      return ctx.error() << "attn_mask of type " << mt
                         << " is not supported; it must be boolean or float32";
    }
    int64_t given = mt.getRank() ? mt.getShape().back() : 1;
    if (mt.getRank() == 0 || given > kvLength)
      return ctx.error() << "attn_mask " << mt << " does not fit "
                         << kvLength << " keys";
    // Padded to the keys, the mask must broadcast to the scores.
    SmallVector<int64_t> padded(mt.getShape()), scoresShape{batch, qHeads, seq,
                                                            kvLength},
        broadcast;
    padded.back() = kvLength;
    if (!OpTrait::util::getBroadcastedShape(padded, scoresShape, broadcast) ||
        ArrayRef<int64_t>(broadcast) != ArrayRef<int64_t>(scoresShape))
      return ctx.error() << "attn_mask " << mt
                         << " does not broadcast to the scores [" << batch
                         << ", " << qHeads << ", " << seq << ", " << kvLength
                         << "]";
    if (given < kvLength) {
      SmallVector<int64_t> pads(2 * mt.getRank(), 0), shape(mt.getShape());
      pads[2 * mt.getRank() - 1] = kvLength - given;
      shape.back() = kvLength;
      mask = ctx.create<hgraph::PadOp>(f32Tensor(ctx.builder, shape), mask,
                                       scalar(ctx, negInf),
                                       ctx.builder.getDenseI64ArrayAttr(pads),
                                       ctx.builder.getStringAttr("constant"));
    }
    bias = mask;
  }
  if (paddingBias)
    bias = bias ? broadcastBinary<hgraph::AddOp>(ctx, bias, paddingBias) : paddingBias;
  Value softmaxInput;
  if (causal || window) {
    Value fixedBias = f32Constant(ctx, {seq, kvLength}, fixed);
    Value total = bias ? broadcastBinary<hgraph::AddOp>(ctx, bias, fixedBias) : fixedBias;
    Value withBias = broadcastBinary<hgraph::AddOp>(ctx, scores, total);
    if (mode == 2)
      qkOutput = withBias;
    softmaxInput = withBias;
    if (anyMasked) {
      // A fully masked row would softmax to NaN (every logit -inf); it is
      // fed finite logits instead and its probabilities are zeroed below.
      for (int64_t i = 0; i < seq; ++i)
        if (keepRow[i] == 0.0f)
          for (int64_t j = 0; j < kvLength; ++j)
            fixed[i * kvLength + j] = 0.0f;
      Value guarded = f32Constant(ctx, {seq, kvLength}, fixed);
      Value guardedTotal =
          bias ? broadcastBinary<hgraph::AddOp>(ctx, bias, guarded) : guarded;
      softmaxInput = broadcastBinary<hgraph::AddOp>(ctx, scores, guardedTotal);
    }
  } else {
    softmaxInput = bias ? broadcastBinary<hgraph::AddOp>(ctx, scores, bias) : scores;
    if (mode == 2)
      qkOutput = softmaxInput;
  }
  Value probs = ctx.create<hgraph::SoftmaxOp>(
      tensorType(softmaxInput), softmaxInput,
      ctx.builder.getI64IntegerAttr(tensorType(softmaxInput).getRank() - 1));
  if (anyMasked)
    probs = broadcastBinary<hgraph::MulOp>(ctx, probs,
                                  f32Constant(ctx, {seq, 1}, keepRow));
  if (mask || paddingBias) {
    // A row the run-time mask hides entirely softmaxes to NaN (every logit
    // -inf); ONNX defines its probabilities as zero. NaN != NaN picks those
    // out (as it would a NaN that came with the inputs).
    RankedTensorType pt = tensorType(probs);
    Value isNumber = ctx.create<hgraph::EqualOp>(
        RankedTensorType::get(pt.getShape(), ctx.builder.getI1Type()), probs,
        probs);
    probs = ctx.create<hgraph::WhereOp>(pt, isNumber, probs, scalar(ctx, 0.0f));
  }
  if (mode == 3)
    qkOutput = probs;

  Value y = matmul(ctx, probs, values);
  if (rank == 3) {
    int64_t vSize = tensorType(values).getDimSize(3);
    y = reshape(ctx, transpose(ctx, y, {0, 2, 1, 3}),
                {batch, seq, qHeads * vSize});
  }
  return SmallVector<Value>{y, presentKey, presentValue, qkOutput};
}

/// One modifier subgraph of FlexAttention (score_mod or prob_mod) applied
/// to `x`: one rank-4 input, one output of its shape and type.
FailureOr<Value> applyModifier(NodeContext &ctx, StringRef name, Value x) {
  const onnx::AttributeProto *attr = ctx.attr(name);
  if (!attr)
    return x;
  if (!attr->has_g())
    return ctx.error() << "attribute '" << name << "' must be a graph";
  if (!ctx.inlineGraph)
    return ctx.error() << "attribute '" << name << "' cannot be imported here";
  const onnx::GraphProto &body = attr->g();
  if (body.input_size() != 1 || body.output_size() != 1)
    return ctx.error() << "its " << name << " graph must take one input and "
                       << "give one output, it has " << body.input_size()
                       << " and " << body.output_size();
  FailureOr<SmallVector<Value>> outs = ctx.inlineGraph(body, {x});
  if (failed(outs))
    return failure();
  Value y = outs->front();
  if (tensorType(y) != tensorType(x))
    return ctx.error() << "its " << name << " graph gives " << tensorType(y)
                       << " for " << tensorType(x)
                       << "; it must keep the shape and element type";
  return y;
}

/// FlexAttention (ai.onnx.preview): rank-4 Q, K and V, grouped-query heads,
/// Q x K^T scaled, score_mod, softmax along the keys, prob_mod, and the
/// product with V; computed in float32.
Results importFlexAttentionF32(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 3, 3)) || failed(checkSoftmaxPrecision(ctx)))
    return failure();
  Value q = ctx.inputs[0], keys = ctx.inputs[1], values = ctx.inputs[2];
  RankedTensorType qt = tensorType(q), kt = tensorType(keys),
                   vt = tensorType(values);
  if (qt.getRank() != 4 || kt.getRank() != 4 || vt.getRank() != 4)
    return ctx.error() << "Q, K and V must be rank 4, got " << qt << ", " << kt
                       << " and " << vt;
  for (Value x : {q, keys, values})
    if (!tensorType(x).getElementType().isF32())
      return ctx.error() << "Q, K and V must all be float32, float16 or "
                            "bfloat16 (one type), got "
                         << tensorType(x);
  if (kt.getDimSize(0) != qt.getDimSize(0) ||
      vt.getDimSize(0) != qt.getDimSize(0) ||
      kt.getDimSize(1) != vt.getDimSize(1) ||
      kt.getDimSize(2) != vt.getDimSize(2) ||
      kt.getDimSize(3) != qt.getDimSize(3))
    return ctx.error() << "Q " << qt << ", K " << kt << " and V " << vt
                       << " must agree on the batch, K and V on the heads "
                          "and keys, Q and K on the head size";
  if (failed(repeatKvHeads(ctx, keys, values, qt.getDimSize(1))))
    return failure();
  Value scores = scaledScores(ctx, q, keys, qt.getDimSize(3));
  FailureOr<Value> modified = applyModifier(ctx, "score_mod", scores);
  if (failed(modified))
    return failure();
  Value probs = ctx.create<hgraph::SoftmaxOp>(tensorType(*modified), *modified,
                                              ctx.builder.getI64IntegerAttr(3));
  FailureOr<Value> kept = applyModifier(ctx, "prob_mod", probs);
  if (failed(kept))
    return failure();
  return SmallVector<Value>{matmul(ctx, *kept, values)};
}

/// Runs `importF32` on float32 copies of f16, bf16 or f64 inputs (the
/// chip's vector and matrix units accumulate in f32 anyway, and it holds
/// f64 as f32) and converts the outputs back to the inputs' type.
Results importInF32(NodeContext &ctx, Results (*importF32)(NodeContext &)) {
  if (ctx.inputs.empty() || !ctx.inputs[0])
    return importF32(ctx);
  Type element = tensorType(ctx.inputs[0]).getElementType();
  if (!element.isF16() && !element.isBF16() && !element.isF64())
    return importF32(ctx);
  Type f32 = ctx.builder.getF32Type();
  for (Value &input : ctx.inputs)
    if (input && tensorType(input).getElementType() == element)
      input = castTo(ctx, input, f32);
  Results results = importF32(ctx);
  if (failed(results))
    return failure();
  for (Value &result : *results)
    if (result)
      result = castTo(ctx, result, element);
  return results;
}

Results importAttention(NodeContext &ctx) {
  return importInF32(ctx, importAttentionF32);
}

Results importFlexAttention(NodeContext &ctx) {
  return importInF32(ctx, importFlexAttentionF32);
}

} // namespace

void hetc::frontend::addAttentionRules(llvm::StringMap<ImportRule> &rules) {
  rules.insert({"Attention", importAttention});
}

ImportRule hetc::frontend::lookupPreviewRule(StringRef opType) {
  return opType == "FlexAttention" ? importFlexAttention : nullptr;
}
