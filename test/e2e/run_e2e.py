#!/usr/bin/env python3
"""End-to-end tests: compile small models with hetc, run them on the chip
model and compare with ONNX Runtime.

For every model and chip it checks
  - outputs against ONNX Runtime on the same inputs, within
    |hetc - ort| <= ATOL + RTOL * |ort| (fp32: ATOL 1e-5, RTOL 1e-4;
    float16: ATOL 1e-3, RTOL 1e-3, as hetc and ONNX Runtime may round
    intermediate results differently), integers exactly;
  - that `hetc run` reports predicted cycles == simulated cycles;
  - the same outputs from the CPU backend (the artifact's kernel plan), and
    from the CPU as fallback when a fault is injected into the chip run;
  - that compiling twice gives a bit-identical .hetx;
  - that moving any one of a sample of instructions by +1 or -1 cycle makes
    the chip model reject the program.
It prints one line per check and closes with "N passed, M failed".
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np
import onnxruntime as ort
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import models  # noqa: E402
from compare_with_ort import npy_path  # noqa: E402
CHIPS = ["test-chip", "tsp-v1"]
ATOL, RTOL = 1e-5, 1e-4
# Per output element type: (ATOL, RTOL); integers and booleans must match.
TOLERANCES = {np.dtype(np.float32): (ATOL, RTOL), np.dtype(np.float16): (1e-3, 1e-3)}
NUMPY_TYPES = {onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.FLOAT16: np.float16}
PERTURBED_INSTRUCTIONS = 24


def load_hetx_module(work_dir):
    """Generates Python classes for the .hetx schema with protoc."""
    out = os.path.join(work_dir, "pyschema")
    os.makedirs(out, exist_ok=True)
    subprocess.run(["protoc", f"--proto_path={ROOT}", f"--python_out={out}",
                    os.path.join(ROOT, "runtime", "schema", "hetx.proto")], check=True)
    sys.path.insert(0, out)
    from runtime.schema import hetx_pb2  # noqa: E402
    return hetx_pb2


def compare_outputs(checks, tag, model, expected, out_dir):
    """Checks each output in `out_dir` against ONNX Runtime's."""
    for out, want in zip(model.graph.output, expected):
        got = np.load(npy_path(out_dir, out.name))
        err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        if want.dtype in TOLERANCES:
            atol, rtol = TOLERANCES[want.dtype]
            ok = got.dtype == want.dtype and got.shape == want.shape and \
                bool(np.all(err <= atol + rtol * np.abs(want.astype(np.float64))))
        else:
            ok = got.dtype == want.dtype and np.array_equal(got, want)
        checks.check(ok, f"{tag}: output '{out.name}' matches ONNX Runtime "
                     f"(max abs error {err.max() if err.size else 0:.2e})")


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def read_hetx(path, hetx_pb2):
    blob = open(path, "rb").read()
    artifact = hetx_pb2.Artifact()
    artifact.ParseFromString(blob[24:])
    return blob[:8], artifact


def write_hetx(path, head, artifact):
    payload = artifact.SerializeToString()
    with open(path, "wb") as f:
        f.write(head + struct.pack("<QQ", len(payload), fnv1a64(payload)) + payload)


def shifted(artifact, index, delta, hetx_pb2):
    """A copy of `artifact` with instruction `index` moved by `delta` cycles,
    re-sorted by cycle, with every source's producer index renumbered so
    that only the timing changes."""
    mutated = hetx_pb2.Artifact()
    mutated.CopyFrom(artifact)
    mutated.instructions[index].cycle += delta
    order = sorted(range(len(mutated.instructions)),
                   key=lambda i: (mutated.instructions[i].cycle, i))
    new_index = {old: new for new, old in enumerate(order)}
    ordered = [mutated.instructions[i] for i in order]
    for inst in ordered:
        for src in inst.src:
            if src.HasField("producer"):
                src.producer = new_index[src.producer]
        if inst.opcode == hetx_pb2.MEM_GATHER:
            inst.chain = new_index[inst.chain]
    copies = [hetx_pb2.Instruction() for _ in ordered]
    for copy, inst in zip(copies, ordered):
        copy.CopyFrom(inst)
    del mutated.instructions[:]
    mutated.instructions.extend(copies)
    return mutated


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print(f"PASS: {what}")
        else:
            self.failed += 1
            print(f"FAIL: {what}{': ' + detail if detail else ''}")


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hetc", required=True)
    parser.add_argument("--work-dir", default=tempfile.mkdtemp(prefix="hetc-e2e-"))
    parser.add_argument("--only", default="",
                        help="comma-separated model names (default: every model)")
    args = parser.parse_args()
    only = [n for n in args.only.split(",") if n]
    unknown = [n for n in only if n not in models.MODELS]
    if unknown:
        parser.error(f"no such model: {', '.join(unknown)} (models: "
                     f"{', '.join(models.MODELS)})")
    os.makedirs(args.work_dir, exist_ok=True)
    hetx_pb2 = load_hetx_module(args.work_dir)
    checks = Checks()

    for name, (build, dims) in models.MODELS.items():
        if only and name not in only:
            continue
        model = build()
        model_path = os.path.join(args.work_dir, f"{name}.onnx")
        onnx.save(model, model_path)
        dim_flags = [f"--dim={k}={v}" for k, v in dims.items()]
        # Inputs with the pinned shapes, from a fixed seed.
        rng = np.random.default_rng(7)
        feeds, input_flags = {}, []
        for inp in model.graph.input:
            shape = [d.dim_value or dims[d.dim_param] for d in inp.type.tensor_type.shape.dim]
            elem = inp.type.tensor_type.elem_type
            if elem == onnx.TensorProto.INT64:
                high = models.INDEX_RANGES[name][inp.name]
                feeds[inp.name] = rng.integers(-high, high, shape, dtype=np.int64)
            else:
                feeds[inp.name] = rng.uniform(-1, 1, shape).astype(NUMPY_TYPES[elem])
            if name == "broadcasting" and inp.name == "col":
                # Divisors away from zero keep the comparison meaningful.
                feeds[inp.name] = np.sign(feeds[inp.name]) + feeds[inp.name]
            path = os.path.join(args.work_dir, f"{name}.{inp.name}.npy")
            np.save(path, feeds[inp.name])
            input_flags.append(f"--input={inp.name}={path}")
        expected = ort.InferenceSession(model_path).run(None, feeds)

        for chip in CHIPS:
            tag = f"{name} on {chip}"
            chip_file = os.path.join(ROOT, "chips", f"{chip}.chip")
            hetx = os.path.join(args.work_dir, f"{name}.{chip}.hetx")
            out_dir = os.path.join(args.work_dir, f"{name}.{chip}.out")
            compiled = run([args.hetc, "compile", model_path, "-o", hetx,
                            f"--chip={chip_file}", *dim_flags])
            checks.check(compiled.returncode == 0, f"{tag}: compiles", compiled.stderr)
            if compiled.returncode != 0:
                continue
            again = run([args.hetc, "compile", model_path, "-o", hetx + ".again",
                         f"--chip={chip_file}", "--quiet", *dim_flags])
            checks.check(again.returncode == 0 and
                         open(hetx, "rb").read() == open(hetx + ".again", "rb").read(),
                         f"{tag}: compiling twice gives identical bytes")

            ran = run([args.hetc, "run", hetx, "--output-dir", out_dir, *input_flags])
            checks.check(ran.returncode == 0 and
                         "predicted cycles == simulated cycles: yes" in ran.stdout,
                         f"{tag}: runs, predicted cycles == simulated cycles",
                         ran.stdout + ran.stderr)
            if ran.returncode != 0:
                continue
            compare_outputs(checks, tag, model, expected, out_dir)

            # The artifact's kernel plan on the CPU backend: the same outputs
            # within the same tolerances.
            cpu_dir = out_dir + ".cpu"
            ran_cpu = run([args.hetc, "run", hetx, "--backend", "cpu",
                           "--output-dir", cpu_dir, *input_flags])
            checks.check(ran_cpu.returncode == 0 and "served by: cpu" in ran_cpu.stdout,
                         f"{tag}: runs on the CPU backend", ran_cpu.stdout + ran_cpu.stderr)
            if ran_cpu.returncode == 0:
                compare_outputs(checks, f"{tag} (cpu backend)", model, expected, cpu_dir)

            # A chip run that fails is served by the fallback, outputs and all.
            if chip == "tsp-v1":
                fell = run([args.hetc, "run", hetx, "--fallback", "cpu",
                            "--inject-fault", "hazard", "--output-dir",
                            out_dir + ".fallback", *input_flags])
                same = fell.returncode == 0 and all(
                    np.array_equal(np.load(npy_path(cpu_dir, o.name)),
                                   np.load(npy_path(out_dir + ".fallback", o.name)))
                    for o in model.graph.output)
                checks.check(same and "served by: cpu (the chip run failed: hazard:"
                             in fell.stdout,
                             f"{tag}: a hazard in the chip run falls back to the CPU",
                             fell.stdout + fell.stderr)

            # The same model with its inputs and outputs staged in host memory
            # and moved by DMA: the same bits, in more cycles.
            staged = hetx + ".host-io"
            staged_dir = out_dir + ".host-io"
            compiled = run([args.hetc, "compile", model_path, "-o", staged,
                            f"--chip={chip_file}", "--host-io", "--quiet",
                            *dim_flags])
            ran_staged = run([args.hetc, "run", staged, "--output-dir",
                              staged_dir, *input_flags])
            cycles = [re.search(r"simulated cycles: (\d+)", r.stdout)
                      for r in (ran, ran_staged)]
            same = compiled.returncode == 0 and ran_staged.returncode == 0 and all(
                np.array_equal(np.load(npy_path(out_dir, o.name)),
                               np.load(npy_path(staged_dir, o.name)))
                for o in model.graph.output)
            checks.check(same and all(cycles) and
                         "predicted cycles == simulated cycles: yes" in ran_staged.stdout and
                         int(cycles[1].group(1)) > int(cycles[0].group(1)),
                         f"{tag}: with --host-io, the same outputs, predicted == "
                         f"simulated, in more cycles "
                         f"({cycles[1].group(1) if cycles[1] else '?'} vs "
                         f"{cycles[0].group(1) if cycles[0] else '?'})",
                         compiled.stderr + ran_staged.stdout + ran_staged.stderr)

            # Move single instructions by one cycle: the chip model must refuse.
            head, artifact = read_hetx(hetx, hetx_pb2)
            count = len(artifact.instructions)
            sample = sorted(set(np.linspace(0, count - 1, PERTURBED_INSTRUCTIONS).astype(int)))
            accepted, reasons = [], {}
            for index in sample:
                # An install takes no stream: one placed before the matmuls
                # that need it may move within that slack, and the chip
                # model rightly runs it (WeightBufferTest checks the ones
                # that break its rules).
                if artifact.instructions[index].opcode == hetx_pb2.M_INSTALL_WEIGHTS:
                    continue
                for delta in (-1, 1):
                    original = artifact.instructions[index].cycle
                    if original + delta < 0:
                        continue
                    mutated = shifted(artifact, index, delta, hetx_pb2)
                    path = hetx + ".shifted"
                    write_hetx(path, head, mutated)
                    result = run([args.hetc, "run", path, *input_flags])
                    if result.returncode == 0:
                        accepted.append(f"#{index}{delta:+d}")
                    else:
                        kind = re.search(r"hazard: ([a-z -]+?) at cycle", result.stderr)
                        key = kind.group(1) if kind else "cycle mismatch"
                        reasons[key] = reasons.get(key, 0) + 1
            why = ", ".join(f"{n} {k}" for k, n in sorted(reasons.items()))
            checks.check(not accepted and "bad producer" not in reasons,
                         f"{tag}: {sum(reasons.values())} one-cycle shifts all "
                         f"rejected ({why})",
                         "accepted: " + ", ".join(accepted))

    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
