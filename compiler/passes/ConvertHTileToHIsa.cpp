//===- ConvertHTileToHIsa.cpp - Expand htile kernels to instructions --===//
//
// Every buffer is bound to its SRAM address first, and the inputs,
// constants and outputs are declared at the top of the function; then a
// dialect conversion expands each kernel, in program order, with the
// pattern of its family (HTileToHIsa/*Expansion.cpp), and the buffers go.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HTileToHIsa/Expansion.h"

#include "llvm/ADT/TypeSwitch.h"

namespace hetc {
#define GEN_PASS_DEF_CONVERTHTILETOHISA
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::expansion;

namespace {

/// Records the address of the buffer `op` defines and declares the I/O
/// bindings and constants, at `b`.
LogicalResult bind(Operation *op, OpBuilder &b, ExpansionState &state) {
  auto addressOf = [&](Operation *def) -> FailureOr<int64_t> {
    Type element =
        cast<MemRefType>(def->getResult(0).getType()).getElementType();
    if (!hisa::laneTypeOf(element))
      return def->emitError("buffer of element type ")
             << element << " cannot be held by the chip ("
             << hisa::heldTypeNames() << ")";
    auto attr = def->getAttrOfType<IntegerAttr>("address");
    if (!attr)
      return def->emitError("buffer has no SRAM address; run "
                            "hetc-htile-plan-memory first");
    return attr.getInt();
  };
  auto tensorType = [](Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    return TypeAttr::get(
        RankedTensorType::get(type.getShape(), type.getElementType()));
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](htile::InputOp in) -> LogicalResult {
        FailureOr<int64_t> a = addressOf(in);
        if (failed(a))
          return failure();
        state.addresses[in.getBuffer()] = *a;
        hisa::InputOp::create(b, in.getLoc(), in.getNameAttr(),
                              b.getI64IntegerAttr(*a), IntegerAttr(),
                              tensorType(in.getBuffer()));
        return success();
      })
      .Case([&](htile::ConstantOp c) -> LogicalResult {
        FailureOr<int64_t> a = addressOf(c);
        if (failed(a))
          return failure();
        state.addresses[c.getBuffer()] = *a;
        hisa::ConstantOp::create(b, c.getLoc(), b.getI64IntegerAttr(*a),
                                 c.getValue());
        return success();
      })
      .Case([&](htile::AllocOp alloc) -> LogicalResult {
        FailureOr<int64_t> a = addressOf(alloc);
        if (failed(a))
          return failure();
        state.addresses[alloc.getBuffer()] = *a;
        return success();
      })
      .Case([&](htile::ViewOp view) -> LogicalResult {
        int64_t address = state.addresses.lookup(view.getSource());
        // A view of rows from `first_row` on starts that many rows of
        // vectors later, which must start an SRAM row.
        if (std::optional<int64_t> first = view.getFirstRow()) {
          BufferLayout layout =
              layoutOf(view.getSource().getType(), state.chip.lanes());
          std::optional<int64_t> before = layout.sramRowsBefore(*first);
          if (!before)
            return view.emitError("rows from row ")
                   << *first << " of " << view.getSource().getType()
                   << " start inside an SRAM row, which holds "
                   << layout.perSramRow << " vectors of its type";
          address += *before;
        }
        state.addresses[view.getResult()] = address;
        return success();
      })
      .Case([&](htile::OutputOp out) {
        hisa::OutputOp::create(
            b, out.getLoc(), out.getNameAttr(),
            b.getI64IntegerAttr(state.addresses.lookup(out.getBuffer())),
            IntegerAttr(), tensorType(out.getBuffer()));
        return success();
      })
      .Default([](Operation *) { return success(); });
}

/// Whether `op` is an htile buffer or binding, which the kernels' patterns
/// leave in place until every kernel is expanded.
bool isBufferOp(Operation *op) {
  return isa<htile::InputOp, htile::ConstantOp, htile::AllocOp, htile::ViewOp,
             htile::OutputOp>(op);
}

/// Two operands of one instruction that are read from SRAM are read in the
/// same cycle when their slice is the same: they travel the same hops to
/// meet at the reader. In one bank of that slice the reads would need two
/// of its ports at once, a conflict no schedule resolves. The same holds
/// one V_CAST back, for the index and vector pairs that a scatter's chain
/// takes from the vector unit together. Such an operand (on a chip whose
/// addresses are interleaved over the slices, rows of large tensors share
/// a bank whichever way the placer turns) passes through one more V_CAST
/// to its own type, which reads it a vector-op latency earlier. A read
/// behind a V_CAST and a read taken directly reach the instruction from
/// different cycles, so they do not tie.
void separateBankTies(func::FuncOp func, const chip::ChipSpec &spec) {
  for (Operation &op : llvm::make_early_inc_range(func.getBody().front())) {
    if (op.getNumOperands() < 2 || !isa<hisa::InstructionOpInterface>(op))
      continue;
    // (bank, behind a V_CAST) of each read so far, and the read.
    SmallVector<std::pair<std::pair<uint64_t, bool>, Operation *>> banks;
    for (OpOperand &use : op.getOpOperands()) {
      // The read behind the operand, and the use of its vector to move.
      OpOperand *tied = &use;
      bool behindCast = false;
      if (auto cast = use.get().getDefiningOp<hisa::VCastOp>()) {
        tied = &cast.getInputMutable();
        behindCast = true;
      }
      auto read = tied->get().getDefiningOp<hisa::ReadOp>();
      if (!read)
        continue;
      uint64_t address = uint64_t(read.getAddress());
      std::pair<uint64_t, bool> bank{spec.chipBankOf(address), behindCast};
      auto same = llvm::find_if(banks, [&](auto &entry) {
        return entry.first == bank && entry.second != read;
      });
      if (same == banks.end()) {
        banks.push_back({bank, read});
        continue;
      }
      OpBuilder b(tied->getOwner());
      Type type = hisa::dtypeOf(read);
      tied->set(hisa::VCastOp::create(
          b, read.getLoc(), read.getType(), read, TypeAttr::get(type),
          TypeAttr::get(type), hisa::CastOverflowAttr(),
          hisa::E8M0RoundingAttr(), b.getI32IntegerAttr(int32_t(spec.lanes())),
          read.getPartsAttr(), expansion::repeatOnly(read.getRepeatAttr()),
          IntegerAttr(), hisa::StreamAttr()));
    }
  }
}

/// Expands `func`'s kernels into its instructions, in place.
LogicalResult expandFunction(func::FuncOp func, const chip::ChipSpec &spec) {
  MLIRContext *context = func.getContext();
  Block &body = func.getBody().front();
  ExpansionState state(spec);
  // Bind every buffer before any kernel expands; report every buffer that
  // cannot be bound and every op that is not htile.
  OpBuilder builder = OpBuilder::atBlockBegin(&body);
  bool ok = true;
  // The chip runs nothing for ops of the kernel plan only.
  for (Operation &op : llvm::make_early_inc_range(body))
    if (htile::isPlanOnly(&op))
      op.erase();
  // Nor are the buffers only they used (memory planning placed none), or
  // views of those.
  auto unplaced = [](Value buffer) {
    while (auto view = buffer.getDefiningOp<htile::ViewOp>())
      buffer = view.getSource();
    auto alloc = buffer.getDefiningOp<htile::AllocOp>();
    return alloc && !alloc->hasAttr("address");
  };
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (op.use_empty() && isa<htile::ViewOp, htile::AllocOp>(op) &&
        unplaced(op.getResult(0)))
      op.erase();
  for (Operation &op : llvm::make_early_inc_range(body)) {
    ok &= succeeded(bind(&op, builder, state));
    if (!isa_and_present<htile::HTileDialect>(op.getDialect()) &&
        !isa<func::ReturnOp>(op)) {
      op.emitError("'") << op.getName() << "' cannot be lowered to hisa";
      ok = false;
    }
  }
  if (!ok)
    return failure();

  auto integer = [](Value v) {
    return isa<IntegerType>(cast<MemRefType>(v.getType()).getElementType());
  };
  for (Operation &op : body)
    if (auto m = dyn_cast<htile::MatMulOp>(op))
      state.integerPlanes |= integer(m.getInput());
    else if (auto t = dyn_cast<htile::TransposeOp>(op))
      state.integerPlanes |= integer(t.getInput());

  RewritePatternSet patterns(context);
  populateElementwiseExpansions(patterns, state);
  populateMatrixExpansions(patterns, state);
  populateReductionExpansions(patterns, state);
  populateDataMovementExpansions(patterns, state);
  populateConvolutionExpansions(patterns, state);
  ConversionTarget target(*context);
  target.addLegalDialect<hisa::HIsaDialect>();
  target.addLegalOp<func::FuncOp, func::ReturnOp>();
  target.addDynamicallyLegalDialect<htile::HTileDialect>(isBufferOp);
  // The patterns never roll back: each expands its kernel or reports it.
  ConversionConfig config;
  config.allowPatternRollback = false;
  config.foldingMode = DialectConversionFoldingMode::Never;
  if (failed(
          applyPartialConversion(func, target, std::move(patterns), config)) ||
      state.failed)
    return failure();
  // The buffers, last first so that views go before what they view.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isBufferOp(&op))
      op.erase();
  separateBankTies(func, spec);
  return success();
}

struct ConvertHTileToHIsaPass
    : hetc::impl::ConvertHTileToHIsaBase<ConvertHTileToHIsaPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(forEachFunctionOnChip(getOperation(), getArgument(),
                                     expandFunction)))
      signalPassFailure();
  }
};

} // namespace
