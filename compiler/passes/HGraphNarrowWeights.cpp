//===- HGraphNarrowWeights.cpp - Matrix-unit weights in f16, bf16 or i8 ===//
//
// f16 and bf16 round each constant weight to the type. i8 stores it as
// int8 with one scale per output column (symmetric: the column's largest
// magnitude maps to 127) and rebuilds an f16 weight on the vector unit
// where a layer reads it: cast to f32, times the column's scale, rounded
// to f16. The matrix unit then multiplies f16 as with --precision fp16;
// the weight takes a quarter of its f32 bytes while it is not in use.
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
    WalkResult result = getOperation().walk([&](hgraph::LinearOp op) {
      FailureOr<Value> weight = int8 ? quantizeWeight(op, narrowed)
                                     : narrowWeight(op, narrow, narrowed);
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

  /// `op`'s weight as int8 with per-column scales, rebuilt in f16 before
  /// `op` (before the first layer that reads it, when layers share it):
  /// null when it is not an f32 constant, failure when it is not finite.
  FailureOr<Value> quantizeWeight(hgraph::LinearOp op,
                                  DenseMap<Value, Value> &narrowed) {
    Value weight = op.getWeight();
    DenseElementsAttr dense = constantWeight(op);
    if (!dense)
      return Value();
    if (Value done = narrowed.lookup(weight))
      return done;
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
    // The rebuilt weight is f16; a column whose largest magnitude rounds
    // past f16's range would hold infinities there.
    Type half = Float16Type::get(op.getContext());
    for (float largest : scales) {
      APFloat rounded(largest);
      bool inexact;
      rounded.convert(cast<FloatType>(half).getFloatSemantics(),
                      APFloat::rmNearestTiesToEven, &inexact);
      if (rounded.isInfinity())
        return op.emitError("a weight of this layer is beyond the range of ")
               << half
               << ", in which the matrix unit multiplies int8 weights; "
                  "compile it at --precision fp32";
    }
    for (float &scale : scales)
      scale = scale == 0.0f ? 1.0f : scale / 127.0f;
    SmallVector<int8_t> quantized(values.size());
    for (int64_t k = 0; k < rows; ++k)
      for (int64_t n = 0; n < cols; ++n) {
        float q = std::nearbyint(values[k * cols + n] / scales[n]);
        quantized[k * cols + n] = int8_t(std::clamp(q, -127.0f, 127.0f));
      }
    MLIRContext *context = op.getContext();
    OpBuilder builder(op);
    Location loc = weight.getLoc();
    auto i8Type = type.clone(IntegerType::get(context, 8));
    Value q = hgraph::ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(i8Type, ArrayRef<int8_t>(quantized)));
    Value s = hgraph::ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(
            RankedTensorType::get({cols}, builder.getF32Type()),
            ArrayRef<float>(scales)));
    Value wide = hgraph::CastOp::create(builder, loc, type, q,
                                        /*no_saturate=*/false,
                                        /*round_mode=*/StringAttr());
    Value scaled = hgraph::MulOp::create(builder, loc, type, wide, s);
    Value result = hgraph::CastOp::create(
        builder, loc, type.clone(Float16Type::get(context)), scaled,
        /*no_saturate=*/false, /*round_mode=*/StringAttr());
    narrowed[weight] = result;
    return result;
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
