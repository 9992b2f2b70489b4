//===- PrefillProgram.h - A prompt in one run for `hetc generate` -*- C++ -*-=//
//
// A prefill program runs a prompt of up to L tokens (padded with id 0) at
// once from position 0: token ids [1, L] and logits a row per token. Its
// logits row of the prompt's last token gives the first token, and the
// caches it gives are the decode step's starting caches. It comes in two
// forms:
// - a decode step compiled for a bucket of L tokens: the position its
//   first token sits at, and the same KV caches as the decode step
//   (past* in, present* out);
// - a decoder without a past (Hugging Face's decoder_model.onnx beside
//   decoder_with_past_model.onnx, compiled for L tokens): no cache inputs,
//   an attention_mask [1, L] (the padding 0) and position_ids [1, L] where
//   it takes them, and present* outputs of L positions, which become the
//   first L rows of the decode step's caches;
// - such a decoder compiled into the decode step's artifact (hetc compile
//   STEP --prefill FILE --prefill-buckets L), which takes the caches as the
//   first form does, but each token's position (position_ids) and the
//   mask as the second, and writes its rows of the caches in place.
// Its caches are the decode step's, or one batch slot's of them (first
// dimension 1) when the step decodes several sequences side by side: each
// prompt then runs as its sequence takes a slot, into that slot's rows.
// Padding writes cache rows past the prompt, which the decode steps write
// before they read them (each step's mask hides the positions after it).
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_RUN_PREFILLPROGRAM_H
#define HETC_RUNTIME_RUN_PREFILLPROGRAM_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/io/Tensor.h"
#include "runtime/schema/hetx.pb.h"
#include "runtime/sim/Simulator.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hetc::run {

/// What a prefill program must match of its decode step.
struct DecodeInterface {
  std::string tokenInput, positionInput, logitsOutput;
  /// The vocabulary (the logits' last dimension).
  uint64_t vocab = 0;
  /// (past*, present*) of each cache, with the decode step's bindings of
  /// them.
  std::vector<std::pair<std::string, std::string>> states;
  const hetx::Artifact *decode = nullptr;
};

struct PrefillProgram {
  /// Its file, or for one held in the decode step's artifact, that
  /// artifact's with the bucket.
  std::string path;
  hetx::Artifact artifact;
  sim::LoadedProgram program;
  /// The tokens it takes.
  uint64_t length = 0;
  /// Whether it is a decoder without a past (above).
  bool pastless = false;
  /// Whether it takes the caches and each token's position (position_ids
  /// [1, L], with an attention_mask [1, L] where it takes one): a decoder
  /// without a past compiled into the decode step's artifact, rewritten to
  /// write the caches in place (compiler/frontend/PrefillCaches.h).
  bool positionPerToken = false;
  /// Whether it is held in the decode step's artifact (hetx.proto,
  /// `Artifact.prefills`): compiled into the step's SRAM layout, it runs in
  /// the step's session, on its SRAM, and writes the caches in place.
  bool shared = false;
  /// For a shared one of one sequence for a step of several batch slots:
  /// the slot whose rows of the caches it writes; -1 for all of them.
  int64_t slot = -1;
};

/// Reads and loads `path` for `chip` and checks it against the decode
/// step: the token input holds `length` integers, the logits `length` rows
/// of the vocabulary; with a past, the position holds one integer and its
/// inputs besides are the decode step's caches, with their shapes and
/// types; without one, the positions and the mask hold `length` integers
/// where it takes them, and each present* has the decode step's cache
/// shape but for its `length` positions.
bool loadPrefill(const std::string &path, const chip::ChipSpec &chip,
                 const DecodeInterface &decode, PrefillProgram &prefill,
                 std::string &error);

/// Checks and loads a prefill program held in the decode step's artifact,
/// as loadPrefill() does a file's, and against the step's `session` (the
/// slot it writes); `path` is the artifact's.
bool loadSharedPrefill(const std::string &path, const hetx::Artifact &nested,
                       const chip::ChipSpec &chip,
                       const DecodeInterface &decode,
                       const sim::Session &session, PrefillProgram &prefill,
                       std::string &error);

/// What a prefill run gave: the caches for the decode step (by past*
/// name; one batch slot's when the program's are), the logits of the
/// prompt's last token, the cycles it took.
struct PrefillResult {
  std::map<std::string, io::Tensor> caches;
  std::vector<float> logits;
  uint64_t cycles = 0;
};

/// Runs `prefill` on `prompt` (1 to length tokens) from position 0 with
/// zero caches; `observer`, when given, is told of each instruction (for
/// a trace), as it is by the run below.
bool runPrefill(const PrefillProgram &prefill, const DecodeInterface &decode,
                const std::vector<int64_t> &prompt, PrefillResult &result,
                std::string &error, sim::ExecutionObserver *observer = nullptr);

/// Runs a shared prefill program on `prompt` from position 0 in the decode
/// step's `session`: it writes the prompt's rows of the caches there, in
/// place; `result.caches` stays empty.
bool runSharedPrefill(const PrefillProgram &prefill,
                      const DecodeInterface &decode,
                      const std::vector<int64_t> &prompt, sim::Session &session,
                      PrefillResult &result, std::string &error,
                      sim::ExecutionObserver *observer = nullptr);

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_PREFILLPROGRAM_H
