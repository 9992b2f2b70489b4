//===- PrefillProgram.h - A prompt in one run for `hetc generate` -*- C++ -*-=//
//
// A prefill program is a decode step compiled for a bucket of L tokens:
// token ids [1, L], the position its first token sits at, the same KV
// caches as the decode step (past* in, present* out), and logits a row per
// token. It runs a prompt of up to L tokens (padded with id 0) at once from
// position 0; the caches it gives are the decode step's starting caches,
// and its logits row of the prompt's last token gives the first token.
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
  std::string path;
  hetx::Artifact artifact;
  sim::LoadedProgram program;
  /// The tokens it takes.
  uint64_t length = 0;
};

/// Reads and loads `path` for `chip` and checks it against the decode
/// step: the token input holds `length` integers, the position one, the
/// logits `length` rows of the vocabulary, and its inputs besides are the
/// decode step's caches, with their shapes and types.
bool loadPrefill(const std::string &path, const chip::ChipSpec &chip,
                 const DecodeInterface &decode, PrefillProgram &prefill,
                 std::string &error);

/// What a prefill run gave: the caches for the decode step (by past*
/// name), the logits of the prompt's last token, the cycles it took.
struct PrefillResult {
  std::map<std::string, io::Tensor> caches;
  std::vector<float> logits;
  uint64_t cycles = 0;
};

/// Runs `prefill` on `prompt` (1 to length tokens) from position 0 with
/// zero caches.
bool runPrefill(const PrefillProgram &prefill, const DecodeInterface &decode,
                const std::vector<int64_t> &prompt, PrefillResult &result,
                std::string &error);

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_PREFILLPROGRAM_H
