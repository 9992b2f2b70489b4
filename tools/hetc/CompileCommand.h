//===- CompileCommand.h - The `hetc compile` command ------------*- C++ -*-===//
#ifndef HETC_TOOLS_HETC_COMPILECOMMAND_H
#define HETC_TOOLS_HETC_COMPILECOMMAND_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hetc {

/// Where `hetc compile` stops and what it writes.
enum class EmitKind { Import, HGraph, HTile, HIsa, Hetx };

struct CompileOptions {
  std::string model;
  /// Output file; empty: <model stem>.hetx for hetx, stdout for IR.
  std::string output;
  std::string chip;
  /// Whether --chip was given (a module given as MLIR keeps its own chip
  /// otherwise).
  bool chipGiven = false;
  EmitKind emit = EmitKind::Hetx;
  std::map<std::string, int64_t> dims;
  /// Graph inputs fixed at compile time: name -> .npy or TensorProto file.
  std::map<std::string, std::string> inputValues;
  /// Above 0: turn a growing KV cache into a static one of this many
  /// positions (a decode step for every position).
  int64_t maxContext = 0;
  /// Above 0: the decode step's batch slots (the symbolic batch axis of
  /// its input_ids).
  int64_t maxBatch = 0;
  /// Prefill programs of the decode step `model` (ONNX files), compiled
  /// into its SRAM layout and nested in its artifact.
  std::vector<std::string> prefills;
  /// --prefill-buckets: each prefill is compiled once per length, its
  /// symbolic sequence axis pinned to it.
  std::vector<int64_t> prefillBuckets;
  bool quiet = false;
  /// Print every kernel's cycles, not only the three least busy.
  bool allKernels = false;
  /// --sram-peak: list this many of the buffers live at the SRAM peak,
  /// those with the most padding (0: none).
  unsigned sramPeak = 0;
  /// Stage inputs and outputs in host memory and move them by DMA.
  bool hostIO = false;
  /// Leave the kernel plan out of the artifact: it then runs on the chip
  /// only.
  bool noKernelPlan = false;
  /// --precision: fp32, or fp16/bf16 for the matrix-unit weights.
  std::string precision = "fp32";
  /// Print IR with locations (the ONNX node names).
  bool printLocations = false;
  /// MLIR's own options (`--mlir-print-ir-after-all`, `--mlir-timing`,
  /// `--mlir-pass-pipeline-crash-reproducer=F`, ...), as given.
  std::vector<std::string> mlirOptions;
};

/// Runs `hetc compile`; returns the process exit code.
int compileCommand(const CompileOptions &options);

} // namespace hetc

#endif // HETC_TOOLS_HETC_COMPILECOMMAND_H
