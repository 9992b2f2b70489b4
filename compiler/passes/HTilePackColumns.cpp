//===- HTilePackColumns.cpp - Per-row constants one a lane -----------------===//
//
// A constant column R x 1 (a per-channel scale, a depthwise convolution's
// weights for one kernel element, a bias added per row) takes a vector per
// row, 320 lanes for one value on tsp-v1, for the whole program. Read only
// to be spread over the rows of binary kernels, it is held packed instead:
// R elements a lane each, in two copies (2 x R), which the kernels read as
// htile.binary's `column` and spread lane by lane (hisa.vbroadcast).
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/ConstantRelayout.h"
#include "compiler/passes/Passes.h"

namespace hetc {
#define GEN_PASS_DEF_HTILEPACKCOLUMNS
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

/// The copies a packed column is held in. Consecutive rows read alternate
/// copies: one copy would serve every row of a kernel from one bank, a
/// read a cycle, where a column of a vector a row alternated between a
/// slice's two banks. Measured on tsp-v1 (MobileNetV2, EfficientNet-B0):
/// one copy took 121,530 and 167,142 cycles, two 117,279 and 160,609,
/// against 117,779 and 160,513 with a vector a row.
constexpr int64_t kColumnCopies = 2;

/// `dense` (R x 1) as `copies` x R.
DenseElementsAttr copiesOf(DenseElementsAttr dense, int64_t copies) {
  auto type = cast<ShapedType>(dense.getType());
  auto result = RankedTensorType::get({copies, type.getDimSize(0)},
                                      type.getElementType());
  if (dense.isSplat())
    return dense.resizeSplat(result);
  ArrayRef<char> raw = dense.getRawData();
  std::vector<char> out;
  out.reserve(raw.size() * size_t(copies));
  for (int64_t copy = 0; copy < copies; ++copy)
    out.insert(out.end(), raw.begin(), raw.end());
  return DenseElementsAttr::getFromRawBuffer(result, out);
}

/// Whether every use of `constant` (R x 1) is an operand of a binary
/// kernel that spreads it over longer rows, and not both of one, or of the
/// kernel plan's depthwise convolution, which takes its columns as R
/// values of any shape.
bool onlySpread(htile::ConstantOp constant) {
  for (OpOperand &use : constant.getBuffer().getUses()) {
    if (isa<htile::PlanDepthwiseConvOp>(use.getOwner()))
      continue;
    auto binary = dyn_cast<htile::BinaryOp>(use.getOwner());
    if (!binary || &use == &binary.getOutputMutable() || binary.getColumn() ||
        binary.getLhs() == binary.getRhs())
      return false;
    ArrayRef<int64_t> out = binary.getOutput().getType().getShape();
    if (out.size() < 2 || out.back() == 1)
      return false;
  }
  return true;
}

struct HTilePackColumnsPass
    : hetc::impl::HTilePackColumnsBase<HTilePackColumnsPass> {
  void runOnOperation() override {
    for (htile::ConstantOp constant : relayout::constantsOf(getOperation())) {
      MemRefType type = constant.getType();
      Type element = type.getElementType();
      // A single row gains nothing; narrower types share SRAM rows already.
      if (type.getRank() != 2 || type.getDimSize(1) != 1 ||
          type.getDimSize(0) < 2 ||
          !(element.isF32() || element.isSignlessInteger(32)) ||
          constant.getBuffer().use_empty() || !onlySpread(constant))
        continue;
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense)
        continue;
      int64_t rows = type.getDimSize(0);
      // The kernel plan's convolution reads the first copy.
      Value first;
      relayout::replaceConstant(
          constant, MemRefType::get({kColumnCopies, rows}, element),
          copiesOf(dense, kColumnCopies),
          [&](OpOperand &use, Value packed) -> Value {
            auto binary = dyn_cast<htile::BinaryOp>(use.getOwner());
            if (binary) {
              binary.setColumn(&use == &binary.getLhsMutable()
                                   ? htile::OperandSide::lhs
                                   : htile::OperandSide::rhs);
              return packed;
            }
            if (!first) {
              OpBuilder builder(packed.getContext());
              builder.setInsertionPointAfterValue(packed);
              first = htile::ViewOp::create(
                  builder, packed.getLoc(), MemRefType::get({rows}, element),
                  packed, builder.getI64IntegerAttr(0));
            }
            return first;
          });
    }
  }
};

} // namespace
