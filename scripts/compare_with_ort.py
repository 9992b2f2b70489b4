#!/usr/bin/env python3
"""Compares the outputs `hetc run` wrote with ONNX Runtime on the same inputs.

Usage: compare_with_ort.py MODEL.onnx RUN_DIR
RUN_DIR is the --output-dir of `hetc run`: outputs as NAME.npy and the
inputs it generated as inputs/NAME.npy. Exits non-zero on a mismatch beyond
the fp32 tolerance |hetc - ort| <= 1e-5 + 1e-4 * |ort|.
"""
import os
import re
import sys

import numpy as np
import onnxruntime as ort

ATOL, RTOL = 1e-5, 1e-4


def npy_path(directory, name):
    """The file `hetc run` uses for tensor `name` (names are sanitised)."""
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", name)
    if not stem or stem[0] == ".":
        stem = "_" + stem[1:]
    return os.path.join(directory, stem + ".npy")


def main(model_path, run_dir):
    session = ort.InferenceSession(model_path)
    feeds = {i.name: np.load(npy_path(os.path.join(run_dir, "inputs"), i.name))
             for i in session.get_inputs()}
    ok = True
    for out, want in zip(session.get_outputs(), session.run(None, feeds)):
        got = np.load(npy_path(run_dir, out.name))
        err = np.abs(got - want)
        good = got.shape == want.shape and bool(np.all(err <= ATOL + RTOL * np.abs(want)))
        ok &= good
        print(f"output '{out.name}' vs ONNX Runtime: max abs error {err.max():.3e} "
              f"(tolerance {ATOL:g} + {RTOL:g}*|ref|): {'match' if good else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
