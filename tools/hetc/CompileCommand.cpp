//===- CompileCommand.cpp - The `hetc compile` command ----------------===//

#include "tools/hetc/CompileCommand.h"
#include "tools/hetc/KernelReport.h"

#include "compiler/codegen/HetxEmitter.h"
#include "compiler/frontend/OnnxImporter.h"
#include "compiler/passes/Passes.h"
#include "runtime/artifact/ArtifactFile.h"
#include "runtime/io/SafeWrite.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

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
                  const CompileOptions &options, const std::string &output) {
  func::FuncOp func = *module.getOps<func::FuncOp>().begin();
  auto get = [&](StringRef name) -> int64_t {
    auto attr = func->getAttrOfType<IntegerAttr>(name);
    return attr ? attr.getInt() : 0;
  };
  int64_t cycles = get("hetc.predicted_cycles");
  int64_t bound = get("hetc.lower_bound");
  int64_t sram = get("hetc.sram_peak_vectors");
  auto reason = func->getAttrOfType<StringAttr>("hetc.lower_bound_reason");
  llvm::outs() << "compiled " << options.model << " for chip '" << spec.name()
               << "' -> " << output << "\n";
  llvm::outs() << "  instructions:      " << get("hetc.instructions") << "\n";
  llvm::outs() << "  predicted cycles:  " << cycles << " ("
               << llvm::format("%.3f", cycles / spec.clockMHz())
               << " us at " << llvm::format("%g", spec.clockMHz()) << " MHz)\n";
  llvm::outs() << "  lower bound:       " << bound << " cycles ("
               << (reason ? reason.getValue() : "") << "); efficiency "
               << llvm::format("%.1f%%", cycles ? 100.0 * bound / cycles : 100.0)
               << "\n";
  llvm::outs() << "  SRAM peak:         " << sram << " of "
               << spec.totalVectors() << " vectors ("
               << llvm::format("%.2f%%", 100.0 * sram / spec.totalVectors())
               << ")\n";

  // Kernels by first cycle with --kernels; otherwise the three whose
  // bottleneck unit is idle for most of their span.
  std::vector<KernelStats> kernels = collectKernelStats(func, spec);
  if (options.allKernels) {
    llvm::outs() << "  kernels (by first cycle):\n";
    printKernels(kernels, llvm::outs());
    return;
  }
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const KernelStats &a, const KernelStats &b) {
                     return a.efficiency() < b.efficiency();
                   });
  kernels.resize(std::min<size_t>(kernels.size(), 3));
  llvm::outs() << "  least busy kernels (their busiest unit idles for the "
                  "rest of the span, waiting on data in flight):\n";
  printKernels(kernels, llvm::outs());
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

int compileCommand(const CompileOptions &options) {
  if (!parseMlirOptions(options.mlirOptions))
    return 1;
  chip::ChipSpec spec;
  std::string error;
  if (!chip::ChipSpec::load(options.chip, spec, error)) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }

  MLIRContext context;
  context.printOpOnDiagnostic(false);
  ScopedDiagnosticHandler diagnostics(&context, printDiagnostic);
  context.loadDialect<hgraph::HGraphDialect, htile::HTileDialect,
                      hisa::HIsaDialect, target::HetcDialect,
                      func::FuncDialect>();
  // Every file the compile reads; the output must be none of them.
  std::vector<std::string> filesRead{options.chip};
  frontend::ImportOptions importOptions{options.dims, options.inputValues,
                                        &filesRead};
  importOptions.maxElements =
      int64_t(spec.totalVectors() * spec.lanes() * chip::kElementBytes);
  std::string output = options.output;
  if (output.empty() && options.emit == EmitKind::Hetx) {
    llvm::SmallString<256> path(options.model);
    llvm::sys::path::replace_extension(path, ".hetx");
    output = path.str().str();
  }
  auto overwritesInput = [&](const std::vector<std::string> &inputs) {
    if (output.empty() || output == "-" ||
        io::refuseInputAsOutput(output, inputs, "-o", error))
      return false;
    llvm::errs() << "error: " << error << "\n";
    return true;
  };
  // The model and the chip are checked before the import, the files the
  // import reads (external data, input values) after it.
  if (overwritesInput({options.model, options.chip}))
    return 1;
  // One timer for the whole compile (--mlir-timing): import, each
  // pipeline stage with its passes, and the artifact.
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope rootTimer = timing.getRootScope();
  TimingScope importTimer = rootTimer.nest("import ONNX");
  OwningOpRef<ModuleOp> module =
      frontend::importOnnxFile(options.model, context, importOptions);
  importTimer.stop();
  if (!module || overwritesInput(filesRead))
    return 1;

  if (options.emit == EmitKind::Import)
    return printModule(*module, options);

  // The chip file was read once, above; the passes read the module's chip.
  target::setChip(*module, spec);
  // Run the pipeline stage by stage, stopping at the requested level. The
  // stages share one timer (--mlir-timing) and each takes MLIR's
  // pass-manager options (IR printing, statistics, crash reproducers).
  PipelineOptions pipeline{/*chip=*/"", options.hostIO};
  auto run = [&](StringRef stage, auto build) {
    PassManager pm(&context);
    build(pm);
    if (failed(applyPassManagerCLOptions(pm)))
      return false;
    TimingScope timer = rootTimer.nest(stage);
    pm.enableTiming(timer);
    return succeeded(pm.run(*module));
  };
  if (!run("hgraph pipeline",
           [](PassManager &pm) { buildHGraphPipeline(pm); }))
    return 1;
  if (options.emit == EmitKind::HGraph)
    return printModule(*module, options);
  if (!run("htile pipeline",
           [&](PassManager &pm) { buildHTilePipeline(pm, pipeline); }))
    return 1;
  if (options.emit == EmitKind::HTile)
    return printModule(*module, options);
  if (!run("hisa pipeline",
           [&](PassManager &pm) { buildHIsaPipeline(pm, pipeline); }))
    return 1;
  if (options.emit == EmitKind::HIsa)
    return printModule(*module, options);

  TimingScope emitTimer = rootTimer.nest("emit and write the artifact");
  FailureOr<hetx::Artifact> artifact = codegen::emitArtifact(*module, spec);
  if (failed(artifact))
    return 1;
  if (!artifact::writeFile(*artifact, output, error)) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  emitTimer.stop();
  if (!options.quiet)
    printSummary(*module, spec, options, output);
  return 0;
}

} // namespace hetc
