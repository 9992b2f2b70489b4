//===- OnnxStatefulConvRule.cpp - CausalConvWithState as a convolution -===//
//
// CausalConvWithState (opset 27) is a causal depthwise 1-D convolution
// that carries its last k - 1 input positions from call to call (Mamba's
// and Gated DeltaNet's decode): the past state (zeros when absent) is put
// before the input along the length, convolved with one k-tap filter per
// channel and no padding, optionally followed by SiLU, and the last k - 1
// positions of the padded input are the present state. As ONNX's own
// function body: Concat, Conv (group = channels), Sigmoid and Mul, Slice.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

Results importCausalConvWithState(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 2, 4)))
    return failure();
  Value x = ctx.inputs[0], w = ctx.inputs[1];
  Value bias = ctx.input(2), past = ctx.input(3);
  RankedTensorType xType = tensorType(x), wType = tensorType(w);
  Type element = xType.getElementType();
  if (!isa<FloatType>(element))
    return ctx.error() << "is defined on float tensors, not " << xType;
  if (xType.getRank() != 3 || wType.getRank() != 3)
    return ctx.error() << "input must be (batch, channels, length) and "
                          "weight (channels, 1, k), got "
                       << xType << " and " << wType;
  int64_t batch = xType.getDimSize(0), channels = xType.getDimSize(1),
          length = xType.getDimSize(2), k = wType.getDimSize(2);
  if (wType.getDimSize(0) != channels || wType.getDimSize(1) != 1 || k < 1 ||
      wType.getElementType() != element)
    return ctx.error() << "weight must be (channels, 1, k) of the input's "
                          "type with k >= 1: input "
                       << xType << ", weight " << wType;
  if (bias && tensorType(bias) != RankedTensorType::get({channels}, element))
    return ctx.error() << "bias must be (" << channels << ") of " << element
                       << ", got " << tensorType(bias);
  auto stateType = RankedTensorType::get({batch, channels, k - 1}, element);
  if (past && tensorType(past) != stateType)
    return ctx.error() << "past_state must be " << stateType << ", got "
                       << tensorType(past);
  std::string activation = ctx.stringAttr("activation", "none");
  if (activation != "none" && activation != "silu" && activation != "swish")
    return ctx.error() << "activation '" << activation
                       << "' is not one of 'none', 'silu' and 'swish'";

  OpBuilder &b = ctx.builder;
  if (!past)
    past = hgraph::ConstantOp::create(
        b, ctx.loc, DenseElementsAttr::get(stateType, b.getZeroAttr(element)));
  auto paddedType =
      RankedTensorType::get({batch, channels, length + k - 1}, element);
  Value padded =
      k > 1 ? ctx.create<hgraph::ConcatOp>(paddedType, ValueRange{past, x},
                                           b.getI64IntegerAttr(2))
            : x;
  Value y = ctx.create<hgraph::ConvOp>(
      xType, padded, w, bias, b.getDenseI64ArrayAttr({1}),
      b.getDenseI64ArrayAttr({0, 0}), b.getDenseI64ArrayAttr({1}),
      b.getI64IntegerAttr(channels));
  if (activation != "none") {
    // SiLU in fp32, the result rounded once to the input's type.
    Type f32 = b.getF32Type();
    Value wide = castTo(ctx, y, f32);
    Value silu = ctx.create<hgraph::MulOp>(wide.getType(), wide,
                                           ctx.create<hgraph::SigmoidOp>(wide));
    y = castTo(ctx, silu, element);
  }
  Value present = ctx.create<hgraph::SliceOp>(
      stateType, padded, b.getDenseI64ArrayAttr({0, 0, length}),
      b.getDenseI64ArrayAttr({1, 1, 1}));
  return SmallVector<Value>{y, present};
}

} // namespace

void hetc::frontend::addStatefulConvRule(llvm::StringMap<ImportRule> &rules) {
  rules["CausalConvWithState"] = importCausalConvWithState;
}
