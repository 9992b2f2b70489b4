//===- VectorTrains.h - Elementwise vectors grouped into trains -*- C++ -*-===//
//
// An elementwise kernel computes each output vector alike: it reads its
// operands' vectors, applies one or two vector instructions and writes the
// result. Where the vectors `stride` apart lie in one bank of one slice,
// evenly spaced, for every operand and the result, the kernel can issue
// them as trains (docs/isa.md, "Trains"): one read train per operand, one
// train per vector instruction and one write train, which the dispatcher
// places once each instead of once per vector.
//
// groupVectorTrains decides which vectors go together; the expansion of
// each kernel builds the instructions.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_PASSES_HTILETOHISA_VECTORTRAINS_H
#define HETC_COMPILER_PASSES_HTILETOHISA_VECTORTRAINS_H

#include "runtime/chip/ChipSpec.h"

#include "mlir/IR/Types.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace hetc::expansion {

/// What computing one output vector takes: its SRAM accesses (the reads of
/// its operands and, last, the write of the result) and a key that must be
/// the same for the vectors of one train (what their instructions share
/// besides the addresses: lanes, whether an operand is spread).
struct VectorStep {
  struct Access {
    /// The SRAM word (BufferLayout::word) and the lane type there.
    int64_t word = 0;
    mlir::Type type;
    bool isWrite = false;
  };
  llvm::SmallVector<Access, 4> accesses;
  int64_t key = 0;
};

/// Output vectors `first`, `first + stride`, ... (`count` of them) as one
/// train: access i of issue k is at `word_i + k * steps[i]` vectors of its
/// type.
struct VectorTrain {
  int64_t first = 0;
  uint32_t count = 1;
  llvm::SmallVector<int64_t, 4> steps;
};

/// Groups output vectors [0, vectors) into trains of at most `maxCount`,
/// in the order of their first vectors (a vector alone is a train of one).
/// Vectors `stride` apart go together while every access stays evenly
/// spaced in its first issue's slice and bank and the key is the same;
/// a train's distinct accesses lie in distinct banks, so that no two of
/// its trains (which issue in lockstep) take one bank in one cycle.
/// `stepOf(v, step)` fills the step of vector `v`, or returns false where
/// the vector cannot be part of a train.
std::vector<VectorTrain>
groupVectorTrains(const chip::ChipSpec &chip, int64_t vectors, int64_t stride,
                  uint32_t maxCount,
                  llvm::function_ref<bool(int64_t, VectorStep &)> stepOf);

/// The stride in output vectors that keeps each access of a train in one
/// bank: banks per slice times the most vectors any of `types` packs into
/// one SRAM row.
int64_t trainStride(const chip::ChipSpec &chip,
                    llvm::ArrayRef<mlir::Type> types);

} // namespace hetc::expansion

#endif // HETC_COMPILER_PASSES_HTILETOHISA_VECTORTRAINS_H
