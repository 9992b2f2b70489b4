//===- CompileCommand.cpp - The `hetc compile` command ----------------===//

#include "tools/hetc/CompileCommand.h"
#include "tools/hetc/KernelReport.h"

#include "compiler/codegen/ConstantEvaluator.h"
#include "compiler/codegen/HetxEmitter.h"
#include "compiler/codegen/KernelPlanEmitter.h"
#include "compiler/dialects/hisa/IR/HIsa.h"
#include "compiler/frontend/MlirTextChecks.h"
#include "compiler/frontend/OnnxImporter.h"
#include "compiler/passes/Passes.h"
#include "compiler/passes/SharedLayout.h"
#include "runtime/artifact/ArtifactFile.h"
#include "runtime/io/SafeRead.h"
#include "runtime/io/SafeWrite.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace mlir;

namespace hetc {

namespace {

/// Prints `module` to the output: a file, written atomically, or stdout
/// when empty or "-".
int printModule(ModuleOp module, const CompileOptions &options) {
  OpPrintingFlags flags;
  if (options.printLocations)
    flags.enableDebugInfo().useLocalScope();
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, flags);
  os << "\n";
  if (options.output.empty() || options.output == "-") {
    llvm::outs() << text;
    return 0;
  }
  std::string error;
  if (!io::writeFileAtomically(options.output, text, error)) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  return 0;
}

void printSummary(ModuleOp module, const chip::ChipSpec &spec,
                  const CompileOptions &options, const std::string &output,
                  llvm::raw_ostream &os) {
  func::FuncOp func = *module.getOps<func::FuncOp>().begin();
  auto get = [&](StringRef name) -> int64_t {
    auto attr = func->getAttrOfType<IntegerAttr>(name);
    return attr ? attr.getInt() : 0;
  };
  int64_t cycles = get("hetc.predicted_cycles");
  int64_t bound = get("hetc.lower_bound");
  int64_t sram = get("hetc.sram_peak_vectors");
  auto reason = func->getAttrOfType<StringAttr>("hetc.lower_bound_reason");
  os << "compiled " << options.model << " for chip '" << spec.name() << "' -> "
     << output << "\n";
  os << "  instructions:      " << get("hetc.instructions") << "\n";
  os << "  predicted cycles:  " << cycles << " ("
     << llvm::format("%.3f", cycles / spec.clockMHz()) << " us at "
     << llvm::format("%g", spec.clockMHz()) << " MHz)\n";
  os << "  lower bound:       " << bound << " cycles ("
     << (reason ? reason.getValue() : "") << "); efficiency "
     << llvm::format("%.1f%%", cycles ? 100.0 * bound / cycles : 100.0) << "\n";
  // The chip's physical limit, whatever the placement: the fraction of it
  // reached is the fraction of the chip the program uses.
  int64_t physical = get(target::kPhysicalBoundAttrName);
  auto physicalReason =
      func->getAttrOfType<StringAttr>(target::kPhysicalBoundReasonAttrName);
  os << "  physical bound:    " << physical << " cycles ("
     << (physicalReason ? physicalReason.getValue() : "") << "); reached "
     << llvm::format("%.1f%%", cycles ? 100.0 * physical / cycles : 100.0)
     << "\n";
  if (physical > cycles)
    os << "  note: this is faster than the published chip's rates "
          "allow; the chip model's rates for it exceed the published "
          "ones (docs/performance.md, \"The physical bound\")\n";
  os << "  SRAM peak:         " << sram << " of " << spec.totalVectors()
     << " vectors ("
     << llvm::format("%.2f%%", 100.0 * sram / spec.totalVectors()) << ")\n";
  // The vectors' bytes against the tensors' own: 32-bit lanes for narrow
  // types and rows padded to whole vectors make up the difference.
  int64_t vectorBytes = sram * int64_t(spec.lanes()) * chip::kElementBytes;
  int64_t tensorBytes = get("hetc.sram_peak_tensor_bytes");
  os << "  SRAM layout:       " << vectorBytes << " bytes hold tensors of "
     << tensorBytes << " bytes at the "
     << "peak (overhead "
     << llvm::format("%.1f%%",
                     tensorBytes
                         ? 100.0 * (vectorBytes - tensorBytes) / tensorBytes
                         : 0.0)
     << ")\n";
  if (auto peakBuffers =
          func->getAttrOfType<ArrayAttr>(target::kSramPeakBuffersAttrName)) {
    os << "  SRAM peak buffers (the " << peakBuffers.size()
       << " with the most padding):\n";
    for (auto entry : peakBuffers.getAsRange<DictionaryAttr>()) {
      auto number = [&](StringRef key) {
        auto value = entry.getAs<IntegerAttr>(key);
        return value ? value.getInt() : 0;
      };
      auto node = entry.getAs<StringAttr>("node");
      auto type = entry.getAs<TypeAttr>("type");
      int64_t vectors = number("vectors"), bytes = number("tensor_bytes");
      os << "    "
         << (node && !node.getValue().empty() ? node.getValue() : "?")
         << ": ";
      if (type)
        os << type.getValue();
      os << " in " << vectors << " vectors holds " << bytes << " of their "
         << vectors * int64_t(spec.lanes()) * chip::kElementBytes
         << " bytes\n";
    }
  }

  // A step that updates inputs in place (a decode step's KV cache) runs
  // again and again with them resident on the chip: its latency per step
  // is its cycles, the same at every position.
  SmallVector<std::string> resident;
  for (auto input : func.getOps<hisa::InputOp>())
    for (auto output : func.getOps<hisa::OutputOp>())
      if (!input.getHost() && !output.getHost() &&
          input.getAddress() == output.getAddress() &&
          input.getType() == output.getType())
        resident.push_back(input.getName().str() + " -> " +
                           output.getName().str());
  // A program whose token ids take L > 1 tokens a sequence is a prefill
  // program: one run covers a prompt of up to L tokens.
  int64_t tokens = 1;
  for (auto input : func.getOps<hisa::InputOp>()) {
    auto type = mlir::cast<RankedTensorType>(input.getType());
    if (input.getName() == "input_ids" && type.getRank() == 2)
      tokens = type.getDimSize(1);
  }
  if (!resident.empty()) {
    os << "  in place:          ";
    llvm::interleaveComma(resident, os);
    if (tokens > 1)
      os << " (resident on the chip from run to run: a prefill "
            "program of "
         << tokens << " tokens, whose time to first token is " << cycles
         << " cycles for any prompt of up to " << tokens << " tokens)\n";
    else
      os << " (resident on the chip from run to run: a decode "
            "step's inter-token latency is "
         << cycles
         << " cycles at every position, and a prompt of P "
            "tokens run step by step takes P x "
         << cycles << " cycles to its first token)\n";
  }

  // Kernels by first cycle with --kernels; otherwise the three whose
  // bottleneck unit is idle for most of their span.
  std::vector<KernelStats> kernels = collectKernelStats(func, spec);
  if (options.allKernels) {
    os << "  kernels (by first cycle):\n";
    printKernels(kernels, os);
    return;
  }
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const KernelStats &a, const KernelStats &b) {
                     return a.efficiency() < b.efficiency();
                   });
  kernels.resize(std::min<size_t>(kernels.size(), 3));
  os << "  least busy kernels (their busiest unit idles for the "
        "rest of the span, waiting on data in flight):\n";
  printKernels(kernels, os);
}

/// Where a diagnostic points, for users: the ONNX node or the file.
std::string describeLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return "node '" + name.getName().str() + "': ";
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    std::string where = file.getFilename().str();
    if (file.getLine() != 0)
      where += ":" + std::to_string(file.getLine()) + ":" +
               std::to_string(file.getColumn());
    return where + ": ";
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string where = describeLocation(inner); !where.empty())
        return where;
  return "";
}

/// Prints diagnostics as "error: node 'fc1/matmul': message".
LogicalResult printDiagnostic(Diagnostic &diag) {
  const char *severity = "error";
  if (diag.getSeverity() == DiagnosticSeverity::Warning)
    severity = "warning";
  else if (diag.getSeverity() == DiagnosticSeverity::Note)
    severity = "note";
  else if (diag.getSeverity() == DiagnosticSeverity::Remark)
    severity = "remark";
  llvm::errs() << severity << ": " << describeLocation(diag.getLocation())
               << diag.str() << "\n";
  for (Diagnostic &note : diag.getNotes())
    llvm::errs() << "note: " << describeLocation(note.getLocation())
                 << note.str() << "\n";
  return success();
}

} // namespace

/// Parses MLIR's own `--mlir-*` options into MLIR's global option registry;
/// must run before the context is made. False, having said why, on a bad
/// option.
bool parseMlirOptions(const std::vector<std::string> &options) {
  // Pass names are values of --mlir-print-ir-after=PASS and the like.
  registerHetcPassesAndPipelines();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  registerAsmPrinterCLOptions();
  std::vector<const char *> argv{"hetc compile"};
  for (const std::string &option : options)
    argv.push_back(option.c_str());
  std::string message;
  llvm::raw_string_ostream errors(message);
  if (llvm::cl::ParseCommandLineOptions(int(argv.size()), argv.data(), "",
                                        &errors))
    return true;
  llvm::errs() << "error: " << message;
  return false;
}

/// Where a module given as MLIR stands in the pipeline.
enum class Level { HGraph, HTile, HTilePlaced, HIsa, HIsaScheduled };

/// The level of `module`: the lowest dialect of its ops (hgraph, then
/// htile, then hisa), placed when every htile buffer the chip uses has an
/// address, scheduled when its functions carry predicted cycles.
Level levelOf(ModuleOp module) {
  bool hisaOps = false, htileOps = false, hgraphOps = false;
  bool unplaced = false;
  module.walk([&](Operation *op) {
    Dialect *dialect = op->getDialect();
    if (isa_and_nonnull<hisa::HIsaDialect>(dialect))
      hisaOps = true;
    else if (isa_and_nonnull<htile::HTileDialect>(dialect)) {
      htileOps = true;
      // A buffer only ops of the kernel plan use has no place on the
      // chip, placed or not.
      if (isa<htile::InputOp, htile::ConstantOp, htile::AllocOp>(op) &&
          !op->hasAttr("address") &&
          !(isa<htile::AllocOp>(op) &&
            htile::isPlanOnlyBuffer(op->getResult(0))))
        unplaced = true;
    } else if (isa_and_nonnull<hgraph::HGraphDialect>(dialect))
      hgraphOps = true;
  });
  if (hgraphOps || (!htileOps && !hisaOps))
    return Level::HGraph;
  if (htileOps)
    return unplaced ? Level::HTile : Level::HTilePlaced;
  bool scheduled = false;
  for (auto func : module.getOps<func::FuncOp>())
    scheduled |= func->hasAttr("hetc.predicted_cycles");
  return scheduled ? Level::HIsaScheduled : Level::HIsa;
}

/// Whether `path` names an MLIR file rather than an ONNX model.
bool isMlirFile(StringRef path) { return path.ends_with(".mlir"); }

namespace {

/// One program compiled, and what it keeps in SRAM.
struct CompiledProgram {
  hetx::Artifact artifact;
  std::string summary;
  /// What the program keeps from run to run, read once it is placed.
  placement::ResidentLayout layout;
};

/// What compileProgram() did.
enum class Outcome { Compiled, Printed, Failed };

/// What a prefill program is compiled against: the SRAM layout of its
/// decode step (its placement fits into it), the step's caches (which a
/// prefill without a past is rewritten to write), and its bucket's tokens
/// (0: as exported).
struct PrefillTarget {
  const placement::ResidentLayout *layout = nullptr;
  std::vector<frontend::PrefillCache> caches;
  int64_t tokens = 0;
};

/// Compiles `model` for `spec` as `options` say, into `compiled`, or prints
/// the IR `options.emit` asks for. `prefill`, when given, makes it a
/// prefill program of a decode step. Every file read goes into
/// `filesRead`; `output` must be none.
Outcome compileProgram(const std::string &model, const CompileOptions &options,
                       chip::ChipSpec spec, const std::string &output,
                       std::vector<std::string> &filesRead,
                       const PrefillTarget *prefill, TimingScope &rootTimer,
                       CompiledProgram &compiled) {
  const placement::ResidentLayout *shared = prefill ? prefill->layout : nullptr;
  std::string error;
  // Held by pointer so that the module and the context (whose attribute
  // storage holds the constants) go before the artifact is serialized.
  auto context = std::make_unique<MLIRContext>();
  context->printOpOnDiagnostic(false);
  auto diagnostics =
      std::make_unique<ScopedDiagnosticHandler>(context.get(), printDiagnostic);
  context->loadDialect<hgraph::HGraphDialect, htile::HTileDialect,
                       hisa::HIsaDialect, target::HetcDialect,
                       func::FuncDialect>();
  frontend::ImportOptions importOptions{options.dims, options.inputValues,
                                        &filesRead};
  importOptions.maxElements =
      int64_t(spec.totalVectors() * spec.lanes() * chip::kElementBytes);
  importOptions.evaluateConstants = codegen::constantEvaluator(spec);
  importOptions.maxContext = options.maxContext;
  importOptions.maxBatch = options.maxBatch;
  if (prefill) {
    // A prefill program takes the step's dims and precision, but one
    // sequence of its bucket's tokens; its inputs are its own, and its
    // caches are static already, or written in place by the rewrite of a
    // prefill without a past.
    importOptions.inputValues.clear();
    importOptions.maxContext = 0;
    importOptions.maxBatch = 0;
    importOptions.prefill = true;
    importOptions.prefillTokens = prefill->tokens;
    importOptions.prefillCaches = prefill->caches;
  }
  auto overwritesInput = [&](const std::vector<std::string> &inputs) {
    if (output.empty() || output == "-" ||
        io::refuseInputAsOutput(output, inputs, "-o", error))
      return false;
    llvm::errs() << "error: " << error << "\n";
    return true;
  };
  bool mlir = isMlirFile(model);
  if (mlir && (!options.dims.empty() || !options.inputValues.empty() ||
               options.maxContext > 0 || options.maxBatch > 0)) {
    llvm::errs() << "error: " << model
                 << ": --dim, --input-value, --max-context and --max-batch "
                    "apply to ONNX models, not to MLIR, whose shapes are "
                    "fixed\n";
    return Outcome::Failed;
  }
  // MLIR text is read once: checked, then parsed from the same bytes.
  std::string text;
  if (mlir) {
    if (!io::readRegularFile(model, io::kMaxReadBytes, text, error)) {
      llvm::errs() << "error: " << model << ": " << error << "\n";
      return Outcome::Failed;
    }
    if (!frontend::checkMlirText(text, model, error)) {
      llvm::errs() << "error: " << error << "\n";
      return Outcome::Failed;
    }
  }
  TimingScope importTimer = rootTimer.nest(mlir ? "parse MLIR" : "import ONNX");
  OwningOpRef<ModuleOp> module =
      mlir ? parseSourceString<ModuleOp>(text, ParserConfig(context.get()),
                                         model)
           : frontend::importOnnxFile(model, *context, importOptions);
  importTimer.stop();
  if (!module || overwritesInput(filesRead))
    return Outcome::Failed;
  Level level = mlir ? levelOf(*module) : Level::HGraph;

  if (options.emit == EmitKind::Import) {
    if (mlir) {
      llvm::errs() << "error: --emit import needs an ONNX model\n";
      return Outcome::Failed;
    }
    return printModule(*module, options) ? Outcome::Failed : Outcome::Printed;
  }

  // The chip file was read once, above; the passes read the module's chip.
  // A module given as MLIR keeps its own chip unless --chip names one.
  if (mlir && !options.chipGiven &&
      module->getOperation()->hasAttr(target::kChipAttrName)) {
    FailureOr<chip::ChipSpec> own = target::getChip(*module, "hetc compile");
    if (failed(own))
      return Outcome::Failed;
    spec = *own;
  } else {
    target::setChip(*module, spec);
  }
  if (shared)
    placement::setSharedLayout(*module, *shared);
  // Each level the module is already at or past is not produced again.
  auto past = [&](EmitKind emit, Level reached) {
    if (level < reached)
      return false;
    llvm::errs() << "error: " << model << " is already lowered past "
                 << (emit == EmitKind::HGraph ? "hgraph" : "htile")
                 << "; --emit a later level\n";
    return true;
  };
  // Run the pipeline stage by stage, stopping at the requested level. The
  // stages share one timer (--mlir-timing) and each takes MLIR's
  // pass-manager options (IR printing, statistics, crash reproducers).
  PipelineOptions pipeline{/*chip=*/"", options.hostIO,
                           options.precision == "fp16"   ? "f16"
                           : options.precision == "bf16" ? "bf16"
                           : options.precision == "int8" ? "i8"
                                                         : "f32"};
  pipeline.peakBuffers = options.sramPeak;
  auto run = [&](StringRef stage, auto build) {
    PassManager pm(context.get());
    build(pm);
    if (failed(applyPassManagerCLOptions(pm)))
      return false;
    TimingScope timer = rootTimer.nest(stage);
    pm.enableTiming(timer);
    return succeeded(pm.run(*module));
  };
  auto printed = [&] {
    return printModule(*module, options) ? Outcome::Failed : Outcome::Printed;
  };
  if (options.emit == EmitKind::HGraph && past(EmitKind::HGraph, Level::HTile))
    return Outcome::Failed;
  if (options.emit == EmitKind::HTile && past(EmitKind::HTile, Level::HIsa))
    return Outcome::Failed;
  if (level == Level::HGraph && !run("hgraph pipeline", [&](PassManager &pm) {
        buildHGraphPipeline(pm, pipeline);
      }))
    return Outcome::Failed;
  if (options.emit == EmitKind::HGraph)
    return printed();
  if (level == Level::HGraph && !run("htile pipeline", [&](PassManager &pm) {
        buildHTilePipeline(pm, pipeline);
      }))
    return Outcome::Failed;
  if (level == Level::HTile && !run("htile pipeline", [&](PassManager &pm) {
        pm.addPass(createHTilePlanMemory());
      }))
    return Outcome::Failed;
  if (options.emit == EmitKind::HTile)
    return printed();
  auto funcs = module->getOps<func::FuncOp>();
  if (level <= Level::HTilePlaced && !funcs.empty())
    compiled.layout = placement::residentLayout(*funcs.begin(), spec.lanes());
  // The kernel plan is the placed htile program, which the hisa pipeline
  // consumes: it is taken here, and a module given as hisa has none. A
  // prefill program runs on the chip only.
  std::optional<hetx::KernelPlan> plan;
  if (level <= Level::HTilePlaced && !options.noKernelPlan && !shared) {
    TimingScope planTimer = rootTimer.nest("emit the kernel plan");
    FailureOr<hetx::KernelPlan> emitted = codegen::emitKernelPlan(*module);
    if (failed(emitted))
      return Outcome::Failed;
    plan = std::move(*emitted);
  }
  if (level <= Level::HTilePlaced &&
      !run("hisa pipeline",
           [&](PassManager &pm) { buildHIsaPipeline(pm, pipeline); }))
    return Outcome::Failed;
  if (level == Level::HIsa && !run("hisa pipeline", [&](PassManager &pm) {
        if (options.hostIO)
          pm.addPass(createHIsaStageIO());
        pm.addPass(createHIsaSchedule());
      }))
    return Outcome::Failed;
  if (options.emit == EmitKind::HIsa)
    return printed();

  TimingScope emitTimer = rootTimer.nest("emit the artifact");
  // The summary is read off the module, which then goes with its context
  // once the artifact holds the program: the largest programs would
  // otherwise hold their instructions three times over while writing.
  if (!options.quiet && !shared) {
    llvm::raw_string_ostream os(compiled.summary);
    printSummary(*module, spec, options, output, os);
  }
  FailureOr<hetx::Artifact> artifact = codegen::emitArtifact(*module, spec);
  if (failed(artifact))
    return Outcome::Failed;
  if (plan)
    *artifact->mutable_kernel_plan() = std::move(*plan);
  compiled.artifact = std::move(*artifact);
  return Outcome::Compiled;
}

/// The binding named `name` among `bindings`, or null.
const hetx::TensorBinding *bindingNamed(
    const google::protobuf::RepeatedPtrField<hetx::TensorBinding> &bindings,
    const std::string &name) {
  for (const hetx::TensorBinding &b : bindings)
    if (b.name() == name)
      return &b;
  return nullptr;
}

/// Makes `prefill` (compiled into `step`'s layout) a prefill program of
/// `step`: checks that it writes each of the step's caches in place where
/// the step keeps it, drops the constants it shares with the step, and
/// says what it shares in `summary`. False, having said why, when it is
/// not such a program.
bool nestPrefill(const std::string &path, const hetx::Artifact &step,
                 const placement::ResidentLayout &layout,
                 hetx::Artifact &prefill, std::string &summary) {
  for (const placement::ResidentLayout::Input &cache : layout.inputs) {
    const hetx::TensorBinding *in = bindingNamed(prefill.inputs(), cache.name);
    const hetx::TensorBinding *mine = bindingNamed(step.inputs(), cache.name);
    // The whole cache, or with a slot one batch slot's rows of it.
    bool where = in && mine &&
                 (layout.slot ? in->address() >= uint64_t(cache.address)
                              : in->address() == uint64_t(cache.address));
    bool inPlace =
        where &&
        llvm::any_of(prefill.outputs(), [&](const hetx::TensorBinding &out) {
          return out.address() == in->address() &&
                 bindingNamed(step.outputs(), out.name()) &&
                 bindingNamed(step.outputs(), out.name())->address() ==
                     mine->address();
        });
    if (!inPlace) {
      llvm::errs() << "error: " << path
                   << ": not a prefill program of the decode step: it must "
                      "take the cache '"
                   << cache.name
                   << "' and write it in place into the output the step "
                      "updates it with (a prefill without a past, such as "
                      "Hugging Face's decoder_model.onnx, is compiled apart "
                      "and given to hetc generate --prefill)\n";
      return false;
    }
  }
  // The step's constants, by address: the prefill reads those it shares
  // (the same data, placed alike; their names come from the nodes, which
  // differ between the two graphs) where they lie.
  std::map<uint64_t, const hetx::Constant *> byAddress;
  for (const hetx::Constant &c : step.constants())
    byAddress[c.binding().address()] = &c;
  auto placedAlike = [](hetx::TensorBinding a, hetx::TensorBinding b) {
    a.clear_name();
    b.clear_name();
    return a.SerializeAsString() == b.SerializeAsString();
  };
  uint64_t sharedBytes = 0, ownBytes = 0;
  int shared = 0;
  google::protobuf::RepeatedPtrField<hetx::Constant> own;
  for (hetx::Constant &c : *prefill.mutable_constants()) {
    auto it = byAddress.find(c.binding().address());
    if (it != byAddress.end() && it->second->data() == c.data() &&
        placedAlike(it->second->binding(), c.binding())) {
      sharedBytes += c.data().size();
      ++shared;
      continue;
    }
    if (it != byAddress.end()) {
      // Placed where the step's constant lies, but not that constant: two
      // contents of one fingerprint.
      llvm::errs() << "error: " << path << ": the prefill's constant '"
                   << c.binding().name() << "' was placed over the step's '"
                   << it->second->binding().name()
                   << "', whose contents differ (their fingerprints "
                      "collide)\n";
      return false;
    }
    ownBytes += c.data().size();
    *own.Add() = std::move(c);
  }
  prefill.mutable_constants()->Swap(&own);
  prefill.clear_kernel_plan();
  int64_t tokens = 0;
  if (const hetx::TensorBinding *ids =
          bindingNamed(prefill.inputs(), "input_ids"))
    tokens = ids->shape_size() == 2 ? ids->shape(1) : 0;
  llvm::raw_string_ostream os(summary);
  os << "  prefill:           " << path;
  if (tokens > 0)
    os << ", a bucket of " << tokens << " tokens";
  const hetx::TensorBinding *first =
      bindingNamed(prefill.inputs(), layout.inputs.front().name);
  if (layout.slot && first && first->shape_size() > 0 && first->shape(0) == 1)
    os << " into batch slot " << *layout.slot;
  os << ": " << prefill.predicted_cycles() << " cycles (its time to first "
     << "token), " << prefill.instructions_size() << " instructions; "
     << layout.inputs.size() << " caches in place and " << shared
     << " constants (" << sharedBytes << " bytes) shared with the step, "
     << prefill.constants_size() << " of its own (" << ownBytes << " bytes)\n";
  return true;
}

/// The element type of a cache binding's `dtype`, or none for a type a
/// KV cache does not take.
std::optional<frontend::PrefillCache::Element>
cacheElementOf(hetx::DataType dtype) {
  switch (dtype) {
  case hetx::F32:
    return frontend::PrefillCache::Element::F32;
  case hetx::F16:
    return frontend::PrefillCache::Element::F16;
  case hetx::BF16:
    return frontend::PrefillCache::Element::BF16;
  default:
    return std::nullopt;
  }
}

/// The caches of decode step `step` (compiled from `model`) as its prefill
/// programs write them: each resident input with the output that updates
/// it in place, for one sequence (a batch of 1). Checks that every bucket
/// fits in the caches' positions. False, having said why, otherwise.
bool prefillCachesOf(const std::string &model, const CompiledProgram &step,
                     const std::vector<int64_t> &buckets,
                     std::vector<frontend::PrefillCache> &caches) {
  for (const placement::ResidentLayout::Input &cache : step.layout.inputs) {
    const hetx::TensorBinding *in =
        bindingNamed(step.artifact.inputs(), cache.name);
    if (!in)
      continue;
    const hetx::TensorBinding *out = nullptr;
    for (const hetx::TensorBinding &b : step.artifact.outputs())
      if (!b.has_host_address() && b.address() == in->address() &&
          b.dtype() == in->dtype())
        out = &b;
    if (!out)
      continue;
    std::optional<frontend::PrefillCache::Element> element =
        cacheElementOf(in->dtype());
    // A prefill without a past writes float caches (keys and values);
    // nestPrefill() refuses one that leaves a cache of another type alone.
    if (!element)
      continue;
    frontend::PrefillCache entry{out->name(),
                                 in->name(),
                                 {in->shape().begin(), in->shape().end()},
                                 *element};
    if (entry.shape.size() == 4) {
      entry.shape[0] = 1;
      for (int64_t tokens : buckets)
        if (tokens > entry.shape[2]) {
          llvm::errs() << "error: " << model << ": a prefill bucket of "
                       << tokens << " tokens does not fit in the cache '"
                       << in->name() << "' of " << entry.shape[2]
                       << " positions (--prefill-buckets)\n";
          return false;
        }
    }
    caches.push_back(std::move(entry));
  }
  return true;
}

/// The files of a decoder exported as Hugging Face Optimum writes one, in
/// folder `dir`: the decode step from decoder_with_past_model.onnx and,
/// when prefill buckets are given and the folder has one, the prefill
/// from decoder_model.onnx. False, having said why, when the folder has no
/// decode step.
bool resolveFolder(const std::string &dir, CompileOptions &options) {
  llvm::SmallString<256> step(dir), prefill(dir);
  llvm::sys::path::append(step, "decoder_with_past_model.onnx");
  llvm::sys::path::append(prefill, "decoder_model.onnx");
  // What is there but no regular file (a FIFO, a device) the import
  // refuses by name.
  if (!llvm::sys::fs::exists(step)) {
    llvm::errs() << "error: " << dir
                 << ": a folder to compile holds a decoder as Hugging Face "
                    "Optimum exports one: decoder_with_past_model.onnx (the "
                    "decode step) and decoder_model.onnx (its prefill); it "
                    "has no decoder_with_past_model.onnx\n";
    return false;
  }
  options.model = step.str().str();
  if (options.prefills.empty() && !options.prefillBuckets.empty() &&
      llvm::sys::fs::is_regular_file(prefill))
    options.prefills.push_back(prefill.str().str());
  return true;
}

} // namespace

int compileCommand(const CompileOptions &asGiven) {
  CompileOptions options = asGiven;
  if (llvm::sys::fs::is_directory(options.model) &&
      !resolveFolder(asGiven.model, options))
    return 1;
  if (!options.prefillBuckets.empty() && options.prefills.empty()) {
    llvm::errs() << "error: --prefill-buckets sets the lengths of the "
                    "--prefill programs, and none is given\n";
    return 1;
  }
  std::vector<int64_t> sorted = options.prefillBuckets;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    llvm::errs() << "error: --prefill-buckets names a length twice\n";
    return 1;
  }
  if (!parseMlirOptions(options.mlirOptions))
    return 1;
  chip::ChipSpec spec;
  std::string error;
  if (!chip::ChipSpec::load(options.chip, spec, error)) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  if (!options.prefills.empty()) {
    const char *why =
        options.emit != EmitKind::Hetx ? "it writes one .hetx, not IR (--emit)"
        : isMlirFile(options.model)    ? "it compiles ONNX models, not MLIR"
        : options.hostIO               ? "the KV caches stay in SRAM, which "
                                         "--host-io moves through the host"
                                       : nullptr;
    if (why) {
      llvm::errs() << "error: --prefill compiles a decode step and its "
                      "prefill programs into one artifact: "
                   << why << "\n";
      return 1;
    }
  }
  // Every file the compile reads; the output must be none of them.
  std::vector<std::string> filesRead{options.chip};
  std::string output = options.output;
  if (output.empty() && options.emit == EmitKind::Hetx) {
    llvm::SmallString<256> path(options.model);
    llvm::sys::path::replace_extension(path, ".hetx");
    output = path.str().str();
  }
  // The models and the chip are checked before the import, the files the
  // import reads (external data, input values) after it.
  std::vector<std::string> given{options.model, options.chip};
  given.insert(given.end(), options.prefills.begin(), options.prefills.end());
  if (!output.empty() && output != "-" &&
      !io::refuseInputAsOutput(output, given, "-o", error)) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  // One timer for the whole compile (--mlir-timing): import, each
  // pipeline stage with its passes, and the artifact.
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope rootTimer = timing.getRootScope();
  CompiledProgram step;
  Outcome outcome = compileProgram(options.model, options, spec, output,
                                   filesRead, nullptr, rootTimer, step);
  if (outcome != Outcome::Compiled)
    return outcome == Outcome::Printed ? 0 : 1;
  if (!options.prefills.empty() && step.layout.inputs.empty()) {
    llvm::errs() << "error: " << options.model
                 << ": --prefill needs a decode step, which keeps its KV "
                    "caches on the chip (inputs that outputs update in "
                    "place); this program has none\n";
    return 1;
  }
  std::vector<frontend::PrefillCache> caches;
  if (!options.prefills.empty() &&
      !prefillCachesOf(options.model, step, options.prefillBuckets, caches))
    return 1;
  // Each prefill once per bucket (once as exported without buckets); for
  // a step of several batch slots, a prefill of one sequence once per
  // slot, each into that slot's rows of the caches.
  std::vector<int64_t> buckets = options.prefillBuckets;
  if (buckets.empty())
    buckets.push_back(0);
  for (const std::string &path : options.prefills) {
    for (int64_t tokens : buckets) {
      // A step with prefills has a cache (checked above).
      const placement::ResidentLayout::Input &cache =
          step.layout.inputs.front();
      const hetx::TensorBinding *stepCache =
          bindingNamed(step.artifact.inputs(), cache.name);
      int64_t batch =
          stepCache && stepCache->shape_size() > 0 ? stepCache->shape(0) : 1;
      placement::ResidentLayout layout = step.layout;
      PrefillTarget target{&layout, caches, tokens};
      for (int64_t slot = 0; slot < batch; ++slot) {
        if (batch > 1)
          layout.slot = slot;
        CompiledProgram prefill;
        if (compileProgram(path, options, spec, output, filesRead, &target,
                           rootTimer, prefill) != Outcome::Compiled ||
            !nestPrefill(path, step.artifact, layout, prefill.artifact,
                         step.summary))
          return 1;
        // A prefill of every slot at once takes the caches whole: once.
        const hetx::TensorBinding *own =
            bindingNamed(prefill.artifact.inputs(), cache.name);
        bool whole = own && own->shape_size() > 0 && own->shape(0) == batch;
        *step.artifact.add_prefills() = std::move(prefill.artifact);
        if (whole)
          break;
      }
    }
  }
  TimingScope writeTimer = rootTimer.nest("write the artifact");
  if (!artifact::writeFile(step.artifact, output, error)) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  writeTimer.stop();
  if (!options.quiet)
    llvm::outs() << step.summary;
  return 0;
}

} // namespace hetc
