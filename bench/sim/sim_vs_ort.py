"""Chip-model speed against ONNX Runtime on the same MLPs and inputs.

Usage: sim_vs_ort.py HETC HETC_SIM_BENCH [--chip FILE] [--reps N]
                     [--rounds N] [--threads N] [--compare OTHER_BENCH]

Builds MLPs of growing size with onnx.helper and compiles each with
`HETC compile`. Then, per model and in the same run, on the same input,
for --rounds rounds: times ONNX Runtime on the CPU (one session, --reps runs
after a warm-up, median) and the chip model through HETC_SIM_BENCH (the
loaded program run after a warm-up run, in full mode and timing-only, each
for half a second and at least 3 runs, median). Alternating rounds spread the noise of a shared
machine over both; the table gives the median over rounds.

Columns: instructions; ORT us/run, the wall time of InferenceSession.run
from Python; the simulator's full run (preloading SRAM, executing with fp32
values, reading the outputs), timed in C++; sim/ORT; timing-only M
instructions/s; and the largest
difference between the simulator's and ORT's outputs, as a check that both
computed the same. Above the table: the wall time of session.run of a
one-float Identity model, roughly the Python binding's share of every ORT
figure, which the simulator's C++ timing does not pay (on small models it
is most of ORT's time). ORT runs on --threads intra-op threads (default 1, as
the simulator uses one core) and one inter-op thread. --compare times a
second build of hetc-sim-bench (say, of an older commit) in the same rounds
and adds its figures ("before") to the table.
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


def ort_options(threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return options


def time_ort(path, x, reps, threads):
    """Median wall time of session.run in us, and the output."""
    session = ort.InferenceSession(path, ort_options(threads),
                                   providers=["CPUExecutionProvider"])
    feed = {"x": x}
    for _ in range(min(reps, 100)):
        result = session.run(None, feed)
    times = []
    for _ in range(reps):
        start = time.perf_counter_ns()
        session.run(None, feed)
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times) / 1e3, result[0]


def binding_overhead(tmp, reps, threads):
    """Median wall time of session.run on an Identity model of one float, in
    us: roughly what the Python binding adds to every ORT run above."""
    path = os.path.join(tmp, "identity.onnx")
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])], "identity",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)
    return time_ort(path, np.zeros(1, np.float32), reps, threads)[0]


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
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--compare", metavar="OTHER_BENCH")
    args = parser.parse_args()

    print(f"chip: {args.chip}; ONNX Runtime {ort.__version__}, CPU, "
          f"{args.threads} thread(s); per round the median of {args.reps} ORT "
          f"runs and of >= 0.5 s of simulator runs; the median over "
          f"{args.rounds} alternating rounds")
    header = ("model", "batch", "instructions", "ORT us/run", "sim us/run",
              "sim/ORT", "timing Minstr/s", "max |diff|")
    if args.compare:
        header += ("before us/run", "before/ORT", "before timing Minstr/s")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        overhead = binding_overhead(tmp, args.reps, args.threads)
        print(f"session.run of a one-float Identity model: {overhead:.1f} us "
              f"(the Python binding's share of each ORT figure, roughly)")
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
            ort_us, sim_us, timing, old_us, old_timing = [], [], [], [], []
            for _ in range(args.rounds):
                if args.compare:
                    _, full, rate = run_bench(args.compare, hetx, args.chip, x_path)
                    old_us.append(full)
                    old_timing.append(rate)
                wall, expected = time_ort(model, x, args.reps, args.threads)
                ort_us.append(wall)
                instructions, full, rate = run_bench(args.bench, hetx, args.chip,
                                                     x_path)
                sim_us.append(full)
                timing.append(rate)
            out_dir = os.path.join(tmp, name + ".out")
            subprocess.run([args.hetc, "run", hetx, "--chip", args.chip,
                            "--input", f"x={x_path}", "--output-dir", out_dir],
                           check=True, capture_output=True)
            diff = float(np.max(np.abs(np.load(os.path.join(out_dir, "y.npy")) - expected)))
            ratio = statistics.median(s / o for s, o in zip(sim_us, ort_us))
            row = (name, str(batch), str(instructions),
                   f"{statistics.median(ort_us):.1f}",
                   f"{statistics.median(sim_us):.1f}", f"{ratio:.1f}x",
                   f"{statistics.median(timing):.1f}",
                   f"{diff:.2e}")
            if args.compare:
                before = statistics.median(s / o for s, o in zip(old_us, ort_us))
                row += (f"{statistics.median(old_us):.1f}", f"{before:.1f}x",
                        f"{statistics.median(old_timing):.1f}")
            rows.append(row)
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    for row in [header] + rows:
        print("  ".join(cell.rjust(w) for cell, w in zip(row, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
