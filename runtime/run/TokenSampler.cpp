//===- TokenSampler.cpp - Picks a token from a row of logits -----------===//

#include "runtime/run/TokenSampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace hetc::run {

int64_t TokenSampler::pick(const float *logits, size_t count) {
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  // Most likely first; ties to the lower id, as argmax does.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return logits[a] > logits[b]; });
  if (options.temperature == 0.0)
    return int64_t(order.front());
  size_t keep =
      options.topK > 0 ? std::min(count, size_t(options.topK)) : count;
  std::vector<double> p(keep);
  double sum = 0.0;
  for (size_t i = 0; i < keep; ++i)
    sum += p[i] = std::exp(double(logits[order[i]] - logits[order[0]]) /
                           options.temperature);
  double mass = 0.0;
  size_t kept = 0;
  while (kept < keep && (kept == 0 || mass < options.topP * sum))
    mass += p[kept++];
  std::uniform_real_distribution<double> uniform(0.0, mass);
  double draw = uniform(random);
  for (size_t i = 0; i + 1 < kept; ++i) {
    draw -= p[i];
    if (draw < 0.0)
      return int64_t(order[i]);
  }
  return int64_t(order[kept - 1]);
}

} // namespace hetc::run
