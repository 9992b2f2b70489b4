//===- PhysicalBound.cpp - The chip's physical limit for a program ------===//

#include "compiler/passes/PhysicalBound.h"

#include <algorithm>

using namespace hetc;

KernelWork &KernelWork::operator+=(const KernelWork &other) {
  macs8 += other.macs8;
  macs16 += other.macs16;
  macs32 += other.macs32;
  installBytes += other.installBytes;
  sramBytes += other.sramBytes;
  vectorLaneOps += other.vectorLaneOps;
  return *this;
}

PeakRates PeakRates::of(const chip::ChipSpec &chip) {
  const chip::Chip &c = chip.proto();
  uint64_t lanes = chip.lanes();
  PeakRates rates;
  rates.macs8 =
      uint64_t(c.matrix().planes()) * c.matrix().rows() * c.matrix().cols();
  // A plane multiplies wider inputs at the chip's slower rates.
  rates.macs16 = std::max<uint64_t>(1, rates.macs8 / chip.matmulCycles(16));
  rates.macs32 = std::max<uint64_t>(1, rates.macs8 / chip.matmulCycles(32));
  rates.installBytes = 2 * uint64_t(c.streams().per_direction()) * lanes;
  rates.sramBytes = uint64_t(c.memory().slices()) *
                    c.memory().banks_per_slice() *
                    c.memory().accesses_per_bank_per_cycle() * lanes;
  rates.vectorLaneOps = uint64_t(c.vector().alus()) * lanes;
  return rates;
}

static uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

PhysicalBound hetc::physicalBound(const KernelWork &work,
                                  const chip::ChipSpec &chip) {
  PeakRates rates = PeakRates::of(chip);
  PhysicalBound bound;
  // Each width's MACs take their own time on the same planes.
  bound.matrixCycles = ceilDiv(work.macs8, rates.macs8) +
                       ceilDiv(work.macs16, rates.macs16) +
                       ceilDiv(work.macs32, rates.macs32);
  bound.installCycles = ceilDiv(work.installBytes, rates.installBytes);
  bound.sramCycles = ceilDiv(work.sramBytes, rates.sramBytes);
  bound.vectorCycles = ceilDiv(work.vectorLaneOps, rates.vectorLaneOps);
  const std::pair<uint64_t, const char *> terms[] = {
      {bound.matrixCycles, "matrix"},
      {bound.installCycles, "weight install"},
      {bound.sramCycles, "SRAM"},
      {bound.vectorCycles, "vector"}};
  for (const auto &[cycles, name] : terms)
    if (cycles > bound.cycles) {
      bound.cycles = cycles;
      bound.boundBy = name;
    }
  return bound;
}

std::string PhysicalBound::describe() const {
  return std::string("bound by ") + boundBy + "; matrix " +
         std::to_string(matrixCycles) + ", weight install " +
         std::to_string(installCycles) + ", SRAM " +
         std::to_string(sramCycles) + ", vector " +
         std::to_string(vectorCycles) + " cycles";
}
