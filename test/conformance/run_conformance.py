#!/usr/bin/env python3
"""Runs the ONNX backend node tests through hetc and the chip model.

Every test of the onnx package's node suite (a model.onnx with
test_data_set_*/input_*.pb and output_*.pb) is compiled with
`hetc compile`, run with `hetc run` on the chip model and its outputs
compared with the expected ones:

  pass         every output matches (fp32 and f64: rtol 1e-4, atol 1e-5; fp16:
               rtol 1e-3, atol 1e-4; bf16: rtol 2^-7 (one unit in the last
               place), atol 1e-4; 8- and 4-bit floats exactly; integers and
               booleans exactly)
  fail         hetc compiled the model, but running it failed, timed out or
               gave wrong outputs (noting where ONNX's reference evaluator
               misses the expected data too)
  unsupported  hetc refused the model (the compile failed; the reason is the
               first error line) or the test needs inputs hetc cannot take
               (sequences, optionals, strings)

Elements whose value ONNX leaves undefined are not scored: a Cast or
CastLike from a floating-point type to an integer type is undefined for
NaN, infinities and values whose truncation lies outside the destination
type's range (the operator's specification), and the reference data then
hold whatever the generating machine's casts gave. UNDEFINED_RULES lists
the rules; a test they touch says how many elements it left out, and the
report lists those tests.

Graph inputs whose values set shapes (ReduceSum's axes, Reshape's shape,
Pad's pads, ...: SHAPE_OPERANDS, directly or through the nodes computing
them) are given to `hetc compile --input-value` from the data set, since
hetc compiles static shapes; such passes are marked in the report.

The closing line reads "N passed, M failed" with M counting only "fail";
unsupported tests are counted on the line before. With --expected-pass, the
run fails if fewer tests pass. When the installed onnx package does not ship
the node test data, it is generated from the package's own test case
definitions into the work directory (once per onnx version).

Usage: run_conformance.py --hetc PATH [--work-dir DIR] [--jobs 2]
           [--expected-pass N | --expected-pass-file FILE]
           [--report docs/conformance.md --write-report] [--filter SUBSTR]
           [--chip FILE] [--backends chip,cpu]

With --backends chip,cpu each compiled test runs on the chip model and on
the CPU backend (the artifact's kernel plan), scored the same way on each:
it passes when both pass (the reason names the CPU backend when only it
fails).
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The chip the tests compile for and run on (--chip).
CHIP = os.path.join(ROOT, "chips", "tsp-v1.chip")
# What runs the compiled tests (--backends): the chip model, and the CPU
# backend from the same artifacts.
BACKENDS = ["chip"]


def node_test_dir(work_dir):
    """The node test folder of the onnx package, generated if not shipped."""
    shipped = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")
    if os.path.isdir(shipped) and os.listdir(shipped):
        return shipped
    # The data depend on the casts of numpy and ml_dtypes as well.
    import ml_dtypes

    generated = os.path.join(
        work_dir, f"onnx-{onnx.__version__}-numpy-{np.__version__}-"
                  f"ml_dtypes-{ml_dtypes.__version__}-node")
    marker = os.path.join(generated, ".complete")
    if os.path.exists(marker):
        return generated
    import warnings

    from onnx.backend.test.case import node as node_cases

    print(f"onnx {onnx.__version__} ships no node test data; generating it in {generated}",
          flush=True)
    shutil.rmtree(generated, ignore_errors=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node_cases.collect_testcases(None)
    for case in cases:
        out = os.path.join(generated, case.name)
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        for i, (inputs, outputs) in enumerate(case.data_sets):
            data = os.path.join(out, f"test_data_set_{i}")
            os.makedirs(data, exist_ok=True)
            for kind, values, infos in (("input", inputs, case.model.graph.input),
                                        ("output", outputs, case.model.graph.output)):
                for j, value in enumerate(values):
                    path = os.path.join(data, f"{kind}_{j}.pb")
                    try:
                        if isinstance(value, onnx.TensorProto):
                            proto = value
                        elif isinstance(value, (list, dict)) or value is None:
                            # Sequences, maps and optionals: hetc takes none.
                            open(path + ".nontensor", "w").close()
                            continue
                        else:
                            proto = numpy_helper.from_array(np.asarray(value), infos[j].name)
                    except Exception:  # noqa: BLE001 - odd dtypes, e.g. strings
                        open(path + ".nontensor", "w").close()
                        continue
                    with open(path, "wb") as f:
                        f.write(proto.SerializeToString())
    open(marker, "w").close()
    return generated


def first_error(text):
    """The first error line of hetc's output, without the file name."""
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if "error" in line:
            line = line.strip()
            line = re.sub(r"^error: ", "", line)
            line = re.sub(r"^\S*model\.onnx: ", "", line)
            # "N unsupported operators:" lists them on the following lines.
            if line.endswith(":") and k + 1 < len(lines):
                line += " " + lines[k + 1].strip()
            return line[:300]
    lines = [l for l in text.splitlines() if l.strip()]
    return (lines[-1] if lines else "no output")[:300]


def sanitize(name):
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", name)
    if not stem or stem[0] == ".":
        stem = "_" + stem[1:]
    return stem


# The 8- and 4-bit float types: numpy_helper gives ml_dtypes arrays, which
# `.npy` files cannot name; hetc reads and writes them as float32 values.
# Casts to them are exact, so their outputs are compared exactly.
EXACT_FLOATS = {onnx.TensorProto.FLOAT8E4M3FN, onnx.TensorProto.FLOAT8E4M3FNUZ,
                onnx.TensorProto.FLOAT8E5M2, onnx.TensorProto.FLOAT8E5M2FNUZ,
                onnx.TensorProto.FLOAT8E8M0, onnx.TensorProto.FLOAT4E2M1}
# The 4- and 2-bit integers travel as int8 or uint8.
SUB_BYTE_INTS = {onnx.TensorProto.INT4: np.int8, onnx.TensorProto.UINT4: np.uint8,
                 onnx.TensorProto.INT2: np.int8, onnx.TensorProto.UINT2: np.uint8}


def host_array(tensor):
    """The TensorProto as a numpy array hetc reads and writes: bfloat16 and
    the 8- and 4-bit floats, which numpy lacks and `.npy` files cannot name,
    as the float32 values they hold (exactly), as hetc itself writes them;
    the 4- and 2-bit integers as int8 or uint8."""
    array = numpy_helper.to_array(tensor)
    if tensor.data_type == onnx.TensorProto.BFLOAT16 or tensor.data_type in EXACT_FLOATS:
        array = array.astype(np.float32)
    elif tensor.data_type in SUB_BYTE_INTS:
        array = array.astype(SUB_BYTE_INTS[tensor.data_type])
    return array


# The integer types' ranges, for the casts whose out-of-range results ONNX
# leaves undefined.
INTEGER_RANGES = {
    onnx.TensorProto.INT2: (-2, 1), onnx.TensorProto.UINT2: (0, 3),
    onnx.TensorProto.INT4: (-8, 7), onnx.TensorProto.UINT4: (0, 15),
    onnx.TensorProto.INT8: (-2**7, 2**7 - 1), onnx.TensorProto.UINT8: (0, 2**8 - 1),
    onnx.TensorProto.INT16: (-2**15, 2**15 - 1), onnx.TensorProto.UINT16: (0, 2**16 - 1),
    onnx.TensorProto.INT32: (-2**31, 2**31 - 1), onnx.TensorProto.UINT32: (0, 2**32 - 1),
    onnx.TensorProto.INT64: (-2**63, 2**63 - 1), onnx.TensorProto.UINT64: (0, 2**64 - 1),
}


def value_type(model, name):
    """The element type of graph input or initializer `name`, or None."""
    for value in model.graph.input:
        if value.name == name and value.type.HasField("tensor_type"):
            return value.type.tensor_type.elem_type
    for tensor in model.graph.initializer:
        if tensor.name == name:
            return tensor.data_type
    return None


def float_to_integer_cast(model, node, feeds):
    """Cast and CastLike from a float to an integer type: ONNX leaves the
    result undefined for NaN, infinities and values out of the destination
    range once truncated toward zero."""
    if node.op_type == "Cast":
        to = next((a.i for a in node.attribute if a.name == "to"), None)
    else:
        to = value_type(model, node.input[1]) if len(node.input) > 1 else None
    source = feeds.get(node.input[0]) if node.input else None
    if to not in INTEGER_RANGES or source is None or source.dtype.kind != "f":
        return None
    low, high = INTEGER_RANGES[to]
    values = source.astype(np.float64)
    with np.errstate(invalid="ignore"):
        truncated = np.trunc(values)
        return ~np.isfinite(values) | (truncated < low) | (truncated > high)


# Rules for output elements whose value ONNX leaves undefined, by the
# operator producing the output directly from graph inputs: each returns a
# boolean mask over the output (True: undefined, not scored) or None.
UNDEFINED_RULES = {"Cast": float_to_integer_cast, "CastLike": float_to_integer_cast}


def undefined_elements(model, feeds, output_name):
    """The mask of `output_name`'s elements that ONNX leaves undefined for
    the inputs `feeds` (graph input name -> host array), or None."""
    producer = next((n for n in model.graph.node if output_name in n.output), None)
    if producer is None or producer.domain not in ("", "ai.onnx"):
        return None
    rule = UNDEFINED_RULES.get(producer.op_type)
    return rule(model, producer, feeds) if rule else None


def compare(expected, actual, narrow_float=False, exact=False, undefined=None):
    """None if `actual` matches `expected`, else why not. `narrow_float`:
    the values are bfloat16 ones held as float32. `exact`: float values
    must match bit for bit (any NaN matches NaN). `undefined`: a mask of
    elements not scored."""
    if tuple(expected.shape) != tuple(actual.shape):
        return f"shape {tuple(actual.shape)}, expected {tuple(expected.shape)}"
    if undefined is not None and undefined.shape == expected.shape:
        expected, actual = expected[~undefined], actual[~undefined]
    if exact and expected.dtype == np.float32 and actual.dtype == np.float32:
        both_nan = np.isnan(expected) & np.isnan(actual)
        ok = both_nan | (expected.view(np.uint32) == actual.view(np.uint32))
        if not ok.all():
            k = int(np.argmin(ok.ravel()))
            return (f"{int((~ok).sum())} of {ok.size} values differ (first: "
                    f"{actual.ravel()[k]!r}, expected {expected.ravel()[k]!r})")
        return None
    if expected.dtype.kind == "f":
        if narrow_float:
            # bfloat16 keeps 8 significant bits: one unit in the last place
            # is up to 2^-7 of the value, and the chip rounds after every
            # op where a reference may round once at the end.
            rtol, atol = 2.0 ** -7, 1e-4
        elif expected.dtype in (np.float32, np.float64):
            # f64 is held as fp32 on the chip.
            rtol, atol = 1e-4, 1e-5
        else:
            rtol, atol = 1e-3, 1e-4
        ok = np.isclose(actual.astype(np.float64), expected.astype(np.float64),
                        rtol=rtol, atol=atol, equal_nan=True)
        if not ok.all():
            bad = int((~ok).sum())
            diff = np.nanmax(np.abs(actual.astype(np.float64) - expected.astype(np.float64)))
            return f"{bad} of {ok.size} values differ (max abs diff {diff:.3g})"
        return None
    if actual.dtype != expected.dtype and not (
            expected.dtype.kind in "iub" and actual.dtype.kind in "iub"):
        return f"dtype {actual.dtype}, expected {expected.dtype}"
    if not np.array_equal(actual, expected):
        return f"{int((actual != expected).sum())} of {expected.size} values differ"
    return None


# Operand positions that set the shape of a node's result (or, for Resize,
# its sampling grid; for CumSum and CumProd, the axis): a graph input whose
# value reaches one of them (directly or through the nodes computing it) is
# given to `hetc compile --input-value` from the data set, as TensorRT takes
# shape tensors when it builds an engine. hetc compiles static shapes only.
SHAPE_OPERANDS = {
    "Reshape": {1}, "Expand": {1}, "Tile": {1}, "ConstantOfShape": {0},
    "Range": {0, 1, 2}, "Slice": {1, 2, 3, 4}, "Pad": {1, 3},
    "Squeeze": {1}, "Unsqueeze": {1}, "Split": {1}, "Resize": {1, 2, 3},
    "Upsample": {1}, "TopK": {1}, "OneHot": {1}, "Trilu": {1},
    "CenterCropPad": {1, 2}, "ReduceSum": {1}, "ReduceMean": {1},
    "ReduceMax": {1}, "ReduceMin": {1}, "ReduceProd": {1},
    "ReduceSumSquare": {1}, "ReduceL1": {1}, "ReduceL2": {1},
    "ReduceLogSum": {1}, "ReduceLogSumExp": {1}, "HannWindow": {0},
    "HammingWindow": {0}, "BlackmanWindow": {0}, "CumSum": {1}, "CumProd": {1},
    "DFT": {1, 2}, "STFT": {1, 3}, "AffineGrid": {1},
    # Control flow runs as its condition and trip count fold: one branch,
    # an unrolled loop.
    "If": {0}, "Loop": {0, 1},
    # Results whose shape is their inputs' values.
    "Compress": {1}, "NonZero": {0}, "Unique": {0}, "MaxUnpool": {2},
}


def reference_note(model, feeds, index, expected, tensor):
    """Where ONNX's own reference evaluator also misses the expected output
    under the same tolerance (expected data stored rounded, say), a note
    that says so; otherwise ""."""
    try:
        from onnx.reference import ReferenceEvaluator
        reference = ReferenceEvaluator(model).run(None, feeds)[index]
    except Exception:  # noqa: BLE001 - only a note; the failure stands
        return ""
    why = compare(expected, np.asarray(reference),
                  tensor.data_type == onnx.TensorProto.BFLOAT16,
                  tensor.data_type in EXACT_FLOATS)
    return f" (ONNX's reference evaluator misses the expected data too: {why})" if why else ""


def shape_inputs(model, inputs):
    """The graph inputs among `inputs` whose values reach a shape operand,
    directly or through the nodes computing it (Shape and Size read only
    their input's shape, so the search stops there)."""
    producers = {out: node for node in model.graph.node for out in node.output}
    wanted, seen = set(), set()
    work = []
    for node in model.graph.node:
        if node.domain not in ("", "ai.onnx"):
            continue
        for position in SHAPE_OPERANDS.get(node.op_type, ()):
            if position < len(node.input) and node.input[position]:
                work.append(node.input[position])
    while work:
        name = work.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in inputs:
            wanted.add(name)
        node = producers.get(name)
        if node is not None and node.op_type not in ("Shape", "Size"):
            work.extend(i for i in node.input if i)
            # An If or Loop result also comes from the outer values its
            # branches or body read.
            for attribute in node.attribute:
                for graph in ([attribute.g] if attribute.HasField("g") else []) + \
                        list(attribute.graphs):
                    work.extend(outer_names(graph))
    return [name for name in inputs if name in wanted]


def outer_names(graph):
    """The names a subgraph reads from its enclosing scope: those its nodes
    (and their own subgraphs) read that it does not define."""
    defined = {i.name for i in graph.input} | {i.name for i in graph.initializer}
    read = []
    for node in graph.node:
        read.extend(i for i in node.input if i and i not in defined)
        for attribute in node.attribute:
            for inner in ([attribute.g] if attribute.HasField("g") else []) + \
                    list(attribute.graphs):
                read.extend(n for n in outer_names(inner) if n not in defined)
        defined.update(node.output)
    return read


def compile_model(hetc, model_path, artifact, fixed, timeout):
    """Compiles; `fixed` maps graph inputs to the .pb files of their values.
    Returns None or the reason the compile failed ("fail: ..." on timeout)."""
    command = [hetc, "compile", model_path, "--chip", CHIP, "-o", artifact, "--quiet"]
    for name, path in fixed.items():
        command += ["--input-value", f"{name}={path}"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"fail: compile timed out after {timeout} s"
    if result.returncode != 0:
        return first_error(result.stderr + result.stdout)
    return None


def run_data_set(hetc, artifact, backend, args, result_dir, data_dir, model,
                 feeds, outputs, unscored, timeout):
    """Runs one data set on one backend; the reason it fails, or "". The
    output elements ONNX leaves undefined are counted into `unscored` when
    it is given."""
    try:
        result = subprocess.run(
            [hetc, "run", artifact, "--chip", CHIP, "--backend", backend,
             "--output-dir", result_dir] + args,
            capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"run timed out after {timeout} s"
    if result.returncode != 0:
        return "run: " + first_error(result.stderr + result.stdout)
    for j, output_name in enumerate(outputs):
        tensor = onnx.TensorProto()
        with open(os.path.join(data_dir, f"output_{j}.pb"), "rb") as f:
            tensor.ParseFromString(f.read())
        expected = host_array(tensor)
        path = os.path.join(result_dir, sanitize(output_name) + ".npy")
        if not os.path.exists(path):
            return f"output '{output_name}' was not written"
        undefined = undefined_elements(model, feeds, output_name)
        if unscored is not None and undefined is not None and undefined.any():
            unscored[0] += int(undefined.sum())
            unscored[1] += int(undefined.size)
        why = compare(expected, np.load(path),
                      tensor.data_type == onnx.TensorProto.BFLOAT16,
                      tensor.data_type in EXACT_FLOATS, undefined)
        if why:
            return (f"output '{output_name}': {why}"
                    + reference_note(model, feeds, j, expected, tensor))
    return ""


def run_test(hetc, test_dir, work_dir, timeout):
    """Returns (status, reason) for one node test. A pass whose shape inputs
    were given at compile time says so in its reason."""
    name = os.path.basename(test_dir)
    out = os.path.join(work_dir, "runs", name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    model_path = os.path.join(test_dir, "model.onnx")
    model = onnx.load(model_path, load_external_data=False)
    initializers = {t.name for t in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in initializers]
    outputs = [o.name for o in model.graph.output]
    fixed_names = shape_inputs(model, inputs)
    data_sets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set_"))
    # Without shape inputs one artifact serves every data set.
    artifact = os.path.join(out, "model.hetx")
    if not fixed_names:
        why = compile_model(hetc, model_path, artifact, {}, timeout)
        if why:
            return ("fail", why[6:]) if why.startswith("fail: ") else ("unsupported", why)
    if not data_sets:
        return "unsupported", "the test has no data set"
    unscored = [0, 0]  # output elements left out as undefined, of all
    for data_set in data_sets:
        data_dir = os.path.join(test_dir, data_set)
        if any(f.endswith(".nontensor") for f in os.listdir(data_dir)):
            return "unsupported", "inputs or outputs that are not tensors"
        if fixed_names:
            fixed = {n: os.path.join(data_dir, f"input_{inputs.index(n)}.pb")
                     for n in fixed_names}
            why = compile_model(hetc, model_path, artifact, fixed, timeout)
            if why:
                return ("fail", why[6:]) if why.startswith("fail: ") else ("unsupported", why)
        args = []
        feeds = {}
        for j, input_name in enumerate(inputs):
            tensor = onnx.TensorProto()
            with open(os.path.join(data_dir, f"input_{j}.pb"), "rb") as f:
                tensor.ParseFromString(f.read())
            feeds[input_name] = host_array(tensor)
            if input_name in fixed_names:
                continue
            npy = os.path.join(out, f"{data_set}_input_{j}.npy")
            np.save(npy, feeds[input_name])
            args += ["--input", f"{input_name}={npy}"]
        for backend in BACKENDS:
            # Elements left out are counted once, on the first backend.
            why = run_data_set(hetc, artifact, backend, args,
                               os.path.join(out, data_set, backend), data_dir,
                               model, feeds, outputs,
                               unscored if backend == BACKENDS[0] else None,
                               timeout)
            if why:
                return "fail", (why if backend == BACKENDS[0]
                                else f"on the {backend} backend: {why}")
    shutil.rmtree(out, ignore_errors=True)
    notes = []
    if fixed_names:
        notes.append("shape inputs given at compile time: " + ", ".join(fixed_names))
    if unscored[0]:
        notes.append(f"{unscored[0]} of {unscored[1]} output elements undefined by "
                     "ONNX, not scored")
    return "pass", "; ".join(notes)


def ml_dtypes_version():
    import ml_dtypes

    return ml_dtypes.__version__


def write_report(path, results, elapsed):
    counts = {s: sum(1 for r in results.values() if r[0] == s)
              for s in ("pass", "fail", "unsupported")}
    reasons = {}
    for status, reason in results.values():
        if status == "unsupported":
            key = re.sub(r"node '[^']*'", "node", reason)
            key = re.sub(r"'tensor<[^']*>'|tensor<[^>]*>", "T", key)
            key = re.sub(r"(?<![A-Za-z0-9])\b\d+\b", "N", key)
            reasons[key] = reasons.get(key, 0) + 1
    # Written beside the page and renamed over it: a reader sees the old
    # report or the new one, never a part.
    temporary = f"{path}.tmp-{os.getpid()}"
    with open(temporary, "w") as f:
        f.write("# ONNX backend conformance\n\n")
        backends = f" --backends {','.join(BACKENDS)}" if BACKENDS != ["chip"] else ""
        f.write(f"Generated by `test/conformance/run_conformance.py{backends} --write-report` "
                "(the `conformance` ctest runs it without writing). Each test of the "
                f"ONNX backend node suite shipped with onnx {onnx.__version__} is compiled "
                f"with `hetc compile` for `chips/{os.path.basename(CHIP)}`, run with "
                "`hetc run` on "
                + (" and on ".join({"chip": "the chip model",
                                    "cpu": "the CPU backend (`--backend cpu`)"}[b]
                                   for b in BACKENDS))
                + ", and its outputs compared with the expected ones"
                + (" (a test passes when it passes on each)" if len(BACKENDS) > 1 else "")
                + ". "
                f"The reference data come from onnx {onnx.__version__}, numpy "
                f"{np.__version__} and ml_dtypes {ml_dtypes_version()}, the "
                "versions `scripts/requirements.lock` pins.\n\n")
        f.write("- **pass**: every output matches (fp32, and f64, which the chip holds "
                "as fp32: rtol 1e-4, atol 1e-5; fp16: "
                "rtol 1e-3, atol 1e-4; bf16: rtol 2^-7, one unit in the last place, "
                "atol 1e-4; the 8- and 4-bit floats exactly, bit for bit, NaN "
                "matching NaN; integers and booleans exactly).\n")
        f.write("- **fail**: hetc compiled the model but running it failed, timed out "
                "or gave wrong outputs. Where ONNX's own reference evaluator also "
                "misses the expected data under the same tolerance (data stored "
                "rounded to a few decimals, say), the reason says so.\n")
        f.write("- **unsupported**: hetc refused to compile the model (the reason is "
                "its first error line), or the test feeds values that are not tensors.\n\n")
        total = len(results)
        folded = sum(1 for r in results.values()
                     if r[0] == "pass" and "shape inputs" in r[1])
        unscored = sorted(name for name, r in results.items() if "not scored" in r[1])
        f.write("Graph inputs that set shapes (axes, pads, a target shape, ...) are "
                "given to `hetc compile --input-value` from the test's data set, as "
                "hetc compiles static shapes; those passes say so in their reason.\n\n")
        f.write("Output elements whose value ONNX leaves undefined are not scored, "
                "so that a correct implementation passes whatever machine generated "
                "the reference data: a Cast or CastLike from a floating-point to an "
                "integer type is undefined for NaN, infinities and values whose "
                "truncation lies outside the destination type's range "
                "(`UNDEFINED_RULES` in the runner). The tests this touches are "
                "listed below.\n\n")
        strict = counts['pass'] - folded
        f.write(f"**{counts['pass']} passed, {counts['fail']} failed, "
                f"{counts['unsupported']} unsupported of {total} tests** "
                f"({folded} of the passes with shape inputs given at compile time).\n\n"
                f"- with shape inputs given at compile time: {counts['pass']} of {total} "
                f"pass ({100 * counts['pass'] / max(total, 1):.1f}%);\n"
                f"- strictly without (every graph input an input of the program): "
                f"{strict} of {total} ({100 * strict / max(total, 1):.1f}%).\n\n")
        f.write("## Most common reasons for unsupported\n\n| tests | reason |\n|---:|---|\n")
        for key, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))[:40]:
            f.write(f"| {n} | {key.replace('|', '/')} |\n")
        f.write("\n## Tests with undefined elements not scored\n\n")
        for name in unscored:
            f.write(f"- {name}: {results[name][1].split('; ')[-1]}\n")
        f.write("\n## Every test\n\n| test | result | reason |\n|---|---|---|\n")
        for name in sorted(results):
            status, reason = results[name]
            f.write(f"| {name} | {status} | {reason.replace('|', '/')} |\n")
    os.replace(temporary, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hetc", required=True)
    parser.add_argument("--work-dir", default="conformance-work")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=20)
    parser.add_argument("--expected-pass", type=int)
    parser.add_argument("--expected-pass-file")
    parser.add_argument("--report", default=os.path.join(ROOT, "docs", "conformance.md"))
    parser.add_argument("--write-report", action="store_true")
    parser.add_argument("--filter", default="")
    parser.add_argument("--chip", help="chip file to compile for and run on "
                        "(default: chips/tsp-v1.chip, the default chip of "
                        "hetc compile)")
    parser.add_argument("--backends", default="chip",
                        help="what runs each compiled test, comma-separated: "
                        "chip (the chip model, default), cpu (the CPU "
                        "backend, from the artifact's kernel plan); a test "
                        "passes when it passes on each")
    args = parser.parse_args()
    global CHIP, BACKENDS
    if args.chip:
        CHIP = os.path.abspath(args.chip)
    BACKENDS = args.backends.split(",")
    if not BACKENDS or any(b not in ("chip", "cpu") for b in BACKENDS):
        parser.error("--backends takes chip and cpu, comma-separated")

    hetc = os.path.abspath(args.hetc)
    work_dir = os.path.abspath(args.work_dir)
    os.makedirs(work_dir, exist_ok=True)
    start = time.time()
    tests_root = node_test_dir(work_dir)
    tests = sorted(d for d in os.listdir(tests_root)
                   if args.filter in d and os.path.exists(os.path.join(tests_root, d, "model.onnx")))
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_test, hetc, os.path.join(tests_root, t), work_dir,
                               args.timeout): t for t in tests}
        for future in concurrent.futures.as_completed(futures):
            name = futures[future]
            try:
                results[name] = future.result()
            except Exception as e:  # noqa: BLE001 - report, never stop the run
                results[name] = ("fail", f"runner error: {e}")
    elapsed = time.time() - start

    for name in sorted(results):
        status, reason = results[name]
        if status != "unsupported":
            print(f"{status.upper():4} {name}" + (f": {reason}" if reason else ""))
    counts = {s: sum(1 for r in results.values() if r[0] == s)
              for s in ("pass", "fail", "unsupported")}
    if args.write_report:
        write_report(args.report, results, elapsed)
        print(f"report written to {args.report}")
    expected = args.expected_pass
    if args.expected_pass_file:
        with open(args.expected_pass_file) as f:
            expected = int(f.read().split()[0])
    status = 0
    if expected is not None and counts["pass"] < expected:
        print(f"error: {counts['pass']} tests passed, {expected} expected "
              f"(see the FAIL lines above and {args.report})")
        status = 1
    print(f"{len(results)} node tests in {elapsed:.0f} s: {counts['unsupported']} unsupported "
          f"(not counted as failed)")
    print(f"{counts['pass']} passed, {counts['fail']} failed")
    return status


if __name__ == "__main__":
    sys.exit(main())
