#!/usr/bin/env python3
"""Roofline: how close hetc's schedules come to the chip's physical limit.

Usage: roofline.py --hetc HETC [--chip FILE] [--only gemm,layer,models]
                   [--models-dir DIR] [--models resnet50,...] [--work DIR]
                   [--iree]

For each case it builds an ONNX model, compiles it with `HETC compile`
and prints the predicted cycles, the physical bound of the compile
summary (docs/performance.md, "The physical bound"), the term that sets
it and the fraction of it the schedule reaches (bound / predicted), with
the compile wall time and peak memory. With --iree it also compiles the
same ONNX file with IREE for the host CPU (`iree-import-onnx`, then
`iree-compile` for llvm-cpu; scripts/install-deps.sh --iree installs
them) and prints IREE's wall time (import plus compile), its CPU time (it
compiles on several threads), its peak memory and hetc's wall time as a
fraction of IREE's. Symbolic dimensions are pinned in the file IREE gets
to the values hetc gets with --dim. Cases:
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
import shutil
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "models"))
from run_models import PRECISION, run_measured  # noqa: E402


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


# A compile that takes longer is reported as timed out.
TIMEOUT_S = 3600


def first_error(output, returncode):
    lines = [l for l in output.splitlines() if l.strip()]
    errors = [l for l in lines if "error" in l.lower()]
    return (errors or lines or [f"exit {returncode}"])[0]


def compile_case(args, model, extra, dims):
    cmd = [args.hetc, "compile", model, "--chip", args.chip, "-o",
           os.path.join(args.work, "case.hetx")] + extra
    for dim, value in dims.items():
        cmd += ["--dim", f"{dim}={value}"]
    returncode, output, seconds, mib = run_measured(cmd, TIMEOUT_S, 0)
    row = {"seconds": seconds, "mib": mib}
    if returncode != 0:
        row["error"] = first_error(output, returncode)
    else:
        for key, (pattern, cast) in SUMMARY.items():
            m = re.search(pattern, output)
            row[key] = cast(m.group(1)) if m else None
    if args.iree:
        row["iree"] = iree_compile(args, model, dims)
    return row


def pin_dims(model, dims, path):
    """`model` with its symbolic dimensions set to `dims`, saved at `path`
    (IREE compiles dynamic dimensions as such; hetc gets them pinned)."""
    proto = onnx.load(model)
    for value in list(proto.graph.input) + list(proto.graph.output):
        for dim in value.type.tensor_type.shape.dim:
            if dim.dim_param in dims:
                dim.dim_value = int(dims[dim.dim_param])
    onnx.save(proto, path)
    return path


def iree_compile(args, model, dims):
    """Imports and compiles `model` with IREE for the host CPU; gives wall
    and CPU seconds of both steps together and the larger peak memory."""
    if dims:
        model = pin_dims(model, dims, os.path.join(args.work, "pinned.onnx"))
    mlir = os.path.join(args.work, "case.mlir")
    steps = [
        [args.iree_import, model, "-o", mlir],
        [args.iree_compile, mlir, "--iree-hal-target-device=local",
         "--iree-hal-local-target-device-backends=llvm-cpu",
         "--iree-llvmcpu-target-cpu=host",
         "-o", os.path.join(args.work, "case.vmfb")],
    ]
    result = {"seconds": 0.0, "cpu": 0.0, "mib": 0.0}
    for cmd in steps:
        before = os.times()
        returncode, output, seconds, mib = run_measured(cmd, TIMEOUT_S, 0)
        after = os.times()
        result["seconds"] += seconds
        result["cpu"] += (after.children_user - before.children_user +
                          after.children_system - before.children_system)
        result["mib"] = max(result["mib"], mib)
        if returncode != 0:
            result["error"] = (f"{os.path.basename(cmd[0])}: "
                               f"{first_error(output, returncode)}")
            break
    return result


def print_row(args, name, row):
    cells = [name]
    if "error" in row:
        cells += ["—"] * 5
    else:
        reached = 100.0 * row["bound"] / row["cycles"] if row["cycles"] else 0
        cells += [row["instructions"], row["cycles"], row["bound"],
                  row["bound_by"], f"{reached:.1f}%"]
    cells += [f"{row['seconds']:.1f}", f"{row['mib']:.0f}"]
    errors = [row["error"][:100]] if "error" in row else []
    if args.iree:
        iree = row["iree"]
        if "error" in iree:
            cells += ["—"] * 4
            errors.append("IREE " + iree["error"][:100])
        else:
            cells += [f"{iree['seconds']:.1f}", f"{iree['cpu']:.1f}",
                      f"{iree['mib']:.0f}",
                      f"{row['seconds'] / iree['seconds']:.2f}"]
    cells.append("; ".join(errors))
    print("| " + " | ".join(str(c) for c in cells) + " |", flush=True)


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
    parser.add_argument("--iree", action="store_true",
                        help="time IREE's llvm-cpu compile of each case too")
    args = parser.parse_args()
    only = set(args.only.split(","))
    args.work = args.work or tempfile.mkdtemp(prefix="hetc-roofline-")
    os.makedirs(args.work, exist_ok=True)
    if args.iree:
        args.iree_import = shutil.which("iree-import-onnx")
        args.iree_compile = shutil.which("iree-compile")
        if not args.iree_import or not args.iree_compile:
            print("roofline.py: --iree needs iree-import-onnx and iree-compile "
                  "on PATH: bash scripts/install-deps.sh --iree",
                  file=sys.stderr)
            return 2

    print(f"Chip {os.path.basename(args.chip)}; reached = physical bound / "
          "predicted cycles.\n")
    header = ["case", "instructions", "predicted cycles", "physical bound",
              "bound by", "reached", "compile s", "compile MiB"]
    align = ["---", "---:", "---:", "---:", "---", "---:", "---:", "---:"]
    if args.iree:
        header += ["IREE s", "IREE CPU s", "IREE MiB", "hetc s / IREE s"]
        align += ["---:"] * 4
    print("| " + " | ".join(header + ["error"]) + " |")
    print("|" + "|".join(align + ["---"]) + "|")
    if "gemm" in only:
        for dtype in ("int8", "fp16", "fp32"):
            for kn in (1024, 4096):
                for m in (1, 8, 64, 320, 1024):
                    path = os.path.join(args.work, "gemm.onnx")
                    gemm(path, m, kn, kn, dtype)
                    extra = ["--precision", "fp16"] if dtype == "fp16" else []
                    print_row(args, f"GEMM {dtype} M={m} K=N={kn}",
                              compile_case(args, path, extra, {}))
    if "layer" in only:
        for name, seq, past in (("prefill seq 128", 128, 0),
                                ("decode seq 1, cache 128", 1, 128)):
            path = os.path.join(args.work, "layer.onnx")
            layer(path, seq, past)
            print_row(args, f"layer hidden 1024, {name}",
                      compile_case(args, path, [], {}))
    if "models" in only:
        for name in args.models.split(","):
            model = os.path.join(args.models_dir, name + ".onnx")
            info_path = os.path.join(args.models_dir, name + ".json")
            if not os.path.exists(model) or not os.path.exists(info_path):
                print(f"| {name} |" + " — |" * (len(header) - 1) +
                      " not exported: run bench/models/run_models.py first |")
                continue
            with open(info_path) as f:
                info = json.load(f)
            extra = []
            precision = PRECISION.get(name)
            if precision:
                extra += ["--precision", precision]
            print_row(args, name,
                      compile_case(args, model, extra, info.get("dims", {})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
