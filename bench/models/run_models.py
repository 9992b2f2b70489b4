#!/usr/bin/env python3
"""The model suite: exported architectures compiled, run on the chip model
and compared with ONNX Runtime.

Usage: run_models.py --hetc HETC [--models-dir DIR] [--torch-python PY]
                     [--quick] [--only NAME,...] [--chip FILE]
                     [--write-report [--report docs/models.md]]

Per model it
  1. exports it with bench/models/export_models.py under --torch-python
     (a Python with torch and torchvision; cached in --models-dir);
  2. compiles it with `HETC compile` (the --dim values of its export),
     timing the compile and reading its peak memory;
  3. runs it with `HETC run` on inputs drawn from a fixed seed (token ids
     below the vocabulary size), checking predicted == simulated cycles;
  4. runs ONNX Runtime on the same inputs and compares every output within
     |hetc - ort| <= ATOL * min(1, max|ort|) + RTOL * |ort| (fp32: ATOL 1e-4,
     RTOL 1e-3).
A model that does not fit in fp32 compiles with the narrower weights
PRECISION gives it (hetc compile --precision), against the tolerance
TOLERANCE states for that precision. The models ALSO names run again at
a narrower precision (fp16 or int8 weights), measured by their relative
error against RELATIVE_L2.
Each hetc command runs with its address space limited to --memory-gib
(default 16; 0 for none) and its time to --timeout. It prints one line per model, then
"N passed, M failed". --write-report writes the table to docs/models.md. A model that fails gives the first
error line, so the page says why.
"""
import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from compare_with_ort import npy_path  # noqa: E402
import quantize_models  # noqa: E402
import suite_common  # noqa: E402

ATOL, RTOL = 1e-4, 1e-3
# Models compiled with narrower matrix-unit weights (docs/precision.md),
# because their fp32 weights do not fit in one chip's SRAM.
PRECISION = {"vit_b_16": "fp16", "gpt2_step_h1024": "fp16"}
# Models also run at a narrower precision, each a row of its own in the
# report: what int8 weights cost in accuracy and save in SRAM.
ALSO = [("resnet50", "fp16"), ("resnet50", "int8"),
        ("vit_b_16", "int8"), ("bert_encoder", "int8"), ("gpt2_decoder", "int8"),
        ("llama_decoder", "int8")]
# (ATOL, RTOL) per precision: fp16 weights round each to 11 significant
# bits, so outputs carry relative errors of about 2^-11 per layer.
TOLERANCE = {"fp32": (ATOL, RTOL), "fp16": (1e-2, 1e-2), "bf16": (5e-2, 5e-2)}
# Models in PRECISION whose outputs are measured by RELATIVE_L2, as the
# rows of ALSO are: gpt2_step_h1024's logits over a vocabulary of 8192,
# after four layers of hidden 1024 with fp16 weights, carry elements near
# zero that rounding moves by about twice the elementwise fp16 bound
# (its greedy tokens equal ONNX Runtime's: bench/models/generate_models.py).
BY_NORM = {"gpt2_step_h1024"}
# int8 weights carry an error of up to half a step of their column's
# largest magnitude over 127, about 1% of a typical weight: an element
# near zero in a large output (logits) is off by more than any
# elementwise bound of that size. int8 is measured as the relative error
# of each output as a whole, ||hetc - ort|| / ||ort||, against this bound.
# fp16 rounds activations at every convolution's input too, so a deep CNN
# is measured the same way, against a bound five times tighter.
# A model quantised to int8 in QDQ form is compared with ONNX Runtime
# running the same QDQ model: both round every activation to int8, each
# in its own arithmetic (ONNX Runtime's fused integer kernels requantise
# differently from its unfused reference, by about 3% on ResNet-50), so a
# value near a rounding step goes either way and the difference carries
# through the layers; the int8 bound holds it.
RELATIVE_L2 = {"int8": 5e-2, "fp16": 1e-2, "qdq": 5e-2}
NUMPY_TYPES = {"float32": np.float32, "int64": np.int64, "float16": np.float16}


def run_measured(cmd, timeout, memory_gib):
    """Runs `cmd` with its address space limited to `memory_gib`; returns
    (returncode, output, seconds, peak RSS in MiB)."""
    def limit():
        # 0: no limit (AddressSanitizer reserves terabytes of shadow
        # address space, which any useful limit refuses).
        if memory_gib > 0:
            size = int(memory_gib * (1 << 30))
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    start = time.monotonic()
    with tempfile.TemporaryFile(mode="w+") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                preexec_fn=limit)
        timed_out = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > timeout:
                proc.kill()
                timed_out = True
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        log.seek(0)
        out = log.read()
    if timed_out:
        out += f"\ntimed out after {timeout} s"
    return proc.returncode, out, time.monotonic() - start, usage.ru_maxrss / 1024


def first_error(output):
    for line in output.splitlines():
        if ("error" in line.lower() or "timed out" in line
                or "out of memory" in line or "bad_alloc" in line):
            return line.strip()
    lines = [l for l in output.splitlines() if l.strip()]
    return lines[-1].strip() if lines else "no output"


def field(pattern, text, cast=float):
    m = re.search(pattern, text)
    return cast(m.group(1)) if m else None


def make_inputs(info, seed=0):
    rng = np.random.default_rng(seed)
    inputs = {}
    for name, spec in info["inputs"].items():
        dtype = NUMPY_TYPES[spec["dtype"]]
        if np.issubdtype(dtype, np.integer):
            inputs[name] = rng.integers(0, spec.get("high", 2), spec["shape"]).astype(dtype)
        else:
            inputs[name] = rng.standard_normal(spec["shape"]).astype(dtype)
    return inputs


def ort_run(model_path, inputs, reps=3, threads=1):
    """ONNX Runtime's outputs names, outputs and fastest of `reps` runs
    after a warm-up, on `threads` threads."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model_path, options)
    outputs = session.run(None, inputs)
    times = []
    for _ in range(reps):
        start = time.monotonic()
        session.run(None, inputs)
        times.append(time.monotonic() - start)
    return [o.name for o in session.get_outputs()], outputs, min(times)


def compare_outputs(names, expected, out_dir, precision, by_norm):
    """Compares the outputs hetc wrote to `out_dir` with ONNX Runtime's
    (`names`, `expected`) at `precision`'s tolerance (`by_norm`: by the
    relative L2 error of RELATIVE_L2, as int8 always is). Returns the worst
    error over its bound, and what is wrong ("" when nothing)."""
    worst = 0.0
    for out_name, want in zip(names, expected):
        if want.size > 1 and np.all(want == want.flat[0]):
            return worst, (f"output '{out_name}' of ONNX Runtime is the constant "
                           f"{want.flat[0]}: the comparison could not fail")
        got = np.load(npy_path(out_dir, out_name))
        if got.shape != want.shape:
            return worst, f"output '{out_name}': shape {got.shape}, ONNX Runtime {want.shape}"
        ref = want.astype(np.float64)
        err = np.abs(got.astype(np.float64) - ref)
        if by_norm or precision == "int8":
            norm = np.linalg.norm(ref)
            relative = float(np.linalg.norm(err) / norm) if norm else float(np.max(err))
            worst = max(worst, relative / RELATIVE_L2[precision])
            continue
        atol, rtol = TOLERANCE[precision]
        # Scaled to the output's magnitude where that is below one: random
        # weights leave some CNNs' logits near 1e-9, where any result would
        # be within an absolute 1e-4.
        atol *= min(1.0, float(np.max(np.abs(ref)))) if ref.size else 1.0
        bound = atol + rtol * np.abs(ref)
        worst = max(worst, float(np.max(err / bound)) if err.size else 0.0)
    if worst > 1.0:
        if by_norm or precision == "int8":
            bound = f"the relative error bound {RELATIVE_L2[precision]:g}"
        else:
            bound = "the tolerance {:g}*min(1, max|ref|) + {:g}*|ref|".format(*TOLERANCE[precision])
        return worst, f"outputs differ from ONNX Runtime: worst error is {worst:.2f}x {bound}"
    return worst, ""


def check_model(name, args, work, precision=None, by_norm=False):
    """Checks one model; `by_norm` measures it by RELATIVE_L2 (the rows
    of ALSO, and int8 everywhere)."""
    row = {"name": name, "status": "fail"}
    info_path = os.path.join(args.models_dir, name + ".json")
    model_path = os.path.join(args.models_dir, name + ".onnx")
    info = json.load(open(info_path))
    row["parameters"] = info["parameters"]
    hetx = os.path.join(work, name + ".hetx")
    cmd = [args.hetc, "compile", model_path, "-o", hetx]
    if args.chip:
        cmd += ["--chip", args.chip]
    for dim, value in info["dims"].items():
        cmd += ["--dim", f"{dim}={value}"]
    # A quantised model's own QDQ nodes say its precision ("qdq"): it
    # compiles as it is.
    if name in quantize_models.QUANTIZED:
        precision = "qdq"
    precision = precision or args.precision or PRECISION.get(name, "fp32")
    row["precision"] = precision
    if precision not in ("fp32", "qdq"):
        cmd += ["--precision", precision]
    rc, out, seconds, rss = run_measured(cmd, args.timeout, args.memory_gib)
    row.update(compile_s=seconds, compile_mib=rss)
    if rc != 0:
        row["error"] = "compile: " + first_error(out)
        return row
    row["instructions"] = field(r"instructions:\s+(\d+)", out, int)
    row["cycles"] = field(r"predicted cycles:\s+(\d+)", out, int)
    row["us"] = field(r"predicted cycles:\s+\d+ \(([\d.]+) us", out)
    row["sram"] = field(r"SRAM peak:\s+(\d+ of \d+ vectors \([\d.]+%\))", out, str)
    row["overhead"] = field(r"SRAM layout:.*\(overhead ([\d.]+)%\)", out)

    inputs = make_inputs(info)
    in_dir = os.path.join(work, name + "-in")
    out_dir = os.path.join(work, name + "-out")
    os.makedirs(in_dir, exist_ok=True)
    cmd = [args.hetc, "run", hetx, "--output-dir", out_dir]
    if args.chip:
        cmd += ["--chip", args.chip]
    for input_name, value in inputs.items():
        path = npy_path(in_dir, input_name)
        np.save(path, value)
        cmd += ["--input", f"{input_name}={path}"]
    rc, out, seconds, _ = run_measured(cmd, args.timeout, args.memory_gib)
    row["sim_s"] = seconds
    if rc != 0:
        row["error"] = "run: " + first_error(out)
        return row
    if "predicted cycles == simulated cycles: yes" not in out:
        row["error"] = "run: predicted cycles differ from simulated cycles"
        return row
    planes = [float(x) for x in re.findall(r"matrix plane \d+ ([\d.]+)%", out)]
    row["matrix_util"] = sum(planes) / len(planes) if planes else 0.0

    names, expected, ort_s = ort_run(model_path, inputs)
    row["ort_s"] = ort_s
    worst, error = compare_outputs(names, expected, out_dir, precision, by_norm)
    row["error_ratio"] = worst
    if error:
        row["error"] = error
        return row
    row["status"] = "pass"
    return row


def fmt(value, spec, suffix=""):
    return "" if value is None else format(value, spec) + suffix


def report(rows, args):
    lines = [
        "# Model suite",
        "",
        "Generated by `bench/models/run_models.py --write-report`; do not edit.",
        f"Chip: `{os.path.basename(args.chip) if args.chip else 'tsp-v1 (default)'}`; "
        f"onnx {onnx.__version__}, onnxruntime {ort.__version__}. Each model is exported "
        "by `bench/models/export_models.py` (random weights from a fixed seed, eval mode, "
        "opset 17), compiled, run on the chip model and compared with ONNX Runtime on the "
        f"same inputs within |hetc - ort| <= {ATOL:g}*min(1, max|ort|) + {RTOL:g}*|ort| (fp32; "
        "the absolute term shrinks with an output below one, as random weights leave some "
        "CNNs' logits near 1e-9). A model whose "
        "fp32 weights do not fit in the chip's SRAM compiles with `--precision fp16` "
        "(matrix-unit weights in fp16, activations and accumulation in fp32; "
        "docs/precision.md) and is compared within "
        f"{TOLERANCE['fp16'][0]:g} + {TOLERANCE['fp16'][1]:g}*|ort|; the precision column says which. "
        "The rows after the first of a model run it again at a narrower precision: "
        "`--precision fp16` (the weights of matmuls and convolutions in fp16, their inputs "
        "cast to fp16) or `--precision int8` (weight-only, one scale per output column, "
        "multiplied as fp16; convolutions take fp16 weights), where the error is each "
        "output's relative error as a whole, ||hetc - ort|| / ||ort||, against "
        f"{RELATIVE_L2['fp16']:g} (fp16) or {RELATIVE_L2['int8']:g} (int8): rounding moves an "
        "element near zero of a large output (logits) by more than any elementwise bound "
        "of that size. gpt2_step_h1024, compiled at fp16 only, is measured that way too. "
        "A model named *_qdq is its export quantised to int8 in ONNX's QDQ form by "
        "onnxruntime's quantize_static (`bench/models/quantize_models.py`: activations "
        "and weights int8, symmetric, a weight scale per output channel, calibrated on "
        "random inputs); it compiles as it is (precision qdq: its convolutions multiply "
        "int8 by int8 on the matrix unit) and is compared with ONNX Runtime running the "
        f"same QDQ model, by the relative error against {RELATIVE_L2['qdq']:g}.",
        "",
        "Columns: parameters; the precision of the matrix-unit weights; compile wall time "
        "and peak memory; instructions; predicted "
        "cycles and microseconds (equal to the simulated ones for every model that runs); "
        "SRAM peak in rows of 320 32-bit lanes (the compile summary's vectors), and the "
        "layout's overhead there (the bytes of the peak's rows beyond the bytes of the "
        "tensors they hold: values are stored at their width, but rows are padded to whole "
        "vectors of 320 lanes); mean matrix-plane utilisation over the run (the cycles "
        "the planes are busy: an M_MATMUL of f32 inputs keeps its plane 12 cycles, of "
        "fp16 4, of int8 1); the "
        "chip model's wall time against ONNX Runtime's (one CPU thread each); the worst "
        "error as a fraction of the tolerance.",
        "",
        "| model | params | precision | compile s | compile MiB | instructions | cycles | µs | SRAM peak | layout overhead "
        "| matrix util | sim s / ORT s | error/tol | result |",
        "|---|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        ratio = (f"{r['sim_s']:.2f} / {r['ort_s']:.4f}" if r.get("ort_s") else "")
        result = "pass" if r["status"] == "pass" else "fail: " + r.get("error", "").replace("|", "\\|")
        lines.append(
            f"| {r['name']} | {r['parameters'] / 1e6:.2f} M | {r.get('precision', 'fp32')} | {fmt(r.get('compile_s'), '.1f')} "
            f"| {fmt(r.get('compile_mib'), '.0f')} | {fmt(r.get('instructions'), 'd')} "
            f"| {fmt(r.get('cycles'), 'd')} | {fmt(r.get('us'), '.1f')} | {r.get('sram') or ''} | {fmt(r.get('overhead'), '.1f', '%')} "
            f"| {fmt(r.get('matrix_util'), '.1f')}{'%' if r.get('matrix_util') is not None else ''} "
            f"| {ratio} | {fmt(r.get('error_ratio'), '.3f')} | {result} |")
    lines += suite_common.summary(rows, "models compile, run and match ONNX Runtime")
    return "\n".join(lines)


def main():
    parser = suite_common.suite_parser(__doc__.splitlines()[0])
    parser.add_argument("--chip", default="")
    parser.add_argument("--quick", action="store_true", help="only the quick models")
    parser.add_argument("--only", default="")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per command")
    parser.add_argument("--memory-gib", type=float, default=16,
                        help="address-space limit of each hetc command, GiB "
                        "(0: none, as the sanitizer build needs)")
    parser.add_argument("--precision", default="", choices=["", "fp32", "fp16", "bf16", "int8"],
                        help="compile every model at this precision (default: fp32, "
                             "or the model's entry in PRECISION)")
    parser.add_argument("--write-report", action="store_true")
    parser.add_argument("--report", default=os.path.join(ROOT, "docs", "models.md"))
    args = parser.parse_args()

    # The quantised models are made from exports (quantize_models.py):
    # --only names them or their sources alike.
    only = [n for n in args.only.split(",") if n]
    quantized = [n for n in quantize_models.QUANTIZED
                 if (not only and not args.quick) or n in only]
    if only:
        sources = [quantize_models.QUANTIZED[n] for n in quantized]
        args.only = ",".join(dict.fromkeys(
            [n for n in only if n not in quantize_models.QUANTIZED] + sources))
    names = suite_common.exported_models(args, "run_models.py")
    if only:
        names = [n for n in names if n in only]
    for name in quantized:
        made = quantize_models.quantize(name, args.models_dir)
        print(f"{name}: {'quantized' if made else 'up to date'}", flush=True)
    names += quantized

    rows = []
    runs = [(name, None) for name in names]
    if not args.precision:
        runs += [(name, precision) for name, precision in ALSO if name in names]
    with tempfile.TemporaryDirectory(prefix="hetc-models-") as work:
        for name, precision in runs:
            row = check_model(name, args, work, precision,
                              by_norm=(precision is not None or name in BY_NORM
                                       or name in quantize_models.QUANTIZED))
            rows.append(row)
            print(f"{name}{' at ' + precision if precision else ''}: {row['status']}"
                  + (f" ({row['error']})" if row["status"] != "pass" else
                     f" ({row['cycles']} cycles, error/tol {row['error_ratio']:.3f})"),
                  flush=True)
            for leftover in os.listdir(work):
                path = os.path.join(work, leftover)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    if args.write_report:
        text = report(rows, args)
        suite_common.write_page(args.report, text)
    passed = sum(r["status"] == "pass" for r in rows)
    print(f"{passed} passed, {len(rows) - passed} failed")
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
