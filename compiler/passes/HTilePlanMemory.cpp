//===- HTilePlanMemory.cpp - Place htile buffers in SRAM --------------===//

#include "compiler/passes/ChipLoader.h"
#include "compiler/passes/Passes.h"

#include <map>

namespace hetc {
#define GEN_PASS_DEF_HTILEPLANMEMORY
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

/// A buffer to place: its defining op, size and live range in op indices.
struct Buffer {
  Operation *def;
  int64_t vectors;
  int64_t first;
  int64_t last;
  int64_t address = -1;
};

/// The op that owns the storage of `value`, looking through views.
Operation *storageOf(Value value) {
  while (auto view = value.getDefiningOp<htile::ViewOp>())
    value = view.getSource();
  return value.getDefiningOp();
}

/// Places buffers first-fit in SRAM. The search starts in the slice after
/// the previous buffer's, so that buffers spread over slices, and avoids
/// the slices of buffers that one kernel reads together with the buffer
/// being placed: two vectors read in the same cycle from one slice's bank
/// would need the same port.
class Placer {
public:
  Placer(int64_t capacity, int64_t sliceVectors)
      : capacity(capacity), sliceVectors(sliceVectors),
        slices(capacity / sliceVectors) {}

  /// Places `b` clear of the `live` buffers, preferring slices that none
  /// of `partners` use.
  bool place(Buffer &b, ArrayRef<Buffer *> live, ArrayRef<Buffer *> partners) {
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (Buffer *other : live)
      taken.push_back({other->address, other->address + other->vectors});
    llvm::sort(taken);
    // Candidate starts: every slice start and every end of a taken range,
    // visited from the next slice on, wrapping around.
    SmallVector<int64_t> candidates;
    for (int64_t s = 0; s < slices; ++s)
      candidates.push_back(s * sliceVectors);
    for (auto [lo, hi] : taken)
      candidates.push_back(hi);
    auto rank = [&](int64_t address) {
      int64_t slice = address / sliceVectors;
      return std::make_pair((slice - nextSlice + slices) % slices, address);
    };
    llvm::sort(candidates,
               [&](int64_t x, int64_t y) { return rank(x) < rank(y); });
    for (bool avoidPartners : {true, false})
      for (int64_t start : candidates)
        if (fits(start, b.vectors, taken) &&
            (!avoidPartners || !sharesSlice(start, b.vectors, partners))) {
          b.address = start;
          nextSlice = (start / sliceVectors + 1) % slices;
          return true;
        }
    return false;
  }

private:
  bool fits(int64_t start, int64_t size,
            ArrayRef<std::pair<int64_t, int64_t>> taken) const {
    if (start + size > capacity)
      return false;
    return llvm::none_of(taken, [&](auto range) {
      return range.first < start + size && start < range.second;
    });
  }
  bool sharesSlice(int64_t start, int64_t size,
                   ArrayRef<Buffer *> partners) const {
    int64_t first = start / sliceVectors,
            last = (start + size - 1) / sliceVectors;
    return llvm::any_of(partners, [&](Buffer *p) {
      if (p->address < 0)
        return false;
      int64_t pFirst = p->address / sliceVectors,
              pLast = (p->address + p->vectors - 1) / sliceVectors;
      return pFirst <= last && first <= pLast;
    });
  }

  int64_t capacity;
  int64_t sliceVectors;
  int64_t slices;
  int64_t nextSlice = 0;
};

struct HTilePlanMemoryPass
    : hetc::impl::HTilePlanMemoryBase<HTilePlanMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(forEachFunctionOnChip(
            getOperation(), chip, getArgument(),
            [&](func::FuncOp func, const chip::ChipSpec &spec) {
              return plan(func, spec);
            })))
      signalPassFailure();
  }

  LogicalResult plan(func::FuncOp func, const chip::ChipSpec &spec) {
    // Number the ops and collect buffers with their live ranges.
    DenseMap<Operation *, int64_t> index;
    std::vector<Buffer> buffers;
    DenseMap<Operation *, size_t> bufferOf;
    int64_t end = 0;
    func.walk([&](Operation *op) { index[op] = end++; });
    func.walk([&](Operation *op) {
      if (!isa<htile::InputOp, htile::ConstantOp, htile::AllocOp>(op))
        return;
      auto type = cast<MemRefType>(op->getResult(0).getType());
      BufferLayout layout = layoutOf(type.getShape(), spec.lanes());
      bool wholeProgram = !isa<htile::AllocOp>(op);
      bufferOf[op] = buffers.size();
      buffers.push_back({op, std::max<int64_t>(layout.vectors(), 1),
                         wholeProgram ? 0 : index[op],
                         wholeProgram ? end : index[op]});
    });
    // Buffers a kernel reads or writes together are partners.
    std::vector<SmallVector<Buffer *>> partners(buffers.size());
    func.walk([&](Operation *op) {
      if (!isa<htile::BinaryOp, htile::UnaryOp, htile::CastOp,
               htile::SelectOp, htile::MatMulOp,
               htile::SoftmaxOp, htile::TransposeOp, htile::ReduceOp,
               htile::GatherOp>(op))
        return;
      SmallVector<size_t> ids;
      for (Value operand : op->getOperands()) {
        auto it = bufferOf.find(storageOf(operand));
        if (it != bufferOf.end())
          ids.push_back(it->second);
      }
      for (size_t a : ids)
        for (size_t other : ids)
          if (a != other)
            partners[a].push_back(&buffers[other]);
    });
    func.walk([&](Operation *op) {
      for (Value operand : op->getOperands()) {
        Operation *storage = storageOf(operand);
        auto it = bufferOf.find(storage);
        if (it == bufferOf.end())
          continue;
        Buffer &b = buffers[it->second];
        // Outputs are read after the program: they live to the end.
        b.last = std::max(b.last, isa<htile::OutputOp>(op) ? end : index[op]);
      }
    });

    // Place buffers in program order of their first use.
    std::vector<Buffer *> order;
    for (Buffer &b : buffers)
      order.push_back(&b);
    std::stable_sort(order.begin(), order.end(), [](Buffer *a, Buffer *b) {
      return a->first < b->first;
    });
    Placer placer(spec.totalVectors(), spec.vectorsPerSlice());
    std::vector<Buffer *> placed;
    int64_t peak = 0;
    for (Buffer *b : order) {
      SmallVector<Buffer *> live;
      int64_t liveVectors = b->vectors;
      for (Buffer *other : placed)
        if (other->first <= b->last && b->first <= other->last) {
          live.push_back(other);
          liveVectors += other->vectors;
        }
      peak = std::max(peak, liveVectors);
      if (!placer.place(*b, live, partners[b - buffers.data()]))
        return b->def->emitError("SRAM is full: this buffer needs ")
               << b->vectors << " vectors while " << liveVectors - b->vectors
               << " are in use; chip '" << spec.name() << "' has "
               << spec.totalVectors() << " vectors ("
               << spec.totalVectors() * spec.lanes() * chip::kElementBytes
               << " bytes)";
      placed.push_back(b);
    }
    Builder builder(func.getContext());
    for (Buffer &b : buffers)
      b.def->setAttr("address", builder.getI64IntegerAttr(b.address));
    func->setAttr("hetc.sram_peak_vectors", builder.getI64IntegerAttr(peak));
    return success();
  }
};

} // namespace
