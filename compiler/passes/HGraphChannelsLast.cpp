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
// times fewer plane cycles. A depthwise convolution channels-last is a
// product per kernel element of a slice of the map by a row of weights:
// whole vectors of channels, which no switch unit has to move. The pass
// chooses every convolution's layout at once, as a minimum cut of their
// costs and of the transposes between them; rewrites those it takes as
// the standard ops of that form (transpose, pad, slices, concat, reshape,
// matmul or mul and add, bias add) between transposes to and from
// channels-last; then moves the transposes through the elementwise ops
// after them and cancels those that meet their inverse, so that a stage
// of such convolutions runs channels-last from its first to its last,
// and a global average pool at its end becomes a product with a row of
// 1/positions.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/Passes.h"

#include "compiler/dialects/common/DepthwiseWindow.h"
#include "compiler/passes/DepthwiseForms.h"
#include "compiler/dialects/hetc/IR/HetcTarget.h"
#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/BitVector.h"

#include <deque>
#include <set>
#include <limits>

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

/// Whether `op` is an integer convolution (8-bit by i8 into i32 sums, as
/// hgraph's verifier allows it).
bool isInteger(ConvOp op) {
  return isa<IntegerType>(op.getType().getElementType());
}

/// Whether `op` is a 2-D convolution the pass can take channels-last as a
/// matrix product: a batch of one, no groups, a float input and a
/// constant weight of the same type and a constant bias, if any, or an
/// integer convolution by a constant weight (a matmul_integer then).
bool isDense(ConvOp op) {
  auto xType = cast<RankedTensorType>(op.getInput().getType());
  Type element = xType.getElementType();
  Type weight =
      cast<RankedTensorType>(op.getWeight().getType()).getElementType();
  return xType.getRank() == 4 && xType.getDimSize(0) == 1 &&
         op.getGroup() == 1 &&
         ((isa<FloatType>(element) && weight == element) || isInteger(op)) &&
         matchPattern(op.getWeight(), m_Constant()) &&
         (!op.getBias() || matchPattern(op.getBias(), m_Constant()));
}

/// Whether `op` is a 2-D depthwise convolution the pass can take
/// channels-last as per-kernel-element products on the vector unit: a
/// batch of one, one input and one output channel per group, f32 (the
/// sums of the channels-first form are f32 whatever the input), a
/// constant weight and a constant bias, if any.
bool isDepthwise(ConvOp op) {
  auto xType = cast<RankedTensorType>(op.getInput().getType());
  auto wType = cast<RankedTensorType>(op.getWeight().getType());
  auto yType = cast<RankedTensorType>(op.getType());
  return xType.getRank() == 4 && xType.getDimSize(0) == 1 &&
         xType.getElementType().isF32() && wType.getElementType().isF32() &&
         op.getGroup() == xType.getDimSize(1) && op.getGroup() > 1 &&
         wType.getDimSize(0) == op.getGroup() && wType.getDimSize(1) == 1 &&
         matchPattern(op.getWeight(), m_Constant()) &&
         (!op.getBias() || matchPattern(op.getBias(), m_Constant())) &&
         hetc::depthwise::windowMismatch(
             xType.getShape().drop_front(2), yType.getShape().drop_front(2),
             wType.getShape().drop_front(2), op.getStrides(), op.getPads(),
             op.getDilations())
             .empty();
}

bool isCandidate(ConvOp op) { return isDense(op) || isDepthwise(op); }

/// What a convolution costs each way, in rows a plane multiplies (times a
/// row's cycles, the same either way). A dense one channels-first streams
/// its weight rows against each K tile of the windows, per N tile of
/// positions; channels-last, the positions against each K tile of the
/// weight, per N tile of output channels. A depthwise one is a product and
/// a sum per kernel element either way, on the vector unit: channels-first
/// over [C, positions] rows, each element gathered through a switch unit;
/// channels-last over [positions, C] rows, read where they lie. `enter` and
/// `leave` are the rows of the plane transposes into and out of channels-last
/// (a transpose streams one row per row of its result), paid where the map next
/// to the convolution is not channels-last too; a map of one position is the
/// same either way (a reshape).
struct ConvCost {
  int64_t channelsFirst, channelsLast, enter, leave;
};

/// A plane row of a dense convolution is about three cycles: ResNet-50's
/// last-stage 3 x 3 convolution took 26,876 cycles for 7,680 rows
/// channels-first.
constexpr int64_t kCyclesPerPlaneRow = 3;

/// A depthwise convolution's cycles either way, as plane rows. Both forms
/// run on the vector unit bound by the dispatcher, so each is counted in
/// instructions as its lowering makes them, and the measured spans are
/// about 1.3 times those over the chip's dispatch rate (144 channels of
/// 56 x 56, 3 x 3, channels-first: 145,152 instructions, 11,229 cycles;
/// ConvNeXt-T's 96 of 56 x 56, 7 x 7, channels-last: 584,366, 55,601).
/// Per vector of the maps they write:
/// - channels-first, separably (depthwise::separable): a move (a read, a
///   permute or two, a write: five) per kernel column and row that is not
///   the input in order, the column moves over H_in / H_out times the
///   output's vectors; per kernel element a product by its spread scale
///   (five) and a sum (four) over the column maps; 144 of 56 x 56, 3 x 3:
///   5 x (2 + 2) + 9 x 9 = 101 a vector, 145,440 in all;
/// - channels-first per kernel element (wider strides): a move, a product
///   and a sum per kernel element;
/// - channels-first on the matrix path (scale columns over
///   depthwise::onVectorUnit's budget): switch-bound window gathers, about
///   0.9 cycles per kernel element and output vector (240 of 28 x 28,
///   5 x 5: 15,098 cycles);
/// - channels-last: per kernel element a read of the input row and the
///   weight row, a product and a sum (four), the bias and the write.
struct DepthwiseCost {
  int64_t channelsFirst, channelsLast;
};

DepthwiseCost depthwiseCost(ConvOp op, const chip::ChipSpec &chip) {
  auto xType = cast<RankedTensorType>(op.getInput().getType());
  auto wType = cast<RankedTensorType>(op.getWeight().getType());
  auto yType = cast<RankedTensorType>(op.getType());
  int64_t lanes = chip.lanes();
  int64_t c = xType.getDimSize(1), hIn = xType.getDimSize(2),
          wIn = xType.getDimSize(3), hOut = yType.getDimSize(2),
          wOut = yType.getDimSize(3), kh = wType.getDimSize(2),
          kw = wType.getDimSize(3), kernel = kh * kw;
  ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                    dilations = op.getDilations();
  int64_t outVectors = c * tiles(hOut * wOut, lanes);
  // Instructions to cycles to plane rows: 1.3 / dispatch rate / 3.
  int64_t perCycle = std::max<int64_t>(chip.proto().dispatch().per_cycle(), 1);
  auto rows = [&](int64_t instructions) {
    return tiles(13 * instructions, 10 * perCycle * kCyclesPerPlaneRow);
  };
  int64_t channelsFirst;
  if (!depthwise::onVectorUnit(kernel, c, outVectors, chip.totalVectors())) {
    channelsFirst = tiles(9 * kernel * outVectors, 10 * kCyclesPerPlaneRow);
  } else if (depthwise::separable({kh, kw}, strides)) {
    int64_t columnVectors = c * tiles(hIn * wOut, lanes), moved = 0;
    for (int64_t kx = 0; kx < kw; ++kx)
      if (!depthwise::tapIsIdentity(wIn, wOut, strides[1],
                                    kx * dilations[1] - pads[1]))
        moved += columnVectors;
    for (int64_t ky = 0; ky < kh; ++ky)
      if (!depthwise::tapIsIdentity(hIn, hOut, strides[0],
                                    ky * dilations[0] - pads[0]))
        moved += outVectors;
    channelsFirst = rows(5 * moved + 9 * kernel * columnVectors);
  } else {
    channelsFirst = rows(14 * kernel * outVectors);
  }
  int64_t channelsLast =
      rows((4 * kernel + 2) * hOut * wOut * tiles(c, lanes));
  return {channelsFirst, channelsLast};
}

bool isLayoutFree(Operation *op);

/// The elementwise kernels an integer convolution's sums go through before
/// anything that is not layout-free reads them (hetc-hgraph-fuse-quantized's
/// cast, scaling, bias, ReLU and requantisation, a residual's dequantisation
/// and sum): each reads and writes the map, in vectors of its layout, and
/// the scale rows they read in each vector bind them to about a cycle a
/// vector. They count, in plane rows, beside the product: a map of 7 x 7
/// positions is 2,048 rows of one vector channels-first against 49 rows
/// of seven channels-last. A float convolution's choice is made on its
/// products alone.
int64_t integerEpilogue(ConvOp op) {
  if (!isInteger(op))
    return 0;
  int64_t kernels = 0;
  Value v = op.getResult();
  while (v.hasOneUse() && isLayoutFree(*v.getUsers().begin())) {
    ++kernels;
    v = v.getUsers().begin()->getResult(0);
  }
  return kernels;
}

ConvCost convCost(ConvOp op, const chip::ChipSpec &chip) {
  int64_t lanes = chip.lanes();
  auto xType = cast<RankedTensorType>(op.getInput().getType());
  auto wType = cast<RankedTensorType>(op.getWeight().getType());
  auto yType = cast<RankedTensorType>(op.getType());
  int64_t c = xType.getDimSize(1), m = wType.getDimSize(0);
  int64_t kernel = wType.getDimSize(2) * wType.getDimSize(3);
  int64_t positions = yType.getDimSize(2) * yType.getDimSize(3);
  // A 1 x 1 convolution without padding transposes only the positions it
  // reads (ConvToChannelsLast slices a strided one first).
  bool pointwise = kernel == 1 && llvm::all_of(op.getPads(), [](int64_t p) {
                     return p == 0;
                   });
  int64_t read =
      pointwise ? positions : xType.getDimSize(2) * xType.getDimSize(3);
  int64_t enter = read == 1 ? 0 : read * tiles(c, lanes);
  int64_t leave = positions == 1 ? 0 : m * tiles(positions, lanes);
  if (isDepthwise(op)) {
    DepthwiseCost cost = depthwiseCost(op, chip);
    return {cost.channelsFirst, cost.channelsLast, enter, leave};
  }
  int64_t kTiles = tiles(c * kernel, lanes);
  int64_t epilogue = integerEpilogue(op);
  return {m * (kTiles + tiles(epilogue, kCyclesPerPlaneRow)) *
              tiles(positions, lanes),
          positions * (kTiles + tiles(epilogue, kCyclesPerPlaneRow)) *
              tiles(m, lanes),
          enter, leave};
}

/// Whether `operand` of an elementwise op whose result is `type` reads the
/// same way channels-last as channels-first: a single element, or one
/// value per channel ([1, C, 1, 1], a squeeze-and-excitation scale), which
/// is reshaped, not transposed.
bool isChannelBroadcast(Type operand, Type type) {
  auto operandType = cast<RankedTensorType>(operand);
  auto resultType = cast<RankedTensorType>(type);
  if (operandType.getNumElements() == 1)
    return true;
  if (resultType.getRank() != 4 || operandType.getRank() > 4 ||
      operandType.getRank() < 3)
    return false;
  // Aligned at the last dimension, as ONNX broadcasts: [C, 1, 1] (a
  // ConvNeXt layer scale) or [1, C, 1, 1].
  int64_t lead = 4 - operandType.getRank();
  for (int64_t d = lead; d < 4; ++d)
    if (operandType.getDimSize(d - lead) !=
        (d == 1 ? resultType.getDimSize(1) : int64_t(1)))
      return false;
  return true;
}

/// Ops that take a map channels-last as well as channels-first: the
/// elementwise ops the transposes move through (SinkThroughOneOperand,
/// SinkThroughBinary), of one operand, or of two of the result's shape (or
/// one that broadcasts per channel or is a single element).
bool isLayoutFree(Operation *op) {
  if (isa<ReluOp, SigmoidOp, TanhOp, CastOp>(op))
    return true;
  // A quantisation of one scale and zero point (those of
  // hetc-hgraph-fuse-quantized's integer convolutions).
  auto single = [](Value v) {
    return !v || cast<ShapedType>(v.getType()).getNumElements() == 1;
  };
  if (auto q = dyn_cast<QuantizeLinearOp>(op))
    return single(q.getScale()) && single(q.getZeroPoint());
  if (auto dq = dyn_cast<DequantizeLinearOp>(op))
    return single(dq.getScale()) && single(dq.getZeroPoint());
  if (!isa<AddOp, SubOp, MulOp, DivOp, MinOp, MaxOp>(op))
    return false;
  Type type = op->getResult(0).getType();
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return operand.getType() == type ||
           isChannelBroadcast(operand.getType(), type);
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

/// A flow network solved for its minimum cut (Edmonds-Karp): node 0 is the
/// source, node 1 the sink. The graphs here have a node per convolution of
/// a model (tens to a few hundred), so a dense matrix of capacities is
/// fine.
class MinCut {
public:
  explicit MinCut(size_t nodes)
      : n(nodes), capacity(nodes * nodes, 0) {}

  void add(size_t from, size_t to, int64_t c) {
    capacity[from * n + to] += c;
  }

  /// The nodes on the source's side of a minimum cut.
  llvm::BitVector sourceSide() {
    SmallVector<size_t> parent(n);
    while (true) {
      llvm::BitVector reached = reachable(&parent);
      if (!reached.test(1))
        return reached;
      int64_t push = std::numeric_limits<int64_t>::max();
      for (size_t v = 1; v != 0; v = parent[v])
        push = std::min(push, capacity[parent[v] * n + v]);
      for (size_t v = 1; v != 0; v = parent[v]) {
        capacity[parent[v] * n + v] -= push;
        capacity[v * n + parent[v]] += push;
      }
    }
  }

private:
  /// The nodes the source reaches through edges with capacity left,
  /// breadth first; `parent` gets the path to each.
  llvm::BitVector reachable(SmallVectorImpl<size_t> *parent) const {
    llvm::BitVector reached(n);
    std::deque<size_t> queue{0};
    reached.set(0);
    while (!queue.empty()) {
      size_t u = queue.front();
      queue.pop_front();
      for (size_t v = 0; v < n; ++v)
        if (!reached.test(v) && capacity[u * n + v] > 0) {
          reached.set(v);
          (*parent)[v] = u;
          queue.push_back(v);
        }
    }
    return reached;
  }

  size_t n;
  std::vector<int64_t> capacity;
};

/// Whether `op` is a transpose by `perm`.
bool isTransposeBy(Operation *op, ArrayRef<int64_t> perm) {
  auto t = dyn_cast_if_present<TransposeOp>(op);
  return t && t.getPerm() == perm;
}

/// The rows a plane transpose streams to produce a 4-D map of `type`
/// (one per row of its result): [1, C, H, W] is held as C rows of H·W,
/// [1, H, W, C] as H·W rows of C. What a transpose costs, as `enter` and
/// `leave` count it.
int64_t transposeRows(Type type, bool toChannelsLast, int64_t lanes) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(type).getShape();
  return toChannelsLast
             ? shape[1] * shape[2] * tiles(shape[3], lanes)
             : shape[1] * tiles(shape[2] * shape[3], lanes);
}

/// The convolutions to take channels-last: the labelling of every
/// candidate as channels-first or channels-last that costs the fewest
/// plane rows, its own and those of the transposes it puts between maps,
/// found as a minimum cut. Candidates connect where one's result reaches
/// another's input through layout-free ops; there a transpose is paid
/// when they differ. A transpose in is paid too where a map other than a
/// candidate's reaches a channels-last one's input, and one out where a
/// reader other than a candidate, a layout-free op or a global pool takes
/// its result. Two producers whose maps meet in the ops above a
/// convolution (a residual add of a block's last convolution and its
/// shortcut) are joined too: where they differ, the channels-last one is
/// taken back to channels-first. The model's own transposes between the two
/// layouts (a ConvNeXt block's permutes around its LayerNorm) are nodes too:
/// one costs its rows where it stays, and vanishes against a convolution's
/// transpose where the map on its channels-first side is channels-last.
llvm::DenseSet<Operation *> chooseChannelsLast(func::FuncOp func,
                                               const chip::ChipSpec &chip) {
  int64_t lanes = chip.lanes();
  SmallVector<ConvOp> convs;
  SmallVector<ConvCost> costs;
  SmallVector<TransposeOp> transposes;
  func.walk([&](Operation *op) {
    if (auto conv = dyn_cast<ConvOp>(op); conv && isCandidate(conv)) {
      convs.push_back(conv);
      costs.push_back(convCost(conv, chip));
    } else if (isTransposeBy(op, kToChannelsLast) ||
               isTransposeBy(op, kToChannelsFirst)) {
      transposes.push_back(cast<TransposeOp>(op));
    }
  });
  if (convs.empty())
    return {};
  llvm::DenseMap<Operation *, size_t> index;
  for (auto [i, op] : llvm::enumerate(convs))
    index[op] = i;
  for (auto [i, op] : llvm::enumerate(transposes))
    index[op] = convs.size() + i;
  // Source side: channels-first; sink side: channels-last. The edge from
  // the source to a node is cut when it goes channels-last, the edge to
  // the sink when it stays. A transpose of the model is channels-last
  // when the map on its channels-first side is (so that it cancels).
  constexpr size_t source = 0, sink = 1;
  MinCut graph(convs.size() + transposes.size() + 2);
  auto node = [](size_t i) { return i + 2; };
  // Pairs of producers already joined.
  std::set<std::pair<size_t, size_t>> joined;
  for (auto [t, op] : llvm::enumerate(transposes))
    graph.add(node(convs.size() + t), sink,
              kTransposeWeight *
                  transposeRows(op.getType(),
                                isTransposeBy(op, kToChannelsLast), lanes));
  for (auto [i, op] : llvm::enumerate(convs)) {
    const ConvCost &cost = costs[i];
    int64_t asLast = cost.channelsLast, asFirst = cost.channelsFirst;
    // Backwards from its input through layout-free ops: the candidates
    // and transposes to channels-first whose results it reads, and
    // whether any other map reaches it.
    bool enters = false;
    // The candidates and transposes found, with the rows of a transpose of
    // their result back to channels-first.
    SmallVector<std::pair<size_t, int64_t>> producers;
    SmallVector<Value> work{op.getInput()};
    llvm::DenseSet<Value> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      Operation *def = v.getDefiningOp();
      if (auto conv = dyn_cast_if_present<ConvOp>(def);
          conv && index.count(conv)) {
        size_t j = index[conv];
        // j channels-first, i channels-last: a transpose into i; the other
        // way round, one out of j.
        graph.add(node(j), node(i), kTransposeWeight * cost.enter);
        graph.add(node(i), node(j), kTransposeWeight * costs[j].leave);
        producers.push_back({j, costs[j].leave});
      } else if (isTransposeBy(def, kToChannelsFirst)) {
        // The transpose stays (channels-first) and i is channels-last: a
        // transpose into i; i stays and the transpose would cancel: it
        // is paid after all.
        size_t j = index[def];
        int64_t rows = transposeRows(v.getType(), false, lanes);
        graph.add(node(j), node(i), kTransposeWeight * cost.enter);
        graph.add(node(i), node(j), kTransposeWeight * rows);
        producers.push_back({j, rows});
      } else if (def && isLayoutFree(def)) {
        Type type = def->getResult(0).getType();
        for (Value operand : def->getOperands())
          if (operand.getType() == type)
            work.push_back(operand);
      } else {
        enters = true;
      }
    }
    // Producers that meet in the ops above (a residual add of a block's
    // last convolution and its shortcut): where they differ, the
    // channels-last one is taken back to channels-first to meet the other.
    for (auto [a, first] : llvm::enumerate(producers))
      for (const auto &second : ArrayRef(producers).drop_front(a + 1))
        if (joined.insert({std::min(first.first, second.first),
                           std::max(first.first, second.first)})
                .second) {
          graph.add(node(first.first), node(second.first),
                    kTransposeWeight * second.second);
          graph.add(node(second.first), node(first.first),
                    kTransposeWeight * first.second);
        }
    // Forwards from its result: the transposes to channels-last that read
    // it, and whether a reader other than a candidate, a layout-free op,
    // a global pool or such a transpose takes it.
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
        if (isTransposeBy(user, kToChannelsLast)) {
          size_t j = index[user];
          graph.add(node(j), node(i), kTransposeWeight * cost.leave);
          graph.add(node(i), node(j),
                    kTransposeWeight *
                        transposeRows(user->getResult(0).getType(), true,
                                      lanes));
        } else if (isLayoutFree(user) &&
                   user->getResult(0).getType() == v.getType()) {
          forward.push_back(user->getResult(0));
        } else if (!isGlobalPool(user)) {
          leaves = true;
        }
      }
    }
    asLast += kTransposeWeight *
              ((enters ? cost.enter : 0) + (leaves ? cost.leave : 0));
    graph.add(source, node(i), asLast);
    graph.add(node(i), sink, asFirst);
  }
  llvm::BitVector first = graph.sourceSide();
  llvm::DenseSet<Operation *> chosen;
  for (auto [i, op] : llvm::enumerate(convs))
    if (!first.test(node(i)))
      chosen.insert(op);
  return chosen;
}

/// The maps a convolution's kernel elements meet, channels-last: its
/// input transposed to [1, H, W, C] and padded (made by the constructor),
/// then per kernel element the [1, H', W', C] slice it meets at every
/// output position (made by `tap`, where the rewriter is, so that a
/// depthwise convolution's slices live one at a time). A strided 1 x 1
/// convolution without padding takes its positions before the transpose,
/// so that the transpose moves no more.
class ChannelsLastTaps {
public:
  ChannelsLastTaps(PatternRewriter &rewriter, ConvOp op)
      : rewriter(rewriter), loc(op.getLoc()), strides(op.getStrides()),
        dilations(op.getDilations()) {
    auto xType = cast<RankedTensorType>(op.getInput().getType());
    auto wType = cast<RankedTensorType>(op.getWeight().getType());
    auto yType = cast<RankedTensorType>(op.getType());
    Type element = xType.getElementType();
    int64_t c = xType.getDimSize(1), h = xType.getDimSize(2),
            w = xType.getDimSize(3);
    kh = wType.getDimSize(2);
    kw = wType.getDimSize(3);
    int64_t ho = yType.getDimSize(2), wo = yType.getDimSize(3);
    ArrayRef<int64_t> pads = op.getPads();
    Value x = op.getInput();
    bool unpadded = llvm::all_of(pads, [](int64_t p) { return p == 0; });
    if (kh == 1 && kw == 1 && unpadded && (h != ho || w != wo)) {
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
    padded = x;
    whole = hp == ho && wp == wo;
    tapType = shaped({1, ho, wo, c}, element);
  }

  int64_t count() const { return kh * kw; }

  /// The slice kernel element `t` (row by row) meets.
  Value tap(int64_t t) const {
    if (whole)
      return padded;
    int64_t i = t / kw, j = t % kw;
    return SliceOp::create(
        rewriter, loc, tapType, padded,
        rewriter.getDenseI64ArrayAttr(
            {0, i * dilations[0], j * dilations[1], 0}),
        rewriter.getDenseI64ArrayAttr({1, strides[0], strides[1], 1}));
  }

private:
  PatternRewriter &rewriter;
  Location loc;
  ArrayRef<int64_t> strides, dilations;
  int64_t kh, kw;
  Value padded;
  bool whole;
  RankedTensorType tapType;
};

/// A pattern on the convolutions chooseChannelsLast took.
struct ChosenConvPattern : OpRewritePattern<ConvOp> {
  ChosenConvPattern(MLIRContext *context,
                    const llvm::DenseSet<Operation *> &chosen)
      : OpRewritePattern(context), chosen(chosen) {}
  const llvm::DenseSet<Operation *> &chosen;
};

/// A dense convolution chosen by chooseChannelsLast, rewritten
/// channels-last: its taps side by side along the channels
/// ([positions, kh·kw·C] windows) times the weight as [kh·kw·C, M].
struct ConvToChannelsLast : ChosenConvPattern {
  using ChosenConvPattern::ChosenConvPattern;

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    if (!chosen.count(op) || !isDense(op))
      return rewriter.notifyMatchFailure(op, "not chosen");
    auto xType = cast<RankedTensorType>(op.getInput().getType());
    auto wType = cast<RankedTensorType>(op.getWeight().getType());
    auto yType = cast<RankedTensorType>(op.getType());
    Type element = xType.getElementType();
    int64_t c = xType.getDimSize(1);
    int64_t m = wType.getDimSize(0), kh = wType.getDimSize(2),
            kw = wType.getDimSize(3);
    int64_t ho = yType.getDimSize(2), wo = yType.getDimSize(3);
    int64_t positions = ho * wo, k = c * kh * kw;
    Location loc = op.getLoc();
    ChannelsLastTaps windowTaps(rewriter, op);
    SmallVector<Value> taps;
    for (int64_t t = 0; t < windowTaps.count(); ++t)
      taps.push_back(windowTaps.tap(t));
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
    Type weightElement = wType.getElementType();
    Value weight = TransposeOp::create(
        rewriter, loc, shaped({kh, kw, c, m}, weightElement), op.getWeight(),
        rewriter.getDenseI64ArrayAttr({2, 3, 1, 0}));
    weight =
        ReshapeOp::create(rewriter, loc, shaped({k, m}, weightElement), weight);
    // An integer convolution's sums are i32, from a matmul_integer.
    Type sums = yType.getElementType();
    auto rowsType = shaped({positions, m}, sums);
    Value y = isInteger(op)
                  ? MatMulIntegerOp::create(rewriter, loc, rowsType, windows,
                                            weight, Value(), Value())
                        .getResult()
                  : MatMulOp::create(rewriter, loc, rowsType, windows, weight)
                        .getResult();
    if (Value bias = op.getBias())
      y = AddOp::create(rewriter, loc, rowsType, y, bias);
    y = ReshapeOp::create(rewriter, loc, shaped({1, ho, wo, m}, sums), y);
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, yType, y, rewriter.getDenseI64ArrayAttr(kToChannelsFirst));
    return success();
  }
};

/// A depthwise convolution chosen by chooseChannelsLast, rewritten
/// channels-last: the map transposed to [1, H, W, C], one
/// depthwise_conv_nhwc with the weights as a row of channels per kernel
/// element ([kh, kw, C]) and the bias as it is, and the result transposed
/// back.
struct DepthwiseToChannelsLast : ChosenConvPattern {
  using ChosenConvPattern::ChosenConvPattern;

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr weight;
    if (!chosen.count(op) || !isDepthwise(op) ||
        !matchPattern(op.getWeight(), m_Constant(&weight)))
      return rewriter.notifyMatchFailure(op, "not chosen");
    auto xType = cast<RankedTensorType>(op.getInput().getType());
    auto wType = cast<RankedTensorType>(op.getWeight().getType());
    auto yType = cast<RankedTensorType>(op.getType());
    Type element = yType.getElementType();
    int64_t c = yType.getDimSize(1), kh = wType.getDimSize(2),
            kw = wType.getDimSize(3), kernel = kh * kw;
    Location loc = op.getLoc();
    // weight[ch][0][t] (t in kernel order) to rows[t][ch].
    SmallVector<float> values(weight.getValues<float>());
    SmallVector<float> rows(size_t(kernel * c));
    for (int64_t t = 0; t < kernel; ++t)
      for (int64_t ch = 0; ch < c; ++ch)
        rows[t * c + ch] = values[ch * kernel + t];
    Value weightRows = ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(shaped({kh, kw, c}, element), ArrayRef(rows)));
    Value input = TransposeOp::create(
        rewriter, loc,
        shaped({1, xType.getDimSize(2), xType.getDimSize(3), c}, element),
        op.getInput(), rewriter.getDenseI64ArrayAttr(kToChannelsLast));
    Value sum = DepthwiseConvNhwcOp::create(
        rewriter, loc,
        shaped({1, yType.getDimSize(2), yType.getDimSize(3), c}, element),
        input, weightRows, op.getBias(), op.getStridesAttr(),
        op.getPadsAttr(), op.getDilationsAttr());
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, yType, sum, rewriter.getDenseI64ArrayAttr(kToChannelsFirst));
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

/// op(transpose(x), ...) -> transpose(op(x, ...)) for the elementwise ops
/// of one operand (a ReLU, a cast) or whose other operands are single
/// values (a quantisation of one scale): the op cloned onto the
/// transpose's input.
template <typename Op>
struct SinkThroughOneOperand : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    TransposeOp t = sinkableTranspose(op->getOperand(0));
    if (!t || !isLayoutFree(op))
      return failure();
    auto type = cast<RankedTensorType>(op.getType());
    Operation *inner = rewriter.clone(*op.getOperation());
    inner->setOperand(0, t.getInput());
    inner->getResult(0).setType(beforeTranspose(type, t.getPerm()));
    return moveAfter(rewriter, op, t, inner->getResult(0));
  }
};

/// `side`, an operand that broadcasts against a result transposed by
/// `perm`, as the operand of the same op before the transpose: itself if
/// its shape is all ones (or of rank 0), reshaped if its other dimensions
/// keep their order under `perm` (a [1, C, 1, 1] or [C, 1, 1] scale is
/// [1, 1, 1, C] channels-last); null otherwise.
Value broadcastBefore(PatternRewriter &rewriter, Location loc, Value side,
                      ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(side.getType());
  if (type.getRank() == 0)
    return side;
  if (type.getRank() > int64_t(perm.size()))
    return Value();
  // Of lower rank, it broadcasts as if with leading ones.
  if (type.getRank() < int64_t(perm.size())) {
    SmallVector<int64_t> shape(perm.size() - type.getRank(), 1);
    llvm::append_range(shape, type.getShape());
    type = type.clone(shape);
  }
  RankedTensorType before = beforeTranspose(type, perm);
  if (before == type)
    return side;
  auto nonUnit = [](ArrayRef<int64_t> shape) {
    SmallVector<int64_t> dims;
    llvm::copy_if(shape, std::back_inserter(dims),
                  [](int64_t d) { return d != 1; });
    return dims;
  };
  if (nonUnit(type.getShape()) != nonUnit(before.getShape()))
    return Value();
  return ReshapeOp::create(rewriter, loc, before, side);
}

/// A transpose of `v` by the inverse of `perm` that is already there
/// before `op` (a block's input taken channels-last for its first
/// convolution, read again by its residual add); null if there is none.
Value inverseTransposeOf(Value v, ArrayRef<int64_t> perm, Operation *op) {
  SmallVector<int64_t> inverse(perm.size());
  for (auto [d, from] : llvm::enumerate(perm))
    inverse[from] = int64_t(d);
  for (Operation *user : v.getUsers())
    if (auto t = dyn_cast<TransposeOp>(user);
        t && t.getPerm() == ArrayRef<int64_t>(inverse) &&
        t->getBlock() == op->getBlock() && t->isBeforeInBlock(op))
      return t.getResult();
  return Value();
}

/// binary(transpose(a, p), transpose(b, p)) -> transpose(binary(a, b), p),
/// one of them of the result's shape, the other of it too or broadcasting
/// against it; or with the other side not transposed but broadcasting the
/// same way after the transpose (broadcastBefore).
template <typename Op>
struct SinkThroughBinary : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value lhs = op.getLhs(), rhs = op.getRhs();
    TransposeOp a = sinkableTranspose(lhs), b = sinkableTranspose(rhs);
    TransposeOp t = a && lhs.getType() == Type(type)   ? a
                    : b && rhs.getType() == Type(type) ? b
                                                       : TransposeOp();
    if (!t)
      return failure();
    ArrayRef<int64_t> perm = t.getPerm();
    auto inputOf = [&](Value side, TransposeOp sideT) -> Value {
      if (sideT && sideT.getPerm() == perm)
        return sideT.getInput();
      if (side.getType() == Type(type))
        return inverseTransposeOf(side, perm, op);
      return broadcastBefore(rewriter, op.getLoc(), side, perm);
    };
    Value x = inputOf(lhs, a);
    if (!x)
      return failure();
    Value y = inputOf(rhs, b);
    if (!y)
      return failure();
    return moveAfter(rewriter, op, t,
                     Op::create(rewriter, op.getLoc(),
                                beforeTranspose(type, perm), x, y));
  }
};

/// A transpose that moves only dimensions of size one is a reshape (a
/// view): the squeeze-and-excitation scales of a channels-last stage.
struct UnitTransposeToReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    SmallVector<int64_t> kept;
    for (int64_t d : op.getPerm())
      if (type.getDimSize(d) != 1)
        kept.push_back(d);
    if (!llvm::is_sorted(kept))
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
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

/// reshape(reshape(x)) -> reshape(x): the reshapes of the
/// squeeze-and-excitation scales and of the products of one position,
/// left in chains by the rewrites above.
struct ComposeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    if (inner.getInput().getType() == op.getType())
      rewriter.replaceOp(op, inner.getInput());
    else
      rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(),
                                             inner.getInput());
    return success();
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
        chooseChannelsLast(func, *spec);
    if (chosen.empty())
      return;
    patterns.add<ConvToChannelsLast, DepthwiseToChannelsLast>(context, chosen);
    patterns.add<ComposeTransposes, ComposeReshapes, PoolChannelsLast,
                 SinkThroughSlice,
                 UnitTransposeToReshape, SinkThroughBinary<MinOp>,
                 SinkThroughBinary<MaxOp>,
                 SinkThroughOneOperand<ReluOp>,
                 SinkThroughOneOperand<SigmoidOp>,
                 SinkThroughOneOperand<TanhOp>, SinkThroughBinary<AddOp>,
                 SinkThroughBinary<SubOp>, SinkThroughBinary<MulOp>,
                 SinkThroughBinary<DivOp>, SinkThroughOneOperand<CastOp>,
                 SinkThroughOneOperand<QuantizeLinearOp>,
                 SinkThroughOneOperand<DequantizeLinearOp>>(context);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
