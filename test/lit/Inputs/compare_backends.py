"""Runs a .hetx on two backends with the same inputs and compares outputs.

    compare_backends.py HETC ARTIFACT WORKDIR [--backends cpu,cuda]
                        [--input NAME=FILE ...] [--rtol R] [--atol A]

The first backend runs with the inputs given and generates the rest (seed
0), saving them; the second runs with the very same files. Float outputs
must agree within the tolerances (the backends sum a matrix product's or a
reduction's terms in different orders, and the GPU's exp, log, tanh and
the like are within a few ulps of the host's: docs/backends.md); integer
and boolean outputs must be equal. Prints one line per output and exits 1
on any difference.
"""
import argparse
import pathlib
import subprocess
import sys

import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("hetc")
    parser.add_argument("artifact")
    parser.add_argument("workdir", type=pathlib.Path)
    parser.add_argument("--backends", default="cpu,cuda")
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--atol", type=float, default=1e-6)
    args = parser.parse_args()
    first, second = args.backends.split(",")
    given = [f"--input={i}" for i in args.input]
    one, two = args.workdir / first, args.workdir / second
    subprocess.run([args.hetc, "run", args.artifact, "--backend", first,
                    "--output-dir", str(one), *given], check=True,
                   stdout=subprocess.DEVNULL)
    inputs = list(given)
    for saved in sorted((one / "inputs").glob("*.npy")):
        inputs.append(f"--input={saved.stem}={saved}")
    subprocess.run([args.hetc, "run", args.artifact, "--backend", second,
                    "--output-dir", str(two), *inputs], check=True,
                   stdout=subprocess.DEVNULL)
    failed = False
    outputs = sorted(p for p in one.glob("*.npy"))
    if not outputs:
        sys.exit(f"{one}: no outputs")
    for path in outputs:
        a, b = np.load(path), np.load(two / path.name)
        if a.dtype.kind == "f":
            same = a.shape == b.shape and np.allclose(a, b, rtol=args.rtol,
                                                      atol=args.atol, equal_nan=True)
            worst = float(np.nanmax(np.abs(a.astype(np.float64) - b))) if a.size and a.shape == b.shape else 0.0
        else:
            same = a.shape == b.shape and np.array_equal(a, b)
            worst = 0.0 if same else float("inf")
        print(f"{path.stem}: {'same' if same else 'DIFFERENT'} "
              f"({a.dtype} {list(a.shape)}, largest difference {worst:.3g})")
        failed |= not same
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
