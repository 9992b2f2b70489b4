#!/usr/bin/env python3
"""Roofline: how close hetc's schedules come to the chip's physical limit.

Usage: roofline.py --hetc HETC [--chip FILE] [--only gemm,layer,models]
                   [--models-dir DIR] [--models resnet50,...] [--work DIR]

For each case it builds an ONNX model, compiles it with `HETC compile`
and prints the predicted cycles, the physical bound of the compile
summary (docs/performance.md, "The physical bound"), the term that sets
it and the fraction of it the schedule reaches (bound / predicted), with
the compile wall time. Cases:
  gemm    Y = X W for M in {1, 8, 64, 320, 1024} and K = N in {1024,
          4096}: int8 (MatMulInteger, int32 result), fp16 (fp16 weights,
          --precision fp16) and fp32;
  layer   one pre-norm transformer layer of hidden 1024 (16 heads, FFN
          4096): prefill over 128 tokens, and decode of 1 token against a
          KV cache of 128 given as inputs;
  models  the exported models of the model suite found in --models-dir
          (bench/models/run_models.py makes them), with their --dim
          values; --models picks some (ResNet-50 is "resnet50").
A case that does not compile prints its first error line. Figures are
from one run on one machine; the fraction does not depend on the machine.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "models"))
from run_models import PRECISION  # noqa: E402  the suite's own precisions


def save(nodes, inputs, outputs, inits, path):
    graph = helper.make_graph(nodes, "roofline", inputs, outputs, inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", OPSET)])
    onnx.save(model, path)


def gemm(path, m, k, n, dtype):
    """Y = X W with a constant W; int8 takes MatMulInteger."""
    rng = np.random.default_rng(0)
    if dtype == "int8":
        w = rng.integers(-8, 8, (k, n)).astype(np.int8)
        nodes = [helper.make_node("MatMulInteger", ["x", "w"], ["y"])]
        x = helper.make_tensor_value_info("x", TensorProto.INT8, [m, k])
        y = helper.make_tensor_value_info("y", TensorProto.INT32, [m, n])
    else:
        w = (rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32)
        nodes = [helper.make_node("MatMul", ["x", "w"], ["y"])]
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])
    save(nodes, [x], [y], [numpy_helper.from_array(w, "w")], path)


def layer(path, seq, past, hidden=1024, heads=16, ffn=4096):
    """A pre-norm transformer layer over `seq` new tokens; with `past`,
    attention also covers `past` cached keys and values given as inputs."""
    rng = np.random.default_rng(1)
    hd = hidden // heads
    inits, nodes = [], []

    def const(name, shape, scale=None):
        value = rng.standard_normal(shape).astype(np.float32)
        value *= scale if scale is not None else 1 / np.sqrt(shape[0])
        inits.append(numpy_helper.from_array(value, name))
        return name

    def ints(name, values):
        inits.append(numpy_helper.from_array(np.array(values, np.int64), name))
        return name

    def node(op, ins, attrs=None, name=None):
        out = name or f"t{len(nodes)}"
        nodes.append(helper.make_node(op, ins, [out], **(attrs or {})))
        return out

    def norm(x, tag):
        return node("LayerNormalization",
                    [x, const(f"{tag}_g", [hidden], 1.0),
                     const(f"{tag}_b", [hidden], 0.1)], {"axis": -1})

    def split_heads(x, length):
        r = node("Reshape", [x, ints(f"s{len(nodes)}", [1, length, heads, hd])])
        return node("Transpose", [r], {"perm": [0, 2, 1, 3]})

    h = norm("x", "ln1")
    q = split_heads(node("MatMul", [h, const("wq", [hidden, hidden])]), seq)
    k = split_heads(node("MatMul", [h, const("wk", [hidden, hidden])]), seq)
    v = split_heads(node("MatMul", [h, const("wv", [hidden, hidden])]), seq)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                            [1, seq, hidden])]
    if past:
        for name in ("past_k", "past_v"):
            inputs.append(helper.make_tensor_value_info(
                name, TensorProto.FLOAT, [1, heads, past, hd]))
        k = node("Concat", ["past_k", k], {"axis": 2})
        v = node("Concat", ["past_v", v], {"axis": 2})
    kt = node("Transpose", [k], {"perm": [0, 1, 3, 2]})
    scores = node("Mul", [node("MatMul", [q, kt]),
                          const("scale", [1], 1 / np.sqrt(hd))])
    attn = node("MatMul", [node("Softmax", [scores], {"axis": -1}), v])
    merged = node("Reshape", [node("Transpose", [attn], {"perm": [0, 2, 1, 3]}),
                              ints("merge", [1, seq, hidden])])
    x1 = node("Add", ["x", node("MatMul", [merged, const("wo", [hidden, hidden])])])
    h2 = norm(x1, "ln2")
    up = node("Add", [node("MatMul", [h2, const("w1", [hidden, ffn])]),
                      const("b1", [ffn], 0.1)])
    act = node("Relu", [up])
    down = node("MatMul", [act, const("w2", [ffn, hidden])])
    node("Add", [x1, down], name="y")
    save(nodes, inputs,
         [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                        [1, seq, hidden])], inits, path)


SUMMARY = {
    "instructions": (r"instructions:\s+(\d+)", int),
    "cycles": (r"predicted cycles:\s+(\d+)", int),
    "bound": (r"physical bound:\s+(\d+)", int),
    "bound_by": (r"physical bound:\s+\d+ cycles \(bound by ([^;]+);", str),
}


def compile_case(args, model, extra):
    cmd = [args.hetc, "compile", model, "--chip", args.chip, "-o",
           os.path.join(args.work, "case.hetx")] + extra
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.monotonic() - start
    row = {"seconds": seconds}
    if proc.returncode != 0:
        lines = [l for l in proc.stderr.splitlines() if l.strip()]
        row["error"] = lines[0] if lines else f"exit {proc.returncode}"
        return row
    for key, (pattern, cast) in SUMMARY.items():
        m = re.search(pattern, proc.stdout)
        row[key] = cast(m.group(1)) if m else None
    return row


def print_row(name, row):
    if "error" in row:
        print(f"| {name} | — | — | — | — | — | {row['seconds']:.1f} | "
              f"{row['error'][:100]} |", flush=True)
        return
    reached = 100.0 * row["bound"] / row["cycles"] if row["cycles"] else 0
    print(f"| {name} | {row['instructions']} | {row['cycles']} | "
          f"{row['bound']} | {row['bound_by']} | {reached:.1f}% | "
          f"{row['seconds']:.1f} | |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    parser.add_argument("--hetc", required=True)
    parser.add_argument("--chip", default=os.path.join(root, "chips",
                                                       "tsp-v1.chip"))
    parser.add_argument("--only", default="gemm,layer,models")
    parser.add_argument("--models-dir", default=os.path.expanduser(
        "~/.cache/hetc/models"))
    parser.add_argument("--models", default="resnet50")
    parser.add_argument("--work", default=None)
    args = parser.parse_args()
    only = set(args.only.split(","))
    args.work = args.work or tempfile.mkdtemp(prefix="hetc-roofline-")
    os.makedirs(args.work, exist_ok=True)

    print(f"Chip {os.path.basename(args.chip)}; reached = physical bound / "
          "predicted cycles.\n")
    print("| case | instructions | predicted cycles | physical bound | "
          "bound by | reached | compile s | error |")
    print("|---|---:|---:|---:|---|---:|---:|---|")
    if "gemm" in only:
        for dtype in ("int8", "fp16", "fp32"):
            for kn in (1024, 4096):
                for m in (1, 8, 64, 320, 1024):
                    path = os.path.join(args.work, "gemm.onnx")
                    gemm(path, m, kn, kn, dtype)
                    extra = ["--precision", "fp16"] if dtype == "fp16" else []
                    print_row(f"GEMM {dtype} M={m} K=N={kn}",
                              compile_case(args, path, extra))
    if "layer" in only:
        for name, seq, past in (("prefill seq 128", 128, 0),
                                ("decode seq 1, cache 128", 1, 128)):
            path = os.path.join(args.work, "layer.onnx")
            layer(path, seq, past)
            print_row(f"layer hidden 1024, {name}",
                      compile_case(args, path, []))
    if "models" in only:
        for name in args.models.split(","):
            model = os.path.join(args.models_dir, name + ".onnx")
            info_path = os.path.join(args.models_dir, name + ".json")
            if not os.path.exists(model) or not os.path.exists(info_path):
                print(f"| {name} | — | — | — | — | — | — | not exported: run "
                      "bench/models/run_models.py first |")
                continue
            with open(info_path) as f:
                info = json.load(f)
            extra = []
            for dim, value in info.get("dims", {}).items():
                extra += ["--dim", f"{dim}={value}"]
            precision = PRECISION.get(name)
            if precision:
                extra += ["--precision", precision]
            print_row(name, compile_case(args, model, extra))
    return 0


if __name__ == "__main__":
    sys.exit(main())
