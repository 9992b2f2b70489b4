//===- DataMovementExpansion.cpp - Data-movement htile kernels to hisa
//------===//
//
// htile.gather (each output vector assembled from the input vectors it
// draws on by permutes on a switch unit, or moved whole) and
// htile.gather_rows (a lookup by run-time index: an indexed read of the
// table per row vector, turned by the switch units beyond the slices) and
// htile.scatter_rows (an indexed write per row vector, its index and
// vector sent on by the vector unit towards the table's slices).
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HTileToHIsa/Expansion.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::expansion;

namespace {

/// One vector of a row that a run-time index names: vector `j` of row
/// block `n` (of the output or the updates), the index in lane `lane` of
/// the vector at SRAM word `indexWord`, in a table of `rows` rows of
/// `stride` vectors.
struct RowVector {
  int64_t n, j, indexWord;
  int32_t lane;
  int64_t stride, rows;
};

class DataMovementExpander : public InstructionBuilder {
public:
  using InstructionBuilder::InstructionBuilder;
  /// Calls `each` for every row vector that `indices` name in `table`;
  /// fails, naming `op`, for a table without rows.
  LogicalResult forEachRowVector(Operation *op, Value table, Value indices,
                                 function_ref<void(const RowVector &)> each);
  LogicalResult expandGather(htile::GatherOp op);
  LogicalResult expandGatherRows(htile::GatherRowsOp op);
  LogicalResult expandScatterRows(htile::ScatterRowsOp op);
};

} // namespace

LogicalResult DataMovementExpander::expandGather(htile::GatherOp op) {
  if (chip.switches() == 0)
    return op.emitError("chip '")
           << chip.name() << "' has no SWITCH unit to move data with";
  Location loc = op.getLoc();
  // The inputs as one list of elements: input k starts at first[k].
  struct Source {
    int64_t first;
    Tensor tensor;
  };
  SmallVector<Source> sources;
  int64_t total = 0;
  for (Value input : op.getInputs()) {
    sources.push_back({total, tensor(input)});
    total += cast<MemRefType>(input.getType()).getNumElements();
  }
  Tensor out = tensor(op.getOutput());
  Type type = elementOf(op.getOutput());
  ArrayRef<int64_t> indices = op.getIndices();
  int64_t cols = out.layout.cols;
  // One input vector an output vector draws from, and the lane map that
  // moves its lanes into place.
  struct Part {
    int64_t address;
    int32_t sourceLanes;
    SmallVector<int32_t> map;
  };
  // The rows the indices fill (all of them but for a band).
  int64_t firstRow = op.getFirstRow() ? op.firstRow() : 0;
  int64_t rows = op.getFirstRow() ? op.rowCount() : out.layout.rows;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j) {
      int32_t n = lanesOf(cols, j);
      SmallVector<Part> parts;
      DenseMap<int64_t, unsigned> partIndex;
      for (int32_t l = 0; l < n; ++l) {
        int64_t index = indices[r * cols + j * lanes + l];
        if (index < 0)
          continue;
        const Source *source = std::prev(
            llvm::upper_bound(sources, index, [](int64_t i, const Source &s) {
              return i < s.first;
            }));
        int64_t element = index - source->first;
        int64_t sourceCols = source->tensor.layout.cols;
        int64_t row = element / sourceCols, col = element % sourceCols;
        int64_t address = source->tensor.at(row, col / lanes);
        auto [it, inserted] = partIndex.try_emplace(address, parts.size());
        if (inserted)
          parts.push_back({address, lanesOf(sourceCols, col / lanes),
                           SmallVector<int32_t>(n, -1)});
        parts[it->second].map[l] = int32_t(col % lanes);
      }
      int64_t target = out.at(firstRow + r, j);
      // A whole input vector in place (same lanes, padding included) needs
      // no switch.
      if (parts.size() == 1 && parts[0].sourceLanes == n &&
          llvm::all_of(llvm::seq<int32_t>(0, n),
                       [&](int32_t l) { return parts[0].map[l] == l; })) {
        write(loc, read(loc, parts[0].address, type), target, type);
        continue;
      }
      uint32_t unit = takeSwitch();
      if (parts.empty()) {
        // Only zeros: any input vector permuted with every lane kept.
        int64_t some = sources.front().tensor.at(0, 0);
        for (const Source &source : sources)
          if (source.tensor.layout.vectors() > 0) {
            some = source.tensor.at(0, 0);
            break;
          }
        write(loc,
              permute(loc, read(loc, some, type), Value(), unit,
                      SmallVector<int32_t>(n, -1), type),
              target, type);
        continue;
      }
      // Each part merges its lanes into the partial vector before it.
      Value partial;
      for (const Part &part : parts)
        partial = permute(loc, read(loc, part.address, type), partial, unit,
                          part.map, type);
      write(loc, partial, target, type);
    }
  return success();
}

LogicalResult DataMovementExpander::forEachRowVector(
    Operation *op, Value table, Value indices,
    function_ref<void(const RowVector &)> each) {
  auto tableType = cast<MemRefType>(table.getType());
  auto indexType = cast<MemRefType>(indices.getType());
  Tensor ids = tensor(indices);
  int64_t rows = tableType.getDimSize(0);
  int64_t count = indexType.getNumElements();
  int64_t stride = rows ? tensor(table).layout.vectors() / rows : 0;
  if (rows == 0 && count > 0)
    return op->emitError("indexes rows of a table that has none");
  if (count == 0 || stride == 0)
    return success(); // nothing to move
  int64_t idsPerRow = ids.layout.cols;
  for (int64_t n = 0; n < count; ++n) {
    int64_t col = n % idsPerRow;
    int64_t at = ids.at(n / idsPerRow, col / lanes);
    for (int64_t j = 0; j < stride; ++j)
      each({n, j, at, int32_t(col % lanes), stride, rows});
  }
  return success();
}

LogicalResult DataMovementExpander::expandGatherRows(htile::GatherRowsOp op) {
  // The index enters the table's slices from one end of the floorplan and
  // the row leaves at the other: the switch units beyond every MEM slice
  // turn them (docs/isa.md, "Indexed reads").
  uint32_t slices = chip.proto().memory().slices();
  uint32_t first = chip.slicePosition(0), last = first;
  for (uint32_t s = 1; s < slices; ++s) {
    first = std::min(first, chip.slicePosition(s));
    last = std::max(last, chip.slicePosition(s));
  }
  std::optional<uint32_t> west, east;
  for (uint32_t unit = 0; unit < chip.switches(); ++unit) {
    if (chip.switchPosition(unit) < first && !west)
      west = unit;
    if (chip.switchPosition(unit) > last)
      east = unit;
  }
  if (!west || !east)
    return op.emitError("chip '")
           << chip.name()
           << "' has no SWITCH unit on both sides of its MEM slices, which "
              "a lookup by run-time index needs to turn the index towards "
              "the table and the row back";
  Location loc = op.getLoc();
  Tensor table = tensor(op.getTable()), out = tensor(op.getOutput());
  Type type = elementOf(op.getOutput());
  Type i32 = b.getI32Type();
  SmallVector<int32_t> identity(lanes);
  for (uint32_t l = 0; l < lanes; ++l)
    identity[l] = int32_t(l);
  // Row n of the output is the table's row, vector by vector.
  return forEachRowVector(
      op, op.getTable(), op.getIndices(), [&](const RowVector &v) {
        Value index = permute(loc, read(loc, v.indexWord, i32), Value(), *west,
                              identity, i32);
        int64_t word = table.layout.word(table.base, v.j);
        Value row = hisa::GatherOp::create(
            b, loc, vec(), index, v.lane, word / 4, partOf(word, type),
            v.stride, v.rows, dtype(type), IntegerAttr(), hisa::StreamAttr());
        write(loc, permute(loc, row, Value(), *east, identity, type),
              out.layout.word(out.base, v.n * v.stride + v.j), type);
      });
}

LogicalResult DataMovementExpander::expandScatterRows(htile::ScatterRowsOp op) {
  // Each slice of the chain must see an update's index and vector in one
  // cycle. The vector unit, which issues several instructions a cycle,
  // sends both on together towards each side of it that holds rows of
  // the table (docs/isa.md, "Indexed writes"); V_CAST to the same type
  // passes a vector on unchanged, whatever its type.
  Location loc = op.getLoc();
  Tensor table = tensor(op.getTable()), updates = tensor(op.getUpdates());
  Type type = elementOf(op.getTable());
  Type i32 = b.getI32Type();
  int64_t unit = chip.vectorPosition();
  return forEachRowVector(
      op, op.getTable(), op.getIndices(), [&](const RowVector &v) {
        int64_t word = table.layout.word(table.base, v.j);
        // The sides of the vector unit the table's slices lie on: slices
        // are numbered west to east, and a table on a chip whose addresses
        // are interleaved over the slices may lie on both sides whatever
        // its ends.
        bool west = false, east = false;
        auto side = [&](int64_t row) {
          int64_t at = table.layout.word(table.base, row * v.stride + v.j) / 4;
          int64_t position = chip.slicePosition(chip.sliceOf(uint64_t(at)));
          west |= position < unit;
          east |= position > unit;
        };
        side(0);
        side(v.rows - 1);
        for (int64_t row = 1; chip.interleaved() && !(west && east) &&
                              row + 1 < v.rows;
             ++row)
          side(row);
        Value index = read(loc, v.indexWord, i32);
        Value value = read(
            loc, updates.layout.word(updates.base, v.n * v.stride + v.j), type);
        int32_t valueLanes =
            lanesOf(table.layout.cols, v.j % table.layout.vectorsPerRow);
        SmallVector<Value> values, indices;
        for (bool side : {west, east}) {
          if (!side)
            continue;
          values.push_back(convert(loc, value, type, type, valueLanes));
          indices.push_back(convert(loc, index, i32, i32, int32_t(lanes)));
        }
        hisa::ScatterOp::create(b, loc, values, indices, v.lane, word / 4,
                                partOf(word, type), v.stride, v.rows,
                                dtype(type), IntegerAttr());
      });
}

void expansion::populateDataMovementExpansions(RewritePatternSet &patterns,
                                               ExpansionState &state) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ExpandWith<htile::GatherOp, DataMovementExpander,
                          &DataMovementExpander::expandGather>,
               ExpandWith<htile::GatherRowsOp, DataMovementExpander,
                          &DataMovementExpander::expandGatherRows>,
               ExpandWith<htile::ScatterRowsOp, DataMovementExpander,
                          &DataMovementExpander::expandScatterRows>>(context,
                                                                     state);
}
