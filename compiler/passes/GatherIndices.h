//===- GatherIndices.h - Index maps of the data-movement ops ----*- C++ -*-===//
//
// The compile-time index maps that htile.gather takes: for every element of
// an op's result (row-major), the element of its inputs it copies. The
// inputs count as one list (input 0's elements, then input 1's, ...); -1
// stands for a padding element. Plain C++ on shapes, no IR.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_PASSES_GATHERINDICES_H
#define HETC_COMPILER_PASSES_GATHERINDICES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace hetc::gather {

using Shape = llvm::ArrayRef<int64_t>;
using Indices = std::vector<int64_t>;

/// 0, 1, ..., count - 1: the same elements in a new shape (a reshape).
Indices identity(int64_t count);

/// Concatenation of `inputs` along `axis` into `out`.
Indices concat(llvm::ArrayRef<Shape> inputs, int64_t axis, Shape out);

/// out[i] = in[starts + i * steps] in every dimension.
Indices slice(Shape in, llvm::ArrayRef<int64_t> starts,
              llvm::ArrayRef<int64_t> steps, Shape out);

/// out dimension d is in dimension perm[d].
Indices transpose(Shape in, llvm::ArrayRef<int64_t> perm, Shape out);

/// ONNX Pad: `pads` holds the begin counts of each dimension, then the end
/// counts. `mode` is constant, reflect, edge or wrap; in constant mode a
/// padding element is `fill` (-1: zero). nullopt for an unknown mode.
std::optional<Indices> pad(Shape in, llvm::ArrayRef<int64_t> pads,
                           llvm::StringRef mode, int64_t fill, Shape out);

/// ONNX Tile: out[i] = in[i % in.shape] in every dimension.
Indices tile(Shape in, Shape out);

/// ONNX Expand (numpy broadcasting, shapes aligned at the right).
Indices expand(Shape in, Shape out);

/// ONNX Gather: the index along `axis` comes from `indices` (of shape
/// `indicesShape`; negative ones count from the end). nullopt if an index
/// is out of range.
std::optional<Indices> gather(Shape in, llvm::ArrayRef<int64_t> indices,
                              Shape indicesShape, int64_t axis, Shape out);

/// ONNX GatherElements: `indices` has the shape of `out`. nullopt if an
/// index is out of range.
std::optional<Indices> gatherElements(Shape in,
                                      llvm::ArrayRef<int64_t> indices,
                                      int64_t axis, Shape out);

} // namespace hetc::gather

#endif // HETC_COMPILER_PASSES_GATHERINDICES_H
