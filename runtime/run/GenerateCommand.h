//===- GenerateCommand.h - The `hetc generate` command ----------*- C++ -*-===//
//
// Runs a compiled decode-step program token by token: the prompt's tokens
// one position at a time, then each token it picks from the logits
// (greedily, or sampled with a seed), the KV-cache outputs (`present*`)
// fed to the next step as its `past*` inputs. It prints the tokens as they
// come and the time to first token and inter-token latency, predicted at
// compile time and simulated, which must agree.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_RUN_GENERATECOMMAND_H
#define HETC_RUNTIME_RUN_GENERATECOMMAND_H

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
  /// The prompt's token ids; at least one.
  std::vector<int64_t> promptIds;
  /// Tokens to generate at most.
  int64_t maxNewTokens = 16;
  /// Token ids that end the generation once generated (printed too).
  std::vector<int64_t> stopIds;
  /// 0 picks the most likely token; above 0 samples from the softmax of
  /// the logits divided by it.
  double temperature = 0.0;
  /// When sampling: keep only the `topK` most likely tokens (0: all), then
  /// the most likely ones whose probabilities sum to `topP`.
  int64_t topK = 0;
  double topP = 1.0;
  /// Seed of the sampler.
  uint64_t seed = 0;
  /// Names of the token-id input, the position input and the logits
  /// output of the step.
  std::string tokenInput = "input_ids";
  std::string positionInput = "position";
  std::string logitsOutput = "logits";
  /// "chip" (the chip model, caches resident on the chip) or "cpu" (the
  /// kernel plan on the host, caches in host memory).
  std::string backend = "chip";
  /// "cpu": the prompt's steps run on the CPU, then the caches move to the
  /// chip, which runs the rest; empty: every step on `backend`.
  std::string prefillBackend;
  /// "cpu": a step that fails on the chip, and every step after it, runs
  /// on the CPU, which first rebuilds the caches from the tokens so far.
  std::string fallback;
  /// Testing: the chip step at this position fails (-1: none).
  int64_t injectFaultStep = -1;
};

/// Runs `options`, printing tokens and timings to `out` and any error to
/// `err`. Returns 0 on success and 1 on any error, including a step whose
/// simulated cycles differ from the artifact's prediction.
int generateCommand(const GenerateOptions &options, std::ostream &out,
                    std::ostream &err);

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_GENERATECOMMAND_H
