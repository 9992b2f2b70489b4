//===- HGraphDecompose.cpp - Rewrite composite hgraph ops -------------===//

#include "compiler/passes/Passes.h"

#include "compiler/passes/DecomposePatterns.h"
#include "compiler/passes/RewriteHelpers.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hetc {
#define GEN_PASS_DEF_HGRAPHDECOMPOSE
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

namespace {

/// Gemm -> [transpose] matmul [mul alpha] [add (beta * C)].
struct DecomposeGemm : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto transpose = [&](Value v) -> Value {
      auto type = cast<RankedTensorType>(v.getType());
      auto transposed = RankedTensorType::get(
          {type.getDimSize(1), type.getDimSize(0)}, type.getElementType());
      return TransposeOp::create(rewriter, loc, transposed, v,
                                 rewriter.getDenseI64ArrayAttr({1, 0}));
    };
    auto scale = [&](Value v, float factor) -> Value {
      if (factor == 1.0f)
        return v;
      auto type = cast<RankedTensorType>(v.getType());
      auto scalar = RankedTensorType::get({}, type.getElementType());
      Value k = ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(scalar, factor));
      return MulOp::create(rewriter, loc, type, v, k);
    };

    Value a = op.getTransA() ? transpose(op.getA()) : op.getA();
    Value b = op.getTransB() ? transpose(op.getB()) : op.getB();
    Value result = MatMulOp::create(rewriter, loc, op.getType(), a, b);
    result = scale(result, op.getAlpha().convertToFloat());
    if (Value c = op.getC()) {
      if (op.getBeta().convertToFloat() != 0.0f)
        result = AddOp::create(rewriter, loc, op.getType(), result,
                               scale(c, op.getBeta().convertToFloat()));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A scalar f32 constant.
Value scalar(PatternRewriter &rewriter, Location loc, float value) {
  auto type = RankedTensorType::get({}, rewriter.getF32Type());
  return ConstantOp::create(rewriter, loc, DenseElementsAttr::get(type, value));
}

/// LeakyRelu(x) = x for x >= 0, alpha * x otherwise: max(x, alpha * x) for
/// alpha <= 1 and min(x, alpha * x) for alpha > 1, which is exact since
/// the selected product is the one ONNX computes.
struct DecomposeLeakyRelu : OpRewritePattern<LeakyReluOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LeakyReluOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "only f32");
    Location loc = op.getLoc();
    float alpha = op.getAlpha().convertToFloat();
    Value scaled = MulOp::create(rewriter, loc, op.getType(), op.getInput(),
                                 scalar(rewriter, loc, alpha));
    if (alpha <= 1.0f)
      rewriter.replaceOpWithNewOp<MaxOp>(op, op.getType(), op.getInput(),
                                         scaled);
    else
      rewriter.replaceOpWithNewOp<MinOp>(op, op.getType(), op.getInput(),
                                         scaled);
    return success();
  }
};

/// Clip(x, lo, hi) = min(max(x, lo), hi), the order ONNX defines.
struct DecomposeClip : OpRewritePattern<ClipOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ClipOp op,
                                PatternRewriter &rewriter) const override {
    Value result = op.getInput();
    if (Value lo = op.getMin())
      result = MaxOp::create(rewriter, op.getLoc(), op.getType(), result, lo);
    if (Value hi = op.getMax())
      result = MinOp::create(rewriter, op.getLoc(), op.getType(), result, hi);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Gelu: 0.5 * x * (1 + erf(x / sqrt(2))), or with approximate = "tanh"
/// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
struct DecomposeGelu : OpRewritePattern<GeluOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GeluOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "only f32");
    Location loc = op.getLoc();
    Type type = op.getType();
    Value x = op.getInput();
    auto mul = [&](Value a, Value b) {
      return MulOp::create(rewriter, loc, type, a, b);
    };
    Value inner;
    if (op.getApproximate() == "tanh") {
      Value cube = mul(mul(x, x), x);
      Value poly = AddOp::create(rewriter, loc, type, x,
                                 mul(cube, scalar(rewriter, loc, 0.044715f)));
      inner = TanhOp::create(
          rewriter, loc,
          mul(poly, scalar(rewriter, loc, 0.7978845608028654f)));
    } else {
      inner = ErfOp::create(
          rewriter, loc,
          mul(x, scalar(rewriter, loc, 0.7071067811865476f)));
    }
    Value onePlus =
        AddOp::create(rewriter, loc, type, inner, scalar(rewriter, loc, 1.0f));
    rewriter.replaceOp(op, mul(mul(x, scalar(rewriter, loc, 0.5f)), onePlus));
    return success();
  }
};

/// LayerNormalization and RMSNormalization as reductions over the
/// normalised dimensions and elementwise ops, in ONNX's order of
/// operations: (x - mean) / sqrt(var + eps) * scale + bias, and
/// x / sqrt(mean(x^2) + eps) * scale.
template <typename NormOp, bool centred>
struct DecomposeNorm : OpRewritePattern<NormOp> {
  using OpRewritePattern<NormOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(NormOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "only f32");
    Location loc = op.getLoc();
    int64_t rank = type.getRank(), axis = int64_t(op.getAxis());
    if (axis < 0)
      axis += rank;
    SmallVector<int64_t> axes, kept(type.getShape());
    for (int64_t d = axis; d < rank; ++d) {
      axes.push_back(d);
      kept[d] = 1;
    }
    auto keptType = RankedTensorType::get(kept, type.getElementType());
    auto mean = [&](Value v) -> Value {
      return ReduceOp::create(
          rewriter, loc, keptType,
          ReduceKindAttr::get(rewriter.getContext(), ReduceKind::mean), v,
          rewriter.getDenseI64ArrayAttr(axes), rewriter.getBoolAttr(true));
    };
    auto mul = [&](Value a, Value b) -> Value {
      return MulOp::create(rewriter, loc, type, a, b);
    };
    Value x = op.getInput();
    Value centredX =
        centred ? SubOp::create(rewriter, loc, type, x, mean(x)).getResult()
                : x;
    Value meanSquare =
        ReduceOp::create(
            rewriter, loc, keptType,
            ReduceKindAttr::get(rewriter.getContext(), ReduceKind::mean),
            MulOp::create(rewriter, loc, type, centredX, centredX),
            rewriter.getDenseI64ArrayAttr(axes), rewriter.getBoolAttr(true));
    Value epsilon = scalar(rewriter, loc, op.getEpsilon().convertToFloat());
    Value denominator = SqrtOp::create(
        rewriter, loc,
        AddOp::create(rewriter, loc, keptType, meanSquare, epsilon));
    Value result = mul(DivOp::create(rewriter, loc, type, centredX, denominator),
                       op.getScale());
    if (Value bias = op.getBias())
      result = AddOp::create(rewriter, loc, type, result, bias);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// BatchNormalization at inference: scale * (x - mean) / sqrt(var + eps) +
/// bias, in ONNX's order, with the per-channel operands shaped [C, 1, ...]
/// to broadcast along dimension 1. Constant statistics fold afterwards.
struct DecomposeBatchNorm : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "only floats");
    Location loc = op.getLoc();
    int64_t rank = type.getRank();
    SmallVector<int64_t> channel(std::max<int64_t>(rank - 1, 1), 1);
    channel[0] = rank > 1 ? type.getDimSize(1) : 1;
    auto perChannel = [&](Value v) -> Value {
      auto vt = cast<RankedTensorType>(v.getType());
      if (rank <= 2 || vt.getShape() == ArrayRef<int64_t>(channel))
        return v;
      return ReshapeOp::create(
          rewriter, loc, RankedTensorType::get(channel, vt.getElementType()), v);
    };
    Value mean = perChannel(op.getMean());
    Value variance = perChannel(op.getVariance());
    Value scale = perChannel(op.getScale());
    Value bias = perChannel(op.getBias());
    auto channelType = cast<RankedTensorType>(variance.getType());
    Value eps = ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(
            RankedTensorType::get({}, type.getElementType()),
            FloatAttr::get(type.getElementType(),
                           op.getEpsilon().convertToDouble())
                .getValue()));
    Value centred = SubOp::create(rewriter, loc, type, op.getInput(), mean);
    Value scaled = MulOp::create(rewriter, loc, type, scale, centred);
    Value deviation = SqrtOp::create(
        rewriter, loc, AddOp::create(rewriter, loc, channelType, variance, eps));
    Value normed = DivOp::create(rewriter, loc, type, scaled, deviation);
    rewriter.replaceOpWithNewOp<AddOp>(op, type, normed, bias);
    return success();
  }
};

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// The input of `v`'s defining transpose when that transpose swaps the two
/// innermost dimensions of a computed float tensor of rank 3 or more and
/// keeps the others in place; null otherwise.
Value swappedInnermost(Value v) {
  auto transpose = v.getDefiningOp<TransposeOp>();
  if (!transpose || matchPattern(transpose.getInput(), m_Constant()) ||
      !isa<FloatType>(getElementTypeOrSelf(v.getType())))
    return {};
  ArrayRef<int64_t> perm = transpose.getPerm();
  int64_t rank = perm.size();
  if (rank < 3 || perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
    return {};
  for (int64_t d = 0; d < rank - 2; ++d)
    if (perm[d] != d)
      return {};
  return transpose.getInput();
}

/// The tensor whose matrices `v` repeats, each `repeat` times in a row
/// along its last batch dimension, as grouped-query attention expands its
/// key and value heads to the query heads: `x` of shape [.., G, R, C] is
/// reshaped to [.., G, 1, R, C], expanded to [.., G, repeat, R, C] and
/// reshaped to [.., G * repeat, R, C]. Matrix `i` of `v` is then matrix
/// `i / repeat` of `x`. Null (and `repeat` 1) for any other `v`.
Value repeatedMatrices(Value v, int64_t &repeat) {
  repeat = 1;
  auto outer = v.getDefiningOp<ReshapeOp>();
  auto expand = outer ? outer.getInput().getDefiningOp<ExpandOp>() : ExpandOp();
  auto inner =
      expand ? expand.getInput().getDefiningOp<ReshapeOp>() : ReshapeOp();
  if (!inner)
    return {};
  Value x = inner.getInput();
  ArrayRef<int64_t> xs = cast<RankedTensorType>(x.getType()).getShape();
  ArrayRef<int64_t> is = inner.getType().getShape();
  ArrayRef<int64_t> es = expand.getType().getShape();
  ArrayRef<int64_t> os = outer.getType().getShape();
  int64_t n = xs.size();
  if (n < 3 || int64_t(is.size()) != n + 1 || es.size() != is.size() ||
      int64_t(os.size()) != n)
    return {};
  // The unit dimension sits before the matrix, after the group dimension.
  int64_t d = n - 2;
  SmallVector<int64_t> unit(xs), expanded, merged(xs);
  unit.insert(unit.begin() + d, 1);
  expanded = unit;
  expanded[d] = es[d];
  merged[d - 1] = xs[d - 1] * es[d];
  if (is != ArrayRef<int64_t>(unit) || es != ArrayRef<int64_t>(expanded) ||
      os != ArrayRef<int64_t>(merged) || es[d] < 1)
    return {};
  repeat = es[d];
  return x;
}

/// MatMul with a batched right operand or a 1-D operand, which the chip's
/// matmul kernel (`[.., M, K] x [K, N]`) does not take: 1-D operands get a
/// unit dimension as numpy defines (`[K]` -> `[1, K]` on the left, `[K, 1]`
/// on the right); a right operand whose batch is one element is reshaped to
/// `[K, N]`; otherwise each batch element (numpy broadcasting) becomes one
/// `[M, K] x [K, N]` matmul of slices of the operands, and the results are
/// concatenated. A computed float right operand that is a transpose of its
/// two innermost dimensions (the keys of attention) is sliced before the
/// transpose, each `[N, K]` matrix transposed on its own: the 2-D
/// transposes become transposed weights of `hgraph.linear`
/// (`hetc-hgraph-fuse-linear`), and the whole operand is never transposed.
/// Matrices repeated along the last batch dimension (grouped-query
/// attention's heads, `repeatedMatrices`) are sliced once, before the
/// repeat.
struct DecomposeBatchedMatMul : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    auto lt = cast<RankedTensorType>(op.getLhs().getType());
    auto rt = cast<RankedTensorType>(op.getRhs().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!isa<FloatType>(resultType.getElementType()))
      return rewriter.notifyMatchFailure(op, "only floats");
    if (lt.getRank() >= 2 && rt.getRank() == 2)
      return rewriter.notifyMatchFailure(op, "runs as linear");
    if (lt.getRank() == 0 || rt.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "scalar operand");
    Location loc = op.getLoc();
    Value lhs = op.getLhs(), rhs = op.getRhs();
    if (lt.getRank() == 1)
      lhs = reshapeTo(rewriter, loc, lhs, {1, lt.getDimSize(0)});
    if (rt.getRank() == 1)
      rhs = reshapeTo(rewriter, loc, rhs, {rt.getDimSize(0), 1});
    ArrayRef<int64_t> ls = cast<RankedTensorType>(lhs.getType()).getShape();
    ArrayRef<int64_t> rs = cast<RankedTensorType>(rhs.getType()).getShape();
    int64_t m = ls[ls.size() - 2], k = ls.back(), n = rs.back();
    ArrayRef<int64_t> lb = ls.drop_back(2), rb = rs.drop_back(2);
    // The right operand before a transpose of its two innermost
    // dimensions, [.., N, K], and a matrix of it as the [K, N] it stands for.
    Value keys = swappedInnermost(rhs);
    auto transposed = [&](Value matrix) -> Value {
      return TransposeOp::create(rewriter, loc, withShape(matrix, {k, n}),
                                 matrix, rewriter.getDenseI64ArrayAttr({1, 0}));
    };
    if (product(rb) == 1) {
      // One right matrix: [.., M, K] x [K, N], with the result's unit batch
      // dimensions restored by the final reshape.
      rhs = keys ? transposed(reshapeTo(rewriter, loc, keys, {n, k}))
                 : reshapeTo(rewriter, loc, rhs, {k, n});
      SmallVector<int64_t> shape(lb);
      shape.append({m, n});
      Value result = MatMulOp::create(rewriter, loc,
                                       withShape(lhs, shape), lhs, rhs);
      rewriter.replaceOp(op, reshapeTo(rewriter, loc, result,
                                       resultType.getShape()));
      return success();
    }
    // Broadcast batch shape, right-aligned.
    size_t rank = std::max(lb.size(), rb.size());
    SmallVector<int64_t> batch(rank, 1), lDims(rank, 1), rDims(rank, 1);
    for (size_t i = 0; i < lb.size(); ++i)
      lDims[rank - lb.size() + i] = lb[i];
    for (size_t i = 0; i < rb.size(); ++i)
      rDims[rank - rb.size() + i] = rb[i];
    for (size_t i = 0; i < rank; ++i)
      batch[i] = std::max(lDims[i], rDims[i]);
    Value lhs3 = reshapeTo(rewriter, loc, lhs, {product(lb), m, k});
    // Matrices repeated for grouped-query attention are sliced once from
    // before the repeat.
    int64_t repeat = 1;
    Value right = keys ? keys : rhs;
    if (Value unrepeated = repeatedMatrices(right, repeat))
      right = unrepeated;
    int64_t rightCount = product(rb) / repeat;
    Value rhs3 = keys ? reshapeTo(rewriter, loc, right, {rightCount, n, k})
                      : reshapeTo(rewriter, loc, right, {rightCount, k, n});
    // The matrix at flat index `i` of a [count, rows, cols] operand.
    DenseMap<int64_t, Value> lCache, rCache;
    auto matrix = [&](Value v, int64_t i, int64_t rows, int64_t cols,
                      DenseMap<int64_t, Value> &cache) -> Value {
      if (Value found = cache.lookup(i))
        return found;
      Value piece = v;
      if (cast<RankedTensorType>(v.getType()).getDimSize(0) != 1)
        piece = SliceOp::create(rewriter, loc, withShape(v, {1, rows, cols}),
                                v, rewriter.getDenseI64ArrayAttr({i, 0, 0}),
                                rewriter.getDenseI64ArrayAttr({1, 1, 1}));
      return cache[i] = reshapeTo(rewriter, loc, piece, {rows, cols});
    };
    DenseMap<int64_t, Value> transposedCache;
    auto rightMatrix = [&](int64_t i) -> Value {
      Value &found = transposedCache[i];
      if (!found)
        found = transposed(matrix(rhs3, i, n, k, rCache));
      return found;
    };
    SmallVector<Value> pieces;
    int64_t total = product(batch);
    for (int64_t flat = 0; flat < total; ++flat) {
      // Multi-index of `flat` in `batch`, then each operand's flat index.
      int64_t rest = flat, li = 0, ri = 0, lStride = 1, rStride = 1;
      for (int64_t d = int64_t(rank) - 1; d >= 0; --d) {
        int64_t idx = rest % batch[d];
        rest /= batch[d];
        if (lDims[d] != 1)
          li += idx * lStride;
        if (rDims[d] != 1)
          ri += idx * rStride;
        lStride *= lDims[d];
        rStride *= rDims[d];
      }
      Value a = matrix(lhs3, li, m, k, lCache);
      Value b = keys ? rightMatrix(ri / repeat)
                     : matrix(rhs3, ri / repeat, k, n, rCache);
      Value c = MatMulOp::create(rewriter, loc, withShape(a, {m, n}), a, b);
      pieces.push_back(reshapeTo(rewriter, loc, c, {1, m, n}));
    }
    Value joined =
        pieces.size() == 1
            ? pieces.front()
            : ConcatOp::create(rewriter, loc, withShape(lhs, {total, m, n}),
                               pieces, rewriter.getI64IntegerAttr(0))
                  .getResult();
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, joined, resultType.getShape()));
    return success();
  }
};

/// Reductions the chip does not run directly: over axes other than the
/// innermost one, the reduced axes are moved innermost (a transpose) and
/// merged (a reshape), then reduced as one innermost axis; the kinds other
/// than sum, mean, max and min become a sum with an elementwise prologue
/// or epilogue, as ONNX defines them: sum_square = sum(x * x),
/// l1 = sum(|x|), l2 = sqrt(sum(x * x)), log_sum = log(sum(x)),
/// log_sum_exp = log(sum(exp(x))). Products stay (and are refused when
/// lowering).
struct DecomposeReduce : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    // Products multiply on any type the vector unit multiplies; the other
    // kinds run on floats (f64 held as f32) and i32-held integers, whose
    // limits the lowering checks.
    Type lane = hisa::laneTypeOf(type.getElementType());
    if (op.getKind() != ReduceKind::prod &&
        (!lane || !(hisa::isFloatLane(lane) || lane.isSignlessInteger(32))))
      return rewriter.notifyMatchFailure(op, "not a float or i32 lane type");
    int64_t rank = type.getRank();
    ArrayRef<int64_t> axes = op.getAxes();
    if (rank == 0 || axes.empty())
      return rewriter.notifyMatchFailure(op, "identity");
    ReduceKind kind = op.getKind();
    bool chipKind = kind == ReduceKind::sum || kind == ReduceKind::mean ||
                    kind == ReduceKind::max || kind == ReduceKind::min;
    bool innermost = axes.size() == 1 && axes[0] == rank - 1;
    if (chipKind && innermost)
      return rewriter.notifyMatchFailure(op, "nothing to decompose");
    Location loc = op.getLoc();
    Value x = op.getInput();
    ReduceKind inner = kind;
    switch (kind) {
    case ReduceKind::sum_square:
    case ReduceKind::l2:
      x = MulOp::create(rewriter, loc, type, x, x);
      inner = ReduceKind::sum;
      break;
    case ReduceKind::l1:
      x = AbsOp::create(rewriter, loc, x);
      inner = ReduceKind::sum;
      break;
    case ReduceKind::log_sum:
      inner = ReduceKind::sum;
      break;
    case ReduceKind::log_sum_exp:
      x = ExpOp::create(rewriter, loc, x);
      inner = ReduceKind::sum;
      break;
    default:
      break;
    }
    // Kept axes first, then the reduced ones, each in order.
    SmallVector<int64_t> perm, kept;
    int64_t reduced = 1;
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(axes, d)) {
        perm.push_back(d);
        kept.push_back(type.getDimSize(d));
      }
    for (int64_t d : axes) {
      perm.push_back(d);
      reduced *= type.getDimSize(d);
    }
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, rank))) {
      SmallVector<int64_t> shape;
      for (int64_t d : perm)
        shape.push_back(type.getDimSize(d));
      x = TransposeOp::create(rewriter, loc, withShape(x, shape), x,
                              rewriter.getDenseI64ArrayAttr(perm));
    }
    SmallVector<int64_t> merged(kept);
    merged.push_back(reduced);
    x = reshapeTo(rewriter, loc, x, merged);
    if (kind == ReduceKind::prod) {
      // The vector unit has no product reduction: halve the row by
      // multiplying its two halves until one element is left (an odd row
      // first gets a 1 at its end).
      int64_t last = int64_t(merged.size()) - 1;
      auto elementType = type.getElementType();
      Value one = ConstantOp::create(
          rewriter, loc,
          cast<DenseElementsAttr>(
              rewriter.getOneAttr(RankedTensorType::get({}, elementType))));
      SmallVector<int64_t> shape(merged);
      SmallVector<int64_t> ones(shape.size(), 1);
      while (shape[last] > 1) {
        if (shape[last] % 2) {
          SmallVector<int64_t> pads(2 * shape.size(), 0);
          pads[shape.size() + last] = 1;
          ++shape[last];
          x = PadOp::create(rewriter, loc, withShape(x, shape), x, one,
                            rewriter.getDenseI64ArrayAttr(pads),
                            rewriter.getStringAttr("constant"));
        }
        SmallVector<int64_t> half(shape);
        half[last] = shape[last] / 2;
        SmallVector<int64_t> front(shape.size(), 0), back(shape.size(), 0);
        back[last] = half[last];
        Value lo = SliceOp::create(rewriter, loc, withShape(x, half), x,
                                   rewriter.getDenseI64ArrayAttr(front),
                                   rewriter.getDenseI64ArrayAttr(ones));
        Value hi = SliceOp::create(rewriter, loc, withShape(x, half), x,
                                   rewriter.getDenseI64ArrayAttr(back),
                                   rewriter.getDenseI64ArrayAttr(ones));
        x = MulOp::create(rewriter, loc, withShape(x, half), lo, hi);
        shape = half;
      }
      ArrayRef<int64_t> outShape =
          cast<RankedTensorType>(op.getType()).getShape();
      rewriter.replaceOp(op, reshapeTo(rewriter, loc, x, outShape));
      return success();
    }
    // Reducing without keepdims packs the results into rows, which suits
    // a result whose innermost dimension is not 1.
    ArrayRef<int64_t> outShape =
        cast<RankedTensorType>(op.getType()).getShape();
    bool keep = kept.empty() || outShape.empty() || outShape.back() == 1;
    SmallVector<int64_t> reducedShape(kept);
    if (keep)
      reducedShape.push_back(1);
    x = ReduceOp::create(rewriter, loc, withShape(x, reducedShape),
                         ReduceKindAttr::get(rewriter.getContext(), inner), x,
                         rewriter.getDenseI64ArrayAttr({int64_t(merged.size()) - 1}),
                         rewriter.getBoolAttr(keep));
    if (kind == ReduceKind::l2)
      x = SqrtOp::create(rewriter, loc, x);
    else if (kind == ReduceKind::log_sum || kind == ReduceKind::log_sum_exp)
      x = LogOp::create(rewriter, loc, x);
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, x, outShape));
    return success();
  }
};

/// Max and min over booleans (any and all): the vector unit compares
/// i32 lanes, so the booleans widen to i32 (0 or 1), reduce, and narrow
/// back.
struct WidenBooleanReduce : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    if (!type.getElementType().isInteger(1) ||
        (op.getKind() != ReduceKind::max && op.getKind() != ReduceKind::min))
      return rewriter.notifyMatchFailure(op, "not max or min of booleans");
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type i32 = rewriter.getI32Type();
    Value wide = CastOp::create(rewriter, loc, type.clone(i32), op.getInput());
    Value reduced =
        ReduceOp::create(rewriter, loc, resultType.clone(i32), op.getKindAttr(),
                         wide, op.getAxesAttr(), op.getKeepdimsAttr());
    rewriter.replaceOpWithNewOp<CastOp>(op, resultType, reduced);
    return success();
  }
};

struct HGraphDecomposePass
    : hetc::impl::HGraphDecomposeBase<HGraphDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeGemm, DecomposeLeakyRelu, DecomposeClip,
                 DecomposeGelu, DecomposeNorm<LayerNormOp, true>,
                 DecomposeNorm<RMSNormOp, false>, DecomposeBatchedMatMul,
                 DecomposeReduce, WidenBooleanReduce, DecomposeBatchNorm>(
        &getContext());
    populateDecomposePointwisePatterns(patterns);
    populateDecomposeGatherPatterns(patterns);
    populateDecomposeSoftmaxPatterns(patterns);
    populateDecomposeTriluPatterns(patterns);
    populateDecomposeNegatedConcatPatterns(patterns);
    populateDecomposeResizePatterns(patterns);
    populateDecomposeCumulativePatterns(patterns);
    populateDecomposeConvTransposePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
