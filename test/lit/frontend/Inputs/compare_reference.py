"""Compiles an ONNX model for a chip, runs it with `hetc run` on the chip
model and on the CPU backend on seeded inputs, and compares both with the
ONNX reference evaluator within an absolute and relative tolerance.

Usage: compare_reference.py CHIP_FILE MODEL.onnx WORK_DIR TOLERANCE
Prints "match" or exits non-zero saying which output differs.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper
from onnx.reference import ReferenceEvaluator

chip, model_path, work, tolerance = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
os.makedirs(work, exist_ok=True)
model = onnx.load(model_path)
rng = np.random.default_rng(5)
feeds, flags = {}, []
initializers = {i.name for i in model.graph.initializer}
for value in model.graph.input:
    if value.name in initializers:
        continue
    dtype = helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type)
    shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
    if np.issubdtype(dtype, np.integer):
        feeds[value.name] = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, shape,
                                         dtype=dtype, endpoint=True)
    else:
        feeds[value.name] = rng.uniform(-1, 1, shape).astype(dtype)
    path = os.path.join(work, value.name + ".npy")
    np.save(path, feeds[value.name])
    flags += ["--input", f"{value.name}={path}"]
expected = ReferenceEvaluator(model).run(None, feeds)
artifact = os.path.join(work, "model.hetx")
subprocess.run(["hetc", "compile", model_path, "--chip", chip, "-o", artifact, "--quiet"],
               check=True)
for backend in ("chip", "cpu"):
    out = os.path.join(work, backend)
    subprocess.run(["hetc", "run", artifact, "--chip", chip, "--backend", backend,
                    "--output-dir", out, *flags], check=True, stdout=subprocess.DEVNULL)
    for value, want in zip(model.graph.output, expected):
        got = np.load(os.path.join(out, value.name + ".npy"))
        err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        bound = tolerance + tolerance * np.abs(want.astype(np.float64))
        if got.dtype != want.dtype or got.shape != want.shape or np.any(err > bound):
            sys.exit(f"{backend}: output '{value.name}' differs: {got.dtype}{got.shape} vs "
                     f"{want.dtype}{want.shape}, max error {err.max() if err.size else 0}")
print("match")
