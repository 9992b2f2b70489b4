//===- GenerateCommand.cpp - The `hetc generate` command ---------------===//

#include "runtime/run/GenerateCommand.h"

#include "runtime/run/PlanBackend.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/io/SafeWrite.h"
#include "runtime/run/PrefillProgram.h"
#include "runtime/run/RunCommand.h"
#include "runtime/run/RunSummary.h"
#include "runtime/run/StepBindings.h"
#include "runtime/run/Tokenizer.h"
#include "runtime/run/TraceWriter.h"
#include "runtime/sim/DataTypes.h"
#include "runtime/sim/Simulator.h"
#include "runtime/sim/Sram.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <map>
#include <numeric>
#include <sstream>
#include <unistd.h>

namespace hetc::run {

namespace {

/// The most instructions a trace keeps (a chip step of a real decoder runs
/// 10^5 or more; the JSON takes about 250 bytes each).
constexpr size_t kMaxTraceEvents = 2'000'000;

/// What one step gave: its outputs, and its cycles on the chip model or
/// its time on the backend that runs the kernel plan (CPU or GPU).
struct StepResult {
  std::vector<sim::NamedTensor> outputs;
  uint64_t cycles = 0;
  double seconds = 0;
};

/// What one step was fed: a token and a position for each batch slot.
struct StepFeed {
  std::vector<int64_t> tokens, positions;
};

/// One sequence of the generation: its prompt, the tokens picked for it,
/// the slot it decodes in and the steps it spans.
struct Sequence {
  std::vector<int64_t> prompt;
  TokenSampler sampler;
  std::vector<int64_t> tokens;
  int64_t slot = -1;
  /// The step that fed its first prompt token, the one that gave its
  /// first token and the one that gave its last (-1: not yet). A prompt
  /// run by a prefill program gives its first token before step
  /// `entered`, the first the sequence decodes in.
  int64_t entered = -1, firstToken = -1, finished = -1;
  /// A prompt run by a prefill program: the bucket, and the cycles of the
  /// prefill and of the hand-over of its cache rows to the decode step.
  const PrefillProgram *bucket = nullptr;
  uint64_t prefillCycles = 0, handOverCycles = 0;
};

/// A batch slot: the sequence it decodes (-1: idle), the position it feeds
/// next and the token it feeds there once the prompt is done.
struct Slot {
  int64_t sequence = -1;
  int64_t position = 0;
  int64_t next = 0;
};

/// Runs one generation; every step returns false with `error` set.
class Generator {
public:
  Generator(const GenerateOptions &options, std::ostream &out)
      : options(options), out(out) {}

  /// Generates, then writes the trace of the steps run on the chip, even
  /// when a step failed (the run's error comes first).
  bool run(std::string &error) {
    bool ok = generate(error);
    std::string traceError;
    if (!options.tracePath.empty() && ready && !writeTrace(traceError) && ok) {
      error = traceError;
      ok = false;
    }
    return ok;
  }

private:
  bool generate(std::string &error) {
    if (!checkOptions(error) || !checkTracePath(error) || !readPrompts(error) ||
        !artifact::readFile(options.artifactPath, artifact, error,
                            isPlanBackend(options.backend)
                                ? artifact::Sections::WithoutInstructions
                                : artifact::Sections::All) ||
        !loadChipFor(artifact, options.artifactPath, options.chipPath, chip,
                     chipPath, error) ||
        !artifact::checkChipMatch(artifact, chip, error) ||
        !findBindings(error) || !checkVocabulary(error) || !checkContext(error))
      return false;
    // The backend that runs the kernel plan, where one does: the whole
    // session, the prompt's steps, or the steps after a chip failure.
    bool allHost = isPlanBackend(options.backend);
    bool prefillHost = !options.prefillBackend.empty();
    bool fallback = !options.fallback.empty();
    std::string hostName = allHost       ? options.backend
                           : prefillHost ? options.prefillBackend
                                         : options.fallback;
    if (!hostName.empty() &&
        (!(host = PlanBackend::load(hostName, artifact, chip, error)) ||
         !host->carry(states, error)))
      return false;
    if (!allHost && !sim::load(artifact, chip, program, error))
      return false;
    if (!allHost)
      session = std::make_unique<sim::Session>(program);
    if (!loadPrefills(error))
      return false;
    // A cache the step updates in place stays on the chip from step to
    // step (the session's resident inputs); any other goes through the
    // host, from the step's output to the next step's input. On the CPU or
    // the GPU every cache is in that backend's memory between steps.
    size_t onChip = 0;
    if (!allHost) {
      for (const auto &[past, present] : states)
        if (session->isResident(past)) {
          // After a prefill on the CPU, the GPU or by a prefill program, the
          // first step on the chip takes the caches it left as the resident
          // inputs' values.
          if (!prefillHost && (buckets.empty() || buckets.front()->shared))
            inputs.erase(past);
          resident.push_back(past);
          ++onChip;
        }
    }
    for (size_t i = 0; i < prompts.size(); ++i)
      sequences.push_back(
          {prompts[i], TokenSampler(options.sampling, options.seed + i)});
    recorder.setLimit(kMaxTraceEvents);
    ready = true;
    printHeader(onChip, allHost, prefillHost);
    if (single())
      out << "tokens:" << std::flush;
    uint64_t predicted = artifact.predicted_cycles();
    size_t waiting = 0; // the next sequence to take a slot
    for (int64_t index = 0;; ++index) {
      // A free slot takes the next sequence waiting; the others go on.
      // With prefill programs, its prompt runs in one first, and the slot
      // decodes from the position after it (unless the prefill's token
      // was its last, and the slot takes the next sequence).
      for (size_t b = 0; b < slots.size() && waiting < sequences.size(); ++b)
        while (slots[b].sequence < 0 && waiting < sequences.size()) {
          size_t next = waiting++;
          sequences[next].slot = int64_t(b);
          sequences[next].entered = index;
          if (buckets.empty()) {
            slots[b] = {int64_t(next), 0, 0};
          } else if (!prefillInto(next, b, index, error)) {
            if (single())
              out << "\n";
            return false;
          }
        }
      StepFeed feed;
      bool active = false;
      for (const Slot &slot : slots) {
        // An idle slot writes its own cache at position 0, which a
        // sequence taking the slot later overwrites before it reads it.
        int64_t id = 0, at = 0;
        if (slot.sequence >= 0) {
          const std::vector<int64_t> &prompt =
              sequences[size_t(slot.sequence)].prompt;
          active = true;
          at = slot.position;
          id = at < int64_t(prompt.size()) ? prompt[size_t(at)] : slot.next;
        }
        feed.tokens.push_back(id);
        feed.positions.push_back(at);
      }
      if (!active)
        break;
      history.push_back(feed);
      bool onHost =
          allHost || fellBack ||
          (prefillHost && index < int64_t(sequences.front().prompt.size()));
      StepResult result;
      // The caches the prompt's steps left on the GPU come to the host for
      // the first step on the chip.
      bool ok = onHost || !prefillHost || handedOver ||
                host->fetchCarried(inputs, error);
      if (ok && !onHost && index == options.injectFaultStep) {
        error = "step " + std::to_string(index) +
                ": injected fault (--inject-fault-at-step)";
        ok = false;
      } else if (ok) {
        ok = step(index, onHost, result, error);
      }
      if (!ok && !onHost && fallback) {
        // The chip failed: the fallback rebuilds the caches by replaying the
        // steps so far, runs this step, and serves the rest.
        fellBack = true;
        fallbackStep = index;
        fallbackNote = "fallback: step " + std::to_string(index) +
                       " failed on the chip (" + error + "); " + host->where() +
                       " rebuilt the caches by replaying the " +
                       std::to_string(index) +
                       " steps before it and served the rest";
        error.clear();
        onHost = true;
        ok = replay(index, error) && step(index, true, result, error);
      }
      if (ok && (prefillHost || !buckets.empty()) && !onHost && !handedOver) {
        // The caches moved to the chip with the first step there; from
        // now on they stay.
        for (const std::string &past : resident)
          inputs.erase(past);
        handedOver = true;
      }
      if (ok && !onHost && result.cycles != predicted) {
        error = "step " + std::to_string(index) + " took " +
                std::to_string(result.cycles) +
                " cycles, but the artifact predicts " +
                std::to_string(predicted);
        ok = false;
      }
      if (ok) {
        cycles.push_back(result.cycles);
        seconds.push_back(result.seconds);
        ok = advance(index, result, error);
      }
      if (!ok) {
        if (single())
          out << "\n"; // ends the line of tokens
        return false;
      }
    }
    if (single()) {
      out << "\n";
      if (!printText(sequences.front(), "text: ", error))
        return false;
    }
    if (!single())
      reportSlots();
    else if (fellBack)
      reportFallback();
    else if (allHost)
      reportHost();
    else if (prefillHost)
      reportPrefill();
    else if (!buckets.empty())
      reportBucket();
    else
      report();
    return true;
  }

  /// Loads the prefill programs, smallest bucket first: those --prefill
  /// names, or else, for a session on the chip alone, those the artifact
  /// holds (which share the step's SRAM and run in its session).
  bool loadPrefills(std::string &error) {
    decodeInterface = {options.tokenInput,
                       options.positionInput,
                       options.logitsOutput,
                       vocab,
                       states,
                       &artifact};
    bool shared = options.prefillPaths.empty() && options.backend == "chip" &&
                  options.prefillBackend.empty() && options.fallback.empty();
    for (int i = 0; shared && i < artifact.prefills_size(); ++i) {
      auto prefill = std::make_unique<PrefillProgram>();
      if (!loadSharedPrefill(options.artifactPath, artifact.prefills(i), chip,
                             decodeInterface, *session, *prefill, error))
        return false;
      if (slots.size() > 1 && prefill->slot < 0) {
        error = prefill->path +
                ": it writes every batch slot's caches at once; a step of " +
                std::to_string(slots.size()) +
                " slots takes its prompts one slot at a time";
        return false;
      }
      if (!addBucket(std::move(prefill), error))
        return false;
    }
    for (const std::string &path : options.prefillPaths) {
      auto prefill = std::make_unique<PrefillProgram>();
      if (!loadPrefill(path, chip, decodeInterface, *prefill, error) ||
          !addBucket(std::move(prefill), error))
        return false;
    }
    std::sort(buckets.begin(), buckets.end(), [](const auto &a, const auto &b) {
      return a->length < b->length;
    });
    return true;
  }

  /// Adds a prefill program unless one of its bucket is there.
  bool addBucket(std::unique_ptr<PrefillProgram> prefill, std::string &error) {
    for (const auto &other : buckets)
      if (other->length == prefill->length && other->slot == prefill->slot) {
        error = prefill->path + " and " + other->path +
                " are both prefill buckets of " +
                std::to_string(prefill->length) + " tokens";
        return false;
      }
    buckets.push_back(std::move(prefill));
    return true;
  }

  /// Runs sequence `i`'s prompt in the smallest bucket that holds it,
  /// hands its caches to batch slot `b` (the slot's rows of each cache,
  /// the other slots untouched), and picks its first token from the
  /// prefill's logits; the slot then decodes from the position after the
  /// prompt. `index` is the step about to run.
  bool prefillInto(size_t i, size_t b, int64_t index, std::string &error) {
    Sequence &sequence = sequences[i];
    const std::vector<int64_t> &prompt = sequence.prompt;
    for (const auto &candidate : buckets)
      if (candidate->length >= prompt.size() &&
          (candidate->slot < 0 || candidate->slot == int64_t(b))) {
        sequence.bucket = candidate.get();
        break;
      }
    if (!sequence.bucket) {
      const PrefillProgram &largest = *buckets.back();
      error = (single() ? std::string("the prompt has ")
                        : "prompt " + std::to_string(i) + " has ") +
              std::to_string(prompt.size()) +
              " tokens, more than the largest prefill bucket (" +
              std::to_string(largest.length) + " tokens, " + largest.path + ")";
      return false;
    }
    const PrefillProgram &used = *sequence.bucket;
    PrefillResult result;
    // On the trace's timeline, the prefill runs where the steps stand.
    bool tracing = !options.tracePath.empty();
    if (tracing) {
      recorder.setOffset(traceCycles);
      recorder.setProgram(traceProgram(used));
    }
    sim::ExecutionObserver *observer = tracing ? &recorder : nullptr;
    bool ran = used.shared ? runSharedPrefill(used, decodeInterface, prompt,
                                              *session, result, error, observer)
                           : runPrefill(used, decodeInterface, prompt, result,
                                        error, observer);
    recorder.setProgram(0);
    if (!ran)
      return false;
    if (result.cycles != used.artifact.predicted_cycles()) {
      error = used.path + ": the prefill took " +
              std::to_string(result.cycles) +
              " cycles, but the artifact predicts " +
              std::to_string(used.artifact.predicted_cycles());
      return false;
    }
    if (std::any_of(result.logits.begin(), result.logits.end(),
                    [](float x) { return !std::isfinite(x); })) {
      error = "the prefill's logits are not all finite; no token can be "
              "picked";
      return false;
    }
    for (auto &[past, cache] : result.caches)
      if (!handToSlot(past, cache, b, error))
        return false;
    // Out of the prefill's SRAM into host memory, then into the decode
    // step's: the prompt's rows of one slot, twice. A shared prefill wrote
    // them where the step reads them.
    sequence.prefillCycles = result.cycles;
    sequence.handOverCycles =
        used.shared ? 0 : 2 * handOver(prompt.size(), 1).second;
    if (tracing) {
      spans.push_back(
          {"prefill " + std::to_string(i), traceCycles, result.cycles,
           "\"sequence\":" + std::to_string(i) +
               ",\"tokens\":" + std::to_string(prompt.size()) + ",\"bucket\":" +
               std::to_string(used.length) + ",\"slot\":" + std::to_string(b)});
      traceCycles += result.cycles;
      ++tracedPrefills;
      if (sequence.handOverCycles) {
        spans.push_back({"hand-over " + std::to_string(i), traceCycles,
                         sequence.handOverCycles,
                         "\"sequence\":" + std::to_string(i)});
        traceCycles += sequence.handOverCycles;
        ++tracedHandOvers;
      }
    }
    int64_t next = sequence.sampler.pick(result.logits.data(), vocab);
    sequence.tokens.push_back(next);
    sequence.firstToken = index;
    if (single())
      out << " " << next << std::flush;
    if (int64_t(sequence.tokens.size()) >= options.maxNewTokens ||
        isStop(next)) {
      // No decode step: the slot is free for the next sequence.
      sequence.finished = index - 1;
      if (!single())
        return printSequence(i, error);
      return true;
    }
    slots[b] = {int64_t(i), int64_t(prompt.size()), next};
    return true;
  }

  /// Writes a prefill's cache `value` (one slot's, or the whole cache's
  /// with one slot) into slot `b` of resident input `past`: into its
  /// starting value before the first chip step, else into the chip's SRAM
  /// between two steps.
  bool handToSlot(const std::string &past, const io::Tensor &value, size_t b,
                  std::string &error) {
    io::Tensor cache;
    if (handedOver) {
      if (!session->fetch(past, cache, error))
        return false;
    } else {
      cache = inputs[past];
    }
    size_t block = cache.data.size() / slots.size();
    if (value.data.size() != block) {
      error = "the prefill's cache '" + past + "' holds " +
              std::to_string(value.data.size()) + " elements, not one slot's " +
              std::to_string(block);
      return false;
    }
    std::copy(value.data.begin(), value.data.end(),
              cache.data.begin() + long(b * block));
    if (!handedOver) {
      inputs[past] = std::move(cache);
      return true;
    }
    return session->store(past, cache, error);
  }

  /// The prompt in a prefill program, the caches moved to the decode step
  /// (or written in place by a prefill over its SRAM layout), then the
  /// decode steps' exact cycles.
  void reportBucket() {
    uint64_t predicted = artifact.predicted_cycles();
    const PrefillProgram *bucket = sequences.front().bucket;
    uint64_t prefillCycles = sequences.front().prefillCycles;
    uint64_t prefillPredicted = bucket->artifact.predicted_cycles();
    out << "generated: " << generatedTokens() << " tokens: 1 from the prefill, "
        << cycles.size() << " in " << cycles.size() << " decode steps\n";
    uint64_t moved = 0;
    if (bucket->shared) {
      out << "prefill: " << bucket->path << " for a prompt of " << promptSteps()
          << ", over the decode step's SRAM layout: predicted "
          << prefillPredicted << " cycles, simulated " << prefillCycles
          << " cycles\n";
    } else {
      // Out of the prefill's SRAM into host memory, then into the decode
      // step's: the prompt's rows twice.
      auto [bytes, oneWay] = handOver(promptSteps());
      moved = 2 * oneWay;
      out << "prefill: " << bucket->path << " (a bucket of " << bucket->length
          << " tokens for a prompt of " << promptSteps() << "): predicted "
          << prefillPredicted << " cycles, simulated " << prefillCycles
          << " cycles\n";
      out << "hand-over: " << states.size() << " cache tensors, " << bytes
          << " bytes of the prompt's positions, out of the prefill's SRAM and "
             "into the decode step's over the chip's DMA engines: "
          << moved << " cycles\n";
    }
    out << "time to first token: predicted " << prefillPredicted + moved
        << " cycles (" << us(prefillPredicted + moved) << "), simulated "
        << prefillCycles + moved << " cycles ("
        << (bucket->shared ? "the prefill, which wrote the caches in place; "
                           : "the prefill and the hand-over; ")
        << predicted * promptSteps() << " as " << promptSteps()
        << (promptSteps() == 1 ? " decode step)\n" : " decode steps)\n");
    if (!cycles.empty())
      out << "inter-token latency: predicted " << predicted << " cycles ("
          << us(predicted) << "), simulated " << cycles.back()
          << " cycles, the same at every step\n";
  }

  /// Whether the generation is of one sequence, printed as one line of
  /// tokens as they come.
  bool single() const { return prompts.size() == 1; }

  bool isStop(int64_t id) const {
    return std::find(options.stopIds.begin(), options.stopIds.end(), id) !=
               options.stopIds.end() ||
           (tokenizer && id == tokenizer->eos());
  }

  /// The prompts' ids: as given, or their text encoded by the tokenizer,
  /// which is opened when one is named.
  bool readPrompts(std::string &error) {
    prompts = options.prompts;
    if (options.tokenizer.empty())
      return true;
    tokenizer = std::make_unique<Tokenizer>();
    if (!tokenizer->open(options.tokenizer, error))
      return false;
    for (const std::string &text : options.promptTexts) {
      std::vector<int64_t> ids;
      if (!tokenizer->encode(text, !options.noBos, ids, error)) {
        error = "--prompt '" + text + "': " + error;
        return false;
      }
      prompts.push_back(std::move(ids));
    }
    return true;
  }

  /// Every prompt id, and every piece of the tokenizer, within the step's
  /// vocabulary (the logits' last dimension).
  bool checkVocabulary(std::string &error) const {
    if (tokenizer && uint64_t(tokenizer->pieces()) > vocab) {
      error = options.tokenizer + ": the tokenizer has " +
              std::to_string(tokenizer->pieces()) +
              " pieces, more than the step's vocabulary of " +
              std::to_string(vocab) + " (its logits' last dimension)";
      return false;
    }
    for (const std::vector<int64_t> &prompt : prompts)
      for (int64_t id : prompt)
        if (uint64_t(id) >= vocab) {
          error = "prompt token id " + std::to_string(id) +
                  " is outside the step's vocabulary of " +
                  std::to_string(vocab) + " (its logits' last dimension)";
          return false;
        }
    return true;
  }

  /// Every sequence's positions within the KV cache: a prompt of P tokens
  /// and --max-new-tokens N feed positions 0 to P + N - 2. A cache's
  /// positions run along its second-to-last dimension ([batch, heads,
  /// positions, head size], as torch and Hugging Face lay caches out); a
  /// step past the end would write outside it.
  bool checkContext(std::string &error) const {
    uint64_t context = UINT64_MAX;
    for (const auto &[past, present] : states) {
      const hetx::TensorBinding *b = findBinding(artifact.inputs(), past);
      if (b->shape_size() >= 3)
        context = std::min(context, uint64_t(b->shape(b->shape_size() - 2)));
    }
    if (context == UINT64_MAX)
      return true;
    for (size_t i = 0; i < prompts.size(); ++i) {
      uint64_t needed = prompts[i].size() + uint64_t(options.maxNewTokens) - 1;
      if (needed > context) {
        error = (prompts.size() == 1 ? std::string("the prompt")
                                     : "prompt " + std::to_string(i)) +
                " (" + std::to_string(prompts[i].size()) +
                (prompts[i].size() == 1 ? " token" : " tokens") +
                ") and --max-new-tokens " +
                std::to_string(options.maxNewTokens) + " need " +
                std::to_string(needed) + " positions, but the KV cache holds " +
                std::to_string(context) +
                " (its second-to-last dimension): the context is full";
        return false;
      }
    }
    return true;
  }

  /// With a tokenizer, `prefix` and the text of `sequence`'s tokens on a
  /// line.
  bool printText(const Sequence &sequence, const std::string &prefix,
                 std::string &error) {
    if (!tokenizer)
      return true;
    std::string text;
    if (!tokenizer->decode(sequence.tokens, text, error))
      return false;
    out << prefix << text << "\n" << std::flush;
    return true;
  }

  bool checkOptions(std::string &error) const {
    const SamplingOptions &sampling = options.sampling;
    size_t sequenceCount = options.prompts.size() + options.promptTexts.size();
    if (!options.prompts.empty() && !options.promptTexts.empty())
      error = "give the prompts as --prompt-ids or as --prompt, not both";
    else if (!options.promptTexts.empty() && options.tokenizer.empty())
      error = "--prompt takes text, which needs --tokenizer (a SentencePiece "
              "tokenizer.model)";
    else if (sequenceCount == 0)
      error = "give a prompt: --prompt-ids IDS, or --prompt TEXT with "
              "--tokenizer";
    else if (std::any_of(options.prompts.begin(), options.prompts.end(),
                         [](const auto &prompt) { return prompt.empty(); }))
      error = "--prompt-ids needs at least one token id";
    else if (options.maxNewTokens < 1)
      error = "--max-new-tokens must be 1 or more, got " +
              std::to_string(options.maxNewTokens);
    else if (!(sampling.temperature >= 0.0) ||
             !std::isfinite(sampling.temperature))
      error = "--temperature must be 0 (greedy) or more";
    else if (sampling.topK < 0)
      error = "--top-k must be 0 (all tokens) or more";
    else if (!(sampling.topP > 0.0 && sampling.topP <= 1.0))
      error = "--top-p must be in (0, 1]";
    else if (!options.fallback.empty() &&
             (!isPlanBackend(options.fallback) || options.backend != "chip"))
      error = "--fallback " + options.fallback +
              " serves the steps the chip fails: it needs "
              "--backend chip";
    else if (options.injectFaultStep >= 0 && options.backend != "chip")
      error = "--inject-fault-at-step makes a chip step fail: it needs "
              "--backend chip";
    else if (options.backend != "chip" && !isPlanBackend(options.backend))
      error =
          "--backend must be chip, cpu or cuda, not '" + options.backend + "'";
    else if (!options.prefillBackend.empty() && !options.fallback.empty() &&
             options.prefillBackend != options.fallback)
      error = "--prefill-backend and --fallback name one backend, not " +
              options.prefillBackend + " and " + options.fallback;
    else if (!options.prefillBackend.empty() &&
             (!isPlanBackend(options.prefillBackend) ||
              options.backend != "chip"))
      error = "--prefill-backend " + options.prefillBackend +
              " runs the prompt on " +
              (options.prefillBackend == "cuda" ? "the GPU" : "the CPU") +
              " and the decode on the chip: it needs --backend chip";
    else if (!options.prefillBackend.empty() && sequenceCount > 1)
      error = "--prefill-backend " + options.prefillBackend +
              " hands one sequence's caches over to the "
              "chip: give one prompt, not " +
              std::to_string(sequenceCount);
    else if (!options.prefillPaths.empty() &&
             (options.backend != "chip" || !options.prefillBackend.empty() ||
              !options.fallback.empty()))
      error = "--prefill runs the prompts on the chip: it takes --backend "
              "chip, and neither --prefill-backend nor --fallback";
    else if (options.tokenInput == options.positionInput)
      error = "--token-input and --position-input name the same input '" +
              options.tokenInput + "'";
    for (const std::vector<int64_t> &prompt : options.prompts)
      for (int64_t id : prompt)
        if (error.empty() && (id < 0 || id > INT32_MAX))
          error = "prompt token id " + std::to_string(id) +
                  " is not a token id (0 to 2^31 - 1)";
    return error.empty();
  }

  /// Finds the token, position and logits bindings, the batch slots they
  /// give, and pairs every other input with the output that gives its next
  /// value.
  bool findBindings(std::string &error) {
    token = findBinding(artifact.inputs(), options.tokenInput);
    position = findBinding(artifact.inputs(), options.positionInput);
    // Hugging Face names the positions position_ids.
    if (!position && options.positionInput == "position")
      position = findBinding(artifact.inputs(), "position_ids");
    mask = findBinding(artifact.inputs(), "attention_mask");
    logits = findBinding(artifact.outputs(), options.logitsOutput);
    auto missing = [&](const char *what, const std::string &name,
                       const char *flag, bool input) {
      error = options.artifactPath + ": the step has no " + what + " '" + name +
              "' (" + flag + "; its " + (input ? "inputs" : "outputs") + ": " +
              namesOf(input ? artifact.inputs() : artifact.outputs()) + ")";
      return false;
    };
    if (!token)
      return missing("token-id input", options.tokenInput, "--token-input",
                     true);
    if (!position && !mask) {
      error = options.artifactPath + ": the step has no position input '" +
              options.positionInput +
              "' (--position-input) and no attention_mask; its inputs: " +
              namesOf(artifact.inputs());
      return false;
    }
    if (!logits)
      return missing("logits output", options.logitsOutput, "--logits-output",
                     false);
    uint64_t batch = elementsOf(*token);
    for (const hetx::TensorBinding *b : {token, position})
      if (b &&
          (!isIntegerBinding(*b) || elementsOf(*b) != batch || batch == 0)) {
        error = options.artifactPath + ": input '" + b->name() +
                "' must hold one integer per batch slot (the token ids [B, "
                "1] or [B], the positions [B]); '" +
                token->name() + "' has " + std::to_string(batch) + " elements" +
                (position ? " and '" + position->name() + "' " +
                                std::to_string(elementsOf(*position))
                          : std::string());
        return false;
      }
    if (mask && (!isIntegerBinding(*mask) || mask->shape_size() != 2 ||
                 uint64_t(mask->shape(0)) != batch)) {
      error = options.artifactPath +
              ": input 'attention_mask' must be integers [B, positions], a "
              "row per batch slot (1 where the slot has written a position)";
      return false;
    }
    slots.resize(batch);
    std::optional<io::ElementType> logitsType =
        sim::elementTypeOf(logits->dtype());
    if (logits->shape_size() > 0)
      vocab = uint64_t(logits->shape().Get(logits->shape_size() - 1));
    if (!logitsType || !io::isFloat(*logitsType) || vocab == 0 ||
        elementsOf(*logits) != batch * vocab) {
      error = options.artifactPath + ": output '" + logits->name() +
              "' must be the floating-point logits of one token per batch "
              "slot (its last dimension the vocabulary, " +
              std::to_string(batch) + " rows of it)";
      return false;
    }
    for (const hetx::TensorBinding &input : artifact.inputs()) {
      if (&input == token || &input == position || &input == mask)
        continue;
      std::string present = presentNameOf(input.name());
      const hetx::TensorBinding *output =
          present.empty() ? nullptr : findBinding(artifact.outputs(), present);
      if (!output ||
          !std::equal(input.shape().begin(), input.shape().end(),
                      output->shape().begin(), output->shape().end()) ||
          input.dtype() != output->dtype()) {
        error = options.artifactPath + ": input '" + input.name() +
                "' is neither the token, the position nor a cache that an "
                "output gives back (an input past* with an output present* "
                "of its shape and type)";
        return false;
      }
      states.push_back({input.name(), present});
      inputs[input.name()] = zerosLike(input);
    }
    return true;
  }

  void printHeader(size_t onChip, bool allHost, bool prefillHost) {
    out << "artifact: " << options.artifactPath << " (for chip '"
        << artifact.chip().name() << "')\n";
    out << "chip: " << chipPath << "\n";
    if (single()) {
      size_t tokens = sequences.front().prompt.size();
      out << "prompt: " << tokens << (tokens == 1 ? " token" : " tokens");
    } else {
      out << "prompts: " << sequences.size() << " sequences over "
          << slots.size() << " batch slot" << (slots.size() == 1 ? "" : "s");
    }
    out << "; one step: " << artifact.predicted_cycles()
        << " cycles predicted\n";
    // The ids the tokenizer gave each prompt's text.
    for (size_t i = 0; i < options.promptTexts.size(); ++i) {
      out << (single() ? std::string("prompt ids:")
                       : "prompt " + std::to_string(i) + " ids:");
      for (int64_t id : prompts[i])
        out << " " << id;
      out << "\n";
    }
    out << "KV cache: " << states.size() << " tensor"
        << (states.size() == 1 ? "" : "s");
    if (states.empty())
      out << "\n";
    else if (allHost)
      out << ", carried in " << (host->name() == "cuda" ? "GPU" : "host")
          << " memory from step to step (--backend " << host->name() << ")\n";
    else if (onChip == states.size())
      out << ", kept on the chip from step to step (updated in place)"
          << (prefillHost
                  ? ", handed over after the prompt's steps on " + host->where()
                  : std::string())
          << "\n";
    else
      out << ", " << onChip << " kept on the chip, " << states.size() - onChip
          << " carried through the host (the step does not update them "
             "in place in SRAM)\n";
  }

  bool step(int64_t index, bool onHost, StepResult &result,
            std::string &error) {
    const StepFeed &feed = history[size_t(index)];
    inputs[token->name()] = intTensor(*token, feed.tokens);
    if (position)
      inputs[position->name()] = intTensor(*position, feed.positions);
    if (mask) {
      // 1 at the positions each slot has written and the one it writes.
      uint64_t length = uint64_t(mask->shape(1));
      std::vector<int64_t> ones(slots.size() * length, 0);
      for (size_t b = 0; b < slots.size(); ++b)
        for (uint64_t j = 0; j <= uint64_t(feed.positions[b]) && j < length;
             ++j)
          ones[b * length + j] = 1;
      inputs[mask->name()] = intTensor(*mask, ones);
    }
    bool ok;
    if (!onHost) {
      sim::SimResult simulated;
      bool tracing = !options.tracePath.empty();
      recorder.setOffset(traceCycles);
      ok = session->step(inputs, simulated, error,
                         tracing ? &recorder : nullptr);
      result.outputs = std::move(simulated.outputs);
      result.cycles = simulated.stats.cycles;
      if (tracing && ok) {
        spans.push_back({"step " + std::to_string(index), traceCycles,
                         result.cycles, stepArgs(index, feed)});
        traceCycles += result.cycles;
      }
    } else {
      plan::RunResult ran;
      ok = host->run(inputs, ran, error);
      result.outputs = std::move(ran.outputs);
      result.seconds = ran.stats.seconds;
    }
    if (!ok) {
      std::string what = "step " + std::to_string(index);
      if (slots.size() == 1) {
        what += " (token " + std::to_string(feed.tokens.front()) +
                " at position " + std::to_string(feed.positions.front()) + ")";
      } else {
        what += " (slots at positions";
        for (size_t b = 0; b < feed.positions.size(); ++b)
          what += (b ? ", " : " ") + std::to_string(feed.positions[b]);
        what += ")";
      }
      error = what + ": " + error;
      return false;
    }
    for (sim::NamedTensor &output : result.outputs)
      for (const auto &[past, present] : states)
        if (output.name == present)
          inputs[past] = output.tensor;
    return true;
  }

  /// The args of a step's span in the trace: its index, and each slot's
  /// token and position (-1 for an idle slot's).
  std::string stepArgs(int64_t index, const StepFeed &feed) const {
    std::string tokens, positions;
    for (size_t b = 0; b < slots.size(); ++b) {
      bool idle = slots[b].sequence < 0;
      tokens += (b ? "," : "") + std::to_string(idle ? -1 : feed.tokens[b]);
      positions +=
          (b ? "," : "") + std::to_string(idle ? -1 : feed.positions[b]);
    }
    return "\"step\":" + std::to_string(index) + ",\"tokens\":[" + tokens +
           "],\"positions\":[" + positions + "]";
  }

  /// Checks the trace path before anything runs: its folder must exist and
  /// be writable.
  bool checkTracePath(std::string &error) const {
    if (options.tracePath.empty())
      return true;
    if (options.backend != "chip") {
      error = "--trace records the steps run on the chip: it needs "
              "--backend chip";
      return false;
    }
    std::filesystem::path folder =
        std::filesystem::path(options.tracePath).parent_path();
    if (folder.empty())
      folder = ".";
    if (::access(folder.c_str(), W_OK) != 0) {
      error = options.tracePath +
              ": cannot write trace file: " + std::strerror(errno);
      return false;
    }
    return true;
  }

  /// The trace's index of prefill program `used` (TraceEvent::program):
  /// the decode step is 0, the buckets follow.
  uint32_t traceProgram(const PrefillProgram &used) const {
    for (size_t k = 0; k < buckets.size(); ++k)
      if (buckets[k].get() == &used)
        return uint32_t(k + 1);
    return 0;
  }

  /// Writes the trace atomically: every instruction of the steps and the
  /// prefills on the chip (up to kMaxTraceEvents) on the units' tracks,
  /// and a span per step, prefill and hand-over on the track "steps".
  bool writeTrace(std::string &error) {
    std::vector<const hetx::Artifact *> programs{&artifact};
    for (const auto &bucket : buckets)
      programs.push_back(&bucket->artifact);
    std::ostringstream trace;
    TraceCounts counts = run::writeTrace(trace, programs, chip,
                                         recorder.recorded(), spans, "steps");
    if (!io::writeFileAtomically(options.tracePath, trace.str(), error))
      return false;
    out << "trace: " << spans.size() - tracedPrefills - tracedHandOvers
        << " steps, ";
    if (tracedPrefills)
      out << tracedPrefills << " prefills, ";
    if (tracedHandOvers)
      out << tracedHandOvers << " hand-overs, ";
    out << counts.events << " events on " << counts.tracks << " tracks -> "
        << options.tracePath << "\n";
    if (recorder.dropped())
      out << "trace: " << recorder.dropped()
          << " instructions of the last steps left out (at most "
          << kMaxTraceEvents << " are kept); their steps' spans are there\n";
    return true;
  }

  /// Moves every busy slot on by the step `index` gave: a slot still in
  /// its prompt to the next prompt token, any other to the token it picks
  /// from its row of the logits; a sequence that ends frees its slot.
  bool advance(int64_t index, const StepResult &result, std::string &error) {
    const io::Tensor *scores = nullptr;
    for (const sim::NamedTensor &output : result.outputs)
      if (output.name == logits->name())
        scores = &output.tensor;
    if (!scores || scores->data.size() != slots.size() * vocab) {
      error = "the step gave no logits";
      return false;
    }
    for (size_t b = 0; b < slots.size(); ++b) {
      Slot &slot = slots[b];
      if (slot.sequence < 0)
        continue;
      Sequence &sequence = sequences[size_t(slot.sequence)];
      if (slot.position + 1 < int64_t(sequence.prompt.size())) {
        ++slot.position;
        continue;
      }
      const float *row = scores->data.data() + b * vocab;
      if (std::any_of(row, row + vocab,
                      [](float x) { return !std::isfinite(x); })) {
        error = "the logits of step " + std::to_string(index) +
                (single() ? std::string()
                          : " for sequence " + std::to_string(slot.sequence)) +
                " are not all finite; no token can be picked";
        return false;
      }
      int64_t next = sequence.sampler.pick(row, vocab);
      sequence.tokens.push_back(next);
      if (sequence.firstToken < 0)
        sequence.firstToken = index;
      if (single())
        out << " " << next << std::flush;
      if (int64_t(sequence.tokens.size()) >= options.maxNewTokens ||
          isStop(next)) {
        sequence.finished = index;
        if (!single() && !printSequence(size_t(slot.sequence), error))
          return false;
        slot.sequence = -1;
        continue;
      }
      ++slot.position;
      slot.next = next;
    }
    return true;
  }

  /// One line for a sequence of several, printed as it ends: its slot, its
  /// steps, its time to first token and its tokens; then its text, with a
  /// tokenizer.
  bool printSequence(size_t i, std::string &error) {
    const Sequence &s = sequences[i];
    out << "sequence " << i << " (slot " << s.slot << ", ";
    if (s.finished < s.entered)
      out << "no decode step";
    else
      out << "steps " << s.entered << "-" << s.finished;
    if (s.bucket) {
      out << ", first token from a prefill of " << s.bucket->length
          << " tokens, " << s.prefillCycles + s.handOverCycles
          << (s.bucket->shared ? " cycles, the caches written in place"
                               : " cycles with the hand-over");
    } else {
      int64_t steps = s.firstToken - s.entered + 1;
      out << ", first token after " << steps
          << (steps == 1 ? " step" : " steps");
      if (!fellBack && options.backend == "chip") {
        uint64_t ttft = 0;
        for (int64_t q = s.entered; q <= s.firstToken; ++q)
          ttft += cycles[size_t(q)];
        out << ", " << ttft << " cycles";
      } else if (isPlanBackend(options.backend)) {
        double ttft = 0;
        for (int64_t q = s.entered; q <= s.firstToken; ++q)
          ttft += seconds[size_t(q)];
        out << ", " << ms(ttft) << " " << host->clock();
      }
    }
    out << "): tokens:";
    for (int64_t t : s.tokens)
      out << " " << t;
    out << "\n" << std::flush;
    return printText(s, "sequence " + std::to_string(i) + " text: ", error);
  }

  uint64_t generatedTokens() const {
    uint64_t count = 0;
    for (const Sequence &s : sequences)
      count += s.tokens.size();
    return count;
  }

  size_t promptSteps() const { return sequences.front().prompt.size(); }

  /// Several sequences over the batch slots: how full the slots were, the
  /// step's exact cycles, and tokens per second for the session and for
  /// one slot.
  void reportSlots() {
    uint64_t busy = 0;
    for (const Sequence &s : sequences)
      busy += uint64_t(s.finished - s.entered + 1);
    uint64_t steps = history.size();
    uint64_t generated = generatedTokens();
    if (fellBack)
      out << fallbackNote << "\n";
    out << "generated: " << generated << " tokens for " << sequences.size()
        << " sequences in " << steps << " steps of " << slots.size()
        << " slots (" << percent(busy, steps * slots.size())
        << " of the slot-steps decoding)";
    if (fellBack)
      out << " (" << fallbackStep << " steps on the chip, "
          << int64_t(steps) - fallbackStep << " on " << host->where() << ")";
    out << "\n";
    uint64_t predicted = artifact.predicted_cycles();
    // Prefill programs run on the chip between the steps.
    uint64_t prefilled = 0, prefill = 0;
    for (const Sequence &s : sequences)
      if (s.bucket) {
        ++prefilled;
        prefill += s.prefillCycles + s.handOverCycles;
      }
    if (prefilled)
      out << "prefill: " << prefilled << " prompts in prefill programs, "
          << prefill
          << (buckets.front()->shared
                  ? " cycles, over the decode step's SRAM layout"
                  : " cycles with their hand-overs")
          << ", between the steps\n";
    if (history.empty())
      return; // every token came from a prefill
    std::ostringstream rate;
    rate << std::fixed << std::setprecision(1);
    if (fellBack || isPlanBackend(options.backend)) {
      std::vector<double> times(seconds.begin() + (fellBack ? fallbackStep : 0),
                                seconds.end());
      std::sort(times.begin(), times.end());
      double total = std::accumulate(times.begin(), times.end(), 0.0);
      rate << double(generated) / std::max(total, 1e-12);
      out << "step latency on " << host->where() << ": "
          << ms(times[times.size() / 2]) << " " << host->clock()
          << ", the median (the chip: " << predicted << " cycles)\n";
      if (!fellBack)
        out << "tokens per second on " << host->where() << ": " << rate.str()
            << " for the session\n";
      return;
    }
    out << "inter-token latency: predicted " << predicted << " cycles ("
        << us(predicted) << "), simulated " << cycles.back()
        << " cycles, the same at every step for every slot\n";
    rate << chip.clockMHz() * 1e6 * double(generated) /
                double(steps * predicted + prefill)
         << " for the session (" << generated << " tokens in " << steps
         << " steps" << (prefilled ? " and the prefills" : "") << "), "
         << chip.clockMHz() * 1e6 / double(predicted) << " for each sequence";
    out << "tokens per second at " << chip.clockMHz() << " MHz: " << rate.str()
        << "\n";
  }

  void report() {
    uint64_t predicted = artifact.predicted_cycles();
    size_t prompt = promptSteps();
    uint64_t ttft = 0;
    for (size_t i = 0; i < prompt; ++i)
      ttft += cycles[i];
    out << "generated: " << generatedTokens() << " tokens in " << cycles.size()
        << " steps\n";
    out << "time to first token: predicted " << predicted * prompt
        << " cycles (" << us(predicted * prompt) << "), simulated " << ttft
        << " cycles\n";
    out << "inter-token latency: predicted " << predicted << " cycles ("
        << us(predicted) << "), simulated " << cycles.back()
        << " cycles, the same at every step\n";
    std::ostringstream rate;
    rate << std::fixed << std::setprecision(1)
         << chip.clockMHz() * 1e6 / double(predicted);
    out << "tokens per second at " << chip.clockMHz() << " MHz: " << rate.str()
        << "\n";
  }

  /// The CPU's or GPU's times: the prompt's steps to the first token, and the
  /// median of the steps after it; the chip's exact figures for
  /// comparison.
  void reportHost() {
    size_t prompt = promptSteps();
    double ttft = 0;
    for (size_t i = 0; i < prompt; ++i)
      ttft += seconds[i];
    std::vector<double> later(seconds.begin() + long(prompt), seconds.end());
    if (later.empty())
      later.push_back(seconds.back());
    std::sort(later.begin(), later.end());
    double itl = later[later.size() / 2];
    out << "generated: " << generatedTokens() << " tokens in " << seconds.size()
        << " steps on " << host->where() << "\n";
    out << "time to first token: " << ms(ttft) << " " << host->clock()
        << " (the chip: " << artifact.predicted_cycles() * prompt
        << " cycles)\n";
    out << "inter-token latency: " << ms(itl) << " " << host->clock()
        << ", the median of the steps after the prompt (the chip: "
        << artifact.predicted_cycles() << " cycles)\n";
    std::ostringstream rate;
    rate << std::fixed << std::setprecision(1) << 1.0 / itl;
    out << "tokens per second on " << host->where() << ": " << rate.str()
        << "\n";
  }

  /// The bytes and chip cycles of moving the rows of the first `positions`
  /// positions of each resident cache from host memory into SRAM over the
  /// chip's DMA engines, as DMA_IN moves a vector (docs/isa.md): the
  /// engines' latency once, then each vector at the engines' rate, the
  /// engines working side by side. A cache's positions run along its
  /// second-to-last dimension ([batch, heads, positions, head size], as
  /// torch and Hugging Face lay caches out); the rows after them hold
  /// nothing a later step reads before writing it, and are not moved.
  std::pair<uint64_t, uint64_t> handOver(uint64_t positions,
                                         uint64_t ofSlots = 0) const {
    // The rows of `ofSlots` batch slots (0: all of them).
    uint64_t share = ofSlots ? ofSlots : slots.size(), whole = slots.size();
    uint64_t bytes = 0, vectors = 0;
    for (const std::string &name : resident) {
      const hetx::TensorBinding *b = findBinding(artifact.inputs(), name);
      sim::BindingLayout layout;
      std::string ignored;
      if (!b || !sim::checkBinding(*b, name, chip, layout, ignored))
        continue;
      uint64_t length =
          b->shape_size() >= 2 ? uint64_t(b->shape(b->shape_size() - 2)) : 1;
      uint64_t used = std::min(std::max<uint64_t>(positions, 1), length);
      vectors += (layout.vectors * used * share + length * whole - 1) /
                 (length * whole);
      bytes += layout.elements * sim::sramLaneBytes(layout.type) / length *
               used / whole * share;
    }
    uint64_t engines = std::max<uint64_t>(chip.proto().dma().engines(), 1);
    uint64_t cycles =
        chip.proto().dma().latency() +
        (vectors + engines - 1) / engines * chip.dmaCyclesPerVector();
    return {bytes, cycles};
  }

  /// Replays the steps before `upTo` on the fallback from zero caches, leaving
  /// the caches in host memory as a chip that had not failed would hold
  /// them.
  bool replay(int64_t upTo, std::string &error) {
    for (const auto &[past, present] : states)
      inputs[past] = zerosLike(*findBinding(artifact.inputs(), past));
    host->restartCarried();
    session.reset();
    for (int64_t q = 0; q < upTo; ++q) {
      StepResult ignored;
      if (!step(q, true, ignored, error))
        return false;
    }
    return true;
  }

  /// The steps before the failure on the chip, the rest on the fallback
  /// (the median time of its steps, the replay not counted).
  void reportFallback() {
    out << fallbackNote << "\n";
    out << "generated: " << generatedTokens() << " tokens in " << seconds.size()
        << " steps (" << fallbackStep << " on the chip, "
        << int64_t(seconds.size()) - fallbackStep << " on " << host->where()
        << ")\n";
    std::vector<double> after(seconds.begin() + long(fallbackStep),
                              seconds.end());
    std::sort(after.begin(), after.end());
    out << "step latency on " << host->where() << ": "
        << ms(after[after.size() / 2]) << " " << host->clock()
        << ", the median (the chip: " << artifact.predicted_cycles()
        << " cycles)\n";
  }

  /// The prompt on the CPU or GPU, the hand-over, then the chip's exact
  /// steps.
  void reportPrefill() {
    size_t prompt = promptSteps();
    double prefill = 0;
    for (size_t i = 0; i < prompt; ++i)
      prefill += seconds[i];
    auto [bytes, moved] = handOver(prompt);
    uint64_t predicted = artifact.predicted_cycles();
    out << "generated: " << generatedTokens() << " tokens in " << cycles.size()
        << " steps (" << prompt << " on " << host->where() << ", "
        << cycles.size() - prompt << " on the chip)\n";
    out << "time to first token: " << ms(prefill) << " " << host->clock()
        << ", the prompt's steps on " << host->where() << "\n";
    out << "hand-over: " << resident.size() << " cache tensors, " << bytes
        << " bytes, into the chip's SRAM over its DMA engines: " << moved
        << " cycles (" << us(moved)
        << "), before the first step on the "
           "chip\n";
    if (cycles.size() > prompt)
      out << "inter-token latency: predicted " << predicted << " cycles ("
          << us(predicted) << "), simulated " << cycles.back()
          << " cycles, the same at every step on the chip\n";
  }

  /// `cycles` as microseconds at the chip's clock, and `seconds` as
  /// milliseconds, as the reports print them.
  std::string us(uint64_t cycles) const {
    std::ostringstream text;
    text << std::fixed << std::setprecision(3)
         << double(cycles) / chip.clockMHz() << " us";
    return text.str();
  }
  static std::string ms(double seconds) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(3) << seconds * 1e3 << " ms";
    return text.str();
  }

  const GenerateOptions &options;
  std::ostream &out;
  hetx::Artifact artifact;
  chip::ChipSpec chip;
  std::string chipPath;
  sim::LoadedProgram program;
  std::unique_ptr<sim::Session> session;
  /// The backend that runs the kernel plan (--backend, --prefill-backend
  /// or --fallback cpu or cuda), if one does.
  std::unique_ptr<PlanBackend> host;
  /// The caches the chip keeps resident, and whether a prefill on the CPU or
  /// GPU has handed them over.
  std::vector<std::string> resident;
  bool handedOver = false;
  /// Whether the fallback took over from a failed chip step, at which step, and
  /// what happened.
  bool fellBack = false;
  int64_t fallbackStep = 0;
  std::string fallbackNote;
  /// The step's attention_mask, where it takes one (Hugging Face's
  /// decoders): fed 1 at the positions up to each slot's.
  const hetx::TensorBinding *mask = nullptr;
  const hetx::TensorBinding *token = nullptr, *position = nullptr,
                            *logits = nullptr;
  /// The logits' last dimension.
  uint64_t vocab = 0;
  /// (input, output) of each cache carried from step to step.
  std::vector<std::pair<std::string, std::string>> states;
  std::map<std::string, io::Tensor> inputs;
  std::vector<std::vector<int64_t>> prompts;
  std::unique_ptr<Tokenizer> tokenizer;
  /// The prefill programs, smallest bucket first.
  DecodeInterface decodeInterface;
  std::vector<std::unique_ptr<PrefillProgram>> buckets;
  std::vector<Sequence> sequences;
  std::vector<Slot> slots;
  /// What each step so far was fed, and its cycles on the chip or wall
  /// time on the CPU or GPU.
  std::vector<StepFeed> history;
  std::vector<uint64_t> cycles;
  std::vector<double> seconds;
  /// The trace: the chip's instructions, a span per step on the chip, and
  /// the cycle the next step starts at; whether the session got far enough
  /// to write one.
  TraceRecorder recorder;
  std::vector<TraceSpan> spans;
  uint64_t traceCycles = 0;
  /// The spans of `spans` that are prefills and hand-overs; the rest are
  /// steps.
  size_t tracedPrefills = 0, tracedHandOvers = 0;
  bool ready = false;
};

} // namespace

int generateCommand(const GenerateOptions &options, std::ostream &out,
                    std::ostream &err) {
  std::string error;
  if (Generator(options, out).run(error))
    return 0;
  err << "error: " << error << "\n";
  return 1;
}

} // namespace hetc::run
