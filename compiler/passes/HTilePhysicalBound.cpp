//===- HTilePhysicalBound.cpp - The chip's limit for the kernels -------===//
//
// Counts what the htile kernels must do (MACs by width, bytes installed
// into the planes, bytes through SRAM, vector lane operations) and records
// the physical bound they imply on the chip (PhysicalBound.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/ChipLoader.h"
#include "compiler/passes/Passes.h"
#include "compiler/passes/PhysicalBound.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hetc-htile-physical-bound"

namespace hetc {
#define GEN_PASS_DEF_HTILEPHYSICALBOUND
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

uint64_t elements(Value buffer) {
  return uint64_t(cast<MemRefType>(buffer.getType()).getNumElements());
}

/// A buffer's bytes at its element width (sub-byte types packed).
uint64_t bytes(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  uint64_t bits = type.getElementTypeBitWidth();
  return (elements(buffer) * bits + 7) / 8;
}

/// Every operand read once and every result written once.
uint64_t operandBytes(Operation *op) {
  uint64_t total = 0;
  for (Value operand : op->getOperands())
    total += bytes(operand);
  return total;
}

KernelWork matmulWork(htile::MatMulOp op) {
  KernelWork work;
  auto input = cast<MemRefType>(op.getInput().getType());
  auto weight = cast<MemRefType>(op.getWeight().getType());
  // M x K x N, N from the output (a transposed weight is N x K).
  auto output = cast<MemRefType>(op.getOutput().getType());
  uint64_t macs = uint64_t(input.getDimSize(0)) * input.getDimSize(1) *
                  output.getDimSize(1);
  // The planes multiply at the width of the weights they hold: an i8
  // weight of a float matmul is converted to the input's type (one vector
  // lane-op per weight) and installed at that width, and its sums are
  // scaled (one per output element).
  unsigned width =
      std::max(input.getElementTypeBitWidth(), weight.getElementTypeBitWidth());
  (width <= 8 ? work.macs8 : width <= 16 ? work.macs16 : work.macs32) = macs;
  // K x N weights (an interleaved weight's buffer holds padding too).
  uint64_t weights = uint64_t(input.getDimSize(1)) * output.getDimSize(1);
  work.installBytes = weights * ((width + 7) / 8);
  work.sramBytes = operandBytes(op);
  if (width != weight.getElementTypeBitWidth())
    work.vectorLaneOps += weights;
  if (op.getScale())
    work.vectorLaneOps += elements(op.getOutput());
  if (op.getActivation() != htile::Activation::none)
    work.vectorLaneOps += elements(op.getOutput());
  return work;
}

/// A depthwise convolution's products are the kernel elements inside the
/// map at every output position, times the channels; each product but an
/// output row's first is summed, and a bias adds one more per element.
/// The counts separate by axis: a position meets (taps along its row) x
/// (taps along its column) elements.
KernelWork depthwiseWork(htile::DepthwiseConvOp op) {
  KernelWork work;
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> out = op.getOutput().getType().getShape();
  ArrayRef<int64_t> kernel =
      cast<MemRefType>(op.getWeights().front().getType()).getShape();
  uint64_t taps[2] = {0, 0};
  for (int d = 0; d < 2; ++d)
    for (int64_t o = 0; o < out[d]; ++o)
      for (int64_t k = 0; k < kernel[d]; ++k) {
        int64_t x = o * op.getStrides()[d] - op.getPads()[d] +
                    k * op.getDilations()[d];
        taps[d] += x >= 0 && x < in[d];
      }
  uint64_t positions = uint64_t(out[0] * out[1]);
  uint64_t products = taps[0] * taps[1];
  work.vectorLaneOps = (2 * products - positions +
                        (op.getBias() ? positions : 0)) *
                       uint64_t(out[2]);
  // The input, one copy of the weight, the bias and the output.
  work.sramBytes = bytes(op.getInput()) + bytes(op.getWeights().front()) +
                   (op.getBias() ? bytes(op.getBias()) : 0) +
                   bytes(op.getOutput());
  return work;
}

KernelWork kernelWork(Operation *op) {
  KernelWork work;
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](htile::MatMulOp matmul) { work = matmulWork(matmul); })
      .Case<htile::BinaryOp, htile::UnaryOp, htile::CastOp, htile::SelectOp>(
          [&](Operation *kernel) {
            work.vectorLaneOps = elements(kernel->getOperands().back());
            work.sramBytes = operandBytes(kernel);
          })
      .Case([&](htile::ReduceOp reduce) {
        work.vectorLaneOps = elements(reduce.getInput());
        work.sramBytes = bytes(reduce.getInput()) + bytes(reduce.getOutput());
      })
      .Case([&](htile::SoftmaxOp softmax) {
        // Maximum, subtract, exponential, sum and divide per element; the
        // scratch buffer is the kernel's own business.
        work.vectorLaneOps = 5 * elements(softmax.getInput());
        work.sramBytes = bytes(softmax.getInput()) + bytes(softmax.getOutput());
      })
      .Case([&](htile::DepthwiseConvOp conv) { work = depthwiseWork(conv); })
      .Case([&](htile::TransposeOp transpose) {
        work.sramBytes =
            bytes(transpose.getInput()) + bytes(transpose.getOutput());
      })
      .Case([&](htile::GatherOp gather) {
        // Each output element is read from one input element.
        work.sramBytes = 2 * bytes(gather.getOutput());
      })
      .Case([&](htile::GatherRowsOp gather) {
        work.sramBytes =
            2 * bytes(gather.getOutput()) + bytes(gather.getIndices());
      })
      .Case([&](htile::ScatterRowsOp scatter) {
        // Each update is read and written once; the rest of the table
        // is not touched.
        work.sramBytes =
            2 * bytes(scatter.getUpdates()) + bytes(scatter.getIndices());
      })
      .Default(
          [&](Operation *kernel) { work.sramBytes = operandBytes(kernel); });
  return work;
}

struct HTilePhysicalBoundPass
    : hetc::impl::HTilePhysicalBoundBase<HTilePhysicalBoundPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(forEachFunctionOnChip(
            getOperation(), getArgument(),
            [&](func::FuncOp func, const chip::ChipSpec &spec) {
              KernelWork work;
              func.walk([&](DestinationStyleOpInterface kernel) {
                work += kernelWork(kernel);
              });
              PhysicalBound bound = physicalBound(work, spec);
              LLVM_DEBUG(llvm::dbgs()
                         << func.getSymName() << ": " << work.macs8 << "/"
                         << work.macs16 << "/" << work.macs32 << " MACs, "
                         << work.installBytes << " install bytes, "
                         << work.sramBytes << " SRAM bytes, "
                         << work.vectorLaneOps << " lane ops\n");
              Builder b(func.getContext());
              func->setAttr(target::kPhysicalBoundAttrName,
                            b.getI64IntegerAttr(int64_t(bound.cycles)));
              func->setAttr(target::kPhysicalBoundReasonAttrName,
                            b.getStringAttr(bound.describe()));
              return success();
            })))
      signalPassFailure();
  }
};

} // namespace
