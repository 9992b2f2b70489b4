//===- hetc-opt.cpp - The hetc pass driver for tests and debugging ----===//

#include "compiler/dialects/hetc/IR/HetcTarget.h"
#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/dialects/hisa/IR/HIsa.h"
#include "compiler/dialects/htile/IR/HTile.h"
#include "compiler/passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, hetc::hgraph::HGraphDialect,
                  hetc::htile::HTileDialect, hetc::hisa::HIsaDialect,
                  hetc::target::HetcDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  hetc::registerHetcPassesAndPipelines();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "hetc optimizer: every hetc dialect, pass and pipeline\n",
      registry));
}
