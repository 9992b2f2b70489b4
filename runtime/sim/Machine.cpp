//===- Machine.cpp - Executes a decoded program cycle by cycle ---------===//

#include "runtime/sim/Machine.h"
#include "runtime/sim/VectorUnit.h"

#include "runtime/sim/DataTypes.h"
#include "runtime/sim/TypedMath.h"
#include "runtime/sim/VectorMath.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace hetc::sim {

/// The floats a stream value of `ops` holds: `lanes` a vector, times the
/// most vectors one MEM_READ puts on its group.
static uint32_t valueFloats(const std::vector<Op> &ops, uint32_t lanes) {
  uint32_t parts = 1;
  for (const Op &op : ops)
    parts = std::max<uint32_t>(parts, op.parts);
  return lanes * parts;
}

Machine::Machine(const chip::ChipSpec &chip, const HazardText &text,
                 const std::vector<Op> &ops, Sram &sram, HostMemory &host,
                 const SimOptions &options)
    : chip(chip), text(text), ops(ops), sram(sram), host(host),
      timingOnly(options.timingOnly), observer(options.observer),
      streams(chip.streamGroups(), chip.streamGroupWidth(), chip.positions(),
              chip.proto().streams().hop_cycles(),
              valueFloats(ops, chip.lanes()), !options.timingOnly),
      lanes(chip.lanes()),
      banksPerSlice(chip.proto().memory().banks_per_slice()),
      bankLimit(chip.proto().memory().accesses_per_bank_per_cycle()),
      alus(chip.proto().vector().alus()), installRows(chip.installRows()),
      banks(size_t(chip.proto().memory().slices()) * banksPerSlice),
      planes(chip.proto().matrix().planes()),
      buffers(chip.proto().matrix().planes()),
      sliceIssue(chip.proto().memory().slices()),
      dmaBusy(chip.proto().dma().engines(), {-1, 0}),
      dmaCycles(chip.dmaCyclesPerVector()), switchIssue(chip.switches()),
      links(chip.proto().c2c().links()),
      linkCycles(chip.proto().c2c().links() ? chip.linkCyclesPerVector() : 0) {
  stats.slices.resize(sliceIssue.size());
  stats.planes.resize(planes.size());
  stats.dma.resize(dmaBusy.size());
  stats.switches.resize(switchIssue.size());
  stats.links.resize(links.size());
}

bool Machine::fail(const std::string &kind, int64_t cycle, uint32_t index,
                   const std::string &details) {
  error = text.format(kind, uint64_t(cycle), index, details);
  return false;
}

void Machine::countBusy(UnitBusy &busy, Issue &issue, int64_t cycle) {
  ++busy.instructions;
  if (issue.cycle != cycle)
    ++busy.cycles;
}

bool Machine::failBank(const Op &op, uint32_t index, int64_t cycle,
                       uint32_t bank, const Issue &use) {
  std::string rule = op.indexed()
                         ? "but a " + HazardText::opcodeName(op.opcode) +
                               " takes every bank port of its slice"
                         : "the chip allows " + std::to_string(bankLimit) +
                               " (memory.accesses_per_bank_per_cycle)";
  return fail("bank over-subscription", cycle, index,
              "bank " + std::to_string(bank) + " of MEM slice " +
                  std::to_string(op.unit) + " already serves " +
                  std::to_string(use.count) + " access" +
                  (use.count == 1 ? "" : "es") +
                  " at this cycle (the first is instruction " +
                  text.instruction(use.first) + "); " + rule);
}

bool Machine::failIndex(const Op &op, uint32_t index, int64_t cycle,
                        int64_t value) {
  error = text.formatDataError(
      "index out of range", uint64_t(cycle), index,
      "row index " + std::to_string(value) + " (lane " +
          std::to_string(op.indexLane) +
          " of its index vector) is outside [0, " + std::to_string(op.rows) +
          "), the rows of the table it " +
          (op.kind == OpClass::MemGather ? "gathers from" : "scatters to"));
  return false;
}

uint32_t Machine::sliceOfRow(const Op &op, uint64_t row) const {
  return chip.sliceOf((op.word + row * op.stride * op.width) / 4);
}

bool Machine::holdsRow(const Op &op, uint64_t row) const {
  if (row < op.rowBegin || row >= op.rowEnd)
    return false;
  return !chip.interleaved() || sliceOfRow(op, row) == op.unit;
}

bool Machine::checkChainHolds(const Op &op, uint32_t index, int64_t cycle,
                              uint64_t row) {
  if (!chip.interleaved() || op.chain != index)
    return true;
  uint32_t slice = sliceOfRow(op, row);
  const std::vector<ChainBand> &bands = chainBands->at(index);
  auto it =
      std::lower_bound(bands.begin(), bands.end(), ChainBand{slice, 0, 0});
  if (it != bands.end() && it->slice == slice && row >= it->rowBegin &&
      row < it->rowEnd)
    return true;
  bool gather = op.kind == OpClass::MemGather;
  return fail(gather ? "bad gather chain" : "bad scatter chain", cycle, index,
              "row " + std::to_string(row) +
                  " of the table lies in MEM slice " + std::to_string(slice) +
                  ", where no instruction of the chain takes it");
}

bool Machine::executeGather(const Step &step, const float *indices) {
  const Op &op = ops[step.index];
  uint64_t row = op.rowBegin;
  if (timingOnly) {
    // Without values the index is unknown. The row arrives downstream at
    // the same cycle whichever slice of the chain holds it, so the
    // chain's first instruction reads for all of them.
    if (op.chain != step.index)
      return complete(step);
  } else {
    int32_t value = intOfWord(indices[op.indexLane]);
    if (value < 0 || uint64_t(value) >= op.rows)
      return failIndex(op, step.index, step.cycle, value);
    row = uint64_t(value);
    if (!checkChainHolds(op, step.index, step.cycle, row))
      return false;
    if (!holdsRow(op, row))
      return complete(step); // another slice of the chain holds it
  }
  uint64_t address = op.word + row * op.stride * op.width;
  int64_t storedAt = sram.storedAt(address);
  if (storedAt == Sram::kNever || storedAt > step.cycle ||
      !sram.holds(address, op.width))
    return failSramRead(address, op.width, step.index, step.cycle);
  const float *lend = timingOnly ? nullptr : sram.fixedVector(address);
  float *out = streams.emit((step.dirs >> 3) & 1, step.dstGroup, step.position,
                            step.cycle + int64_t(step.latency), op.chain, lend);
  if (!timingOnly && !lend)
    std::memcpy(out, sram.vector(address), sizeof(float) * lanes);
  return complete(step);
}

bool Machine::executeScatter(const Step &step, const float *indices,
                             const float *value) {
  // Without values the index is unknown, and the table keeps what it
  // held: a scatter stores nothing then.
  if (timingOnly)
    return complete(step);
  const Op &op = ops[step.index];
  int32_t index = intOfWord(indices[op.indexLane]);
  if (index < 0 || uint64_t(index) >= op.rows)
    return failIndex(op, step.index, step.cycle, index);
  uint64_t row = uint64_t(index);
  if (!checkChainHolds(op, step.index, step.cycle, row))
    return false;
  if (!holdsRow(op, row))
    return complete(step); // another slice of the chain holds it
  sram.write(op.word + row * op.stride * op.width, op.width, value, step.index,
             step.cycle + int64_t(step.latency));
  return complete(step);
}

bool Machine::failPlane(const Op &op, uint32_t index, int64_t cycle) {
  if (op.buffered) {
    const Plane &buffer = buffers[op.unit];
    return fail("plane double issue", cycle, index,
                "the weight buffer of matrix plane " + std::to_string(op.unit) +
                    " already takes " + std::to_string(installRows) +
                    " loads at this cycle, the last instruction " +
                    text.instruction(buffer.issue.first) +
                    " (matrix.install_rows)");
  }
  const Plane &plane = planes[op.unit];
  return fail("plane double issue", cycle, index,
              "matrix plane " + std::to_string(op.unit) +
                  " already issues instruction " +
                  text.instruction(plane.issue.first) + " at this cycle; " +
                  (installRows == 1
                       ? std::string("a plane issues one instruction per "
                                     "cycle")
                       : "a plane issues one M_MATMUL, or up to " +
                             std::to_string(installRows) +
                             " M_LOAD_WEIGHTS (matrix.install_rows), per "
                             "cycle"));
}

bool Machine::failPlaneBusy(const Op &op, uint32_t index, int64_t cycle) {
  const Plane &plane = planes[op.unit];
  return fail("plane busy", cycle, index,
              "matrix plane " + std::to_string(op.unit) +
                  " is busy until cycle " + std::to_string(plane.freeAt) +
                  " with instruction " + text.instruction(plane.holder) +
                  ": an M_MATMUL of " + io::typeName(ops[plane.holder].inType) +
                  " inputs takes " + std::to_string(ops[plane.holder].busy) +
                  " cycles (" +
                  (io::byteWidth(ops[plane.holder].inType) <= 2
                       ? "matrix.cycles_16bit"
                       : "matrix.cycles_32bit") +
                  ")");
}

bool Machine::failAlus(uint32_t index, int64_t cycle) {
  std::string list;
  for (uint32_t other : vectorIssued)
    list += (list.empty() ? "#" : ", #") + std::to_string(other);
  return fail("ALU over-issue", cycle, index,
              "the vector unit already issues " +
                  std::to_string(vectorIssued.size()) +
                  " instructions at this cycle (" + list + "); the chip has " +
                  std::to_string(alus) + " ALUs (vector.alus)");
}

bool Machine::failDma(const Op &op, uint32_t index, int64_t cycle) {
  auto [freeAt, holder] = dmaBusy[op.unit];
  return fail("DMA engine busy", cycle, index,
              "DMA engine " + std::to_string(op.unit) +
                  " is moving the vector of instruction " +
                  text.instruction(holder) + " until cycle " +
                  std::to_string(freeAt) + " (one vector takes " +
                  std::to_string(dmaCycles) + " cycles at " +
                  std::to_string(chip.proto().dma().bytes_per_cycle()) +
                  " bytes per cycle, dma.bytes_per_cycle)");
}

bool Machine::failLink(const Op &op, uint32_t index, int64_t cycle) {
  const Link &link = links[op.unit];
  return fail("link busy", cycle, index,
              "C2C link " + std::to_string(op.unit) +
                  " is sending the vector of instruction " +
                  text.instruction(link.holder) + " until cycle " +
                  std::to_string(link.freeAt) + " (one vector takes " +
                  std::to_string(linkCycles) + " cycles at " +
                  std::to_string(chip.proto().c2c().bytes_per_cycle()) +
                  " bytes per cycle, c2c.bytes_per_cycle)");
}

bool Machine::failSwitch(const Op &op, uint32_t index, int64_t cycle) {
  return fail("switch double issue", cycle, index,
              "switch unit " + std::to_string(op.unit) +
                  " already issues instruction " +
                  text.instruction(switchIssue[op.unit].first) +
                  " at this cycle; a switch unit issues one instruction "
                  "per cycle");
}

inline bool Machine::claimUnit(const Step &step) {
  // Only the checks here: the messages are built out of line, so that
  // this stays small enough to inline.
  int64_t cycle = step.cycle;
  uint32_t index = step.index;
  switch (step.kind) {
  case OpClass::MemRead:
  case OpClass::MemWrite: {
    Issue &use = banks[step.bankIndex];
    if (use.cycle == cycle && use.count >= bankLimit)
      return failBank(ops[index], index, cycle, ops[index].bank, use);
    if (use.cycle != cycle)
      use = Issue{cycle, 0, index};
    ++use.count;
    Issue &slice = sliceIssue[step.unit];
    countBusy(stats.slices[step.unit], slice, cycle);
    slice.cycle = cycle;
    return true;
  }
  case OpClass::MemGather:
  case OpClass::MemScatter: {
    // The address is known only at issue, so a gather or scatter takes
    // every bank port of its slice.
    Issue *slicePorts = &banks[size_t(step.unit) * banksPerSlice];
    for (uint32_t b = 0; b < banksPerSlice; ++b)
      if (slicePorts[b].cycle == cycle && slicePorts[b].count > 0)
        return failBank(ops[index], index, cycle, b, slicePorts[b]);
    for (uint32_t b = 0; b < banksPerSlice; ++b)
      slicePorts[b] = Issue{cycle, bankLimit, index};
    Issue &slice = sliceIssue[step.unit];
    countBusy(stats.slices[step.unit], slice, cycle);
    slice.cycle = cycle;
    return true;
  }
  case OpClass::Dma: {
    auto &[freeAt, holder] = dmaBusy[step.unit];
    if (cycle < freeAt)
      return failDma(ops[index], index, cycle);
    freeAt = cycle + dmaCycles;
    holder = index;
    ++stats.dma[step.unit].instructions;
    stats.dma[step.unit].cycles += dmaCycles;
    return true;
  }
  case OpClass::LoadWeights:
  case OpClass::InstallWeights:
  case OpClass::MatMul: {
    if (step.flags & Step::kBuffered) {
      // The weight buffer takes up to matrix.install_rows loads a cycle,
      // beside what the array does.
      Issue &port = buffers[step.unit].issue;
      if (port.cycle == cycle && port.count >= installRows)
        return failPlane(ops[index], index, cycle);
      if (port.cycle == cycle)
        ++port.count;
      else
        port = Issue{cycle, 1, index};
      // The plane is busy in a cycle that either port issues in (or a
      // matmul keeps it), counted once.
      Plane &plane = planes[step.unit];
      ++stats.planes[step.unit].instructions;
      if (plane.counted != cycle && cycle >= plane.freeAt) {
        ++stats.planes[step.unit].cycles;
        plane.counted = cycle;
      }
      return true;
    }
    // One M_MATMUL or M_INSTALL_WEIGHTS, or up to matrix.install_rows
    // weight loads, a cycle.
    Plane &plane = planes[step.unit];
    bool load = step.kind == OpClass::LoadWeights;
    if (plane.issue.cycle == cycle &&
        (!load || !plane.issueLoads || plane.issue.count >= installRows))
      return failPlane(ops[index], index, cycle);
    if (cycle < plane.freeAt)
      return failPlaneBusy(ops[index], index, cycle);
    ++stats.planes[step.unit].instructions;
    if (plane.counted != cycle) {
      ++stats.planes[step.unit].cycles;
      plane.counted = cycle;
    }
    if (plane.issue.cycle == cycle)
      ++plane.issue.count;
    else
      plane.issue = Issue{cycle, 1, index};
    plane.issueLoads = load;
    if (uint32_t busy = ops[index].busy; busy > 1) {
      plane.freeAt = cycle + busy;
      plane.holder = index;
      stats.planes[step.unit].cycles += busy - 1;
    }
    return true;
  }
  case OpClass::Link: {
    if (step.flags & Step::kReceive)
      return true; // the receive buffer decides, in executeLink
    Link &link = links[step.unit];
    if (cycle < link.freeAt)
      return failLink(ops[index], index, cycle);
    link.freeAt = cycle + linkCycles;
    link.holder = index;
    ++stats.links[step.unit].instructions;
    stats.links[step.unit].cycles += linkCycles;
    return true;
  }
  case OpClass::Permute: {
    Issue &unit = switchIssue[step.unit];
    if (unit.cycle == cycle)
      return failSwitch(ops[index], index, cycle);
    countBusy(stats.switches[step.unit], unit, cycle);
    unit = Issue{cycle, 1, index};
    return true;
  }
  default: {
    if (vectorIssue.cycle != cycle) {
      ++stats.vector.cycles;
      vectorIssue = Issue{cycle, 0, index};
      vectorIssued.clear();
    }
    if (vectorIssued.size() >= alus)
      return failAlus(index, cycle);
    vectorIssued.push_back(index);
    ++stats.vector.instructions;
    return true;
  }
  }
}

inline const float *Machine::readStream(const Step &step, int which,
                                        uint8_t dir, uint32_t group,
                                        bool namesProducer,
                                        uint32_t namedProducer,
                                        uint8_t wanted) {
  MissedRead missed;
  uint32_t producer = 0;
  const float *value =
      streams.read(dir, group, step.position, step.cycle, producer, missed);
  if (value && (!namesProducer || namedProducer == producer)) {
    if (outKeys[producer] == wanted)
      return value;
    // Several parts of a row go only to a load (or conversion) of as many.
    if (keyType(outKeys[producer]) == keyType(wanted))
      failParts(ops[step.index], step.index, step.cycle, producer);
    else
      failType(ops[step.index], step.index, which, step.cycle, producer);
    return nullptr;
  }
  failRead(ops[step.index], step.index, which, step.cycle, value, producer,
           missed);
  return nullptr;
}

bool Machine::failParts(const Op &op, uint32_t index, int64_t cycle,
                        uint32_t producer) {
  auto vectors = [](uint32_t parts) {
    return std::to_string(parts) + (parts == 1 ? " vector" : " vectors");
  };
  return fail("parts mismatch", cycle, index,
              "it takes " + vectors(op.parts) +
                  " of a row at once, but "
                  "instruction " +
                  text.instruction(producer) + " put " +
                  vectors(keyParts(outKeys[producer])) +
                  " on the stream group; several parts of a row go only to "
                  "an M_LOAD_WEIGHTS of as many");
}

bool Machine::failType(const Op &op, uint32_t index, int which, int64_t cycle,
                       uint32_t producer) {
  io::ElementType made = ops[producer].outType;
  io::ElementType wanted = op.sourceType(which);
  return fail("type mismatch", cycle, index,
              "src[" + std::to_string(which) + "] takes " +
                  io::typeName(wanted) + " lanes, but instruction " +
                  text.instruction(producer) + " put " + io::typeName(made) +
                  " lanes there");
}

inline bool Machine::checkWeightType(const Step &step) {
  io::ElementType have = planes[step.unit].weightType;
  auto isByte = [](io::ElementType type) {
    return type == io::ElementType::I8 || type == io::ElementType::U8;
  };
  return have == step.inType || (isByte(have) && isByte(step.inType)) ||
         failWeightType(ops[step.index], step.index, step.cycle);
}

bool Machine::failWeightType(const Op &op, uint32_t index, int64_t cycle) {
  const Plane &plane = planes[op.unit];
  return fail("type mismatch", cycle, index,
              "it multiplies " + io::typeName(op.inType) +
                  " inputs, but the weights of matrix plane " +
                  std::to_string(op.unit) + " are " +
                  io::typeName(plane.weightType) +
                  (plane.typed ? " (last loaded by instruction " +
                                     text.instruction(plane.typedBy) + ")"
                               : " (never loaded)"));
}

void Machine::failRead(const Op &op, uint32_t index, int which, int64_t cycle,
                       const float *value, uint32_t producer,
                       const MissedRead &missed) {
  const StreamPort &port = op.src[which];
  std::string where = "src[" + std::to_string(which) + "] reads " +
                      HazardText::streamName(port.id, port.dir) + " at " +
                      text.position(op.position) + " at cycle " +
                      std::to_string(cycle);
  if (port.hasProducer && (ops[port.producer].dst.id != port.id ||
                           ops[port.producer].dst.dir != port.dir)) {
    const Op &meant = ops[port.producer];
    fail("wrong stream", cycle, index,
         where + ", but the value from instruction " +
             text.instruction(port.producer) + " it means travels on " +
             HazardText::streamName(meant.dst.id, meant.dst.dir));
    return;
  }
  if (port.hasProducer) {
    // The program names the value it means: say when that one is here.
    const Op &meant = ops[port.producer];
    int64_t distance = int64_t(op.position) - int64_t(meant.position);
    int64_t arrival = meant.cycle + meant.latency +
                      (distance < 0 ? -distance : distance) *
                          int64_t(chip.proto().streams().hop_cycles());
    bool early = arrival > cycle;
    std::string found = value ? ", which takes the value from instruction " +
                                    text.instruction(producer) + " instead of"
                              : ", but finds no value there: it means";
    fail(
        early ? "too early" : "too late", cycle, index,
        where + found + " the value from instruction " +
            text.instruction(port.producer) +
            (early ? ", which arrives at cycle " : ", which passed at cycle ") +
            std::to_string(arrival));
    return;
  }
  switch (missed.kind) {
  case MissedRead::TooEarly:
    fail("too early", cycle, index,
         where + ", but no value is there yet: the value from instruction " +
             text.instruction(missed.producer) + " arrives at cycle " +
             std::to_string(missed.cycle));
    break;
  case MissedRead::TooLate:
    fail("too late", cycle, index,
         where +
             ", but no value is there any more: the value from "
             "instruction " +
             text.instruction(missed.producer) + " passed at cycle " +
             std::to_string(missed.cycle));
    break;
  case MissedRead::NoValue:
    fail("no value", cycle, index,
         where + ", but no value on that stream group reaches this position "
                 "near this cycle");
    break;
  }
}

bool Machine::failSramRead(uint64_t word, uint32_t width, uint32_t index,
                           int64_t cycle) {
  int64_t storedAt = sram.storedAt(word);
  uint64_t row = word / 4;
  std::string where = "address " + std::to_string(row);
  if (width != 4)
    where += " part " + std::to_string((word % 4) / width);
  if (storedAt == Sram::kNever)
    return fail("never-written read", cycle, index,
                where + " (bank " + std::to_string(chip.bankOf(row)) +
                    ") was never written and holds no input or constant");
  if (storedAt > cycle)
    return fail("read of in-flight write", cycle, index,
                where + " is being written by instruction " +
                    text.instruction(sram.writer(word)) +
                    ", which stores at cycle " + std::to_string(storedAt));
  // Name the latest write among the vector's words: the one that broke it.
  uint64_t latest = word;
  for (uint64_t k = 1; k < width; ++k)
    if (sram.storedAt(word + k) > sram.storedAt(latest))
      latest = word + k;
  uint32_t writer = sram.writer(latest);
  return fail("width mismatch", cycle, index,
              "the instruction reads a vector of " + std::to_string(width) +
                  (width == 1 ? " byte" : " bytes") + " a lane at " + where +
                  ", but " +
                  (writer == Sram::kPreloaded
                       ? std::string("an input or constant placed before "
                                     "cycle 0 holds those bytes")
                       : "instruction " + text.instruction(writer) +
                             " last wrote those bytes") +
                  " as part of a vector of another width or place");
}

inline bool Machine::checkSramRead(const Step &step) {
  int64_t storedAt = sram.storedAt(step.address);
  if (storedAt == Sram::kNever || storedAt > step.cycle ||
      !sram.holds(step.address, step.width))
    return failSramRead(step.address, step.width, step.index, step.cycle);
  return true;
}

bool Machine::checkPartsRead(const Step &step) {
  const Op &op = ops[step.index];
  for (uint32_t q = 1; q < op.parts; ++q) {
    uint64_t word = op.word + q * op.width;
    int64_t storedAt = sram.storedAt(word);
    if (storedAt == Sram::kNever || storedAt > step.cycle ||
        !sram.holds(word, op.width))
      return failSramRead(word, op.width, step.index, step.cycle);
  }
  return true;
}

inline bool Machine::complete(const Step &step) {
  stats.cycles =
      std::max(stats.cycles, uint64_t(step.cycle + int64_t(step.latency)));
  if (observer)
    observer->executed(ops[step.index].instruction, uint64_t(step.cycle),
                       step.latency);
  return true;
}

bool Machine::executeDma(const Step &step) {
  const Op &op = ops[step.index];
  uint32_t index = step.index;
  int64_t cycle = step.cycle;
  int64_t done = cycle + op.latency;
  if (op.opcode == hetx::DMA_OUT) {
    if (!checkSramRead(step))
      return false;
    host.write(op.hostAddress, timingOnly ? nullptr : sram.vector(op.word),
               index, done);
  } else {
    int64_t storedAt = host.storedAt(op.hostAddress);
    if (storedAt == Sram::kNever)
      return fail("never-written read", cycle, index,
                  "host address " + std::to_string(op.hostAddress) +
                      " holds no staged input and was never written");
    if (storedAt > cycle)
      return fail("read of in-flight write", cycle, index,
                  "host address " + std::to_string(op.hostAddress) +
                      " is being written by instruction " +
                      text.instruction(host.writer(op.hostAddress)) +
                      ", which stores at cycle " + std::to_string(storedAt));
    sram.write(op.word, op.width,
               timingOnly ? nullptr : host.vector(op.hostAddress), index, done);
  }
  return complete(step);
}

bool Machine::executeLink(const Step &step, const float *sent) {
  const Op &op = ops[step.index];
  uint32_t index = step.index;
  int64_t cycle = step.cycle;
  Link &link = links[op.unit];
  int64_t done = cycle + op.latency;
  if (op.opcode == hetx::C2C_SEND) {
    // Each link is looped back to itself: the vector arrives at this
    // chip's own receive buffer.
    link.vectors.push_back({done, index,
                            timingOnly
                                ? std::vector<float>()
                                : std::vector<float>(sent, sent + lanes)});
  } else {
    auto where = [&] { return "C2C link " + std::to_string(op.unit); };
    if (link.vectors.empty() || link.vectors.front().arrival > cycle)
      return fail(link.vectors.empty() ? "no value" : "too early", cycle, index,
                  link.vectors.empty()
                      ? where() + " has no vector arrived or on its way"
                      : where() + " has no vector arrived by cycle " +
                            std::to_string(cycle) +
                            ": the next, from instruction " +
                            text.instruction(link.vectors.front().sender) +
                            ", arrives at cycle " +
                            std::to_string(link.vectors.front().arrival));
    uint32_t buffered = 0;
    for (const InFlight &v : link.vectors)
      buffered += v.arrival <= cycle;
    uint32_t capacity = chip.proto().c2c().receive_buffer();
    if (buffered > capacity)
      return fail("receive buffer overflow", cycle, index,
                  where() + " holds " + std::to_string(buffered) +
                      " arrived vectors at this cycle, but its receive "
                      "buffer takes " +
                      std::to_string(capacity) + " (c2c.receive_buffer)");
    InFlight vector = std::move(link.vectors.front());
    link.vectors.pop_front();
    const Op &sender = ops[vector.sender];
    if (sender.inType != op.outType)
      return fail("type mismatch", cycle, index,
                  "it takes " + io::typeName(op.outType) +
                      " lanes, but instruction " +
                      text.instruction(vector.sender) + " sent " +
                      io::typeName(sender.inType) + " lanes");
    float *out =
        streams.emit(op.dst.dir, op.dst.group(), op.position, done, index);
    if (!timingOnly)
      std::memcpy(out, vector.values.data(), sizeof(float) * lanes);
  }
  return complete(step);
}

bool Machine::checkLinksDrained() {
  for (size_t k = 0; k < links.size(); ++k)
    if (!links[k].vectors.empty()) {
      const InFlight &first = links[k].vectors.front();
      return fail("vector never received", first.arrival, first.sender,
                  "C2C link " + std::to_string(k) + " still holds " +
                      std::to_string(links[k].vectors.size()) +
                      " vector(s) at the end of the program, the first sent "
                      "by this instruction; every vector sent must be "
                      "received");
    }
  return true;
}

bool Machine::holdBuffered(const Step &step) {
  // Each row (column) a buffered load writes waits in the buffer for the
  // install: a second load of it before then loses the first's weights.
  const Op &op = ops[step.index];
  Plane &buffer = buffers[step.unit];
  bool column = op.opcode == hetx::M_LOAD_WEIGHTS_COLUMN;
  if (buffer.pending.empty())
    buffer.pending.assign(2 * size_t(lanes), 0);
  for (uint32_t q = 0; q < op.parts; ++q) {
    uint32_t &by = buffer.pending[(column ? lanes : 0) + op.row + q];
    if (by != 0)
      return fail("weights overwritten", step.cycle, step.index,
                  std::string(column ? "column " : "row ") +
                      std::to_string(op.row + q) +
                      " of the weight buffer of matrix plane " +
                      std::to_string(op.unit) + " holds the weights of " +
                      "instruction " + text.instruction(by - 1) +
                      ", which no M_INSTALL_WEIGHTS has installed yet");
    by = step.index + 1;
  }
  return true;
}

bool Machine::installWeights(const Step &step) {
  Plane &plane = planes[step.unit], &buffer = buffers[step.unit];
  uint32_t index = step.index;
  if (buffer.loadStoredAt > step.cycle)
    return failWeightsInFlight(ops[index], index, step.cycle, true);
  std::fill(buffer.pending.begin(), buffer.pending.end(), 0u);
  // The products by the old array are computed before it goes.
  flushMatmuls(plane);
  if (!timingOnly) {
    std::swap(plane.weights, buffer.weights);
    std::swap(plane.live, buffer.live);
    std::swap(plane.rows, buffer.rows);
    std::swap(plane.rowData, buffer.rowData);
    std::swap(plane.cols, buffer.cols);
    std::swap(plane.finite, buffer.finite);
  }
  std::swap(plane.weightType, buffer.weightType);
  std::swap(plane.typed, buffer.typed);
  std::swap(plane.typedBy, buffer.typedBy);
  // The array is whole `matrix_load` cycles after the install issues.
  int64_t done = step.cycle + step.latency;
  if (done >= plane.loadStoredAt) {
    plane.loadStoredAt = done;
    plane.loader = index;
  }
  return complete(step);
}

bool Machine::failWeightsInFlight(const Op &op, uint32_t index, int64_t cycle,
                                  bool buffered) {
  if (buffered) {
    const Plane &buffer = buffers[op.unit];
    return fail("weights in flight", cycle, index,
                "the weight buffer of matrix plane " + std::to_string(op.unit) +
                    " is still loading: instruction " +
                    text.instruction(buffer.loader) +
                    " stores its row at cycle " +
                    std::to_string(buffer.loadStoredAt));
  }
  const Plane &plane = planes[op.unit];
  return fail("weights in flight", cycle, index,
              "the weights of matrix plane " + std::to_string(op.unit) +
                  " are still loading: instruction " +
                  text.instruction(plane.loader) + " stores its row at cycle " +
                  std::to_string(plane.loadStoredAt));
}

inline bool Machine::execute(const Step &step) {
  uint32_t index = step.index;
  int64_t cycle = step.cycle;
  if (!claimUnit(step))
    return false;
  if (step.kind == OpClass::Dma)
    return executeDma(step);
  if (step.kind == OpClass::MatMul) {
    if (planes[step.unit].loadStoredAt > cycle)
      return failWeightsInFlight(ops[index], index, cycle);
    if (!checkWeightType(step))
      return false;
  }
  const float *src[3] = {nullptr, nullptr, nullptr};
  for (int s = 0; s < step.sources; ++s) {
    if (s < 2)
      src[s] = readStream(step, s, (step.dirs >> s) & 1, step.srcGroup[s],
                          step.flags & (Step::kNamesProducer0 << s),
                          step.producer[s], step.srcKey[s]);
    else // only V_SELECT has a third source
      src[s] =
          readStream(step, s, ops[index].src[s].dir, ops[index].src[s].group(),
                     ops[index].src[s].hasProducer, ops[index].src[s].producer,
                     valueKey(step.inType));
    if (!src[s])
      return false;
  }
  if (step.kind == OpClass::Link)
    return executeLink(step, src[0]);
  if (step.kind == OpClass::MemGather)
    return executeGather(step, src[0]);
  if (step.kind == OpClass::MemScatter)
    return executeScatter(step, src[0], src[1]);
  if (step.kind == OpClass::MemRead && !checkSramRead(step))
    return false;
  if (step.kind == OpClass::MemRead && ops[index].parts > 1 &&
      !checkPartsRead(step))
    return false;
  int64_t done = cycle + step.latency;
  if (step.kind == OpClass::MemWrite)
    sram.write(step.address, step.width, src[0], index, done);
  if (step.kind == OpClass::LoadWeights) {
    Plane &plane =
        (step.flags & Step::kBuffered) ? buffers[step.unit] : planes[step.unit];
    if ((step.flags & Step::kBuffered) && !holdBuffered(step))
      return false;
    if (done >= plane.loadStoredAt) {
      plane.loadStoredAt = done;
      plane.loader = index;
    }
    plane.weightType = step.inType;
    plane.typed = true;
    plane.typedBy = index;
  }
  if (step.kind == OpClass::InstallWeights)
    return installWeights(step);
  float *out = nullptr;
  if (step.flags & Step::kProduces) {
    // A read of a constant that no write has replaced lends the constant
    // to the stream instead of copying it: it never changes.
    const float *lend = step.kind == OpClass::MemRead && !timingOnly
                            ? sram.fixedVector(step.address)
                            : nullptr;
    // Several parts are lent only where the image holds them side by side.
    for (uint32_t q = 1; lend && q < ops[index].parts; ++q)
      if (sram.fixedVector(step.address + q * step.width) !=
          lend + size_t(q) * lanes)
        lend = nullptr;
    out = streams.emit((step.dirs >> 3) & 1, step.dstGroup, step.position, done,
                       index, lend);
    if (lend)
      return complete(step);
  }
  if (!timingOnly)
    compute(ops[index], src, out);
  return complete(step);
}

void Machine::compute(const Op &op, const float *const *src, float *out) {
  // The result goes straight into the stream value just emitted (`out`,
  // null when the instruction produces none). That is never one of the
  // values `src` points into: those are live, and a new value only takes
  // the storage of retired ones.
  switch (op.kind) {
  case OpClass::MemRead:
    for (uint32_t q = 0; q < op.parts; ++q)
      std::memcpy(out + size_t(q) * lanes, sram.vector(op.word + q * op.width),
                  sizeof(float) * lanes);
    break;
  case OpClass::MemWrite:
  case OpClass::MemGather:  // read by executeGather
  case OpClass::MemScatter: // stored by executeScatter
  case OpClass::Dma:
  case OpClass::Link: // moved by executeLink
    break;
  case OpClass::VectorBinary:
  case OpClass::VectorSelect:
  case OpClass::VectorUnary:
  case OpClass::VectorReduce:
    computeVector(op, src, out, op.lanes, lanes);
    // A V_CAST of several parts converts each (only it has more than one).
    for (uint32_t q = 1; q < op.parts; ++q) {
      const float *part[3] = {src[0] + size_t(q) * lanes, nullptr, nullptr};
      computeVector(op, part, out + size_t(q) * lanes, op.lanes, lanes);
    }
    break;
  case OpClass::LoadWeights:
    loadWeights(op, src[0]);
    break;
  case OpClass::MatMul:
    // f16 and bf16 products are exact in fp32, so the fp32 routine is
    // their "fp32 accumulation" as it stands.
    if (io::isFloat(op.inType))
      queueMatmul(op, src[0], out);
    else
      integerMatmul(src[0], weightsOf(planes[op.unit]), out, lanes);
    break;
  case OpClass::Permute:
    for (uint32_t j = 0; j < lanes; ++j) {
      uint32_t from = j < op.lanes ? op.laneMap[j] : kLaneKeep;
      out[j] = j >= op.lanes       ? 0.0f
               : from != kLaneKeep ? src[0][from]
               : op.sources == 2   ? src[1][j]
                                   : 0.0f;
    }
    break;
  }
}

namespace {
/// Whether `value` is +0.0 (not -0.0, not anything else).
bool isPositiveZero(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits == 0;
}
} // namespace

PlaneWeights Machine::weightsOf(const Plane &plane) const {
  PlaneWeights weights;
  weights.data = plane.weights.get();
  weights.rowData = plane.rowData.data();
  weights.rows = plane.rows.data();
  weights.rowCount = uint32_t(plane.rows.size());
  weights.cols = plane.cols;
  weights.finite = plane.finite.data();
  return weights;
}

void Machine::queueMatmul(const Op &op, const float *src, float *out) {
  // The input is copied: its stream value may retire before the product is
  // computed. The result's stream value (`out`) cannot: nobody reads it
  // before it is on its stream at cycle + latency, run() computes the
  // deferred products before executing that cycle, and a value's storage
  // is reused only after it retires, long after it was emitted. A weight
  // load computes the plane's deferred products first (loadWeights()).
  Plane &plane = planes[op.unit];
  if (!plane.batchInputs)
    plane.batchInputs = makeBuffer(size_t(kMatmulBatch) * lanes);
  std::memcpy(plane.batchInputs.get() +
                  plane.batchOutputs.size() * size_t(lanes),
              src, sizeof(float) * lanes);
  plane.batchOutputs.push_back(out);
  matmulsDue = std::min(matmulsDue, op.cycle + int64_t(op.latency));
  if (plane.batchOutputs.size() == kMatmulBatch)
    flushMatmuls(plane);
}

void Machine::flushMatmuls(Plane &plane) {
  uint32_t count = uint32_t(plane.batchOutputs.size());
  if (count == 0)
    return;
  const float *inputs[kMatmulBatch];
  for (uint32_t b = 0; b < count; ++b)
    inputs[b] = plane.batchInputs.get() + size_t(b) * lanes;
  matmulBatch(inputs, plane.batchOutputs.data(), count, weightsOf(plane),
              lanes);
  plane.batchOutputs.clear();
}

void Machine::flushMatmuls() {
  for (Plane &plane : planes)
    flushMatmuls(plane);
  matmulsDue = std::numeric_limits<int64_t>::max();
}

void Machine::markLive(Plane &plane, uint32_t row) {
  plane.live[row] = 1;
  plane.rows.insert(std::upper_bound(plane.rows.begin(), plane.rows.end(), row),
                    row);
}

float *Machine::liveRow(Plane &plane, uint32_t row) {
  float *data = plane.weights.get() + size_t(row) * lanes;
  if (!plane.live[row]) {
    markLive(plane, row);
    std::fill(data, data + lanes, 0.0f);
    plane.finite[row] = 1;
  } else if (plane.rowData[row] != data) {
    std::memcpy(data, plane.rowData[row], sizeof(float) * lanes);
  }
  plane.rowData[row] = data;
  return data;
}

void Machine::loadWeights(const Op &op, const float *src) {
  // Allocated on first use and left uninitialised: a large chip's planes
  // would otherwise cost every run megabytes of zeros, and M_MATMUL reads
  // only the rows that are in memory (see Plane).
  Plane &plane = op.buffered ? buffers[op.unit] : planes[op.unit];
  if (!op.buffered)
    flushMatmuls(plane);
  if (!plane.weights) {
    plane.weights = makeBuffer(size_t(lanes) * lanes);
    plane.live.assign(lanes, 0);
    plane.finite.assign(lanes, 1);
    plane.rowData.assign(lanes, nullptr);
  }
  if (op.opcode == hetx::M_LOAD_WEIGHTS_COLUMN) {
    loadColumn(plane, op.row, src);
    return;
  }
  for (uint32_t q = 0; q < op.parts; ++q)
    loadRow(plane, op.row + q, src + size_t(q) * lanes);
}

void Machine::loadColumn(Plane &plane, uint32_t column, const float *src) {
  for (uint32_t i = 0; i < lanes; ++i) {
    if (plane.live[i] || !isPositiveZero(src[i])) {
      liveRow(plane, i)[column] = src[i];
      plane.finite[i] = plane.finite[i] && std::isfinite(src[i]);
    }
  }
  plane.cols = std::max(plane.cols, column + 1);
}

void Machine::loadRow(Plane &plane, uint32_t row, const float *src) {
  // A row of a constant is referred to where it is, with its extent and
  // finiteness found when the program was loaded; any other row is copied
  // to where it goes, even if it stays out of memory: rows not in memory
  // may hold anything.
  uint32_t extent = 0;
  bool finite = true;
  const float *data = src;
  if (!sram.imageRow(src, extent, finite)) {
    float *own = plane.weights.get() + size_t(row) * lanes;
    extent = copyWeightRow(src, own, lanes, finite);
    data = own;
  }
  if (!plane.live[row]) {
    if (extent == 0)
      return; // +0.0 over +0.0
    markLive(plane, row);
  }
  plane.rowData[row] = data;
  plane.finite[row] = finite;
  plane.cols = std::max(plane.cols, extent);
}

bool Machine::checkCollisions(int64_t cycle) {
  Collision hit;
  if (streams.checkCollisions(cycle, hit))
    return true;
  std::string stream = HazardText::streamName(hit.streamId, hit.dir);
  if (hit.exact)
    return fail(
        "overwrite collision", hit.cycle, hit.overwriter,
        "it puts a value on " + stream + " at " + text.position(hit.position) +
            " at cycle " + std::to_string(hit.cycle) + ", where instruction " +
            text.instruction(hit.victim) + " puts one at the same cycle");
  return fail(
      "overwrite collision", hit.cycle, hit.overwriter,
      "its value on " + stream + ", put there at " +
          text.position(hit.position) + " at cycle " +
          std::to_string(hit.cycle) + ", replaces the value of instruction " +
          text.instruction(hit.victim) + " (put there at " +
          text.position(hit.victimPosition) + " at cycle " +
          std::to_string(hit.victimCycle) + ") before any instruction read it");
}

ExecutionPlan Machine::plan(const std::vector<Op> &ops,
                            const chip::ChipSpec &chip) {
  ExecutionPlan plan;
  plan.steps.reserve(ops.size());
  plan.outKeys.reserve(ops.size());
  for (const Op &op : ops)
    plan.outKeys.push_back(valueKey(
        op.outType, op.kind == OpClass::MemRead || op.opcode == hetx::V_CAST
                        ? op.parts
                        : 1));
  if (chip.interleaved())
    for (uint32_t i = 0; i < ops.size(); ++i)
      if (ops[i].indexed())
        plan.chainBands[ops[i].chain].push_back(
            {ops[i].unit, ops[i].rowBegin, ops[i].rowEnd});
  for (auto &entry : plan.chainBands)
    std::sort(entry.second.begin(), entry.second.end());
  uint32_t banks = chip.proto().memory().banks_per_slice();
  auto add = [&](uint32_t index) {
    const Op &op = ops[index];
    Step step;
    step.cycle = op.cycle;
    step.address = op.word;
    step.width = op.width;
    step.index = index;
    step.unit = op.unit;
    step.position = op.position;
    step.latency = op.latency;
    step.bankIndex = op.unit * banks + op.bank;
    step.kind = op.kind;
    step.sources = op.sources;
    step.inType = op.inType;
    for (int s = 0; s < 2 && s < op.sources; ++s) {
      step.srcGroup[s] = op.src[s].group();
      step.producer[s] = op.src[s].producer;
      step.srcKey[s] = valueKey(op.sourceType(s), op.parts);
      step.dirs |= uint8_t(op.src[s].dir << s);
      if (op.src[s].hasProducer)
        step.flags |= uint8_t(Step::kNamesProducer0 << s);
    }
    step.dstGroup = op.dst.group();
    step.dirs |= uint8_t(op.dst.dir << 3);
    if (op.produces)
      step.flags |= Step::kProduces;
    if (op.opcode == hetx::C2C_RECV)
      step.flags |= Step::kReceive;
    if (op.buffered)
      step.flags |= Step::kBuffered;
    plan.steps.push_back(step);
  };
  size_t count = ops.size();
  for (size_t begin = 0; begin < count;) {
    size_t end = begin;
    while (end < count && ops[end].cycle == ops[begin].cycle)
      ++end;
    for (int pass = 0; pass < 2; ++pass)
      for (size_t i = begin; i < end; ++i)
        if ((ops[i].kind == OpClass::MemWrite ||
             ops[i].kind == OpClass::MemScatter ||
             ops[i].opcode == hetx::DMA_IN) == (pass == 0))
          add(uint32_t(i));
    begin = end;
  }
  return plan;
}

bool Machine::run(const ExecutionPlan &plan, SimStats &out,
                  std::string &errorOut) {
  outKeys = plan.outKeys.data();
  chainBands = &plan.chainBands;
  const std::vector<Step> &steps = plan.steps;
  int64_t current = 0;
  for (size_t k = 0; k < steps.size(); ++k) {
    const Step &step = steps[k];
    // A long program does not fit in the caches: fetch ahead.
    if (k + 48 < steps.size())
      __builtin_prefetch(&steps[k + 48]);
    if (k == 0 || step.cycle != current) {
      current = step.cycle;
      if (current >= matmulsDue)
        flushMatmuls();
      bool ok = checkCollisions(current);
      streams.retire(current);
      if (!ok) {
        errorOut = error;
        return false;
      }
    }
    if (!execute(step)) {
      errorOut = error;
      return false;
    }
  }
  flushMatmuls();
  if (!checkCollisions(std::numeric_limits<int64_t>::max()) ||
      !checkLinksDrained()) {
    errorOut = error;
    return false;
  }
  stats.instructions = ops.size();
  out = stats;
  return true;
}

} // namespace hetc::sim
