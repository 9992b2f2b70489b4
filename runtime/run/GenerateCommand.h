//===- GenerateCommand.h - The `hetc generate` command ----------*- C++ -*-===//
//
// Runs a compiled decode-step program token by token: the prompt's tokens
// one position at a time, then each token it picks from the logits
// (greedily, or sampled with a seed), the KV-cache outputs (`present*`)
// fed to the next step as its `past*` inputs. A step of B batch slots
// (token and position inputs of B elements) decodes B sequences together,
// each at its own position; a sequence that ends frees its slot for the
// next one waiting, the other slots going on untouched. It prints the
// tokens as they come and the time to first token and inter-token
// latency, predicted at compile time and simulated, which must agree.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_RUN_GENERATECOMMAND_H
#define HETC_RUNTIME_RUN_GENERATECOMMAND_H

#include "runtime/run/TokenSampler.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace hetc::run {

/// What `hetc generate` was asked to do.
struct GenerateOptions {
  /// The .hetx file of one decode step.
  std::string artifactPath;
  /// The chip file; empty means the bundled file named after the chip.
  std::string chipPath;
  /// The prompts' token ids: one sequence each, at least one token each.
  std::vector<std::vector<int64_t>> prompts;
  /// Or the prompts' text, encoded with the SentencePiece model
  /// `tokenizer` (its beginning-of-sequence id first unless `noBos`); the
  /// tokens generated are decoded with it too, and its end-of-sequence id
  /// stops a sequence.
  std::vector<std::string> promptTexts;
  std::string tokenizer;
  bool noBos = false;
  /// Tokens to generate at most.
  int64_t maxNewTokens = 16;
  /// Token ids that end the generation once generated (printed too).
  std::vector<int64_t> stopIds;
  /// How tokens are picked; sequence i samples with seed `seed + i`.
  SamplingOptions sampling;
  uint64_t seed = 0;
  /// Names of the token-id input, the position input and the logits
  /// output of the step.
  std::string tokenInput = "input_ids";
  std::string positionInput = "position";
  std::string logitsOutput = "logits";
  /// "chip" (the chip model, caches resident on the chip), "cpu" (the
  /// kernel plan on the host, caches in host memory) or "cuda" (the kernel
  /// plan on a GPU).
  std::string backend = "chip";
  /// "cpu" or "cuda": the prompt's steps run there, then the caches move
  /// to the chip, which runs the rest (one sequence); empty: every step on
  /// `backend`.
  std::string prefillBackend;
  /// "cpu" or "cuda": a step that fails on the chip, and every step after
  /// it, runs there, after rebuilding the caches by replaying the steps so
  /// far. With prefillBackend, the same backend.
  std::string fallback;
  /// Prefill programs (.hetx of the step compiled for a bucket of L
  /// tokens): the prompt runs in the smallest bucket that holds it, in one
  /// run, and its caches move to the decode step (one sequence, on the
  /// chip).
  std::vector<std::string> prefillPaths;
  /// A Chrome trace-event JSON file of the steps run on the chip, one
  /// after another on one timeline (empty: none).
  std::string tracePath;
  /// Testing: the chip step of this index (from 0) fails (-1: none).
  int64_t injectFaultStep = -1;
};

/// Runs `options`, printing tokens and timings to `out` and any error to
/// `err`. Returns 0 on success and 1 on any error, including a step whose
/// simulated cycles differ from the artifact's prediction.
int generateCommand(const GenerateOptions &options, std::ostream &out,
                    std::ostream &err);

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_GENERATECOMMAND_H
