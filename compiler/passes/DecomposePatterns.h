//===- DecomposePatterns.h - Pattern groups of hgraph-decompose -*- C++ -*-===//
#ifndef HETC_COMPILER_PASSES_DECOMPOSEPATTERNS_H
#define HETC_COMPILER_PASSES_DECOMPOSEPATTERNS_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace hetc::hgraph {
class ConvTransposeOp;
} // namespace hetc::hgraph

namespace hetc {

/// `hgraph.pointwise` as the elementwise ops the chip runs.
void populateDecomposePointwisePatterns(mlir::RewritePatternSet &patterns);

/// `hgraph.gather` and `hgraph.gather_elements` with indices computed at
/// run time as one-hot selections and sums.
void populateDecomposeGatherPatterns(mlir::RewritePatternSet &patterns);

/// `hgraph.log_softmax` as reductions and elementwise ops, and
/// `hgraph.softmax` along another than the last axis as transposes around
/// one along the last.
void populateDecomposeSoftmaxPatterns(mlir::RewritePatternSet &patterns);

/// `hgraph.concat` of negated float tensors as the concatenation of the
/// tensors times a constant of signs.
void populateDecomposeNegatedConcatPatterns(mlir::RewritePatternSet &patterns);

/// `hgraph.trilu` as a where with a constant mask.
void populateDecomposeTriluPatterns(mlir::RewritePatternSet &patterns);

/// `hgraph.resize` as products with constant interpolation matrices, one
/// per resampled dimension.
void populateDecomposeResizePatterns(mlir::RewritePatternSet &patterns);

/// `hgraph.cumulative` as a log-step scan of shifted adds or multiplies.
void populateDecomposeCumulativePatterns(mlir::RewritePatternSet &patterns);

/// `hgraph.conv_transpose` as a convolution of the spread-out input with
/// the flipped kernel, except where isBlockSpreading holds.
void populateDecomposeConvTransposePatterns(mlir::RewritePatternSet &patterns);

/// Whether `op` spreads each input element into a block of its own: a 2-D
/// f32 transposed convolution of batch 1 whose kernel equals its strides,
/// without padding, output padding, dilation or groups, with constant
/// weights and bias (a UNet's upsampling). hetc-hgraph-decompose leaves it
/// whole, and hetc-convert-hgraph-to-htile lowers it as one matrix product
/// and one move (compiler/passes/HGraphToHTile/ConvolutionPatterns.cpp).
bool isBlockSpreading(hgraph::ConvTransposeOp op);

} // namespace hetc

#endif // HETC_COMPILER_PASSES_DECOMPOSEPATTERNS_H
