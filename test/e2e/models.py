"""Small models for hetc's end-to-end tests, built with onnx.helper: fp32
ones, one in float16 and one with int8 quantisation.

Each builder returns an onnx.ModelProto; weights come from a fixed seed so
that the models (and the bundled example) are reproducible.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


def _weights(rng, *shape):
    return (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)


def _model(nodes, inputs, outputs, initializers, name, opset=OPSET):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)],
        producer_name="hetc-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def mlp_relu(batch=4, dims=(32, 64, 10), seed=1):
    """MatMul + Add + Relu layers, then a final MatMul + Add."""
    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    prev = "x"
    for i, (k, n) in enumerate(zip(dims[:-1], dims[1:])):
        inits += [numpy_helper.from_array(_weights(rng, k, n), f"w{i}"),
                  numpy_helper.from_array(
                      (0.1 * rng.standard_normal(n)).astype(np.float32), f"b{i}")]
        nodes += [helper.make_node("MatMul", [prev, f"w{i}"], [f"mm{i}"], name=f"fc{i}/matmul"),
                  helper.make_node("Add", [f"mm{i}", f"b{i}"], [f"z{i}"], name=f"fc{i}/bias")]
        prev = f"z{i}"
        if i < len(dims) - 2:
            nodes.append(helper.make_node("Relu", [prev], [f"h{i}"], name=f"fc{i}/relu"))
            prev = f"h{i}"
    nodes.append(helper.make_node("Identity", [prev], ["y"], name="out"))
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, dims[0]])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, dims[-1]])],
                  inits, "mlp_relu")


def mlp_gemm_softmax(batch=3, dims=(20, 24, 12), seed=2):
    """Gemm (transB=1) + Tanh, Gemm + Sigmoid-gated residual, Softmax."""
    rng = np.random.default_rng(seed)
    d0, d1, d2 = dims
    inits = [
        numpy_helper.from_array(_weights(rng, d1, d0), "w0"),  # transposed
        numpy_helper.from_array((0.1 * rng.standard_normal(d1)).astype(np.float32), "b0"),
        numpy_helper.from_array(_weights(rng, d1, d2), "w1"),
        numpy_helper.from_array((0.1 * rng.standard_normal(d2)).astype(np.float32), "b1"),
        numpy_helper.from_array(np.array([batch, d2], dtype=np.int64), "shape"),
    ]
    nodes = [
        helper.make_node("Gemm", ["x", "w0", "b0"], ["g0"], name="layer0/gemm", transB=1, alpha=0.5),
        helper.make_node("Tanh", ["g0"], ["t0"], name="layer0/tanh"),
        helper.make_node("Gemm", ["t0", "w1", "b1"], ["g1"], name="layer1/gemm"),
        helper.make_node("Sigmoid", ["g1"], ["s1"], name="layer1/gate"),
        helper.make_node("Mul", ["g1", "s1"], ["m1"], name="layer1/swish"),
        helper.make_node("Sub", ["m1", "g1"], ["d1"], name="layer1/sub"),
        helper.make_node("Reshape", ["d1", "shape"], ["r1"], name="layer1/reshape"),
        helper.make_node("Softmax", ["r1"], ["y"], name="head/softmax", axis=-1),
    ]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, d0])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, d2])],
                  inits, "mlp_gemm_softmax")


def mlp_batched(dims=(2, 5, 40), hidden=36, seed=3):
    """A rank-3 input through MatMul+Add+Sigmoid, Div by a constant and a
    residual Add; the batch axis is symbolic ('batch')."""
    rng = np.random.default_rng(seed)
    b, s, d = dims
    inits = [
        numpy_helper.from_array(_weights(rng, d, hidden), "w0"),
        numpy_helper.from_array((0.1 * rng.standard_normal(hidden)).astype(np.float32), "b0"),
        numpy_helper.from_array(_weights(rng, hidden, d), "w1"),
        numpy_helper.from_array(np.array(2.0, dtype=np.float32), "two"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w0"], ["m0"], name="up/matmul"),
        helper.make_node("Add", ["b0", "m0"], ["a0"], name="up/bias"),
        helper.make_node("Sigmoid", ["a0"], ["h0"], name="up/sigmoid"),
        helper.make_node("MatMul", ["h0", "w1"], ["m1"], name="down/matmul"),
        helper.make_node("Div", ["m1", "two"], ["d1"], name="down/half"),
        helper.make_node("Add", ["d1", "x"], ["y"], name="residual"),
    ]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", s, d])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", s, d])],
                  inits, "mlp_batched")


def broadcasting(seed=4):
    """Elementwise ops whose operands broadcast every way: a row on the left
    of a Sub, a per-row column in a Div, a scalar and a [2, 1, 20] operand."""
    rng = np.random.default_rng(seed)
    inits = [
        numpy_helper.from_array(rng.standard_normal(20).astype(np.float32), "row"),
        numpy_helper.from_array(np.array(0.5, dtype=np.float32), "half"),
    ]
    nodes = [
        helper.make_node("Sub", ["row", "a"], ["s"], name="row_minus_a"),
        helper.make_node("Div", ["s", "col"], ["d"], name="per_row_scale"),
        helper.make_node("Mul", ["half", "d"], ["m"], name="halve"),
        helper.make_node("Add", ["m", "plane"], ["y"], name="add_plane"),
    ]
    inputs = [
        helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3, 20]),
        helper.make_tensor_value_info("col", TensorProto.FLOAT, [3, 1]),
        helper.make_tensor_value_info("plane", TensorProto.FLOAT, [2, 1, 20]),
    ]
    return _model(nodes, inputs,
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 20])],
                  inits, "broadcasting")


def attention_head(seq=6, dim=20, head=8, seed=5):
    """One attention head: softmax(q k^T / sqrt(d)) v, then transposed. The
    keys are computed, so k^T is a transpose on the chip and the scores a
    matmul with computed weights."""
    rng = np.random.default_rng(seed)
    inits = [numpy_helper.from_array(_weights(rng, dim, head), n) for n in ("wq", "wk", "wv")]
    inits.append(numpy_helper.from_array(np.array(1 / np.sqrt(head), np.float32), "scale"))
    nodes = [
        helper.make_node("MatMul", ["x", "wq"], ["q"], name="q_proj"),
        helper.make_node("MatMul", ["x", "wk"], ["k"], name="k_proj"),
        helper.make_node("MatMul", ["x", "wv"], ["v"], name="v_proj"),
        helper.make_node("Transpose", ["k"], ["kt"], name="k_transpose", perm=[1, 0]),
        helper.make_node("MatMul", ["q", "kt"], ["s"], name="scores"),
        helper.make_node("Mul", ["s", "scale"], ["ss"], name="scale"),
        helper.make_node("Softmax", ["ss"], ["p"], name="softmax", axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["o"], name="context"),
        helper.make_node("Transpose", ["o"], ["y"], name="out_transpose", perm=[1, 0]),
    ]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [seq, dim])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [head, seq])],
                  inits, "attention_head")


def transformer_block(seq=8, dim=32, hidden=64, seed=6):
    """A pre-norm transformer block with one attention head:
    x + attn(ln(x)), then h + mlp(ln(h)) with a ReLU MLP."""
    rng = np.random.default_rng(seed)
    inits = [numpy_helper.from_array(_weights(rng, dim, dim), n)
             for n in ("wq", "wk", "wv", "wo")]
    inits += [
        numpy_helper.from_array(_weights(rng, dim, hidden), "w1"),
        numpy_helper.from_array((0.1 * rng.standard_normal(hidden)).astype(np.float32), "b1"),
        numpy_helper.from_array(_weights(rng, hidden, dim), "w2"),
        numpy_helper.from_array((1 + 0.1 * rng.standard_normal(dim)).astype(np.float32), "g1"),
        numpy_helper.from_array((0.1 * rng.standard_normal(dim)).astype(np.float32), "be1"),
        numpy_helper.from_array((1 + 0.1 * rng.standard_normal(dim)).astype(np.float32), "g2"),
        numpy_helper.from_array(np.array(1 / np.sqrt(dim), np.float32), "scale"),
    ]
    nodes = [
        helper.make_node("LayerNormalization", ["x", "g1", "be1"], ["n1"], name="ln1", axis=-1),
        helper.make_node("MatMul", ["n1", "wq"], ["q"], name="attn/q"),
        helper.make_node("MatMul", ["n1", "wk"], ["k"], name="attn/k"),
        helper.make_node("MatMul", ["n1", "wv"], ["v"], name="attn/v"),
        helper.make_node("Transpose", ["k"], ["kt"], name="attn/kt", perm=[1, 0]),
        helper.make_node("MatMul", ["q", "kt"], ["s"], name="attn/scores"),
        helper.make_node("Mul", ["s", "scale"], ["ss"], name="attn/scale"),
        helper.make_node("Softmax", ["ss"], ["p"], name="attn/softmax", axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["c"], name="attn/context"),
        helper.make_node("MatMul", ["c", "wo"], ["o"], name="attn/out"),
        helper.make_node("Add", ["x", "o"], ["h"], name="residual1"),
        helper.make_node("LayerNormalization", ["h", "g2"], ["n2"], name="ln2", axis=-1),
        helper.make_node("MatMul", ["n2", "w1"], ["m1"], name="mlp/up"),
        helper.make_node("Add", ["m1", "b1"], ["a1"], name="mlp/bias"),
        helper.make_node("Relu", ["a1"], ["r1"], name="mlp/relu"),
        helper.make_node("MatMul", ["r1", "w2"], ["m2"], name="mlp/down"),
        helper.make_node("Add", ["h", "m2"], ["y"], name="residual2"),
    ]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [seq, dim])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [seq, dim])],
                  inits, "transformer_block")


def layout_mix(seed=7):
    """Layout ops around a matmul: Concat along the rows' axis and along the
    row, a strided Slice with a negative step, a Transpose that moves the
    innermost dimension, a Reshape that changes the row length, a constant
    Pad with a non-zero value and a reflect Pad."""
    rng = np.random.default_rng(seed)
    inits = [
        numpy_helper.from_array(_weights(rng, 24, 20), "w"),
        numpy_helper.from_array(np.array([1, 0, 0], np.int64), "starts"),
        numpy_helper.from_array(np.array([6, 20, 7], np.int64), "ends"),
        numpy_helper.from_array(np.array([0, 1, 2], np.int64), "axes"),
        numpy_helper.from_array(np.array([1, 2, 1], np.int64), "steps"),
        numpy_helper.from_array(np.array([5, 4, -1], np.int64), "to3d"),
        numpy_helper.from_array(np.array([0, 1, 0, 0, 2, 0], np.int64), "pads"),
        numpy_helper.from_array(np.array(1.5, np.float32), "fill"),
        numpy_helper.from_array(np.array([0, 0, 2, 0, 0, 3], np.int64), "rpads"),
        numpy_helper.from_array(np.array([7, 3], np.int64), "rev_s"),
        numpy_helper.from_array(np.array([-100, -100], np.int64), "rev_e"),
        numpy_helper.from_array(np.array([0, 1], np.int64), "rev_a"),
        numpy_helper.from_array(np.array([-2, -1], np.int64), "rev_st"),
    ]
    nodes = [
        helper.make_node("Concat", ["a", "b"], ["ab"], name="cat_row", axis=1),
        helper.make_node("MatMul", ["ab", "w"], ["h"], name="proj"),
        helper.make_node("Concat", ["h", "c"], ["hc"], name="cat_rows", axis=0),
        helper.make_node("Reshape", ["hc", "to3d"], ["r"], name="to3d"),
        helper.make_node("Slice", ["r", "starts", "ends", "axes", "steps"], ["sl"],
                         name="window"),
        helper.make_node("Transpose", ["sl"], ["t"], name="move_rows", perm=[1, 2, 0]),
        helper.make_node("Pad", ["t", "pads", "fill"], ["p"], name="pad_fill", mode="constant"),
        helper.make_node("Pad", ["p", "rpads"], ["q"], name="pad_reflect", mode="reflect"),
        helper.make_node("Slice", ["ab", "rev_s", "rev_e", "rev_a", "rev_st"], ["rev"],
                         name="reverse"),
        helper.make_node("Relu", ["q"], ["y"], name="out"),
    ]
    inputs = [
        helper.make_tensor_value_info("a", TensorProto.FLOAT, [8, 10]),
        helper.make_tensor_value_info("b", TensorProto.FLOAT, [8, 14]),
        helper.make_tensor_value_info("c", TensorProto.FLOAT, [2, 20]),
    ]
    return _model(nodes, inputs,
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 10, 9]),
                   helper.make_tensor_value_info("rev", TensorProto.FLOAT, [4, 4])],
                  inits, "layout_mix")


def split_gather(seed=8):
    """Split, Gather with constant indices, GatherElements, Tile, Expand,
    Squeeze/Unsqueeze/Flatten that change the rows, fed into a Gemm."""
    rng = np.random.default_rng(seed)
    inits = [
        numpy_helper.from_array(np.array([3, 0, 2, -1], np.int64), "ids"),
        numpy_helper.from_array(np.array([[2, 0, 1], [1, 1, 0]], np.int64), "eids"),
        numpy_helper.from_array(np.array([1, 3], np.int64), "reps"),
        numpy_helper.from_array(np.array([2, 1, 6], np.int64), "eshape"),
        numpy_helper.from_array(np.array([0], np.int64), "ax0"),
        numpy_helper.from_array(np.array([2, 3], np.int64), "sizes"),
        numpy_helper.from_array(_weights(rng, 12, 7), "w"),
    ]
    nodes = [
        helper.make_node("Split", ["x", "sizes"], ["x0", "x1"], name="split", axis=1),
        helper.make_node("Gather", ["x1", "ids"], ["g"], name="pick_rows", axis=0),
        helper.make_node("GatherElements", ["x1", "eids"], ["ge"], name="pick_elems", axis=1),
        helper.make_node("Tile", ["x0", "reps"], ["tl"], name="tile"),
        helper.make_node("Unsqueeze", ["tl", "ax0"], ["u"], name="unsq"),
        helper.make_node("Expand", ["u", "eshape"], ["e"], name="expand"),
        helper.make_node("Transpose", ["e"], ["et"], name="swap_outer", perm=[1, 0, 2]),
        helper.make_node("Flatten", ["et"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "w"], ["y"], name="head"),
        helper.make_node("Identity", ["g"], ["gy"], name="gy"),
        helper.make_node("Identity", ["ge"], ["gey"], name="gey"),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 5])]
    return _model(nodes, inputs,
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 7]),
                   helper.make_tensor_value_info("gy", TensorProto.FLOAT, [4, 3]),
                   helper.make_tensor_value_info("gey", TensorProto.FLOAT, [2, 3])],
                  inits, "split_gather")


def gqa_attention(seq=6, dim=16, seed=9):
    """A causal self-attention layer with the ONNX Attention op (opset 23):
    packed 3-D heads, 4 query heads sharing 2 KV heads (grouped-query
    attention), an output projection, and the present KV outputs."""
    rng = np.random.default_rng(seed)
    heads, kv_heads, head = 4, 2, dim // 4
    inits = [
        numpy_helper.from_array(_weights(rng, dim, dim), "wq"),
        numpy_helper.from_array(_weights(rng, dim, kv_heads * head), "wk"),
        numpy_helper.from_array(_weights(rng, dim, kv_heads * head), "wv"),
        numpy_helper.from_array(_weights(rng, dim, dim), "wo"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "wq"], ["q"], name="q_proj"),
        helper.make_node("MatMul", ["x", "wk"], ["k"], name="k_proj"),
        helper.make_node("MatMul", ["x", "wv"], ["v"], name="v_proj"),
        helper.make_node("Attention", ["q", "k", "v"], ["a", "present_k", "present_v"],
                         name="attention", is_causal=1, q_num_heads=heads,
                         kv_num_heads=kv_heads),
        helper.make_node("MatMul", ["a", "wo"], ["y"], name="o_proj"),
    ]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, seq, dim])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, seq, dim]),
                   helper.make_tensor_value_info("present_k", TensorProto.FLOAT,
                                                 [2, kv_heads, seq, head]),
                   helper.make_tensor_value_info("present_v", TensorProto.FLOAT,
                                                 [2, kv_heads, seq, head])],
                  inits, "gqa_attention", opset=23)


def small_cnn(seed=10):
    """Conv (padded) + Relu, MaxPool, a grouped strided Conv with a bias
    (each group's weights and bias cut on the host), AveragePool
    with padding (count_include_pad = 0), GlobalAveragePool, Flatten and
    Gemm; also a ReduceMean over the spatial axes and a LayerNormalization
    with its Mean and InvStdDev outputs."""
    rng = np.random.default_rng(seed)
    inits = [
        numpy_helper.from_array(_weights(rng, 4, 2, 3, 3), "w1"),
        numpy_helper.from_array((0.1 * rng.standard_normal(4)).astype(np.float32), "b1"),
        numpy_helper.from_array(_weights(rng, 6, 2, 3, 3), "w2"),
        numpy_helper.from_array(_weights(rng, 6, 5), "wf"),
        numpy_helper.from_array((0.1 * rng.standard_normal(6)).astype(np.float32), "b2"),
        numpy_helper.from_array((0.1 * rng.standard_normal(5)).astype(np.float32), "bf"),
        numpy_helper.from_array(np.array([2, 3], np.int64), "spatial"),
        numpy_helper.from_array(np.ones(6, np.float32), "g"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2", group=2,
                         strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("AveragePool", ["c2"], ["p2"], name="pool2", kernel_shape=[2, 2],
                         pads=[1, 1, 0, 0], count_include_pad=0),
        helper.make_node("GlobalAveragePool", ["p2"], ["gp"], name="gap"),
        helper.make_node("Flatten", ["gp"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "wf", "bf"], ["y"], name="head"),
        helper.make_node("ReduceMean", ["c2", "spatial"], ["m"], name="spatial_mean",
                         keepdims=0),
        helper.make_node("LayerNormalization", ["m", "g"], ["ln", "ln_mean", "ln_inv"],
                         name="ln", axis=-1),
    ]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2, 8, 8])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5]),
                   helper.make_tensor_value_info("ln", TensorProto.FLOAT, [2, 6]),
                   helper.make_tensor_value_info("ln_mean", TensorProto.FLOAT, [2, 1]),
                   helper.make_tensor_value_info("ln_inv", TensorProto.FLOAT, [2, 1])],
                  inits, "small_cnn", opset=18)


def cnn_channels_last(seed=16):
    """A small map of many channels (for the chip's lanes), which
    hetc-hgraph-channels-last takes channels-last on test-chip and tsp-v1
    alike: a padded 3x3 Conv with a bias, Relu, a strided 1x1 Conv (a slice
    of the channels-last map), Relu, and GlobalAveragePool (a product with
    a row of 1/4), then Flatten and Gemm."""
    rng = np.random.default_rng(seed)
    inits = [
        numpy_helper.from_array(_weights(rng, 32, 32, 3, 3), "w1"),
        numpy_helper.from_array((0.1 * rng.standard_normal(32)).astype(np.float32), "b1"),
        numpy_helper.from_array(_weights(rng, 32, 32, 1, 1), "w2"),
        numpy_helper.from_array(_weights(rng, 32, 5), "wf"),
        numpy_helper.from_array((0.1 * rng.standard_normal(5)).astype(np.float32), "bf"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2", strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["gp"], name="gap"),
        helper.make_node("Flatten", ["gp"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "wf", "bf"], ["y"], name="head"),
    ]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 32, 3, 3])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
                  inits, "cnn_channels_last")


def cnn_depthwise_channels_last(seed=17):
    """An inverted residual block with squeeze-and-excitation on a small
    map of many channels, which hetc-hgraph-channels-last takes
    channels-last from end to end on test-chip and tsp-v1 alike: a 1x1
    expansion and Clip(0, 6), a depthwise 5x5 Conv with a bias (per-kernel-element products by rows
    of channels) and Clip, the squeeze-and-excitation (GlobalAveragePool,
    two 1x1 Convs of one position, Sigmoid, a Mul by [1, C, 1, 1]), a 1x1
    projection, the residual Add, then GlobalAveragePool, Flatten and
    Gemm."""
    rng = np.random.default_rng(seed)
    inits = [
        numpy_helper.from_array(_weights(rng, 64, 32, 1, 1), "we"),
        numpy_helper.from_array(_weights(rng, 64, 1, 5, 5), "wd"),
        numpy_helper.from_array((0.1 * rng.standard_normal(64)).astype(np.float32), "bd"),
        numpy_helper.from_array(_weights(rng, 8, 64, 1, 1), "ws1"),
        numpy_helper.from_array(_weights(rng, 64, 8, 1, 1), "ws2"),
        numpy_helper.from_array(_weights(rng, 32, 64, 1, 1), "wp"),
        numpy_helper.from_array(_weights(rng, 32, 5), "wf"),
        numpy_helper.from_array(np.array(0.0, np.float32), "lo"),
        numpy_helper.from_array(np.array(6.0, np.float32), "hi"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "we"], ["e"], name="expand"),
        helper.make_node("Clip", ["e", "lo", "hi"], ["e6"], name="expand_clip"),
        helper.make_node("Conv", ["e6", "wd", "bd"], ["d"], name="depthwise", group=64,
                         pads=[2, 2, 2, 2]),
        helper.make_node("Clip", ["d", "lo", "hi"], ["d6"], name="depthwise_clip"),
        helper.make_node("GlobalAveragePool", ["d6"], ["sq"], name="squeeze"),
        helper.make_node("Conv", ["sq", "ws1"], ["s1"], name="reduce"),
        helper.make_node("Relu", ["s1"], ["s1r"], name="reduce_relu"),
        helper.make_node("Conv", ["s1r", "ws2"], ["s2"], name="restore"),
        helper.make_node("Sigmoid", ["s2"], ["gate"], name="gate"),
        helper.make_node("Mul", ["d6", "gate"], ["excited"], name="excite"),
        helper.make_node("Conv", ["excited", "wp"], ["p"], name="project"),
        helper.make_node("Add", ["p", "x"], ["res"], name="residual"),
        helper.make_node("GlobalAveragePool", ["res"], ["gp"], name="gap"),
        helper.make_node("Flatten", ["gp"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "wf"], ["y"], name="head"),
    ]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 32, 4, 4])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
                  inits, "cnn_depthwise_channels_last")


def mlp_f16(batch=4, dims=(24, 12), seed=9):
    """A float16 model: a Cast of the float32 input, MatMul with K = 24 (two
    weight tiles on a 16-lane chip, accumulated in f32), Add, Relu, a
    Less/Where mask and Softmax."""
    rng = np.random.default_rng(seed)
    k, n = dims
    inits = [
        numpy_helper.from_array(_weights(rng, k, n).astype(np.float16), "w"),
        numpy_helper.from_array((0.1 * rng.standard_normal(n)).astype(np.float16), "b"),
        numpy_helper.from_array(np.array(0.25, np.float16), "limit"),
    ]
    nodes = [
        helper.make_node("Cast", ["x"], ["xh"], name="to_half", to=TensorProto.FLOAT16),
        helper.make_node("MatMul", ["xh", "w"], ["mm"], name="fc/matmul"),
        helper.make_node("Add", ["mm", "b"], ["z"], name="fc/bias"),
        helper.make_node("Relu", ["z"], ["h"], name="fc/relu"),
        helper.make_node("Less", ["h", "limit"], ["small"], name="mask/less"),
        helper.make_node("Where", ["small", "z", "h"], ["m"], name="mask/where"),
        helper.make_node("Softmax", ["m"], ["y"], name="head/softmax", axis=-1),
    ]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, k])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [batch, n])],
                  inits, "mlp_f16")


def cnn_depthwise_windows(seed=23):
    """Depthwise convolutions of every window kind: on a 24x24 map of four
    channels, a 3x3 with a bias and a 3x3 of dilation 2 (channels-first,
    each taken separably: a move per kernel column, then per kernel row);
    after a 1x1 expansion to 32 channels, a 3x3 of stride 2 padded at the
    end only and a 5x5 (channels-last, one htile.depthwise_conv each, on
    the maps whose channels fill rows), then GlobalAveragePool and
    Flatten."""
    rng = np.random.default_rng(seed)
    inits = [
        numpy_helper.from_array(_weights(rng, 4, 1, 3, 3), "wa"),
        numpy_helper.from_array((0.1 * rng.standard_normal(4)).astype(np.float32), "ba"),
        numpy_helper.from_array(_weights(rng, 4, 1, 3, 3), "wb"),
        numpy_helper.from_array(_weights(rng, 32, 4, 1, 1), "we"),
        numpy_helper.from_array(_weights(rng, 32, 1, 3, 3), "wc"),
        numpy_helper.from_array(_weights(rng, 32, 1, 5, 5), "wd"),
        numpy_helper.from_array((0.1 * rng.standard_normal(32)).astype(np.float32), "bd"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "wa", "ba"], ["a"], name="same", group=4,
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["a"], ["ar"], name="same_relu"),
        helper.make_node("Conv", ["ar", "wb"], ["b"], name="dilated", group=4,
                         pads=[2, 2, 2, 2], dilations=[2, 2]),
        helper.make_node("Conv", ["b", "we"], ["e"], name="expand"),
        helper.make_node("Conv", ["e", "wc"], ["c"], name="strided", group=32,
                         pads=[0, 0, 1, 1], strides=[2, 2]),
        helper.make_node("Conv", ["c", "wd", "bd"], ["d"], name="five", group=32,
                         pads=[2, 2, 2, 2]),
        helper.make_node("GlobalAveragePool", ["d"], ["gp"], name="gap"),
        helper.make_node("Flatten", ["gp"], ["y"], name="flatten", axis=1),
    ]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 24, 24])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32])],
                  inits, "cnn_depthwise_windows")


def cnn_f16(seed=13):
    """A half-precision CNN, as torch exports a model in half: a Conv whose
    bias is one value throughout (f16 weights and windows, f32 sums cast
    back to f16), Relu, MaxPool, a depthwise Conv (scaled in f32) and a
    grouped Conv with a bias, all in float16."""
    rng = np.random.default_rng(seed)
    half = np.float16
    inits = [
        numpy_helper.from_array((0.3 * rng.standard_normal((4, 3, 3, 3))).astype(half), "w1"),
        numpy_helper.from_array(np.full(4, 0.5, half), "b1"),
        numpy_helper.from_array((0.3 * rng.standard_normal((4, 1, 3, 3))).astype(half), "wd"),
        numpy_helper.from_array((0.3 * rng.standard_normal((6, 2, 1, 1))).astype(half), "w2"),
        numpy_helper.from_array((0.1 * rng.standard_normal(6)).astype(half), "b2"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Conv", ["p1", "wd"], ["d1"], name="depthwise", group=4,
                         pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["d1", "w2", "b2"], ["y"], name="conv2", group=2),
    ]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, 3, 8, 8])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [1, 6, 4, 4])],
                  inits, "cnn_f16")


def quant_int8(batch=4, dims=(20, 6), seed=10):
    """int8 quantisation: QuantizeLinear of the input (saturating), a
    MatMulInteger by int8 weights with zero points, its int32 result scaled
    back to float, a DequantizeLinear of the quantised input, the ArgMax
    of each result row as an int64 output, and an int8 Add that wraps."""
    rng = np.random.default_rng(seed)
    k, n = dims
    inits = [
        numpy_helper.from_array(np.array(1 / 128, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(3, np.int8), "x_zero"),
        numpy_helper.from_array(rng.integers(-100, 100, (k, n)).astype(np.int8), "w"),
        numpy_helper.from_array(np.array(-2, np.int8), "w_zero"),
        numpy_helper.from_array(np.array(1 / 128 / 64, np.float32), "y_scale"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["q"], name="quant"),
        helper.make_node("MatMulInteger", ["q", "w", "x_zero", "w_zero"], ["acc"], name="qmatmul"),
        helper.make_node("Cast", ["acc"], ["accf"], name="to_float", to=TensorProto.FLOAT),
        helper.make_node("Mul", ["accf", "y_scale"], ["y"], name="rescale"),
        helper.make_node("DequantizeLinear", ["q", "x_scale", "x_zero"], ["xr"], name="dequant"),
        helper.make_node("ArgMax", ["y"], ["best"], name="best", axis=1, keepdims=0),
        helper.make_node("Add", ["q", "q"], ["q2"], name="wrapping_add"),
    ]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, k])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, n]),
                   helper.make_tensor_value_info("q", TensorProto.INT8, [batch, k]),
                   helper.make_tensor_value_info("acc", TensorProto.INT32, [batch, n]),
                   helper.make_tensor_value_info("xr", TensorProto.FLOAT, [batch, k]),
                   helper.make_tensor_value_info("best", TensorProto.INT64, [batch]),
                   helper.make_tensor_value_info("q2", TensorProto.INT8, [batch, k])],
                  inits, "quant_int8")


def qdq_cnn(seed=24):
    """A convolution block quantised in ONNX's QDQ form, as onnxruntime's
    quantize_static writes one: QuantizeLinear of the input, Convs whose
    input and int8 weight (a scale per output channel) are
    DequantizeLinear'd, the bias an int32 DequantizeLinear, each result
    quantised and dequantised, a ReLU between a pair (its result uint8, as
    a quantiser makes a ReLU's, zero point 0), a residual Add. The
    scales are powers of two, so that every rescaling is exact and the
    chip's int8 products must give ONNX Runtime's integers exactly. A float
    head (the mean of each map and a Gemm) follows: its matmul's rows past
    K meet the planes after the integer products."""
    rng = np.random.default_rng(seed)
    c, m = 8, 16
    sx = np.float32(2.0 ** -5)
    sw1 = (2.0 ** -rng.integers(9, 11, m)).astype(np.float32)
    sw2 = (2.0 ** -rng.integers(8, 10, m)).astype(np.float32)
    zero = np.array(0, np.int8)
    inits = [
        numpy_helper.from_array(sx, "sx"),
        numpy_helper.from_array(zero, "zx"),
        numpy_helper.from_array(np.array(0, np.uint8), "zu"),
        numpy_helper.from_array(rng.integers(-127, 128, (m, c, 3, 3)).astype(np.int8), "w1q"),
        numpy_helper.from_array(sw1, "sw1"),
        numpy_helper.from_array(np.zeros(m, np.int8), "zw1"),
        numpy_helper.from_array(rng.integers(-2000, 2000, m).astype(np.int32), "b1q"),
        numpy_helper.from_array(sx * sw1, "sb1"),
        numpy_helper.from_array(np.zeros(m, np.int32), "zb1"),
        numpy_helper.from_array(np.float32(2.0 ** -3), "s1"),
        numpy_helper.from_array(rng.integers(-127, 128, (m, m, 1, 1)).astype(np.int8), "w2q"),
        numpy_helper.from_array(sw2, "sw2"),
        numpy_helper.from_array(np.float32(2.0 ** -2), "s2"),
        numpy_helper.from_array(_weights(rng, m, 10), "head_w"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"], name="x_q"),
        helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"], name="x_dq"),
        helper.make_node("DequantizeLinear", ["w1q", "sw1", "zw1"], ["w1"], name="w1_dq", axis=0),
        helper.make_node("DequantizeLinear", ["b1q", "sb1", "zb1"], ["b1"], name="b1_dq", axis=0),
        helper.make_node("Conv", ["xd", "w1", "b1"], ["y1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("QuantizeLinear", ["y1", "s1", "zx"], ["y1q"], name="y1_q"),
        helper.make_node("DequantizeLinear", ["y1q", "s1", "zx"], ["y1d"], name="y1_dq"),
        helper.make_node("Relu", ["y1d"], ["r"], name="relu"),
        helper.make_node("QuantizeLinear", ["r", "s1", "zu"], ["rq"], name="r_q"),
        helper.make_node("DequantizeLinear", ["rq", "s1", "zu"], ["rd"], name="r_dq"),
        helper.make_node("DequantizeLinear", ["w2q", "sw2"], ["w2"], name="w2_dq", axis=0),
        helper.make_node("Conv", ["rd", "w2"], ["y2"], name="conv2"),
        helper.make_node("QuantizeLinear", ["y2", "s2", "zx"], ["y2q"], name="y2_q"),
        helper.make_node("DequantizeLinear", ["y2q", "s2", "zx"], ["y2d"], name="y2_dq"),
        helper.make_node("Add", ["y2d", "rd"], ["sum"], name="residual"),
        helper.make_node("QuantizeLinear", ["sum", "s2", "zx"], ["sq"], name="sum_q"),
        helper.make_node("DequantizeLinear", ["sq", "s2", "zx"], ["y"], name="sum_dq"),
        helper.make_node("GlobalAveragePool", ["y"], ["pooled"], name="pool"),
        helper.make_node("Flatten", ["pooled"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "head_w"], ["logits"], name="head"),
    ]
    return _model(nodes,
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, 10, 10])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, m, 10, 10]),
                   helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])],
                  inits, "qdq_cnn")


def embedding(seed=13, vocab=700, hidden=24, seq=5):
    """Token and position embeddings summed, then a Gemm: Gather along axis
    0 of constant tables by run-time ids (negative ids count from the end).
    On test-chip the 700 x 24 table is two vectors a row and spans slices."""
    rng = np.random.default_rng(seed)
    inits = [
        numpy_helper.from_array(_weights(rng, vocab, hidden), "tokens"),
        numpy_helper.from_array(_weights(rng, seq, hidden), "positions"),
        numpy_helper.from_array(np.arange(seq, dtype=np.int64), "pos_ids"),
        numpy_helper.from_array(_weights(rng, hidden, 6), "w"),
    ]
    nodes = [
        helper.make_node("Gather", ["tokens", "ids"], ["t"], name="token_embed", axis=0),
        helper.make_node("Gather", ["positions", "pos_ids"], ["p"], name="pos_embed", axis=0),
        helper.make_node("Add", ["t", "p"], ["h"], name="sum"),
        helper.make_node("MatMul", ["h", "w"], ["y"], name="head"),
    ]
    inputs = [helper.make_tensor_value_info("ids", TensorProto.INT64, [2, seq])]
    return _model(nodes, inputs,
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, seq, 6])],
                  inits, "embedding")


def kv_cache_step(seed=14, context=64, hidden=24):
    """One decode step of attention scores against a key cache: the new
    token's key is written into the cache at a run-time position (ScatterND
    without reduction, as a static KV cache is updated), then the query
    scores every cached key, the new one included."""
    rng = np.random.default_rng(seed)
    inits = [
        numpy_helper.from_array(_weights(rng, hidden, hidden), "wk"),
        numpy_helper.from_array(_weights(rng, hidden, hidden), "wq"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "wk"], ["k"], name="key"),
        helper.make_node("ScatterND", ["cache", "pos", "k"], ["keys"], name="cache_update"),
        helper.make_node("MatMul", ["x", "wq"], ["q"], name="query"),
        helper.make_node("Transpose", ["keys"], ["kt"], name="keys_t", perm=[1, 0]),
        helper.make_node("MatMul", ["q", "kt"], ["y"], name="scores"),
    ]
    inputs = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, hidden]),
        helper.make_tensor_value_info("cache", TensorProto.FLOAT, [context, hidden]),
        helper.make_tensor_value_info("pos", TensorProto.INT64, [1, 1]),
    ]
    outputs = [
        helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, context]),
        helper.make_tensor_value_info("keys", TensorProto.FLOAT, [context, hidden]),
    ]
    return _model(nodes, inputs, outputs, inits, "kv_cache_step")


def multi_head_scores(seed=15, heads=2, queries=3, keys=40, dim=20):
    """Attention scores of several heads against computed keys, with a mask
    bias: MatMul(q, Transpose(k, perm=[0, 2, 1])) + bias. Each head's keys
    are multiplied transposed (installed as weight columns, no transpose of
    their own); on test-chip a key spans two vectors (K = 20 > 16 lanes)
    and the 40 scores of a row three, the last one partial."""
    rng = np.random.default_rng(seed)
    inits = [
        numpy_helper.from_array(_weights(rng, dim, heads * dim), "wk"),
        numpy_helper.from_array(_weights(rng, keys), "mask"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "wk"], ["kflat"], name="key"),
        helper.make_node("Reshape", ["kflat", "kshape"], ["k"], name="heads"),
        helper.make_node("Transpose", ["k"], ["kh"], name="head_major", perm=[1, 0, 2]),
        helper.make_node("Transpose", ["kh"], ["kt"], name="keys_t", perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "kt"], ["s"], name="scores"),
        helper.make_node("Add", ["s", "mask"], ["y"], name="masked"),
    ]
    inits.append(numpy_helper.from_array(np.array([keys, heads, dim], np.int64), "kshape"))
    inputs = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [keys, dim]),
        helper.make_tensor_value_info("q", TensorProto.FLOAT, [heads, queries, dim]),
    ]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [heads, queries, keys])]
    return _model(nodes, inputs, outputs, inits, "multi_head_scores")


# Integer inputs are drawn from [-high, high): the valid ids of a table of
# `high` rows, negative ones included.
INDEX_RANGES = {"embedding": {"ids": 700}, "kv_cache_step": {"pos": 64}}

MODELS = {
    "mlp_relu": (mlp_relu, {}),
    "mlp_gemm_softmax": (mlp_gemm_softmax, {}),
    "mlp_batched": (mlp_batched, {"batch": 2}),
    "broadcasting": (broadcasting, {}),
    "attention_head": (attention_head, {}),
    "transformer_block": (transformer_block, {}),
    "layout_mix": (layout_mix, {}),
    "split_gather": (split_gather, {}),
    "gqa_attention": (gqa_attention, {}),
    "small_cnn": (small_cnn, {}),
    "cnn_channels_last": (cnn_channels_last, {}),
    "cnn_depthwise_channels_last": (cnn_depthwise_channels_last, {}),
    "cnn_depthwise_windows": (cnn_depthwise_windows, {}),
    # Softmax over 40 keys: rows of three vectors on test-chip.
    "long_attention": (lambda: attention_head(seq=40, seed=12), {}),
    "mlp_f16": (mlp_f16, {}),
    "cnn_f16": (cnn_f16, {}),
    "quant_int8": (quant_int8, {}),
    "qdq_cnn": (qdq_cnn, {}),
    "embedding": (embedding, {}),
    "kv_cache_step": (kv_cache_step, {}),
    "multi_head_scores": (multi_head_scores, {}),
}


def example_mlp(batch=8, dims=(128, 256, 128, 10), seed=11):
    """The bundled example: a 3-layer MLP classifier with a softmax head."""
    model = mlp_relu(batch=batch, dims=dims, seed=seed)
    graph = model.graph
    identity = next(n for n in graph.node if n.op_type == "Identity")
    graph.node.remove(identity)
    graph.node.append(helper.make_node("Softmax", [identity.input[0]], ["y"],
                                       name="head/softmax", axis=-1))
    graph.name = "example_mlp"
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    import sys
    # models.py NAME OUTPUT.onnx: writes one model.
    onnx.save(globals()[sys.argv[1]](), sys.argv[2])
