//===- Pipelines.cpp - hetc compilation pipelines ---------------------===//

#include "compiler/passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
struct PipelineCLOptions : public PassPipelineOptions<PipelineCLOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Path of a chip description file to set as the "
                     "module's chip first (default: the module's own)")};
  Option<bool> hostIO{
      *this, "host-io",
      llvm::cl::desc("Move inputs and outputs through host memory by DMA"),
      llvm::cl::init(false)};
  Option<std::string> weights{
      *this, "weights",
      llvm::cl::desc("Element type of matrix-unit weights: f32 (as the "
                     "model has them), f16, bf16 or i8"),
      llvm::cl::init("f32")};
  Option<bool> packResident{
      *this, "pack-resident",
      llvm::cl::desc("Place the inputs and constants first, packed at the "
                     "two ends of SRAM, so that the SRAM left is one run"),
      llvm::cl::init(true)};
  Option<unsigned> peakBuffers{
      *this, "peak-buffers",
      llvm::cl::desc("Record this many of the buffers live at the SRAM "
                     "peak, those with the most padding"),
      llvm::cl::init(0)};
  hetc::PipelineOptions get() const {
    return {chip, hostIO, weights, packResident, peakBuffers};
  }
};
} // namespace

void hetc::buildHGraphPipeline(OpPassManager &pm,
                               const PipelineOptions &options) {
  OpPassManager &func = pm.nest<func::FuncOp>();
  func.addPass(createHGraphFuseQuantized());
  func.addPass(createHGraphDecompose());
  func.addPass(createCanonicalizerPass());
  func.addPass(createHGraphChannelsLast());
  func.addPass(createCanonicalizerPass());
  func.addPass(createHGraphFuseLinear());
  func.addPass(createCanonicalizerPass());
  func.addPass(createCSEPass());
  if (options.weights != "f32")
    func.addPass(createHGraphNarrowWeights({options.weights}));
}

void hetc::buildHTilePipeline(OpPassManager &pm,
                              const PipelineOptions &options) {
  if (!options.chip.empty())
    pm.addPass(createSetChip({options.chip}));
  pm.addPass(createConvertHGraphToHTile());
  pm.addNestedPass<func::FuncOp>(createHTileFuseGathers());
  pm.addNestedPass<func::FuncOp>(createHTileTransposeWeights());
  pm.addNestedPass<func::FuncOp>(createHTilePackColumns());
  pm.addNestedPass<func::FuncOp>(createHTileInterleaveWeights());
  pm.addPass(
      createHTilePlanMemory({options.packResident, options.peakBuffers}));
  pm.addPass(createHTilePhysicalBound());
}

void hetc::buildHIsaPipeline(OpPassManager &pm,
                             const PipelineOptions &options) {
  if (!options.chip.empty())
    pm.addPass(createSetChip({options.chip}));
  pm.addPass(createConvertHTileToHIsa());
  if (options.hostIO)
    pm.addPass(createHIsaStageIO());
  pm.addPass(createHIsaSchedule());
}

void hetc::buildCompilePipeline(OpPassManager &pm,
                                const PipelineOptions &options) {
  buildHGraphPipeline(pm, options);
  buildHTilePipeline(pm, options);
  buildHIsaPipeline(pm, options);
}

void hetc::registerHetcPassesAndPipelines() {
  registerHetcPasses();
  PassPipelineRegistration<PipelineCLOptions>(
      "hetc-hgraph-pipeline",
      "Decompose, fold constants, fuse and narrow weights at the hgraph level",
      [](OpPassManager &pm, const PipelineCLOptions &o) {
        buildHGraphPipeline(pm, o.get());
      });
  PassPipelineRegistration<PipelineCLOptions>(
      "hetc-htile-pipeline", "Lower hgraph to htile and plan SRAM",
      [](OpPassManager &pm, const PipelineCLOptions &o) {
        buildHTilePipeline(pm, o.get());
      });
  PassPipelineRegistration<PipelineCLOptions>(
      "hetc-hisa-pipeline", "Lower htile to scheduled hisa instructions",
      [](OpPassManager &pm, const PipelineCLOptions &o) {
        buildHIsaPipeline(pm, o.get());
      });
  PassPipelineRegistration<PipelineCLOptions>(
      "hetc-compile-pipeline",
      "The whole compilation, hgraph to scheduled hisa",
      [](OpPassManager &pm, const PipelineCLOptions &o) {
        buildCompilePipeline(pm, o.get());
      });
}
