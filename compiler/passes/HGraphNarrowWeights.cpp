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
    // A weight shared by several layers is narrowed once.
    DenseMap<Value, Replacement> done;
    WalkResult result = getOperation().walk([&](hgraph::LinearOp op) {
      // A layer that scales its sums already keeps its weight as it is, and
      // a transposed weight (N x K, computed) is the input's type.
      if (op.getScale() || op.getTransposed())
        return WalkResult::advance();
      DenseElementsAttr dense = constantWeight(op);
      if (!dense)
        return WalkResult::advance();
      auto it = done.find(op.getWeight());
      if (it == done.end()) {
        FailureOr<Replacement> replacement =
            int8 ? quantizeWeight(op, dense) : narrowWeight(op, dense, narrow);
        if (failed(replacement))
          return WalkResult::interrupt();
        it = done.try_emplace(op.getWeight(), *replacement).first;
      }
      OpBuilder builder(op);
      auto inputType = cast<RankedTensorType>(op.getInput().getType());
      Value input = hgraph::CastOp::create(
          builder, op.getLoc(), inputType.clone(narrow), op.getInput(),
          /*no_saturate=*/false, /*round_mode=*/StringAttr());
      op.getInputMutable().assign(input);
      op.getWeightMutable().assign(it->second.weight);
      if (it->second.scale)
        op.getScaleMutable().assign(it->second.scale);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // Convolutions whose weights the matrix unit multiplies take them in
    // f16 or bf16 (f16 at i8: their weight rows stream through the planes
    // rather than install, and the chip converts only installed rows);
    // depthwise ones run on the vector unit and stay f32.
    Type convType = int8 ? Type(Float16Type::get(context)) : narrow;
    DenseMap<Value, Value> convDone;
    result = getOperation().walk([&](hgraph::ConvOp op) {
      auto inputType = cast<RankedTensorType>(op.getInput().getType());
      auto weight = op.getWeight().getDefiningOp<hgraph::ConstantOp>();
      auto dense = weight ? dyn_cast<DenseElementsAttr>(weight.getValue())
                          : DenseElementsAttr();
      if (!dense || !dense.getElementType().isF32() ||
          !inputType.getElementType().isF32() ||
          !op.getType().getElementType().isF32() ||
          (inputType.getRank() >= 2 &&
           op.getGroup() == inputType.getDimSize(1) &&
           dense.getType().getDimSize(0) == int64_t(op.getGroup())))
        return WalkResult::advance();
      Value &narrowed = convDone[op.getWeight()];
      if (!narrowed) {
        FailureOr<Replacement> replacement =
            narrowWeight(op, weight, dense, convType);
        if (failed(replacement))
          return WalkResult::interrupt();
        narrowed = replacement->weight;
      }
      OpBuilder builder(op);
      Value input = hgraph::CastOp::create(
          builder, op.getLoc(), inputType.clone(convType), op.getInput(),
          /*no_saturate=*/false, /*round_mode=*/StringAttr());
      op.getInputMutable().assign(input);
      op.getWeightMutable().assign(narrowed);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // The f32 originals no layer reads any more would still take SRAM.
    for (auto &[original, replacement] : done)
      if (original.use_empty())
        original.getDefiningOp()->erase();
    for (auto &[original, replacement] : convDone)
      if (original.use_empty())
        original.getDefiningOp()->erase();
  }

  /// What layers read instead of an f32 weight: the narrowed weight, and
  /// for int8 its column scales (null otherwise).
  struct Replacement {
    Value weight, scale;
  };

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

  /// `op`'s constant weight `dense` as int8 with per-column scales;
  /// failure when it is not finite or beyond f16.
  FailureOr<Replacement> quantizeWeight(hgraph::LinearOp op,
                                        DenseElementsAttr dense) {
    Value weight = op.getWeight();
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
    return Replacement{qValue, sValue};
  }

  /// `op`'s constant weight `dense` rounded to `narrow`; failure when a
  /// value overflows.
  FailureOr<Replacement> narrowWeight(hgraph::LinearOp op,
                                      DenseElementsAttr dense, Type narrow) {
    return narrowWeight(op, op.getWeight().getDefiningOp<hgraph::ConstantOp>(),
                        dense, narrow);
  }
  /// `constant`, the weight `dense` of `op`, rounded to `narrow`; failure,
  /// reported at `op`, when a value overflows.
  FailureOr<Replacement> narrowWeight(Operation *op,
                                      hgraph::ConstantOp constant,
                                      DenseElementsAttr dense, Type narrow) {
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
      return op->emitError("a weight of this layer is beyond the range of ")
             << narrow << "; compile it at --precision fp32";
    OpBuilder builder(constant);
    return Replacement{
        hgraph::ConstantOp::create(builder, constant.getLoc(), values),
        Value()};
  }
};

} // namespace
