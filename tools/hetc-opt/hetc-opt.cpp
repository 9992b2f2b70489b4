//===- hetc-opt.cpp - The hetc pass driver for tests and debugging ----===//

#include "compiler/dialects/hetc/IR/HetcTarget.h"
#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/dialects/hisa/IR/HIsa.h"
#include "compiler/dialects/htile/IR/HTile.h"
#include "compiler/frontend/MlirTextChecks.h"
#include "compiler/passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, hetc::hgraph::HGraphDialect,
                  hetc::htile::HTileDialect, hetc::hisa::HIsaDialect,
                  hetc::target::HetcDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  hetc::registerHetcPassesAndPipelines();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "hetc optimizer: every hetc dialect, pass and pipeline\n",
      registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // These read no input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, input, output, registry));
  // The input is read once (it may be stdin) and, nested deeper than
  // MLIR's parser can descend, refused before it is parsed.
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(input, &error);
  if (!file) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  if (!hetc::frontend::checkMlirText(file->getBuffer(),
                                        file->getBufferIdentifier(), error)) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> out =
      mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(out->os(), std::move(file), registry, config)))
    return 1;
  out->keep();
  return 0;
}
