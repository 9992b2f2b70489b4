//===- PrefillProgram.cpp - A prompt in one run for `hetc generate` ----===//

#include "runtime/run/PrefillProgram.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/run/StepBindings.h"
#include "runtime/sim/DataTypes.h"

#include <algorithm>

namespace hetc::run {

bool loadPrefill(const std::string &path, const chip::ChipSpec &chip,
                 const DecodeInterface &decode, PrefillProgram &prefill,
                 std::string &error) {
  prefill.path = path;
  if (!artifact::readFile(path, prefill.artifact, error) ||
      !artifact::checkChipMatch(prefill.artifact, chip, error))
    return false;
  const hetx::Artifact &a = prefill.artifact;
  auto fail = [&](const std::string &why) {
    error = path + ": not a prefill program of the decode step: " + why;
    return false;
  };
  const hetx::TensorBinding *token = findBinding(a.inputs(), decode.tokenInput);
  const hetx::TensorBinding *position =
      findBinding(a.inputs(), decode.positionInput);
  const hetx::TensorBinding *logits =
      findBinding(a.outputs(), decode.logitsOutput);
  if (!token || !position || !logits)
    return fail("it needs the inputs '" + decode.tokenInput + "' and '" +
                decode.positionInput + "' and the output '" +
                decode.logitsOutput + "' (its inputs: " + namesOf(a.inputs()) +
                "; its outputs: " + namesOf(a.outputs()) + ")");
  prefill.length = elementsOf(*token);
  if (!isIntegerBinding(*token) || prefill.length == 0 ||
      !isIntegerBinding(*position) || elementsOf(*position) != 1)
    return fail("input '" + token->name() +
                "' must hold the bucket's token ids ([1, L]) and '" +
                position->name() + "' one integer, the first token's position");
  if (elementsOf(*logits) != prefill.length * decode.vocab)
    return fail("output '" + logits->name() + "' must hold " +
                std::to_string(prefill.length) + " rows of the step's " +
                std::to_string(decode.vocab) +
                " logits, one per token; it has " +
                std::to_string(elementsOf(*logits)) + " elements");
  for (const hetx::TensorBinding &input : a.inputs()) {
    if (&input == token || &input == position)
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
      if (!b ||
          !std::equal(b->shape().begin(), b->shape().end(),
                      want->shape().begin(), want->shape().end()) ||
          b->dtype() != want->dtype())
        return fail("it must take the cache '" + past + "' and give '" +
                    present + "' with the decode step's shape and type");
  }
  return sim::load(a, chip, prefill.program, error);
}

bool runPrefill(const PrefillProgram &prefill, const DecodeInterface &decode,
                const std::vector<int64_t> &prompt, PrefillResult &result,
                std::string &error) {
  const hetx::Artifact &a = prefill.artifact;
  std::map<std::string, io::Tensor> inputs;
  std::vector<int64_t> ids(prompt);
  ids.resize(prefill.length, 0);
  inputs[decode.tokenInput] =
      intTensor(*findBinding(a.inputs(), decode.tokenInput), ids);
  inputs[decode.positionInput] =
      intTensor(*findBinding(a.inputs(), decode.positionInput), {0});
  for (const auto &[past, present] : decode.states)
    inputs[past] = zerosLike(*findBinding(a.inputs(), past));
  sim::SimResult simulated;
  if (!sim::run(prefill.program, inputs, sim::SimOptions(), simulated, error)) {
    error = prefill.path + ": the prefill run failed: " + error;
    return false;
  }
  result.cycles = simulated.stats.cycles;
  for (sim::NamedTensor &output : simulated.outputs) {
    if (output.name == decode.logitsOutput) {
      size_t row = (prompt.size() - 1) * decode.vocab;
      result.logits.assign(output.tensor.data.begin() + long(row),
                           output.tensor.data.begin() +
                               long(row + decode.vocab));
      continue;
    }
    for (const auto &[past, present] : decode.states)
      if (output.name == present)
        result.caches[past] = std::move(output.tensor);
  }
  if (result.logits.size() != decode.vocab ||
      result.caches.size() != decode.states.size()) {
    error = prefill.path + ": the prefill run gave no logits or caches";
    return false;
  }
  return true;
}

} // namespace hetc::run
