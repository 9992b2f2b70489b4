//===- LinearAlgebraPatterns.cpp - Matrix products of hgraph to htile
//-------===//
//
// hgraph.linear (a matmul with optional bias and activation, its weight
// perhaps transposed) as one htile.matmul tiled for the chip's planes;
// other matmul shapes are reported.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HGraphToHTile/Lowering.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::tiling;

namespace {

LogicalResult lowerLinear(hgraph::LinearOp op, const KernelBuilder &kernels) {
  // An i8 weight with column scales is converted to the input's type on
  // its way to the plane (the verifier has checked the pairing).
  bool scaledInt8 = op.getScale() && elementOf(op.getWeight()).isInteger(8);
  if (!hisa::isFloatLane(laneOf(op.getInput())) ||
      (laneOf(op.getWeight()) != laneOf(op.getInput()) && !scaledInt8))
    return op.emitError("matmul of ")
           << elementOf(op.getInput()) << " by " << elementOf(op.getWeight())
           << " is not supported on the chip; the matrix unit multiplies "
              "f32, f16 or bf16 by the same type (and i8/ui8 in "
              "MatMulInteger)";
  // Operand buffers first, in operand order, so the IR order is fixed.
  Value input = kernels.buffer(op.getInput());
  Value weight = kernels.buffer(op.getWeight());
  Value bias = op.getBias() ? kernels.buffer(op.getBias()) : Value();
  Value scale = op.getScale() ? kernels.buffer(op.getScale()) : Value();
  auto resultType = cast<ShapedType>(op.getResult().getType());
  // Partial sums over K tiles pass through the output buffer in f32, the
  // plane's accumulator type; an f16 or bf16 output, which SRAM holds at
  // half that width, gets an f32 buffer and a cast to its type.
  int64_t k = cast<ShapedType>(op.getInput().getType()).getShape().back();
  bool narrow = !resultType.getElementType().isF32() &&
                k > int64_t(kernels.chip.proto().matrix().rows());
  Value out = narrow
                  ? kernels.alloc(MemRefType::get(resultType.getShape(),
                                                  kernels.builder.getF32Type()),
                                  op.getLoc())
                  : kernels.alloc(op.getResult());
  // One input row per step; the weight tile fills one plane.
  htile::MatMulOp::create(
      kernels.builder, op.getLoc(), input, weight, bias, scale, out,
      static_cast<htile::Activation>(op.getActivation()), kernels.matmulTile(),
      op.getTransposed(), IntegerAttr());
  if (narrow)
    out = kernels.castKernel(op.getLoc(), out, resultType.getElementType());
  kernels.map(op.getResult(), out);
  return success();
}

LogicalResult lowerMatMul(hgraph::MatMulOp op, const KernelBuilder &) {
  return op.emitError("this matmul shape (")
         << op.getLhs().getType() << " x " << op.getRhs().getType()
         << ") is not supported on the chip yet; supported: [.., M, K] x "
            "[K, N]";
}

} // namespace

void tiling::populateLinearAlgebraPatterns(RewritePatternSet &patterns,
                                           const TypeConverter &converter,
                                           LoweringState &state) {
  patterns.add<LowerWith<hgraph::LinearOp, lowerLinear>,
               LowerWith<hgraph::MatMulOp, lowerMatMul>>(
      converter, patterns.getContext(), state);
}
