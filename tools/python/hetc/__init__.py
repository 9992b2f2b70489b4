"""hetc for Python: compile ONNX models for deterministic dataflow chips and
run them on the chip model.

    import hetc
    artifact = hetc.compile("model.onnx", dims={"batch": 1})
    print(artifact.predicted_cycles)
    outputs = artifact.run({"x": x})          # dict of numpy arrays
    print(artifact.last_run["simulated_cycles"])

`compile` takes a path or an `onnx.ModelProto` and runs the `hetc`
executable that comes with the package (the compiler's process-wide LLVM
state stays out of Python); artifacts load and run in-process through the
runtime `hetc run` uses. See docs/python.md.
"""

import io as _io
import os as _os
import subprocess as _subprocess
import tempfile as _tempfile
from pathlib import Path as _Path

import numpy as _np

from . import _runtime

__all__ = ["Artifact", "CompileError", "Error", "RunError", "Session",
           "compile", "load", "PRECISIONS", "BACKENDS"]

PRECISIONS = ("fp32", "fp16", "bf16", "int8")
BACKENDS = ("chip", "cpu", "cuda")


class Error(Exception):
    """Any error hetc reports."""


class CompileError(Error):
    """`hetc compile` refused the model; the message is its diagnostics,
    which name the ONNX node at fault."""


class RunError(Error):
    """An artifact could not be loaded or run (a damaged file, wrong inputs,
    a chip that does not match, a hazard on the chip model)."""


def _hetc_binary():
    """The `hetc` executable: $HETC_BIN, else the one installed with this
    package (hetc/bin/hetc), else the build tree's (build/bin/hetc when the
    package is build/python/hetc)."""
    if _os.environ.get("HETC_BIN"):
        return _os.environ["HETC_BIN"]
    here = _Path(__file__).resolve().parent
    for candidate in (here / "bin" / "hetc", here.parent.parent / "bin" / "hetc"):
        if candidate.is_file() and _os.access(candidate, _os.X_OK):
            return str(candidate)
    raise Error("cannot find the hetc executable beside the package; set "
                "HETC_BIN to its path")


def _chips_dir():
    """The bundled chip files, where the `hetc` executable finds them."""
    if _os.environ.get("HETC_CHIPS_DIR"):
        return _Path(_os.environ["HETC_CHIPS_DIR"])
    return _Path(_hetc_binary()).resolve().parent.parent / "share" / "hetc" / "chips"


def _chip_path(chip):
    """A chip given by name ("tsp-v1") or by file path."""
    if chip is None:
        return None
    path = _Path(chip)
    if path.suffix == ".chip" or _os.sep in str(chip):
        return str(path)
    return str(_chips_dir() / f"{chip}.chip")


class Artifact:
    """A compiled program (.hetx): its chip, bindings and predicted cycles,
    and `run` on the chip model."""

    def __init__(self, path, report=""):
        try:
            self._native = _runtime.Artifact(str(path))
        except _runtime.RunError as e:
            raise RunError(str(e)) from None
        self.path = str(path)
        #: What `hetc compile` printed: cycles, lower bound, SRAM, kernels.
        self.report = report
        #: The figures of the last `run` (simulated cycles, unit use, SRAM).
        self.last_run = None

    chip_name = property(lambda self: self._native.chip_name,
                         doc="The chip the artifact was compiled for.")
    predicted_cycles = property(lambda self: self._native.predicted_cycles,
                                doc="Cycles of one run, known at compile time.")
    instructions = property(lambda self: self._native.instructions,
                            doc="Instructions in the program.")
    issues = property(lambda self: self._native.issues,
                      doc="Issues of the program's instructions: a train "
                          "(an instruction repeated) counts each.")
    inputs = property(lambda self: self._native.inputs,
                      doc="The inputs: dicts of name, shape and dtype.")
    outputs = property(lambda self: self._native.outputs,
                       doc="The outputs: dicts of name, shape and dtype.")

    @property
    def summary(self):
        """The artifact's figures as a dict."""
        return {"chip": self.chip_name, "predicted_cycles": self.predicted_cycles,
                "instructions": self.instructions, "inputs": self.inputs,
                "outputs": self.outputs}

    def run(self, inputs, *, chip=None, backend="chip"):
        """Runs the program on `inputs` (a dict of numpy arrays, one per
        input, of the shapes in `self.inputs`) and returns its outputs as a
        dict of numpy arrays. `chip` is a chip file or bundled chip name
        (default: the artifact's own chip). The run's figures are left in
        `self.last_run`; a run whose simulated cycles differ from the
        prediction raises RunError. `backend` "cpu" runs the artifact's
        kernel plan on the host instead, "cuda" on a GPU (docs/backends.md;
        without a GPU, RunError says why)."""
        if backend not in BACKENDS:
            raise ValueError(f"backend {backend!r} is not available; "
                             f"backends: {', '.join(BACKENDS)}")
        try:
            outputs, stats = self._native.run(self._chip_for(chip), _encode(inputs),
                                              backend)
        except _runtime.RunError as e:
            raise RunError(str(e)) from None
        self.last_run = stats
        return _decode(outputs)

    def session(self, *, chip=None):
        """A Session: the program run step after step on one SRAM, the
        inputs it updates in place (a decode step's KV cache) kept on the
        chip from step to step."""
        return Session(self, self._chip_for(chip))

    def _chip_for(self, chip):
        return _chip_path(chip) or str(_chips_dir() / f"{self.chip_name}.chip")

    def __repr__(self):
        return (f"<hetc.Artifact for chip '{self.chip_name}': "
                f"{self.predicted_cycles} cycles, {self.instructions} "
                f"instructions>")


def _encode(inputs):
    """{name: numpy array} as {name: .npy bytes}, as the runtime takes them."""
    encoded = {}
    for name, value in inputs.items():
        buffer = _io.BytesIO()
        _np.save(buffer, _np.ascontiguousarray(value), allow_pickle=False)
        encoded[name] = buffer.getvalue()
    return encoded


def _decode(outputs):
    """[(name, .npy bytes)] as {name: numpy array}."""
    return {name: _np.load(_io.BytesIO(data), allow_pickle=False)
            for name, data in outputs}


class Session:
    """An artifact run step after step on one SRAM, as the chip runs it:
    what a step leaves in SRAM is there for the next. An input that an
    output updates in place (a decode step's `past_k`, written back as
    `present_k`) is resident: it starts at zero (or the value the first
    step gives it) and stays on the chip; `step` takes every other input
    and returns every other output. Make one with `Artifact.session()`."""

    def __init__(self, artifact, chip_path):
        try:
            self._native = _runtime.Session(artifact._native, chip_path)
        except _runtime.RunError as e:
            raise RunError(str(e)) from None
        #: The figures of the last step (simulated cycles, unit use, SRAM).
        self.last_run = None

    resident = property(lambda self: self._native.resident,
                        doc="The resident inputs, as (input, output) pairs.")

    def step(self, inputs):
        """Runs one step on `inputs` (a dict of numpy arrays) and returns
        the outputs that do not stay on the chip. A step whose simulated
        cycles differ from the prediction raises RunError, and so does any
        step after one that failed."""
        try:
            outputs, stats = self._native.step(_encode(inputs))
        except _runtime.RunError as e:
            raise RunError(str(e)) from None
        self.last_run = stats
        return _decode(outputs)

    def fetch(self, name):
        """Resident input `name` as the last step left it, a numpy array."""
        try:
            data = self._native.fetch(name)
        except _runtime.RunError as e:
            raise RunError(str(e)) from None
        return _np.load(_io.BytesIO(data), allow_pickle=False)


def load(path):
    """Loads a .hetx artifact written by `hetc compile`."""
    return Artifact(path)


def compile(model, *, dims=None, chip=None, precision="fp32",
            input_values=None, host_io=False, output=None):
    """Compiles `model` (a path to an .onnx or .mlir file, or an
    onnx.ModelProto) and returns the Artifact.

    dims:         symbolic input dimensions, {"batch": 1, "seq": 128}
    chip:         a chip file or bundled chip name (default: tsp-v1)
    precision:    "fp32", or "fp16"/"bf16"/"int8" weights of matmuls and
                  convolutions (docs/precision.md)
    input_values: graph inputs fixed at compile time, {name: .npy path}
    host_io:      stage inputs and outputs in host memory, moved by DMA
    output:       where to write the .hetx (default: a temporary file, read
                  and removed)

    Raises CompileError with hetc's diagnostics when the model is refused.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r}; expected one of "
                         f"{', '.join(PRECISIONS)}")
    with _tempfile.TemporaryDirectory(prefix="hetc-") as scratch:
        if isinstance(model, (str, _os.PathLike)):
            model_path = str(model)
        else:
            import onnx
            if not isinstance(model, onnx.ModelProto):
                raise TypeError("model must be a path or an onnx.ModelProto, "
                                f"not {type(model).__name__}")
            model_path = _os.path.join(scratch, "model.onnx")
            # Past protobuf's 2 GB limit the weights go to a side file.
            large = model.ByteSize() > 1_800_000_000
            onnx.save_model(model, model_path, save_as_external_data=large)
        artifact_path = str(output) if output else _os.path.join(scratch, "model.hetx")
        command = [_hetc_binary(), "compile", model_path, "-o", artifact_path,
                   "--precision", precision]
        if chip is not None:
            command += ["--chip", _chip_path(chip)]
        for name, size in (dims or {}).items():
            command += ["--dim", f"{name}={int(size)}"]
        for name, path in (input_values or {}).items():
            command += ["--input-value", f"{name}={path}"]
        if host_io:
            command.append("--host-io")
        result = _subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise CompileError((result.stderr or result.stdout).strip())
        artifact = Artifact(artifact_path, report=result.stdout)
        if not output:
            artifact.path = None
        return artifact
