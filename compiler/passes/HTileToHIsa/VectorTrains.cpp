//===- VectorTrains.cpp - Elementwise vectors grouped into trains --------===//

#include "compiler/passes/HTileToHIsa/VectorTrains.h"

#include "compiler/dialects/hisa/IR/HIsa.h"

#include <algorithm>

using namespace hetc;
using namespace hetc::expansion;

int64_t expansion::trainStride(const chip::ChipSpec &chip,
                               llvm::ArrayRef<mlir::Type> types) {
  int64_t perRow = 1;
  for (mlir::Type type : types)
    perRow = std::max<int64_t>(perRow, 4 / hisa::sramLaneBytes(type));
  return int64_t(chip.proto().memory().banks_per_slice()) * perRow;
}

/// Whether the trains of `step`'s accesses, `deltas` words apart from issue
/// to issue, take distinct banks. Reads of one vector sequence are one read
/// (the expansion reads it once); a write never shares a read's bank.
static bool banksApart(const chip::ChipSpec &chip, const VectorStep &step,
                       llvm::ArrayRef<int64_t> deltas) {
  struct Train {
    int64_t word, delta;
    bool isWrite;
    uint64_t bank;
  };
  llvm::SmallVector<Train, 4> seen;
  for (auto [access, delta] : llvm::zip_equal(step.accesses, deltas)) {
    Train train{access.word, delta, access.isWrite,
                chip.chipBankOf(uint64_t(access.word / 4))};
    for (const Train &other : seen) {
      bool sameRead = !train.isWrite && !other.isWrite &&
                      train.word == other.word && train.delta == other.delta;
      if (sameRead)
        continue;
      if (train.bank == other.bank)
        return false;
    }
    seen.push_back(train);
  }
  return true;
}

std::vector<VectorTrain> expansion::groupVectorTrains(
    const chip::ChipSpec &chip, int64_t vectors, int64_t stride,
    uint32_t maxCount, llvm::function_ref<bool(int64_t, VectorStep &)> stepOf) {
  std::vector<char> taken(size_t(std::max<int64_t>(vectors, 0)), 0);
  std::vector<VectorTrain> trains;
  VectorStep first, next;
  llvm::SmallVector<int64_t, 4> deltas;
  for (int64_t v = 0; v < vectors; ++v) {
    if (taken[v])
      continue;
    taken[v] = 1;
    VectorTrain train;
    train.first = v;
    uint32_t count = 1;
    if (maxCount > 1 && stride > 0 && stepOf(v, first)) {
      size_t n = first.accesses.size();
      deltas.assign(n, 0);
      while (count < maxCount) {
        int64_t w = v + int64_t(count) * stride;
        if (w >= vectors || taken[w] || !stepOf(w, next) ||
            next.key != first.key || next.accesses.size() != n)
          break;
        bool even = true;
        for (size_t i = 0; i < n && even; ++i) {
          const VectorStep::Access &a = first.accesses[i];
          const VectorStep::Access &b = next.accesses[i];
          int64_t delta = b.word - a.word;
          if (count == 1) {
            if (delta % hisa::sramLaneBytes(a.type) != 0)
              even = false;
            deltas[i] = delta;
          }
          even = even && a.type == b.type && a.isWrite == b.isWrite &&
                 delta == int64_t(count) * deltas[i] && b.word >= 0 &&
                 chip.chipBankOf(uint64_t(b.word / 4)) ==
                     chip.chipBankOf(uint64_t(a.word / 4));
        }
        // The banks are the first issue's at every issue: whether the
        // train's accesses keep apart is known at the second.
        if (!even || (count == 1 && !banksApart(chip, first, deltas)))
          break;
        ++count;
      }
      if (count > 1)
        for (size_t i = 0; i < n; ++i)
          train.steps.push_back(deltas[i] /
                                hisa::sramLaneBytes(first.accesses[i].type));
    }
    train.count = count;
    for (uint32_t k = 1; k < count; ++k)
      taken[size_t(v + int64_t(k) * stride)] = 1;
    trains.push_back(std::move(train));
  }
  return trains;
}
