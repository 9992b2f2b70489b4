#!/usr/bin/env python3
"""Prints schedule efficiency (lower bound / scheduled cycles) of the
end-to-end models and the bundled example on a chip, as `hetc compile`
reports it, with the least busy kernels of each.

Usage: efficiency.py HETC [--chip chips/tsp-v1.chip]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
import models  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("hetc")
    parser.add_argument("--chip", default=os.path.join(ROOT, "chips", "tsp-v1.chip"))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="hetc-efficiency-")
    cases = [(name, build(), dims) for name, (build, dims) in models.MODELS.items()]
    cases.append(("example_mlp", models.example_mlp(), {}))
    print(f"{'model':<20} {'instructions':>12} {'cycles':>8} {'bound':>8} {'efficiency':>10}")
    for name, model, dims in cases:
        path = os.path.join(work, f"{name}.onnx")
        onnx.save(model, path)
        out = subprocess.run([args.hetc, "compile", path, f"--chip={args.chip}",
                              "-o", path + ".hetx",
                              *[f"--dim={k}={v}" for k, v in dims.items()]],
                             capture_output=True, text=True, check=True).stdout
        fields = [re.search(pattern, out).group(1) for pattern in (
            r"instructions:\s+(\d+)", r"predicted cycles:\s+(\d+)",
            r"lower bound:\s+(\d+)", r"efficiency ([0-9.]+%)")]
        print(f"{name:<20} {fields[0]:>12} {fields[1]:>8} {fields[2]:>8} "
              f"{fields[3]:>10}")
        for line in out.splitlines():
            if line.startswith("    "):
                print(f"    {line.strip()}")


if __name__ == "__main__":
    main()
