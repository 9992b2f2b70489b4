//===- HIsaInstructions.cpp - InstructionOpInterface of each instruction --===//
//
// What each instruction is on a chip: the checks of its fields against the
// chip file, the unit it issues on with its latency (docs/isa.md), and the
// orders it joins.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialects/hisa/IR/HIsa.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::hisa;

#include "compiler/dialects/hisa/IR/HIsaInterfaces.cpp.inc"

std::string hisa::bankResource(uint32_t slice, uint32_t bank) {
  return "slice" + std::to_string(slice) + ".bank" + std::to_string(bank);
}

namespace {

LogicalResult checkAddress(Operation *op, uint64_t address,
                           const chip::ChipSpec &chip) {
  if (address < chip.totalVectors())
    return success();
  return op->emitError("address ")
         << address << " is outside SRAM (chip '" << chip.name() << "' has "
         << chip.totalVectors() << " vectors)";
}

LogicalResult checkPlane(Operation *op, uint32_t plane,
                         const chip::ChipSpec &chip) {
  if (plane < chip.proto().matrix().planes())
    return success();
  return op->emitError("plane ")
         << plane << " does not exist (chip '" << chip.name() << "' has "
         << chip.proto().matrix().planes() << ")";
}

LogicalResult checkLink(Operation *op, uint32_t link,
                        const chip::ChipSpec &chip) {
  uint32_t links = chip.proto().c2c().links();
  if (link < links)
    return success();
  return op->emitError("C2C link ") << link << " does not exist (chip '"
                                    << chip.name() << "' has " << links << ")";
}

LogicalResult checkDma(Operation *op, uint32_t engine, uint64_t address,
                       const chip::ChipSpec &chip) {
  uint32_t engines = chip.proto().dma().engines();
  if (engine >= engines)
    return op->emitError("DMA engine ")
           << engine << " does not exist (chip '" << chip.name() << "' has "
           << engines << ")";
  return checkAddress(op, address, chip);
}

IssueInfo memory(uint64_t address, uint32_t latency,
                 const chip::ChipSpec &chip) {
  uint32_t slice = chip.sliceOf(address);
  return IssueInfo{latency, chip.slicePosition(slice),
                   bankResource(slice, chip.bankOf(address)),
                   chip.proto().memory().accesses_per_bank_per_cycle()};
}

IssueInfo vector(uint32_t latency, const chip::ChipSpec &chip) {
  return IssueInfo{latency, chip.vectorPosition(), "vector",
                   chip.proto().vector().alus()};
}

/// A plane takes matrix.install_rows weight loads a cycle; an M_MATMUL
/// takes all of it (HIsaSchedule).
IssueInfo plane(uint32_t index, uint32_t latency, const chip::ChipSpec &chip) {
  return IssueInfo{latency, chip.planePosition(index),
                   "plane" + std::to_string(index), chip.installRows()};
}

IssueInfo dma(uint32_t engine, const chip::ChipSpec &chip) {
  // Off the streams: the engine reaches SRAM through its own port.
  return IssueInfo{chip.proto().dma().latency(), -1,
                   "dma" + std::to_string(engine), 1,
                   chip.dmaCyclesPerVector()};
}

/// tableWords of a gather or scatter.
template <typename IndexedOp>
std::pair<uint64_t, uint64_t> tableWords(IndexedOp op) {
  return hisa::tableWords(op.getTable(), int32_t(op.getPart().value_or(0)),
                          op.getStride(), dtypeOf(op));
}

/// Checks that a gather's or scatter's table lies inside SRAM and its
/// index lane is a lane of `chip`.
template <typename IndexedOp>
LogicalResult checkTable(IndexedOp op, const chip::ChipSpec &chip) {
  // In SRAM words (a quarter row), as narrow tables are packed.
  uint64_t total = chip.totalVectors() * 4;
  auto [table, stride] = tableWords(op);
  uint64_t rows = uint64_t(op.getRows());
  if (uint64_t(op.getTable()) >= chip.totalVectors() ||
      uint64_t(op.getStride()) > total || table >= total || stride > total ||
      rows > total || (rows - 1) * stride >= total - table)
    return op.emitError("table of ")
           << rows << " rows of " << op.getStride() << " vectors at "
           << op.getTable() << " is not inside SRAM (chip '" << chip.name()
           << "' has " << chip.totalVectors() << " rows)";
  if (uint32_t(op.getLane()) >= chip.lanes())
    return op.emitError("lane ")
           << op.getLane() << " is not a lane of chip '" << chip.name()
           << "', which has " << chip.lanes();
  return success();
}

/// The chain of a gather or scatter: one band per MEM slice holding rows
/// of its table, in increasing slice order.
template <typename IndexedOp>
std::vector<GatherBand> bandsOf(IndexedOp op, const chip::ChipSpec &chip) {
  std::vector<GatherBand> bands;
  auto [first, step] = tableWords(op);
  int64_t table = int64_t(first), stride = int64_t(step);
  int64_t rows = op.getRows();
  auto sliceOfRow = [&](int64_t row) {
    return chip.sliceOf(uint64_t(table + row * stride) / 4);
  };
  if (chip.interleaved()) {
    // Each slice's band runs from its first row to its last.
    std::vector<std::optional<GatherBand>> bySlice(
        chip.proto().memory().slices());
    for (int64_t row = 0; row < rows; ++row) {
      uint32_t slice = sliceOfRow(row);
      std::optional<GatherBand> &band = bySlice[slice];
      if (!band)
        band = GatherBand{slice, int64_t(chip.slicePosition(slice)), row, row};
      band->rowEnd = row + 1;
    }
    for (const std::optional<GatherBand> &band : bySlice)
      if (band)
        bands.push_back(*band);
    return bands;
  }
  int64_t perSlice = int64_t(chip.vectorsPerSlice()) * 4;
  int64_t row = 0;
  while (row < rows) {
    uint32_t slice = sliceOfRow(row);
    // The first row whose vector lies past this slice.
    int64_t sliceEnd = int64_t(slice + 1) * perSlice;
    int64_t end = std::min(rows, (sliceEnd - table + stride - 1) / stride);
    bands.push_back({slice, int64_t(chip.slicePosition(slice)), row, end});
    row = end;
  }
  return bands;
}

} // namespace

std::pair<uint64_t, uint64_t>
hetc::hisa::tableWords(int64_t table, int32_t part, int64_t stride, Type type) {
  uint64_t width = uint64_t(sramLaneBytes(type));
  return {uint64_t(table) * 4 + uint64_t(part) * width,
          uint64_t(stride) * width};
}

//===----------------------------------------------------------------------===//
// MEM
//===----------------------------------------------------------------------===//

int64_t hetc::hisa::issueWord(int64_t address, int32_t part, Type type,
                              int64_t step, int64_t issue) {
  int64_t width = sramLaneBytes(type);
  return address * 4 + int64_t(part) * width + issue * step * width;
}

/// Checks that every issue of a read's or write's train lies in SRAM, in
/// the first issue's slice and bank: the train issues on one unit, and the
/// scheduler holds one bank for it.
template <typename MemOp>
static LogicalResult checkTrainAddresses(MemOp op, const chip::ChipSpec &chip) {
  TrainAttr train = op.getRepeatAttr();
  if (!train)
    return success();
  uint32_t slice = chip.sliceOf(op.getAddress());
  uint32_t bank = chip.bankOf(op.getAddress());
  int64_t words = int64_t(chip.totalVectors()) * 4;
  for (int64_t k = 1; k < int64_t(train.getCount()); ++k) {
    int64_t word = issueWord(int64_t(op.getAddress()), op.getPart().value_or(0),
                             dtypeOf(op.getOperation()), train.getStep(), k);
    if (word < 0 || word >= words)
      return op.emitError("issue ")
             << k + 1 << " of the train lies outside SRAM (chip '"
             << chip.name() << "' has " << chip.totalVectors() << " rows)";
    uint64_t row = uint64_t(word / 4);
    if (chip.sliceOf(row) != slice || chip.bankOf(row) != bank)
      return op.emitError("issue ")
             << k + 1 << " of the train "
             << (std::is_same_v<MemOp, WriteOp> ? "writes" : "reads") << " row "
             << row << " in slice " << chip.sliceOf(row) << " bank "
             << chip.bankOf(row)
             << ", but a train stays in its first issue's slice " << slice
             << " and bank " << bank;
  }
  return success();
}

LogicalResult ReadOp::verifyOnChip(const chip::ChipSpec &chip) {
  if (failed(checkAddress(*this, getAddress(), chip)))
    return failure();
  return checkTrainAddresses(*this, chip);
}
std::optional<IssueInfo> ReadOp::describe(const chip::ChipSpec &chip) {
  return memory(getAddress(), chip.proto().latency().mem_read(), chip);
}
std::optional<MemoryAccess> ReadOp::getMemoryAccess() {
  return MemoryAccess{int64_t(getAddress()), uint32_t(getPart().value_or(0)),
                      false};
}

LogicalResult WriteOp::verifyOnChip(const chip::ChipSpec &chip) {
  if (failed(checkAddress(*this, getAddress(), chip)))
    return failure();
  return checkTrainAddresses(*this, chip);
}
std::optional<IssueInfo> WriteOp::describe(const chip::ChipSpec &chip) {
  return memory(getAddress(), chip.proto().latency().mem_write(), chip);
}
std::optional<MemoryAccess> WriteOp::getMemoryAccess() {
  return MemoryAccess{int64_t(getAddress()), uint32_t(getPart().value_or(0)),
                      true};
}

LogicalResult GatherOp::verifyOnChip(const chip::ChipSpec &chip) {
  return checkTable(*this, chip);
}
std::optional<IssueInfo> GatherOp::describe(const chip::ChipSpec &) {
  return std::nullopt; // a chain: see getBands
}
std::vector<GatherBand> GatherOp::getBands(const chip::ChipSpec &chip) {
  return bandsOf(*this, chip);
}

LogicalResult ScatterOp::verifyOnChip(const chip::ChipSpec &chip) {
  return checkTable(*this, chip);
}
std::optional<IssueInfo> ScatterOp::describe(const chip::ChipSpec &) {
  return std::nullopt; // a chain: see getBands
}
std::vector<GatherBand> ScatterOp::getBands(const chip::ChipSpec &chip) {
  return bandsOf(*this, chip);
}

//===----------------------------------------------------------------------===//
// VXM
//===----------------------------------------------------------------------===//

std::optional<IssueInfo> VBinaryOp::describe(const chip::ChipSpec &chip) {
  return vector(chip.proto().latency().vector_op(), chip);
}
std::optional<IssueInfo> VUnaryOp::describe(const chip::ChipSpec &chip) {
  return vector(chip.proto().latency().vector_op(), chip);
}
std::optional<IssueInfo> VCompareOp::describe(const chip::ChipSpec &chip) {
  return vector(chip.proto().latency().vector_op(), chip);
}
std::optional<IssueInfo> VSelectOp::describe(const chip::ChipSpec &chip) {
  return vector(chip.proto().latency().vector_op(), chip);
}
std::optional<IssueInfo> VCastOp::describe(const chip::ChipSpec &chip) {
  return vector(chip.proto().latency().vector_op(), chip);
}
std::optional<IssueInfo> VReduceOp::describe(const chip::ChipSpec &chip) {
  return vector(chip.proto().latency().vector_reduce(), chip);
}
LogicalResult VBroadcastOp::verifyOnChip(const chip::ChipSpec &chip) {
  if (getLane() < chip.lanes())
    return success();
  return emitError("lane ") << getLane() << " is not a lane of chip '"
                            << chip.name() << "', which has " << chip.lanes();
}
std::optional<IssueInfo> VBroadcastOp::describe(const chip::ChipSpec &chip) {
  return vector(chip.proto().latency().vector_reduce(), chip);
}

//===----------------------------------------------------------------------===//
// MXM
//===----------------------------------------------------------------------===//

LogicalResult LoadWeightsOp::verifyOnChip(const chip::ChipSpec &chip) {
  if (failed(checkPlane(*this, getPlane(), chip)))
    return failure();
  TrainAttr train = getRepeatAttr();
  if (!train && !getParts())
    return success();
  // The last row (column) the last issue installs.
  int64_t last = int64_t(getIndex()) + int64_t(getParts().value_or(1)) - 1;
  if (train)
    last += int64_t(train.getCount() - 1) * train.getStep();
  if (last < 0 || last >= int64_t(chip.lanes()))
    return emitError(train ? "the train's last issue installs "
                           : "its last part installs ")
           << stringifyWeightSlot(getSlot()) << " " << last
           << ", but a plane of chip '" << chip.name() << "' has "
           << chip.lanes();
  return success();
}
std::optional<IssueInfo> LoadWeightsOp::describe(const chip::ChipSpec &chip) {
  return plane(getPlane(), chip.proto().latency().matrix_load(), chip);
}
std::optional<PlaneUse> LoadWeightsOp::getPlaneUse() {
  return PlaneUse{int32_t(getPlane()),
                  getBuffered() ? PlaneUse::BufferLoad : PlaneUse::Load};
}

LogicalResult InstallWeightsOp::verifyOnChip(const chip::ChipSpec &chip) {
  return checkPlane(*this, getPlane(), chip);
}
std::optional<IssueInfo>
InstallWeightsOp::describe(const chip::ChipSpec &chip) {
  return plane(getPlane(), chip.proto().latency().matrix_load(), chip);
}
std::optional<PlaneUse> InstallWeightsOp::getPlaneUse() {
  return PlaneUse{int32_t(getPlane()), PlaneUse::Install};
}

LogicalResult MatMulOp::verifyOnChip(const chip::ChipSpec &chip) {
  return checkPlane(*this, getPlane(), chip);
}
std::optional<IssueInfo> MatMulOp::describe(const chip::ChipSpec &chip) {
  IssueInfo info = plane(getPlane(), chip.proto().latency().matrix_mul(), chip);
  // Wider inputs keep the plane busy longer (matrix.cycles_16bit/32bit).
  info.occupancy =
      chip.matmulCycles(dtypeOf(getOperation()).getIntOrFloatBitWidth());
  return info;
}
std::optional<PlaneUse> MatMulOp::getPlaneUse() {
  return PlaneUse{int32_t(getPlane()), PlaneUse::Multiply};
}

//===----------------------------------------------------------------------===//
// SXM, DMA and C2C
//===----------------------------------------------------------------------===//

LogicalResult PermuteOp::verifyOnChip(const chip::ChipSpec &chip) {
  if (getSwitchUnit() >= chip.switches())
    return emitError("switch ")
           << getSwitchUnit() << " does not exist (chip '" << chip.name()
           << "' has " << chip.switches() << ")";
  ArrayRef<int32_t> map = getMap();
  if (map.size() > chip.lanes())
    return emitError("map has ") << map.size() << " lanes, but chip '"
                                 << chip.name() << "' has " << chip.lanes();
  for (auto [j, from] : llvm::enumerate(map))
    if (from >= int32_t(chip.lanes()))
      return emitError("map[")
             << j << "] reads lane " << from << ", but chip '" << chip.name()
             << "' has " << chip.lanes() << " lanes";
  return success();
}
std::optional<IssueInfo> PermuteOp::describe(const chip::ChipSpec &chip) {
  uint32_t unit = getSwitchUnit();
  return IssueInfo{chip.proto().latency().switch_op(),
                   chip.switchPosition(unit), "switch" + std::to_string(unit),
                   1};
}

LogicalResult DmaInOp::verifyOnChip(const chip::ChipSpec &chip) {
  return checkDma(*this, getEngine(), getAddress(), chip);
}
std::optional<IssueInfo> DmaInOp::describe(const chip::ChipSpec &chip) {
  return dma(getEngine(), chip);
}
std::optional<MemoryAccess> DmaInOp::getMemoryAccess() {
  return MemoryAccess{int64_t(getAddress()), uint32_t(getPart().value_or(0)),
                      true};
}
std::optional<int32_t> DmaInOp::getDmaEngine() { return int32_t(getEngine()); }

LogicalResult DmaOutOp::verifyOnChip(const chip::ChipSpec &chip) {
  return checkDma(*this, getEngine(), getAddress(), chip);
}
std::optional<IssueInfo> DmaOutOp::describe(const chip::ChipSpec &chip) {
  return dma(getEngine(), chip);
}
std::optional<MemoryAccess> DmaOutOp::getMemoryAccess() {
  return MemoryAccess{int64_t(getAddress()), uint32_t(getPart().value_or(0)),
                      false};
}
std::optional<int32_t> DmaOutOp::getDmaEngine() { return int32_t(getEngine()); }

LogicalResult C2CSendOp::verifyOnChip(const chip::ChipSpec &chip) {
  return checkLink(*this, getLink(), chip);
}
std::optional<IssueInfo> C2CSendOp::describe(const chip::ChipSpec &chip) {
  uint32_t link = getLink();
  return IssueInfo{
      chip.proto().c2c().latency(), chip.switchPosition(chip.linkSwitch(link)),
      "link" + std::to_string(link) + ".send", 1, chip.linkCyclesPerVector()};
}
std::optional<LinkUse> C2CSendOp::getLinkUse() {
  return LinkUse{int32_t(getLink()), true};
}

LogicalResult C2CRecvOp::verifyOnChip(const chip::ChipSpec &chip) {
  return checkLink(*this, getLink(), chip);
}
std::optional<IssueInfo> C2CRecvOp::describe(const chip::ChipSpec &chip) {
  uint32_t link = getLink();
  return IssueInfo{chip.proto().latency().switch_op(),
                   chip.switchPosition(chip.linkSwitch(link)),
                   "link" + std::to_string(link) + ".recv", 1};
}
std::optional<LinkUse> C2CRecvOp::getLinkUse() {
  return LinkUse{int32_t(getLink()), false};
}
