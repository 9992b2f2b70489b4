"""The hetc Python module: compile from a path or an onnx.ModelProto, run on
the chip model, compare with ONNX Runtime, and the errors users get."""

import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import hetc


def mlp(batch="batch"):
    """x[batch, 24] -> relu(x W1 + b1) W2 + b2, with random weights."""
    rng = np.random.default_rng(7)
    w1 = rng.standard_normal((24, 40)).astype(np.float32)
    b1 = rng.standard_normal(40).astype(np.float32)
    w2 = rng.standard_normal((40, 10)).astype(np.float32)
    b2 = rng.standard_normal(10).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
         helper.make_node("Add", ["h", "b1"], ["hb"], name="bias1"),
         helper.make_node("Relu", ["hb"], ["r"], name="relu"),
         helper.make_node("MatMul", ["r", "w2"], ["o"], name="fc2"),
         helper.make_node("Add", ["o", "b2"], ["y"], name="bias2")],
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 24])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 10])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"),
         numpy_helper.from_array(w2, "w2"), numpy_helper.from_array(b2, "b2")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def reference(model, feeds):
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in session.get_outputs()],
                    session.run(None, feeds)))


@pytest.fixture
def work_dir(tmp_path):
    return tmp_path


def test_compile_model_proto_and_run_matches_onnxruntime():
    model = mlp()
    artifact = hetc.compile(model, dims={"batch": 3})
    assert artifact.chip_name == "tsp-v1"
    assert artifact.predicted_cycles > 0
    assert artifact.instructions > 0
    assert artifact.inputs == [{"name": "x", "shape": [3, 24], "dtype": "f32"}]
    assert artifact.outputs == [{"name": "y", "shape": [3, 10], "dtype": "f32"}]
    assert "predicted cycles" in artifact.report
    x = np.random.default_rng(1).standard_normal((3, 24)).astype(np.float32)
    outputs = artifact.run({"x": x})
    expected = reference(model, {"x": x})["y"]
    assert outputs["y"].dtype == np.float32
    np.testing.assert_allclose(outputs["y"], expected, rtol=1e-4, atol=1e-4)
    # The schedule is exact: the chip model takes the predicted cycles.
    assert artifact.last_run["simulated_cycles"] == artifact.predicted_cycles
    # Every issue runs (each of a train's, docs/isa.md).
    assert artifact.last_run["issues"] == artifact.issues >= artifact.instructions
    assert artifact.last_run["sram_high_water_bytes"] > 0


def test_compile_path_writes_output_and_load_reads_it(work_dir):
    model_path = work_dir / "mlp.onnx"
    onnx.save_model(mlp(batch=2), str(model_path))
    out = work_dir / "mlp.hetx"
    artifact = hetc.compile(model_path, output=out, chip="tsp-v1")
    assert artifact.path == str(out) and out.is_file()
    again = hetc.load(out)
    assert again.predicted_cycles == artifact.predicted_cycles
    assert again.summary["inputs"][0]["shape"] == [2, 24]
    assert "tsp-v1" in repr(again)


def test_fp16_weights_stay_close_to_fp32():
    model = mlp()
    x = np.random.default_rng(2).standard_normal((2, 24)).astype(np.float32)
    expected = reference(model, {"x": x})["y"]
    half = hetc.compile(model, dims={"batch": 2}, precision="fp16")
    got = half.run({"x": x})["y"]
    np.testing.assert_allclose(got, expected, rtol=2e-2, atol=2e-2)
    assert half.last_run["simulated_cycles"] == half.predicted_cycles


def test_compile_error_names_the_node():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"], name="first"),
         helper.make_node("NoSuchOp", ["r"], ["y"], name="the_bad_node")],
        "bad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(hetc.CompileError, match="the_bad_node"):
        hetc.compile(model)


def test_symbolic_dimension_needs_dims():
    with pytest.raises(hetc.CompileError, match="batch"):
        hetc.compile(mlp())


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="precision"):
        hetc.compile(mlp(), dims={"batch": 1}, precision="fp8")
    with pytest.raises(TypeError):
        hetc.compile(42)
    artifact = hetc.compile(mlp(), dims={"batch": 1})
    with pytest.raises(ValueError, match="backend"):
        artifact.run({"x": np.zeros((1, 24), np.float32)}, backend="tpu")


def test_cpu_backend_gives_the_chip_outputs():
    artifact = hetc.compile(mlp(), dims={"batch": 1})
    x = np.random.default_rng(3).standard_normal((1, 24)).astype(np.float32)
    chip = artifact.run({"x": x})
    cpu = artifact.run({"x": x}, backend="cpu")
    assert artifact.last_run["backend"] == "cpu"
    assert artifact.last_run["kernels"] > 0
    for name in chip:
        np.testing.assert_allclose(cpu[name], chip[name], rtol=1e-5, atol=1e-6)


def test_cuda_backend_gives_the_cpu_outputs_or_says_why_not():
    artifact = hetc.compile(mlp(), dims={"batch": 1})
    x = np.random.default_rng(4).standard_normal((1, 24)).astype(np.float32)
    cpu = artifact.run({"x": x}, backend="cpu")
    try:
        gpu = artifact.run({"x": x}, backend="cuda")
    except hetc.RunError as e:
        # No GPU here, or a build without the CUDA toolkit: the reason.
        assert "CUDA" in str(e)
        return
    assert artifact.last_run["backend"] == "cuda"
    assert artifact.last_run["device_seconds"] >= 0
    for name in cpu:
        np.testing.assert_allclose(gpu[name], cpu[name], rtol=1e-5, atol=1e-6)


def test_run_checks_its_inputs():
    artifact = hetc.compile(mlp(), dims={"batch": 1})
    with pytest.raises(hetc.RunError, match="input 'x' is missing"):
        artifact.run({})
    with pytest.raises(hetc.RunError, match="no input 'z'"):
        artifact.run({"x": np.zeros((1, 24), np.float32),
                      "z": np.zeros(1, np.float32)})
    with pytest.raises(hetc.RunError, match="shape"):
        artifact.run({"x": np.zeros((2, 24), np.float32)})


def test_damaged_artifact_is_refused(work_dir):
    out = work_dir / "mlp.hetx"
    hetc.compile(mlp(), dims={"batch": 1}, output=out)
    data = bytearray(out.read_bytes())
    data[len(data) // 2] ^= 0x40
    damaged = work_dir / "damaged.hetx"
    damaged.write_bytes(bytes(data))
    with pytest.raises(hetc.RunError):
        hetc.load(damaged)
    with pytest.raises(hetc.RunError):
        hetc.load(work_dir / "missing.hetx")


def test_chip_that_does_not_match_is_refused():
    artifact = hetc.compile(mlp(), dims={"batch": 1}, chip="tsp-v1")
    other = [c for c in os.listdir(hetc._chips_dir())
             if c.endswith(".chip") and c != "tsp-v1.chip"]
    assert other, "the package bundles more than one chip"
    with pytest.raises(hetc.RunError):
        artifact.run({"x": np.zeros((1, 24), np.float32)},
                     chip=other[0][:-len(".chip")])


def test_session_keeps_the_kv_cache_on_the_chip(work_dir):
    """A decode step run in a session: the caches it writes in place stay
    on the chip, only the token and position go in, and the logits of every
    step equal ONNX Runtime's with the caches fed back by hand."""
    import importlib.util
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    spec = importlib.util.spec_from_file_location(
        "lit_models", os.path.join(root, "test", "lit", "Inputs", "models.py"))
    lit_models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lit_models)
    path = str(work_dir / "lm.onnx")
    lit_models.decode_lm(path)
    artifact = hetc.compile(path, chip="test-chip")
    session = artifact.session()
    assert session.resident == [("past_k", "present_k"), ("past_v", "present_v")]
    reference_session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [o.name for o in reference_session.get_outputs()]
    state = {i.name: np.zeros(i.shape, np.float32)
             for i in reference_session.get_inputs() if i.name.startswith("past")}
    for position, token in enumerate([3, 1, 4, 1, 5]):
        feeds = {"input_ids": np.array([[token]], np.int64),
                 "position": np.array([position], np.int64)}
        got = session.step(feeds)
        want = dict(zip(names, reference_session.run(None, dict(feeds, **state))))
        state = {name: want["present" + name[4:]] for name in state}
        assert set(got) == {"logits"}
        np.testing.assert_allclose(got["logits"], want["logits"], rtol=1e-4, atol=1e-5)
        assert session.last_run["simulated_cycles"] == artifact.predicted_cycles
    np.testing.assert_allclose(session.fetch("past_k"), state["past_k"], rtol=1e-4, atol=1e-5)
    with pytest.raises(hetc.RunError, match="input 'past_k' is resident"):
        session.step(dict(feeds, past_k=state["past_k"]))
    with pytest.raises(hetc.RunError, match="input 'position' is missing"):
        session.step({"input_ids": feeds["input_ids"]})
