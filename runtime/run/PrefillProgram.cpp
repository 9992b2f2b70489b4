//===- PrefillProgram.cpp - A prompt in one run for `hetc generate` ----===//

#include "runtime/run/PrefillProgram.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/run/StepBindings.h"
#include "runtime/sim/DataTypes.h"

#include <algorithm>
#include <functional>

namespace hetc::run {

namespace {

using Fail = std::function<bool(const std::string &)>;

bool checkLogits(const hetx::TensorBinding &logits, uint64_t length,
                 uint64_t vocab, const Fail &fail) {
  if (elementsOf(logits) == length * vocab)
    return true;
  return fail("output '" + logits.name() + "' must hold " +
              std::to_string(length) + " rows of the step's " +
              std::to_string(vocab) + " logits, one per token; it has " +
              std::to_string(elementsOf(logits)) + " elements");
}

/// The binding of a decoder without a past that holds the positions: the
/// decode step's position input, or Hugging Face's position_ids.
const hetx::TensorBinding *positionsOf(const hetx::Artifact &a,
                                       const DecodeInterface &decode) {
  const hetx::TensorBinding *b = findBinding(a.inputs(), decode.positionInput);
  return b ? b : findBinding(a.inputs(), "position_ids");
}

/// Checks a decoder without a past (PrefillProgram.h).
bool checkPastless(const hetx::Artifact &a, const DecodeInterface &decode,
                   const hetx::TensorBinding *token,
                   const hetx::TensorBinding *logits, PrefillProgram &prefill,
                   const Fail &fail) {
  if (!token || !logits)
    return fail("it needs the input '" + decode.tokenInput +
                "' and the output '" + decode.logitsOutput +
                "' (its inputs: " + namesOf(a.inputs()) +
                "; its outputs: " + namesOf(a.outputs()) + ")");
  prefill.length = elementsOf(*token);
  if (!isIntegerBinding(*token) || prefill.length == 0)
    return fail("input '" + token->name() +
                "' must hold the bucket's token ids ([1, L])");
  if (!checkLogits(*logits, prefill.length, decode.vocab, fail))
    return false;
  const hetx::TensorBinding *positions = positionsOf(a, decode);
  const hetx::TensorBinding *mask = findBinding(a.inputs(), "attention_mask");
  for (const hetx::TensorBinding &input : a.inputs()) {
    if (&input == token)
      continue;
    if (&input != positions && &input != mask)
      return fail("input '" + input.name() +
                  "' is none of the token ids, the positions, the "
                  "attention_mask and the decode step's caches");
    if (!isIntegerBinding(input) || elementsOf(input) != prefill.length)
      return fail("input '" + input.name() + "' must hold " +
                  std::to_string(prefill.length) + " integers, one per token");
  }
  for (const auto &[past, present] : decode.states) {
    const hetx::TensorBinding *want =
        findBinding(decode.decode->inputs(), past);
    const hetx::TensorBinding *out = findBinding(a.outputs(), present);
    int rank = want->shape_size();
    bool fits = out && out->dtype() == want->dtype() &&
                out->shape_size() == rank && rank >= 2 &&
                uint64_t(out->shape(rank - 2)) == prefill.length &&
                prefill.length <= uint64_t(want->shape(rank - 2));
    for (int d = 0; fits && d < rank; ++d)
      fits = d == rank - 2 || out->shape(d) == want->shape(d) ||
             (d == 0 && out->shape(0) == 1);
    if (!fits)
      return fail("without a past, it must give '" + present +
                  "' of the decode step's cache shape (or one batch slot's) "
                  "but for " +
                  std::to_string(prefill.length) +
                  " positions (its second-to-last dimension)");
  }
  return true;
}

/// Whether a prefill's cache binding `b` has the decode step's cache shape
/// `want`, or one batch slot's (its first dimension 1), and its type.
bool slotShaped(const hetx::TensorBinding &b, const hetx::TensorBinding &want) {
  if (b.dtype() != want.dtype() || b.shape_size() != want.shape_size())
    return false;
  for (int d = 0; d < b.shape_size(); ++d)
    if (b.shape(d) != want.shape(d) && !(d == 0 && b.shape(0) == 1))
      return false;
  return true;
}

/// The first rows of a cache of the decode step's shape, `want` (one batch
/// slot's, when `present` is), from a pastless prefill's present of L
/// positions; the rest zero.
io::Tensor widened(const io::Tensor &present, const hetx::TensorBinding &want) {
  hetx::TensorBinding slot = want;
  slot.set_shape(0, present.shape.empty() ? 1 : present.shape[0]);
  io::Tensor cache = zerosLike(slot);
  size_t rank = cache.shape.size();
  uint64_t length = uint64_t(cache.shape[rank - 2]),
           used = uint64_t(present.shape[rank - 2]),
           row = uint64_t(cache.shape[rank - 1]);
  uint64_t blocks = used && row ? present.data.size() / (used * row) : 0;
  for (uint64_t b = 0; b < blocks; ++b)
    std::copy_n(present.data.begin() + long(b * used * row), used * row,
                cache.data.begin() + long(b * length * row));
  return cache;
}

} // namespace

namespace {

/// Checks and loads `prefill.artifact` (loadPrefill()).
bool checkPrefill(const chip::ChipSpec &chip, const DecodeInterface &decode,
                  PrefillProgram &prefill, std::string &error) {
  if (!artifact::checkChipMatch(prefill.artifact, chip, error))
    return false;
  const hetx::Artifact &a = prefill.artifact;
  auto fail = [&](const std::string &why) {
    error = prefill.path + ": not a prefill program of the decode step: " + why;
    return false;
  };
  const hetx::TensorBinding *token = findBinding(a.inputs(), decode.tokenInput);
  const hetx::TensorBinding *logits =
      findBinding(a.outputs(), decode.logitsOutput);
  prefill.pastless = std::none_of(
      decode.states.begin(), decode.states.end(),
      [&](const auto &state) { return findBinding(a.inputs(), state.first); });
  if (prefill.pastless)
    return checkPastless(a, decode, token, logits, prefill, fail) &&
           sim::load(a, chip, prefill.program, error);
  // The first token's position, or (a decoder without a past rewritten
  // to write the caches, PrefillCaches.h) each token's, with the mask.
  const hetx::TensorBinding *position =
      findBinding(a.inputs(), decode.positionInput);
  const hetx::TensorBinding *mask = nullptr;
  if (!position) {
    position = findBinding(a.inputs(), "position_ids");
    mask = findBinding(a.inputs(), "attention_mask");
    prefill.positionPerToken = position != nullptr;
  }
  if (!token || !position || !logits)
    return fail("it needs the inputs '" + decode.tokenInput + "' and '" +
                decode.positionInput + "' (or position_ids) and the output '" +
                decode.logitsOutput + "' (its inputs: " + namesOf(a.inputs()) +
                "; its outputs: " + namesOf(a.outputs()) + ")");
  prefill.length = elementsOf(*token);
  uint64_t positions = prefill.positionPerToken ? prefill.length : 1;
  if (!isIntegerBinding(*token) || prefill.length == 0 ||
      !isIntegerBinding(*position) || elementsOf(*position) != positions)
    return fail("input '" + token->name() +
                "' must hold the bucket's token ids ([1, L]) and '" +
                position->name() +
                (prefill.positionPerToken
                     ? "' each token's position ([1, L])"
                     : "' one integer, the first token's position"));
  if (mask && (!isIntegerBinding(*mask) || elementsOf(*mask) != positions))
    return fail("input '" + mask->name() +
                "' must hold one integer per token ([1, L])");
  if (!checkLogits(*logits, prefill.length, decode.vocab, fail))
    return false;
  for (const hetx::TensorBinding &input : a.inputs()) {
    if (&input == token || &input == position || &input == mask)
      continue;
    auto state = std::find_if(
        decode.states.begin(), decode.states.end(),
        [&](const auto &pair) { return pair.first == input.name(); });
    if (state == decode.states.end())
      return fail("input '" + input.name() +
                  "' is not one of the decode step's caches");
  }
  for (const auto &[past, present] : decode.states) {
    const hetx::TensorBinding *want =
        findBinding(decode.decode->inputs(), past);
    const hetx::TensorBinding *in = findBinding(a.inputs(), past);
    const hetx::TensorBinding *out = findBinding(a.outputs(), present);
    for (const hetx::TensorBinding *b : {in, out})
      if (!b || !slotShaped(*b, *want))
        return fail("it must take the cache '" + past + "' and give '" +
                    present +
                    "' with the decode step's shape (or one batch slot's) "
                    "and type");
  }
  return sim::load(a, chip, prefill.program, error);
}

/// The inputs of a run of `prefill` on `prompt` from position 0, the
/// caches zero unless `shared` (then the session holds them).
std::map<std::string, io::Tensor>
prefillInputs(const PrefillProgram &prefill, const DecodeInterface &decode,
              const std::vector<int64_t> &prompt) {
  const hetx::Artifact &a = prefill.artifact;
  std::map<std::string, io::Tensor> inputs;
  std::vector<int64_t> ids(prompt);
  ids.resize(prefill.length, 0);
  inputs[decode.tokenInput] =
      intTensor(*findBinding(a.inputs(), decode.tokenInput), ids);
  if (prefill.pastless || prefill.positionPerToken) {
    // Each token's position, and the padding masked out. Padding writes
    // cache rows past the prompt, which the decode steps write before
    // they read them.
    std::vector<int64_t> at(prefill.length), ones(prefill.length, 0);
    for (uint64_t i = 0; i < prefill.length; ++i) {
      at[i] = int64_t(i);
      ones[i] = i < prompt.size() ? 1 : 0;
    }
    if (const hetx::TensorBinding *positions = positionsOf(a, decode))
      inputs[positions->name()] = intTensor(*positions, at);
    if (const hetx::TensorBinding *mask =
            findBinding(a.inputs(), "attention_mask"))
      inputs[mask->name()] = intTensor(*mask, ones);
  } else {
    inputs[decode.positionInput] =
        intTensor(*findBinding(a.inputs(), decode.positionInput), {0});
  }
  if (prefill.pastless)
    return inputs;
  if (!prefill.shared)
    for (const auto &[past, present] : decode.states)
      inputs[past] = zerosLike(*findBinding(a.inputs(), past));
  return inputs;
}

/// The logits row of the prompt's last token, from a prefill's logits.
void takeLogits(const io::Tensor &logits, const DecodeInterface &decode,
                size_t promptLength, PrefillResult &result) {
  size_t row = (promptLength - 1) * decode.vocab;
  result.logits.assign(logits.data.begin() + long(row),
                       logits.data.begin() + long(row + decode.vocab));
}

} // namespace

bool loadPrefill(const std::string &path, const chip::ChipSpec &chip,
                 const DecodeInterface &decode, PrefillProgram &prefill,
                 std::string &error) {
  prefill.path = path;
  return artifact::readFile(path, prefill.artifact, error) &&
         checkPrefill(chip, decode, prefill, error);
}

bool loadSharedPrefill(const std::string &path, const hetx::Artifact &nested,
                       const chip::ChipSpec &chip,
                       const DecodeInterface &decode,
                       const sim::Session &session, PrefillProgram &prefill,
                       std::string &error) {
  prefill.artifact = nested;
  prefill.shared = true;
  const hetx::TensorBinding *token =
      findBinding(nested.inputs(), decode.tokenInput);
  prefill.path = path + " (its prefill of " +
                 std::to_string(token ? elementsOf(*token) : 0) + " tokens)";
  if (nested.prefills_size() > 0 || nested.has_kernel_plan()) {
    error = prefill.path + ": a prefill program holds neither prefill "
                           "programs nor a kernel plan of its own";
    return false;
  }
  if (!checkPrefill(chip, decode, prefill, error))
    return false;
  if (prefill.pastless) {
    error = prefill.path + ": a prefill program held in the decode step's "
                           "artifact takes the step's caches";
    return false;
  }
  if (!session.companionSlot(prefill.program, prefill.slot, error)) {
    error = prefill.path + ": " + error;
    return false;
  }
  if (prefill.slot >= 0)
    prefill.path.insert(prefill.path.size() - 1,
                        " into slot " + std::to_string(prefill.slot));
  return true;
}

bool runSharedPrefill(const PrefillProgram &prefill,
                      const DecodeInterface &decode,
                      const std::vector<int64_t> &prompt, sim::Session &session,
                      PrefillResult &result, std::string &error,
                      sim::ExecutionObserver *observer) {
  sim::SimResult simulated;
  if (!session.runCompanion(prefill.program,
                            prefillInputs(prefill, decode, prompt), simulated,
                            error, observer)) {
    error = prefill.path + ": the prefill run failed: " + error;
    return false;
  }
  result.cycles = simulated.stats.cycles;
  for (const sim::NamedTensor &output : simulated.outputs)
    if (output.name == decode.logitsOutput)
      takeLogits(output.tensor, decode, prompt.size(), result);
  if (result.logits.size() != decode.vocab) {
    error = prefill.path + ": the prefill run gave no logits";
    return false;
  }
  return true;
}

bool runPrefill(const PrefillProgram &prefill, const DecodeInterface &decode,
                const std::vector<int64_t> &prompt, PrefillResult &result,
                std::string &error, sim::ExecutionObserver *observer) {
  std::map<std::string, io::Tensor> inputs =
      prefillInputs(prefill, decode, prompt);
  sim::SimOptions options;
  options.observer = observer;
  sim::SimResult simulated;
  if (!sim::run(prefill.program, inputs, options, simulated, error)) {
    error = prefill.path + ": the prefill run failed: " + error;
    return false;
  }
  result.cycles = simulated.stats.cycles;
  for (sim::NamedTensor &output : simulated.outputs) {
    if (output.name == decode.logitsOutput) {
      takeLogits(output.tensor, decode, prompt.size(), result);
      continue;
    }
    for (const auto &[past, present] : decode.states)
      if (output.name == present)
        result.caches[past] =
            prefill.pastless
                ? widened(output.tensor,
                          *findBinding(decode.decode->inputs(), past))
                : std::move(output.tensor);
  }
  if (result.logits.size() != decode.vocab ||
      result.caches.size() != decode.states.size()) {
    error = prefill.path + ": the prefill run gave no logits or caches";
    return false;
  }
  return true;
}

} // namespace hetc::run
