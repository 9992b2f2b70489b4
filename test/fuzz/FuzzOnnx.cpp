//===- FuzzOnnx.cpp - ONNX models from import through code generation ===//
//
// The input is an ONNX model compiled as `hetc compile MODEL --chip
// test-chip.chip` would: imported with the chip's size limits, lowered
// through the hgraph, htile and hisa pipelines, scheduled and emitted as
// an artifact. Any failure must be a diagnostic, never a crash.
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
  PassManager pm(&context);
  buildCompilePipeline(pm, PipelineOptions{fuzz::chipPath("test-chip.chip"),
                                           /*hostIO=*/false});
  if (failed(pm.run(*module)))
    return 0;
  (void)codegen::emitArtifact(*module, chip);
  return 0;
}
