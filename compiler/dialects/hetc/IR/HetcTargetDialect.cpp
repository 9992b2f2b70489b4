//===- HetcTargetDialect.cpp - The hetc target dialect ----------------===//

#include "compiler/dialects/hetc/IR/HetcTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <google/protobuf/text_format.h>

using namespace mlir;
using namespace hetc;
using namespace hetc::target;

#include "compiler/dialects/hetc/IR/HetcTargetDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "compiler/dialects/hetc/IR/HetcTargetAttrs.cpp.inc"

void HetcDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "compiler/dialects/hetc/IR/HetcTargetAttrs.cpp.inc"
      >();
}

LogicalResult
ChipAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef name,
                 StringRef spec) {
  chip::ChipSpec parsed;
  std::string error;
  if (!chip::ChipSpec::parse(spec.str(), "#hetc.chip<\"" + name.str() + "\">",
                             parsed, error))
    return emitError() << error;
  if (parsed.name() != name)
    return emitError() << "#hetc.chip<\"" << name
                       << "\">: the description names the chip '"
                       << parsed.name() << "'";
  return success();
}

LogicalResult HetcDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kChipAttrName) {
    if (!isa<ModuleOp>(op))
      return op->emitError("'") << name << "' belongs on a module";
    if (!isa<ChipAttr>(attr.getValue()))
      return op->emitError("'") << name << "' must be a #hetc.chip attribute";
    return success();
  }
  if (name == kSharedLayoutAttrName) {
    // Its entries are read, and checked, by hetc-htile-plan-memory.
    if (!isa<ModuleOp>(op))
      return op->emitError("'") << name << "' belongs on a module";
    if (!isa<DictionaryAttr>(attr.getValue()))
      return op->emitError("'") << name << "' must be a dictionary";
    return success();
  }
  if (name == kSramPeakBuffersAttrName) {
    auto entries = dyn_cast<ArrayAttr>(attr.getValue());
    auto valid = [](Attribute entry) {
      auto dict = dyn_cast<DictionaryAttr>(entry);
      return dict && dict.getAs<StringAttr>("node") &&
             dict.getAs<TypeAttr>("type") &&
             dict.getAs<IntegerAttr>("vectors") &&
             dict.getAs<IntegerAttr>("tensor_bytes") && dict.size() == 4;
    };
    if (!isa<func::FuncOp>(op))
      return op->emitError("'") << name << "' belongs on a function";
    if (!entries || !llvm::all_of(entries, valid))
      return op->emitError("'")
             << name
             << "' must be an array of dictionaries of node (a string), type "
                "(a type), vectors and tensor_bytes (integers)";
    return success();
  }
  // What the passes record on a function they compiled, for the compile
  // summary and the artifact.
  bool integer = llvm::is_contained(kFunctionFigures, name);
  if (!integer && name != kLowerBoundReasonAttrName &&
      name != kPhysicalBoundReasonAttrName)
    return op->emitError("unknown attribute '")
           << name << "' of the hetc dialect";
  if (!isa<func::FuncOp>(op))
    return op->emitError("'") << name << "' belongs on a function";
  if (integer ? !isa<IntegerAttr>(attr.getValue())
              : !isa<StringAttr>(attr.getValue()))
    return op->emitError("'") << name << "' must be "
                              << (integer ? "an integer" : "a string");
  return success();
}

ChipAttr hetc::target::getChipAttr(MLIRContext *context,
                                   const chip::ChipSpec &spec) {
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  std::string text;
  printer.PrintToString(spec.proto(), &text);
  // Single-line mode leaves a trailing space.
  while (!text.empty() && text.back() == ' ')
    text.pop_back();
  return ChipAttr::get(context, spec.name(), text);
}

void hetc::target::setChip(ModuleOp module, const chip::ChipSpec &spec) {
  module->setAttr(kChipAttrName, getChipAttr(module.getContext(), spec));
}

FailureOr<chip::ChipSpec> hetc::target::getChip(ModuleOp module,
                                                StringRef passArg) {
  auto attr = module->getAttrOfType<ChipAttr>(kChipAttrName);
  if (!attr)
    return module.emitError()
           << passArg << " needs the chip the module is compiled for: run "
           << "--hetc-set-chip=file=<chip file> first (the module has no '"
           << kChipAttrName << "' attribute)";
  chip::ChipSpec spec;
  std::string error;
  // The attribute was checked when it was built or parsed.
  if (!chip::ChipSpec::parse(attr.getSpec().str(), attr.getName().str(), spec,
                             error))
    return module.emitError() << error;
  return spec;
}
