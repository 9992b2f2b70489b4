//===- FuzzMlir.cpp - hetc-opt's parser over the three dialects --------===//
//
// The input is MLIR text as `hetc-opt` reads it, with the hgraph, htile,
// hisa and func dialects: parsed, verified and printed. A verifier or a
// custom parser that crashes on bad IR is a finding.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialects/hetc/IR/HetcTarget.h"
#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/dialects/hisa/IR/HIsa.h"
#include "compiler/dialects/htile/IR/HTile.h"
#include "compiler/frontend/MlirTextChecks.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

using namespace mlir;
using namespace hetc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    registry.insert<func::FuncDialect, hgraph::HGraphDialect,
                    htile::HTileDialect, hisa::HIsaDialect,
                    target::HetcDialect>();
    auto *created = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    created->loadAllAvailableDialects();
    return created;
  }();
  ScopedDiagnosticHandler quiet(context, [](Diagnostic &) {
    return success();
  });
  // MLIR's lexer reads up to a terminating NUL, as every file buffer has;
  // the fuzzer's data has none, so it is copied into a string that does.
  std::string text(reinterpret_cast<const char *>(data), size);
  // As hetc-opt and hetc compile do, text nested deeper than the parser
  // can descend is refused first.
  std::string error;
  if (!frontend::checkMlirText(text, "fuzz.mlir", error))
    return 0;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, context);
  if (!module)
    return 0;
  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os);
  return 0;
}
