//===- ConstantEvaluator.cpp - Constant subgraphs compiled and run -------===//

#include "compiler/codegen/ConstantEvaluator.h"

#include "compiler/codegen/HetxEmitter.h"
#include "compiler/codegen/KernelPlanEmitter.h"
#include "compiler/dialects/hetc/IR/HetcTarget.h"
#include "compiler/passes/Passes.h"
#include "runtime/cpu/CpuBackend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace hetc;

namespace {

/// The elements of `tensor` as an attribute of `type` (the result type the
/// subgraph declared; the runtime holds integers as int32 values and
/// floats as fp32).
FailureOr<DenseElementsAttr> toAttr(const io::Tensor &tensor,
                                    RankedTensorType type) {
  Type element = type.getElementType();
  size_t count = size_t(type.getNumElements());
  if (auto floatType = dyn_cast<FloatType>(element)) {
    if (tensor.data.size() != count)
      return failure();
    SmallVector<APFloat> values;
    for (float x : tensor.data) {
      APFloat v(x);
      bool lost;
      v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      values.push_back(v);
    }
    return DenseElementsAttr::get(type, values);
  }
  auto intType = dyn_cast<IntegerType>(element);
  if (!intType || tensor.ints.size() != count)
    return failure();
  SmallVector<APInt> values;
  for (int32_t x : tensor.ints)
    values.push_back(APInt(intType.getWidth(), uint64_t(int64_t(x)),
                           /*isSigned=*/!intType.isUnsigned(),
                           /*implicitTrunc=*/true));
  return DenseElementsAttr::get(type, values);
}

} // namespace

frontend::ConstantEvaluator
codegen::constantEvaluator(const chip::ChipSpec &chip) {
  return [&chip](
             ModuleOp module,
             std::string &error) -> FailureOr<SmallVector<DenseElementsAttr>> {
    MLIRContext *context = module.getContext();
    // The subgraph's diagnostics are its own: a failure is reported by
    // the rule that wanted the value.
    ScopedDiagnosticHandler quiet(context, [&](Diagnostic &diag) {
      if (error.empty() && diag.getSeverity() == DiagnosticSeverity::Error)
        error = diag.str();
      return success();
    });
    auto func = module.lookupSymbol<func::FuncOp>("main");
    if (!func)
      return error = "no function @main", failure();
    SmallVector<RankedTensorType> types;
    for (Type t : func.getResultTypes())
      types.push_back(cast<RankedTensorType>(t));
    target::setChip(module, chip);
    PipelineOptions options;
    PassManager lower(context);
    buildHGraphPipeline(lower, options);
    buildHTilePipeline(lower, options);
    if (failed(lower.run(module)))
      return failure();
    FailureOr<hetx::KernelPlan> plan = codegen::emitKernelPlan(module);
    if (failed(plan))
      return failure();
    PassManager schedule(context);
    buildHIsaPipeline(schedule, options);
    if (failed(schedule.run(module)))
      return failure();
    FailureOr<hetx::Artifact> artifact = codegen::emitArtifact(module, chip);
    if (failed(artifact))
      return failure();
    *artifact->mutable_kernel_plan() = std::move(*plan);
    cpu::CpuProgram program;
    cpu::CpuResult result;
    if (!cpu::load(*artifact, chip, program, error) ||
        !cpu::run(program, {}, result, error))
      return failure();
    if (result.outputs.size() != types.size())
      return error = "the subgraph gave another number of values", failure();
    SmallVector<DenseElementsAttr> values;
    for (auto [output, type] : llvm::zip(result.outputs, types)) {
      FailureOr<DenseElementsAttr> attr = toAttr(output.tensor, type);
      if (failed(attr))
        return error = "a value of another shape came back", failure();
      values.push_back(*attr);
    }
    return values;
  };
}
