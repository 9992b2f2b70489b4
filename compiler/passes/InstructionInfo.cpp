//===- InstructionInfo.cpp - What the chip says about an instruction --===//

#include "compiler/passes/InstructionInfo.h"

#include "compiler/dialects/hisa/IR/HIsa.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

/// The SRAM word of the first vector of `gather`'s table and the words
/// from one table row to the next (docs/isa.md, "Native width"), in
/// unsigned arithmetic: checkInstruction bounds them before other uses.
static std::pair<uint64_t, uint64_t> tableWords(hetc::hisa::GatherOp gather) {
  uint64_t width =
      uint64_t(hetc::hisa::sramLaneBytes(hetc::hisa::dtypeOf(gather)));
  return {uint64_t(gather.getTable()) * 4 +
              uint64_t(gather.getPart().value_or(0)) * width,
          uint64_t(gather.getStride()) * width};
}

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
  auto checkGather = [&](hisa::GatherOp g) -> LogicalResult {
    // In SRAM words (a quarter row), as narrow tables are packed.
    uint64_t total = chip.totalVectors() * 4;
    auto [table, stride] = tableWords(g);
    uint64_t rows = uint64_t(g.getRows());
    if (uint64_t(g.getTable()) >= chip.totalVectors() ||
        uint64_t(g.getStride()) > total || table >= total || stride > total ||
        rows > total || (rows - 1) * stride >= total - table)
      return op->emitError("table of ")
             << rows << " rows of " << g.getStride() << " vectors at "
             << g.getTable() << " is not inside SRAM (chip '" << chip.name()
             << "' has " << chip.totalVectors() << " rows)";
    if (uint32_t(g.getLane()) >= chip.lanes())
      return op->emitError("lane ")
             << g.getLane() << " is not a lane of chip '" << chip.name()
             << "', which has " << chip.lanes();
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](hisa::ReadOp r) { return checkAddress(r.getAddress()); })
      .Case([&](hisa::GatherOp g) { return checkGather(g); })
      .Case([&](hisa::PermuteOp p) { return checkPermute(p); })
      .Case([&](hisa::WriteOp w) { return checkAddress(w.getAddress()); })
      .Case([&](hisa::LoadWeightsOp l) { return checkPlane(l.getPlane()); })
      .Case([&](hisa::MatMulOp m) { return checkPlane(m.getPlane()); })
      .Case<hisa::C2CSendOp, hisa::C2CRecvOp>([&](auto c) -> LogicalResult {
        uint32_t links = chip.proto().c2c().links();
        if (uint32_t(c.getLink()) < links)
          return success();
        return c.emitError("C2C link ")
               << c.getLink() << " does not exist (chip '" << chip.name()
               << "' has " << links << ")";
      })
      .Case<hisa::DmaInOp, hisa::DmaOutOp>([&](auto d) -> LogicalResult {
        uint32_t engines = chip.proto().dma().engines();
        if (uint32_t(d.getEngine()) >= engines)
          return d.emitError("DMA engine ")
                 << d.getEngine() << " does not exist (chip '" << chip.name()
                 << "' has " << engines << ")";
        return checkAddress(d.getAddress());
      })
      .Default([](Operation *) { return success(); });
}

std::string hetc::bankResource(uint32_t slice, uint32_t bank) {
  return "slice" + std::to_string(slice) + ".bank" + std::to_string(bank);
}

std::vector<hetc::GatherBand> hetc::gatherBands(hisa::GatherOp gather,
                                                const chip::ChipSpec &chip) {
  std::vector<GatherBand> bands;
  auto [first, step] = tableWords(gather);
  int64_t table = int64_t(first), stride = int64_t(step);
  int64_t rows = gather.getRows();
  int64_t perSlice = int64_t(chip.vectorsPerSlice()) * 4;
  int64_t row = 0;
  while (row < rows) {
    uint32_t slice = chip.sliceOf(uint64_t(table + row * stride) / 4);
    // The first row whose vector lies past this slice.
    int64_t sliceEnd = int64_t(slice + 1) * perSlice;
    int64_t end = std::min(rows, (sliceEnd - table + stride - 1) / stride);
    bands.push_back({slice, int64_t(chip.slicePosition(slice)), row, end});
    row = end;
  }
  return bands;
}

std::optional<hetc::InstructionInfo>
hetc::describeInstruction(Operation *op, const chip::ChipSpec &chip) {
  const chip::Latencies &lat = chip.proto().latency();
  auto memory = [&](uint64_t address, uint32_t latency) {
    uint32_t slice = chip.sliceOf(address);
    return InstructionInfo{
        latency, chip.slicePosition(slice),
        bankResource(slice, chip.bankOf(address)),
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
      .Case([&](hisa::C2CSendOp c) {
        uint32_t link = c.getLink();
        return InstructionInfo{
            chip.proto().c2c().latency(),
            chip.switchPosition(chip.linkSwitch(link)),
            "link" + std::to_string(link) + ".send", 1,
            chip.linkCyclesPerVector()};
      })
      .Case([&](hisa::C2CRecvOp c) {
        uint32_t link = c.getLink();
        return InstructionInfo{lat.switch_op(),
                               chip.switchPosition(chip.linkSwitch(link)),
                               "link" + std::to_string(link) + ".recv", 1};
      })
      .Case<hisa::DmaInOp, hisa::DmaOutOp>([&](auto d) {
        // Off the streams: the engine reaches SRAM through its own port.
        return InstructionInfo{chip.proto().dma().latency(), -1,
                               "dma" + std::to_string(d.getEngine()), 1,
                               chip.dmaCyclesPerVector()};
      })
      .Case([&](hisa::PermuteOp p) {
        uint32_t unit = p.getSwitchUnit();
        return InstructionInfo{lat.switch_op(), chip.switchPosition(unit),
                               "switch" + std::to_string(unit), 1};
      })
      .Default([](Operation *) { return std::nullopt; });
}
