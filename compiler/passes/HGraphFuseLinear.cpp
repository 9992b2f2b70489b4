//===- HGraphFuseLinear.cpp - Fuse matmul + bias + activation ---------===//

#include "compiler/passes/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hetc {
#define GEN_PASS_DEF_HGRAPHFUSELINEAR
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

namespace {

/// True if `bias` broadcasts along the rows of a [.., N] result: its shape
/// is [N] or [1, .., 1, N].
bool isRowBias(Value bias, int64_t n) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(bias.getType()).getShape();
  if (shape.empty() || shape.back() != n)
    return false;
  return llvm::all_of(shape.drop_back(), [](int64_t d) { return d == 1; });
}

/// The only user of `v`, if it has exactly one.
Operation *singleUser(Value v) {
  return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
}

struct FuseLinear : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    if (lhsType.getRank() < 2 || rhsType.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "needs [.., M, K] x [K, N]");
    int64_t n = rhsType.getDimSize(1);

    // Walk the single-use chain matmul -> add(bias) -> activation; the fused
    // op is located at all the ONNX nodes it replaces.
    SmallVector<Location> locs{op.getLoc()};
    Value tail = op.getResult();
    Value bias;
    Operation *user = singleUser(tail);
    if (auto add = dyn_cast_if_present<AddOp>(user)) {
      Value other = add.getLhs() == tail ? add.getRhs() : add.getLhs();
      if (add.getType() == op.getType() && isRowBias(other, n)) {
        bias = other;
        tail = add.getResult();
        locs.push_back(add.getLoc());
        user = singleUser(tail);
      }
    }
    Activation activation = Activation::none;
    if (isa_and_present<ReluOp>(user))
      activation = Activation::relu;
    else if (isa_and_present<SigmoidOp>(user))
      activation = Activation::sigmoid;
    else if (isa_and_present<TanhOp>(user))
      activation = Activation::tanh;
    if (activation != Activation::none) {
      tail = user->getResult(0);
      locs.push_back(user->getLoc());
    }

    // The fused op goes where the chain ends: its bias may be computed
    // after the matmul, and everything it reads comes before the end.
    rewriter.setInsertionPoint(tail.getDefiningOp());
    // A batched left operand is flattened to rows and reshaped back.
    Location loc = rewriter.getFusedLoc(locs);
    Value input = op.getLhs();
    int64_t rows = lhsType.getNumElements() / lhsType.getShape().back();
    Type elementType = lhsType.getElementType();
    if (lhsType.getRank() > 2)
      input = ReshapeOp::create(
          rewriter, loc,
          RankedTensorType::get({rows, lhsType.getShape().back()}, elementType),
          input);
    if (bias && cast<RankedTensorType>(bias.getType()).getRank() > 1)
      bias = ReshapeOp::create(rewriter, loc,
                               RankedTensorType::get({n}, elementType), bias);
    // A computed weight that is a transpose is read untransposed: the
    // planes install its rows as weight columns. A constant one is left to
    // be folded (and perhaps narrowed) as it is.
    Value weight = op.getRhs();
    bool transposed = false;
    if (auto transpose = weight.getDefiningOp<TransposeOp>())
      if (transpose.getPerm() == ArrayRef<int64_t>{1, 0} &&
          isa<FloatType>(elementType) &&
          getElementTypeOrSelf(transpose.getType()) == elementType &&
          !matchPattern(transpose.getInput(), m_Constant())) {
        weight = transpose.getInput();
        transposed = true;
      }
    Value result = LinearOp::create(
        rewriter, loc, RankedTensorType::get({rows, n}, elementType), input,
        weight, bias, /*scale=*/Value(),
        ActivationAttr::get(rewriter.getContext(), activation),
        transposed ? rewriter.getUnitAttr() : UnitAttr());
    if (result.getType() != tail.getType())
      result = ReshapeOp::create(rewriter, loc, tail.getType(), result);
    rewriter.replaceAllUsesWith(tail, result);
    return success();
  }
};

struct HGraphFuseLinearPass
    : hetc::impl::HGraphFuseLinearBase<HGraphFuseLinearPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseLinear>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
