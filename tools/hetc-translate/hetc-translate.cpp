//===- hetc-translate.cpp - Translations to and from the artifact -----===//
//
//   hetc-translate --hisa-to-hetx scheduled.mlir -o model.hetx
//   hetc-translate --hetx-to-text model.hetx
//
// MLIR's translation driver with hetc's two translations: scheduled hisa
// (with its module's #hetc.chip) to the .hetx artifact, the last step of
// `hetc compile`; and an artifact to the protobuf text form of its payload,
// for reading and diffing.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/HetxEmitter.h"
#include "compiler/dialects/hetc/IR/HetcTarget.h"
#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/dialects/hisa/IR/HIsa.h"
#include "compiler/dialects/htile/IR/HTile.h"
#include "compiler/frontend/MlirTextChecks.h"
#include "runtime/artifact/ArtifactFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/SourceMgr.h"

#include <google/protobuf/text_format.h>

using namespace mlir;
using namespace hetc;

namespace {

// The translation parses its input itself, so that text nested deeper than
// MLIR's parser can descend is refused before the parse.
LogicalResult hisaToHetx(const std::shared_ptr<llvm::SourceMgr> &sources,
                         llvm::raw_ostream &os, MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sources->getMemoryBuffer(sources->getMainFileID());
  std::string error;
  if (!frontend::checkMlirText(buffer->getBuffer(),
                                  buffer->getBufferIdentifier(), error)) {
    llvm::errs() << "error: " << error << "\n";
    return failure();
  }
  DialectRegistry registry;
  registry.insert<func::FuncDialect, hgraph::HGraphDialect, htile::HTileDialect,
                  hisa::HIsaDialect, target::HetcDialect>();
  context->appendDialectRegistry(registry);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sources, ParserConfig(context));
  if (!module)
    return failure();
  FailureOr<chip::ChipSpec> spec = target::getChip(*module, "hisa-to-hetx");
  if (failed(spec))
    return failure();
  FailureOr<hetx::Artifact> artifact = codegen::emitArtifact(*module, *spec);
  if (failed(artifact))
    return failure();
  os << artifact::serialize(*artifact);
  return success();
}

LogicalResult hetxToText(const std::shared_ptr<llvm::SourceMgr> &sources,
                         llvm::raw_ostream &os, MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sources->getMemoryBuffer(sources->getMainFileID());
  hetx::Artifact artifact;
  std::string error;
  if (!artifact::parse(buffer->getBuffer().str(),
                       buffer->getBufferIdentifier().str(), artifact, error))
    return emitError(UnknownLoc::get(context)) << error;
  std::string text;
  google::protobuf::TextFormat::PrintToString(artifact, &text);
  os << text;
  return success();
}

} // namespace

int main(int argc, char **argv) {
  TranslateRegistration toHetx(
      "hisa-to-hetx",
      "Scheduled hisa (with its module's #hetc.chip) to a .hetx artifact",
      hisaToHetx);
  TranslateRegistration toText(
      "hetx-to-text",
      "A .hetx artifact to the protobuf text form of its payload",
      hetxToText);
  return failed(mlirTranslateMain(argc, argv, "hetc translations"));
}
