//===- PrefillCaches.h - A prefill without a past, writing the caches -*- C++
//-*-===//
//
// A decoder exported without a past (Hugging Face's `decoder_model.onnx`
// beside `decoder_with_past_model.onnx`) runs a prompt of L tokens at once
// and gives each layer's keys and values as `present*` outputs of L
// positions. Compiled on its own, those outputs must be copied into the
// decode step's caches (a hand-over). Compiled as a prefill program of the
// step (`hetc compile STEP --prefill FILE`), it is rewritten here so that
// it writes the step's caches itself, in place: each `present*` becomes a
// write of its L rows into the step's cache of the same output name (an
// input of the cache's name and shape), at the positions its
// `position_ids` input gives, as the step writes a token's row at its
// position. The graph's own readers of the keys and values still read the
// L new rows; only the graph output changes.
//
// A prefill program takes one sequence; one of a bucket of L tokens is
// the graph with its token input's sequence dimension pinned to L
// (pinPrefillDims).
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_FRONTEND_PREFILLCACHES_H
#define HETC_COMPILER_FRONTEND_PREFILLCACHES_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace hetc::frontend {

/// A KV cache of a decode step, as a prefill program without a past
/// writes it.
struct PrefillCache {
  /// The output of the prefill graph (and of the step) that gives it.
  std::string present;
  /// The step's cache input, which the prefill takes and updates in place.
  std::string past;
  /// The cache's shape, [batch, heads, positions, head size], and its
  /// element type.
  std::vector<int64_t> shape;
  enum class Element { F32, F16, BF16 } element = Element::F32;
};

/// Whether `model` is a prefill without a past for `caches`: it takes none
/// of their inputs and gives at least one of their outputs.
bool isPastless(const onnx::ModelProto &model,
                const std::vector<PrefillCache> &caches);

/// Rewrites a pastless `model` (isPastless) to write `caches` in place, as
/// described above. Returns false with `error` naming what the graph lacks
/// (a position_ids input [batch, sequence], a cache output of rank 4, an
/// opset with ScatterElements).
bool writeCachesInPlace(onnx::ModelProto &model,
                        const std::vector<PrefillCache> &caches,
                        std::string &error);

/// Adds to `dims` what makes `model` a prefill program of one sequence and
/// `tokens` tokens: the symbolic dimensions of its `input_ids` input
/// [batch, sequence], the batch set to 1 and, when `tokens` is above 0,
/// the sequence to `tokens`. Returns false with `error` set when `tokens`
/// is given and the model has no such input, or its sequence dimension is
/// fixed at another length.
bool pinPrefillDims(const onnx::ModelProto &model, int64_t tokens,
                    std::map<std::string, int64_t> &dims, std::string &error);

} // namespace hetc::frontend

#endif // HETC_COMPILER_FRONTEND_PREFILLCACHES_H
