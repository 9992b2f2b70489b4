#!/usr/bin/env python3
"""Generation with the decode-step models of the suite, against ONNX Runtime.

Usage: generate_models.py --hetc HETC [--tokens 32] [--prompt 3,1,4]
                          [--models-dir DIR] [--write-report]

For each decode step that bench/models/export_models.py exports with a
static KV cache (gpt2_step, llama_step: their suite decoders' weights and
real vocabularies, 50257 and 32000; gpt2_step_b4 and llama_step_b4, the
same with four batch slots), it
  1. compiles the step once with `HETC compile` (tsp-v1);
  2. generates --tokens greedy tokens from --prompt with `HETC generate`,
     which runs the step position after position with the caches kept on
     the chip model (no per-token compile);
  3. generates the same with ONNX Runtime running the same ONNX step in
     its own loop (the present_* outputs fed back as past_*);
  4. checks that the tokens are identical and that every step took the
     predicted cycles (hetc generate stops otherwise).
A step with batch slots generates for five prompts at once (--prompt and
four more; the fifth takes the first slot that frees), each sequence
checked against ONNX Runtime running the one-slot step for that prompt
alone.
It prints one line per model and writes the table to docs/generation.md
with --write-report: time to first token and inter-token latency,
predicted and simulated, tokens per second at the chip clock, and the
inter-token latency against the step's physical bound from the compile
summary (docs/performance.md, "The physical bound").
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnxruntime as ort

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite_common  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STEPS = ["gpt2_step", "llama_step", "gpt2_step_b4", "llama_step_b4", "gpt2_with_past",
         "llama_with_past", "gpt2_step_h1024"]
# Steps compiled with narrower weights: the one whose fp16 weights fill most
# of the chip's SRAM (its f32 ones would not fit).
PRECISION = {"gpt2_step_h1024": ["--precision", "fp16"]}
# Steps exported with a growing cache: compiled with --max-context, checked
# against ONNX Runtime's loop with the past growing.
GROWING = {name: ["--max-context", "128", "--dim", "batch_size=1", "--dim", "sequence_length=1"]
           for name in ("gpt2_with_past", "llama_with_past")}
# The prefill programs of the one-slot steps (a bucket of 16 tokens): the
# static-cache steps exported for 16 tokens, and the growing-cache steps'
# decoders without a past (decoder_model.onnx) compiled for 16.
PREFILLS = {"gpt2_step": "gpt2_prefill16", "llama_step": "llama_prefill16",
            "gpt2_with_past": "gpt2_without_past", "llama_with_past": "llama_without_past"}
PREFILL_FLAGS = {name: ["--dim", "batch_size=1", "--dim", "sequence_length=16"]
                 for name in ("gpt2_without_past", "llama_without_past")}
# The steps compiled with their prefill into one artifact over one SRAM
# layout (hetc compile --prefill), whose prefill writes the caches in
# place: the static-cache steps with their 16-token exports, which take and
# update the caches, and the growing-cache steps with their decoders
# without a past at a bucket of 16 (--prefill-buckets), which hetc
# rewrites to write the caches at their position_ids.
SHARED_PREFILLS = {"gpt2_step": "gpt2_prefill16", "llama_step": "llama_prefill16",
                   "gpt2_step_b4": "gpt2_prefill16", "llama_step_b4": "llama_prefill16",
                   "gpt2_with_past": "gpt2_without_past",
                   "llama_with_past": "llama_without_past"}
# A prompt that fills the bucket.
LONG_PROMPT = "3,1,4,1,5,9,2,6,5,3,5,8,9,7,9,3"
# The prompts beside --prompt for a step with batch slots.
MORE_PROMPTS = ["100,200", "7", "9,8,7,6", "5"]


def slots_of(name):
    """The batch slots of a step (its name ends in _b<slots>), and the
    one-slot step ONNX Runtime checks each sequence against."""
    match = re.search(r"_b(\d+)$", name)
    return (int(match.group(1)), name[:match.start()]) if match else (1, name)


def ort_tokens(model, prompt, count):
    """Greedy tokens of ONNX Runtime's own loop over the decode step."""
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    state = {i.name: np.zeros(i.shape, np.float32)
             for i in session.get_inputs() if i.name.startswith("past")}
    outputs = [o.name for o in session.get_outputs()]
    tokens, position, next_id = [], 0, prompt[0]
    while len(tokens) < count:
        token = prompt[position] if position < len(prompt) else next_id
        feeds = dict(state, input_ids=np.array([[token]], np.int64),
                     position=np.array([position], np.int64))
        result = dict(zip(outputs, session.run(None, feeds)))
        state = {name: result["present" + name[4:]] for name in state}
        if position + 1 >= len(prompt):
            next_id = int(np.argmax(result["logits"].reshape(-1)))
            tokens.append(next_id)
        position += 1
    return tokens


def ort_growing_tokens(model, prompt, count):
    """Greedy tokens of ONNX Runtime's own loop over a decoder whose cache
    grows (Hugging Face's decoder_with_past_model.onnx): the past starts
    empty, each step feeds one token with attention_mask of ones over the
    past and it and position_ids at its position, and the present outputs
    become the next past."""
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    past = {}
    for i in session.get_inputs():
        if i.name.startswith("past"):
            shape = [d if isinstance(d, int) else 1 for d in i.shape]
            shape[2] = 0
            past[i.name] = np.zeros(shape, np.float32)
    names = [o.name for o in session.get_outputs()]
    tokens, position, next_id = [], 0, None
    while len(tokens) < count:
        token = prompt[position] if position < len(prompt) else next_id
        feeds = dict(past, input_ids=np.array([[token]], np.int64),
                     attention_mask=np.ones((1, position + 1), np.int64),
                     position_ids=np.array([[position]], np.int64))
        result = dict(zip(names, session.run(None, feeds)))
        past = {name: result["present" + name[len("past_key_values"):]] for name in past}
        if position + 1 >= len(prompt):
            next_id = int(np.argmax(result["logits"].reshape(-1)))
            tokens.append(next_id)
        position += 1
    return tokens


def field(pattern, text, cast=int):
    match = re.search(pattern, text)
    return cast(match.group(1)) if match else None


def sequence_tokens(out, count):
    """The tokens of each sequence `hetc generate` printed: its one line of
    tokens, or one line per sequence when there are several."""
    if count == 1:
        match = re.search(r"^tokens:([ \d]*)$", out, re.M)
        return [[int(t) for t in match.group(1).split()]] if match else [[]]
    found = {int(m.group(1)): [int(t) for t in m.group(2).split()]
             for m in re.finditer(r"^sequence (\d+) .*tokens:([ \d]*)$", out, re.M)}
    return [found.get(i, []) for i in range(count)]


def compare(got, want):
    """None when every sequence's tokens are ONNX Runtime's, else where the
    first difference is."""
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            first = next(j for j, (a, b) in enumerate(zip(g + [-1] * len(w), w)) if a != b)
            return (f"sequence {i}, token {first} differs: hetc {g[first:first + 3]}, "
                    f"ONNX Runtime {w[first:first + 3]}")
    return None


def check(name, args, work):
    row = {"name": name, "status": "fail"}
    model = os.path.join(args.models_dir, name + ".onnx")
    hetx = os.path.join(work, name + ".hetx")
    compiled = subprocess.run([args.hetc, "compile", model, "-o", hetx, *GROWING.get(name, []),
                               *PRECISION.get(name, [])],
                              capture_output=True, text=True)
    if compiled.returncode != 0:
        row["error"] = "compile: " + (compiled.stderr.strip().splitlines() or ["?"])[0]
        return row
    row["bound"] = field(r"physical bound:\s+(\d+) cycles", compiled.stdout)
    row["bound_reason"] = field(r"physical bound:\s+\d+ cycles \(bound by ([a-z ]+);",
                                compiled.stdout, str)
    slots, single = slots_of(name)
    prompts = [args.prompt] + (MORE_PROMPTS if slots > 1 else [])
    flags = [f for p in prompts for f in ("--prompt-ids", p)]
    row["slots"] = slots
    generated = subprocess.run(
        [args.hetc, "generate", hetx, *flags, "--max-new-tokens", str(args.tokens)],
        capture_output=True, text=True)
    if generated.returncode != 0:
        row["error"] = "generate: " + (generated.stderr.strip().splitlines() or ["?"])[-1]
        return row
    out = generated.stdout
    reference = os.path.join(args.models_dir, single + ".onnx")
    loop = ort_growing_tokens if name in GROWING else ort_tokens
    want = [loop(reference, [int(t) for t in p.split(",")], args.tokens) for p in prompts]
    itl = field(r"inter-token latency: predicted (\d+)", out)
    row.update(
        tokens=sum(len(w) for w in want),
        itl=itl,
        itl_sim=field(r"inter-token latency: predicted \d+ cycles \([^)]*\), simulated (\d+)",
                      out),
        rate=field(r"tokens per second at [\d.]+ MHz: ([\d.]+)", out, float),
        on_chip="kept on the chip" in out)
    if slots == 1:
        row.update(
            ttft=field(r"time to first token: predicted (\d+)", out),
            ttft_sim=field(r"time to first token: predicted \d+ cycles \([^)]*\), "
                           r"simulated (\d+)", out))
    else:
        # The first sequence's prompt, from the step it took its slot.
        row["ttft_sim"] = field(r"sequence 0 \(slot \d+, steps [\d-]+, first token after "
                                r"\d+ steps?, (\d+) cycles", out)
        row["ttft"] = itl * len(args.prompt.split(",")) if itl else None
    first = compare(sequence_tokens(out, len(prompts)), want)
    if first:
        row["error"] = first
        return row
    if row["ttft"] != row["ttft_sim"] or row["itl"] != row["itl_sim"]:
        row["error"] = "simulated cycles differ from the prediction"
        return row
    # The same tokens on the CPU backend, with the prompt on the CPU and
    # the decode on the chip after the caches are handed over (one
    # sequence), and with a chip step failing and the CPU taking over.
    others = [("cpu", ["--backend", "cpu"]),
              ("fallback", ["--fallback", "cpu", "--inject-fault-at-step", "10"])]
    if slots == 1:
        others.insert(1, ("prefill", ["--prefill-backend", "cpu"]))
    for label, extra in others:
        other = subprocess.run(
            [args.hetc, "generate", hetx, *flags, "--max-new-tokens", str(args.tokens), *extra],
            capture_output=True, text=True)
        if other.returncode != 0:
            row["error"] = f"generate ({label}): " + (
                other.stderr.strip().splitlines() or ["?"])[-1]
            return row
        if compare(sequence_tokens(other.stdout, len(prompts)), want):
            row["error"] = f"generate ({label}): the tokens differ from ONNX Runtime's"
            return row
        if label == "cpu":
            row["cpu_itl_ms"] = field(r"(?:inter-token|step) latency(?: on the CPU)?: ([\d.]+) ms",
                                      other.stdout, float)
        elif label == "prefill":
            row["handover"] = field(r"hand-over: .*: (\d+) cycles", other.stdout)
    if single in PREFILLS and not check_prefill(row, args, work, hetx, reference, want,
                                                prompts):
        return row
    if name in SHARED_PREFILLS and not check_shared_prefill(row, args, work, reference, want,
                                                            prompts):
        return row
    row["status"] = "pass"
    return row


def check_shared_prefill(row, args, work, reference, want, prompts):
    """The step and its prefill program compiled into one artifact (hetc
    compile --prefill): the same tokens for `prompts` and for a prompt that
    fills the bucket, each prompt's first token after the prefill's cycles
    exactly, no hand-over; its time to first token and its step's
    inter-token latency."""
    name = row["name"]
    shared = os.path.join(work, name + "_shared.hetx")
    buckets = ["--prefill-buckets", "16"] if name in GROWING else []
    compiled = subprocess.run(
        [args.hetc, "compile", os.path.join(args.models_dir, name + ".onnx"), "--prefill",
         os.path.join(args.models_dir, SHARED_PREFILLS[name] + ".onnx"),
         *GROWING.get(name, []), *buckets, "-o", shared],
        capture_output=True, text=True)
    if compiled.returncode != 0:
        row["error"] = "compile --prefill: " + (compiled.stderr.strip().splitlines() or ["?"])[0]
        return False
    runs = [(prompts, want, "shared_ttft")]
    if len(prompts) == 1:
        runs.append(([LONG_PROMPT], None, "shared_ttft16"))
    for some, expected, key in runs:
        if expected is None:
            loop = ort_growing_tokens if name in GROWING else ort_tokens
            expected = [loop(reference, [int(t) for t in p.split(",")], args.tokens)
                        for p in some]
        flags = [f for p in some for f in ("--prompt-ids", p)]
        ran = subprocess.run([args.hetc, "generate", shared, *flags, "--max-new-tokens",
                              str(args.tokens)], capture_output=True, text=True)
        if ran.returncode != 0:
            row["error"] = ("generate (prefill in the artifact): " +
                            (ran.stderr.strip().splitlines() or ["?"])[-1])
            return False
        if compare(sequence_tokens(ran.stdout, len(some)), expected):
            row["error"] = "generate (prefill in the artifact): the tokens differ"
            return False
        if "hand-over" in ran.stdout:
            row["error"] = "prefill in the artifact: a hand-over"
            return False
        row["shared_itl"] = field(r"inter-token latency: predicted (\d+)", ran.stdout)
        row[key] = prefill_ttft(ran.stdout, len(some))
        if row[key] is None:
            row["error"] = "prefill in the artifact: not its predicted cycles"
            return False
    return True


def prefill_ttft(out, sequences):
    """The first sequence's time to first token from a prefill program: with
    several sequences, its line's (hetc generate checks each prefill's
    cycles against its prediction); else the predicted one, None when the
    simulated one differs."""
    if sequences > 1:
        return field(r"sequence 0 \(slot \d+, steps [\d-]+, first token from a prefill "
                     r"of \d+ tokens, (\d+) cycles", out)
    predicted = field(r"time to first token: predicted (\d+)", out)
    simulated = field(r"time to first token: predicted \d+ cycles \([^)]*\), "
                      r"simulated (\d+)", out)
    return predicted if predicted == simulated else None


def check_prefill(row, args, work, hetx, reference, want, prompts):
    """The prompts in the step's prefill program (one run each, then the
    caches moved to the decode step; with batch slots, into the slot each
    prompt takes): the same tokens, for `prompts` and, with one slot, for a
    prompt that fills the bucket; the first sequence's time to first
    token."""
    prefill = PREFILLS[slots_of(row["name"])[1]]
    prefill_hetx = os.path.join(work, prefill + ".hetx")
    if not os.path.exists(prefill_hetx):
        compiled = subprocess.run(
            [args.hetc, "compile", os.path.join(args.models_dir, prefill + ".onnx"), "-o",
             prefill_hetx, "--quiet", *PREFILL_FLAGS.get(prefill, [])],
            capture_output=True, text=True)
        if compiled.returncode != 0:
            row["error"] = f"compile {prefill}: " + (
                compiled.stderr.strip().splitlines() or ["?"])[0]
            return False
    runs = [(prompts, want, "prefill_ttft")]
    if len(prompts) == 1:
        runs.append(([LONG_PROMPT], None, "prefill_ttft16"))
    for some, expected, key in runs:
        if expected is None:
            loop = ort_growing_tokens if row["name"] in GROWING else ort_tokens
            expected = [loop(reference, [int(t) for t in p.split(",")], args.tokens)
                        for p in some]
        flags = [f for p in some for f in ("--prompt-ids", p)]
        ran = subprocess.run(
            [args.hetc, "generate", hetx, *flags, "--max-new-tokens", str(args.tokens),
             "--prefill", prefill_hetx], capture_output=True, text=True)
        if ran.returncode != 0:
            row["error"] = "generate (prefill): " + (ran.stderr.strip().splitlines() or ["?"])[-1]
            return False
        if compare(sequence_tokens(ran.stdout, len(some)), expected):
            row["error"] = (f"generate (prefill, prompts {' '.join(some)}): the tokens differ "
                            "from ONNX Runtime's")
            return False
        row[key] = prefill_ttft(ran.stdout, len(some))
        if row[key] is None:
            row["error"] = "prefill: simulated cycles differ from the prediction"
            return False
    return True


def long_ttft(row):
    """The 16-token prompt's time to first token with the prefill program,
    and as 16 decode steps."""
    if not row.get("prefill_ttft16") or not row.get("itl"):
        return ""
    return f"{row['prefill_ttft16']} / {16 * row['itl']}"


def shared(row):
    """The times to first token and the inter-token latency with the
    prefill in the step's artifact."""
    if not row.get("shared_ttft"):
        return ""
    return (f"{row['shared_ttft']}, {row.get('shared_ttft16') or '-'}, "
            f"{row['shared_itl']}")


def report(rows, args):
    lines = [
        "# Generation",
        "",
        "Generated by `bench/models/generate_models.py --write-report`; do not edit.",
        "Each decode step is exported by `bench/models/export_models.py` with a static KV "
        "cache (the suite decoders' weights and vocabularies; the key and value written at "
        "`position` by `index_copy`, attention up to it), compiled once for tsp-v1 and run by "
        f"`hetc generate` from the prompt `{args.prompt}` for {args.tokens} greedy tokens, "
        "the caches kept on the chip model from step to step. ONNX Runtime runs the same "
        "ONNX step in its own loop; the tokens must be identical, and every step must take "
        "the predicted cycles. The same tokens must also come from the CPU backend "
        "(`--backend cpu`, the artifact's kernel plan) and from a session that runs the "
        "prompt on the CPU and hands the caches over to the chip for the decode "
        "(`--prefill-backend cpu`; docs/backends.md), and from a session whose chip step "
        "10 fails (`--inject-fault-at-step 10 --fallback cpu`: the CPU rebuilds the caches "
        "by replaying the steps so far and serves the rest).",
        "",
        "`gpt2_step_h1024` is a GPT-2-style step whose weights fill most of the chip's "
        "SRAM (4 layers of hidden 1024, 16 heads, a vocabulary of 8192: 59 M parameters), "
        "compiled with `--precision fp16` (its f32 weights would not fit): a decode bound "
        "by installing its weights, as a large model's is; its tokens are still ONNX "
        "Runtime's (fp32) for the prompt above.",
        "",
        "A step with batch slots (`_b4`: input_ids [4, 1], position [4], each slot's key "
        "and value written at its own position by a scatter) generates for five prompts "
        f"at once (`{args.prompt}` and " + ", ".join(f"`{p}`" for p in MORE_PROMPTS) +
        "; the fifth takes the first slot that frees); each sequence's tokens must be "
        "ONNX Runtime's for that prompt alone with the one-slot step. Its prompts are "
        "not handed over from the CPU (`--prefill-backend` takes one sequence); they also "
        "run in the one-slot step's prefill program (`--prefill`), each as its sequence "
        "takes a slot, its cache rows stored into that slot's (the TTFT with prefill "
        "column: the first sequence's, with its hand-over), with the same tokens.",
        "",
        "`gpt2_with_past` and `llama_with_past` are the two styles exported as Hugging Face "
        "exports decoders with "
        "a growing cache (`past_key_values.<i>.key` of a symbolic length concatenated with "
        "the new key into `present.<i>.key`, `attention_mask`, `position_ids`), compiled with "
        "`--max-context 128` into a decode step for every position; ONNX Runtime runs the "
        "original graph with its past growing.",
        "",
        "A one-slot step also runs its prompt in its prefill program (`gpt2_prefill16`, "
        "`llama_prefill16`: the step exported for 16 tokens at once, compiled on its own; "
        "for the growing-cache steps, `gpt2_without_past` and `llama_without_past`, their "
        "decoders without a past as Hugging Face exports them beside them "
        "(`decoder_model.onnx`), compiled with `--dim sequence_length=16`; "
        "`hetc generate --prefill`), for the prompt above and for the 16-token prompt "
        f"`{LONG_PROMPT}`; the tokens must be ONNX Runtime's, and the time to first token "
        "is the prefill's cycles and the hand-over of the prompt's cache rows out of the "
        "prefill's SRAM and into the decode step's (compiled apart, the two programs have "
        "SRAM layouts of their own), exactly as predicted.",
        "",
        "Every static-cache step is also compiled with its prefill program into one "
        "artifact over one SRAM layout (`hetc compile STEP --prefill PREFILL`: the "
        "weights placed once, the prefill writing the step's caches in place; for a step "
        "of four slots the one-sequence prefill is compiled once per slot, into that "
        "slot's rows), and so is every growing-cache step with its decoder without a "
        "past at a bucket of 16 tokens (`--prefill-buckets 16`: rewritten to write its "
        "keys and values into the step's caches at its `position_ids`, as a folder "
        "exported by Optimum compiles in one command); each "
        "generates from its artifact without `--prefill`, for the prompts above "
        "and, with one slot, the 16-token prompt: the tokens must be ONNX Runtime's, with "
        "no hand-over, and each prefill must take its predicted cycles.",
        "",
        "Columns: the batch slots; time to first token (the prompt run as decode steps; "
        "with slots, the first sequence's) and inter-token latency in cycles, predicted at "
        "compile time and simulated; tokens per second at the chip clock (with slots, of "
        "the whole session: every token over every step); the step's physical bound from "
        "the compile summary (what bounds it) and the inter-token latency over it; the time "
        "to first token with the prefill program, for the prompt above and for the "
        "16-token prompt (against 16 decode steps), and with the prefill in the step's "
        "artifact (the two prompts; the step's inter-token latency there); the CPU "
        "backend's inter-token latency (wall, the median step); the cycles of handing the "
        "caches over to the chip after a prompt on the CPU (the chip's DMA engines).",
        "",
        "| model | slots | tokens | TTFT predicted | TTFT simulated | ITL predicted "
        "| ITL simulated | tokens/s | physical bound | ITL / bound | TTFT with prefill "
        "| 16-token TTFT with prefill / as steps | TTFT, 16-token TTFT, ITL with the prefill "
        "in the artifact | CPU ITL ms | hand-over cycles | result |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---|---:|---:|---|",
    ]
    for r in rows:
        bound = (f"{r['bound']} ({r['bound_reason']})" if r.get("bound") else "")
        ratio = (f"{r['itl'] / r['bound']:.1f}x" if r.get("bound") and r.get("itl") else "")
        result = "pass" if r["status"] == "pass" else "fail: " + r.get("error", "")
        lines.append(
            f"| {r['name']} | {r.get('slots', '')} | {r.get('tokens', '')} "
            f"| {r.get('ttft', '') or ''} | {r.get('ttft_sim', '') or ''} "
            f"| {r.get('itl', '')} | {r.get('itl_sim', '')} | {r.get('rate', '') or ''} "
            f"| {bound} | {ratio} | {r.get('prefill_ttft', '') or ''} | {long_ttft(r)} "
            f"| {shared(r)} "
            f"| {r.get('cpu_itl_ms', '') or ''} | {r.get('handover', '') or ''} "
            f"| {result} |")
    lines += suite_common.summary(rows, "decode steps generate the tokens ONNX Runtime does")
    return "\n".join(lines)


def main():
    parser = suite_common.suite_parser(__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--prompt", default="3,1,4")
    parser.add_argument("--write-report", action="store_true")
    parser.add_argument("--report", default=os.path.join(ROOT, "docs", "generation.md"))
    args = parser.parse_args()
    subprocess.run([args.torch_python, os.path.join(HERE, "export_models.py"),
                    args.models_dir, "--only", ",".join(STEPS + list(PREFILLS.values()))],
                   check=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="hetc-generate-") as work:
        for name in STEPS:
            row = check(name, args, work)
            rows.append(row)
            print(f"{name}: {row['status']}" + (
                f" ({row['error']})" if row["status"] != "pass" else
                f" ({row['tokens']} tokens; TTFT {row['ttft']} cycles, ITL {row['itl']} cycles)"),
                flush=True)
    if args.write_report:
        suite_common.write_page(args.report, report(rows, args))
    passed = sum(r["status"] == "pass" for r in rows)
    print(f"{passed} passed, {len(rows) - passed} failed")
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
