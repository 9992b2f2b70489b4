//===- HGraphNarrowWeights.cpp - Matrix-unit weights in f16 or bf16 ---===//

#include "compiler/passes/Passes.h"

#include "llvm/ADT/APFloat.h"

namespace hetc {
#define GEN_PASS_DEF_HGRAPHNARROWWEIGHTS
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

struct HGraphNarrowWeightsPass
    : hetc::impl::HGraphNarrowWeightsBase<HGraphNarrowWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    Type narrow = type == "f16"    ? Type(Float16Type::get(context))
                  : type == "bf16" ? Type(BFloat16Type::get(context))
                                   : Type();
    if (!narrow) {
      getOperation().emitError("hetc-hgraph-narrow-weights: type '")
          << type << "' is not f16 or bf16";
      return signalPassFailure();
    }
    // A weight shared by several layers is rounded once.
    DenseMap<Value, Value> narrowed;
    WalkResult result = getOperation().walk([&](hgraph::LinearOp op) {
      FailureOr<Value> weight = narrowWeight(op, narrow, narrowed);
      if (failed(weight))
        return WalkResult::interrupt();
      if (!*weight)
        return WalkResult::advance();
      OpBuilder builder(op);
      auto inputType = cast<RankedTensorType>(op.getInput().getType());
      Value input = hgraph::CastOp::create(
          builder, op.getLoc(), inputType.clone(narrow), op.getInput(),
          /*no_saturate=*/false, /*round_mode=*/StringAttr());
      op.getInputMutable().assign(input);
      op.getWeightMutable().assign(*weight);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // The f32 originals no layer reads any more would still take SRAM.
    for (auto [original, rounded] : narrowed)
      if (original.use_empty())
        original.getDefiningOp()->erase();
  }

  /// `op`'s weight rounded to `narrow`: null when it is not an f32
  /// constant (or its input is not f32), failure when a value overflows.
  FailureOr<Value> narrowWeight(hgraph::LinearOp op, Type narrow,
                                DenseMap<Value, Value> &narrowed) {
    Value weight = op.getWeight();
    auto constant = weight.getDefiningOp<hgraph::ConstantOp>();
    auto dense = constant ? dyn_cast<DenseElementsAttr>(constant.getValue())
                          : DenseElementsAttr();
    if (!dense || !dense.getElementType().isF32() ||
        !cast<ShapedType>(op.getInput().getType()).getElementType().isF32())
      return Value();
    if (Value done = narrowed.lookup(weight))
      return done;
    const llvm::fltSemantics &semantics =
        cast<FloatType>(narrow).getFloatSemantics();
    bool overflow = false;
    DenseElementsAttr values =
        dense.mapValues(narrow, [&](const APFloat &value) {
          APFloat rounded = value;
          bool inexact;
          rounded.convert(semantics, APFloat::rmNearestTiesToEven, &inexact);
          overflow |= rounded.isInfinity() && !value.isInfinity();
          return rounded.bitcastToAPInt();
        });
    if (overflow)
      return op.emitError("a weight of this layer is beyond the range of ")
             << narrow << "; compile it at --precision fp32";
    OpBuilder builder(constant);
    Value result =
        hgraph::ConstantOp::create(builder, constant.getLoc(), values);
    narrowed[weight] = result;
    return result;
  }
};

} // namespace
