//===- HTileFuseGathers.cpp - One gather for a chain of gathers ----------===//
//
// A gather that reads only the buffer another gather fills, and is that
// buffer's only reader, reads through it instead: its indices are mapped
// through the first gather's, and the first gather and its buffer go. On
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
    if (user == reader.getOperation())
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
      if (reader.getInputs().size() != 1 || reader.getFirstRow())
        continue;
      Value middle = reader.getInputs().front();
      htile::GatherOp filler = soleFiller(middle, reader);
      if (!filler)
        continue;
      ArrayRef<int64_t> first = filler.getIndices();
      SmallVector<int64_t> indices;
      indices.reserve(reader.getIndices().size());
      for (int64_t i : reader.getIndices())
        indices.push_back(i < 0 ? -1 : first[i]);
      OpBuilder b(reader);
      // Named for the op whose result it fills, then the one it absorbs.
      Location loc = b.getFusedLoc({reader.getLoc(), filler.getLoc()});
      htile::GatherOp::create(b, loc, filler.getInputs(), reader.getOutput(),
                              b.getDenseI64ArrayAttr(indices), IntegerAttr());
      reader.erase();
      filler.erase();
      middle.getDefiningOp()->erase();
    }
  }
};

} // namespace
