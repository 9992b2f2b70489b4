//===- InstructionInfo.cpp - What the chip says about an instruction --===//

#include "compiler/passes/InstructionInfo.h"

#include "compiler/dialects/hisa/IR/HIsa.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

LogicalResult hetc::checkInstruction(Operation *op,
                                     const chip::ChipSpec &chip) {
  auto checkAddress = [&](uint64_t address) -> LogicalResult {
    if (address < chip.totalVectors())
      return success();
    return op->emitError("address ")
           << address << " is outside SRAM (chip '" << chip.name() << "' has "
           << chip.totalVectors() << " vectors)";
  };
  auto checkPlane = [&](uint32_t plane) -> LogicalResult {
    if (plane < chip.proto().matrix().planes())
      return success();
    return op->emitError("plane ")
           << plane << " does not exist (chip '" << chip.name() << "' has "
           << chip.proto().matrix().planes() << ")";
  };
  auto checkPermute = [&](hisa::PermuteOp p) -> LogicalResult {
    if (p.getSwitchUnit() >= chip.switches())
      return op->emitError("switch ")
             << p.getSwitchUnit() << " does not exist (chip '" << chip.name()
             << "' has " << chip.switches() << ")";
    ArrayRef<int32_t> map = p.getMap();
    if (map.size() > chip.lanes())
      return op->emitError("map has ")
             << map.size() << " lanes, but chip '" << chip.name()
             << "' has " << chip.lanes();
    for (auto [j, from] : llvm::enumerate(map))
      if (from >= int32_t(chip.lanes()))
        return op->emitError("map[")
               << j << "] reads lane " << from << ", but chip '"
               << chip.name() << "' has " << chip.lanes() << " lanes";
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](hisa::ReadOp r) { return checkAddress(r.getAddress()); })
      .Case([&](hisa::PermuteOp p) { return checkPermute(p); })
      .Case([&](hisa::WriteOp w) { return checkAddress(w.getAddress()); })
      .Case([&](hisa::LoadWeightsOp l) { return checkPlane(l.getPlane()); })
      .Case([&](hisa::MatMulOp m) { return checkPlane(m.getPlane()); })
      .Default([](Operation *) { return success(); });
}

std::optional<hetc::InstructionInfo>
hetc::describeInstruction(Operation *op, const chip::ChipSpec &chip) {
  const chip::Latencies &lat = chip.proto().latency();
  auto memory = [&](uint64_t address, uint32_t latency) {
    uint32_t slice = chip.sliceOf(address);
    return InstructionInfo{
        latency, chip.slicePosition(slice),
        "slice" + std::to_string(slice) + ".bank" +
            std::to_string(chip.bankOf(address)),
        chip.proto().memory().accesses_per_bank_per_cycle()};
  };
  auto vector = [&](uint32_t latency) {
    return InstructionInfo{latency, chip.vectorPosition(), "vector",
                           chip.proto().vector().alus()};
  };
  auto plane = [&](uint32_t index, uint32_t latency) {
    return InstructionInfo{latency, chip.planePosition(index),
                           "plane" + std::to_string(index), 1};
  };
  return llvm::TypeSwitch<Operation *, std::optional<InstructionInfo>>(op)
      .Case([&](hisa::ReadOp r) {
        return memory(r.getAddress(), lat.mem_read());
      })
      .Case([&](hisa::WriteOp w) {
        return memory(w.getAddress(), lat.mem_write());
      })
      .Case<hisa::VBinaryOp, hisa::VUnaryOp, hisa::VCompareOp,
            hisa::VSelectOp, hisa::VCastOp>(
          [&](Operation *) { return vector(lat.vector_op()); })
      .Case([&](hisa::VReduceOp) { return vector(lat.vector_reduce()); })
      .Case([&](hisa::LoadWeightsOp l) {
        return plane(l.getPlane(), lat.matrix_load());
      })
      .Case([&](hisa::MatMulOp m) {
        return plane(m.getPlane(), lat.matrix_mul());
      })
      .Case([&](hisa::PermuteOp p) {
        uint32_t unit = p.getSwitchUnit();
        return InstructionInfo{lat.switch_op(), chip.switchPosition(unit),
                               "switch" + std::to_string(unit), 1};
      })
      .Default([](Operation *) { return std::nullopt; });
}
