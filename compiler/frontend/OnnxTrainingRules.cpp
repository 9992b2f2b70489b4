//===- OnnxTrainingRules.cpp - Optimiser steps (ai.onnx.preview.training) ===//
//
// Adagrad, Momentum and Adam update each tensor X_i with its gradient G_i
// and state (H_i, V_i) by elementwise formulas, taking the learning rate R
// and the step count T as run-time scalars. The formulas are those of
// ONNX's definitions, in their order of operations.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

/// Elementwise ops on f32 tensors with broadcasting.
struct Math {
  NodeContext &ctx;

  Value add(Value a, Value b) {
    return broadcastBinary<hgraph::AddOp>(ctx, a, b);
  }
  Value sub(Value a, Value b) {
    return broadcastBinary<hgraph::SubOp>(ctx, a, b);
  }
  Value mul(Value a, Value b) {
    return broadcastBinary<hgraph::MulOp>(ctx, a, b);
  }
  Value div(Value a, Value b) {
    return broadcastBinary<hgraph::DivOp>(ctx, a, b);
  }
  Value c(double v) { return scalarConstant(ctx, ctx.builder.getF32Type(), v); }
  /// `then` where the step count t > 0, `otherwise` elsewhere (scalars).
  Value ifStarted(Value t, Value then, Value otherwise) {
    auto boolType = RankedTensorType::get({}, ctx.builder.getI1Type());
    Value started = ctx.create<hgraph::GreaterOp>(
        boolType, t, scalarConstant(ctx, tensorType(t).getElementType(), 0));
    return ctx.create<hgraph::WhereOp>(broadcastResultType(then, otherwise), started, then,
                                       otherwise);
  }
};

/// Checks the common inputs: R (a float32 scalar), T (an integer scalar),
/// then `groups` lists of n tensors each, all float32 of matching shapes.
/// Returns n.
FailureOr<int64_t> checkInputs(NodeContext &ctx, int64_t groups) {
  if (ctx.inputs.size() < size_t(2 + groups) ||
      (ctx.inputs.size() - 2) % groups != 0)
    return ctx.error() << "expects R, T and " << groups
                       << " lists of tensors of one length, got "
                       << ctx.inputs.size() << " inputs";
  for (Value v : ctx.inputs)
    if (!v)
      return ctx.error() << "every input is required";
  RankedTensorType r = tensorType(ctx.inputs[0]), t = tensorType(ctx.inputs[1]);
  if (r.getNumElements() != 1 || !r.getElementType().isF32())
    return ctx.error() << "R must be a float32 scalar, got " << r;
  if (t.getNumElements() != 1 || !isa<IntegerType>(t.getElementType()))
    return ctx.error() << "T must be an integer scalar, got " << t;
  int64_t n = int64_t(ctx.inputs.size() - 2) / groups;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t g = 0; g < groups; ++g) {
      RankedTensorType x = tensorType(ctx.inputs[2 + i]);
      RankedTensorType other = tensorType(ctx.inputs[2 + g * n + i]);
      if (!other.getElementType().isF32() || other.getShape() != x.getShape())
        return ctx.error() << "input " << 2 + g * n + i << " " << other
                           << " must be float32 shaped like X " << x;
    }
  return n;
}

Value scalarOf(NodeContext &ctx, Value v) {
  RankedTensorType type = tensorType(v);
  return ctx.create<hgraph::ReshapeOp>(
      RankedTensorType::get({}, type.getElementType()), v);
}

Results importAdagrad(NodeContext &ctx) {
  FailureOr<int64_t> n = checkInputs(ctx, 3);
  if (failed(n))
    return failure();
  Math m{ctx};
  Value r = scalarOf(ctx, ctx.inputs[0]);
  Value t = castTo(ctx, scalarOf(ctx, ctx.inputs[1]), ctx.builder.getF32Type());
  double decay = ctx.floatAttr("decay_factor", 0.0f);
  double epsilon = ctx.floatAttr("epsilon", 1e-6f);
  double norm = ctx.floatAttr("norm_coefficient", 0.0f);
  // r' = R / (1 + T * decay_factor)
  Value decayed = m.mul(t, m.c(decay));
  Value rate = m.div(r, m.add(m.c(1.0), decayed));
  SmallVector<Value> xs, hs;
  for (int64_t i = 0; i < *n; ++i) {
    Value x = ctx.inputs[2 + i], g = ctx.inputs[2 + *n + i],
          h = ctx.inputs[2 + 2 * *n + i];
    Value reg = m.add(m.mul(m.c(norm), x), g);
    Value hNew = m.add(h, m.mul(reg, reg));
    Value root = ctx.create<hgraph::SqrtOp>(hNew);
    root = m.add(root, m.c(epsilon));
    Value step = m.div(m.mul(rate, reg), root);
    xs.push_back(m.sub(x, step));
    hs.push_back(hNew);
  }
  xs.append(hs.begin(), hs.end());
  return xs;
}

Results importMomentum(NodeContext &ctx) {
  FailureOr<int64_t> n = checkInputs(ctx, 3);
  if (failed(n))
    return failure();
  for (StringRef name : {"alpha", "beta", "mode", "norm_coefficient"})
    if (!ctx.attr(name))
      return ctx.error() << "attribute '" << name << "' is required";
  std::string mode = ctx.stringAttr("mode", "standard");
  if (mode != "standard" && mode != "nesterov")
    return ctx.error() << "mode must be \"standard\" or \"nesterov\", got \""
                       << mode << "\"";
  Math m{ctx};
  Value r = scalarOf(ctx, ctx.inputs[0]);
  Value t = scalarOf(ctx, ctx.inputs[1]);
  double alpha = ctx.floatAttr("alpha", 0.0f), beta = ctx.floatAttr("beta", 0.0f);
  double norm = ctx.floatAttr("norm_coefficient", 0.0f);
  Value betaAdjusted = m.ifStarted(t, m.c(beta), m.c(1.0));
  SmallVector<Value> xs, vs;
  for (int64_t i = 0; i < *n; ++i) {
    Value x = ctx.inputs[2 + i], g = ctx.inputs[2 + *n + i],
          v = ctx.inputs[2 + 2 * *n + i];
    Value reg = m.add(m.mul(m.c(norm), x), g);
    Value kept = m.mul(m.c(alpha), v);
    Value vNew = m.add(kept, m.mul(betaAdjusted, reg));
    Value step = mode == "standard"
                     ? vNew
                     : m.add(reg, m.mul(m.c(alpha), vNew));
    xs.push_back(m.sub(x, m.mul(r, step)));
    vs.push_back(vNew);
  }
  xs.append(vs.begin(), vs.end());
  return xs;
}

Results importAdam(NodeContext &ctx) {
  FailureOr<int64_t> n = checkInputs(ctx, 4);
  if (failed(n))
    return failure();
  Math m{ctx};
  Value r = scalarOf(ctx, ctx.inputs[0]);
  Value tInt = scalarOf(ctx, ctx.inputs[1]);
  Value t = castTo(ctx, tInt, ctx.builder.getF32Type());
  double alpha = ctx.floatAttr("alpha", 0.9f), beta = ctx.floatAttr("beta", 0.999f);
  double epsilon = ctx.floatAttr("epsilon", 1e-6f);
  double norm = ctx.floatAttr("norm_coefficient", 0.0f);
  double post = ctx.floatAttr("norm_coefficient_post", 0.0f);
  auto power = [&](double base) -> Value {
    return ctx.create<hgraph::PowOp>(RankedTensorType::get({}, ctx.builder.getF32Type()),
                                     m.c(base), t);
  };
  // R * sqrt(1 - beta^T) / (1 - alpha^T) once T > 0, R before.
  Value betaT = power(beta);
  Value alphaT = power(alpha);
  Value numerator = m.mul(r, ctx.create<hgraph::SqrtOp>(m.sub(m.c(1.0), betaT)));
  Value corrected = m.div(numerator, m.sub(m.c(1.0), alphaT));
  Value rate = m.ifStarted(tInt, corrected, r);
  SmallVector<Value> xs, vs, hs;
  for (int64_t i = 0; i < *n; ++i) {
    Value x = ctx.inputs[2 + i], g = ctx.inputs[2 + *n + i],
          v = ctx.inputs[2 + 2 * *n + i], h = ctx.inputs[2 + 3 * *n + i];
    Value reg = m.add(m.mul(m.c(norm), x), g);
    Value vKept = m.mul(m.c(alpha), v);
    Value vNew = m.add(vKept, m.mul(m.c(1.0 - alpha), reg));
    Value hKept = m.mul(m.c(beta), h);
    Value square = m.mul(reg, reg);
    Value hNew = m.add(hKept, m.mul(m.c(1.0 - beta), square));
    Value root = ctx.create<hgraph::SqrtOp>(hNew);
    root = m.add(root, m.c(epsilon));
    Value xNew = m.sub(x, m.mul(rate, m.div(vNew, root)));
    xs.push_back(m.mul(m.c(1.0 - post), xNew));
    vs.push_back(vNew);
    hs.push_back(hNew);
  }
  xs.append(vs.begin(), vs.end());
  xs.append(hs.begin(), hs.end());
  return xs;
}

} // namespace

ImportRule hetc::frontend::lookupTrainingRule(StringRef opType) {
  static const llvm::StringMap<ImportRule> rules = {
      {"Adagrad", importAdagrad},
      {"Momentum", importMomentum},
      {"Adam", importAdam},
  };
  auto it = rules.find(opType);
  return it == rules.end() ? nullptr : it->second;
}
