//===- Passes.h - hetc passes and pipelines --------------------*- C++ -*-===//
#ifndef HETC_COMPILER_PASSES_PASSES_H
#define HETC_COMPILER_PASSES_PASSES_H

#include "compiler/dialects/hetc/IR/HetcTarget.h"
#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/dialects/hisa/IR/HIsa.h"
#include "compiler/dialects/htile/IR/HTile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>

namespace hetc {

#define GEN_PASS_DECL
#include "compiler/passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/passes/Passes.h.inc"

/// Options shared by the compilation pipelines.
struct PipelineOptions {
  /// Path of a chip description file to set as the module's chip first
  /// (hetc-set-chip); empty when the module has its chip already.
  std::string chip;
  /// Move inputs and outputs through host memory by DMA
  /// (hetc-hisa-stage-io) instead of holding them in SRAM.
  bool hostIO = false;
  /// The element type of matrix-unit weights: "f32" (as the model has
  /// them), "f16", "bf16" or "i8" (hetc-hgraph-narrow-weights).
  std::string weights = "f32";
  /// Place the inputs and constants first, packed at the two ends of
  /// SRAM, so that the SRAM left is one run around the vector unit
  /// (hetc-htile-plan-memory's pack-resident): room for the prefill
  /// programs that share a decode step's layout, and the weights nearer
  /// the matrix planes.
  bool packResident = true;
  /// Record the buffers live at the SRAM peak with the most padding, this
  /// many (hetc-htile-plan-memory's peak-buffers; 0: none).
  unsigned peakBuffers = 0;
};

/// hgraph to hgraph: decompose, fold constants, fuse, and narrow the
/// weights as `options` says.
void buildHGraphPipeline(mlir::OpPassManager &pm,
                         const PipelineOptions &options = {});
/// hgraph to htile with buffers placed in SRAM.
void buildHTilePipeline(mlir::OpPassManager &pm, const PipelineOptions &options);
/// htile to scheduled hisa.
void buildHIsaPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);
/// The whole compilation: the three pipelines above, in order.
void buildCompilePipeline(mlir::OpPassManager &pm,
                          const PipelineOptions &options);

/// Registers every hetc pass and pipeline (for hetc-opt).
void registerHetcPassesAndPipelines();

} // namespace hetc

#endif // HETC_COMPILER_PASSES_PASSES_H
