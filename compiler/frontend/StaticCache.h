//===- StaticCache.h - A growing KV cache made static -----------*- C++ -*-===//
//
// Decoders exported with a growing cache (Hugging Face's
// `decoder_with_past_model.onnx`, torch's tuple of past key/values) take
// each layer's cache `past_*` of a dynamic length P and give `present_*`
// of P + 1, the new key concatenated after the past. One program of that
// graph serves one P. `--max-context N` rewrites it into a decode step
// that serves every position, as a static cache does: each cache becomes
// N positions long, and the Concat becomes a write of the new key at the
// sequence's position, the count of ones in its `attention_mask` minus one
// (the mask, N long, marks the positions written so far and the new one).
// The present output then has the past's shape and is written in place,
// so the cache stays on the chip from step to step. Attention over the N
// positions, with the mask hiding those not yet written, is attention over
// the grown cache of the original graph: the keys are the same set.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_FRONTEND_STATICCACHE_H
#define HETC_COMPILER_FRONTEND_STATICCACHE_H

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>

namespace hetc::frontend {

/// Rewrites `model`'s growing caches into static caches of `maxContext`
/// positions (see above): every graph input `past*` or
/// `past_key_values*` of rank 4 that a Concat along axis 2 joins with the
/// new key. Needs an `attention_mask` input [batch, P + 1] and token ids of
/// one token per sequence. Returns false with `error` set when the graph
/// is not of that form; what is wrong is named.
bool makeCacheStatic(onnx::ModelProto &model, int64_t maxContext,
                     std::string &error);

/// Adds to `dims` what makes `model` a decode step of `batch` sequences
/// (0: one, unless `dims` names its batch dimension already) of one token
/// each: the symbolic dimensions of its `input_ids` input [batch,
/// sequence], the batch set to `batch` and the sequence to 1 unless
/// `dims` names it. Returns false with `error` set when `batch` is given
/// and the model has no such input, or its batch is fixed at another size.
bool pinDecodeStepDims(const onnx::ModelProto &model, int64_t batch,
                       std::map<std::string, int64_t> &dims,
                       std::string &error);

} // namespace hetc::frontend

#endif // HETC_COMPILER_FRONTEND_STATICCACHE_H
