//===- HTileTransposeWeights.cpp - Weights held the way that pads less ---===//
//
// Each row of a buffer starts a new vector, so a K x N weight takes
// K * ceil(N / lanes) vectors: a narrow or ragged N pads every row (N = 384
// takes 640 lanes on tsp-v1). Held transposed, N x K, it takes
// N * ceil(K / lanes), and the planes install it column by column
// (htile.matmul's `transposed`, M_LOAD_WEIGHTS_COLUMN) with one load per
// vector either way. A 32-bit constant used only as the weight of matmuls
// is held whichever way takes fewer vectors.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/ConstantRelayout.h"
#include "compiler/passes/Passes.h"

#include "compiler/dialects/hisa/IR/BufferLayout.h"

namespace hetc {
#define GEN_PASS_DEF_HTILETRANSPOSEWEIGHTS
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

/// The lanes of the planes' tiles when every use of `constant` is the
/// untransposed, unscaled, uninterleaved weight of a tiled matmul of its
/// own type, all with one tile; none otherwise.
std::optional<int64_t> transposableLanes(htile::ConstantOp constant) {
  std::optional<int64_t> lanes;
  Type element = constant.getType().getElementType();
  for (OpOperand &use : constant.getBuffer().getUses()) {
    auto matmul = dyn_cast<htile::MatMulOp>(use.getOwner());
    if (!matmul || &use != &matmul.getWeightMutable() ||
        matmul.getTransposed() || matmul.getInterleave() ||
        matmul.getScale() ||
        matmul.getInput().getType().getElementType() != element)
      return std::nullopt;
    std::optional<ArrayRef<int64_t>> tile = matmul.getTile();
    // A tile is k x n of the planes: both are the lanes.
    if (!tile || tile->size() != 3 || (*tile)[1] != (*tile)[2] ||
        (*tile)[2] <= 0 || (lanes && *lanes != (*tile)[2]))
      return std::nullopt;
    lanes = (*tile)[2];
  }
  return lanes;
}

/// `dense` (K x N) transposed: N x K.
DenseElementsAttr transpose(DenseElementsAttr dense) {
  auto type = cast<ShapedType>(dense.getType());
  Type element = type.getElementType();
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  auto transposedType = RankedTensorType::get({n, k}, element);
  if (dense.isSplat())
    return dense.reshape(transposedType);
  size_t bytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8u);
  ArrayRef<char> raw = dense.getRawData();
  std::vector<char> out(raw.size());
  for (int64_t r = 0; r < k; ++r)
    for (int64_t c = 0; c < n; ++c)
      std::memcpy(out.data() + size_t(c * k + r) * bytes,
                  raw.data() + size_t(r * n + c) * bytes, bytes);
  return DenseElementsAttr::getFromRawBuffer(transposedType, out);
}

struct HTileTransposeWeightsPass
    : hetc::impl::HTileTransposeWeightsBase<HTileTransposeWeightsPass> {
  void runOnOperation() override {
    for (htile::ConstantOp constant : relayout::constantsOf(getOperation())) {
      MemRefType type = constant.getType();
      // Narrower weights share SRAM rows and are interleaved for the planes
      // instead (hetc-htile-interleave-weights).
      if (type.getRank() != 2 || !type.getElementType().isF32() ||
          constant.getBuffer().use_empty())
        continue;
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      std::optional<int64_t> lanes = transposableLanes(constant);
      if (!dense || !lanes)
        continue;
      int64_t k = type.getDimSize(0), n = type.getDimSize(1);
      if (layoutOf({n, k}, uint32_t(*lanes)).vectors() >=
          layoutOf({k, n}, uint32_t(*lanes)).vectors())
        continue;
      relayout::replaceConstant(
          constant, MemRefType::get({n, k}, type.getElementType()),
          transpose(dense), [](OpOperand &use, Value replacement) {
            cast<htile::MatMulOp>(use.getOwner()).setTransposed(true);
            return replacement;
          });
    }
  }
};

} // namespace
