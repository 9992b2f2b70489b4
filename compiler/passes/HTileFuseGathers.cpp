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
// trip instead of two.
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
      // others stay inputs. The fused gather's inputs are the list of
      // both, each buffer once.
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
      // Per reader input: the filler absorbed (or null), and where each of
      // its (or the filler's) inputs lies in the fused list.
      struct Source {
        Value buffer;
        htile::GatherOp filler;
        SmallVector<int64_t> fillerStarts, fillerAt;
        int64_t elements;
      };
      SmallVector<Source> sources;
      bool fuses = false;
      for (Value input : reader.getInputs()) {
        Source source{input, {}, {}, {}, 0};
        source.elements = cast<MemRefType>(input.getType()).getNumElements();
        if (llvm::count(reader.getInputs(), input) == 1)
          source.filler = soleFiller(input, reader);
        sources.push_back(std::move(source));
      }
      for (Source &source : sources) {
        if (!source.filler)
          continue;
        fuses = true;
        int64_t start = 0;
        for (Value input : source.filler.getInputs()) {
          source.fillerStarts.push_back(start);
          source.fillerAt.push_back(inputAt(input));
          start += cast<MemRefType>(input.getType()).getNumElements();
        }
      }
      if (!fuses)
        continue;
      SmallVector<int64_t> readerAt; // each source's place, or -1
      for (Source &source : sources)
        readerAt.push_back(source.filler ? -1 : inputAt(source.buffer));
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
        Source &source = sources[k];
        if (!source.filler) {
          indices.push_back(readerAt[k] + i);
          continue;
        }
        int64_t g = source.filler.getIndices()[i];
        if (g < 0) {
          indices.push_back(-1);
          continue;
        }
        size_t j = llvm::upper_bound(source.fillerStarts, g) -
                   source.fillerStarts.begin() - 1;
        indices.push_back(source.fillerAt[j] + g - source.fillerStarts[j]);
      }
      OpBuilder b(reader);
      // Named for the op whose result it fills, then the ones it absorbs.
      SmallVector<Location> locs = {reader.getLoc()};
      for (Source &source : sources)
        if (source.filler)
          locs.push_back(source.filler.getLoc());
      htile::GatherOp::create(b, b.getFusedLoc(locs), inputs,
                              reader.getOutput(),
                              b.getDenseI64ArrayAttr(indices), IntegerAttr());
      reader.erase();
      for (Source &source : sources)
        if (source.filler) {
          source.filler.erase();
          // An op of the kernel plan only that uses the buffer goes with
          // it: the plan then runs the kernels it stood for.
          for (Operation *user :
               llvm::make_early_inc_range(source.buffer.getUsers()))
            if (htile::isPlanOnly(user))
              user->erase();
          source.buffer.getDefiningOp()->erase();
        }
    }
  }
};

} // namespace
