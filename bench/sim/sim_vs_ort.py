"""Chip-model speed against ONNX Runtime on the same MLPs and inputs.

Usage: sim_vs_ort.py HETC HETC_SIM_BENCH [--chip FILE] [--reps N] [--threads N]

Builds MLPs of growing size with onnx.helper, compiles each with
`HETC compile`, then in the same run times ONNX Runtime on the CPU (one
session, --reps runs after a warm-up, median) and the chip model through
HETC_SIM_BENCH (a loaded program run in full mode and timing-only), on the
same input. Prints one row per model: instructions, ORT us/run, simulator
us/run (full), their ratio, timing-only M instructions/s, and the largest
difference between the two outputs as a check that both computed the same.
ORT runs on --threads intra-op threads (default 1, as the simulator uses
one core).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

# (name, batch, layer widths): Gemm-like MatMul + Add layers with Relu
# between them.
MODELS = [
    ("mlp-16-32-10", 2, [16, 32, 10]),
    ("mlp-64-128-10", 4, [64, 128, 10]),
    ("mlp-256-512-256-10", 8, [256, 512, 256, 10]),
    ("mlp-512-1024-1024-10", 16, [512, 1024, 1024, 10]),
]


def build_mlp(path, batch, widths, seed):
    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    current = "x"
    for i, (n_in, n_out) in enumerate(zip(widths, widths[1:])):
        w = (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(np.float32)
        b = (rng.standard_normal(n_out) * 0.1).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        last = i == len(widths) - 2
        nodes.append(helper.make_node("MatMul", [current, f"w{i}"], [f"m{i}"], name=f"fc{i}/matmul"))
        out = "y" if last else f"a{i}"
        nodes.append(helper.make_node("Add", [f"m{i}", f"b{i}"], [out], name=f"fc{i}/bias"))
        if not last:
            nodes.append(helper.make_node("Relu", [out], [f"h{i}"], name=f"fc{i}/relu"))
            current = f"h{i}"
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, widths[0]])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, widths[-1]])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


def time_ort(path, x, reps, threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    feed = {"x": x}
    for _ in range(min(reps, 100)):
        result = session.run(None, feed)
    times = []
    for _ in range(reps):
        start = time.perf_counter_ns()
        session.run(None, feed)
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times) / 1e3, result[0]


def run_bench(bench, hetx, chip, x_path):
    out = subprocess.run([bench, hetx, "--chip", chip, "--input", f"x={x_path}"],
                         check=True, capture_output=True, text=True).stdout
    instructions = int(re.search(r": (\d+) instructions", out).group(1))
    full_us = float(re.search(r"^full: .*median ([\d.]+) us/run", out, re.M).group(1))
    timing = float(re.search(r"^timing-only: .*, ([\d.]+) M instructions/s", out, re.M).group(1))
    return instructions, full_us, timing


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hetc")
    parser.add_argument("bench")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--chip", default=os.path.join(root, "chips", "tsp-v1.chip"))
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    print(f"chip: {args.chip}; ONNX Runtime {ort.__version__}, CPU, "
          f"{args.threads} thread(s), median of {args.reps} runs")
    header = ("model", "batch", "instructions", "ORT us/run", "sim us/run",
              "sim/ORT", "timing Minstr/s", "max |diff|")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed, (name, batch, widths) in enumerate(MODELS):
            model = os.path.join(tmp, name + ".onnx")
            hetx = os.path.join(tmp, name + ".hetx")
            build_mlp(model, batch, widths, seed)
            subprocess.run([args.hetc, "compile", model, "--chip", args.chip,
                            "-o", hetx, "--quiet"], check=True)
            x = np.random.default_rng(100 + seed).uniform(
                -1, 1, (batch, widths[0])).astype(np.float32)
            x_path = os.path.join(tmp, name + ".x.npy")
            np.save(x_path, x)
            ort_us, expected = time_ort(model, x, args.reps, args.threads)
            instructions, sim_us, timing = run_bench(args.bench, hetx, args.chip, x_path)
            out_dir = os.path.join(tmp, name + ".out")
            subprocess.run([args.hetc, "run", hetx, "--chip", args.chip,
                            "--input", f"x={x_path}", "--output-dir", out_dir],
                           check=True, capture_output=True)
            diff = float(np.max(np.abs(np.load(os.path.join(out_dir, "y.npy")) - expected)))
            rows.append((name, str(batch), str(instructions), f"{ort_us:.1f}",
                         f"{sim_us:.1f}", f"{sim_us / ort_us:.1f}x", f"{timing:.1f}",
                         f"{diff:.2e}"))
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    for row in [header] + rows:
        print("  ".join(cell.rjust(w) for cell, w in zip(row, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
