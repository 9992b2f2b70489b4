//===- Synthetic.cpp - TSP-like synthetic scheduling problems ------------===//

#include "compiler/scheduler/Synthetic.h"

#include <limits>
#include <string>

using namespace hetc::sched;

namespace {

constexpr OpId kNone = std::numeric_limits<OpId>::max();

/// Emits blocks of ops until the program is large enough.
class Generator {
public:
  Generator(const SyntheticChip &chip, const SyntheticOptions &options);
  Problem build();

private:
  /// splitmix64: small, fast and the same on every platform.
  uint64_t random() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t bound) { return uint32_t(random() % bound); }

  uint32_t sliceOf(uint32_t address) const { return address % chip.slices; }
  int64_t slicePosition(uint32_t slice) const;
  int64_t planePosition(uint32_t plane) const;
  uint32_t pickAddress() { return below(options.addresses); }

  OpId addOp(char kind, int64_t latency, int64_t position, ResourceId use);
  OpId read(uint32_t address);
  OpId write(uint32_t address);
  OpId vectorOp() { return addOp('v', chip.vectorOp, vectorPosition, vector); }
  void elementwise();
  void matmulBlock();

  /// What later accesses to one address must wait for.
  struct AddressState {
    OpId lastWrite = kNone;
    std::vector<OpId> readsSinceWrite;
  };

  const SyntheticChip &chip;
  const SyntheticOptions &options;
  uint64_t state;
  Problem problem;
  int64_t vectorPosition;
  ResourceId vector = 0;
  std::vector<ResourceId> banks, planes;
  std::vector<AddressState> memory;
  std::vector<OpId> lastMatmul;
};

} // namespace

Generator::Generator(const SyntheticChip &chip, const SyntheticOptions &options)
    : chip(chip), options(options), state(options.seed),
      problem(StreamConfig{chip.hopCycles, chip.streamGroups, 4}),
      vectorPosition(chip.planes / 2 + 1 + chip.slices / 2),
      memory(options.addresses), lastMatmul(chip.planes, kNone) {
  for (uint32_t slice = 0; slice < chip.slices; ++slice)
    for (uint32_t bank = 0; bank < chip.banksPerSlice; ++bank)
      banks.push_back(problem.addResource(
          "slice" + std::to_string(slice) + ".bank" + std::to_string(bank), 1));
  vector = problem.addResource("vector", chip.vectorAlus);
  for (uint32_t plane = 0; plane < chip.planes; ++plane)
    planes.push_back(problem.addResource("plane" + std::to_string(plane), 1));
}

int64_t Generator::slicePosition(uint32_t slice) const {
  int64_t west = chip.planes / 2 + 1;
  return slice < chip.slices / 2 ? west + slice : west + slice + 1;
}

int64_t Generator::planePosition(uint32_t plane) const {
  if (plane < chip.planes / 2)
    return plane;
  return chip.planes / 2 + 1 + chip.slices + 2 + (plane - chip.planes / 2);
}

OpId Generator::addOp(char kind, int64_t latency, int64_t position,
                      ResourceId use) {
  return problem.addOperation(kind + std::to_string(problem.getNumOperations()),
                              latency, position, {use});
}

OpId Generator::read(uint32_t address) {
  uint32_t slice = sliceOf(address);
  uint32_t bank = (address / chip.slices) % chip.banksPerSlice;
  OpId op = addOp('r', chip.memRead, slicePosition(slice),
                  banks[slice * chip.banksPerSlice + bank]);
  AddressState &entry = memory[address];
  if (entry.lastWrite != kNone)
    problem.addDependence(entry.lastWrite, op, chip.memWrite);
  entry.readsSinceWrite.push_back(op);
  return op;
}

OpId Generator::write(uint32_t address) {
  uint32_t slice = sliceOf(address);
  uint32_t bank = (address / chip.slices) % chip.banksPerSlice;
  OpId op = addOp('w', chip.memWrite, slicePosition(slice),
                  banks[slice * chip.banksPerSlice + bank]);
  AddressState &entry = memory[address];
  // The store lands memWrite cycles after issue: after every earlier read
  // and after the previous store.
  for (OpId reader : entry.readsSinceWrite)
    problem.addDependence(reader, op, 1 - chip.memWrite);
  if (entry.lastWrite != kNone)
    problem.addDependence(entry.lastWrite, op, 1);
  entry.lastWrite = op;
  entry.readsSinceWrite.clear();
  return op;
}

void Generator::elementwise() {
  uint32_t first = pickAddress(), second = pickAddress();
  // Two reads from one slice could need its bank in the same cycle; after a
  // few tries the op reads one operand only.
  for (int tries = 0; tries < 8 && sliceOf(second) == sliceOf(first); ++tries)
    second = pickAddress();
  OpId lhs = read(first);
  OpId rhs = sliceOf(second) == sliceOf(first) ? kNone : read(second);
  OpId result = vectorOp();
  problem.addTransfer(lhs, {result});
  if (rhs != kNone)
    problem.addTransfer(rhs, {result});
  if (below(10) < 3) {
    OpId activation = vectorOp();
    problem.addTransfer(result, {activation});
    result = activation;
  }
  OpId store = write(pickAddress());
  problem.addTransfer(result, {store});
}

void Generator::matmulBlock() {
  uint32_t plane = below(chip.planes);
  int64_t position = planePosition(plane);
  OpId load = kNone;
  for (uint32_t row = 0, rows = 4 + below(13); row < rows; ++row) {
    OpId weights = read(pickAddress());
    OpId next = addOp('l', chip.matrixLoad, position, planes[plane]);
    problem.addTransfer(weights, {next});
    if (load != kNone)
      problem.addDependence(load, next, 1);
    else if (lastMatmul[plane] != kNone)
      // Weights stay until the last multiply that reads them has issued.
      problem.addDependence(lastMatmul[plane], next, 1 - chip.matrixLoad);
    load = next;
  }
  OpId previous = kNone;
  for (uint32_t input = 0, inputs = 4 + below(13); input < inputs; ++input) {
    OpId source = read(pickAddress());
    OpId product = addOp('m', chip.matrixMul, position, planes[plane]);
    problem.addTransfer(source, {product});
    if (previous == kNone)
      problem.addDependence(load, product, chip.matrixLoad);
    else
      problem.addDependence(previous, product, 1);
    previous = product;
    OpId result = product;
    if (below(2) == 0) {
      result = vectorOp();
      problem.addTransfer(product, {result});
    }
    OpId store = write(pickAddress());
    problem.addTransfer(result, {store});
  }
  lastMatmul[plane] = previous;
}

Problem Generator::build() {
  while (problem.getNumOperations() < options.numOps) {
    if (below(100) < options.matmulPercent)
      matmulBlock();
    else
      elementwise();
  }
  return std::move(problem);
}

Problem hetc::sched::buildSyntheticProblem(const SyntheticChip &chip,
                                           const SyntheticOptions &options) {
  return Generator(chip, options).build();
}
