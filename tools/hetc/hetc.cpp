//===- hetc.cpp - The hetc command-line driver ------------------------===//
//
//   hetc compile model.onnx [-o model.hetx] [--chip FILE] [--emit LEVEL]
//                           [--dim NAME=N ...] [--input-value NAME=FILE ...]
//   hetc run model.hetx [--chip FILE] [--input NAME=FILE.npy ...]
//                       [--output-dir DIR] [--seed N] [--trace FILE]
//   hetc inspect model.hetx [--disassemble] [--plan]
//   hetc generate step.hetx --prompt-ids IDS [...]
//   hetc backends
//
//===----------------------------------------------------------------------===//

#include "tools/hetc/CompileCommand.h"

#include "runtime/io/SafeWrite.h"
#include "runtime/run/GenerateCommand.h"
#include "runtime/run/InspectCommand.h"
#include "runtime/run/PlanBackend.h"
#include "runtime/run/RunCommand.h"

#include <CLI/CLI.hpp>
#include <google/protobuf/stubs/logging.h>

#include <iostream>

namespace {

/// Splits "name=value" pairs; throws CLI::ValidationError on a bad one.
std::pair<std::string, std::string> splitPair(const std::string &text,
                                              const std::string &flag) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw CLI::ValidationError(flag, "expected NAME=VALUE, got '" + text + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

} // namespace

int main(int argc, char **argv) {
  hetc::io::reportFileSizeLimitAsError();
  // A damaged artifact or model makes protobuf log each bad string field
  // it parses; hetc reports the file itself, once, naming it.
  google::protobuf::SetLogHandler(nullptr);
  CLI::App app{"hetc: an ahead-of-time compiler for deterministic dataflow "
               "inference chips"};
  app.require_subcommand(1);

  hetc::CompileOptions compile;
  compile.chip = hetc::run::chipsDirectory() + "/tsp-v1.chip";
  std::vector<std::string> dims;
  std::vector<std::string> inputValues;
  std::string emit = "hetx";
  CLI::App *compileApp =
      app.add_subcommand("compile", "Compile an ONNX model to a .hetx artifact");
  compileApp->add_option("model", compile.model,
                         "The ONNX model (.onnx), or MLIR (.mlir) at any "
                         "level: hgraph, htile (placed or not) or hisa "
                         "(scheduled or not); compiling goes on from there. "
                         "A folder holding a decoder as Hugging Face Optimum "
                         "exports one compiles its "
                         "decoder_with_past_model.onnx, with its "
                         "decoder_model.onnx as the prefill when "
                         "--prefill-buckets is given")
      ->required()
      ->check(CLI::ExistingPath);
  compileApp->add_option("-o,--output", compile.output,
                         "Output file (default: the model's name with .hetx; "
                         "with --emit of an IR level, standard output)");
  compileApp->add_option("--chip", compile.chip,
                         "Chip description file")
      ->capture_default_str();
  compileApp
      ->add_option("--emit", emit,
                   "What to produce: IR printed after import (hgraph as "
                   "imported), hgraph (optimised), htile or hisa (scheduled), "
                   "or the hetx artifact")
      ->check(CLI::IsMember({"import", "hgraph", "htile", "hisa", "hetx"}))
      ->capture_default_str();
  compileApp->add_option("--dim", dims,
                         "Pin a symbolic input dimension, NAME=N "
                         "(repeatable)");
  compileApp
      ->add_option(
          "--max-context", compile.maxContext,
          "Make a decoder whose KV cache grows (past_* concatenated with the "
          "new key into present_*, an attention_mask input) a decode step of "
          "caches N positions long that serves every position")
      ->check(CLI::Range(int64_t(2), int64_t(1) << 20));
  compileApp
      ->add_option("--max-batch", compile.maxBatch,
                   "The decode step's batch slots: the symbolic batch axis of "
                   "its input_ids is B, whatever its name (with "
                   "--max-context, a symbolic batch is 1 and a symbolic "
                   "sequence 1 unless --dim or this says otherwise)")
      ->check(CLI::Range(int64_t(1), int64_t(4096)));
  compileApp
      ->add_option(
          "--prefill", compile.prefills,
          "A prefill program of the decode step (repeatable: one per "
          "bucket): the step exported for a bucket of L tokens (input_ids "
          "[1, L], the caches written in place from `position`), compiled "
          "with the step's --dim and --precision into the step's SRAM "
          "layout (its weights where the step holds them, its caches the "
          "step's) and held in the same .hetx, for hetc generate")
      ->check(CLI::ExistingFile);
  compileApp
      ->add_option(
          "--prefill-buckets", compile.prefillBuckets,
          "Compile each --prefill once per bucket length, L1,L2,...: its "
          "input_ids' symbolic sequence axis pinned to the length (a prefill "
          "exported with dynamic axes, such as Hugging Face's "
          "decoder_model.onnx, which is rewritten to write the step's caches "
          "in place at its position_ids)")
      ->delimiter(',')
      ->check(CLI::Range(int64_t(1), int64_t(1) << 20));
  compileApp->add_option(
      "--input-value", inputValues,
      "Fix a graph input's value at compile time, NAME=FILE (.npy or an ONNX "
      "TensorProto .pb; repeatable). The input becomes a constant and is no "
      "longer an input of the program: use it for inputs that set shapes, "
      "such as axes, pads or a target shape");
  compileApp->add_flag("--print-locations", compile.printLocations,
                       "Print IR with locations (the ONNX node names)");
  compileApp->add_flag("--no-kernel-plan", compile.noKernelPlan,
                       "Leave the kernel plan (what --backend cpu and the "
                       "fallback run) out of the artifact: it then runs on "
                       "the chip only");
  compileApp->add_flag("--host-io", compile.hostIO,
                       "Start with the inputs in host memory and end with "
                       "the outputs there, moved by the chip's DMA engines "
                       "(the cycle count then includes the transfers)");
  compileApp
      ->add_option("--precision", compile.precision,
                   "Element type of the weights of matrix-unit layers "
                   "(linear and matmul by a constant): fp32 as the model "
                   "has them; fp16/bf16, which halves their SRAM; or "
                   "int8 (weight-only, a scale per output column, "
                   "multiplied as fp16), which quarters it; products "
                   "accumulate in fp32 and activations stay fp32 "
                   "(docs/precision.md)")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16", "int8"}))
      ->capture_default_str();
  compileApp->add_flag("--kernels", compile.allKernels,
                       "List every kernel's cycles in the summary");
  compileApp
      ->add_option("--sram-peak", compile.sramPeak,
                   "List in the summary the N buffers live at the SRAM "
                   "peak whose vectors hold the most padding (bytes beyond "
                   "their tensor's), with their ONNX nodes")
      ->check(CLI::Range(1u, 1000u));
  compileApp->add_flag("-q,--quiet", compile.quiet,
                       "Do not print the compilation summary");
  // MLIR's options (--mlir-print-ir-after-all, --mlir-timing, ...) pass
  // through to MLIR; anything else unknown is an error.
  compileApp->allow_extras();
  compileApp->footer(
      "MLIR's pass-manager and printing options are accepted too: "
      "--mlir-print-ir-after-all, --mlir-print-ir-after-failure, "
      "--mlir-timing, --mlir-pass-pipeline-crash-reproducer=FILE, "
      "--mlir-disable-threading (the --mlir-* options of mlir-opt).");

  hetc::run::RunOptions run;
  std::vector<std::string> inputs;
  CLI::App *runApp =
      app.add_subcommand("run", "Run a .hetx artifact on the chip model");
  runApp->add_option("artifact", run.artifactPath, "The .hetx artifact")
      ->required();
  runApp->add_option("--chip", run.chipPath,
                     "Chip description file (default: the bundled file named "
                     "after the artifact's chip)");
  runApp->add_option("--input", inputs,
                     "Input tensor, NAME=FILE.npy (repeatable); inputs not "
                     "given are generated from --seed");
  runApp->add_option("--output-dir", run.outputDir,
                     "Write outputs as NAME.npy (and generated inputs as "
                     "inputs/NAME.npy) here");
  runApp->add_option("--seed", run.seed, "Seed for generated inputs")
      ->capture_default_str();
  runApp->add_option("--trace", run.tracePath,
                     "Write a Chrome/Perfetto trace of the run (JSON: one "
                     "track per functional unit, one event per instruction)");
  runApp
      ->add_option("--backend", run.backend,
                   "Where the program runs: the chip model, the CPU or a "
                   "CUDA GPU (the artifact's kernel plan on the host or "
                   "the GPU)")
      ->check(CLI::IsMember({"chip", "cpu", "cuda"}))
      ->capture_default_str();
  runApp
      ->add_option("--fallback", run.fallback,
                   "Serve the request on this backend when the chip run "
                   "fails or cannot meet --deadline-ms")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  runApp
      ->add_option("--deadline-ms", run.deadlineMs,
                   "The chip must finish within this many milliseconds at "
                   "its clock; known before the run, as its cycles are exact")
      ->check(CLI::PositiveNumber);
  runApp
      ->add_option("--repeat", run.repeat,
                   "With --backend cpu or cuda: run N times and report the "
                   "fastest "
                   "(the first run warms caches and generated code)")
      ->check(CLI::Range(1u, 1000u))
      ->capture_default_str();
  runApp
      ->add_option("--slowest", run.slowest,
                   "With --backend cpu or cuda: how many of the slowest "
                   "kernels the summary lists, with their node and time")
      ->capture_default_str();
  runApp
      ->add_option("--inject-fault", run.injectFault,
                   "Testing: make the chip run fail (hazard: one "
                   "instruction issues a cycle late)")
      ->check(CLI::IsMember({"hazard"}));

  hetc::run::GenerateOptions generate;
  CLI::App *generateApp = app.add_subcommand(
      "generate", "Generate tokens with a compiled decode step: the prompt "
                  "one position at a time, then the tokens it picks, its "
                  "KV cache carried from step to step");
  generateApp
      ->add_option("artifact", generate.artifactPath,
                   "The .hetx artifact of one decode step")
      ->required();
  generateApp->add_option("--chip", generate.chipPath,
                          "Chip description file (default: the bundled file "
                          "named after the artifact's chip)");
  generateApp
      ->add_option("--prompt-ids", generate.prompts,
                   "A prompt's token ids, comma-separated; given several "
                   "times, one sequence each, decoded side by side in the "
                   "step's batch slots")
      ->delimiter(',');
  generateApp->add_option(
      "--prompt", generate.promptTexts,
      "A prompt's text, encoded with --tokenizer; given several times, one "
      "sequence each");
  generateApp->add_option(
      "--tokenizer", generate.tokenizer,
      "SentencePiece model (tokenizer.model): encodes --prompt, decodes "
      "the tokens generated, and its end-of-sequence id stops a sequence");
  generateApp->add_option(
      "--prefill", generate.prefillPaths,
      "A prefill program compiled on its own (the step compiled for a "
      "bucket of L tokens); given several times, the smallest bucket that "
      "holds the prompt runs it in one run. Without it, the prefill "
      "programs the artifact holds (hetc compile --prefill) do, on "
      "--backend chip");
  generateApp->add_option(
      "--trace", generate.tracePath,
      "Write a Chrome trace-event JSON file (Perfetto) of the steps run on "
      "the chip, one after another, each instruction named by its ONNX node");
  generateApp->add_flag("--no-bos", generate.noBos,
                        "Encode --prompt without the tokenizer's "
                        "beginning-of-sequence id");
  generateApp
      ->add_option("--max-new-tokens", generate.maxNewTokens,
                   "Tokens to generate at most")
      ->capture_default_str();
  generateApp
      ->add_option("--stop-ids", generate.stopIds,
                   "Token ids that end the generation, comma-separated")
      ->delimiter(',');
  generateApp
      ->add_option("--temperature", generate.sampling.temperature,
                   "0 picks the most likely token; above 0 samples from the "
                   "softmax of the logits divided by it")
      ->capture_default_str();
  generateApp
      ->add_option("--top-k", generate.sampling.topK,
                   "When sampling, keep the k most likely tokens (0: all)")
      ->capture_default_str();
  generateApp
      ->add_option("--top-p", generate.sampling.topP,
                   "When sampling, keep the most likely tokens whose "
                   "probabilities sum to p")
      ->capture_default_str();
  generateApp
      ->add_option("--backend", generate.backend,
                   "Where the steps run: the chip model (caches kept on the "
                   "chip), the CPU or a CUDA GPU (the kernel plan; wall or "
                   "device times)")
      ->check(CLI::IsMember({"chip", "cpu", "cuda"}))
      ->capture_default_str();
  generateApp
      ->add_option("--prefill-backend", generate.prefillBackend,
                   "Run the prompt's steps here (cpu or cuda), then hand "
                   "the KV cache over to the chip for the decode")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  generateApp
      ->add_option(
          "--fallback", generate.fallback,
          "When a step fails on the chip, rebuild the KV cache on "
          "this backend (cpu or cuda) by replaying the steps so far and go "
          "on there")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  generateApp
      ->add_option("--inject-fault-at-step", generate.injectFaultStep,
                   "Testing: the chip step of this index (from 0) fails")
      ->check(CLI::NonNegativeNumber);
  generateApp
      ->add_option("--seed", generate.seed,
                   "Seed of the sampler (sequence i samples with seed + i)")
      ->capture_default_str();
  generateApp
      ->add_option("--token-input", generate.tokenInput,
                   "The step's token-id input")
      ->capture_default_str();
  generateApp
      ->add_option("--position-input", generate.positionInput,
                   "The step's position input")
      ->capture_default_str();
  generateApp
      ->add_option("--logits-output", generate.logitsOutput,
                   "The step's logits output")
      ->capture_default_str();

  hetc::run::InspectOptions inspect;
  CLI::App *inspectApp = app.add_subcommand(
      "inspect", "Print what a .hetx artifact holds: chip, bindings, "
                 "instruction counts, kernels, and optionally every "
                 "instruction");
  inspectApp->add_option("artifact", inspect.artifactPath, "The .hetx artifact")
      ->required();
  inspectApp->add_flag("-d,--disassemble", inspect.disassemble,
                       "List every instruction: cycle, opcode, unit, "
                       "address, streams and ONNX node");
  inspectApp->add_flag("--plan", inspect.plan,
                       "List the kernel plan (what --backend cpu runs): its "
                       "buffers and its kernels in order");

  CLI::App *backendsApp = app.add_subcommand(
      "backends", "List the backends hetc runs artifacts on (chip, cpu, "
                  "cuda) and whether each can run on this machine");

  try {
    app.parse(argc, argv);
    for (const std::string &d : dims) {
      auto [name, value] = splitPair(d, "--dim");
      size_t used = 0;
      long long n = -1;
      try {
        n = std::stoll(value, &used);
      } catch (const std::exception &) {
      }
      if (used != value.size() || n <= 0)
        throw CLI::ValidationError("--dim", "'" + value +
                                                "' is not a positive integer");
      compile.dims[name] = n;
    }
    for (const std::string &v : inputValues) {
      auto [name, file] = splitPair(v, "--input-value");
      if (!compile.inputValues.emplace(name, file).second)
        throw CLI::ValidationError("--input-value",
                                   "input '" + name + "' is given twice");
    }
    compile.chipGiven = compileApp->count("--chip") > 0;
    for (const std::string &extra : compileApp->remaining()) {
      if (extra.rfind("--mlir-", 0) != 0)
        throw CLI::ExtrasError("compile", {extra});
      compile.mlirOptions.push_back(extra);
    }
    for (const std::string &i : inputs) {
      auto [name, file] = splitPair(i, "--input");
      run.inputs[name] = file;
    }
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }

  if (*compileApp) {
    compile.emit = emit == "import"  ? hetc::EmitKind::Import
                   : emit == "hgraph"  ? hetc::EmitKind::HGraph
                   : emit == "htile" ? hetc::EmitKind::HTile
                   : emit == "hisa"  ? hetc::EmitKind::HIsa
                                     : hetc::EmitKind::Hetx;
    return hetc::compileCommand(compile);
  }
  if (*inspectApp)
    return hetc::run::inspectCommand(inspect, std::cout, std::cerr);
  if (*backendsApp) {
    hetc::run::listBackends(std::cout);
    return 0;
  }
  if (*generateApp)
    return hetc::run::generateCommand(generate, std::cout, std::cerr);
  return hetc::run::runCommand(run, std::cout, std::cerr);
}
