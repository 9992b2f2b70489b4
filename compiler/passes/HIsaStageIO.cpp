//===- HIsaStageIO.cpp - Inputs and outputs through host memory -------===//
//
// Stages the model's inputs and outputs in host memory: each binding gets a
// host address, and DMA instructions move every vector of an input into
// SRAM before the program's first instruction and every vector of an output
// back at its end. The scheduler then orders them against the reads and
// writes of the same SRAM addresses, like any other memory access.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/ChipLoader.h"
#include "compiler/passes/Passes.h"

namespace hetc {
#define GEN_PASS_DEF_HISASTAGEIO
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

struct HIsaStageIOPass : hetc::impl::HIsaStageIOBase<HIsaStageIOPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(forEachFunctionOnChip(
            getOperation(), getArgument(),
            [&](func::FuncOp func, const chip::ChipSpec &spec) {
              stage(func, spec);
              return success();
            })))
      signalPassFailure();
  }

  /// The location of a binding's transfers: named "<kind> <tensor>" so
  /// that reports and traces attribute them like a node.
  static Location transferLoc(StringRef kind, StringRef tensor,
                              Location where) {
    MLIRContext *context = where.getContext();
    return NameLoc::get(StringAttr::get(context, kind + " " + tensor), where);
  }

  void stage(func::FuncOp func, const chip::ChipSpec &spec) {
    Block &body = func.getBody().front();
    // Inputs land before the first instruction: after the bindings.
    Operation *firstInstruction = nullptr;
    for (Operation &op : body)
      if (!isa<hisa::InputOp, hisa::OutputOp, hisa::ConstantOp>(op)) {
        firstInstruction = &op;
        break;
      }
    OpBuilder builder(func.getContext());
    uint32_t engines = spec.proto().dma().engines(), nextEngine = 0;
    int64_t nextHost = 0;
    auto vectorsOf = [&](Type type) {
      return layoutOf(cast<ShapedType>(type), spec.lanes()).vectors();
    };
    // Where vector `v` of a binding of `type` at SRAM row `base` is: its
    // row, part and dtype (narrow types are packed; docs/isa.md, "Native
    // width").
    struct Place {
      IntegerAttr row, part;
      TypeAttr dtype;
    };
    auto placeOf = [&](Type type, int64_t base, int64_t v) {
      auto shaped = cast<ShapedType>(type);
      BufferLayout layout = layoutOf(shaped, spec.lanes());
      int64_t word = layout.word(base, v);
      Type lane = hisa::laneTypeOf(shaped.getElementType());
      int64_t part = partOfWord(word, lane);
      return Place{builder.getI64IntegerAttr(word / 4),
                   part ? builder.getI32IntegerAttr(int32_t(part))
                        : IntegerAttr(),
                   lane.isF32() ? TypeAttr() : TypeAttr::get(lane)};
    };
    auto takeEngine = [&] {
      uint32_t engine = nextEngine;
      nextEngine = (nextEngine + 1) % engines;
      return builder.getI32IntegerAttr(int32_t(engine));
    };
    // Host addresses already taken by staged bindings stay taken.
    for (Operation &op : body)
      if (auto in = dyn_cast<hisa::InputOp>(op); in && in.getHost())
        nextHost = std::max<int64_t>(nextHost,
                                     *in.getHost() + vectorsOf(in.getType()));
      else if (auto out = dyn_cast<hisa::OutputOp>(op); out && out.getHost())
        nextHost =
            std::max<int64_t>(nextHost, *out.getHost() + vectorsOf(out.getType()));

    builder.setInsertionPoint(firstInstruction);
    for (auto in : llvm::to_vector(body.getOps<hisa::InputOp>())) {
      if (in.getHost())
        continue;
      int64_t vectors = vectorsOf(in.getType());
      in.setHostAttr(builder.getI64IntegerAttr(nextHost));
      Location loc = transferLoc("dma_in", in.getName(), in.getLoc());
      for (int64_t v = 0; v < vectors; ++v) {
        Place at = placeOf(in.getType(), in.getAddress(), v);
        hisa::DmaInOp::create(builder, loc,
                              builder.getI64IntegerAttr(nextHost + v), at.row,
                              at.part, at.dtype, takeEngine(), IntegerAttr());
      }
      nextHost += vectors;
    }
    builder.setInsertionPoint(body.getTerminator());
    for (auto out : llvm::to_vector(body.getOps<hisa::OutputOp>())) {
      if (out.getHost())
        continue;
      int64_t vectors = vectorsOf(out.getType());
      out.setHostAttr(builder.getI64IntegerAttr(nextHost));
      Location loc = transferLoc("dma_out", out.getName(), out.getLoc());
      for (int64_t v = 0; v < vectors; ++v) {
        Place at = placeOf(out.getType(), out.getAddress(), v);
        hisa::DmaOutOp::create(builder, loc, at.row, at.part, at.dtype,
                               builder.getI64IntegerAttr(nextHost + v),
                               takeEngine(), IntegerAttr());
      }
      nextHost += vectors;
    }
  }
};

} // namespace
