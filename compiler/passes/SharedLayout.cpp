//===- SharedLayout.cpp - Programs that share one SRAM layout ---------===//

#include "compiler/passes/SharedLayout.h"

#include "compiler/dialects/hisa/IR/BufferLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::placement;

namespace {

/// FNV-1a 64, fed in pieces.
struct Fnv {
  uint64_t hash = 14695981039346656037ull;
  void add(ArrayRef<char> bytes) {
    for (char c : bytes) {
      hash ^= uint8_t(c);
      hash *= 1099511628211ull;
    }
  }
};

std::string printed(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// The op that owns the storage of `value`, looking through views.
Operation *storageOf(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value.getDefiningOp();
}

/// The SRAM vectors a buffer of `type` takes (at least one, as placed).
int64_t vectorsOf(Type type, uint32_t lanes) {
  return std::max<int64_t>(layoutOf(cast<ShapedType>(type), lanes).sramRows(),
                           1);
}

} // namespace

uint64_t hetc::placement::fingerprintConstant(htile::ConstantOp constant) {
  Fnv fnv;
  std::string type = printed(constant.getBuffer().getType());
  fnv.add({type.data(), type.size() + 1});
  Attribute value = constant.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    char splat = dense.isSplat() ? 1 : 0;
    fnv.add({&splat, 1});
    fnv.add(dense.getRawData());
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      fnv.add(blob->getData());
    else
      fnv.add({"\0unavailable", 12});
  } else {
    std::string text;
    llvm::raw_string_ostream os(text);
    value.print(os);
    fnv.add({text.data(), text.size()});
  }
  return fnv.hash;
}

ResidentLayout hetc::placement::residentLayout(func::FuncOp func,
                                               uint32_t lanes) {
  ResidentLayout layout;
  auto addressOf = [](Operation *op) {
    auto attr = op->getAttrOfType<IntegerAttr>("address");
    return attr ? std::optional<int64_t>(attr.getInt()) : std::nullopt;
  };
  for (auto constant : func.getOps<htile::ConstantOp>())
    if (std::optional<int64_t> at = addressOf(constant)) {
      layout.kept.push_back(
          {*at, vectorsOf(constant.getBuffer().getType(), lanes)});
      layout.constants.emplace_back(fingerprintConstant(constant), *at);
    }
  for (auto output : func.getOps<htile::OutputOp>()) {
    auto input =
        dyn_cast_or_null<htile::InputOp>(storageOf(output.getBuffer()));
    if (!input || input.getBuffer().getType() != output.getBuffer().getType())
      continue;
    std::optional<int64_t> at = addressOf(input);
    bool seen = llvm::any_of(layout.inputs, [&](const auto &in) {
      return in.name == input.getName();
    });
    if (!at || seen)
      continue;
    layout.kept.push_back({*at, vectorsOf(input.getBuffer().getType(), lanes)});
    layout.inputs.push_back(
        {input.getName().str(), *at, printed(input.getBuffer().getType())});
  }
  return layout;
}

void hetc::placement::setSharedLayout(ModuleOp module,
                                      const ResidentLayout &layout) {
  Builder b(module.getContext());
  SmallVector<int64_t> kept, constants;
  for (const ResidentLayout::Region &region : layout.kept)
    kept.append({region.address, region.vectors});
  for (auto [fingerprint, address] : layout.constants)
    constants.append({int64_t(fingerprint), address});
  SmallVector<NamedAttribute> inputs;
  for (const ResidentLayout::Input &input : layout.inputs)
    inputs.push_back(b.getNamedAttr(
        input.name, b.getArrayAttr({b.getI64IntegerAttr(input.address),
                                    b.getStringAttr(input.type)})));
  SmallVector<NamedAttribute> entries{
      b.getNamedAttr("kept", b.getDenseI64ArrayAttr(kept)),
      b.getNamedAttr("constants", b.getDenseI64ArrayAttr(constants)),
      b.getNamedAttr("inputs", b.getDictionaryAttr(inputs))};
  if (layout.slot)
    entries.push_back(
        b.getNamedAttr("slot", b.getI64IntegerAttr(*layout.slot)));
  module->setAttr(target::kSharedLayoutAttrName, b.getDictionaryAttr(entries));
}

FailureOr<std::optional<ResidentLayout>>
hetc::placement::getSharedLayout(ModuleOp module) {
  Attribute attr = module->getAttr(target::kSharedLayoutAttrName);
  if (!attr)
    return std::optional<ResidentLayout>();
  auto fail = [&]() -> FailureOr<std::optional<ResidentLayout>> {
    return module.emitError(target::kSharedLayoutAttrName)
           << " must be {kept = array<i64: address, vectors, ...>, constants "
              "= array<i64: fingerprint, address, ...>, inputs = {NAME = "
              "[address, \"memref type\"], ...}[, slot = b]} with "
              "addresses, sizes and the slot 0 or more";
  };
  auto dict = dyn_cast<DictionaryAttr>(attr);
  auto kept = dict ? dict.getAs<DenseI64ArrayAttr>("kept") : nullptr;
  auto constants = dict ? dict.getAs<DenseI64ArrayAttr>("constants") : nullptr;
  auto inputs = dict ? dict.getAs<DictionaryAttr>("inputs") : nullptr;
  Attribute slot = dict ? dict.get("slot") : nullptr;
  if (!kept || !constants || !inputs || kept.size() % 2 ||
      constants.size() % 2 ||
      (slot &&
       (!isa<IntegerAttr>(slot) || cast<IntegerAttr>(slot).getInt() < 0)))
    return fail();
  ResidentLayout layout;
  if (slot)
    layout.slot = cast<IntegerAttr>(slot).getInt();
  for (int64_t i = 0; i < kept.size(); i += 2) {
    if (kept[i] < 0 || kept[i + 1] < 0)
      return fail();
    layout.kept.push_back({kept[i], kept[i + 1]});
  }
  for (int64_t i = 0; i < constants.size(); i += 2) {
    if (constants[i + 1] < 0)
      return fail();
    layout.constants.emplace_back(uint64_t(constants[i]), constants[i + 1]);
  }
  for (NamedAttribute input : inputs) {
    auto pair = dyn_cast<ArrayAttr>(input.getValue());
    auto address =
        pair && pair.size() == 2 ? dyn_cast<IntegerAttr>(pair[0]) : nullptr;
    auto type =
        pair && pair.size() == 2 ? dyn_cast<StringAttr>(pair[1]) : nullptr;
    if (!address || !type || address.getInt() < 0)
      return fail();
    layout.inputs.push_back(
        {input.getName().str(), address.getInt(), type.getValue().str()});
  }
  return std::optional<ResidentLayout>(std::move(layout));
}
