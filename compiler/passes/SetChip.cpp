//===- SetChip.cpp - Set the chip a module is compiled for ------------===//

#include "compiler/dialects/hetc/IR/HetcTarget.h"
#include "compiler/passes/Passes.h"

namespace hetc {
#define GEN_PASS_DEF_SETCHIP
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

struct SetChipPass : hetc::impl::SetChipBase<SetChipPass> {
  using Base::Base;

  void runOnOperation() override {
    if (file.empty()) {
      getOperation().emitError()
          << getArgument() << " needs a chip file: pass file=<chip file>";
      return signalPassFailure();
    }
    chip::ChipSpec spec;
    std::string error;
    if (!chip::ChipSpec::load(file, spec, error)) {
      getOperation().emitError() << error;
      return signalPassFailure();
    }
    target::setChip(getOperation(), spec);
  }
};

} // namespace
