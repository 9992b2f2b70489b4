//===- ConvertHGraphToHTile.cpp - Bufferise hgraph into htile kernels -===//
//
// Each tensor value gets one SRAM buffer and each op the kernels writing
// it. The function's boundary is rewritten first (arguments become
// htile.input buffers); then a dialect conversion turns tensors into
// memrefs and rewrites every hgraph op with the patterns of its family
// (HGraphToHTile/*Patterns.cpp); the return becomes htile.output.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HGraphToHTile/Lowering.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"

namespace hetc {
#define GEN_PASS_DEF_CONVERTHGRAPHTOHTILE
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::tiling;

namespace {

/// Tensors become buffers of the same shape and element type.
class BufferTypeConverter : public TypeConverter {
public:
  BufferTypeConverter() {
    addConversion([](Type type) { return type; });
    addConversion([](RankedTensorType type) -> Type {
      return MemRefType::get(type.getShape(), type.getElementType());
    });
    auto cast = [](OpBuilder &builder, Type type, ValueRange inputs,
                   Location loc) -> Value {
      return UnrealizedConversionCastOp::create(builder, loc, type, inputs)
          .getResult(0);
    };
    addSourceMaterialization(cast);
    addTargetMaterialization(cast);
  }
};

/// The results become htile.output, named as the function's results are.
struct ReturnPattern final : OpConversionPattern<func::ReturnOp> {
  ReturnPattern(const TypeConverter &converter, MLIRContext *context,
                LoweringState &state, func::FuncOp func)
      : OpConversionPattern(converter, context), state(state), func(func) {}

  LogicalResult
  matchAndRewrite(func::ReturnOp ret, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    OpBuffers current;
    for (auto [original, buffer] :
         llvm::zip(ret.getOperands(), adaptor.getOperands()))
      current.operands.map(original, buffer);
    KernelBuilder kernels(rewriter, state, current);
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      auto name = func.getResultAttrOfType<StringAttr>(i, hgraph::kNameAttr);
      htile::OutputOp::create(
          rewriter, ret.getLoc(),
          name ? name : rewriter.getStringAttr("output" + std::to_string(i)),
          kernels.buffer(value));
    }
    rewriter.replaceOpWithNewOp<func::ReturnOp>(ret);
    return success();
  }

  LoweringState &state;
  mutable func::FuncOp func;
};

/// Any op without a pattern of its own: reported, and stood in for.
struct UnknownOpPattern final : ConversionPattern {
  UnknownOpPattern(const TypeConverter &converter, MLIRContext *context,
                   LoweringState &state)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/0,
                          context),
        state(state) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerWithChecks(
        op, operands, rewriter, state, [&](KernelBuilder &) -> LogicalResult {
          return op->emitError("'") << op->getName()
                                    << "' cannot be lowered to htile; run "
                                       "hetc-hgraph-pipeline first";
        });
  }

  LoweringState &state;
};

/// Constants are placed in SRAM when a kernel first reads them, so those
/// folded into others take no space; integer gather indices are read on
/// the host and never placed. Reports the constants the chip cannot hold.
LogicalResult checkConstants(func::FuncOp func) {
  auto onHost = [](OpOperand &use) {
    return isa<hgraph::GatherOp, hgraph::GatherElementsOp>(use.getOwner()) &&
           use.getOperandNumber() == 1;
  };
  bool ok = true;
  func.walk([&](hgraph::ConstantOp c) {
    if (hisa::laneTypeOf(c.getType().getElementType()) ||
        llvm::all_of(c->getUses(), onHost))
      return;
    c.emitError("constants of element type ")
        << c.getType().getElementType()
        << " are not supported on the chip yet; supported: "
        << hisa::heldTypeNames();
    ok = false;
  });
  return success(ok);
}

/// The arguments become htile.input buffers, each cast back to its tensor
/// type for the ops that read it until the conversion rewrites them.
LogicalResult lowerArguments(func::FuncOp func) {
  Block &entry = func.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  for (BlockArgument arg : func.getArguments()) {
    auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                  hgraph::kNameAttr);
    Type element = cast<ShapedType>(arg.getType()).getElementType();
    if (!hisa::laneTypeOf(element))
      return emitError(func.getLoc())
             << "model input '" << (name ? name.getValue() : "") << "' has "
             << "element type " << element << ", which the chip does not "
             << "hold yet; supported: " << hisa::heldTypeNames();
    Value input = htile::InputOp::create(
        builder, func.getLoc(), bufferType(arg),
        name ? name
             : builder.getStringAttr("input" +
                                     std::to_string(arg.getArgNumber())),
        IntegerAttr());
    arg.replaceAllUsesWith(UnrealizedConversionCastOp::create(
                               builder, func.getLoc(), arg.getType(), input)
                               .getResult(0));
  }
  return success();
}

LogicalResult lowerFunction(func::FuncOp func, const chip::ChipSpec &chip) {
  MLIRContext *context = func.getContext();
  if (failed(lowerArguments(func)))
    return failure();
  bool constantsOk = succeeded(checkConstants(func));

  BufferTypeConverter converter;
  LoweringState state(chip);
  func.walk([&](hgraph::ScatterRowsOp scatter) {
    if (writableInPlace(scatter.getTable()))
      state.inPlaceScatters.insert(scatter);
  });
  RewritePatternSet patterns(context);
  populateElementwisePatterns(patterns, converter, state);
  populateBitwisePatterns(patterns, converter, state);
  populateQuantizationPatterns(patterns, converter, state);
  populateReductionPatterns(patterns, converter, state);
  populateLinearAlgebraPatterns(patterns, converter, state);
  populateConvolutionPatterns(patterns, converter, state);
  populateDataMovementPatterns(patterns, converter, state);
  patterns.add<ReturnPattern>(converter, context, state, func);
  patterns.add<UnknownOpPattern>(converter, context, state);

  ConversionTarget target(*context);
  target.addLegalDialect<htile::HTileDialect>();
  target.addLegalOp<func::FuncOp, hgraph::ConstantOp,
                    UnrealizedConversionCastOp>();
  target.addDynamicallyLegalOp<func::ReturnOp>(
      [](func::ReturnOp ret) { return ret.getNumOperands() == 0; });
  // Every other op, of any dialect, must be rewritten (or is reported).
  target.markUnknownOpDynamicallyLegal([](Operation *) { return false; });
  // Folding is the hgraph pipeline's business: here every op is lowered
  // as it stands.
  ConversionConfig config;
  config.foldingMode = DialectConversionFoldingMode::Never;
  if (failed(
          applyPartialConversion(func, target, std::move(patterns), config)) ||
      state.failed || !constantsOk)
    return failure();

  // The casts between the buffers and their tensor types cancel out.
  SmallVector<UnrealizedConversionCastOp> casts;
  func.walk([&](UnrealizedConversionCastOp c) { casts.push_back(c); });
  SmallVector<UnrealizedConversionCastOp> left;
  reconcileUnrealizedCasts(casts, &left);
  for (UnrealizedConversionCastOp c : left)
    if (c->use_empty())
      c.erase();
  func.walk([](hgraph::ConstantOp c) {
    if (c->use_empty())
      c.erase();
  });
  // The function takes and returns nothing: its data are in SRAM.
  Block &entry = func.getBody().front();
  entry.eraseArguments(0, entry.getNumArguments());
  func.setFunctionType(FunctionType::get(context, {}, {}));
  func.removeArgAttrsAttr();
  func.removeResAttrsAttr();
  func->setDiscardableAttrs(ArrayRef<NamedAttribute>());
  return success();
}

struct ConvertHGraphToHTilePass
    : hetc::impl::ConvertHGraphToHTileBase<ConvertHGraphToHTilePass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(forEachFunctionOnChip(getOperation(), getArgument(),
                                     lowerFunction)))
      signalPassFailure();
  }
};

} // namespace
