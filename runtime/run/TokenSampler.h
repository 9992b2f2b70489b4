//===- TokenSampler.h - Picks a token from a row of logits ------*- C++ -*-===//
//
// Greedy (the most likely token, ties to the lower id, as argmax does) or
// seeded sampling from the softmax of the logits divided by a temperature,
// the candidates cut to the top k and then to the top p of the probability
// mass. Each sequence of a generation has a sampler of its own, so its
// tokens do not depend on the sequences decoded beside it.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_RUN_TOKENSAMPLER_H
#define HETC_RUNTIME_RUN_TOKENSAMPLER_H

#include <cstddef>
#include <cstdint>
#include <random>

namespace hetc::run {

/// How the next token is picked.
struct SamplingOptions {
  /// 0 picks the most likely token; above 0 samples from the softmax of
  /// the logits divided by it.
  double temperature = 0.0;
  /// When sampling: keep only the `topK` most likely tokens (0: all), then
  /// the most likely ones whose probabilities sum to `topP`.
  int64_t topK = 0;
  double topP = 1.0;
};

class TokenSampler {
public:
  TokenSampler(const SamplingOptions &options, uint64_t seed)
      : options(options), random(seed) {}

  /// The next token from `count` finite logits (`count` > 0).
  int64_t pick(const float *logits, size_t count);

private:
  SamplingOptions options;
  std::mt19937_64 random;
};

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_TOKENSAMPLER_H
