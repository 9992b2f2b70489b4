"""Writes the ONNX models the frontend lit tests import.

Usage: onnx_models.py NAME OUTPUT.onnx
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _save(nodes, inputs, outputs, inits, path, opset=17):
    graph = helper.make_graph(nodes, "test", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.save(model, path)
    return model


def _t(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def shape_subgraph(path):
    """A dynamic-axes export: the reshape target is computed from Shape."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "zero"], ["b"], name="batch", axis=0),
        helper.make_node("Unsqueeze", ["b", "zero1"], ["b1"], name="unsq"),
        helper.make_node("Concat", ["b1", "minus1"], ["target"], name="cat", axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"], name="flatten"),
        helper.make_node("Relu", ["y"], ["z"], name="relu"),
    ]
    inits = [
        numpy_helper.from_array(np.array(0, np.int64), "zero"),
        numpy_helper.from_array(np.array([0], np.int64), "zero1"),
        numpy_helper.from_array(np.array([-1], np.int64), "minus1"),
    ]
    _save(nodes, [_t("x", ["batch", "seq", 4])], [_t("z", ["batch", None])], inits, path)


def ops(path):
    """One node of each newer operator, for the import test."""
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(np.ones(8, np.float32), "gamma"),
        numpy_helper.from_array(np.zeros(8, np.float32), "beta"),
        numpy_helper.from_array(np.array([1], np.int64), "axes1"),
        numpy_helper.from_array(np.array([0, 2], np.int64), "starts"),
        numpy_helper.from_array(np.array([4, 8], np.int64), "ends"),
        numpy_helper.from_array(np.array([0, 1], np.int64), "saxes"),
        numpy_helper.from_array(np.array([1, 2], np.int64), "steps"),
        numpy_helper.from_array(rng.standard_normal((2, 1, 3)).astype(np.float32), "w"),
    ]
    nodes = [
        helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["ln"], name="ln"),
        helper.make_node("Gelu", ["ln"], ["g"], name="gelu", approximate="tanh"),
        helper.make_node("ReduceMean", ["g", "axes1"], ["rm"], name="mean", keepdims=1),
        helper.make_node("Slice", ["x", "starts", "ends", "saxes", "steps"], ["sl"], name="slice"),
        helper.make_node("Less", ["x", "g"], ["lt"], name="less"),
        helper.make_node("Where", ["lt", "x", "g"], ["wh"], name="where"),
        helper.make_node("Unsqueeze", ["wh", "axes1"], ["img"], name="unsq"),
        helper.make_node("Conv", ["img", "w"], ["cv"], name="conv", pads=[1, 1]),
        helper.make_node("Dropout", ["cv"], ["dr"], name="dropout"),
    ]
    _save(nodes, [_t("x", [4, 8])],
          [_t("rm", [4, 1]), _t("sl", [4, 3]), _t("dr", [4, 2, 8])], inits, path, opset=18)


def problems(path):
    """Unsupported operators and bad attributes in one model."""
    nodes = [
        helper.make_node("NonMaxSuppression", ["x", "x"], ["nz"], name="nms"),
        helper.make_node("Resize", ["x", "", "scales"], ["r"], name="resize",
                         mode="linear", coordinate_transformation_mode="tf_half_pixel"),
        helper.make_node("Gelu", ["x"], ["g"], name="gelu", approximate="fast"),
        helper.make_node("Relu", ["g"], ["y"], name="after_gelu"),
        helper.make_node("FancyOp", ["x"], ["f"], name="custom", domain="com.example"),
    ]
    inits = [numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")]
    _save(nodes, [_t("x", [1, 1, 2, 2])], [_t("y", [1, 1, 2, 2])], inits, path, opset=20)


def external(path):
    """Weights in a side file next to the model."""
    w = numpy_helper.from_array(np.arange(32, dtype=np.float32).reshape(4, 8), "w")
    b = numpy_helper.from_array(np.full(8, 0.5, np.float32), "b")
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"], name="matmul"),
        helper.make_node("Add", ["m", "b"], ["y"], name="bias"),
    ]
    graph = helper.make_graph(nodes, "test", [_t("x", [2, 4])], [_t("y", [2, 8])], [w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
              location=os.path.basename(path) + ".data", size_threshold=0)


def escaping(path):
    """External data that points outside the model's folder."""
    external(path)
    model = onnx.load(path, load_external_data=False)
    for entry in model.graph.initializer[0].external_data:
        if entry.key == "location":
            entry.value = "../secret.bin"
    onnx.save(model, path)


def block_moves(path):
    """DepthToSpace in both modes and SpaceToDepth, for the import test."""
    nodes = [
        helper.make_node("DepthToSpace", ["x"], ["d2s"], name="d2s", blocksize=2),
        helper.make_node("DepthToSpace", ["x"], ["crd"], name="crd", blocksize=2, mode="CRD"),
        helper.make_node("SpaceToDepth", ["d2s"], ["s2d"], name="s2d", blocksize=2),
    ]
    _save(nodes, [_t("x", [1, 8, 2, 3])],
          [_t("crd", [1, 2, 4, 6]), _t("s2d", [1, 8, 2, 3])], [], path)


def attention(path):
    """ONNX Attention (opset 23) with packed 3-D heads, grouped-query
    heads, a causal mask over a KV cache and the qk output after softmax;
    and one with an unsupported softmax_precision."""
    nodes = [
        helper.make_node("Attention", ["q", "k", "v", "", "pk", "pv"],
                         ["y", "present_k", "present_v", "qk"], name="attn",
                         is_causal=1, q_num_heads=4, kv_num_heads=2,
                         qk_matmul_output_mode=3),
        helper.make_node("Attention", ["q", "k", "v"], ["y2"], name="attn_bf16",
                         q_num_heads=4, kv_num_heads=2, softmax_precision=16),
    ]
    _save(nodes, [_t("q", [1, 3, 8]), _t("k", [1, 3, 4]), _t("v", [1, 3, 4]),
                  _t("pk", [1, 2, 2, 2]), _t("pv", [1, 2, 2, 2])],
          [_t("y", [1, 3, 8]), _t("present_k", [1, 2, 5, 2]),
           _t("present_v", [1, 2, 5, 2]), _t("qk", [1, 4, 3, 5]), _t("y2", [1, 3, 8])],
          [], path, opset=23)


def input_value(path):
    """ReduceSum whose axes are a graph input (with a default initializer
    for 'scale'), and the files giving inputs' values: axes as .pb and
    .npy, a scale, and axes of the wrong type and of the wrong rank."""
    nodes = [
        helper.make_node("ReduceSum", ["x", "axes"], ["s"], name="sum", keepdims=0),
        helper.make_node("Mul", ["s", "scale"], ["y"], name="scale"),
    ]
    scale = numpy_helper.from_array(np.array(2.0, dtype=np.float32), "scale")
    model = _save(nodes, [_t("x", [2, 3, 4]), _t("axes", ["n"], TensorProto.INT64),
                          _t("scale", [])],
                  [_t("y", [2, 4])], [scale], path, opset=18)
    stem = os.path.splitext(path)[0]
    axes = np.array([1], dtype=np.int64)
    with open(stem + "-axes.pb", "wb") as f:
        f.write(numpy_helper.from_array(axes).SerializeToString())
    np.save(stem + "-axes.npy", axes)
    np.save(stem + "-float.npy", axes.astype(np.float32))
    np.save(stem + "-rank2.npy", axes.reshape(1, 1))
    np.save(stem + "-scale.npy", np.array(3.0, dtype=np.float32))
    return model


def pointwise(path):
    """The ONNX functions hgraph.pointwise expresses, and PRelu, IsNaN and
    IsInf."""
    names = ["Elu", "Selu", "Celu", "HardSigmoid", "HardSwish", "Softplus",
             "Softsign", "ThresholdedRelu", "Shrink", "Mish", "Sinh", "Cosh",
             "Tan", "Asinh", "Acosh", "Atanh", "Asin", "Acos", "Atan", "Sign"]
    nodes = [helper.make_node(n, ["x"], [n.lower()], name=n.lower()) for n in names]
    nodes[0].attribute.append(helper.make_attribute("alpha", 0.5))
    nodes += [
        helper.make_node("PRelu", ["x", "slope"], ["prelu"], name="prelu"),
        helper.make_node("IsNaN", ["x"], ["isnan"], name="isnan"),
        helper.make_node("IsInf", ["x"], ["isinf"], name="isinf", detect_negative=0),
    ]
    outputs = [_t(n.lower(), [2, 3]) for n in names] + [
        _t("prelu", [2, 3]), _t("isnan", [2, 3], TensorProto.BOOL),
        _t("isinf", [2, 3], TensorProto.BOOL)]
    _save(nodes, [_t("x", [2, 3]), _t("slope", [3])], outputs, [], path, opset=18)


def losses(path):
    """NegativeLogLikelihoodLoss with weights and ignore_index (mean), and
    SoftmaxCrossEntropyLoss with its log_prob output (no reduction)."""
    nodes = [
        helper.make_node("NegativeLogLikelihoodLoss", ["x", "t", "w"], ["nll"],
                         name="nll", ignore_index=1),
        helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["sce", "log_prob"],
                         name="sce", reduction="none"),
    ]
    _save(nodes, [_t("x", [2, 3, 4]), _t("t", [2, 4], TensorProto.INT64), _t("w", [3])],
          [_t("nll", []), _t("sce", [2, 4]), _t("log_prob", [2, 3, 4])],
          [], path, opset=18)


def bad_losses(path):
    """Loss nodes with an unknown reduction and a target of the wrong shape."""
    nodes = [
        helper.make_node("NegativeLogLikelihoodLoss", ["x", "t"], ["a"],
                         name="reduction", reduction="average"),
        helper.make_node("NegativeLogLikelihoodLoss", ["x", "t3"], ["b"], name="shape"),
    ]
    _save(nodes, [_t("x", [2, 3, 4]), _t("t", [2, 4], TensorProto.INT64),
                  _t("t3", [2, 3], TensorProto.INT64)],
          [_t("a", []), _t("b", [])], [], path, opset=18)


def bad_tensor_scatter(path):
    """TensorScatter along the batch axis, in an unknown mode, with an
    update longer than the cache and with write indices of the wrong
    shape; a ScatterND into data of no rows."""
    i64 = TensorProto.INT64
    nodes = [
        helper.make_node("TensorScatter", ["c", "u"], ["a"], name="batch_axis", axis=0),
        helper.make_node("TensorScatter", ["c", "u"], ["b"], name="mode", mode="ring"),
        helper.make_node("TensorScatter", ["c", "long"], ["d"], name="long"),
        helper.make_node("TensorScatter", ["c", "u", "w3"], ["e"], name="indices"),
        helper.make_node("ScatterND", ["empty", "at", "row"], ["f"], name="empty"),
    ]
    _save(nodes, [_t("c", [2, 4, 3]), _t("u", [2, 1, 3]), _t("long", [2, 5, 3]),
                  _t("w3", [3], i64), _t("empty", [0, 4]), _t("at", [1, 1], i64),
                  _t("row", [1, 4])],
          [_t(n, [2, 4, 3]) for n in "abde"] + [_t("f", [0, 4])], [], path, opset=24)


def index_ops(path):
    """Hardmax, OneHot (with run-time values), EyeLike, HannWindow and
    LpNormalization."""
    depth = numpy_helper.from_array(np.array(4, dtype=np.int64), "depth")
    size = numpy_helper.from_array(np.array(4, dtype=np.int64), "size")
    nodes = [
        helper.make_node("Hardmax", ["x"], ["hardmax"], name="hardmax"),
        helper.make_node("OneHot", ["i", "depth", "v"], ["onehot"], name="onehot", axis=0),
        helper.make_node("EyeLike", ["x"], ["eye"], name="eye", k=1),
        helper.make_node("HannWindow", ["size"], ["hann"], name="hann"),
        helper.make_node("LpNormalization", ["x"], ["lp"], name="lp", p=1),
    ]
    _save(nodes, [_t("x", [2, 3]), _t("i", [3], TensorProto.INT64), _t("v", [2])],
          [_t("hardmax", [2, 3]), _t("onehot", [4, 3]), _t("eye", [2, 3]),
           _t("hann", [4]), _t("lp", [2, 3])], [depth, size], path, opset=18)


def resize_axes(path):
    """Resize with axes and sizes under keep_aspect_ratio_policy, and an
    opset 9 Upsample."""
    sizes = numpy_helper.from_array(np.array([6, 5], dtype=np.int64), "sizes")
    scales = numpy_helper.from_array(np.array([1, 1, 2, 3], dtype=np.float32), "scales")
    nodes = [
        helper.make_node("Resize", ["x", "", "", "sizes"], ["r"], name="resize",
                         axes=[3, 2], keep_aspect_ratio_policy="not_larger"),
    ]
    _save(nodes, [_t("x", [1, 1, 2, 4])], [_t("r", [1, 1, 3, 6])], [sizes], path, opset=19)
    up = [helper.make_node("Upsample", ["x", "scales"], ["u"], name="upsample")]
    _save(up, [_t("x", [1, 1, 2, 4])], [_t("u", [1, 1, 4, 12])], [scales],
          os.path.splitext(path)[0] + "-upsample.onnx", opset=9)


def attention_f16(path):
    """Attention on float16 tensors."""
    nodes = [helper.make_node("Attention", ["q", "k", "v"], ["y"], name="attn")]
    f16 = TensorProto.FLOAT16
    _save(nodes, [_t("q", [1, 2, 3, 4], f16), _t("k", [1, 2, 5, 4], f16),
                  _t("v", [1, 2, 5, 4], f16)], [_t("y", [1, 2, 3, 4], f16)], [], path,
          opset=23)


def cumulative(path):
    """CumSum with a negative constant axis and CumProd (opset 26)."""
    axis = numpy_helper.from_array(np.array(-1, dtype=np.int64), "axis")
    nodes = [
        helper.make_node("CumSum", ["x", "axis"], ["s"], name="cumsum", exclusive=1),
        helper.make_node("CumProd", ["x", "axis"], ["p"], name="cumprod", reverse=1),
    ]
    _save(nodes, [_t("x", [2, 3])], [_t("s", [2, 3]), _t("p", [2, 3])], [axis], path,
          opset=26)


def einsum(path):
    """Einsum: a batched matmul with "...", a contraction of three operands
    with a letter summed out of one operand, and an implicit-output
    transpose."""
    nodes = [
        helper.make_node("Einsum", ["a", "b"], ["mm"], name="batch_mm",
                         equation="...ij,...jk->...ik"),
        helper.make_node("Einsum", ["p", "q", "r"], ["three"], name="three",
                         equation="ij,jk,kl->il"),
        helper.make_node("Einsum", ["s"], ["t"], name="implicit", equation="ji"),
        helper.make_node("Einsum", ["u"], ["su"], name="sum", equation="ij->i"),
    ]
    _save(nodes, [_t("a", [2, 3, 4]), _t("b", [2, 4, 5]), _t("p", [2, 3]),
                  _t("q", [3, 4]), _t("r", [4, 2]), _t("s", [3, 2]), _t("u", [3, 4])],
          [_t("mm", [2, 3, 5]), _t("three", [2, 2]), _t("t", [2, 3]), _t("su", [3])],
          [], path, opset=12)


def einsum_diagonal(path):
    """Einsum taking diagonals: of a matrix, and batched with a letter
    repeated apart ("i...i" style) and summed."""
    nodes = [helper.make_node("Einsum", ["x"], ["d"], name="diag", equation="ii->i"),
             helper.make_node("Einsum", ["y"], ["e"], name="batch_diag",
                              equation="ibi->b")]
    _save(nodes, [_t("x", [3, 3]), _t("y", [4, 2, 4])], [_t("d", [3]), _t("e", [2])], [],
          path, opset=12)


def lrn(path):
    """LRN over 5 channels with a window of 4 (one channel before the
    centre, two after)."""
    nodes = [helper.make_node("LRN", ["x"], ["y"], name="lrn", size=4, alpha=0.01,
                              beta=0.6, bias=2.0)]
    _save(nodes, [_t("x", [1, 5, 2, 3])], [_t("y", [1, 5, 2, 3])], [], path, opset=13)


def rotary(path):
    """RotaryEmbedding (opset 23) on [batch, heads, seq, head] with
    position ids, interleaved, rotating 4 of 6 features; and a 3-D input
    without num_heads, which is refused."""
    i64 = TensorProto.INT64
    nodes = [helper.make_node("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"],
                              name="rope", interleaved=1, rotary_embedding_dim=4)]
    _save(nodes, [_t("x", [1, 2, 3, 6]), _t("cos", [8, 2]), _t("sin", [8, 2]),
                  _t("pos", [1, 3], i64)], [_t("y", [1, 2, 3, 6])], [], path, opset=23)


def rotary_3d_no_heads(path):
    """RotaryEmbedding on a 3-D input without num_heads."""
    nodes = [helper.make_node("RotaryEmbedding", ["x", "cos", "sin"], ["y"], name="rope3")]
    _save(nodes, [_t("x", [1, 3, 8]), _t("cos", [1, 3, 4]), _t("sin", [1, 3, 4])],
          [_t("y", [1, 3, 8])], [], path, opset=23)


def spectral(path):
    """A one-sided DFT of a real signal along axis 1, an inverse DFT of a
    complex one with dft_length 6, and an STFT with a Hann window."""
    axis = numpy_helper.from_array(np.array(1, np.int64), "axis")
    six = numpy_helper.from_array(np.array(6, np.int64), "six")
    step = numpy_helper.from_array(np.array(4, np.int64), "step")
    hann = numpy_helper.from_array(np.hanning(8).astype(np.float32), "hann")
    nodes = [
        helper.make_node("DFT", ["r", "", "axis"], ["rf"], name="rfft", onesided=1),
        helper.make_node("DFT", ["c", "six", "axis"], ["ic"], name="idft", inverse=1),
        helper.make_node("STFT", ["s", "step", "hann"], ["sp"], name="stft"),
    ]
    _save(nodes, [_t("r", [2, 8, 1]), _t("c", [1, 5, 2]), _t("s", [1, 24, 1])],
          [_t("rf", [2, 5, 2]), _t("ic", [1, 6, 2]), _t("sp", [1, 5, 5, 2])],
          [axis, six, step, hann], path, opset=20)


def dft_bad_axis(path):
    """A DFT whose axis names the complex dimension."""
    axis = numpy_helper.from_array(np.array(2, np.int64), "axis")
    nodes = [helper.make_node("DFT", ["r", "", "axis"], ["y"], name="dft")]
    _save(nodes, [_t("r", [2, 8, 1])], [_t("y", [2, 8, 2])], [axis], path, opset=20)


def control_flow(path):
    """If on a constant condition (the else branch), a Loop of 3 iterations
    adding x to a carried sum and scanning the sums, and a Scan running a
    product over the rows of x."""
    false = numpy_helper.from_array(np.array(False), "false")
    three = numpy_helper.from_array(np.array(3, np.int64), "three")
    yes = numpy_helper.from_array(np.array(True), "yes")
    then_g = helper.make_graph([helper.make_node("Neg", ["x"], ["t"])], "then", [],
                              [_t("t", [2, 3])])
    else_g = helper.make_graph([helper.make_node("Abs", ["x"], ["e"])], "else", [],
                              [_t("e", [2, 3])])
    b = TensorProto.BOOL
    loop_g = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]),
         helper.make_node("Add", ["acc", "x"], ["acc_out"]),
         helper.make_node("Identity", ["acc_out"], ["seen"])],
        "loop_body",
        [_t("i", [], TensorProto.INT64), _t("c_in", [], b), _t("acc", [2, 3])],
        [_t("c_out", [], b), _t("acc_out", [2, 3]), _t("seen", [2, 3])])
    scan_g = helper.make_graph(
        [helper.make_node("Mul", ["p", "row"], ["p_out"]),
         helper.make_node("Identity", ["p_out"], ["step"])],
        "scan_body", [_t("p", [3]), _t("row", [3])], [_t("p_out", [3]), _t("step", [3])])
    nodes = [
        helper.make_node("If", ["false"], ["chosen"], name="if", then_branch=then_g,
                         else_branch=else_g),
        helper.make_node("Loop", ["three", "yes", "x"], ["total", "sums"], name="loop",
                         body=loop_g),
        helper.make_node("Scan", ["one", "x"], ["product", "steps"], name="scan",
                         body=scan_g, num_scan_inputs=1),
    ]
    one = numpy_helper.from_array(np.ones(3, np.float32), "one")
    _save(nodes, [_t("x", [2, 3])],
          [_t("chosen", [2, 3]), _t("total", [2, 3]), _t("sums", [3, 2, 3]),
           _t("product", [3]), _t("steps", [2, 3])],
          [false, three, yes, one], path, opset=16)


def if_runtime(path):
    """If on a condition that is a graph input."""
    then_g = helper.make_graph([helper.make_node("Neg", ["x"], ["t"])], "then", [],
                              [_t("t", [2])])
    else_g = helper.make_graph([helper.make_node("Abs", ["x"], ["e"])], "else", [],
                              [_t("e", [2])])
    nodes = [helper.make_node("If", ["c"], ["y"], name="if_c", then_branch=then_g,
                              else_branch=else_g)]
    _save(nodes, [_t("c", [], TensorProto.BOOL), _t("x", [2])], [_t("y", [2])], [], path,
          opset=16)


def value_shaped(path):
    """Compress by a constant condition, NonZero and Unique of constants,
    and GatherND by run-time indices with one batch dimension."""
    cond = numpy_helper.from_array(np.array([True, False, True]), "cond")
    grid = numpy_helper.from_array(np.array([[0, 3], [2, 0]], np.float32), "grid")
    labels = numpy_helper.from_array(np.array([4, 1, 4, 2, 1], np.int64), "labels")
    nodes = [
        helper.make_node("Compress", ["x", "cond"], ["kept"], name="compress", axis=0),
        helper.make_node("NonZero", ["grid"], ["where"], name="nonzero"),
        helper.make_node("Unique", ["labels"], ["u", "first", "inverse", "counts"],
                         name="unique"),
        helper.make_node("GatherND", ["d", "idx"], ["g"], name="gathernd", batch_dims=1),
    ]
    i64 = TensorProto.INT64
    _save(nodes, [_t("x", [3, 2]), _t("d", [2, 3, 4]), _t("idx", [2, 2, 1], i64)],
          [_t("kept", [2, 2]), _t("where", [2, 2], i64), _t("u", [3], i64),
           _t("first", [3], i64), _t("inverse", [5], i64), _t("counts", [3], i64),
           _t("g", [2, 2, 4])],
          [cond, grid, labels], path, opset=13)


def compress_runtime(path):
    """Compress by a condition that is a graph input."""
    nodes = [helper.make_node("Compress", ["x", "c"], ["y"], name="compress_c", axis=0)]
    _save(nodes, [_t("x", [3, 2]), _t("c", [3], TensorProto.BOOL)], [_t("y", [2, 2])], [],
          path, opset=13)


def reverse_sequence(path):
    """ReverseSequence of [time 4, batch 3, 2] by run-time lengths."""
    nodes = [helper.make_node("ReverseSequence", ["x", "lens"], ["y"], name="rev",
                              batch_axis=1, time_axis=0)]
    _save(nodes, [_t("x", [4, 3, 2]), _t("lens", [3], TensorProto.INT64)],
          [_t("y", [4, 3, 2])], [], path, opset=10)


def max_unpool(path):
    """MaxUnpool of [1, 1, 2, 2] values at run-time flat indices, kernel and
    strides 2, into the 4 x 4 tensor the pool read and, by output_shape, a
    5 x 5 one."""
    shape = numpy_helper.from_array(np.array([1, 1, 5, 5], np.int64), "shape")
    nodes = [helper.make_node("MaxUnpool", ["x", "i"], ["y"], name="unpool",
                              kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("MaxUnpool", ["x", "i", "shape"], ["z"], name="unpool5",
                              kernel_shape=[2, 2], strides=[2, 2])]
    _save(nodes, [_t("x", [1, 1, 2, 2]), _t("i", [1, 1, 2, 2], TensorProto.INT64)],
          [_t("y", [1, 1, 4, 4]), _t("z", [1, 1, 5, 5])], [shape], path, opset=11)


def det(path):
    """Det of a batch of 4 x 4 matrices and of one 3 x 3 matrix; and of a
    7 x 7 matrix in det_big, which hetc refuses."""
    nodes = [helper.make_node("Det", ["a"], ["da"], name="det4"),
             helper.make_node("Det", ["b"], ["db"], name="det3")]
    _save(nodes, [_t("a", [2, 4, 4]), _t("b", [3, 3])], [_t("da", [2]), _t("db", [])], [],
          path, opset=11)


def det_big(path):
    """Det of a 7 x 7 matrix."""
    nodes = [helper.make_node("Det", ["a"], ["d"], name="det7")]
    _save(nodes, [_t("a", [7, 7])], [_t("d", [])], [], path, opset=11)


def einsum_bad(path):
    """Einsum whose output names a letter no operand has."""
    nodes = [helper.make_node("Einsum", ["x"], ["d"], name="bad", equation="ij->k")]
    _save(nodes, [_t("x", [3, 3])], [_t("d", [3])], [], path, opset=12)


def index_copy(path):
    """A static KV cache updated as torch exports index_copy: the position,
    unsqueezed and expanded over every other dimension, indexes a
    ScatterElements along the sequence axis; the expand's target shape
    comes from a ScatterElements of constant shape bookkeeping."""
    inits = [
        numpy_helper.from_array(np.array([0, 1, 3], np.int64), "axes"),
        numpy_helper.from_array(np.array([1, 2, 8, 4], np.int64), "cache_shape"),
        numpy_helper.from_array(np.array([2], np.int64), "seq_axis"),
        numpy_helper.from_array(np.array([1], np.int64), "one_step"),
    ]
    nodes = [
        helper.make_node("ScatterElements", ["cache_shape", "seq_axis", "one_step"],
                         ["target"], name="bookkeeping", axis=0),
        helper.make_node("Unsqueeze", ["pos", "axes"], ["pos4"], name="unsqueeze"),
        helper.make_node("Expand", ["pos4", "target"], ["idx"], name="expand"),
        helper.make_node("ScatterElements", ["past", "idx", "new"], ["present"],
                         name="k_cache", axis=2),
    ]
    _save(nodes, [_t("past", [1, 2, 8, 4]), _t("new", [1, 2, 1, 4]),
                  _t("pos", [1], TensorProto.INT64)],
          [_t("present", [1, 2, 8, 4])], inits, path)


def slot_scatter(path):
    """A static KV cache of three batch slots, each slot's key written at
    its own position: the positions [3], reshaped to [3, 1, 1, 1] and
    expanded over the heads and the head dimension, index a
    ScatterElements along the sequence axis (torch's scatter of a batched
    decode step)."""
    inits = [
        numpy_helper.from_array(np.array([3, 1, 1, 1], np.int64), "slot_shape"),
        numpy_helper.from_array(np.array([3, 2, 1, 4], np.int64), "target"),
    ]
    nodes = [
        helper.make_node("Reshape", ["pos", "slot_shape"], ["pos4"], name="reshape"),
        helper.make_node("Expand", ["pos4", "target"], ["idx"], name="expand"),
        helper.make_node("ScatterElements", ["past", "idx", "new"], ["present"],
                         name="k_cache", axis=2),
    ]
    _save(nodes, [_t("past", [3, 2, 8, 4]), _t("new", [3, 2, 1, 4]),
                  _t("pos", [3], TensorProto.INT64)],
          [_t("present", [3, 2, 8, 4])], inits, path)


def scatter(path):
    """ScatterElements along axis 0 with reduction max, and ScatterND
    without a reduction and with reduction add."""
    nodes = [
        helper.make_node("ScatterElements", ["d", "i", "u"], ["se"], name="se",
                         axis=0, reduction="max"),
        helper.make_node("ScatterND", ["d", "ind", "row"], ["snd"], name="snd"),
        helper.make_node("ScatterND", ["d", "ind", "row"], ["snda"], name="snda",
                         reduction="add"),
    ]
    _save(nodes, [_t("d", [3, 2]), _t("i", [2, 2], TensorProto.INT64), _t("u", [2, 2]),
                  _t("ind", [1, 1], TensorProto.INT64), _t("row", [1, 2])],
          [_t("se", [3, 2]), _t("snd", [3, 2]), _t("snda", [3, 2])], [], path, opset=18)


def bitshift(path):
    """BitShift: uint8 to the left, int32 to the right (opset 28)."""
    nodes = [
        helper.make_node("BitShift", ["u", "uc"], ["l"], name="left", direction="LEFT"),
        helper.make_node("BitShift", ["s", "sc"], ["r"], name="right", direction="RIGHT"),
    ]
    u8, i32 = TensorProto.UINT8, TensorProto.INT32
    _save(nodes, [_t("u", [4], u8), _t("uc", [4], u8), _t("s", [4], i32), _t("sc", [4], i32)],
          [_t("l", [4], u8), _t("r", [4], i32)], [], path, opset=28)


def recurrent(path):
    """An RNN over two steps, and an LSTM with a bad activation."""
    nodes = [
        helper.make_node("RNN", ["x", "w", "r"], ["y", "yh"], name="rnn", hidden_size=3),
        helper.make_node("LSTM", ["x", "lw", "lr"], ["ly"], name="lstm", hidden_size=3,
                         activations=["Sigmoid", "Gelu", "Tanh"]),
    ]
    _save(nodes, [_t("x", [2, 1, 4]), _t("w", [1, 3, 4]), _t("r", [1, 3, 3]),
                  _t("lw", [1, 12, 4]), _t("lr", [1, 12, 3])],
          [_t("y", [2, 1, 1, 3]), _t("yh", [1, 1, 3]), _t("ly", [2, 1, 1, 3])], [], path)


def rnn(path):
    """A forward RNN over two steps."""
    nodes = [helper.make_node("RNN", ["x", "w", "r"], ["y", "yh"], name="rnn", hidden_size=3)]
    _save(nodes, [_t("x", [2, 1, 4]), _t("w", [1, 3, 4]), _t("r", [1, 3, 3])],
          [_t("y", [2, 1, 1, 3]), _t("yh", [1, 1, 3])], [], path)


def batch_norm_training(path):
    """BatchNormalization in training mode with its running statistics."""
    nodes = [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                              ["y", "rm", "rv"], name="bn", training_mode=1, momentum=0.75)]
    _save(nodes, [_t("x", [2, 3, 4]), _t("s", [3]), _t("b", [3]), _t("m", [3]), _t("v", [3])],
          [_t("y", [2, 3, 4]), _t("rm", [3]), _t("rv", [3])], [], path, opset=15)


def stat_norms(path):
    """InstanceNormalization, GroupNormalization (2 groups, opset 21) and
    MeanVarianceNormalization."""
    nodes = [
        helper.make_node("InstanceNormalization", ["x", "s", "b"], ["in"], name="inorm"),
        helper.make_node("GroupNormalization", ["x", "s", "b"], ["gn"], name="gnorm",
                         num_groups=2, epsilon=0.01),
        helper.make_node("MeanVarianceNormalization", ["x"], ["mvn"], name="mvn"),
    ]
    _save(nodes, [_t("x", [1, 4, 2, 3]), _t("s", [4]), _t("b", [4])],
          [_t("in", [1, 4, 2, 3]), _t("gn", [1, 4, 2, 3]), _t("mvn", [1, 4, 2, 3])], [],
          path, opset=21)


def dynamic_quantize(path):
    """DynamicQuantizeLinear."""
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "zp"], name="dq")]
    _save(nodes, [_t("x", [2, 3])],
          [_t("y", [2, 3], TensorProto.UINT8), _t("s", []), _t("zp", [], TensorProto.UINT8)],
          [], path, opset=11)


def qlinear_matmul(path):
    """QLinearMatMul on uint8 with per-tensor parameters."""
    f = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.float32), name)
    u = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.uint8), name)
    inits = [f("as", 0.5), u("az", 10), f("bs", 0.25), u("bz", 3), f("ys", 2.0), u("yz", 7)]
    nodes = [helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"],
                              ["y"], name="qmm")]
    u8 = TensorProto.UINT8
    _save(nodes, [_t("a", [2, 4], u8), _t("b", [4, 3], u8)], [_t("y", [2, 3], u8)], inits,
          path, opset=21)


def center_crop_pad(path):
    """CenterCropPad cropping one axis and padding another."""
    shape = numpy_helper.from_array(np.array([2, 7], dtype=np.int64), "shape")
    nodes = [helper.make_node("CenterCropPad", ["x", "shape"], ["y"], name="ccp",
                              axes=[0, 1])]
    _save(nodes, [_t("x", [5, 4])], [_t("y", [2, 7])], [shape], path, opset=18)


def top_k(path):
    """TopK of 2 along the last axis."""
    k = numpy_helper.from_array(np.array([2], dtype=np.int64), "k")
    nodes = [helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk")]
    _save(nodes, [_t("x", [3, 4])], [_t("v", [3, 2]), _t("i", [3, 2], TensorProto.INT64)],
          [k], path, opset=18)


def attention_nonpad(path):
    """Causal Attention over a static cache with per-batch valid lengths."""
    nodes = [helper.make_node("Attention", ["q", "k", "v", "", "", "", "lens"], ["y"],
                              name="attn", is_causal=1)]
    _save(nodes, [_t("q", [2, 1, 1, 4]), _t("k", [2, 1, 5, 4]), _t("v", [2, 1, 5, 4]),
                  _t("lens", [2], TensorProto.INT64)],
          [_t("y", [2, 1, 1, 4])], [], path, opset=24)


def training(path):
    """Momentum (nesterov) and Adagrad of the preview training domain, in a
    model that imports no default-domain opset."""
    domain = "ai.onnx.preview.training"
    nodes = [
        helper.make_node("Momentum", ["r", "t", "x", "g", "v"], ["x1", "v1"], name="momentum",
                         domain=domain, alpha=0.9, beta=0.1, mode="nesterov",
                         norm_coefficient=0.0),
        helper.make_node("Adagrad", ["r", "t", "x", "g", "v"], ["x2", "h2"], name="adagrad",
                         domain=domain),
    ]
    graph = helper.make_graph(
        nodes, "test",
        [_t("r", []), _t("t", [], TensorProto.INT64), _t("x", [3]), _t("g", [3]), _t("v", [3])],
        [_t("x1", [3]), _t("v1", [3]), _t("x2", [3]), _t("h2", [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(domain, 1)])
    model.ir_version = 8
    onnx.save(model, path)


def lp_pool(path):
    """LpPool with p = 3 and padding."""
    nodes = [helper.make_node("LpPool", ["x"], ["y"], name="lppool", kernel_shape=[2],
                              pads=[1, 0], p=3)]
    _save(nodes, [_t("x", [1, 2, 5])], [_t("y", [1, 2, 5])], [], path, opset=18)


def narrow_types(path):
    """Casts to and from the float8, float4 and int4 types (saturate and
    round_mode attributes, CastLike with an empty target_type input), and
    (de)quantisation with float8 and packed int4 zero points."""
    zp_f8 = helper.make_tensor("zp_f8", TensorProto.FLOAT8E4M3FN, [], [0.0])
    # Two int4 zero points packed in one byte: 3 (low nibble) and -2.
    zp_i4 = helper.make_tensor("zp_i4", TensorProto.INT4, [2], [3, -2])
    f4 = helper.make_tensor("f4", TensorProto.FLOAT4E2M1, [3], [0.5, -6.0, 3.0])
    nodes = [
        helper.make_node("Cast", ["x"], ["e4m3"], name="to_e4m3",
                         to=TensorProto.FLOAT8E4M3FN),
        helper.make_node("Cast", ["x"], ["e5m2"], name="to_e5m2",
                         to=TensorProto.FLOAT8E5M2, saturate=0),
        helper.make_node("Cast", ["x"], ["e8m0"], name="to_e8m0",
                         to=TensorProto.FLOAT8E8M0, round_mode="nearest"),
        helper.make_node("Cast", ["x"], ["i4"], name="to_i4", to=TensorProto.INT4),
        helper.make_node("CastLike", ["x", "like"], ["u4"], name="like_u4"),
        helper.make_node("QuantizeLinear", ["x", "scale", "zp_f8"], ["q"], name="quant"),
        helper.make_node("DequantizeLinear", ["xi4", "scale2", "zp_i4"], ["dq"],
                         name="dequant", axis=0),
        helper.make_node("Cast", ["f4"], ["f4f"], name="from_f4", to=TensorProto.FLOAT),
        # A cast of the constant is evaluated at compile time; one of an
        # input runs on the chip.
        helper.make_node("Cast", ["f4in"], ["f4inf"], name="from_f4_input",
                         to=TensorProto.FLOAT),
    ]
    inits = [zp_f8, zp_i4, f4,
             numpy_helper.from_array(np.array(2.0, np.float32), "scale"),
             numpy_helper.from_array(np.array([1.0, 0.5], np.float32), "scale2")]
    _save(nodes, [_t("x", [2, 3]), _t("like", [0], TensorProto.UINT4),
                  _t("xi4", [2, 3], TensorProto.INT4), _t("f4in", [3], TensorProto.FLOAT4E2M1)],
          [_t("e4m3", [2, 3], TensorProto.FLOAT8E4M3FN),
           _t("e5m2", [2, 3], TensorProto.FLOAT8E5M2),
           _t("e8m0", [2, 3], TensorProto.FLOAT8E8M0),
           _t("i4", [2, 3], TensorProto.INT4), _t("u4", [2, 3], TensorProto.UINT4),
           _t("q", [2, 3], TensorProto.FLOAT8E4M3FN), _t("dq", [2, 3]),
           _t("f4f", [3]), _t("f4inf", [3])], inits, path, opset=24)


def narrow_type_errors(path):
    """Quantisations to float8 the chip refuses: a zero point that is not
    zero, and saturate=0; and arithmetic on float8 values."""
    zp = helper.make_tensor("zp", TensorProto.FLOAT8E5M2, [], [2.0])
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "scale", "zp"], ["q1"], name="nonzero_zp"),
        helper.make_node("QuantizeLinear", ["x", "scale", "zp0"], ["q2"], name="no_saturate",
                         saturate=0),
    ]
    inits = [zp, helper.make_tensor("zp0", TensorProto.FLOAT8E5M2, [], [0.0]),
             numpy_helper.from_array(np.array(2.0, np.float32), "scale")]
    _save(nodes, [_t("x", [4])], [_t("q1", [4], TensorProto.FLOAT8E5M2),
                                  _t("q2", [4], TensorProto.FLOAT8E5M2)], inits, path,
          opset=21)


def float8_add(path):
    """An Add on float8 tensors, which the chip does not compute on."""
    nodes = [helper.make_node("Add", ["a", "b"], ["y"], name="add_f8")]
    f8 = TensorProto.FLOAT8E4M3FN
    _save(nodes, [_t("a", [4], f8), _t("b", [4], f8)], [_t("y", [4], f8)], [], path,
          opset=21)


def empty_inputs(path):
    """CastLike with an empty target_type input, as ONNX's tests give it."""
    nodes = [helper.make_node("CastLike", ["x", "like"], ["y"], name="castlike")]
    _save(nodes, [_t("x", [2, 3]), _t("like", [0], TensorProto.FLOAT16)],
          [_t("y", [2, 3], TensorProto.FLOAT16)], [], path)


def empty_input_read(path):
    """An empty graph input whose values nodes read: a Relu (empty) and a
    ReduceMax over the empty axis (the identity, -inf)."""
    axes = numpy_helper.from_array(np.array([0], np.int64), "axes")
    nodes = [helper.make_node("Relu", ["e"], ["y"], name="relu"),
             helper.make_node("ReduceMax", ["e", "axes"], ["m"], name="max", keepdims=0)]
    _save(nodes, [_t("e", [0, 3])], [_t("y", [0, 3]), _t("m", [3])], [axes], path,
          opset=18)



# Hostile models: each once crashed, hung or exhausted memory in the
# compiler; each must now give an error naming the node or input.
def hostile_huge_input(path):
    """A graph input of 2 x 2^40 elements."""
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    _save(nodes, [_t("x", [2, 1 << 40])], [_t("y", [2, 1 << 40])], [], path)


def hostile_symbolic_input(path):
    """A symbolic dimension, for --dim with an absurd value."""
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    _save(nodes, [_t("x", ["batch", 4])], [_t("y", ["batch", 4])], [], path)


def hostile_negative_opset(path):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    _save(nodes, [_t("x", [2])], [_t("y", [2])], [], path, opset=-1)


def hostile_constant_without_value(path):
    nodes = [helper.make_node("Constant", [], ["c"], name="const"),
             helper.make_node("Add", ["x", "c"], ["y"], name="add")]
    _save(nodes, [_t("x", [2])], [_t("y", [2])], [], path)


def hostile_constant_of_shape_without_input(path):
    nodes = [helper.make_node("ConstantOfShape", [""], ["y"], name="fill")]
    _save(nodes, [], [_t("y", [2])], [], path)


def hostile_grid_sample_empty_image(path):
    """GridSample from an image with a width of 0 at eight grid points."""
    nodes = [helper.make_node("GridSample", ["x", "grid"], ["y"], name="sample", mode="cubic")]
    _save(nodes, [_t("x", [1, 1, 2, 0]), _t("grid", [1, 2, 4, 2])], [_t("y", [1, 1, 2, 4])],
          [], path, opset=20)


def hostile_conv_integer_windows(path):
    """ConvInteger over a 3 x 3 map padded by 5000 on every side: 10^8
    windows, whose index table (made on the host) the chip could never
    hold."""
    w = numpy_helper.from_array(np.ones((2, 1, 2, 2), np.uint8), "w")
    nodes = [helper.make_node("ConvInteger", ["x", "w"], ["y"], name="conv",
                              pads=[5000, 5000, 5000, 5000])]
    x = helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 1, 3, 3])
    y = helper.make_tensor_value_info("y", TensorProto.INT32, None)
    _save(nodes, [x], [y], [w], path, opset=10)


def hostile_tile_overflow(path):
    """Repeats whose product with the input's dimension passes 2^63."""
    repeats = numpy_helper.from_array(np.array([1 << 62, 1], np.int64), "repeats")
    nodes = [helper.make_node("Tile", ["x", "repeats"], ["y"], name="tile")]
    _save(nodes, [_t("x", [4, 4])], [_t("y", [4, 4])], [repeats], path)


def hostile_expand_negative(path):
    shape = numpy_helper.from_array(np.array([-3, 4], np.int64), "shape")
    nodes = [helper.make_node("Expand", ["x", "shape"], ["y"], name="expand")]
    _save(nodes, [_t("x", [1, 4])], [_t("y", [3, 4])], [shape], path)


def hostile_initializer_overflow(path):
    """An initializer whose dimensions multiply past 2^64 to a small count."""
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1 << 32, 1 << 32, 1],
                    raw_data=b"\0" * 16)
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    _save(nodes, [_t("x", [1])], [_t("y", [1])], [w], path)


def hostile_conv_f16_splat_bias(path):
    """An fp16 Conv whose bias is one value throughout."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float16), "w")
    b = numpy_helper.from_array(np.full(4, 0.5, np.float16), "b")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1], name="conv")]
    _save(nodes, [_t("x", [1, 3, 8, 8], TensorProto.FLOAT16)],
          [_t("y", [1, 4, 8, 8], TensorProto.FLOAT16)], [w, b], path)


def hostile_gather_elements_rank(path):
    """GatherElements whose indices have another rank than the data."""
    idx = numpy_helper.from_array(np.array([0, 1], np.int64), "idx")
    nodes = [helper.make_node("GatherElements", ["x", "idx"], ["y"], axis=1,
                              name="pick")]
    _save(nodes, [_t("x", [2, 2])], [_t("y", [2])], [idx], path)


def hostile_pad_overflow(path):
    """Pads that add past 2^63."""
    pads = numpy_helper.from_array(np.array([0, 1 << 62, 0, 1 << 62], np.int64), "pads")
    nodes = [helper.make_node("Pad", ["x", "pads"], ["y"], name="pad")]
    _save(nodes, [_t("x", [1, 4])], [_t("y", [1, 4])], [pads], path)


def hostile_pad_wrap_empty(path):
    """Pad in wrap mode growing a dimension of size 0 (nothing to repeat)."""
    pads = numpy_helper.from_array(np.array([0, 0, 1, 0, 0, 0, 1, 0], np.int64), "pads")
    nodes = [helper.make_node("Pad", ["x", "pads"], ["y"], name="pad", mode="wrap")]
    _save(nodes, [_t("x", [1, 3, 0, 5])], [_t("y", [1, 3, 2, 5])], [pads], path)


def hostile_conv_zero_stride(path):
    """A Conv whose stride is 0 (the output size divides by it)."""
    w = numpy_helper.from_array(np.ones((2, 1, 3, 3), np.float32), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], strides=[0, 1], name="conv")]
    _save(nodes, [_t("x", [1, 1, 8, 8])], [_t("y", [1, 2, 6, 6])], [w], path)


def causal_conv_state(path):
    """CausalConvWithState (opset 27) with a bias, a past state and SiLU: a
    decode-style step of 3 positions, kernel 4, 5 channels."""
    rng = np.random.default_rng(11)
    inits = [numpy_helper.from_array(rng.standard_normal((5, 1, 4)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal(5).astype(np.float32), "b")]
    nodes = [helper.make_node("CausalConvWithState", ["x", "w", "b", "past"],
                              ["y", "present"], name="causal_conv", activation="silu")]
    _save(nodes, [_t("x", [2, 5, 3]), _t("past", [2, 5, 3])],
          [_t("y", [2, 5, 3]), _t("present", [2, 5, 3])], inits, path, opset=27)


def linear_attention(path):
    """LinearAttention (opset 27), gated delta rule, 4 query heads over 2
    kv heads (d_k 3, d_v 2), 3 positions, a past state, per-head decay."""
    nodes = [helper.make_node("LinearAttention", ["q", "k", "v", "past", "decay", "beta"],
                              ["y", "present"], name="linear_attention",
                              q_num_heads=4, kv_num_heads=2, update_rule="gated_delta")]
    _save(nodes, [_t("q", [1, 3, 12]), _t("k", [1, 3, 6]), _t("v", [1, 3, 4]),
                  _t("past", [1, 2, 3, 2]), _t("decay", [1, 3, 2]), _t("beta", [1, 3, 2])],
          [_t("y", [1, 3, 8]), _t("present", [1, 2, 3, 2])], [], path, opset=27)


def swiglu(path):
    """SwiGLU (opset 28) with alpha 1.5."""
    nodes = [helper.make_node("SwiGLU", ["a", "b"], ["y"], name="swiglu", alpha=1.5)]
    _save(nodes, [_t("a", [2, 6]), _t("b", [2, 6])], [_t("y", [2, 6])], [], path, opset=28)


def affine_grid(path):
    """AffineGrid (opset 20), 2-D, size (2, 1, 3, 4), corners aligned."""
    inits = [numpy_helper.from_array(np.array([2, 1, 3, 4], np.int64), "size")]
    nodes = [helper.make_node("AffineGrid", ["theta", "size"], ["grid"], name="affine_grid",
                              align_corners=1)]
    _save(nodes, [_t("theta", [2, 2, 3])], [_t("grid", [2, 3, 4, 2])], inits, path, opset=20)


def bitcast(path):
    """BitCast (opset 26): f32 to i32 (one 32-bit word), i8 to ui8 (modulo
    256)."""
    nodes = [helper.make_node("BitCast", ["x"], ["bits"], name="bits", to=TensorProto.INT32),
             helper.make_node("BitCast", ["c"], ["u"], name="bytes", to=TensorProto.UINT8)]
    _save(nodes, [_t("x", [2, 3]), _t("c", [4], TensorProto.INT8)],
          [_t("bits", [2, 3], TensorProto.INT32), _t("u", [4], TensorProto.UINT8)], [], path,
          opset=26)


def bitcast_f16(path):
    """BitCast (opset 26) of f16 to i16, whose bits the chip does not keep."""
    nodes = [helper.make_node("BitCast", ["x"], ["y"], name="half_bits", to=TensorProto.INT16)]
    _save(nodes, [_t("x", [4], TensorProto.FLOAT16)], [_t("y", [4], TensorProto.INT16)], [],
          path, opset=26)


def constant_chain(path):
    """The bookkeeping chain torch exports for masks and Expand shapes,
    ConstantOfShape -> Mul -> Equal -> Where -> Expand -> Split -> Concat
    -> Shape -> ConstantOfShape, all on constants; Split has no folder, so
    the shapes after it are known only by evaluating the chain."""
    i64 = TensorProto.INT64
    inits = [numpy_helper.from_array(np.array([3], np.int64), "three"),
             numpy_helper.from_array(np.array(-1, np.int64), "minus_one"),
             numpy_helper.from_array(np.array([2, 3, 4], np.int64), "target"),
             numpy_helper.from_array(np.array([0.0], np.float32), "zero")]
    nodes = [
        helper.make_node("ConstantOfShape", ["three"], ["ones"], name="ones",
                         value=numpy_helper.from_array(np.array([1], np.int64))),
        helper.make_node("Mul", ["ones", "minus_one"], ["minus"], name="minus"),
        helper.make_node("Equal", ["target", "minus"], ["is_free"], name="is_free"),
        helper.make_node("Where", ["is_free", "ones", "target"], ["shape"], name="shape"),
        helper.make_node("Expand", ["zero", "shape"], ["zeros"], name="zeros"),
        helper.make_node("Split", ["shape"], ["a", "b", "c"], name="split", num_outputs=3),
        helper.make_node("Concat", ["c", "a", "b"], ["moved"], name="moved", axis=0),
        helper.make_node("Reshape", ["zeros", "moved"], ["zeros_moved"], name="zeros_moved"),
        helper.make_node("Shape", ["zeros_moved"], ["moved_shape"], name="moved_shape"),
        helper.make_node("ConstantOfShape", ["moved_shape"], ["half"], name="half",
                         value=numpy_helper.from_array(np.array([0.5], np.float32))),
        helper.make_node("Reshape", ["x", "moved"], ["xm"], name="reshape_x"),
        helper.make_node("Add", ["xm", "half"], ["y"], name="add"),
    ]
    _save(nodes, [_t("x", [2, 3, 4])], [_t("y", [4, 2, 3])], inits, path, opset=18)


def constant_chain_refused(path):
    """A Reshape target computed from constants through a Split (no folder)
    of an int64 beyond the int32 range in which the chip holds integers."""
    inits = [numpy_helper.from_array(np.array([3, 2**33], np.int64), "u")]
    nodes = [helper.make_node("Split", ["u"], ["p", "q"], name="halves", num_outputs=2),
             helper.make_node("Concat", ["q", "p"], ["shape"], name="shape", axis=0),
             helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    _save(nodes, [_t("x", [6])], [_t("y", [2, 3])], inits, path, opset=18)


def grid_sample(path):
    """GridSample (opset 20) in each mode and padding rule, 2-D and 3-D;
    the grid is scaled past [-1, 1] so that border and reflection matter."""
    scale = [numpy_helper.from_array(np.array(1.7, np.float32), "spread")]
    nodes = [helper.make_node("Mul", ["g", "spread"], ["grid"], name="spread"),
             helper.make_node("Mul", ["g3", "spread"], ["grid3"], name="spread3")]
    cases = [("linear", "zeros", 0), ("cubic", "reflection", 1), ("nearest", "border", 0),
             ("linear", "reflection", 0), ("cubic", "border", 0), ("nearest", "zeros", 1)]
    outputs = []
    for i, (mode, padding, align) in enumerate(cases):
        nodes.append(helper.make_node("GridSample", ["x", "grid"], [f"y{i}"], name=f"sample{i}",
                                      mode=mode, padding_mode=padding, align_corners=align))
        outputs.append(_t(f"y{i}", [2, 3, 3, 6]))
    nodes.append(helper.make_node("GridSample", ["v", "grid3"], ["y3d"], name="sample3d",
                                  mode="linear", padding_mode="reflection", align_corners=0))
    outputs.append(_t("y3d", [1, 2, 2, 3, 2]))
    _save(nodes, [_t("x", [2, 3, 4, 5]), _t("g", [2, 3, 6, 2]), _t("v", [1, 2, 3, 4, 2]),
                  _t("g3", [1, 2, 3, 2, 3])], outputs, scale, path, opset=20)


def roi_align(path, ratio=2):
    """RoiAlign (opset 16) in avg and max modes and both coordinate
    transforms; the regions are spread to [-2, 6] so that some samples fall
    outside the 6 x 7 input."""
    inits = [numpy_helper.from_array(np.array(4.0, np.float32), "four"),
             numpy_helper.from_array(np.array(2.0, np.float32), "two"),
             numpy_helper.from_array(np.array([0, 1, 1], np.int64), "batch")]
    nodes = [helper.make_node("Mul", ["r", "four"], ["r4"], name="spread"),
             helper.make_node("Add", ["r4", "two"], ["rois"], name="shift"),
             helper.make_node("RoiAlign", ["x", "rois", "batch"], ["avg"], name="avg_pool",
                              output_height=2, output_width=3, sampling_ratio=ratio,
                              spatial_scale=0.9),
             helper.make_node("RoiAlign", ["x", "rois", "batch"], ["max"], name="max_pool",
                              mode="max", output_height=3, output_width=2, sampling_ratio=ratio,
                              coordinate_transformation_mode="output_half_pixel")]
    _save(nodes, [_t("x", [2, 3, 6, 7]), _t("r", [3, 4])],
          [_t("avg", [3, 3, 2, 3]), _t("max", [3, 3, 3, 2])], inits, path, opset=16)


def roi_align_adaptive(path):
    """RoiAlign with sampling_ratio 0 (samples per bin chosen at run time)."""
    roi_align(path, ratio=0)


def flex_attention(path):
    """FlexAttention (ai.onnx.preview): grouped-query heads (4 over 2), a
    scale, a causal score_mod built from the scores' shape, and a prob_mod."""
    f = TensorProto.FLOAT
    score_nodes = [
        helper.make_node("Shape", ["scores"], ["shape"]),
        helper.make_node("Gather", ["shape", "two"], ["l"], axis=0),
        helper.make_node("Gather", ["shape", "three"], ["s"], axis=0),
        helper.make_node("Range", ["zero", "l", "one"], ["qi"]),
        helper.make_node("Range", ["zero", "s", "one"], ["ki"]),
        helper.make_node("Unsqueeze", ["qi", "axis1"], ["qcol"]),
        helper.make_node("GreaterOrEqual", ["qcol", "ki"], ["keep"]),
        helper.make_node("Where", ["keep", "scores", "neg"], ["scores_out"]),
    ]
    score_mod = helper.make_graph(
        score_nodes, "causal", [_t("scores", ["B", "H", "L", "S"])],
        [_t("scores_out", ["B", "H", "L", "S"])],
        [numpy_helper.from_array(np.array(v, np.int64), n)
         for n, v in (("two", 2), ("three", 3), ("zero", 0), ("one", 1), ("axis1", [1]))]
        + [numpy_helper.from_array(np.array(-1e9, np.float32), "neg")])
    prob_mod = helper.make_graph(
        [helper.make_node("Mul", ["probs", "half"], ["probs_out"])], "halve",
        [_t("probs", ["B", "H", "L", "S"])], [_t("probs_out", ["B", "H", "L", "S"])],
        [numpy_helper.from_array(np.array(0.5, np.float32), "half")])
    node = helper.make_node("FlexAttention", ["q", "k", "v"], ["y"], name="flex",
                            domain="ai.onnx.preview", scale=0.3, score_mod=score_mod,
                            prob_mod=prob_mod)
    graph = helper.make_graph([node], "test", [_t("q", [1, 4, 5, 8]), _t("k", [1, 2, 5, 8]),
                                               _t("v", [1, 2, 5, 6])],
                              [_t("y", [1, 4, 5, 6], f)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26),
                                                    helper.make_opsetid("ai.onnx.preview", 1)])
    model.ir_version = 10
    onnx.save(model, path)


def integer_convs(path):
    """ConvInteger with two groups, strides and padding, a uint8 input and
    int8 weights with a zero point per filter; one whose windows hold 576
    products (past float32's exact integers); QLinearConv with a bias and a
    scale per filter; MatMulInteger with a zero point per column (the
    reference evaluator does not take one per row)."""
    rng = np.random.default_rng(11)
    u8, i8 = TensorProto.UINT8, TensorProto.INT8
    inits = [
        numpy_helper.from_array(rng.integers(-128, 128, (6, 2, 3, 3), dtype=np.int8), "w"),
        numpy_helper.from_array(rng.integers(-5, 6, (6,), dtype=np.int8), "wz"),
        numpy_helper.from_array(rng.integers(-128, 128, (8, 64, 3, 3), dtype=np.int8), "wide_w"),
        numpy_helper.from_array(rng.integers(0, 256, (4, 3, 2, 2), dtype=np.uint8), "qw"),
        numpy_helper.from_array(np.array(0.02, np.float32), "xs"),
        numpy_helper.from_array(np.array(7, np.uint8), "xz"),
        numpy_helper.from_array(rng.uniform(0.01, 0.03, (4,)).astype(np.float32), "ws"),
        numpy_helper.from_array(rng.integers(100, 150, (4,), dtype=np.uint8), "wz4"),
        numpy_helper.from_array(np.array(0.9, np.float32), "ys"),
        numpy_helper.from_array(np.array(128, np.uint8), "yz"),
        numpy_helper.from_array(rng.integers(-3000, 3000, (4,), dtype=np.int32), "bias"),
        numpy_helper.from_array(np.array(201, np.uint8), "az"),
        numpy_helper.from_array(rng.integers(0, 256, (4,), dtype=np.uint8), "bz"),
    ]
    nodes = [
        helper.make_node("ConvInteger", ["x", "w", "x_zero", "wz"], ["grouped"], name="grouped",
                         group=2, pads=[1, 0, 1, 2], strides=[2, 1]),
        helper.make_node("ConvInteger", ["wide", "wide_w"], ["wide_out"], name="wide",
                         pads=[1, 1, 1, 1]),
        helper.make_node("QLinearConv", ["qx", "xs", "xz", "qw", "ws", "wz4", "ys", "yz", "bias"],
                         ["qy"], name="qconv", pads=[0, 1, 0, 1]),
        helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["ab"], name="mmi"),
    ]
    _save(nodes, [_t("x", [1, 4, 5, 5], u8), _t("x_zero", [], u8), _t("wide", [1, 64, 4, 4], u8),
                  _t("qx", [1, 3, 4, 4], u8), _t("a", [3, 5], u8), _t("b", [5, 4], u8)],
          [_t("grouped", [1, 6, 3, 6], TensorProto.INT32), _t("wide_out", [1, 8, 4, 4], TensorProto.INT32),
           _t("qy", [1, 4, 3, 4], u8), _t("ab", [3, 4], TensorProto.INT32)], inits, path, opset=21)


def conv_integer_bad_zero(path):
    """ConvInteger whose weight zero point has 4 values for 6 filters."""
    inits = [numpy_helper.from_array(np.ones((6, 2, 3, 3), np.int8), "w"),
             numpy_helper.from_array(np.zeros((4,), np.int8), "wz")]
    nodes = [helper.make_node("ConvInteger", ["x", "w", "", "wz"], ["y"], name="bad_zero")]
    _save(nodes, [_t("x", [1, 2, 5, 5], TensorProto.UINT8)],
          [_t("y", [1, 6, 3, 3], TensorProto.INT32)], inits, path, opset=21)


def integer_pow_and_any(path):
    """Pow of integer bases (small ones, from Mod) by integer and float
    exponents, and ReduceMax/ReduceMin over booleans (any, all)."""
    i32 = TensorProto.INT32
    inits = [numpy_helper.from_array(np.array(9, np.int32), "nine"),
             numpy_helper.from_array(np.array(4, np.int32), "four"),
             numpy_helper.from_array(np.array(6, np.int32), "six"),
             numpy_helper.from_array(np.array(0.75, np.float32), "frac"),
             numpy_helper.from_array(np.array([1], np.int64), "axis")]
    nodes = [
        helper.make_node("Mod", ["x", "nine"], ["m"], name="mod"),
        helper.make_node("Sub", ["m", "four"], ["base"], name="centre"),
        helper.make_node("Mod", ["e", "six"], ["ei"], name="emod"),
        helper.make_node("Pow", ["base", "ei"], ["p"], name="int_pow"),
        helper.make_node("Cast", ["ei"], ["ef"], name="to_float", to=TensorProto.FLOAT),
        helper.make_node("Mul", ["ef", "frac"], ["ex"], name="fraction"),
        helper.make_node("Abs", ["base"], ["mag"], name="mag"),
        helper.make_node("Pow", ["mag", "ex"], ["pf"], name="float_pow"),
        helper.make_node("ReduceMax", ["flags", "axis"], ["any"], name="any", keepdims=0),
        helper.make_node("ReduceMin", ["flags", "axis"], ["all"], name="all", keepdims=1),
    ]
    _save(nodes, [_t("x", [3, 8], i32), _t("e", [3, 8], i32), _t("flags", [4, 3], TensorProto.BOOL)],
          [_t("p", [3, 8], i32), _t("pf", [3, 8], i32), _t("any", [4], TensorProto.BOOL),
           _t("all", [4, 1], TensorProto.BOOL)], inits, path, opset=20)


def lstm_empty_sequence(path):
    """An LSTM over a sequence of no steps: Y is empty, Y_h the initial
    state (zeros)."""
    rng = np.random.default_rng(3)
    inits = [numpy_helper.from_array(rng.standard_normal((1, 12, 2)).astype(np.float32), "W"),
             numpy_helper.from_array(rng.standard_normal((1, 12, 3)).astype(np.float32), "R")]
    nodes = [helper.make_node("LSTM", ["X", "W", "R"], ["Y", "Y_h"], name="lstm",
                              hidden_size=3)]
    _save(nodes, [_t("X", [0, 2, 2])], [_t("Y", [0, 1, 2, 3]), _t("Y_h", [1, 2, 3])], inits,
          path)


def reductions(path):
    """Softmax, ReduceSum and ReduceMax along rows of 50 elements (several
    vectors of test-chip's 16 lanes), in f32, and the reductions in f16."""
    axes = numpy_helper.from_array(np.array([-1], np.int64), "axes")
    nodes = [helper.make_node("Softmax", ["x"], ["x_softmax"], axis=-1)]
    for t in ("x", "h"):
        nodes += [helper.make_node("ReduceSum", [t, "axes"], [t + "_sum"]),
                  helper.make_node("ReduceMax", [t, "axes"], [t + "_max"])]
    outputs = [_t("x_softmax", [3, 50])]
    for t, dtype in (("x", TensorProto.FLOAT), ("h", TensorProto.FLOAT16)):
        outputs += [_t(t + "_sum", [3, 1], dtype), _t(t + "_max", [3, 1], dtype)]
    _save(nodes, [_t("x", [3, 50]), _t("h", [3, 50], TensorProto.FLOAT16)], outputs, [axes],
          path, opset=18)


if __name__ == "__main__":
    globals()[sys.argv[1]](sys.argv[2])
