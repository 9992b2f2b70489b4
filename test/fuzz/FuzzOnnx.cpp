//===- FuzzOnnx.cpp - ONNX models from import through code generation ===//
//
// The input is an ONNX model compiled as `hetc compile MODEL --chip
// test-chip.chip` would: imported with the chip's size limits, lowered
// through the hgraph, htile and hisa pipelines, scheduled (when it has at
// most kMaxInstructions instructions) and emitted as an artifact. Any
// failure must be a diagnostic, never a crash.
//
//===----------------------------------------------------------------------===//

#include "test/fuzz/FuzzTarget.h"

#include "compiler/codegen/HetxEmitter.h"
#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/dialects/hisa/IR/HIsa.h"
#include "compiler/dialects/htile/IR/HTile.h"
#include "compiler/frontend/OnnxImporter.h"
#include "compiler/passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include <onnx/onnx_pb.h>

#include <climits>
#include <cstdint>

using namespace mlir;
using namespace hetc;

/// The most hisa instructions an input's program may have to be scheduled.
constexpr int64_t kMaxInstructions = 20000;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  onnx::ModelProto model;
  if (size > size_t(INT_MAX) || !model.ParseFromArray(data, int(size)) ||
      !model.has_graph())
    return 0;
  const chip::ChipSpec &chip = fuzz::testChip();
  MLIRContext context(MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) {
    return success();
  });
  context.loadDialect<hgraph::HGraphDialect, htile::HTileDialect,
                      hisa::HIsaDialect, target::HetcDialect,
                      func::FuncDialect>();
  frontend::ImportOptions options;
  options.maxElements =
      int64_t(chip.totalVectors() * chip.lanes() * chip::kElementBytes);
  OwningOpRef<ModuleOp> module =
      frontend::importOnnxModel(model, "fuzz.onnx", context, options);
  if (!module)
    return 0;
  PipelineOptions pipeline{fuzz::chipPath("test-chip.chip"),
                           /*hostIO=*/false};
  PassManager lower(&context);
  buildHGraphPipeline(lower, pipeline);
  buildHTilePipeline(lower, pipeline);
  lower.addPass(createConvertHTileToHIsa());
  if (failed(lower.run(*module)))
    return 0;
  // A valid model can lower to a program of 10^5 instructions or more,
  // which the release compiler schedules in a second and this build in
  // tens: such inputs test nothing more than smaller ones and would stall
  // the run, so they stop before scheduling.
  int64_t instructions = 0;
  module->walk([&](hisa::InstructionOpInterface) { ++instructions; });
  if (instructions > kMaxInstructions)
    return 0;
  PassManager schedule(&context);
  schedule.addPass(createHIsaSchedule());
  if (failed(schedule.run(*module)))
    return 0;
  (void)codegen::emitArtifact(*module, chip);
  return 0;
}
