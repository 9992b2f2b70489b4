//===- DecomposeConvTranspose.cpp - Transposed conv as a plain conv ---===//
//
// The pattern of `hetc-hgraph-decompose` for `hgraph.conv_transpose`: a
// transposed convolution is a convolution (stride 1, the same dilations
// and groups) of the input spread out by the strides and padded by
// dilation * (kernel - 1) - pad on each side (output_padding added at the
// end; a negative amount crops), with the kernel flipped in every spatial
// dimension and its two channel dimensions swapped within each group. The
// spreading and padding of each spatial dimension is a product with a
// constant 0/1 matrix. A transposed convolution that spreads each input
// element into a block of its own (isBlockSpreading) is left whole: it
// is a matrix product and a move, without the zeros.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/DecomposePatterns.h"

#include "compiler/passes/AxisProduct.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::hgraph;

namespace {

struct DecomposeConvTranspose : OpRewritePattern<ConvTransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvTransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (isBlockSpreading(op))
      return failure();
    auto xType = cast<RankedTensorType>(op.getInput().getType());
    auto wType = cast<RankedTensorType>(op.getWeight().getType());
    auto element = dyn_cast<FloatType>(xType.getElementType());
    if (!element)
      return op.emitOpError("transposed convolution of ")
             << xType.getElementType()
             << " is not supported on the chip; it runs on floats";
    Location loc = op.getLoc();
    int64_t n = xType.getRank() - 2, group = op.getGroup();
    ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                      dilations = op.getDilations(),
                      outPad = op.getOutputPadding();

    // Spread and pad each spatial dimension.
    Value x = op.getInput();
    for (int64_t d = 0; d < n; ++d) {
      int64_t in = xType.getDimSize(2 + d);
      if (in == 0)
        return op.emitOpError("transposed convolution of an empty map "
                              "(spatial dimension ")
               << d << " has no elements) is not supported";
      int64_t reach = dilations[d] * (wType.getDimSize(2 + d) - 1);
      int64_t lo = reach - pads[d];
      int64_t hi = reach - pads[n + d] + outPad[d];
      int64_t out = (in - 1) * strides[d] + 1 + lo + hi;
      if (strides[d] == 1 && lo == 0 && hi == 0)
        continue;
      std::vector<double> matrix(in * out, 0.0);
      for (int64_t i = 0; i < in; ++i) {
        int64_t o = lo + i * strides[d];
        if (o >= 0 && o < out)
          matrix[i * out + o] = 1.0;
      }
      x = multiplyAlongAxis(rewriter, loc, x, 2 + d, matrix, out);
    }

    // W [C, M/g, k...] -> [M, C/g, k...], flipped spatially.
    int64_t c = wType.getDimSize(0), mg = wType.getDimSize(1);
    SmallVector<int64_t> kernel(wType.getShape().drop_front(2));
    SmallVector<int64_t> grouped{group, c / group, mg};
    grouped.append(kernel);
    Value w = ReshapeOp::create(rewriter, loc,
                                RankedTensorType::get(grouped, element),
                                op.getWeight());
    SmallVector<int64_t> perm{0, 2, 1};
    SmallVector<int64_t> swapped{group, mg, c / group};
    for (int64_t d = 0; d < n; ++d) {
      perm.push_back(3 + d);
      swapped.push_back(kernel[d]);
    }
    w = TransposeOp::create(rewriter, loc,
                            RankedTensorType::get(swapped, element), w,
                            rewriter.getDenseI64ArrayAttr(perm));
    SmallVector<int64_t> flat{group * mg, c / group};
    flat.append(kernel);
    auto flatType = RankedTensorType::get(flat, element);
    w = ReshapeOp::create(rewriter, loc, flatType, w);
    SmallVector<int64_t> starts(2 + n, 0), steps(2 + n, 1);
    for (int64_t d = 0; d < n; ++d) {
      starts[2 + d] = kernel[d] - 1;
      steps[2 + d] = -1;
    }
    w = SliceOp::create(rewriter, loc, flatType, w,
                        rewriter.getDenseI64ArrayAttr(starts),
                        rewriter.getDenseI64ArrayAttr(steps));

    SmallVector<int64_t> ones(n, 1), zeros(2 * n, 0);
    rewriter.replaceOpWithNewOp<ConvOp>(
        op, op.getType(), x, w, op.getBias(),
        rewriter.getDenseI64ArrayAttr(ones),
        rewriter.getDenseI64ArrayAttr(zeros),
        rewriter.getDenseI64ArrayAttr(dilations),
        rewriter.getI64IntegerAttr(group));
    return success();
  }
};

} // namespace

bool hetc::isBlockSpreading(ConvTransposeOp op) {
  auto xType = cast<RankedTensorType>(op.getInput().getType());
  auto wType = cast<RankedTensorType>(op.getWeight().getType());
  if (xType.getRank() != 4 || xType.getDimSize(0) != 1 ||
      !xType.getElementType().isF32() || op.getGroup() != 1 ||
      !matchPattern(op.getWeight(), m_Constant()) ||
      (op.getBias() && !matchPattern(op.getBias(), m_Constant())))
    return false;
  for (int64_t d = 0; d < 2; ++d)
    if (op.getStrides()[d] != wType.getDimSize(2 + d) ||
        op.getDilations()[d] != 1 || op.getOutputPadding()[d] != 0 ||
        op.getPads()[d] != 0 || op.getPads()[2 + d] != 0)
      return false;
  return true;
}

void hetc::populateDecomposeConvTransposePatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeConvTranspose>(patterns.getContext());
}
