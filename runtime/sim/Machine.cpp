//===- Machine.cpp - Executes a decoded program cycle by cycle ---------===//

#include "runtime/sim/Machine.h"

#include "runtime/sim/TypedMath.h"
#include "runtime/sim/VectorMath.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace hetc::sim {

Machine::Machine(const chip::ChipSpec &chip, const HazardText &text,
                 const std::vector<Op> &ops, Sram &sram, HostMemory &host,
                 const SimOptions &options)
    : chip(chip), text(text), ops(ops), sram(sram), host(host),
      timingOnly(options.timingOnly), observer(options.observer),
      streams(chip.streamGroups(), chip.streamGroupWidth(), chip.positions(),
              chip.proto().streams().hop_cycles(), chip.lanes(),
              !options.timingOnly),
      lanes(chip.lanes()),
      banksPerSlice(chip.proto().memory().banks_per_slice()),
      bankLimit(chip.proto().memory().accesses_per_bank_per_cycle()),
      alus(chip.proto().vector().alus()),
      banks(size_t(chip.proto().memory().slices()) * banksPerSlice),
      planes(chip.proto().matrix().planes()),
      sliceIssue(chip.proto().memory().slices()),
      dmaBusy(chip.proto().dma().engines(), {-1, 0}),
      dmaCycles(chip.dmaCyclesPerVector()), switchIssue(chip.switches()),
      result(chip.lanes()) {
  stats.slices.resize(sliceIssue.size());
  stats.planes.resize(planes.size());
  stats.dma.resize(dmaBusy.size());
  stats.switches.resize(switchIssue.size());
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

bool Machine::claimUnit(const Op &op, uint32_t index, int64_t cycle) {
  switch (op.kind) {
  case OpClass::MemRead:
  case OpClass::MemWrite: {
    uint32_t bank = op.bank;
    Issue &use = banks[size_t(op.unit) * banksPerSlice + bank];
    uint32_t limit = bankLimit;
    if (use.cycle == cycle && use.count >= limit)
      return fail("bank over-subscription", cycle, index,
                  "bank " + std::to_string(bank) + " of MEM slice " +
                      std::to_string(op.unit) + " already serves " +
                      std::to_string(use.count) + " access" +
                      (use.count == 1 ? "" : "es") +
                      " at this cycle (the first is instruction " +
                      text.instruction(use.first) + "); the chip allows " +
                      std::to_string(limit) +
                      " (memory.accesses_per_bank_per_cycle)");
    if (use.cycle != cycle)
      use = Issue{cycle, 0, index};
    ++use.count;
    Issue &slice = sliceIssue[op.unit];
    countBusy(stats.slices[op.unit], slice, cycle);
    slice.cycle = cycle;
    return true;
  }
  case OpClass::Dma: {
    auto &[freeAt, holder] = dmaBusy[op.unit];
    if (cycle < freeAt)
      return fail("DMA engine busy", cycle, index,
                  "DMA engine " + std::to_string(op.unit) +
                      " is moving the vector of instruction " +
                      text.instruction(holder) + " until cycle " +
                      std::to_string(freeAt) + " (one vector takes " +
                      std::to_string(dmaCycles) + " cycles at " +
                      std::to_string(chip.proto().dma().bytes_per_cycle()) +
                      " bytes per cycle, dma.bytes_per_cycle)");
    freeAt = cycle + dmaCycles;
    holder = index;
    ++stats.dma[op.unit].instructions;
    stats.dma[op.unit].cycles += dmaCycles;
    return true;
  }
  case OpClass::LoadWeights:
  case OpClass::MatMul: {
    Plane &plane = planes[op.unit];
    if (plane.issue.cycle == cycle)
      return fail("plane double issue", cycle, index,
                  "matrix plane " + std::to_string(op.unit) +
                      " already issues instruction " +
                      text.instruction(plane.issue.first) +
                      " at this cycle; a plane issues one instruction per "
                      "cycle");
    countBusy(stats.planes[op.unit], plane.issue, cycle);
    plane.issue = Issue{cycle, 1, index};
    return true;
  }
  case OpClass::Permute: {
    Issue &unit = switchIssue[op.unit];
    if (unit.cycle == cycle)
      return fail("switch double issue", cycle, index,
                  "switch unit " + std::to_string(op.unit) +
                      " already issues instruction " +
                      text.instruction(unit.first) +
                      " at this cycle; a switch unit issues one instruction "
                      "per cycle");
    countBusy(stats.switches[op.unit], unit, cycle);
    unit = Issue{cycle, 1, index};
    return true;
  }
  default: {
    if (vectorIssue.cycle != cycle) {
      ++stats.vector.cycles;
      vectorIssue = Issue{cycle, 0, index};
      vectorIssued.clear();
    }
    if (vectorIssued.size() >= alus) {
      std::string list;
      for (uint32_t other : vectorIssued)
        list += (list.empty() ? "#" : ", #") + std::to_string(other);
      return fail("ALU over-issue", cycle, index,
                  "the vector unit already issues " +
                      std::to_string(vectorIssued.size()) +
                      " instructions at this cycle (" + list +
                      "); the chip has " + std::to_string(alus) +
                      " ALUs (vector.alus)");
    }
    vectorIssued.push_back(index);
    ++stats.vector.instructions;
    return true;
  }
  }
}

const float *Machine::readStream(const Op &op, uint32_t index, int which,
                                 int64_t cycle) {
  const StreamPort &port = op.src[which];
  MissedRead missed;
  uint32_t producer = 0;
  const float *value = streams.read(port.dir, port.group(), op.position, cycle,
                                    producer, missed);
  if (value && (!port.hasProducer || port.producer == producer))
    return checkTypes(op, index, which, cycle, producer) ? value : nullptr;
  failRead(op, index, which, cycle, value, producer, missed);
  return nullptr;
}

bool Machine::checkTypes(const Op &op, uint32_t index, int which,
                         int64_t cycle, uint32_t producer) {
  io::ElementType made = ops[producer].outType;
  io::ElementType wanted = op.sourceType(which);
  if (made == wanted)
    return true;
  return fail("type mismatch", cycle, index,
              "src[" + std::to_string(which) + "] takes " +
                  io::typeName(wanted) + " lanes, but instruction " +
                  text.instruction(producer) + " put " + io::typeName(made) +
                  " lanes there");
}

bool Machine::checkWeightType(const Op &op, uint32_t index, int64_t cycle) {
  const Plane &plane = planes[op.unit];
  io::ElementType have = plane.weightType;
  auto isByte = [](io::ElementType type) {
    return type == io::ElementType::I8 || type == io::ElementType::U8;
  };
  if (have == op.inType || (isByte(have) && isByte(op.inType)))
    return true;
  return fail("type mismatch", cycle, index,
              "it multiplies " + io::typeName(op.inType) +
                  " inputs, but the weights of matrix plane " +
                  std::to_string(op.unit) + " are " + io::typeName(have) +
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
    int64_t arrival =
        meant.cycle + meant.latency +
        (distance < 0 ? -distance : distance) *
            int64_t(chip.proto().streams().hop_cycles());
    bool early = arrival > cycle;
    std::string found =
        value ? ", which takes the value from instruction " +
                    text.instruction(producer) + " instead of"
              : ", but finds no value there: it means";
    fail(early ? "too early" : "too late", cycle, index,
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

bool Machine::checkSramRead(const Op &op, uint32_t index, int64_t cycle) {
  int64_t storedAt = sram.storedAt(op.address);
  if (storedAt == Sram::kNever)
    return fail("never-written read", cycle, index,
                "address " + std::to_string(op.address) + " (bank " +
                    std::to_string(chip.bankOf(op.address)) +
                    ") was never written and holds no input or constant");
  if (storedAt > cycle)
    return fail("read of in-flight write", cycle, index,
                "address " + std::to_string(op.address) +
                    " is being written by instruction " +
                    text.instruction(sram.writer(op.address)) +
                    ", which stores at cycle " + std::to_string(storedAt));
  return true;
}

bool Machine::executeDma(const Op &op, uint32_t index, int64_t cycle) {
  int64_t done = cycle + op.latency;
  if (op.opcode == hetx::DMA_OUT) {
    if (!checkSramRead(op, index, cycle))
      return false;
    host.write(op.hostAddress, timingOnly ? nullptr : sram.vector(op.address),
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
    sram.write(op.address,
               timingOnly ? nullptr : host.vector(op.hostAddress), index, done);
  }
  stats.cycles = std::max(stats.cycles, uint64_t(done));
  if (observer)
    observer->executed(index, uint64_t(cycle), op.latency);
  return true;
}

bool Machine::execute(uint32_t index, int64_t cycle) {
  const Op &op = ops[index];
  if (!claimUnit(op, index, cycle))
    return false;
  if (op.kind == OpClass::Dma)
    return executeDma(op, index, cycle);
  if (op.kind == OpClass::MatMul) {
    const Plane &plane = planes[op.unit];
    if (plane.loadStoredAt > cycle)
      return fail("weights in flight", cycle, index,
                  "the weights of matrix plane " + std::to_string(op.unit) +
                      " are still loading: instruction " +
                      text.instruction(plane.loader) +
                      " stores its row at cycle " +
                      std::to_string(plane.loadStoredAt));
    if (!checkWeightType(op, index, cycle))
      return false;
  }
  const float *src[3] = {nullptr, nullptr, nullptr};
  for (int s = 0; s < op.sources; ++s)
    if (!(src[s] = readStream(op, index, s, cycle)))
      return false;
  if (op.kind == OpClass::MemRead && !checkSramRead(op, index, cycle))
    return false;
  int64_t done = cycle + op.latency;
  if (op.kind == OpClass::MemWrite)
    sram.write(op.address, src[0], index, done);
  if (op.kind == OpClass::LoadWeights) {
    Plane &plane = planes[op.unit];
    if (done >= plane.loadStoredAt) {
      plane.loadStoredAt = done;
      plane.loader = index;
    }
    plane.weightType = op.inType;
    plane.typed = true;
    plane.typedBy = index;
  }
  if (!timingOnly)
    compute(op, src);
  if (op.produces) {
    float *out =
        streams.emit(op.dst.dir, op.dst.group(), op.position, done, index);
    if (!timingOnly)
      std::memcpy(out, result.data(), sizeof(float) * lanes);
  }
  stats.cycles = std::max(stats.cycles, uint64_t(done));
  if (observer)
    observer->executed(index, uint64_t(cycle), op.latency);
  return true;
}

void Machine::compute(const Op &op, const float *const *src) {
  // Results go to a buffer of our own: emitting may move the stream values
  // that `src` points into.
  switch (op.kind) {
  case OpClass::MemRead:
    std::memcpy(result.data(), sram.vector(op.address), sizeof(float) * lanes);
    break;
  case OpClass::MemWrite:
  case OpClass::Dma:
    break;
  case OpClass::VectorBinary:
    if (op.outType == io::ElementType::Bool &&
        op.inType != io::ElementType::Bool)
      compareLanes(op.opcode, io::isFloat(op.inType), src[0], src[1],
                   result.data(), op.lanes, lanes);
    else if (io::isFloat(op.inType))
      vectorBinary(op.opcode, src[0], src[1], result.data(), op.lanes, lanes);
    else if (op.inType == io::ElementType::Bool &&
             op.opcode != hetx::V_AND && op.opcode != hetx::V_OR &&
             op.opcode != hetx::V_XOR)
      compareLanes(op.opcode, false, src[0], src[1], result.data(), op.lanes,
                   lanes);
    else
      integerBinary(op.opcode, src[0], src[1], result.data(), op.lanes, lanes);
    roundLanes(op.outType, result.data(), op.lanes);
    break;
  case OpClass::VectorSelect:
    selectLanes(src[0], src[1], src[2], result.data(), op.lanes, lanes);
    break;
  case OpClass::VectorUnary:
    if (op.opcode == hetx::V_CAST)
      castLanes(op.inType, op.outType, src[0], result.data(), op.lanes, lanes);
    else if (io::isFloat(op.inType))
      vectorUnary(op.opcode, src[0], result.data(), op.lanes, lanes);
    else
      integerUnary(op.opcode, src[0], result.data(), op.lanes, lanes);
    if (op.opcode != hetx::V_CAST)
      roundLanes(op.outType, result.data(), op.lanes);
    break;
  case OpClass::VectorReduce:
    if (io::isFloat(op.inType)) {
      vectorReduce(op.opcode, src[0], result.data(), op.lanes, lanes);
      roundLanes(op.outType, result.data(), lanes);
    } else {
      integerReduce(op.opcode, src[0], result.data(), op.lanes, lanes);
    }
    break;
  case OpClass::LoadWeights:
    if (op.opcode == hetx::M_LOAD_WEIGHTS_COLUMN) {
      float *weights = weightsOf(op.unit);
      for (uint32_t i = 0; i < lanes; ++i)
        weights[size_t(i) * lanes + op.row] = src[0][i];
    } else {
      std::memcpy(weightsOf(op.unit) + size_t(op.row) * lanes, src[0],
                  sizeof(float) * lanes);
    }
    break;
  case OpClass::MatMul:
    // f16 and bf16 products are exact in fp32, so the fp32 routine is
    // their "fp32 accumulation" as it stands.
    if (io::isFloat(op.inType))
      matmul(src[0], weightsOf(op.unit), result.data(), lanes);
    else
      integerMatmul(src[0], weightsOf(op.unit), result.data(), lanes);
    break;
  case OpClass::Permute:
    for (uint32_t j = 0; j < lanes; ++j) {
      uint32_t from = j < op.lanes ? op.laneMap[j] : kLaneKeep;
      result[j] = j >= op.lanes       ? 0.0f
                  : from != kLaneKeep ? src[0][from]
                  : op.sources == 2   ? src[1][j]
                                      : 0.0f;
    }
    break;
  }
}

float *Machine::weightsOf(uint32_t plane) {
  // Allocated on first use: a large chip's planes would otherwise cost
  // every run megabytes of zeros.
  std::vector<float> &weights = planes[plane].weights;
  if (weights.empty())
    weights.assign(size_t(lanes) * lanes, 0.0f);
  return weights.data();
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

bool Machine::run(SimStats &out, std::string &errorOut) {
  size_t count = ops.size();
  for (size_t begin = 0; begin < count;) {
    int64_t cycle = ops[begin].cycle;
    size_t end = begin;
    while (end < count && ops[end].cycle == cycle)
      ++end;
    bool ok = checkCollisions(cycle);
    streams.retire(cycle);
    // Writes go first so that a read issued in the same cycle as a write to
    // its address sees that write in flight, whatever the list order.
    for (int pass = 0; ok && pass < 2; ++pass)
      for (size_t i = begin; ok && i < end; ++i)
        if ((ops[i].kind == OpClass::MemWrite ||
             ops[i].opcode == hetx::DMA_IN) == (pass == 0))
          ok = execute(uint32_t(i), cycle);
    if (!ok) {
      errorOut = error;
      return false;
    }
    begin = end;
  }
  if (!checkCollisions(std::numeric_limits<int64_t>::max())) {
    errorOut = error;
    return false;
  }
  stats.instructions = count;
  out = stats;
  return true;
}

} // namespace hetc::sim
