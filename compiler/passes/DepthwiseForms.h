//===- DepthwiseForms.h - How a depthwise convolution lowers ----*- C++ -*-===//
//
// The choices the hgraph-to-htile lowering makes for a channels-first
// depthwise convolution, shared with hetc-hgraph-channels-last, which
// weighs that lowering against the channels-last one: whether it runs on
// the vector unit (its per-kernel-element scale columns fit) and whether
// it is taken separably (a move per kernel column, then per kernel row)
// or per kernel element.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_PASSES_DEPTHWISEFORMS_H
#define HETC_COMPILER_PASSES_DEPTHWISEFORMS_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace hetc::depthwise {

/// Whether a depthwise convolution runs on the vector unit: its scale
/// columns (a [C, 1] constant per kernel element, a vector per channel,
/// for the whole program) take no more SRAM than one of its result's
/// `resultVectors` or a thirty-second of the chip's `sramVectors`. The
/// vector path moves each window element once per kernel column and row
/// (separably) where the matrix path gathers every window whole: 144
/// channels of 56 x 56 to 28 x 28, 5 x 5, took 24,277 cycles on tsp-v1 by
/// the matrix path and 15,670 on the vector unit, with 3,600 vectors of
/// columns.
inline bool onVectorUnit(int64_t kernel, int64_t channels,
                         int64_t resultVectors, uint64_t sramVectors) {
  int64_t columns = kernel * channels;
  return columns <= resultVectors || uint64_t(columns) <= sramVectors / 32;
}

/// Whether a depthwise window (`kernel`, `strides` per spatial dimension)
/// is taken separably: 2-D windows of strides up to 2. The moves are
/// switch-bound and the separable form moves fewer, cheaper vectors (its
/// row moves take whole rows) while it scales H_in / H_out times the
/// elements on the vector unit, which has sixteen ALUs to the two switch
/// units. Measured on tsp-v1 between two 1 x 1 convolutions: 144 channels
/// of 56 x 56, 3 x 3, stride 1: 13,300 cycles per element, 11,229
/// separably; stride 2 (28 x 28): 8,563 and 6,344; 5 x 5, stride 2:
/// 23,490 and 15,670; 96 of 112 x 112, stride 2: 21,362 and 17,723.
/// Wider strides (none in the model suite) would scale more elements
/// still, and stay per element.
inline bool separable(llvm::ArrayRef<int64_t> kernel,
                      llvm::ArrayRef<int64_t> strides) {
  return kernel.size() == 2 && strides.size() == 2 && strides[0] <= 2 &&
         strides[1] <= 2;
}

/// Whether a move of kernel element k along one axis (gather::axisTaps
/// with start = k * dilation - pad_begin) copies its input in order, so
/// that it need not be made.
inline bool tapIsIdentity(int64_t inLength, int64_t outLength, int64_t stride,
                          int64_t start) {
  return inLength == outLength && stride == 1 && start == 0;
}

} // namespace hetc::depthwise

#endif // HETC_COMPILER_PASSES_DEPTHWISEFORMS_H
