//===- DataMovementPatterns.cpp - Data movement of hgraph to htile
//----------===//
//
// Reshape, transpose, concat, split, slice, pad, tile, expand, the
// gathers and row scatters: views where the rows stay, a transpose on the
// matrix unit where a permutation is a swap of the last two axes, and otherwise
// htile.gather by an index map computed at compile time.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HGraphToHTile/Lowering.h"

#include "mlir/IR/Matchers.h"
#include <numeric>

using namespace mlir;
using namespace hetc;
using namespace hetc::tiling;

namespace {

LogicalResult lowerGatherRows(hgraph::GatherRowsOp op,
                              const KernelBuilder &kernels) {
  Value table = kernels.buffer(op.getTable());
  Value indices = kernels.buffer(op.getIndices());
  Value out = kernels.alloc(op.getResult());
  htile::GatherRowsOp::create(kernels.builder, op.getLoc(), table, indices,
                              out);
  kernels.map(op.getResult(), out);
  return success();
}

/// The table's rows replaced by indexed writes: in the table's own buffer
/// when nothing else reads it (a KV cache updated in place), else in a
/// copy (plain reads and writes). A view of some rows of a buffer is only
/// read (htile.view): a table seen through one is copied.
LogicalResult lowerScatterRows(hgraph::ScatterRowsOp op,
                               const KernelBuilder &kernels) {
  Value table = kernels.buffer(op.getTable());
  Value out = table;
  Operation *root = table.getDefiningOp();
  while (auto view = dyn_cast_if_present<htile::ViewOp>(root))
    root = view.getFirstRow() ? nullptr : view.getSource().getDefiningOp();
  if (!kernels.inPlace(op) ||
      !isa_and_present<htile::AllocOp, htile::InputOp>(root)) {
    int64_t elements = op.getType().getNumElements();
    if (failed(kernels.checkMovement(op, uint64_t(elements),
                                     "copying the " + Twine(elements) +
                                         " elements of the table")))
      return failure();
    out = kernels.alloc(op.getResult());
    kernels.move(op.getLoc(), table, out, gather::identity(elements));
  }
  htile::ScatterRowsOp::create(kernels.builder, op.getLoc(),
                               kernels.buffer(op.getUpdates()),
                               kernels.buffer(op.getIndices()), out);
  kernels.map(op.getResult(), out);
  return success();
}

LogicalResult lowerReshape(hgraph::ReshapeOp op, const KernelBuilder &kernels) {
  // The same elements in the same order: the input's buffer holds the
  // result as it lies, and a reader that needs the result's own rows
  // regroups it (a view when the row length stays).
  kernels.map(op.getResult(), kernels.held(op.getInput()));
  return success();
}

/// A permutation with every run of input axes that stay adjacent and in
/// order merged into one axis: [0, 2, 3, 1] of [1, 96, 56, 56] is [0, 2, 1]
/// of [1, 96, 3136]. Unit axes join their neighbours.
struct CollapsedPermutation {
  SmallVector<int64_t> shape;
  SmallVector<int64_t> perm;
};
CollapsedPermutation collapse(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  // Drop unit axes (they move nothing), then merge runs.
  SmallVector<int64_t> kept;
  for (int64_t axis : perm)
    if (shape[axis] != 1)
      kept.push_back(axis);
  // Runs in output order: axis a continues the run when it follows the
  // previous one in the input, skipping dropped unit axes.
  SmallVector<SmallVector<int64_t>> runs;
  for (int64_t axis : kept) {
    if (!runs.empty()) {
      int64_t last = runs.back().back();
      bool adjacent = axis > last;
      for (int64_t between = last + 1; adjacent && between < axis; ++between)
        adjacent = shape[between] == 1;
      if (adjacent) {
        runs.back().push_back(axis);
        continue;
      }
    }
    runs.push_back({axis});
  }
  // The runs in input order give the collapsed input shape.
  SmallVector<size_t> byInput(runs.size());
  std::iota(byInput.begin(), byInput.end(), 0);
  llvm::sort(byInput,
             [&](size_t a, size_t b) { return runs[a][0] < runs[b][0]; });
  CollapsedPermutation result;
  SmallVector<int64_t> position(runs.size());
  for (auto [i, run] : llvm::enumerate(byInput)) {
    int64_t size = 1;
    for (int64_t axis : runs[run])
      size *= shape[axis];
    result.shape.push_back(size);
    position[run] = int64_t(i);
  }
  for (size_t run = 0; run < runs.size(); ++run)
    result.perm.push_back(position[run]);
  return result;
}

LogicalResult lowerTranspose(hgraph::TransposeOp op,
                             const KernelBuilder &kernels) {
  ArrayRef<int64_t> perm = op.getPerm();
  int64_t rank = perm.size();
  bool keepsRows = rank == 0 || perm[rank - 1] == rank - 1;
  bool swapsInnermost =
      rank >= 2 && perm[rank - 1] == rank - 2 && perm[rank - 2] == rank - 1;
  Type element = elementOf(op.getInput());
  if (!keepsRows && !swapsInnermost && planeTransposes(element)) {
    // A permutation that is a swap of the last two axes once adjacent axes
    // merge (NCHW <-> NHWC) runs as that swap on the matrix unit between
    // two regroupings, each a move of whole rows: far fewer instructions
    // than assembling every output vector lane by lane.
    CollapsedPermutation c = collapse(op.getInput().getType().getShape(), perm);
    int64_t n = int64_t(c.perm.size());
    bool swap = n >= 2 && c.perm[n - 1] == n - 2 && c.perm[n - 2] == n - 1;
    for (int64_t i = 0; swap && i + 2 < n; ++i)
      swap = c.perm[i] == i;
    if (swap) {
      Location loc = op.getLoc();
      Value input = kernels.bufferAs(op.getInput(), c.shape);
      SmallVector<int64_t> swapped(c.shape);
      std::swap(swapped[n - 1], swapped[n - 2]);
      auto outType = MemRefType::get(swapped, element);
      Value out = kernels.alloc(outType, loc);
      htile::TransposeOp::create(kernels.builder, loc, input, out,
                                 kernels.identity(loc, element),
                                 kernels.builder.getDenseI64ArrayAttr(c.perm));
      // The swapped rows hold the result's elements in order.
      kernels.map(op.getResult(), out);
      return success();
    }
  }
  // Other permutations assemble each output vector on a switch unit, as do
  // swaps of types the matrix unit does not multiply.
  if ((!keepsRows && !swapsInnermost) ||
      (swapsInnermost && !planeTransposes(element)))
    return kernels.gatherInto(op, op.getInput(), op.getResult(), [&] {
      return gather::transpose(op.getInput().getType().getShape(), perm,
                               op.getType().getShape());
    });
  Value input = kernels.buffer(op.getInput());
  Value eye = swapsInnermost
                  ? kernels.identity(op.getLoc(), elementOf(op.getInput()))
                  : Value();
  Value out = kernels.alloc(op.getResult());
  htile::TransposeOp::create(kernels.builder, op.getLoc(), input, out, eye,
                             op.getPermAttr());
  kernels.map(op.getResult(), out);
  return success();
}

LogicalResult lowerConcat(hgraph::ConcatOp op, const KernelBuilder &kernels) {
  SmallVector<gather::Shape> shapes;
  for (Value input : op.getInputs())
    shapes.push_back(cast<ShapedType>(input.getType()).getShape());
  return kernels.gatherInto(op, op.getInputs(), op.getResult(), [&] {
    return gather::concat(shapes, op.getAxis(), op.getType().getShape());
  });
}

LogicalResult lowerSplit(hgraph::SplitOp op, const KernelBuilder &kernels) {
  // Each piece is a slice along the axis.
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  int64_t axis = op.getAxis(), offset = 0;
  SmallVector<int64_t> steps(in.size(), 1);
  for (Value piece : op.getResults()) {
    SmallVector<int64_t> starts(in.size(), 0);
    starts[axis] = offset;
    ArrayRef<int64_t> shape = cast<ShapedType>(piece.getType()).getShape();
    offset += shape[axis];
    if (failed(kernels.gatherInto(op, op.getInput(), piece, [&] {
          return gather::slice(in, starts, steps, shape);
        })))
      return failure();
  }
  return success();
}

/// The first row of `in` (rows of its innermost dimension) at which a
/// slice of `starts` and `steps` to `out` finds its elements as a run of
/// whole rows, in order; nullopt when it does not: the innermost dimension
/// whole, then, outwards, whole dimensions, at most one taken as a range of
/// step 1, and single indices before it.
std::optional<int64_t> rowRun(ArrayRef<int64_t> in, ArrayRef<int64_t> starts,
                              ArrayRef<int64_t> steps, ArrayRef<int64_t> out) {
  size_t rank = in.size();
  if (rank == 0 || out.back() != in.back() || starts.back() != 0 ||
      (out.back() > 1 && steps.back() != 1))
    return std::nullopt;
  // Outwards from the innermost: whole dimensions, then one taken as a
  // range (or a single index), then single indices.
  bool inWhole = true;
  for (size_t d = rank - 1; d-- > 0;) {
    bool taken = out[d] == 1 || steps[d] == 1;
    if (inWhole && taken && out[d] == in[d] && starts[d] == 0)
      continue;
    if (!(inWhole && taken) && out[d] != 1)
      return std::nullopt;
    inWhole = false;
  }
  int64_t first = 0;
  for (size_t d = 0; d + 1 < rank; ++d)
    first = first * in[d] + starts[d];
  return first;
}

LogicalResult lowerSlice(hgraph::SliceOp op, const KernelBuilder &kernels) {
  // A run of whole rows is read in place, through a view of them: slicing
  // a cache by head then copies nothing. The run must be whole rows of the
  // buffer as it lies (a feature map held a map a row is sliced by whole
  // maps), and its first row must start an SRAM row (vectors narrower than
  // a row share them).
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> out = op.getType().getShape();
  if (std::optional<int64_t> first =
          rowRun(in, op.getStarts(), op.getSteps(), out)) {
    Value held = kernels.held(op.getInput());
    auto heldType = cast<MemRefType>(held.getType());
    int64_t row = heldType.getRank() ? heldType.getShape().back() : 1;
    int64_t begin = *first * in.back();
    int64_t count = op.getType().getNumElements();
    BufferLayout layout = layoutOf(heldType, kernels.chip.lanes());
    if (row > 0 && count > 0 && begin % row == 0 && count % row == 0 &&
        layout.sramRowsBefore(begin / row)) {
      Value view = htile::ViewOp::create(
          kernels.builder, op.getLoc(),
          MemRefType::get({count / row, row}, heldType.getElementType()), held,
          kernels.builder.getI64IntegerAttr(begin / row));
      kernels.map(op.getResult(), view);
      return success();
    }
  }
  return kernels.gatherInto(op, op.getInput(), op.getResult(), [&] {
    return gather::slice(op.getInput().getType().getShape(), op.getStarts(),
                         op.getSteps(), op.getType().getShape());
  });
}

LogicalResult lowerPad(hgraph::PadOp op, const KernelBuilder &kernels) {
  SmallVector<Value> inputs{op.getInput()};
  // A zero fill needs no data; any other fill value is one more input,
  // whose single element the padding copies.
  int64_t fill = -1;
  if (Value value = op.getValue()) {
    DenseElementsAttr dense;
    bool zero = matchPattern(value, m_Constant(&dense)) &&
                dense.getNumElements() == 1 && dense.isSplat() &&
                dense == DenseElementsAttr::get(dense.getType(),
                                                kernels.builder.getZeroAttr(
                                                    dense.getElementType()));
    if (cast<ShapedType>(value.getType()).getNumElements() != 1)
      return op.emitError("pad value must have one element");
    if (!zero) {
      fill = op.getInput().getType().getNumElements();
      inputs.push_back(value);
    }
  }
  return kernels.gatherInto(
      op, inputs, op.getResult(), [&]() -> FailureOr<gather::Indices> {
        std::optional<gather::Indices> indices =
            gather::pad(op.getInput().getType().getShape(), op.getPads(),
                        op.getMode(), fill, op.getType().getShape());
        if (!indices)
          return op.emitError("pad mode '")
                 << op.getMode() << "' is not supported on the chip yet";
        return std::move(*indices);
      });
}

/// The values of a constant integer tensor; nullopt if it is not constant.
std::optional<SmallVector<int64_t>> constantIndices(Value value) {
  DenseElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)) ||
      !isa<IntegerType>(dense.getElementType()))
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &v : dense.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

LogicalResult lowerGatherOp(hgraph::GatherOp op, const KernelBuilder &kernels) {
  std::optional<SmallVector<int64_t>> indices =
      constantIndices(op.getIndices());
  if (!indices)
    return op.emitError("gather with indices computed at run time is not "
                        "supported on the chip yet; the indices must be "
                        "constant");
  return kernels.gatherInto(
      op, op.getInput(), op.getResult(), [&]() -> FailureOr<gather::Indices> {
        std::optional<gather::Indices> map =
            gather::gather(op.getInput().getType().getShape(), *indices,
                           op.getIndices().getType().getShape(), op.getAxis(),
                           op.getType().getShape());
        if (!map)
          return op.emitError("gather index out of range for axis ")
                 << op.getAxis() << " of " << op.getInput().getType();
        return std::move(*map);
      });
}

LogicalResult lowerGatherElements(hgraph::GatherElementsOp op,
                                  const KernelBuilder &kernels) {
  std::optional<SmallVector<int64_t>> indices =
      constantIndices(op.getIndices());
  if (!indices)
    return op.emitError("gather_elements with indices computed at run time "
                        "is not supported on the chip yet; the indices must "
                        "be constant");
  return kernels.gatherInto(
      op, op.getInput(), op.getResult(), [&]() -> FailureOr<gather::Indices> {
        std::optional<gather::Indices> map =
            gather::gatherElements(op.getInput().getType().getShape(), *indices,
                                   op.getAxis(), op.getType().getShape());
        if (!map)
          return op.emitError("gather_elements index out of range for axis ")
                 << op.getAxis() << " of " << op.getInput().getType();
        return std::move(*map);
      });
}

LogicalResult lowerExpand(hgraph::ExpandOp op, const KernelBuilder &kernels) {
  return kernels.gatherInto(op, op.getInput(), op.getResult(), [&] {
    return gather::expand(op.getInput().getType().getShape(),
                          op.getType().getShape());
  });
}

LogicalResult lowerTile(hgraph::TileOp op, const KernelBuilder &kernels) {
  return kernels.gatherInto(op, op.getInput(), op.getResult(), [&] {
    return gather::tile(op.getInput().getType().getShape(),
                        op.getType().getShape());
  });
}

} // namespace

void tiling::populateDataMovementPatterns(RewritePatternSet &patterns,
                                          const TypeConverter &converter,
                                          LoweringState &state) {
  patterns.add<LowerWith<hgraph::ReshapeOp, lowerReshape>,
               LowerWith<hgraph::TransposeOp, lowerTranspose>,
               LowerWith<hgraph::ConcatOp, lowerConcat>,
               LowerWith<hgraph::SplitOp, lowerSplit>,
               LowerWith<hgraph::SliceOp, lowerSlice>,
               LowerWith<hgraph::PadOp, lowerPad>,
               LowerWith<hgraph::ExpandOp, lowerExpand>,
               LowerWith<hgraph::TileOp, lowerTile>,
               LowerWith<hgraph::GatherOp, lowerGatherOp>,
               LowerWith<hgraph::GatherElementsOp, lowerGatherElements>,
               LowerWith<hgraph::GatherRowsOp, lowerGatherRows>,
               LowerWith<hgraph::ScatterRowsOp, lowerScatterRows>>(
      converter, patterns.getContext(), state);
}
