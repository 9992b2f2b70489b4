"""Runs a compiled decode-step program for several positions in turn, its
KV-cache outputs fed back as the next step's inputs, and checks each step
against ONNX Runtime and that every step takes the same, predicted,
cycles. Usage: decode_steps.py HETC MODEL.onnx PROGRAM.hetx WORK_DIR STEPS"""
import os
import re
import subprocess
import sys

import numpy as np
import onnxruntime as ort

hetc, model, program, work, steps = sys.argv[1:6]
options = ort.SessionOptions()
options.log_severity_level = 3  # its TensorScatter notes that it copies
session = ort.InferenceSession(model, options)
shapes = {i.name: i.shape for i in session.get_inputs()}
rng = np.random.default_rng(11)
past_k = np.zeros(shapes["past_k"], np.float32)
past_v = np.zeros(shapes["past_v"], np.float32)
cycles = set()
for step in range(int(steps)):
    feeds = {"x": rng.standard_normal(shapes["x"]).astype(np.float32),
             "past_k": past_k, "past_v": past_v,
             "pos": np.array([step], np.int64)}
    expected = dict(zip([o.name for o in session.get_outputs()],
                        session.run(None, feeds)))
    flags = []
    for name, value in feeds.items():
        path = os.path.join(work, f"step{step}.{name}.npy")
        np.save(path, value)
        flags.append(f"--input={name}={path}")
    out = os.path.join(work, f"step{step}")
    ran = subprocess.run([hetc, "run", program, "--output-dir", out, *flags],
                         capture_output=True, text=True)
    if ran.returncode != 0:
        sys.exit(f"step {step}: hetc run failed:\n{ran.stderr}")
    match = re.search(r"simulated cycles: (\d+)", ran.stdout)
    if "predicted cycles == simulated cycles: yes" not in ran.stdout or not match:
        sys.exit(f"step {step}: prediction not met:\n{ran.stdout}")
    cycles.add(int(match.group(1)))
    for name, want in expected.items():
        got = np.load(os.path.join(out, f"{name}.npy"))
        if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
            sys.exit(f"step {step}: output '{name}' differs from ONNX Runtime by "
                     f"{np.abs(got - want).max()}")
    past_k, past_v = expected["present_k"], expected["present_v"]
print(f"{steps} steps match ONNX Runtime; cycles per step: {sorted(cycles)}")
