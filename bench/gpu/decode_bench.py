#!/usr/bin/env python3
"""Decode on a GPU: tokens per second of `hetc generate --backend cuda`
against the GPU's memory-bandwidth bound, for the suite's decode steps.

Usage: decode_bench.py --hetc HETC [--models-dir DIR] [--torch-python PY]
                       [--only gpt2_step,llama_step] [--tokens 32]
                       [--bandwidth-gbs B]

A decode step reads every weight and the whole KV cache once, so no GPU
generates faster than its memory bandwidth divided by those bytes: that is
the bound each step is measured against. Per step (exported by
bench/models/export_models.py with torch, cached) it compiles the step for
tsp-v1, reads the bytes of its constants from `hetc run --backend cuda`,
adds the bytes of its past_* inputs, generates --tokens greedy tokens with
`hetc generate --backend cuda` (the KV cache kept in device memory from
step to step) and prints tokens per second, the bound, and their ratio.
The bandwidth is --bandwidth-gbs, or the published figure of the GPU
`nvidia-smi` names (NVIDIA's datasheets: H200 4.8 TB/s, H100 SXM
3.35 TB/s, H100 PCIe 2.0 TB/s, A100 80GB SXM 2.039 TB/s, L4 0.3 TB/s).
Figures only: a test of numerics is scripts/gpu-check.sh's.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "models"))
import suite_common  # noqa: E402

# Published memory bandwidth, GB/s, by a word of the name nvidia-smi gives.
BANDWIDTH_GBS = [("H200", 4800.0), ("H100 PCIe", 2000.0), ("H100", 3350.0),
                 ("A100-SXM4-80GB", 2039.0), ("A100 80GB", 2039.0), ("A100", 1555.0),
                 ("L40S", 864.0), ("L4", 300.0)]


def bandwidth(args):
    if args.bandwidth_gbs:
        return args.bandwidth_gbs, "given"
    try:
        name = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True, check=True).stdout.splitlines()[0]
    except (OSError, subprocess.CalledProcessError, IndexError):
        sys.exit("decode_bench.py: nvidia-smi names no GPU; give --bandwidth-gbs")
    for word, gbs in BANDWIDTH_GBS:
        if word in name:
            return gbs, name
    sys.exit(f"decode_bench.py: no published bandwidth known for '{name}'; "
             "give --bandwidth-gbs")


def cache_bytes(model):
    total = 0
    for value in onnx.load(model, load_external_data=False).graph.input:
        if value.name.startswith("past"):
            dims = [d.dim_value for d in value.type.tensor_type.shape.dim]
            total += int(np.prod(dims)) * 4
    return total


def main():
    parser = suite_common.suite_parser(__doc__.splitlines()[0])
    parser.add_argument("--only", default="gpt2_step,llama_step")
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--bandwidth-gbs", type=float, default=0.0)
    args = parser.parse_args()
    args.quick = False
    gbs, source = bandwidth(args)
    print(f"memory bandwidth: {gbs:.0f} GB/s ({source})")
    for name in suite_common.exported_models(args, "decode_bench.py"):
        model = os.path.join(args.models_dir, name + ".onnx")
        with tempfile.TemporaryDirectory(prefix="hetc-gpu-") as work:
            hetx = os.path.join(work, name + ".hetx")
            subprocess.run([args.hetc, "compile", model, "-o", hetx, "--quiet"], check=True)
            ran = subprocess.run([args.hetc, "run", hetx, "--backend", "cuda"],
                                 capture_output=True, text=True, check=True).stdout
            weights = int(re.search(r"and (\d+) bytes of constants", ran).group(1))
            out = subprocess.run([args.hetc, "generate", hetx, "--backend", "cuda",
                                  "--prompt-ids", "3,1,4", "--max-new-tokens",
                                  str(args.tokens)],
                                 capture_output=True, text=True, check=True).stdout
        rate = float(re.search(r"tokens per second on the GPU: ([\d.]+)", out).group(1))
        moved = weights + cache_bytes(model)
        bound = gbs * 1e9 / moved
        print(f"{name}: {rate:.1f} tokens/s; bound {bound:.1f} tokens/s "
              f"({moved / 1e6:.1f} MB of weights and cache a step); "
              f"{100 * rate / bound:.1f}% of the bound", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
