//===- HTileInterleaveWeights.cpp - Narrow weights a row a load ----------===//
//
// A narrow constant weight's SRAM rows hold neighbouring column tiles of
// one weight row, which go to different planes. Rewritten with p rows of
// each column tile side by side (htile.matmul's `interleave`), an SRAM row
// holds p rows of one tile, which one read and one M_LOAD_WEIGHTS install:
// a plane then takes p times the weight rows a cycle, as many bytes as a
// 32-bit weight's, which the streams into it carry (docs/architecture.md,
// "Weight install").
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/ConstantRelayout.h"
#include "compiler/passes/Passes.h"

#include "compiler/dialects/hisa/IR/HIsa.h"

namespace hetc {
#define GEN_PASS_DEF_HTILEINTERLEAVEWEIGHTS
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

/// The tile n of `constant`'s matmuls when every use is the weight of a
/// matmul that can take it interleaved by `p`, all with one tile n; none
/// otherwise.
std::optional<int64_t> interleavableTileN(htile::ConstantOp constant,
                                          int64_t p) {
  std::optional<int64_t> tileN;
  for (OpOperand &use : constant.getBuffer().getUses()) {
    auto matmul = dyn_cast<htile::MatMulOp>(use.getOwner());
    if (!matmul || &use != &matmul.getWeightMutable() ||
        matmul.getTransposed() || matmul.getInterleave())
      return std::nullopt;
    // The planes take the weight in the input's type; an i8 weight of an
    // f16 or bf16 matmul (which has a scale) is converted on its way.
    Type input = matmul.getInput().getType().getElementType();
    Type weight = constant.getType().getElementType();
    bool converted = weight.isInteger(8) && (input.isF16() || input.isBF16());
    std::optional<ArrayRef<int64_t>> tile = matmul.getTile();
    if ((input != weight && !converted) ||
        4 / hisa::sramLaneBytes(input) != p || !tile || tile->size() != 3 ||
        (*tile)[1] % p || (*tile)[2] <= 0 || (tileN && *tileN != (*tile)[2]))
      return std::nullopt;
    tileN = (*tile)[2];
  }
  return tileN;
}

/// `dense` (K x N) with p rows of each n-wide column tile side by side:
/// ceil(K / p) x (ceil(N / n) * n * p), zero past K and N.
DenseElementsAttr interleave(DenseElementsAttr dense, int64_t p, int64_t n) {
  auto type = cast<ShapedType>(dense.getType());
  Type element = type.getElementType();
  int64_t k = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t rows = llvm::divideCeil(k, p);
  int64_t width = llvm::divideCeil(cols, n) * n * p;
  size_t bytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8u);
  ArrayRef<char> raw = dense.getRawData();
  bool splat = dense.isSplat();
  std::vector<char> out(size_t(rows * width) * bytes, 0);
  for (int64_t r = 0; r < k; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      size_t from = splat ? 0 : size_t(r * cols + c) * bytes;
      int64_t g = r / p, q = r % p, j = c / n;
      size_t to = size_t(g * width + (j * p + q) * n + c % n) * bytes;
      std::memcpy(out.data() + to, raw.data() + from, bytes);
    }
  return DenseElementsAttr::getFromRawBuffer(
      RankedTensorType::get({rows, width}, element), out);
}

struct HTileInterleaveWeightsPass
    : hetc::impl::HTileInterleaveWeightsBase<HTileInterleaveWeightsPass> {
  void runOnOperation() override {
    for (htile::ConstantOp constant : relayout::constantsOf(getOperation())) {
      MemRefType type = constant.getType();
      Type element = type.getElementType();
      // 16-bit floats and 8-bit integers share SRAM rows (docs/isa.md,
      // "Native width"); the planes take no narrower weights.
      unsigned bits =
          element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
      if (type.getRank() != 2 || (bits != 8 && bits != 16) ||
          !hisa::isLaneType(element) || constant.getBuffer().use_empty())
        continue;
      // p, the rows of a tile an SRAM row holds, is counted in the type
      // the planes take: the first matmul's input type (all must agree).
      auto first =
          dyn_cast<htile::MatMulOp>(*constant.getBuffer().getUsers().begin());
      if (!first)
        continue;
      int64_t p =
          4 / hisa::sramLaneBytes(first.getInput().getType().getElementType());
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      std::optional<int64_t> tileN = interleavableTileN(constant, p);
      if (p < 2 || !dense || !tileN)
        continue;
      DenseElementsAttr packed = interleave(dense, p, *tileN);
      IntegerAttr attr = Builder(&getContext()).getI64IntegerAttr(p);
      relayout::replaceConstant(
          constant,
          MemRefType::get(cast<ShapedType>(packed.getType()).getShape(),
                          element),
          packed, [&](OpOperand &use, Value replacement) {
            cast<htile::MatMulOp>(use.getOwner()).setInterleaveAttr(attr);
            return replacement;
          });
    }
  }
};

} // namespace
