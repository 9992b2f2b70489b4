//===- HGraphChannelsLast.cpp - Small feature maps convolved channels-last ===//
//
// hetc-hgraph-channels-last. A convolution lowers as the weight rows
// ([M, C·k]) streamed through the planes against its windows installed as
// weights ([C·k, positions]): M input rows for every K tile of the windows.
// Where the maps are small and the channels many (ResNet's last stage:
// 7 x 7 positions, 512 channels, K of 4,608), the planes' columns hold a
// few positions each, and M rows go through each of fifteen K tiles. Taken
// the other way round, channels-last, the positions are the rows
// ([positions, k·C] windows, gathered from a [positions, C] map) and the
// weight is the constant ([k·C, M]): 49 rows per K tile and N tile, five
// times fewer plane cycles. The pass rewrites such a convolution as the
// standard ops of that form (transpose, pad, slices, concat, reshape,
// matmul, bias add) between transposes to and from channels-last, then
// moves the transposes through the elementwise ops after them and cancels
// those that meet their inverse, so that a stage of such convolutions
// runs channels-last from its first to its last, and a global average
// pool at its end becomes a product with a row of 1/positions.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/Passes.h"

#include "compiler/dialects/hetc/IR/HetcTarget.h"
#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <numeric>

namespace hetc {
#define GEN_PASS_DEF_HGRAPHCHANNELSLAST
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

namespace {

constexpr int64_t kToChannelsLast[] = {0, 2, 3, 1};
constexpr int64_t kToChannelsFirst[] = {0, 3, 1, 2};
/// What a row of a plane transpose costs against a row of a product: a
/// transpose of [49, 960] to [960, 49] (MobileNetV2's last stage, f32) took
/// 6,900 cycles on tsp-v1, 2.4 times its 960 rows at 12 cycles each over
/// four planes.
constexpr int64_t kTransposeWeight = 3;

RankedTensorType shaped(ArrayRef<int64_t> shape, Type element) {
  return RankedTensorType::get(shape, element);
}

int64_t tiles(int64_t n, int64_t lanes) { return llvm::divideCeil(n, lanes); }

/// Whether `op` is a 2-D convolution the pass can take channels-last: a
/// batch of one, no groups, a float input, a constant weight of the same
/// type and a constant bias, if any.
bool isCandidate(ConvOp op) {
  auto xType = cast<RankedTensorType>(op.getInput().getType());
  Type element = xType.getElementType();
  return xType.getRank() == 4 && xType.getDimSize(0) == 1 &&
         op.getGroup() == 1 && isa<FloatType>(element) &&
         cast<RankedTensorType>(op.getWeight().getType()).getElementType() ==
             element &&
         matchPattern(op.getWeight(), m_Constant()) &&
         (!op.getBias() || matchPattern(op.getBias(), m_Constant()));
}

/// Input rows the planes multiply for a convolution (times a row's
/// cycles, the same either way). Channels-first: the weight rows against
/// each K tile of the windows, per N tile of positions. Channels-last:
/// the positions against each K tile of the weight, per N tile of output
/// channels. `enter` and `leave` are the rows of the plane transposes into
/// and out of channels-last (a transpose streams one row per row of its
/// result), paid where the map next to the convolution is not
/// channels-last too.
struct ConvCost {
  int64_t channelsFirst, channelsLast, enter, leave;
};
ConvCost convCost(ConvOp op, int64_t lanes) {
  auto xType = cast<RankedTensorType>(op.getInput().getType());
  auto wType = cast<RankedTensorType>(op.getWeight().getType());
  auto yType = cast<RankedTensorType>(op.getType());
  int64_t c = xType.getDimSize(1), m = wType.getDimSize(0);
  int64_t k = c * wType.getDimSize(2) * wType.getDimSize(3);
  int64_t positions = yType.getDimSize(2) * yType.getDimSize(3);
  int64_t kTiles = tiles(k, lanes);
  // A 1 x 1 convolution without padding transposes only the positions it
  // reads (ConvToChannelsLast slices a strided one first).
  bool pointwise = wType.getDimSize(2) == 1 && wType.getDimSize(3) == 1 &&
                   llvm::all_of(op.getPads(), [](int64_t p) { return p == 0; });
  int64_t read =
      pointwise ? positions : xType.getDimSize(2) * xType.getDimSize(3);
  return {m * kTiles * tiles(positions, lanes),
          positions * kTiles * tiles(m, lanes), read * tiles(c, lanes),
          m * tiles(positions, lanes)};
}

/// Ops that take a map channels-last as well as channels-first: the
/// elementwise ops the transposes move through (SinkThroughUnary,
/// SinkThroughBinary), of one operand, or of two of the result's shape (or
/// one a single element).
bool isLayoutFree(Operation *op) {
  if (isa<ReluOp, SigmoidOp, TanhOp>(op))
    return true;
  if (!isa<AddOp, SubOp, MulOp, DivOp>(op))
    return false;
  Type type = op->getResult(0).getType();
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    auto operandType = cast<RankedTensorType>(operand.getType());
    return operandType == type || operandType.getNumElements() == 1;
  });
}

/// Whether `user` is a global mean or sum over the positions of the map it
/// reads (PoolChannelsLast takes those channels-last).
bool isGlobalPool(Operation *user) {
  if (auto reshape = dyn_cast<ReshapeOp>(user)) {
    if (!reshape->hasOneUse())
      return false;
    user = *reshape->getUsers().begin();
  }
  auto reduce = dyn_cast<ReduceOp>(user);
  return reduce && (reduce.getKind() == ReduceKind::mean ||
                    reduce.getKind() == ReduceKind::sum);
}

/// The convolutions to take channels-last. Candidates, those that take
/// fewer rows channels-last, connect where one's
/// result reaches another's input through layout-free ops: such a group
/// runs channels-last from end to end, with plane transposes only where it
/// meets other maps. A group goes channels-last when the rows it saves
/// outweigh those transposes.
llvm::DenseSet<Operation *> chooseChannelsLast(func::FuncOp func,
                                               int64_t lanes) {
  SmallVector<ConvOp> convs;
  SmallVector<ConvCost> costs;
  func.walk([&](ConvOp op) {
    if (!isCandidate(op))
      return;
    ConvCost cost = convCost(op, lanes);
    if (cost.channelsLast < cost.channelsFirst) {
      convs.push_back(op);
      costs.push_back(cost);
    }
  });
  llvm::DenseMap<Operation *, size_t> index;
  for (auto [i, op] : llvm::enumerate(convs))
    index[op] = i;
  SmallVector<size_t> parent(convs.size());
  std::iota(parent.begin(), parent.end(), size_t(0));
  auto find = [&](size_t i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  // Per convolution: the rows it saves, less the transposes it needs.
  SmallVector<int64_t> gain(convs.size());
  for (auto [i, op] : llvm::enumerate(convs)) {
    const ConvCost &cost = costs[i];
    gain[i] = cost.channelsFirst - cost.channelsLast;
    // Backwards from its input through layout-free ops: joined to the
    // candidates whose results it reads, a transpose in where any other
    // map reaches it.
    bool enters = false;
    SmallVector<Value> work{op.getInput()};
    llvm::DenseSet<Value> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second ||
          cast<RankedTensorType>(v.getType()).getNumElements() == 1)
        continue;
      Operation *def = v.getDefiningOp();
      if (auto conv = dyn_cast_if_present<ConvOp>(def);
          conv && index.count(conv)) {
        parent[find(i)] = find(index[conv]);
      } else if (def && isLayoutFree(def)) {
        for (Value operand : def->getOperands())
          work.push_back(operand);
      } else {
        enters = true;
      }
    }
    // Forwards from its result: a transpose out where a reader other than
    // a candidate, a layout-free op or a global pool takes it.
    bool leaves = false;
    SmallVector<Value> forward{op.getResult()};
    llvm::DenseSet<Value> reached;
    while (!forward.empty()) {
      Value v = forward.pop_back_val();
      if (!reached.insert(v).second)
        continue;
      for (Operation *user : v.getUsers()) {
        if (auto conv = dyn_cast<ConvOp>(user);
            conv && index.count(conv) && conv.getInput() == v)
          continue;
        if (isLayoutFree(user))
          forward.push_back(user->getResult(0));
        else if (!isGlobalPool(user))
          leaves = true;
      }
    }
    gain[i] -= kTransposeWeight *
               ((enters ? cost.enter : 0) + (leaves ? cost.leave : 0));
  }
  llvm::DenseMap<size_t, int64_t> groupGain;
  for (size_t i = 0; i < convs.size(); ++i)
    groupGain[find(i)] += gain[i];
  llvm::DenseSet<Operation *> chosen;
  for (auto [i, op] : llvm::enumerate(convs))
    if (groupGain[find(i)] > 0)
      chosen.insert(op);
  return chosen;
}

/// A convolution chosen by chooseChannelsLast, rewritten channels-last.
struct ConvToChannelsLast : OpRewritePattern<ConvOp> {
  ConvToChannelsLast(MLIRContext *context,
                     const llvm::DenseSet<Operation *> &chosen)
      : OpRewritePattern(context), chosen(chosen) {}
  const llvm::DenseSet<Operation *> &chosen;

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    if (!chosen.count(op))
      return rewriter.notifyMatchFailure(op, "not chosen");
    auto xType = cast<RankedTensorType>(op.getInput().getType());
    auto wType = cast<RankedTensorType>(op.getWeight().getType());
    auto yType = cast<RankedTensorType>(op.getType());
    Type element = xType.getElementType();
    int64_t c = xType.getDimSize(1), h = xType.getDimSize(2),
            w = xType.getDimSize(3);
    int64_t m = wType.getDimSize(0), kh = wType.getDimSize(2),
            kw = wType.getDimSize(3);
    int64_t ho = yType.getDimSize(2), wo = yType.getDimSize(3);
    int64_t positions = ho * wo, k = c * kh * kw;
    Location loc = op.getLoc();
    ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                      dilations = op.getDilations();
    Value x = op.getInput();
    bool unpadded = llvm::all_of(pads, [](int64_t p) { return p == 0; });
    if (kh == 1 && kw == 1 && unpadded && (h != ho || w != wo)) {
      // A strided 1 x 1 convolution reads every s-th position only: those
      // are taken first, so that the transpose moves no more.
      x = SliceOp::create(
          rewriter, loc, shaped({1, c, ho, wo}, element), x,
          rewriter.getDenseI64ArrayAttr({0, 0, 0, 0}),
          rewriter.getDenseI64ArrayAttr({1, 1, strides[0], strides[1]}));
      h = ho;
      w = wo;
    }
    x = TransposeOp::create(rewriter, loc, shaped({1, h, w, c}, element), x,
                            rewriter.getDenseI64ArrayAttr(kToChannelsLast));
    int64_t hp = h + pads[0] + pads[2], wp = w + pads[1] + pads[3];
    if (!unpadded)
      x = PadOp::create(rewriter, loc, shaped({1, hp, wp, c}, element), x,
                        Value(),
                        rewriter.getDenseI64ArrayAttr(
                            {0, pads[0], pads[1], 0, 0, pads[2], pads[3], 0}),
                        rewriter.getStringAttr("constant"));
    // The windows: per kernel element, the map it meets at every output
    // position, side by side along the channels ([.., kh·kw·C]).
    SmallVector<Value> taps;
    auto tapType = shaped({1, ho, wo, c}, element);
    for (int64_t i = 0; i < kh; ++i)
      for (int64_t j = 0; j < kw; ++j) {
        if (hp == ho && wp == wo) {
          taps.push_back(x);
          continue;
        }
        taps.push_back(SliceOp::create(
            rewriter, loc, tapType, x,
            rewriter.getDenseI64ArrayAttr(
                {0, i * dilations[0], j * dilations[1], 0}),
            rewriter.getDenseI64ArrayAttr({1, strides[0], strides[1], 1})));
      }
    Value windows =
        taps.size() == 1
            ? taps.front()
            : ConcatOp::create(rewriter, loc,
                               shaped({1, ho, wo, k}, element), taps,
                               rewriter.getI64IntegerAttr(3))
                  .getResult();
    windows = ReshapeOp::create(rewriter, loc,
                                shaped({positions, k}, element), windows);
    // W [M, C, kh, kw] -> [kh·kw·C, M], in the windows' order.
    Value weight = TransposeOp::create(
        rewriter, loc, shaped({kh, kw, c, m}, element), op.getWeight(),
        rewriter.getDenseI64ArrayAttr({2, 3, 1, 0}));
    weight = ReshapeOp::create(rewriter, loc, shaped({k, m}, element), weight);
    auto rowsType = shaped({positions, m}, element);
    Value y = MatMulOp::create(rewriter, loc, rowsType, windows, weight);
    if (Value bias = op.getBias())
      y = AddOp::create(rewriter, loc, rowsType, y, bias);
    y = ReshapeOp::create(rewriter, loc, shaped({1, ho, wo, m}, element), y);
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, yType, y, rewriter.getDenseI64ArrayAttr(kToChannelsFirst));
    return success();
  }
};

/// transpose(transpose(x, p), q) -> transpose(x, p∘q), or x.
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    ArrayRef<int64_t> p = inner.getPerm(), q = op.getPerm();
    SmallVector<int64_t> perm;
    for (int64_t d : q)
      perm.push_back(p[d]);
    if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
      rewriter.replaceOp(op, inner.getInput());
    else
      rewriter.replaceOpWithNewOp<TransposeOp>(
          op, op.getType(), inner.getInput(),
          rewriter.getDenseI64ArrayAttr(perm));
    return success();
  }
};

/// The transpose that defines `v` when every reader of `v` can take it
/// further (a layout-free op, a transpose or a global pool): moved past
/// one reader, it is dead once it has been moved past all.
TransposeOp sinkableTranspose(Value v) {
  auto t = v.getDefiningOp<TransposeOp>();
  if (!t || !llvm::all_of(v.getUsers(), [](Operation *user) {
        return isLayoutFree(user) || isa<TransposeOp, SliceOp>(user) ||
               isGlobalPool(user);
      }))
    return TransposeOp();
  return t;
}

/// `type`'s shape before the transpose `perm` (of which it is the result).
RankedTensorType beforeTranspose(RankedTensorType type,
                                 ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape(type.getRank());
  for (auto [d, from] : llvm::enumerate(perm))
    shape[from] = type.getDimSize(d);
  return type.clone(shape);
}

/// Replaces `op` by `inner`, the same op on the input of the transpose
/// `t`, taken through `t`: the transpose moved after the op.
LogicalResult moveAfter(PatternRewriter &rewriter, Operation *op,
                        TransposeOp t, Value inner) {
  rewriter.replaceOpWithNewOp<TransposeOp>(op, op->getResult(0).getType(),
                                           inner, t.getPermAttr());
  return success();
}

/// unary(transpose(x)) -> transpose(unary(x)), for elementwise ops of one
/// operand.
template <typename Op>
struct SinkThroughUnary : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    TransposeOp t = sinkableTranspose(op->getOperand(0));
    if (!t)
      return failure();
    auto type = cast<RankedTensorType>(op.getType());
    return moveAfter(rewriter, op, t,
                     Op::create(rewriter, op.getLoc(),
                                beforeTranspose(type, t.getPerm()),
                                t.getInput()));
  }
};

/// Whether `v` is a tensor of one element of rank `rank` (or of rank 0): it
/// broadcasts the same way whatever the order of the dimensions.
bool isScalarLike(Value v, int64_t rank) {
  auto type = cast<RankedTensorType>(v.getType());
  return type.getNumElements() == 1 &&
         (type.getRank() == 0 || type.getRank() == rank);
}

/// binary(transpose(a, p), transpose(b, p)) -> transpose(binary(a, b), p),
/// both of the result's shape; or with one side a single element.
template <typename Op>
struct SinkThroughBinary : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value lhs = op.getLhs(), rhs = op.getRhs();
    TransposeOp a = sinkableTranspose(lhs), b = sinkableTranspose(rhs);
    TransposeOp t = a ? a : b;
    if (!t)
      return failure();
    auto inputOf = [&](Value side, TransposeOp sideT) -> Value {
      if (sideT && sideT.getPerm() == t.getPerm() &&
          side.getType() == Type(type))
        return sideT.getInput();
      if (!sideT && isScalarLike(side, type.getRank()))
        return side;
      return Value();
    };
    Value x = inputOf(lhs, a), y = inputOf(rhs, b);
    if (!x || !y || (a && lhs.getType() != Type(type)) ||
        (b && rhs.getType() != Type(type)))
      return failure();
    return moveAfter(rewriter, op, t,
                     Op::create(rewriter, op.getLoc(),
                                beforeTranspose(type, t.getPerm()), x, y));
  }
};

/// slice(transpose(x, p)) -> transpose(slice(x), p), the slice's starts,
/// steps and sizes permuted back: a strided 1 x 1 convolution's slice of a
/// channels-last map.
struct SinkThroughSlice : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    TransposeOp t = sinkableTranspose(op.getInput());
    if (!t)
      return failure();
    ArrayRef<int64_t> perm = t.getPerm();
    SmallVector<int64_t> starts(perm.size()), steps(perm.size());
    for (auto [d, from] : llvm::enumerate(perm)) {
      starts[from] = op.getStarts()[d];
      steps[from] = op.getSteps()[d];
    }
    auto type = cast<RankedTensorType>(op.getType());
    return moveAfter(rewriter, op, t,
                     SliceOp::create(rewriter, op.getLoc(),
                                     beforeTranspose(type, perm), t.getInput(),
                                     rewriter.getDenseI64ArrayAttr(starts),
                                     rewriter.getDenseI64ArrayAttr(steps)));
  }
};

/// A global mean (or sum) over the positions of a map taken back to
/// channels-first, [1, H, W, C] -> [1, C, H, W] -> reduce over H and W (or
/// over the positions of [1, C, H·W], as canonicalisation leaves it), is a
/// row of 1/(H·W) (or ones) times the map's positions as rows:
/// [1, H·W] x [H·W, C], with no transpose.
struct PoolChannelsLast : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getKind() != ReduceKind::mean && op.getKind() != ReduceKind::sum)
      return failure();
    SmallVector<int64_t> axes(op.getAxes());
    llvm::sort(axes);
    Value input = op.getInput();
    SmallVector<int64_t> spatial{2, 3};
    auto reshape = input.getDefiningOp<ReshapeOp>();
    if (reshape && reshape->hasOneUse()) {
      input = reshape.getInput();
      spatial = {2};
    }
    TransposeOp t = sinkableTranspose(input);
    if (!t || !llvm::equal(t.getPerm(), kToChannelsFirst) || axes != spatial)
      return failure();
    auto xType = cast<RankedTensorType>(t.getInput().getType());
    auto element = dyn_cast<FloatType>(xType.getElementType());
    if (!element || !element.isF32() || xType.getDimSize(0) != 1)
      return failure();
    int64_t positions = xType.getDimSize(1) * xType.getDimSize(2),
            c = xType.getDimSize(3);
    if (reshape && cast<RankedTensorType>(reshape.getType()).getShape() !=
                       ArrayRef<int64_t>{1, c, positions})
      return failure();
    Location loc = op.getLoc();
    float weight = op.getKind() == ReduceKind::mean ? 1.0f / float(positions)
                                                    : 1.0f;
    auto rowType = shaped({1, positions}, element);
    Value row = ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(rowType, weight));
    Value rows = ReshapeOp::create(rewriter, loc,
                                   shaped({positions, c}, element),
                                   t.getInput());
    Value y = MatMulOp::create(rewriter, loc, shaped({1, c}, element), row,
                               rows);
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), y);
    return success();
  }
};

struct HGraphChannelsLastPass
    : hetc::impl::HGraphChannelsLastBase<HGraphChannelsLastPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto module = func->getParentOfType<ModuleOp>();
    // The choice depends on the chip's lanes; a module with no chip (a
    // constant folded on its own) keeps its layout.
    if (!module || !module->hasAttr(target::kChipAttrName))
      return;
    FailureOr<chip::ChipSpec> spec = target::getChip(module, getArgument());
    if (failed(spec))
      return signalPassFailure();
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    llvm::DenseSet<Operation *> chosen =
        chooseChannelsLast(func, int64_t(spec->lanes()));
    if (chosen.empty())
      return;
    patterns.add<ConvToChannelsLast>(context, chosen);
    patterns.add<ComposeTransposes, PoolChannelsLast, SinkThroughSlice,
                 SinkThroughUnary<ReluOp>, SinkThroughUnary<SigmoidOp>,
                 SinkThroughUnary<TanhOp>, SinkThroughBinary<AddOp>,
                 SinkThroughBinary<SubOp>, SinkThroughBinary<MulOp>,
                 SinkThroughBinary<DivOp>>(context);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
