//===- HIsaSchedule.cpp - Give hisa instructions their cycles ---------===//
//
// Translates the instructions of each function into a hetc::sched::Problem
// and writes the solution back as `cycle` and `stream` attributes. The
// translation is where the chip's rules meet the scheduler's model:
//   - resources: a bank of a MEM slice, the vector unit's ALUs, each plane,
//     and the dispatcher: at most `dispatch.per_cycle` instructions issue
//     in any cycle, so that the dispatcher can always place each one in
//     its queue the cycle before (docs/isa.md, rule 9);
//   - transfers: a !hisa.vec value, from its producer to its readers; a
//     gather is one op per slice of its chain, each a reader of the index,
//     and the one nearest the index's producer stands for the chain as
//     the producer of the row (docs/isa.md, "Indexed reads"); a scatter
//     likewise, each op a reader of the index and value that pass it;
//   - dependences: SRAM read/write order per address (DMA_IN writes,
//     DMA_OUT reads; each op of a gather's chain reads, and of a
//     scatter's writes, every row of the table its slice holds), a plane's
//     weight loads against the matmuls that use (or must finish before) them,
//     and each DMA engine's instructions in program order, one vector time
//     apart.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/ChipLoader.h"
#include "compiler/passes/Passes.h"
#include "compiler/scheduler/Scheduler.h"

#include <map>
#include <numeric>

namespace hetc {
#define GEN_PASS_DEF_HISASCHEDULE
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

/// Builds the scheduling problem for one function's instructions.
class ProblemBuilder {
public:
  explicit ProblemBuilder(const chip::ChipSpec &chip) : chip(chip) {
    problem.setStreams({int64_t(chip.proto().streams().hop_cycles()),
                        chip.streamGroups(), chip.streamGroupWidth()});
  }

  /// Makes room for `ops` ops of which `results` give a value, with a
  /// quarter more scheduling ops (barriers, gather and scatter chains) and
  /// half more dependences than ops, as the model suite's programs have.
  void reserve(size_t ops, size_t results) {
    problem.reserve(ops + ops / 4, results, ops + ops / 2);
    opOf.reserve(ops + ops / 4);
    chainMember.reserve(ops + ops / 4);
    idOf.reserve(unsigned(std::min<size_t>(ops, size_t(1) << 31)));
  }
  LogicalResult add(Operation *op);
  LogicalResult addTransfers();
  /// Checks that each scatter's chain issues as its op's one cycle says
  /// (the emitter derives the others from it): every slice at the cycle
  /// its distance from the pairs' unit gives.
  LogicalResult checkScatterCycles(ArrayRef<int64_t> cycles) const;

  sched::Problem problem;
  /// The hisa op of each scheduling op id; null for barriers.
  std::vector<Operation *> opOf;
  /// Per scheduling op id: whether it is a gather's instruction other than
  /// the one that stands for the chain (whose cycle the op carries).
  std::vector<bool> chainMember;

private:
  sched::ResourceId resource(const std::string &name, uint32_t capacity) {
    auto [it, inserted] = resources.try_emplace(name, 0);
    if (inserted)
      it->second = problem.addResource(name, capacity);
    return it->second;
  }
  sched::OpId addOp(Operation *op, int64_t latency, int64_t position,
                    std::vector<sched::ResourceId> uses) {
    opOf.push_back(op);
    chainMember.push_back(false);
    sched::OpId id =
        problem.addOperation(op ? op->getName().getStringRef().str() + "#" +
                                      std::to_string(opOf.size() - 1)
                                : "barrier#" + std::to_string(opOf.size() - 1),
                             latency, position, std::move(uses));
    if (op)
      idOf[op] = id;
    return id;
  }
  /// Adds a gather's chain: one op per slice holding rows of its table.
  LogicalResult addGather(hisa::GatherOp op);
  /// Adds a scatter's chain: one op per slice holding rows of its table,
  /// each reading the pair of index and value that passes its slice.
  LogicalResult addScatter(hisa::ScatterOp op);
  /// Calls `each` once for every SRAM row of `band`'s slice that holds a
  /// vector of its table rows: the table's first vector at SRAM word
  /// `first`, `step` words from row to row (narrow rows share SRAM rows).
  void forEachTableRow(const hisa::GatherBand &band, int64_t first,
                       int64_t step, function_ref<void(int64_t)> each) const {
    int64_t previous = -1;
    for (int64_t row = band.rowBegin; row < band.rowEnd; ++row) {
      int64_t address = (first + row * step) / 4;
      if (address != previous && chip.sliceOf(uint64_t(address)) == band.slice)
        each(address);
      previous = address;
    }
  }
  /// The scheduling resources of every bank port of `slice`, and the
  /// dispatcher: what an indexed access takes.
  std::vector<sched::ResourceId> indexedUses(uint32_t slice);
  /// Orders an access to SRAM `address`, made `offset` cycles after `id`
  /// issues (a later issue of a train), after the earlier ones; a write
  /// stores `latency` cycles after that.
  void addMemoryAccess(sched::OpId id, int64_t address, bool isWrite,
                       int64_t latency = 0, int64_t offset = 0);
  /// Adds the barrier a plane needs before an op that starts a new phase
  /// (writing or multiplying by) of its weight array.
  void beginPlaneOp(int32_t plane, bool isLoad);
  /// Orders a plane's load, install or matmul after the barrier of its
  /// phase, and a matmul that keeps the plane `busy` cycles before the
  /// next one; a buffered load after the install that took the buffer's
  /// last contents, and an install after the buffered loads it installs.
  void endPlaneOp(sched::OpId id, const hisa::PlaneUse &use, uint32_t busy);

  /// SRAM order per address: the last write, the cycles after its op's
  /// issue at which it issued and stored, and the reads since, each with
  /// the cycles after its op's issue at which it read.
  struct AddressState {
    std::optional<sched::OpId> lastWrite;
    int64_t lastWriteIssue = 0, lastWriteStore = 0;
    std::vector<std::pair<sched::OpId, int32_t>> reads;
  };
  /// Weight-buffer order per plane: the current tile's loads and matmuls,
  /// and the barrier ops that separate tiles.
  struct PlaneState {
    bool computing = false;
    std::vector<sched::OpId> loads, matmuls;
    std::optional<sched::OpId> loaded, drained;
    /// Cycles each matmul of the phase keeps the plane busy.
    uint32_t busy = 1;
  };
  /// Weight-buffer order per plane: the loads since the last install, and
  /// that install.
  struct BufferState {
    std::vector<sched::OpId> loads;
    std::optional<sched::OpId> installed;
  };

  const chip::ChipSpec &chip;
  std::map<std::string, sched::ResourceId> resources;
  DenseMap<Operation *, sched::OpId> idOf;
  /// Every scheduling op of a gather's chain, the one standing for it
  /// first, and where the chain ends away from the index.
  struct Chain {
    std::vector<sched::OpId> ops;
    int64_t near = 0, far = 0;
    /// Whether the index, and so the row, flows east.
    bool east = true;
    /// A scatter's: the pair of index and value each op reads, and the
    /// floorplan position of the unit that sends the pairs.
    std::vector<unsigned> pairs;
    int64_t from = 0;
  };
  DenseMap<Operation *, Chain> chains;
  /// The SRAM ranges [begin, end) that constants fill.
  std::vector<std::pair<int64_t, int64_t>> constantRanges;
  std::map<int64_t, AddressState> addresses;
  std::map<int32_t, PlaneState> planes;
  std::map<int32_t, BufferState> buffers;
  /// The latest instruction of each DMA engine.
  std::map<int32_t, sched::OpId> lastDma;
  /// Per C2C link: its sends and receives so far, in program order.
  struct LinkState {
    std::vector<sched::OpId> sends, recvs;
  };
  std::map<int32_t, LinkState> links;
  void addLinkOrder(sched::OpId id, int32_t link, bool isSend);
};

void ProblemBuilder::addMemoryAccess(sched::OpId id, int64_t address,
                                     bool isWrite, int64_t latency,
                                     int64_t offset) {
  AddressState &state = addresses[address];
  if (!isWrite) {
    // Read after write: the write has stored its vector.
    if (state.lastWrite)
      problem.addDependence(*state.lastWrite, id,
                            state.lastWriteStore - offset);
    state.reads.push_back({id, int32_t(offset)});
    return;
  }
  // Write after read / write: the write issues after them, so no read sees
  // it in flight, and it stores after the previous write stored, so writes
  // land in program order.
  for (auto [read, at] : state.reads)
    problem.addDependence(read, id, at + 1 - offset);
  if (state.lastWrite)
    problem.addDependence(
        *state.lastWrite, id,
        std::max(state.lastWriteIssue + 1, state.lastWriteStore - latency + 1) -
            offset);
  state.lastWrite = id;
  state.lastWriteIssue = offset;
  state.lastWriteStore = offset + latency;
  state.reads.clear();
}

void ProblemBuilder::beginPlaneOp(int32_t plane, bool isLoad) {
  PlaneState &state = planes[plane];
  // A barrier (an op without resources) joins a phase's ops so each op of
  // the next phase needs one dependence instead of one per op.
  if (isLoad && state.computing) {
    sched::OpId barrier = addOp(nullptr, 0, sched::kNoPosition, {});
    for (sched::OpId mm : state.matmuls)
      problem.addDependence(mm, barrier,
                            problem.getOperation(mm).lastIssue() + state.busy);
    state = PlaneState{false, {}, {}, std::nullopt, barrier};
  } else if (!isLoad && !state.computing) {
    sched::OpId barrier = addOp(nullptr, 0, sched::kNoPosition, {});
    // A train's last row is installed after its last issue.
    for (sched::OpId load : state.loads)
      problem.addDependence(load, barrier,
                            problem.getOperation(load).lastIssue() +
                                chip.proto().latency().matrix_load());
    state.computing = true;
    state.loaded = barrier;
  }
}

void ProblemBuilder::endPlaneOp(sched::OpId id, const hisa::PlaneUse &use,
                                uint32_t busy) {
  int64_t load = chip.proto().latency().matrix_load();
  BufferState &buffer = buffers[use.plane];
  if (use.kind == hisa::PlaneUse::BufferLoad) {
    // The install before took the buffer's contents at its issue.
    if (buffer.installed)
      problem.addDependence(*buffer.installed, id, 1);
    buffer.loads.push_back(id);
    return;
  }
  if (use.kind == hisa::PlaneUse::Install) {
    // Every buffered row has stored (a train's last after its last issue).
    for (sched::OpId loaded : buffer.loads)
      problem.addDependence(loaded, id,
                            problem.getOperation(loaded).lastIssue() + load);
    buffer = BufferState{{}, id};
  }
  PlaneState &state = planes[use.plane];
  if (use.writesArray()) {
    // The next tile's weights overwrite the plane only after every matmul
    // of the previous tile has issued.
    if (state.drained)
      problem.addDependence(*state.drained, id, 0);
    state.loads.push_back(id);
  } else {
    problem.addDependence(*state.loaded, id, 0);
    // A matmul that keeps the plane busy for several cycles (16- and
    // 32-bit inputs) lets the next one issue only after them; the plane
    // takes its matmuls in program order then.
    if (busy > 1 && !state.matmuls.empty())
      problem.addDependence(
          state.matmuls.back(), id,
          problem.getOperation(state.matmuls.back()).lastIssue() + busy);
    state.busy = busy;
    state.matmuls.push_back(id);
  }
}

void ProblemBuilder::addLinkOrder(sched::OpId id, int32_t link, bool isSend) {
  LinkState &state = links[link];
  const chip::ChipToChip &c2c = chip.proto().c2c();
  size_t k = isSend ? state.sends.size() : state.recvs.size();
  if (isSend) {
    // One vector at a time over the link.
    if (k > 0)
      problem.addDependence(state.sends.back(), id, chip.linkCyclesPerVector());
    // The receive buffer holds c2c.receive_buffer vectors: this one may
    // arrive only after the receive that frees its place.
    size_t buffer = c2c.receive_buffer();
    if (k >= buffer && k - buffer < state.recvs.size())
      problem.addDependence(state.recvs[k - buffer], id,
                            1 - int64_t(c2c.latency()));
    state.sends.push_back(id);
    return;
  }
  // The k-th receive takes the k-th vector sent, once it has arrived.
  if (k < state.sends.size())
    problem.addDependence(state.sends[k], id, c2c.latency());
  if (k > 0)
    problem.addDependence(state.recvs.back(), id, 1);
  state.recvs.push_back(id);
}

std::vector<sched::ResourceId> ProblemBuilder::indexedUses(uint32_t slice) {
  // The address is known only at issue: every bank port of the slice.
  uint32_t ports = chip.proto().memory().accesses_per_bank_per_cycle();
  std::vector<sched::ResourceId> uses;
  for (uint32_t b = 0; b < chip.proto().memory().banks_per_slice(); ++b) {
    sched::ResourceId bank = resource(hisa::bankResource(slice, b), ports);
    uses.insert(uses.end(), ports, bank);
  }
  uses.push_back(resource("dispatch", chip.proto().dispatch().per_cycle()));
  return uses;
}

LogicalResult ProblemBuilder::addScatter(hisa::ScatterOp op) {
  auto [firstWord, stepWords] =
      hisa::tableWords(op.getTable(), int32_t(op.getPart().value_or(0)),
                       op.getStride(), hisa::dtypeOf(op));
  int64_t first = int64_t(firstWord), step = int64_t(stepWords);
  int64_t last = (first + (op.getRows() - 1) * step) / 4;
  if (llvm::any_of(constantRanges, [&](std::pair<int64_t, int64_t> range) {
        return range.first <= last && op.getTable() < range.second;
      }))
    return op.emitError("scatters to rows ")
           << op.getTable() << " to " << last
           << ", which a constant holds; constants are never written";
  // Where each pair comes from: both of a pair, and every pair, from one
  // unit, so that the chain's cycles follow from one origin.
  std::optional<int64_t> from;
  for (Value value : op->getOperands()) {
    Operation *source = value.getDefiningOp();
    auto it = source ? idOf.find(source) : idOf.end();
    if (it == idOf.end())
      return op.emitError("its index or value has no producing instruction");
    int64_t at = problem.getOperation(it->second).position;
    if (from && *from != at)
      return op.emitError("its indices and values come from floorplan "
                          "positions ")
             << *from << " and " << at
             << "; a scatter's chain reads them from one unit";
    from = at;
  }
  std::vector<hisa::GatherBand> bands = op.getBands(chip);
  unsigned pairs = op.getValues().size();
  Chain chain;
  for (const hisa::GatherBand &band : bands) {
    if (band.position == *from ||
        (pairs == 1 &&
         (band.position > *from) != (bands.front().position > *from)))
      return op.emitError("its table spans MEM slices at positions ")
             << bands.front().position << " to " << bands.back().position
             << " around its values' unit at position " << *from
             << "; it needs a pair of index and value for each side";
    chain.pairs.push_back(pairs == 2 && band.position > *from ? 1 : 0);
  }
  // Nearest the unit first: that op stands for the chain and carries its
  // cycle.
  std::vector<size_t> order(bands.size());
  std::iota(order.begin(), order.end(), 0);
  auto distance = [&](size_t b) { return std::abs(bands[b].position - *from); };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return distance(a) < distance(b);
  });
  std::vector<unsigned> pairOf;
  int64_t latency = chip.proto().latency().mem_write();
  for (size_t b : order) {
    const hisa::GatherBand &band = bands[b];
    sched::OpId id = addOp(op, latency, band.position, indexedUses(band.slice));
    chainMember.back() = !chain.ops.empty();
    chain.ops.push_back(id);
    pairOf.push_back(chain.pairs[b]);
    // The row is known only at issue: a write of every row the slice
    // holds.
    forEachTableRow(band, first, step, [&](int64_t address) {
      addMemoryAccess(id, address, true, latency);
    });
  }
  chain.pairs = std::move(pairOf);
  chain.from = *from;
  chain.near = bands[order.front()].position;
  chain.far = bands[order.back()].position;
  idOf[op] = chain.ops.front();
  chains[op] = std::move(chain);
  return success();
}

LogicalResult
ProblemBuilder::checkScatterCycles(ArrayRef<int64_t> cycles) const {
  int64_t hop = chip.proto().streams().hop_cycles();
  for (const auto &[op, chain] : chains) {
    if (!isa<hisa::ScatterOp>(op))
      continue;
    auto distance = [&, &chain = chain](sched::OpId id) {
      return std::abs(problem.getOperation(id).position - chain.from) * hop;
    };
    int64_t origin = cycles[chain.ops.front()] - distance(chain.ops.front());
    for (sched::OpId id : chain.ops)
      if (cycles[id] != origin + distance(id))
        return op->emitError("its slices issue at cycles that no one cycle "
                             "of its index and value pairs gives (the slice "
                             "at floorplan position ")
               << problem.getOperation(id).position << " at " << cycles[id]
               << ", not " << origin + distance(id)
               << "); its pairs must leave their unit in one cycle";
  }
  return success();
}

LogicalResult ProblemBuilder::addGather(hisa::GatherOp op) {
  // The SRAM words of the table's first vector and from row to row
  // (verifyOnChip has found the table inside SRAM).
  auto [firstWord, stepWords] =
      hisa::tableWords(op.getTable(), int32_t(op.getPart().value_or(0)),
                       op.getStride(), hisa::dtypeOf(op));
  int64_t first = int64_t(firstWord), step = int64_t(stepWords);
  int64_t last = (first + (op.getRows() - 1) * step) / 4;
  // A table of constants is never written: nothing to order against.
  bool constant =
      llvm::any_of(constantRanges, [&](std::pair<int64_t, int64_t> range) {
        return range.first <= op.getTable() && last < range.second;
      });
  Operation *source = op.getIndex().getDefiningOp();
  auto it = source ? idOf.find(source) : idOf.end();
  if (it == idOf.end())
    return op.emitError("its index has no producing instruction");
  int64_t from = problem.getOperation(it->second).position;
  std::vector<hisa::GatherBand> bands = op.getBands(chip);
  bool east = bands.front().position > from;
  if (llvm::any_of(bands, [&](const hisa::GatherBand &band) {
        return (band.position > from) != east || band.position == from;
      }))
    return op.emitError("its index comes from floorplan position ")
           << from << ", among the MEM slices of its table (positions "
           << bands.front().position << " to " << bands.back().position
           << "); it must come from beyond them on one side";
  // Nearest the index first: that op stands for the chain.
  if (!east)
    std::reverse(bands.begin(), bands.end());
  Chain chain;
  for (const hisa::GatherBand &band : bands) {
    sched::OpId id = addOp(op, chip.proto().latency().mem_read(), band.position,
                           indexedUses(band.slice));
    chainMember.back() = !chain.ops.empty();
    chain.ops.push_back(id);
    // The row is known only at issue: a read of every row the slice
    // holds, after their writes.
    if (!constant)
      forEachTableRow(band, first, step, [&](int64_t address) {
        addMemoryAccess(id, address, false);
      });
  }
  chain.near = bands.front().position;
  chain.far = bands.back().position;
  chain.east = east;
  idOf[op] = chain.ops.front();
  chains[op] = std::move(chain);
  return success();
}

LogicalResult ProblemBuilder::add(Operation *op) {
  if (auto constant = dyn_cast<hisa::ConstantOp>(op)) {
    auto type = cast<ShapedType>(constant.getValue().getType());
    int64_t rows = layoutOf(type, chip.lanes()).sramRows();
    constantRanges.push_back({int64_t(constant.getAddress()),
                              int64_t(constant.getAddress()) + rows});
    return success();
  }
  auto inst = dyn_cast<hisa::InstructionOpInterface>(op);
  if (!inst)
    return success();
  if (failed(inst.verifyOnChip(chip)))
    return failure();
  if (auto gather = dyn_cast<hisa::GatherOp>(op))
    return addGather(gather);
  if (auto scatter = dyn_cast<hisa::ScatterOp>(op))
    return addScatter(scatter);
  std::optional<hisa::IssueInfo> info = inst.describe(chip);
  if (!info)
    return success();
  std::optional<hisa::PlaneUse> plane = inst.getPlaneUse();
  bool buffered = plane && plane->kind == hisa::PlaneUse::BufferLoad;
  if (plane && !buffered)
    beginPlaneOp(plane->plane, plane->writesArray());
  // A load into the weight buffer takes the buffer's port, beside the
  // array's.
  std::vector<sched::ResourceId> uses = {
      resource(buffered ? info->unit + ".buffer" : info->unit, info->capacity)};
  // A matmul or an install takes its plane whole: no weight load beside it.
  if (plane && (plane->kind == hisa::PlaneUse::Multiply ||
                plane->kind == hisa::PlaneUse::Install))
    uses.insert(uses.end(), info->capacity - 1, uses.front());
  sched::OpId id = addOp(op, info->latency, info->position, std::move(uses));
  // The dispatcher places an instruction, and a train, once.
  problem.addFirstUse(
      id, resource("dispatch", chip.proto().dispatch().per_cycle()));
  hisa::TrainAttr train = inst.getTrain();
  if (train)
    problem.setRepeat(id, train.getCount(), train.getEvery());
  if (plane)
    endPlaneOp(id, *plane, info->occupancy);
  // A write (MEM_WRITE, DMA_IN) stores its vector `latency` cycles after
  // it issues; a train accesses one row at each issue.
  if (std::optional<hisa::MemoryAccess> access = inst.getMemoryAccess()) {
    uint32_t count = train ? train.getCount() : 1;
    for (uint32_t k = 0; k < count; ++k) {
      int64_t row =
          train ? hisa::issueWord(access->row, int32_t(access->part),
                                  hisa::dtypeOf(op), train.getStep(), k) /
                      4
                : access->row;
      addMemoryAccess(id, row, access->isWrite,
                      access->isWrite ? info->latency : 0,
                      train ? int64_t(k) * train.getEvery() : 0);
    }
  }
  if (std::optional<hisa::LinkUse> link = inst.getLinkUse())
    addLinkOrder(id, link->link, link->isSend);
  if (std::optional<int32_t> engine = inst.getDmaEngine()) {
    // An engine takes its instructions in program order, one vector at a
    // time.
    auto [it, first] = lastDma.try_emplace(*engine, id);
    if (!first) {
      problem.addDependence(it->second, id, chip.dmaCyclesPerVector());
      it->second = id;
    }
  }
  return success();
}

LogicalResult ProblemBuilder::addTransfers() {
  for (auto [id, op] : llvm::enumerate(opOf)) {
    if (!op || op->getNumResults() == 0 || chainMember[id])
      continue;
    Value value = op->getResult(0);
    if (value.use_empty())
      return op->emitError("emits a vector that no instruction reads");
    auto chain = chains.find(op);
    std::vector<sched::OpId> consumers;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      auto readers = chains.find(user);
      std::vector<sched::OpId> ids;
      if (readers == chains.end()) {
        ids.push_back(idOf.lookup(user));
      } else if (auto scatter = dyn_cast<hisa::ScatterOp>(user)) {
        // The ops of the chain that read this operand's pair.
        unsigned n = use.getOperandNumber();
        unsigned pair = n < scatter.getValues().size()
                            ? n
                            : n - unsigned(scatter.getValues().size());
        for (auto [id, p] :
             llvm::zip(readers->second.ops, readers->second.pairs))
          if (p == pair)
            ids.push_back(id);
      } else {
        ids = readers->second.ops;
      }
      for (sched::OpId consumer : ids) {
        // A gather's row may come from its farthest slice: every reader
        // must be beyond that one.
        int64_t at = problem.getOperation(consumer).position;
        if (chain != chains.end() &&
            (chain->second.east ? at <= chain->second.far
                                : at >= chain->second.far))
          return user->emitError("reads a gathered row at floorplan "
                                 "position ")
                 << at << ", not beyond the slices of the table (positions "
                 << std::min(chain->second.near, chain->second.far) << " to "
                 << std::max(chain->second.near, chain->second.far)
                 << ") away from its index";
        if (llvm::find(consumers, consumer) == consumers.end())
          consumers.push_back(consumer);
      }
    }
    llvm::sort(consumers);
    problem.addTransfer(sched::OpId(id), consumers);
  }
  return success();
}

struct HIsaSchedulePass : hetc::impl::HIsaScheduleBase<HIsaSchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(forEachFunctionOnChip(
            getOperation(), getArgument(),
            [&](func::FuncOp func, const chip::ChipSpec &spec) {
              return scheduleFunction(func, spec);
            })))
      signalPassFailure();
  }

  LogicalResult scheduleFunction(func::FuncOp func,
                                 const chip::ChipSpec &spec) {
    ProblemBuilder builder(spec);
    // Room for the scheduling ops, dependences and transfers up front:
    // millions of instructions would otherwise hold these arrays twice
    // over while they grow.
    size_t ops = 0, results = 0;
    for (Operation &op : func.getBody().front()) {
      ++ops;
      results += op.getNumResults();
    }
    builder.reserve(ops, results);
    for (Operation &op : func.getBody().front())
      if (failed(builder.add(&op)))
        return failure();
    if (failed(builder.addTransfers()))
      return failure();

    sched::Expected<sched::Schedule> result = sched::schedule(builder.problem);
    if (!result) {
      const sched::Error &error = result.error();
      Operation *at = func;
      for (uint32_t id : error.ops)
        if (id < builder.opOf.size() && builder.opOf[id]) {
          at = builder.opOf[id];
          break;
        }
      return at->emitError("cannot schedule: ") << error.message;
    }

    if (failed(builder.checkScatterCycles(result->cycles)))
      return failure();
    MLIRContext *ctx = func.getContext();
    Builder b(ctx);
    int64_t instructions = 0;
    for (auto [id, op] : llvm::enumerate(builder.opOf)) {
      if (!op)
        continue;
      ++instructions;
      if (!builder.chainMember[id])
        cast<hisa::InstructionOpInterface>(op).setIssueCycle(
            result->cycles[id]);
    }
    for (auto [id, transfer] :
         llvm::enumerate(builder.problem.getTransfers())) {
      const sched::StreamAssignment &s = result->streams[id];
      cast<hisa::InstructionOpInterface>(builder.opOf[transfer.producer])
          .setResultStream(hisa::StreamAttr::get(
              ctx,
              s.direction == sched::Direction::East ? hisa::Direction::east
                                                    : hisa::Direction::west,
              s.streamId));
    }
    func->setAttr("hetc.instructions", b.getI64IntegerAttr(instructions));
    func->setAttr("hetc.predicted_cycles", b.getI64IntegerAttr(result->length));
    func->setAttr("hetc.lower_bound",
                  b.getI64IntegerAttr(result->bound.cycles));
    func->setAttr("hetc.lower_bound_reason",
                  b.getStringAttr(result->bound.reason));
    return success();
  }
};

} // namespace
