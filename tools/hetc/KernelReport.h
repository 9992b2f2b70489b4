//===- KernelReport.h - Per-kernel cycles of a scheduled program -*- C++ -*-===//
#ifndef HETC_TOOLS_HETC_KERNELREPORT_H
#define HETC_TOOLS_HETC_KERNELREPORT_H

#include "runtime/chip/ChipSpec.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace hetc {

/// The instructions of one kernel (one ONNX node) in a scheduled program.
struct KernelStats {
  std::string node;
  int64_t instructions = 0;
  /// First issue and last completion cycle.
  int64_t first = 0;
  int64_t end = 0;
  /// The unit the kernel uses most and the cycles it needs it for.
  std::string busiestUnit;
  int64_t busiestCycles = 0;

  int64_t span() const { return end - first; }
  /// Busiest-unit cycles over the span: 1 when the kernel keeps its
  /// bottleneck unit busy throughout.
  double efficiency() const {
    return span() ? double(busiestCycles) / double(span()) : 1.0;
  }
};

/// Collects per-kernel figures of a scheduled hisa function, by first cycle.
std::vector<KernelStats> collectKernelStats(mlir::func::FuncOp func,
                                            const chip::ChipSpec &chip);

/// Prints one line per kernel.
void printKernels(llvm::ArrayRef<KernelStats> kernels, llvm::raw_ostream &os);

} // namespace hetc

#endif // HETC_TOOLS_HETC_KERNELREPORT_H
