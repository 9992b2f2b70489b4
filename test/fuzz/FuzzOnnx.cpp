//===- FuzzOnnx.cpp - ONNX models from import through code generation ===//
//
// The input is an ONNX model compiled as `hetc compile MODEL --chip
// test-chip.chip` would (and, when it gives present* outputs, imported as
// a prefill program that writes them, as `--prefill` does): imported with
// the chip's size limits, lowered
// through the hgraph, htile and hisa pipelines, scheduled (when it has at
// most kMaxInstructions instructions) and emitted as an artifact with its
// kernel plan, which the CPU backend then checks and runs on zeros. Any
// failure must be a diagnostic or an error, never a crash.
//
//===----------------------------------------------------------------------===//

#include "test/fuzz/FuzzTarget.h"

#include "compiler/codegen/ConstantEvaluator.h"
#include "compiler/codegen/HetxEmitter.h"
#include "compiler/codegen/KernelPlanEmitter.h"
#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/dialects/hisa/IR/HIsa.h"
#include "compiler/dialects/htile/IR/HTile.h"
#include "compiler/frontend/OnnxImporter.h"
#include "compiler/passes/Passes.h"
#include "runtime/cpu/CpuBackend.h"
#include "runtime/sim/DataTypes.h"

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

/// Imports `model` as a prefill program of a decode step whose caches are
/// the model's outputs named present* (as `hetc compile STEP --prefill
/// MODEL --prefill-buckets 4` does): a graph without their past* inputs
/// is rewritten to write them in place (compiler/frontend/PrefillCaches.h).
/// Only the import runs, in `context`; the lowering is the model's own,
/// below.
void importAsPrefill(const onnx::ModelProto &model,
                     const frontend::ImportOptions &base,
                     MLIRContext &context) {
  frontend::ImportOptions options = base;
  options.prefill = true;
  options.prefillTokens = 4;
  for (const onnx::ValueInfoProto &output : model.graph().output()) {
    if (output.name().rfind("present", 0) != 0)
      continue;
    // Caches of 8 positions, their heads and head size as the output
    // gives them where it does.
    std::vector<int64_t> shape{1, 2, 8, 4};
    const auto &dims = output.type().tensor_type().shape().dim();
    for (int d : {1, 3})
      if (d < dims.size() && dims[d].has_dim_value())
        shape[size_t(d)] = dims[d].dim_value();
    options.prefillCaches.push_back({output.name(), "past/" + output.name(),
                                     shape,
                                     frontend::PrefillCache::Element::F32});
  }
  if (options.prefillCaches.empty())
    return;
  (void)frontend::importOnnxModel(model, "fuzz.onnx", context, options);
}

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
  options.evaluateConstants = codegen::constantEvaluator(chip);
  importAsPrefill(model, options, context);
  OwningOpRef<ModuleOp> module =
      frontend::importOnnxModel(model, "fuzz.onnx", context, options);
  if (!module)
    return 0;
  PipelineOptions pipeline{fuzz::chipPath("test-chip.chip"),
                           /*hostIO=*/false};
  PassManager tile(&context);
  buildHGraphPipeline(tile, pipeline);
  buildHTilePipeline(tile, pipeline);
  if (failed(tile.run(*module)))
    return 0;
  FailureOr<hetx::KernelPlan> plan = codegen::emitKernelPlan(*module);
  if (failed(plan))
    return 0;
  PassManager lower(&context);
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
  FailureOr<hetx::Artifact> artifact = codegen::emitArtifact(*module, chip);
  if (failed(artifact))
    return 0;
  *artifact->mutable_kernel_plan() = std::move(*plan);
  cpu::CpuProgram program;
  std::string error;
  if (!cpu::load(*artifact, chip, program, error))
    return 0;
  std::map<std::string, io::Tensor> inputs;
  for (const hetx::TensorBinding &binding : artifact->inputs()) {
    io::Tensor &tensor = inputs[binding.name()];
    tensor.shape.assign(binding.shape().begin(), binding.shape().end());
    tensor.type =
        sim::elementTypeOf(binding.dtype()).value_or(io::ElementType::F32);
    uint64_t count = 0;
    if (!io::elementCount(tensor.shape, count))
      return 0;
    if (io::isFloat(tensor.type))
      tensor.data.assign(count, 0.0f);
    else
      tensor.ints.assign(count, 0);
  }
  cpu::CpuResult result;
  (void)cpu::run(program, inputs, result, error);
  return 0;
}
