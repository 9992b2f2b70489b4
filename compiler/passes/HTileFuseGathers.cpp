//===- HTileFuseGathers.cpp - One gather for a chain of gathers ----------===//
//
// A gather that reads a buffer another gather fills, and is that buffer's
// only reader, reads through it instead: its indices are mapped through the
// first gather's, and the first gather and its buffer go. A gather of
// several inputs (a concatenation) absorbs the gather behind each of them
// that has one (slices of one tensor joined: one move). On
// the chip each gather assembles its vectors on a switch unit, a round
// trip from SRAM to the edge of the chip and back; a chain of layout ops
// (a split, then a reshape that changes the row length) then makes one
// trip instead of two. A buffer that an op of the kernel plan only still
// uses stays for the plan, filled there by an htile.plan_gather; where
// such an op writes it (a convolution's result), the plan's copy of the
// reader reads it where it lies.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/Passes.h"

#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace hetc {
#define GEN_PASS_DEF_HTILEFUSEGATHERS
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

/// The buffer `value` is a view of (through any number of views), or
/// `value` itself.
Value rootOf(Value value) {
  while (auto view = value.getDefiningOp<htile::ViewOp>())
    value = view.getSource();
  return value;
}

/// The gather that alone fills `buffer`, an alloc that `reader` alone reads;
/// null when there is none, or when an op between the two writes a buffer
/// that gather reads (reading through it would see the new elements).
htile::GatherOp soleFiller(Value buffer, htile::GatherOp reader) {
  if (!buffer.getDefiningOp<htile::AllocOp>())
    return {};
  htile::GatherOp filler;
  for (Operation *user : buffer.getUsers()) {
    if (user == reader.getOperation() || htile::isPlanOnly(user))
      continue;
    auto gather = dyn_cast<htile::GatherOp>(user);
    if (!gather || filler || gather.getOutput() != buffer ||
        gather.getFirstRow() || llvm::is_contained(gather.getInputs(), buffer))
      return {};
    filler = gather;
  }
  if (!filler || filler->getBlock() != reader->getBlock() ||
      !filler->isBeforeInBlock(reader))
    return {};
  llvm::SmallPtrSet<Value, 4> read;
  for (Value input : filler.getInputs())
    read.insert(rootOf(input));
  // The fused gather must not write what it reads.
  if (read.contains(rootOf(reader.getOutput())))
    return {};
  for (Operation *op = filler->getNextNode(); op != reader.getOperation();
       op = op->getNextNode())
    if (auto writer = dyn_cast<DestinationStyleOpInterface>(op))
      for (Value init : writer.getDpsInits())
        if (read.contains(rootOf(init)))
          return {};
  return filler;
}

/// A reader input, and the gather that alone fills it (null for none).
struct Source {
  Value buffer;
  htile::GatherOp filler;
  int64_t elements;
};

/// The inputs and indices of `reader` reading through the filler of each
/// source `through` names: the list of the fillers' inputs and the other
/// sources, each buffer once.
std::pair<SmallVector<Value>, SmallVector<int64_t>>
composeThrough(htile::GatherOp reader, ArrayRef<Source> sources,
               ArrayRef<bool> through) {
  SmallVector<Value> inputs;
  SmallVector<int64_t> starts; // where each of `inputs` starts
  int64_t total = 0;
  auto inputAt = [&](Value buffer) {
    for (auto [i, input] : llvm::enumerate(inputs))
      if (input == buffer)
        return starts[i];
    inputs.push_back(buffer);
    starts.push_back(total);
    int64_t at = total;
    total += cast<MemRefType>(buffer.getType()).getNumElements();
    return at;
  };
  // Per source read through: where each of its filler's inputs starts in
  // the filler's list and in the fused one; per other source, its place.
  SmallVector<SmallVector<int64_t>> fillerStarts(sources.size()),
      fillerAt(sources.size());
  for (auto [k, source] : llvm::enumerate(sources)) {
    if (!through[k])
      continue;
    int64_t start = 0;
    htile::GatherOp filler = source.filler;
    for (Value input : filler.getInputs()) {
      fillerStarts[k].push_back(start);
      fillerAt[k].push_back(inputAt(input));
      start += cast<MemRefType>(input.getType()).getNumElements();
    }
  }
  SmallVector<int64_t> readerAt; // each source's place, or -1
  for (auto [k, source] : llvm::enumerate(sources))
    readerAt.push_back(through[k] ? -1 : inputAt(source.buffer));
  SmallVector<int64_t> indices;
  indices.reserve(reader.getIndices().size());
  for (int64_t i : reader.getIndices()) {
    if (i < 0) {
      indices.push_back(-1);
      continue;
    }
    // The reader input holding element i, and the element within it.
    size_t k = 0;
    while (i >= sources[k].elements) {
      i -= sources[k].elements;
      ++k;
    }
    if (!through[k]) {
      indices.push_back(readerAt[k] + i);
      continue;
    }
    htile::GatherOp filler = sources[k].filler;
    int64_t g = filler.getIndices()[i];
    if (g < 0) {
      indices.push_back(-1);
      continue;
    }
    size_t j =
        llvm::upper_bound(fillerStarts[k], g) - fillerStarts[k].begin() - 1;
    indices.push_back(fillerAt[k][j] + g - fillerStarts[k][j]);
  }
  return {std::move(inputs), std::move(indices)};
}

/// Whether an op of the kernel plan only uses `buffer`, and whether one
/// writes it.
bool planUses(Value buffer) {
  return llvm::any_of(buffer.getUsers(), htile::isPlanOnly);
}
bool planWrites(Value buffer) {
  return llvm::any_of(buffer.getUsers(), [&](Operation *user) {
    return htile::isPlanOnly(user) && htile::planOutput(user) == buffer;
  });
}

struct HTileFuseGathersPass
    : hetc::impl::HTileFuseGathersBase<HTileFuseGathersPass> {
  void runOnOperation() override {
    // In program order, so that a chain of three fuses into one: the
    // second gather, already reading through the first, is the filler
    // the third finds.
    SmallVector<htile::GatherOp> gathers;
    getOperation().walk([&](htile::GatherOp op) { gathers.push_back(op); });
    for (htile::GatherOp reader : gathers) {
      if (reader.getFirstRow())
        continue;
      // Each input that a gather alone fills is read through it; the
      // others stay inputs.
      SmallVector<Source> sources;
      SmallVector<bool> fused, planFused;
      for (Value input : reader.getInputs()) {
        Source source{
            input, {}, cast<MemRefType>(input.getType()).getNumElements()};
        if (llvm::count(reader.getInputs(), input) == 1)
          source.filler = soleFiller(input, reader);
        sources.push_back(source);
        fused.push_back(bool(source.filler));
        // The kernel plan reads a buffer that an op of the plan only
        // writes (a convolution's result) where it lies: that op stands
        // for the kernels that fill it on the chip.
        planFused.push_back(fused.back() && !planWrites(input));
      }
      if (!llvm::is_contained(fused, true))
        continue;
      auto [inputs, indices] = composeThrough(reader, sources, fused);
      OpBuilder b(reader);
      // Named for the op whose result it fills, then the ones it absorbs.
      SmallVector<Location> locs = {reader.getLoc()};
      for (Source &source : sources)
        if (source.filler)
          locs.push_back(source.filler.getLoc());
      htile::GatherOp::create(b, b.getFusedLoc(locs), inputs,
                              reader.getOutput(),
                              b.getDenseI64ArrayAttr(indices), IntegerAttr());
      if (planFused != fused) {
        auto [planInputs, planIndices] =
            composeThrough(reader, sources, planFused);
        htile::PlanGatherOp::create(b, reader.getLoc(), planInputs,
                                    reader.getOutput(),
                                    b.getDenseI64ArrayAttr(planIndices));
      }
      reader.erase();
      for (Source &source : sources) {
        if (!source.filler)
          continue;
        // Where an op of the kernel plan only still uses the buffer, the
        // plan fills it as before (the buffer then has no place in SRAM:
        // no chip op uses it); else the buffer goes.
        bool kept = planUses(source.buffer);
        if (kept) {
          OpBuilder at(source.filler);
          htile::PlanGatherOp::create(at, source.filler.getLoc(),
                                      source.filler.getInputs(), source.buffer,
                                      source.filler.getIndicesAttr());
        }
        source.filler.erase();
        if (!kept)
          source.buffer.getDefiningOp()->erase();
      }
    }
  }
};

} // namespace
