//===- HGraphNarrowWeights.cpp - Matrix-unit weights in f16, bf16 or i8 ===//
//
// f16 and bf16 round each constant weight to the type. i8 stores it as
// int8 with one f32 scale per output column (symmetric: the column's
// largest magnitude maps to 127); the layer takes the int8 weight and the
// scales (hgraph.linear's `scale`), converts each weight row to f16 on its
// way to the matrix unit and scales the sums. SRAM holds a quarter of the
// f32 bytes, and nothing else.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/Passes.h"

#include "llvm/ADT/APFloat.h"

#include <algorithm>
#include <cmath>

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
    bool int8 = type == "i8";
    Type narrow = type == "f16" || int8 ? Type(Float16Type::get(context))
                  : type == "bf16"      ? Type(BFloat16Type::get(context))
                                        : Type();
    if (!narrow) {
      getOperation().emitError("hetc-hgraph-narrow-weights: type '")
          << type << "' is not f16, bf16 or i8";
      return signalPassFailure();
    }
    // A weight shared by several layers is rounded once.
    DenseMap<Value, Value> narrowed;
    DenseMap<Value, std::pair<Value, Value>> quantized;
    WalkResult result = getOperation().walk([&](hgraph::LinearOp op) {
      // A layer that scales its sums already keeps its weight as it is.
      if (op.getScale())
        return WalkResult::advance();
      Value scale;
      FailureOr<Value> weight = Value();
      if (int8) {
        FailureOr<std::pair<Value, Value>> q = quantizeWeight(op, quantized);
        if (failed(q))
          return WalkResult::interrupt();
        std::tie(weight, scale) = *q;
      } else {
        weight = narrowWeight(op, narrow, narrowed);
      }
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
      if (scale)
        op.getScaleMutable().assign(scale);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // The f32 originals no layer reads any more would still take SRAM.
    SmallVector<Value> originals;
    for (auto &entry : narrowed)
      originals.push_back(entry.first);
    for (auto &entry : quantized)
      originals.push_back(entry.first);
    for (Value original : originals)
      if (original.use_empty())
        original.getDefiningOp()->erase();
  }

  /// The f32 constant weight of `op`, or null when it has none (or its
  /// input is not f32).
  static DenseElementsAttr constantWeight(hgraph::LinearOp op) {
    auto constant = op.getWeight().getDefiningOp<hgraph::ConstantOp>();
    auto dense = constant ? dyn_cast<DenseElementsAttr>(constant.getValue())
                          : DenseElementsAttr();
    if (!dense || !dense.getElementType().isF32() ||
        !cast<ShapedType>(op.getInput().getType()).getElementType().isF32())
      return {};
    return dense;
  }

  /// `op`'s weight as int8 with per-column scales: null values when it is
  /// not an f32 constant, failure when it is not finite or beyond f16.
  FailureOr<std::pair<Value, Value>>
  quantizeWeight(hgraph::LinearOp op,
                 DenseMap<Value, std::pair<Value, Value>> &quantized) {
    Value weight = op.getWeight();
    DenseElementsAttr dense = constantWeight(op);
    if (!dense)
      return std::pair<Value, Value>();
    if (auto it = quantized.find(weight); it != quantized.end())
      return it->second;
    auto type = cast<RankedTensorType>(dense.getType());
    int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    SmallVector<float> values(dense.getValues<float>());
    // Each column's scale: its largest magnitude over 127 (1 for a column
    // of zeros, which any scale keeps exact).
    SmallVector<float> scales(cols, 0.0f);
    for (int64_t k = 0; k < rows; ++k)
      for (int64_t n = 0; n < cols; ++n) {
        float v = values[k * cols + n];
        if (!std::isfinite(v))
          return op.emitError("a weight of this layer is not finite; int8 "
                              "holds finite values only, compile it at "
                              "--precision fp32");
        scales[n] = std::max(scales[n], std::fabs(v));
      }
    // The scaled sums are f32, but a weight beyond f16's range marks a
    // layer whose f16 input would overflow as well; refuse it as fp16 does.
    Type half = Float16Type::get(op.getContext());
    for (float largest : scales) {
      APFloat rounded(largest);
      bool inexact;
      rounded.convert(cast<FloatType>(half).getFloatSemantics(),
                      APFloat::rmNearestTiesToEven, &inexact);
      if (rounded.isInfinity())
        return op.emitError("a weight of this layer is beyond the range of ")
               << half
               << ", in which the matrix unit multiplies; compile it "
                  "at --precision fp32";
    }
    for (float &scale : scales)
      scale = scale == 0.0f ? 1.0f : scale / 127.0f;
    SmallVector<int8_t> q(values.size());
    for (int64_t k = 0; k < rows; ++k)
      for (int64_t n = 0; n < cols; ++n) {
        float v = std::nearbyint(values[k * cols + n] / scales[n]);
        q[k * cols + n] = int8_t(std::clamp(v, -127.0f, 127.0f));
      }
    OpBuilder builder(weight.getDefiningOp());
    Location loc = weight.getLoc();
    Value qValue = hgraph::ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(type.clone(builder.getI8Type()),
                               ArrayRef<int8_t>(q)));
    Value sValue = hgraph::ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(
            RankedTensorType::get({cols}, builder.getF32Type()),
            ArrayRef<float>(scales)));
    return quantized[weight] = {qValue, sValue};
  }

  /// `op`'s weight rounded to `narrow`: null when it is not an f32
  /// constant (or its input is not f32), failure when a value overflows.
  FailureOr<Value> narrowWeight(hgraph::LinearOp op, Type narrow,
                                DenseMap<Value, Value> &narrowed) {
    Value weight = op.getWeight();
    DenseElementsAttr dense = constantWeight(op);
    if (!dense)
      return Value();
    auto constant = weight.getDefiningOp<hgraph::ConstantOp>();
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
