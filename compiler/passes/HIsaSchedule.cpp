//===- HIsaSchedule.cpp - Give hisa instructions their cycles ---------===//
//
// Translates the instructions of each function into a hetc::sched::Problem
// and writes the solution back as `cycle` and `stream` attributes. The
// translation is where the chip's rules meet the scheduler's model:
//   - resources: a bank of a MEM slice, the vector unit's ALUs, each plane,
//     and the dispatcher: at most `dispatch.per_cycle` instructions issue
//     in any cycle, so that the dispatcher can always place each one in
//     its queue the cycle before (docs/isa.md, rule 9);
//   - transfers: a !hisa.vec value, from its producer to its readers;
//   - dependences: SRAM read/write order per address (DMA_IN writes,
//     DMA_OUT reads), a plane's weight loads against the matmuls that use
//     (or must finish before) them, and each DMA engine's instructions in
//     program order, one vector time apart.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/ChipLoader.h"
#include "compiler/passes/InstructionInfo.h"
#include "compiler/passes/Passes.h"
#include "compiler/scheduler/Scheduler.h"


#include <map>

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

  LogicalResult add(Operation *op);
  LogicalResult addTransfers();

  sched::Problem problem;
  /// The hisa op of each scheduling op id; null for barriers.
  std::vector<Operation *> opOf;

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
    sched::OpId id = problem.addOperation(
        op ? op->getName().getStringRef().str() + "#" +
                 std::to_string(opOf.size() - 1)
           : "barrier#" + std::to_string(opOf.size() - 1),
        latency, position, std::move(uses));
    if (op)
      idOf[op] = id;
    return id;
  }
  /// Orders an access to SRAM `address` after the earlier ones; a write
  /// stores `latency` cycles after it issues.
  void addMemoryAccess(sched::OpId id, int64_t address, bool isWrite,
                       int64_t latency = 0);
  /// Adds the barrier a plane needs before a load or matmul that starts a
  /// new phase (loading or computing) of its weight buffer.
  void beginPlaneOp(int32_t plane, bool isLoad);
  /// Orders a plane's load or matmul after the barrier of its phase.
  void endPlaneOp(sched::OpId id, int32_t plane, bool isLoad);

  /// SRAM order per address: the last write and the reads since.
  struct AddressState {
    std::optional<sched::OpId> lastWrite;
    int64_t lastWriteLatency = 0;
    std::vector<sched::OpId> reads;
  };
  /// Weight-buffer order per plane: the current tile's loads and matmuls,
  /// and the barrier ops that separate tiles.
  struct PlaneState {
    bool computing = false;
    std::vector<sched::OpId> loads, matmuls;
    std::optional<sched::OpId> loaded, drained;
  };

  const chip::ChipSpec &chip;
  std::map<std::string, sched::ResourceId> resources;
  DenseMap<Operation *, sched::OpId> idOf;
  std::map<int64_t, AddressState> addresses;
  std::map<int32_t, PlaneState> planes;
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
                                     bool isWrite, int64_t latency) {
  AddressState &state = addresses[address];
  if (!isWrite) {
    // Read after write: the write has stored its vector.
    if (state.lastWrite)
      problem.addDependence(*state.lastWrite, id, state.lastWriteLatency);
    state.reads.push_back(id);
    return;
  }
  // Write after read / write: the write issues after them, so no read sees
  // it in flight, and it stores after the previous write stored, so writes
  // land in program order.
  for (sched::OpId read : state.reads)
    problem.addDependence(read, id, 1);
  if (state.lastWrite)
    problem.addDependence(*state.lastWrite, id,
                          std::max<int64_t>(
                              1, state.lastWriteLatency - latency + 1));
  state.lastWrite = id;
  state.lastWriteLatency = latency;
  state.reads.clear();
}

void ProblemBuilder::beginPlaneOp(int32_t plane, bool isLoad) {
  PlaneState &state = planes[plane];
  // A barrier (an op without resources) joins a phase's ops so each op of
  // the next phase needs one dependence instead of one per op.
  if (isLoad && state.computing) {
    sched::OpId barrier = addOp(nullptr, 0, sched::kNoPosition, {});
    for (sched::OpId mm : state.matmuls)
      problem.addDependence(mm, barrier, 1);
    state = PlaneState{false, {}, {}, std::nullopt, barrier};
  } else if (!isLoad && !state.computing) {
    sched::OpId barrier = addOp(nullptr, 0, sched::kNoPosition, {});
    for (sched::OpId load : state.loads)
      problem.addDependence(load, barrier,
                            chip.proto().latency().matrix_load());
    state.computing = true;
    state.loaded = barrier;
  }
}

void ProblemBuilder::endPlaneOp(sched::OpId id, int32_t plane, bool isLoad) {
  PlaneState &state = planes[plane];
  if (isLoad) {
    // The next tile's weights overwrite the plane only after every matmul
    // of the previous tile has issued.
    if (state.drained)
      problem.addDependence(*state.drained, id, 0);
    state.loads.push_back(id);
  } else {
    problem.addDependence(*state.loaded, id, 0);
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
      problem.addDependence(state.sends.back(), id,
                            chip.linkCyclesPerVector());
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

LogicalResult ProblemBuilder::add(Operation *op) {
  if (failed(checkInstruction(op, chip)))
    return failure();
  std::optional<InstructionInfo> info = describeInstruction(op, chip);
  if (!info)
    return success();
  auto load = dyn_cast<hisa::LoadWeightsOp>(op);
  auto matmul = dyn_cast<hisa::MatMulOp>(op);
  int32_t plane = load ? load.getPlane() : matmul ? matmul.getPlane() : -1;
  if (plane >= 0)
    beginPlaneOp(plane, bool(load));
  sched::OpId id =
      addOp(op, info->latency, info->position,
            {resource(info->unit, info->capacity),
             resource("dispatch", chip.proto().dispatch().per_cycle())});
  if (plane >= 0)
    endPlaneOp(id, plane, bool(load));
  if (auto read = dyn_cast<hisa::ReadOp>(op))
    addMemoryAccess(id, read.getAddress(), /*isWrite=*/false);
  if (auto write = dyn_cast<hisa::WriteOp>(op))
    addMemoryAccess(id, write.getAddress(), /*isWrite=*/true,
                    info->latency);
  if (auto in = dyn_cast<hisa::DmaInOp>(op))
    addMemoryAccess(id, in.getAddress(), /*isWrite=*/true, info->latency);
  if (auto out = dyn_cast<hisa::DmaOutOp>(op))
    addMemoryAccess(id, out.getAddress(), /*isWrite=*/false);
  if (auto send = dyn_cast<hisa::C2CSendOp>(op))
    addLinkOrder(id, send.getLink(), /*isSend=*/true);
  if (auto recv = dyn_cast<hisa::C2CRecvOp>(op))
    addLinkOrder(id, recv.getLink(), /*isSend=*/false);
  if (isa<hisa::DmaInOp, hisa::DmaOutOp>(op)) {
    // An engine takes its instructions in program order, one vector at a
    // time.
    int32_t engine = isa<hisa::DmaInOp>(op)
                         ? cast<hisa::DmaInOp>(op).getEngine()
                         : cast<hisa::DmaOutOp>(op).getEngine();
    auto [it, first] = lastDma.try_emplace(engine, id);
    if (!first) {
      problem.addDependence(it->second, id, chip.dmaCyclesPerVector());
      it->second = id;
    }
  }
  return success();
}

LogicalResult ProblemBuilder::addTransfers() {
  for (auto [id, op] : llvm::enumerate(opOf)) {
    if (!op || op->getNumResults() == 0)
      continue;
    Value value = op->getResult(0);
    if (value.use_empty())
      return op->emitError("emits a vector that no instruction reads");
    std::vector<sched::OpId> consumers;
    for (Operation *user : value.getUsers()) {
      sched::OpId consumer = idOf.lookup(user);
      if (llvm::find(consumers, consumer) == consumers.end())
        consumers.push_back(consumer);
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

    MLIRContext *ctx = func.getContext();
    Builder b(ctx);
    int64_t instructions = 0;
    for (auto [id, op] : llvm::enumerate(builder.opOf)) {
      if (!op)
        continue;
      ++instructions;
      op->setAttr("cycle", b.getI64IntegerAttr(result->cycles[id]));
    }
    for (auto [id, transfer] :
         llvm::enumerate(builder.problem.getTransfers())) {
      const sched::StreamAssignment &s = result->streams[id];
      builder.opOf[transfer.producer]->setAttr(
          "stream", hisa::StreamAttr::get(
                        ctx,
                        s.direction == sched::Direction::East
                            ? hisa::Direction::east
                            : hisa::Direction::west,
                        s.streamId));
    }
    func->setAttr("hetc.instructions", b.getI64IntegerAttr(instructions));
    func->setAttr("hetc.predicted_cycles", b.getI64IntegerAttr(result->length));
    func->setAttr("hetc.lower_bound", b.getI64IntegerAttr(result->bound.cycles));
    func->setAttr("hetc.lower_bound_reason",
                  b.getStringAttr(result->bound.reason));
    return success();
  }
};

} // namespace
