//===- HTilePlanMemory.cpp - Place htile buffers in SRAM --------------===//

#include "compiler/dialects/hetc/IR/NodeName.h"
#include "compiler/passes/ChipLoader.h"
#include "compiler/passes/Passes.h"
#include "compiler/passes/SharedLayout.h"
#include "compiler/passes/SramPlacer.h"

#include "mlir/AsmParser/AsmParser.h"
#include "llvm/Support/Debug.h"

#include <cstdlib>

#define DEBUG_TYPE "hetc-htile-plan-memory"

namespace hetc {
#define GEN_PASS_DEF_HTILEPLANMEMORY
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

/// The elements of the tensor `buffer` holds: its own, or for a weight
/// interleaved for the planes (hetc-htile-interleave-weights), whose
/// buffer holds padding as elements too, the K x N of its matmul, and for
/// a packed column held in copies (hetc-htile-pack-columns), one copy.
int64_t ownElements(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  for (Operation *user : buffer.getUsers()) {
    if (auto matmul = dyn_cast<htile::MatMulOp>(user))
      if (matmul.getInterleave() && matmul.getWeight() == buffer)
        return matmul.getInput().getType().getDimSize(1) *
               matmul.getOutput().getType().getDimSize(1);
    if (auto binary = dyn_cast<htile::BinaryOp>(user))
      if (std::optional<htile::OperandSide> side = binary.getColumn())
        if ((*side == htile::OperandSide::lhs ? binary.getLhs()
                                              : binary.getRhs()) == buffer &&
            type.getRank() == 2)
          return type.getDimSize(1);
  }
  return type.getNumElements();
}

/// The bytes of the tensor `buffer` holds, at its element width (a byte
/// at least).
int64_t tensorBytesOf(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  return (ownElements(buffer) * int64_t(std::max(bits, 8u)) + 7) / 8;
}

/// The op that owns the storage of `value`, looking through views.
Operation *storageOf(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value.getDefiningOp();
}

/// Kernels, whose operands are read or written together.
bool isKernel(Operation *op) { return isa<DestinationStyleOpInterface>(op); }

/// Whether `op` is a kernel some of whose instructions read two of its
/// buffers in one cycle, so that the placer keeps them apart. A matmul
/// reads its input into the planes and each of its other buffers alone
/// into an instruction that takes the products from the planes, and a cast
/// or unary kernel reads one buffer: their buffers are not tied, and a
/// matmul's small input, apart from its weight, which lies in every slice,
/// may lie next to the vector unit.
bool tiesOperands(Operation *op) {
  return isKernel(op) &&
         !isa<htile::MatMulOp, htile::CastOp, htile::UnaryOp>(op);
}

/// An intermediate of at most this fraction of a slice would rather lie
/// near the vector unit (placement::Buffer::near).
constexpr int64_t kNearFraction = 64;

struct HTilePlanMemoryPass
    : hetc::impl::HTilePlanMemoryBase<HTilePlanMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(forEachFunctionOnChip(
            getOperation(), getArgument(),
            [&](func::FuncOp func, const chip::ChipSpec &spec) {
              return plan(func, spec);
            })))
      signalPassFailure();
  }

  LogicalResult plan(func::FuncOp func, const chip::ChipSpec &spec) {
    lanes = spec.lanes();
    // Number the ops and collect buffers with their live ranges.
    DenseMap<Operation *, int64_t> index;
    std::vector<placement::Buffer> buffers;
    SmallVector<Operation *> defs;
    DenseMap<Operation *, size_t> bufferOf;
    int64_t end = 0;
    func.walk([&](Operation *op) { index[op] = end++; });
    func.walk([&](Operation *op) {
      if (!isa<htile::InputOp, htile::ConstantOp, htile::AllocOp>(op))
        return;
      // A buffer only the kernel plan uses has no place on the chip.
      if (isa<htile::AllocOp>(op) && htile::isPlanOnlyBuffer(op->getResult(0)))
        return;
      auto type = cast<MemRefType>(op->getResult(0).getType());
      // Narrow types share rows (docs/isa.md, "Native width").
      BufferLayout layout = layoutOf(type, spec.lanes());
      bool wholeProgram = !isa<htile::AllocOp>(op);
      bufferOf[op] = buffers.size();
      defs.push_back(op);
      placement::Buffer b;
      b.size = std::max<int64_t>(layout.sramRows(), 1);
      b.first = wholeProgram ? 0 : index[op];
      b.last = wholeProgram ? end : index[op];
      // Small intermediates pass between kernels over the streams, one
      // trip a use; near the vector unit, each trip is short.
      b.near = !wholeProgram &&
               b.size * kNearFraction <= int64_t(spec.vectorsPerSlice()) &&
               b.size <= int64_t(spec.runVectors());
      buffers.push_back(std::move(b));
    });
    func.walk([&](Operation *op) {
      // The chip runs nothing for ops of the kernel plan only.
      if (htile::isPlanOnly(op))
        return;
      SmallVector<size_t> ids;
      for (Value operand : op->getOperands()) {
        auto it = bufferOf.find(storageOf(operand));
        if (it == bufferOf.end())
          continue;
        placement::Buffer &b = buffers[it->second];
        // Outputs are read after the program: they live to the end.
        b.last = std::max(b.last, isa<htile::OutputOp>(op) ? end : index[op]);
        ids.push_back(it->second);
      }
      if (!tiesOperands(op))
        return;
      for (size_t a : ids)
        for (size_t other : ids)
          if (a != other)
            buffers[a].partners.push_back(other);
    });

    placement::Geometry sram{
        int64_t(spec.totalVectors()),
        int64_t(spec.runVectors()),
        {},
        spec.interleaved() ? int64_t(spec.proto().memory().slices()) : 0};
    // The figures below are the program's own buffers'; a program sharing
    // another's layout must also fit beside all that one keeps.
    size_t own = buffers.size();
    FailureOr<std::optional<placement::ResidentLayout>> shared =
        placement::getSharedLayout(func->getParentOfType<ModuleOp>());
    if (failed(shared) ||
        (*shared && failed(pin(func, **shared, defs, buffers, end, sram))))
      return failure();
    sram.distance.reserve(spec.proto().memory().slices());
    for (uint32_t slice = 0; slice < spec.proto().memory().slices(); ++slice)
      sram.distance.push_back(std::abs(int64_t(spec.slicePosition(slice)) -
                                       int64_t(spec.vectorPosition())));
    placement::Peak peak = placement::peakLive(buffers);
    int64_t vectorBytes = int64_t(spec.lanes()) * chip::kElementBytes;
    if (peak.size > sram.capacity)
      return tooBig(func, spec, buffers, defs, peak, vectorBytes);
    int64_t live = peak.size;
    if (buffers.size() > own)
      peak = placement::peakLive({buffers.begin(), buffers.begin() + own});
    std::optional<std::vector<int64_t>> addresses;
    if (packResident) {
      std::vector<placement::Buffer> packed(buffers);
      packWholeProgram(defs, packed, sram);
      addresses = placeAll(func, packed, sram);
      LLVM_DEBUG(if (!addresses) llvm::dbgs()
                 << "@" << func.getName()
                 << ": the packed inputs and constants leave a buffer "
                    "without room; placing them with the rest\n");
    }
    if (!addresses)
      addresses = placeAll(func, buffers, sram);
    if (!addresses)
      return func.emitError("SRAM placement failed: at most ")
             << live << " of chip '" << spec.name() << "''s " << sram.capacity
             << " vectors are live at once, but no "
             << "placement of the buffers was found that leaves room for "
             << "each (the live buffers fragment SRAM)";

    Builder builder(func.getContext());
    for (auto [def, address] : llvm::zip(defs, *addresses))
      def->setAttr("address", builder.getI64IntegerAttr(address));
    func->setAttr("hetc.sram_peak_vectors",
                  builder.getI64IntegerAttr(peak.size));
    // What the tensors live at the peak hold in their own element width,
    // against which the compile summary sets the bytes their vectors take.
    int64_t tensorBytes = 0;
    for (auto [def, b] : llvm::zip(defs, buffers))
      if (b.first <= peak.at && peak.at <= b.last)
        tensorBytes += tensorBytesOf(def->getResult(0));
    func->setAttr("hetc.sram_peak_tensor_bytes",
                  builder.getI64IntegerAttr(tensorBytes));
    if (peakBuffers)
      recordPeakBuffers(func, defs, buffers, peak.at, vectorBytes);
    LLVM_DEBUG(llvm::dbgs() << "@" << func.getName() << ": " << buffers.size()
                            << " buffers, peak " << peak.size << " of "
                            << sram.capacity << " vectors\n");
    return success();
  }

  /// Records as `hetc.sram_peak_buffers` the `peakBuffers` buffers live at
  /// `at` whose vectors hold the most bytes beyond their tensor's.
  void recordPeakBuffers(func::FuncOp func, ArrayRef<Operation *> defs,
                         const std::vector<placement::Buffer> &buffers,
                         int64_t at, int64_t vectorBytes) {
    struct Entry {
      Operation *def;
      int64_t vectors, tensorBytes, padding;
    };
    std::vector<Entry> live;
    for (auto [def, b] : llvm::zip(defs, buffers))
      if (b.first <= at && at <= b.last) {
        int64_t bytes = tensorBytesOf(def->getResult(0));
        live.push_back({def, b.size, bytes, b.size * vectorBytes - bytes});
      }
    std::stable_sort(live.begin(), live.end(),
                     [](const Entry &a, const Entry &b) {
                       return a.padding > b.padding;
                     });
    live.resize(std::min<size_t>(live.size(), peakBuffers));
    Builder builder(func.getContext());
    SmallVector<Attribute> entries;
    for (const Entry &e : live) {
      // An input by its name, anything else by its ONNX node.
      auto input = dyn_cast<htile::InputOp>(e.def);
      std::string node = input ? "input '" + input.getName().str() + "'"
                               : nodeNameOf(e.def->getLoc());
      entries.push_back(builder.getDictionaryAttr({
          builder.getNamedAttr("node", builder.getStringAttr(node)),
          builder.getNamedAttr(
              "type", TypeAttr::get(e.def->getResult(0).getType())),
          builder.getNamedAttr("vectors",
                               builder.getI64IntegerAttr(e.vectors)),
          builder.getNamedAttr("tensor_bytes",
                               builder.getI64IntegerAttr(e.tensorBytes)),
      }));
    }
    func->setAttr(target::kSramPeakBuffersAttrName,
                  builder.getArrayAttr(entries));
  }

  /// Places `buffers`: spread over slices, clear of their kernels' other
  /// operands, as long as that leaves room; otherwise packed, best fit,
  /// then first fit.
  static std::optional<std::vector<int64_t>>
  placeAll(func::FuncOp func, const std::vector<placement::Buffer> &buffers,
           const placement::Geometry &sram) {
    std::optional<std::vector<int64_t>> addresses =
        placement::place(buffers, sram, placement::Preference::Spread);
    if (!addresses) {
      LLVM_DEBUG(llvm::dbgs() << "@" << func.getName() << ": spreading left a "
                              << "buffer without room; packing\n");
      addresses = placement::place(buffers, sram, placement::Preference::Pack);
    }
    if (!addresses) {
      LLVM_DEBUG(llvm::dbgs() << "@" << func.getName() << ": best fit left a "
                              << "buffer without room; first fit\n");
      addresses =
          placement::place(buffers, sram, placement::Preference::PackFirstFit);
    }
    return addresses;
  }

  /// Fixes the inputs and constants among `defs` at the two ends of SRAM
  /// (placement::packAtEnds). A program placed into a shared layout, whose
  /// ends another program holds, places its few own ones with the rest.
  static void packWholeProgram(ArrayRef<Operation *> defs,
                               std::vector<placement::Buffer> &buffers,
                               const placement::Geometry &sram) {
    if (llvm::any_of(buffers, [](const auto &b) { return b.fixed; }))
      return;
    // Partners keep apart (two operands of one kernel read in one cycle
    // from one bank cannot be scheduled), among those placed here.
    std::vector<placement::Buffer> resident;
    std::vector<size_t> index;
    std::vector<int64_t> at(buffers.size(), -1);
    for (size_t i = 0; i < defs.size(); ++i) {
      if (isa<htile::AllocOp>(defs[i]))
        continue;
      at[i] = int64_t(resident.size());
      resident.push_back(buffers[i]);
      index.push_back(i);
    }
    for (placement::Buffer &b : resident) {
      std::vector<size_t> partners;
      for (size_t p : b.partners)
        if (at[p] >= 0)
          partners.push_back(size_t(at[p]));
      b.partners = std::move(partners);
    }
    placement::packAtEnds(resident, sram);
    for (auto [i, b] : llvm::zip(index, resident))
      buffers[i].fixed = b.fixed;
  }

  /// Where `input` lies in a shared layout that keeps `kept` of its name:
  /// at its address when the types agree; for a program of one batch slot
  /// (`slot`), at that slot's rows of it, when `input` is one slot of it.
  FailureOr<int64_t> pinnedAddress(htile::InputOp input,
                                   const placement::ResidentLayout::Input &kept,
                                   std::optional<int64_t> slot) {
    auto printed = [](Type type) {
      std::string text;
      llvm::raw_string_ostream os(text);
      type.print(os);
      return text;
    };
    auto mine = cast<MemRefType>(input.getBuffer().getType());
    std::string type = printed(mine);
    if (type == kept.type)
      return kept.address;
    auto whole =
        dyn_cast_or_null<MemRefType>(parseType(kept.type, input.getContext()));
    if (slot && whole && whole.getRank() == mine.getRank() &&
        mine.getRank() > 0 && mine.getDimSize(0) == 1 &&
        *slot < whole.getDimSize(0) &&
        mine.getElementType() == whole.getElementType() &&
        mine.getShape().drop_front() == whole.getShape().drop_front()) {
      int64_t rows = layoutOf(mine, lanes).sramRows();
      if (rows * whole.getDimSize(0) == layoutOf(whole, lanes).sramRows())
        return kept.address + *slot * rows;
    }
    return input.emitError("input '")
           << input.getName() << "' is " << type
           << " here, but the program whose SRAM layout this one shares "
              "keeps it on the chip as "
           << kept.type
           << (slot ? " (of which one batch slot's rows would be [1, ...])"
                    : "");
  }

  /// Gives the buffers of `defs` that `layout` holds (inputs by name,
  /// constants by contents) its addresses, and adds a buffer live
  /// throughout, fixed where it lies, for each other region it keeps.
  LogicalResult pin(func::FuncOp func, const placement::ResidentLayout &layout,
                    ArrayRef<Operation *> defs,
                    std::vector<placement::Buffer> &buffers, int64_t end,
                    const placement::Geometry &sram) {
    llvm::DenseMap<uint64_t, int64_t> constants;
    for (auto [fingerprint, address] : layout.constants)
      constants.try_emplace(fingerprint, address);
    for (auto [def, b] : llvm::zip(defs, buffers)) {
      if (auto constant = dyn_cast<htile::ConstantOp>(def)) {
        auto it = constants.find(placement::fingerprintConstant(constant));
        if (it != constants.end())
          b.fixed = it->second;
        continue;
      }
      auto input = dyn_cast<htile::InputOp>(def);
      if (!input)
        continue;
      auto kept = llvm::find_if(layout.inputs, [&](const auto &in) {
        return in.name == input.getName();
      });
      if (kept == layout.inputs.end())
        continue;
      FailureOr<int64_t> address = pinnedAddress(input, *kept, layout.slot);
      if (failed(address))
        return failure();
      b.fixed = *address;
    }
    for (const placement::ResidentLayout::Region &region : layout.kept) {
      if (region.vectors > sram.capacity ||
          region.address > sram.capacity - region.vectors)
        return func.emitError("the shared SRAM layout keeps vectors ")
               << region.address << " to "
               << region.address + region.vectors - 1 << ", beyond the "
               << sram.capacity << " vectors of the chip";
      bool used = llvm::any_of(buffers, [&](const placement::Buffer &b) {
        return b.fixed == region.address && b.size == region.vectors;
      });
      if (used || region.vectors == 0)
        continue;
      placement::Buffer b;
      b.size = region.vectors;
      b.first = 0;
      b.last = end;
      b.fixed = region.address;
      buffers.push_back(std::move(b));
    }
    return success();
  }

  /// The chip's lanes, for the layouts of buffers.
  uint32_t lanes = 1;

  /// The error of a program whose live data exceed SRAM: the bytes it
  /// needs, where, and how many chips of this kind would hold them.
  LogicalResult tooBig(func::FuncOp func, const chip::ChipSpec &spec,
                       const std::vector<placement::Buffer> &buffers,
                       ArrayRef<Operation *> defs, placement::Peak peak,
                       int64_t vectorBytes) {
    int64_t resident = 0;
    for (auto [b, def] : llvm::zip(buffers, defs))
      if (!isa<htile::AllocOp>(def))
        resident += b.size;
    // What a shared layout keeps beside the program's own buffers.
    for (size_t i = defs.size(); i < buffers.size(); ++i)
      resident += buffers[i].size;
    int64_t capacity = spec.totalVectors();
    int64_t chips = (peak.size + capacity - 1) / capacity;
    // The op at the peak names the node whose data are then live.
    Operation *at = nullptr;
    int64_t point = 0;
    func.walk([&](Operation *op) {
      if (point++ == peak.at)
        at = op;
    });
    InFlightDiagnostic diag =
        func.emitError("the program does not fit in SRAM: it needs ");
    diag << peak.size * vectorBytes << " bytes at its peak ("
         << resident * vectorBytes
         << " in weights, constants and inputs, the rest in intermediate "
            "results), chip '"
         << spec.name() << "' has " << capacity * vectorBytes
         << " bytes; it would take " << chips
         << " chips of this kind (placement over several chips is not "
            "supported yet); narrower weights take fewer bytes "
            "(hetc compile --precision fp16, bf16 or int8, "
            "docs/precision.md)";
    diag.attachNote(at ? at->getLoc() : func.getLoc())
        << "the most data are live here";
    return diag;
  }
};

} // namespace
