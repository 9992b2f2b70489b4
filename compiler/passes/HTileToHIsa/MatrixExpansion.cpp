//===- MatrixExpansion.cpp - Matrix htile kernels to hisa ---------------===//
//
// htile.matmul (weight tiles installed row by row in the planes, or column
// by column for a transposed weight, K tiles summed over plane groups or
// taken one at a time, partial sums accumulated through the output; int8
// weights converted on their way to the planes) and htile.transpose (whole rows
// moved, or tiles transposed on a plane by multiplying unit vectors).
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HTileToHIsa/Expansion.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::expansion;

namespace {

/// The least ratio of a tile's matmul cycles to its weight rows at which
/// a matmul takes its K tiles in rounds of plane groups.
constexpr int64_t kComputeToInstall = 4;

/// The instructions a lone K tile (not in a group) takes per input row:
/// the row's read, the matmul, and the partial sum's read, add and write.
constexpr int64_t kLoneRowInstructions = 5;

/// The most weight rows one train installs. Trains take their bank, stream
/// group and install slot for as many cycles as they have rows; short ones
/// fit between other work, long ones need fewer instructions. At 8 rows a
/// read and a load train install a plane's 4 rows a cycle with one
/// dispatch a cycle of the 16 tsp-v1 has. Measured on tsp-v1 (4, 8, 16
/// rows): the GPT-2-style fp16 step of hidden 1024 took 24,027, 24,179 and
/// 24,641 cycles, the roofline's decode layer 5,581, 5,598 and 5,660.
constexpr int64_t kTrainRows = 8;

/// Loads `row`, `row + rowStep`, ... of a tile (WeightTiles::at) made by
/// one read train from SRAM `word` on, `wordStep` words apart.
struct InstallTrain {
  int64_t word, row, count;
  int64_t wordStep = 0, rowStep = 0;
};

/// K tiles [first, first + count) of output column tile `jn`, for the
/// input rows [rowBegin, rowEnd): what one plane group (or one plane) of a
/// matmul computes in one go.
struct Work {
  int64_t jn, first, count;
  int64_t rowBegin = 0, rowEnd = 0;
};

/// A matmul's weight as the planes take it: K x N in tiles of lanes x
/// lanes, each installed one vector per plane row, or, for a transposed
/// weight (held N x K), one vector per plane column. An interleaved weight
/// (htile.matmul's `interleave` p) holds p rows of a tile in each SRAM
/// row, installed by one load of p parts.
struct WeightTiles {
  Tensor tensor;
  bool transposed;
  int64_t k, n, lanes;
  int64_t interleave = 1;

  /// The SRAM word of the vector (the first of the row's p) that load `i`
  /// of the tile of K tile `jk` and N tile `jn` installs, as row (column)
  /// `i * interleave` onwards.
  int64_t at(int64_t jk, int64_t jn, int64_t i) const {
    if (transposed)
      return tensor.at(jn * lanes + i, jk);
    return tensor.at((jk * lanes) / interleave + i, jn * interleave);
  }
  /// How many loads install that tile's rows (columns) that hold weights.
  int64_t installed(int64_t jk, int64_t jn) const {
    int64_t rows = transposed ? std::min(lanes, n - jn * lanes)
                              : std::min(lanes, k - jk * lanes);
    return llvm::divideCeil(rows, interleave);
  }
};

class MatrixExpander : public InstructionBuilder {
public:
  using InstructionBuilder::InstructionBuilder;
  LogicalResult expandMatMul(htile::MatMulOp op);
  SmallVector<SmallVector<uint32_t>> planeGroups() const;
  SmallVector<InstallTrain> installTrains(const WeightTiles &weight, int64_t jk,
                                          int64_t jn, int64_t trainRows) const;
  bool trainsPay(int64_t installed, int64_t rows, Type type) const;
  SmallVector<Work> workOrder(const WeightTiles &weight, int64_t kTiles,
                              int64_t nTiles, int64_t groupSize,
                              size_t together) const;
  LogicalResult expandTranspose(htile::TransposeOp op);
};

} // namespace

/// The planes of each side of the vector unit, in groups of as many as the
/// smaller side has (of the larger side's, when the smaller has one or
/// none), alternating between the sides; none when no side has two planes.
SmallVector<SmallVector<uint32_t>> MatrixExpander::planeGroups() const {
  SmallVector<uint32_t> west, east;
  for (uint32_t p = 0; p < chip.proto().matrix().planes(); ++p)
    (chip.planePosition(p) < chip.vectorPosition() ? west : east).push_back(p);
  size_t size = std::min(west.size(), east.size());
  if (size < 2)
    size = std::max(west.size(), east.size());
  SmallVector<SmallVector<uint32_t>> sides[2];
  const SmallVector<uint32_t> *planes[2] = {&west, &east};
  for (int side = 0; side < 2; ++side)
    for (size_t i = 0; size >= 2 && i + size <= planes[side]->size(); i += size)
      sides[side].emplace_back(planes[side]->begin() + i,
                               planes[side]->begin() + i + size);
  SmallVector<SmallVector<uint32_t>> groups;
  for (size_t i = 0; i < std::max(sides[0].size(), sides[1].size()); ++i)
    for (auto &side : sides)
      if (i < side.size())
        groups.push_back(side[i]);
  return groups;
}

/// Whether a weight tile of `installed` loads (rows, or SRAM rows of an
/// interleaved weight), multiplied by `rows` input rows of `type`, is
/// installed by trains. Load by load, installing it takes two of the
/// dispatcher's instructions a load, over the time the tile
/// spends on its plane (installing, or multiplying if that takes longer).
/// Where every plane doing so would want more than the dispatcher has, the
/// dispatcher, not the planes, would set the pace: trains then. Else rows
/// one at a time fit between the other planes' reads of the same banks
/// better than trains do: trains everywhere took ViT-B/16 at fp16 (197
/// rows, a tile on its plane for 788 cycles) from 661,731 to 671,446
/// cycles, MobileNetV2 (depthwise taps, tiles of 10 rows by one) from
/// 220,586 to 222,687 and EfficientNet-B0 (taps of 26 rows) from 398,327
/// to 403,461; with this rule they keep their cycles.
bool MatrixExpander::trainsPay(int64_t installed, int64_t rows,
                               Type type) const {
  // A tile of fewer rows than two full trains for each of the plane's
  // install slots (64 on tsp-v1) goes in row by row: the depthwise taps of
  // ConvNeXt-T (50 rows) took it from 1,641,068 to 1,650,341 cycles by
  // trains, while the decode layer's attention (128 rows of the cache a
  // tile) takes 5,833 cycles row by row and 5,598 by trains.
  if (installed < 2 * kTrainRows * int64_t(chip.installRows()))
    return false;
  int64_t install = llvm::divideCeil(installed, int64_t(chip.installRows()));
  int64_t onPlane = std::max(
      install, rows * int64_t(chip.matmulCycles(type.getIntOrFloatBitWidth())));
  int64_t planes = chip.proto().matrix().planes();
  return planes * 2 * installed >
         onPlane * int64_t(chip.proto().dispatch().per_cycle());
}

/// The trains that install the weight tile of K tile `jk` and N tile `jn`:
/// its rows grouped by the bank (and part of a row) that holds them, each
/// group cut into runs of evenly spaced rows of evenly spaced vectors, at
/// most `trainRows` long (1: a row at a time). A train reads one bank a row a
/// cycle. They come round-robin over the groups, so that trains next to each
/// other in program order read different banks and run side by side.
SmallVector<InstallTrain>
MatrixExpander::installTrains(const WeightTiles &weight, int64_t jk, int64_t jn,
                              int64_t trainRows) const {
  llvm::MapVector<std::tuple<uint32_t, uint32_t, int64_t>,
                  SmallVector<InstallTrain>>
      groups;
  size_t longest = 0;
  for (int64_t i = 0; i < weight.installed(jk, jn); ++i) {
    int64_t word = weight.at(jk, jn, i);
    uint64_t row = uint64_t(word / 4);
    SmallVector<InstallTrain> &trains =
        groups[{chip.sliceOf(row), chip.bankOf(row), word % 4}];
    if (!trains.empty()) {
      InstallTrain &train = trains.back();
      int64_t lastWord = train.word + (train.count - 1) * train.wordStep;
      int64_t lastRow = train.row + (train.count - 1) * train.rowStep;
      if (train.count < trainRows &&
          (train.count == 1 || (word - lastWord == train.wordStep &&
                                i - lastRow == train.rowStep))) {
        train.wordStep = word - lastWord;
        train.rowStep = i - lastRow;
        ++train.count;
        continue;
      }
    }
    trains.push_back(InstallTrain{word, i, 1});
    longest = std::max(longest, trains.size());
  }
  SmallVector<InstallTrain> order;
  for (size_t k = 0; k < longest; ++k)
    for (auto &entry : groups)
      if (k < entry.second.size())
        order.push_back(entry.second[k]);
  return order;
}

/// The matmul's work, K tiles in groups of `groupSize` per output column
/// tile, in the order the planes take it: each column tile's K tiles in
/// turn (the partial sums pass through the output in that order), and
/// column tiles interleaved so that of any `together` consecutive pieces,
/// which install their weights at the same time, as few as can be read
/// their first weight row from one bank. A weight whose SRAM rows per k
/// are even holds all rows of a column tile in one bank of a slice: taken
/// column by column, the planes would install from it one row a cycle
/// between them.
SmallVector<Work> MatrixExpander::workOrder(const WeightTiles &weight,
                                            int64_t kTiles, int64_t nTiles,
                                            int64_t groupSize,
                                            size_t together) const {
  auto bank = [&](const Work &work) {
    uint64_t row = uint64_t(weight.at(work.first, work.jn, 0) / 4);
    return std::make_pair(chip.sliceOf(row), chip.bankOf(row));
  };
  SmallVector<int64_t> next(nTiles, 0);
  SmallVector<Work> order;
  int64_t remaining = nTiles;
  while (remaining > 0) {
    std::optional<Work> pick, fallback;
    // From the column tile after the last one taken: a column tile's K
    // tiles wait for each other (their partial sums), so taking them one
    // after the other would make one chain of the whole matmul.
    int64_t from = order.empty() ? 0 : order.back().jn + 1;
    for (int64_t i = 0; i < nTiles && !pick; ++i) {
      int64_t jn = (from + i) % nTiles;
      if (next[jn] >= kTiles)
        continue;
      Work work{jn, next[jn], std::min(groupSize, kTiles - next[jn])};
      if (!fallback)
        fallback = work;
      size_t recent = std::min(order.size(), together - 1);
      if (llvm::none_of(
              ArrayRef<Work>(order).take_back(recent),
              [&](const Work &other) { return bank(other) == bank(work); }))
        pick = work;
    }
    Work work = pick ? *pick : *fallback;
    order.push_back(work);
    next[work.jn] += work.count;
    if (next[work.jn] >= kTiles)
      --remaining;
  }
  return order;
}

LogicalResult MatrixExpander::expandMatMul(htile::MatMulOp op) {
  if (std::optional<ArrayRef<int64_t>> tile = op.getTile())
    if ((*tile)[1] != int64_t(lanes) || (*tile)[2] != int64_t(lanes) ||
        (*tile)[0] != 1)
      return op.emitError("tile [")
             << (*tile)[0] << ", " << (*tile)[1] << ", " << (*tile)[2]
             << "] does not match chip '" << chip.name() << "' (expected [1, "
             << lanes << ", " << lanes << "])";
  Location loc = op.getLoc();
  Tensor x = tensor(op.getInput()), out = tensor(op.getOutput());
  bool transposed = op.getTransposed();
  WeightTiles w{
      tensor(op.getWeight()), transposed,
      x.layout.cols,          out.layout.cols,
      int64_t(lanes),         int64_t(op.getInterleave().value_or(1))};
  std::optional<Tensor> bias, scale;
  if (op.getBias())
    bias = tensor(op.getBias());
  if (op.getScale())
    scale = tensor(op.getScale());
  int64_t kTiles = x.layout.vectorsPerRow;
  // Products of f16 and bf16 inputs accumulate in f32 and of i8 and ui8 in
  // i32 on the plane; partial sums over K tiles stay in that type in the
  // output buffer, which is therefore of that type when K spans several
  // tiles (SRAM holds each type at its width; the lowering gives a
  // narrower output an f32 buffer and a cast), and the last K tile
  // converts the result to the output's type.
  Type type = elementOf(op.getInput()), outType = elementOf(op.getOutput());
  Type weightType = elementOf(op.getWeight());
  // An i8 weight of a float matmul is converted to the input's type on
  // its way to the plane (exact: f16 and bf16 hold every int8 value).
  bool convertWeights = weightType != type && hisa::isFloatLane(type);
  Type acc = hisa::isFloatLane(type) ? f32() : Type(b.getI32Type());
  std::optional<hisa::VUnaryKind> activation =
      htile::activationKind(op.getActivation());

  /// A piece of work on `planes`, one K tile per plane.
  struct Group {
    Work work;
    SmallVector<uint32_t> planes;
  };
  // K tiles go to the planes in groups, one tile per plane of a group, and
  // a group's products of one input row are summed on the vector unit
  // before they meet the partial sum of the earlier groups, which passes
  // through the output buffer. A group's planes lie on one side of the
  // vector unit: the products of a row must reach it together, which ties
  // the cycles of the reads of their input vectors, and planes on one side
  // tie reads of one slice an even, non-zero number of hops apart, never
  // into one cycle (on opposite sides they can be, and then conflict on a
  // bank). Groups alternate between the sides, across kernels. A chip
  // with no side of two planes, and a lone K tile, take the next plane,
  // round-robin.
  //
  // A round is as many groups as the chip has (every plane once), each
  // with a piece of work (workOrder): its weights are installed, then each
  // input row goes through all of its groups in turn. Program order thus
  // follows time order, row by row, which the dispatcher needs (it places
  // instructions in program order, a bounded queue ahead of their issue): a
  // group that ran a whole tile ahead of the next would hold back every
  // instruction after it.
  //
  // Rounds pay off when a tile's products outlast `lanes` cycles by
  // kComputeToInstall or more (measured on tsp-v1: the two orders break
  // even at about four times). Below that a matmul is bound by installing
  // weights, and one tile at a time, round-robin, lets one plane install
  // while the others multiply. The threshold stays at `lanes` cycles, not
  // at the install's (`lanes / install_rows`): with four rows a cycle,
  // four times the faster install put ViT-B/16's fp16 matmuls in rounds
  // and took 924,501 cycles against 851,832.
  //
  // They also pay off, from `lanes` cycles of products a tile, where one
  // tile at a time would want more of the dispatcher than it has: every
  // plane multiplying a row each `matmulCycles` takes kLoneRowInstructions
  // a row, and a group sums its products before one partial-sum trip. On
  // tsp-v1 that is int8 (a row a cycle on four planes: 20 instructions a
  // cycle for the dispatcher's 16): an int8 GEMM of M = 320, K = N = 4096
  // went from 18,502 cycles, bound by the dispatcher, to 15,859.
  SmallVector<SmallVector<uint32_t>> groups = planeGroups();
  int64_t rowCycles = int64_t(chip.matmulCycles(type.getIntOrFloatBitWidth()));
  int64_t compute = x.layout.rows * rowCycles;
  bool dispatchBound =
      int64_t(chip.proto().matrix().planes()) * kLoneRowInstructions >
      int64_t(chip.proto().dispatch().per_cycle()) * rowCycles;
  if (compute < kComputeToInstall * int64_t(lanes) &&
      !(dispatchBound && compute >= int64_t(lanes)))
    groups.clear();
  int64_t groupSize = groups.empty() ? 1 : int64_t(groups.front().size());
  uint32_t planeCount = chip.proto().matrix().planes();
  // A round holds a piece per group, or, where its pieces are all lone K
  // tiles (K of one tile, the last K tiles of N tiles), one per plane.
  size_t perRound = std::max<size_t>(1, groups.size());
  SmallVector<Work> work = workOrder(
      w, kTiles, out.layout.vectorsPerRow, groupSize,
      groups.empty() || kTiles == 1 ? planeCount : perRound);
  auto roundEnd = [&](ArrayRef<Work> pieces, size_t from) {
    size_t end = from;
    bool lone = !groups.empty();
    while (end < pieces.size()) {
      size_t size = end - from;
      lone = lone && pieces[end].count == 1;
      if (size >= perRound && !(lone && size < planeCount))
        break;
      ++end;
    }
    return end;
  };
  int64_t rows = x.layout.rows;
  for (Work &piece : work)
    piece.rowEnd = rows;
  // A last round whose pieces take fewer planes than the chip has would
  // leave planes idle while it runs: its pieces' rows are then split among
  // copies, which install the same weights in planes of their own, as long
  // as a copy's products outlast installing its weights (K tiles of one
  // output column tile still meet its rows in order: copies keep their
  // piece's place). Measured on tsp-v1 in f32: a [1500, 64] x [64, 1500]
  // product (five N tiles) took 52,210 cycles two planes at a time and
  // takes 22,724 with four N tiles in a round and the fifth split four
  // ways; [1500, 1500] x [1500, 64] (five K tiles: two groups, then a
  // lone tile) took 27,362 with the lone tile split two ways and takes
  // 22,898 split four ways.
  size_t last = 0;
  for (size_t from = 0; from < work.size(); from = roundEnd(work, from))
    last = from;
  int64_t lastPlanes = 0;
  for (const Work &piece : ArrayRef<Work>(work).drop_front(last))
    lastPlanes += piece.count;
  if (!groups.empty() && lastPlanes > 0 && lastPlanes < planeCount) {
    // Cycles to install a tile: `lanes` rows, matrix.install_rows loads a
    // cycle of `interleave` rows each.
    int64_t install = llvm::divideCeil(
        int64_t(lanes), int64_t(chip.installRows()) * w.interleave);
    int64_t copies = int64_t(planeCount) / lastPlanes;
    int64_t cycles = int64_t(chip.matmulCycles(type.getIntOrFloatBitWidth()));
    while (copies > 1 && (rows / copies) * cycles < install)
      --copies;
    if (copies > 1) {
      SmallVector<Work> split(work.begin(), work.begin() + last);
      for (const Work &piece : ArrayRef<Work>(work).drop_front(last))
        for (int64_t c = 0; c < copies; ++c) {
          Work copy = piece;
          copy.rowBegin = rows * c / copies;
          copy.rowEnd = rows * (c + 1) / copies;
          split.push_back(copy);
        }
      work = std::move(split);
    }
  }
  for (size_t next = 0; next < work.size();) {
    SmallVector<Group> round;
    // The pieces of a round install their weights side by side: each takes
    // planes no other piece of the round has. A lone K tile takes the next
    // plane, round-robin, and a group the next group, each skipping what
    // the round holds: a lone tile taken before a group could otherwise
    // sit in that group's planes and have its weights overwritten. A round
    // of k lone tiles and perRound - k groups always finds room: the lone
    // tiles take planes of at most k groups; so does a round of lone tiles
    // alone, one per plane.
    llvm::SmallDenseSet<uint32_t> used;
    auto taken = [&](ArrayRef<uint32_t> planes) {
      return llvm::any_of(planes, [&](uint32_t p) { return used.count(p); });
    };
    for (size_t end = roundEnd(work, next); next < end;) {
      const Work &piece = work[next++];
      SmallVector<uint32_t> planes;
      if (groups.empty() || piece.count == 1) {
        planes = {takePlane()};
        for (uint32_t tries = 1; taken(planes) && tries < planeCount; ++tries)
          planes = {takePlane()};
      } else {
        planes = takePlaneGroup(groups, piece.count);
        for (size_t tries = 1; taken(planes) && tries < groups.size(); ++tries)
          planes = takePlaneGroup(groups, piece.count);
      }
      used.insert(planes.begin(), planes.end());
      round.push_back({piece, std::move(planes)});
    }
    // Install each k x n weight tile, a row (a transposed weight's
    // column) per issue of a train of reads and a train of loads (and of
    // conversions), each train from one bank (installTrains), the round's
    // tiles in turn, train by train. Rows past K keep older weights; they
    // meet zero padding lanes of the input. Columns past N of a transposed
    // weight keep older weights too; the results are masked to N's lanes.
    hisa::WeightSlot slot =
        transposed ? hisa::WeightSlot::column : hisa::WeightSlot::row;
    struct Tile {
      uint32_t plane;
      int32_t lanes;
      SmallVector<InstallTrain> trains;
      /// The SRAM word of the tile's first row, and the loads its rows
      /// take.
      int64_t firstWord, installed;
    };
    SmallVector<Tile> tiles;
    size_t most = 0;
    for (const Group &group : round)
      for (int64_t t = 0; t < group.work.count; ++t) {
        int64_t jk = group.work.first + t;
        bool trains = trainsPay(w.installed(jk, group.work.jn),
                                group.work.rowEnd - group.work.rowBegin, type);
        tiles.push_back(
            {group.planes[t], lanesOf(out.layout.cols, group.work.jn),
             installTrains(w, jk, group.work.jn, trains ? kTrainRows : 1),
             w.at(jk, group.work.jn, 0), w.installed(jk, group.work.jn)});
        most = std::max(most, tiles.back().trains.size());
      }
    int64_t width = hisa::sramLaneBytes(weightType);
    for (size_t k = 0; k < most; ++k)
      for (const Tile &tile : tiles) {
        if (k >= tile.trains.size())
          continue;
        const InstallTrain &install = tile.trains[k];
        // The install's train with `step`, or none for a single row.
        auto train = [&](int64_t step) {
          return install.count > 1
                     ? hisa::TrainAttr::get(b.getContext(),
                                            uint32_t(install.count), 1, step)
                     : hisa::TrainAttr();
        };
        int32_t parts = int32_t(w.interleave);
        Value row = read(loc, install.word, weightType,
                         train(install.wordStep / width), parts);
        if (convertWeights)
          row = convert(loc, row, weightType, type, tile.lanes, {}, {},
                        train(0), parts);
        hisa::LoadWeightsOp::create(
            b, loc, row, tile.plane, slot, int32_t(install.row * parts),
            /*buffered=*/true,
            parts > 1 ? b.getI32IntegerAttr(parts) : IntegerAttr(),
            dtype(convertWeights ? type : weightType),
            train(install.rowStep * parts), IntegerAttr());
      }
    // Rows past K meet zero lanes of the input, which cancel whatever
    // finite weights they hold; an integer matmul or transpose leaves
    // words there that are not finite as floats (NaN times zero is NaN).
    // Where the function has one, a float tile's rows past K get copies
    // of its first row, finite as the weights are.
    if (hisa::isFloatLane(type) && !transposed && integerPlanes())
      for (const Tile &tile : tiles) {
        int32_t parts = int32_t(w.interleave);
        int64_t loads = int64_t(lanes) / parts;
        for (int64_t i = tile.installed; i < loads; i += kTrainRows) {
          int64_t count = std::min<int64_t>(kTrainRows, loads - i);
          auto train = [&](int64_t step) {
            return count > 1 ? hisa::TrainAttr::get(b.getContext(),
                                                    uint32_t(count), 1, step)
                             : hisa::TrainAttr();
          };
          Value row = read(loc, tile.firstWord, weightType, train(0), parts);
          if (convertWeights)
            row = convert(loc, row, weightType, type, tile.lanes, {}, {},
                          train(0), parts);
          hisa::LoadWeightsOp::create(
              b, loc, row, tile.plane, slot, int32_t(i * parts),
              /*buffered=*/true,
              parts > 1 ? b.getI32IntegerAttr(parts) : IntegerAttr(),
              dtype(convertWeights ? type : weightType), train(parts),
              IntegerAttr());
        }
      }
    // The tiles went into the planes' weight buffers, while the planes
    // may still multiply by the round before; each now becomes its plane's
    // array.
    for (const Tile &tile : tiles)
      hisa::InstallWeightsOp::create(b, loc, tile.plane, IntegerAttr());
    // Row by row, the groups in turn; the copies of a piece run through
    // their rows side by side.
    int64_t longest = 0;
    for (const Group &group : round)
      longest = std::max(longest, group.work.rowEnd - group.work.rowBegin);
    for (int64_t i = 0; i < longest; ++i)
      for (const Group &group : round) {
        int64_t r = group.work.rowBegin + i;
        if (r >= group.work.rowEnd)
          continue;
        int64_t jn = group.work.jn;
        int32_t nLanes = lanesOf(out.layout.cols, jn);
        bool first = group.work.first == 0,
             last = group.work.first + group.work.count == kTiles;
        Value sum;
        for (int64_t t = 0; t < group.work.count; ++t) {
          Value product = hisa::MatMulOp::create(
              b, loc, vec(), read(loc, x.at(r, group.work.first + t), type),
              group.planes[t], dtype(type), IntegerAttr(), hisa::StreamAttr());
          sum = sum ? binary(loc, hisa::VBinaryKind::add, sum, product, nLanes,
                             acc)
                    : product;
        }
        // Partial sums over K tiles accumulate through the output buffer.
        if (!first)
          sum = binary(loc, hisa::VBinaryKind::add, sum,
                       read(loc, out.at(r, jn), acc), nLanes, acc);
        if (last && scale)
          sum = binary(loc, hisa::VBinaryKind::mul, sum,
                       read(loc, scale->at(0, jn), f32()), nLanes, acc);
        if (last && bias) {
          Type biasType = elementOf(op.getBias());
          Value row = read(loc, bias->at(0, jn), biasType);
          if (biasType != acc)
            row = convert(loc, row, biasType, acc, nLanes);
          sum = binary(loc, hisa::VBinaryKind::add, sum, row, nLanes, acc);
        }
        if (last && activation)
          sum = unary(loc, *activation, sum, nLanes, acc);
        if (last && outType != acc) {
          sum = convert(loc, sum, acc, outType, nLanes);
          write(loc, sum, out.at(r, jn), outType);
          continue;
        }
        // A vector instruction computes the row's lanes and zeroes the
        // others; a lone product of a transposed weight's last, partial N
        // tile is masked so (its lanes past N meet older weight columns).
        // A partial sum is masked by the add of the next K tile.
        bool unmasked = group.work.count == 1 && first && last && !scale &&
                        !bias && !activation;
        if (transposed && unmasked && nLanes < int32_t(lanes))
          sum = binary(loc, hisa::VBinaryKind::max, sum, sum, nLanes, acc);
        write(loc, sum, out.at(r, jn), acc);
      }
  }
  return success();
}

/// The input row that output row `row` of a dimension permutation reads,
/// for permutations of the leading dimensions (`shape` is the input's,
/// `perm` maps output dimensions to input ones, both without the
/// dimensions the rows are made of).
static int64_t permutedRow(int64_t row, ArrayRef<int64_t> inShape,
                           ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  SmallVector<int64_t> inIndex(rank, 0);
  for (int64_t d = rank - 1; d >= 0; --d) {
    int64_t size = inShape[perm[d]];
    inIndex[perm[d]] = row % size;
    row /= size;
  }
  int64_t flat = 0;
  for (int64_t d = 0; d < rank; ++d)
    flat = flat * inShape[d] + inIndex[d];
  return flat;
}

LogicalResult MatrixExpander::expandTranspose(htile::TransposeOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput());
  ArrayRef<int64_t> inShape = op.getInput().getType().getShape();
  ArrayRef<int64_t> perm = op.getPerm();
  int64_t rank = perm.size();
  Type type = elementOf(op.getInput());
  if (!op.swapsInnermost()) {
    // Whole rows move: each vector goes from SRAM to SRAM on a stream.
    ArrayRef<int64_t> lead = rank ? perm.drop_back() : perm;
    for (int64_t r = 0; r < out.layout.rows; ++r) {
      int64_t source = permutedRow(r, inShape.drop_back(), lead);
      for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j)
        write(loc, read(loc, in.at(source, j), type), out.at(r, j), type);
    }
    return success();
  }
  // The plane's result is f32 (i32 for 8-bit integers): other types are
  // converted back, exactly, by a cast that also masks the lanes.
  Type acc = hisa::isFloatLane(type) ? f32() : Type(b.getI32Type());
  // Each matrix [m, k] becomes [k, m], a lanes x lanes tile at a time: the
  // tile's rows go in as weight columns, and multiplying unit vector e_c
  // reads out column c as a row. Columns past the tile's rows hold older
  // weights, so the result is masked to the valid lanes.
  Tensor eye = tensor(op.getIdentity());
  int64_t m = inShape[rank - 2], k = inShape[rank - 1];
  int64_t batches = m ? in.layout.rows / m : 0;
  ArrayRef<int64_t> lead = perm.drop_back(2);
  for (int64_t batch = 0; batch < batches; ++batch) {
    int64_t source = permutedRow(batch, inShape.drop_back(2), lead);
    for (int64_t mi = 0; mi * lanes < m; ++mi)
      for (int64_t ki = 0; ki * lanes < k; ++ki) {
        uint32_t plane = takePlane();
        int64_t tileRows = std::min<int64_t>(lanes, m - mi * lanes);
        int64_t tileCols = std::min<int64_t>(lanes, k - ki * lanes);
        for (int64_t i = 0; i < tileRows; ++i)
          hisa::LoadWeightsOp::create(
              b, loc, read(loc, in.at(source * m + mi * lanes + i, ki), type),
              plane, hisa::WeightSlot::column, int32_t(i), /*buffered=*/false,
              IntegerAttr(), dtype(type), hisa::TrainAttr(), IntegerAttr());
        for (int64_t c = 0; c < tileCols; ++c) {
          Value column = hisa::MatMulOp::create(
              b, loc, vec(), read(loc, eye.at(c, 0), type), plane, dtype(type),
              IntegerAttr(), hisa::StreamAttr());
          Value masked =
              type == acc ? binary(loc, hisa::VBinaryKind::max, column, column,
                                   int32_t(tileRows))
                          : convert(loc, column, acc, type, int32_t(tileRows));
          write(loc, masked, out.at(batch * k + ki * lanes + c, mi), type);
        }
      }
  }
  return success();
}

void expansion::populateMatrixExpansions(RewritePatternSet &patterns,
                                         ExpansionState &state) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ExpandWith<htile::MatMulOp, MatrixExpander,
                          &MatrixExpander::expandMatMul>,
               ExpandWith<htile::TransposeOp, MatrixExpander,
                          &MatrixExpander::expandTranspose>>(context, state);
}
