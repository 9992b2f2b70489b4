//===- DecomposePatterns.h - Pattern groups of hgraph-decompose -*- C++ -*-===//
#ifndef HETC_COMPILER_PASSES_DECOMPOSEPATTERNS_H
#define HETC_COMPILER_PASSES_DECOMPOSEPATTERNS_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace hetc {

/// `hgraph.pointwise` as the elementwise ops the chip runs.
void populateDecomposePointwisePatterns(mlir::RewritePatternSet &patterns);

} // namespace hetc

#endif // HETC_COMPILER_PASSES_DECOMPOSEPATTERNS_H
