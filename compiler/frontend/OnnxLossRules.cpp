//===- OnnxLossRules.cpp - Import rules of the loss operators ---------===//
//
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, expressed in
// hgraph ops as ONNX's own function bodies express them: the class of each
// sample is picked with gather_elements (the targets are run-time values;
// hetc-hgraph-decompose turns such gathers into one-hot selections), the
// class weights with gather, and the reductions follow `reduction`.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

/// A reduction of every axis of `v` to a scalar.
Value reduceAll(NodeContext &ctx, hgraph::ReduceKind kind, Value v) {
  RankedTensorType type = tensorType(v);
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return ctx.create<hgraph::ReduceOp>(
      RankedTensorType::get({}, type.getElementType()),
      hgraph::ReduceKindAttr::get(ctx.builder.getContext(), kind), v,
      ctx.builder.getDenseI64ArrayAttr(axes), ctx.builder.getBoolAttr(false));
}

/// The loss of log-probabilities `input` [N, C, d...] for the classes
/// `target` [N, d...]: -input[n, target[n, d], d] * weight[target[n, d]],
/// zero where target is ignore_index, then reduced by `reduction`.
FailureOr<Value> nllLoss(NodeContext &ctx, Value input, Value target,
                         Value weight) {
  RankedTensorType inType = tensorType(input), tType = tensorType(target);
  Type element = inType.getElementType();
  if (!isa<FloatType>(element))
    return ctx.error() << "the scores must be floats, got " << inType;
  if (!isa<IntegerType>(tType.getElementType()) ||
      tType.getElementType().isInteger(1))
    return ctx.error() << "the target must be integers, got " << tType;
  int64_t rank = inType.getRank();
  SmallVector<int64_t> expected(inType.getShape());
  if (rank < 2)
    return ctx.error() << "the scores must have rank 2 or more, got " << inType;
  expected.erase(expected.begin() + 1);
  if (tType.getShape() != ArrayRef<int64_t>(expected))
    return ctx.error() << "the target " << tType
                       << " must have the scores' shape without the class "
                          "dimension";
  int64_t classes = inType.getDimSize(1);
  if (weight && tensorType(weight).getShape() != ArrayRef<int64_t>{classes})
    return ctx.error() << "the weights " << tensorType(weight)
                       << " must have one value per class (" << classes << ")";
  std::string reduction = ctx.stringAttr("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return ctx.error() << "reduction must be \"none\", \"sum\" or \"mean\", "
                          "got \""
                       << reduction << "\"";

  auto sampleType = RankedTensorType::get(tType.getShape(), element);
  auto boolType =
      RankedTensorType::get(tType.getShape(), ctx.builder.getI1Type());
  // Ignored samples pick class 0 and get weight 0.
  Value ignored;
  Value safeTarget = target;
  if (const onnx::AttributeProto *ignore = ctx.attr("ignore_index")) {
    Value index = scalarConstant(ctx, tType.getElementType(), ignore->i());
    ignored = ctx.create<hgraph::EqualOp>(boolType, target, index);
    safeTarget = ctx.create<hgraph::WhereOp>(
        tType, ignored, scalarConstant(ctx, tType.getElementType(), 0),
        target);
  }
  SmallVector<int64_t> withClass(tType.getShape());
  withClass.insert(withClass.begin() + 1, 1);
  Value picked = ctx.create<hgraph::GatherElementsOp>(
      RankedTensorType::get(withClass, element), input,
      ctx.create<hgraph::ReshapeOp>(
          RankedTensorType::get(withClass, tType.getElementType()),
          safeTarget),
      ctx.builder.getI64IntegerAttr(1));
  Value loss = ctx.create<hgraph::NegOp>(
      ctx.create<hgraph::ReshapeOp>(sampleType, picked));
  Value sampleWeight;
  if (weight)
    sampleWeight = ctx.create<hgraph::GatherOp>(
        sampleType, weight, safeTarget, ctx.builder.getI64IntegerAttr(0));
  if (ignored) {
    Value zero = scalarConstant(ctx, element, 0);
    Value one = sampleWeight ? sampleWeight : scalarConstant(ctx, element, 1);
    sampleWeight =
        ctx.create<hgraph::WhereOp>(sampleType, ignored, zero, one);
  }
  if (sampleWeight)
    loss = ctx.create<hgraph::MulOp>(sampleType, loss, sampleWeight);
  if (reduction == "none")
    return loss;
  if (reduction == "sum")
    return reduceAll(ctx, hgraph::ReduceKind::sum, loss);
  if (!sampleWeight)
    return reduceAll(ctx, hgraph::ReduceKind::mean, loss);
  Value total = reduceAll(ctx, hgraph::ReduceKind::sum, loss);
  Value totalWeight = reduceAll(ctx, hgraph::ReduceKind::sum, sampleWeight);
  return ctx.create<hgraph::DivOp>(RankedTensorType::get({}, element), total,
                                   totalWeight);
}

Results importNllLoss(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 3)))
    return failure();
  FailureOr<Value> loss =
      nllLoss(ctx, ctx.inputs[0], ctx.inputs[1], ctx.input(2));
  if (failed(loss))
    return failure();
  return SmallVector<Value>{*loss};
}

/// SoftmaxCrossEntropyLoss: log_prob = LogSoftmax(scores, axis 1), then
/// the NLL loss of log_prob; the second output is log_prob.
Results importSoftmaxCrossEntropyLoss(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 3)))
    return failure();
  Value scores = ctx.inputs[0];
  if (tensorType(scores).getRank() < 2)
    return ctx.error() << "the scores must have rank 2 or more, got "
                       << tensorType(scores);
  Value logProb =
      ctx.create<hgraph::LogSoftmaxOp>(scores, ctx.builder.getI64IntegerAttr(1));
  FailureOr<Value> loss = nllLoss(ctx, logProb, ctx.inputs[1], ctx.input(2));
  if (failed(loss))
    return failure();
  return SmallVector<Value>{*loss, logProb};
}

} // namespace

void hetc::frontend::addLossRules(llvm::StringMap<ImportRule> &rules) {
  rules.insert({
      {"NegativeLogLikelihoodLoss", importNllLoss},
      {"SoftmaxCrossEntropyLoss", importSoftmaxCrossEntropyLoss},
  });
}
