"""Writes the small ONNX models the lit tests import.

Usage: models.py NAME OUTPUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _save(nodes, inputs, outputs, inits, path, opset=17):
    graph = helper.make_graph(nodes, "test", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.save(model, path)


def _t(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def all_ops(path):
    """Every operator of the foundation set, one node each."""
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(rng.standard_normal((8, 6)).astype(np.float32), "w"),
        numpy_helper.from_array(rng.standard_normal((4, 8)).astype(np.float32), "g"),
        numpy_helper.from_array(np.ones(4, np.float32), "c"),
        numpy_helper.from_array(np.array([3, 8], np.int64), "shape"),
    ]
    nodes = [
        helper.make_node("Identity", ["x"], ["x1"], name="identity"),
        helper.make_node("Gemm", ["x1", "g", "c"], ["a"], name="gemm", transB=1),
        helper.make_node("MatMul", ["x1", "w"], ["m"], name="matmul"),
        helper.make_node("Constant", [], ["k"], name="const",
                         value=numpy_helper.from_array(np.full(6, 2.0, np.float32))),
        helper.make_node("Add", ["m", "k"], ["s1"], name="add"),
        helper.make_node("Sub", ["s1", "m"], ["s2"], name="sub"),
        helper.make_node("Mul", ["s2", "s1"], ["s3"], name="mul"),
        helper.make_node("Div", ["s3", "k"], ["s4"], name="div"),
        helper.make_node("Relu", ["s4"], ["r"], name="relu"),
        helper.make_node("Sigmoid", ["r"], ["sg"], name="sigmoid"),
        helper.make_node("Tanh", ["sg"], ["th"], name="tanh"),
        helper.make_node("Softmax", ["th"], ["sm"], name="softmax"),
        helper.make_node("Transpose", ["x1"], ["xt"], name="transpose", perm=[1, 0]),
        helper.make_node("Reshape", ["xt", "shape"], ["y2"], name="reshape"),
    ]
    _save(nodes, [_t("x", [3, 8])],
          [_t("sm", [3, 6]), _t("a", [3, 4]), _t("y2", [3, 8])], inits, path)


def unsupported(path):
    """Three unsupported nodes among supported ones."""
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="ok_relu"),
        helper.make_node("DeformConv", ["r", "i", "i"], ["c"], name="deform1"),
        helper.make_node("TfIdfVectorizer", ["c"], ["p"], name="tfidf1"),
        helper.make_node("FancyOp", ["p"], ["y"], name="custom1", domain="com.example"),
    ]
    i64 = helper.make_tensor_value_info("i", TensorProto.INT64, [1, 1, 4, 4])
    _save(nodes, [_t("x", [1, 1, 4, 4]), i64],
          [_t("y", [1, 1, 2, 2])], [], path)


def symbolic(path):
    """An input with a symbolic batch dimension."""
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    _save(nodes, [_t("x", ["batch", 8])], [_t("y", ["batch", 8])], [], path)


def bad_reshape(path):
    """A Reshape whose target has the wrong element count."""
    inits = [numpy_helper.from_array(np.array([5, 5], np.int64), "shape")]
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["y"], name="bad/reshape")]
    _save(nodes, [_t("x", [4, 6])], [_t("y", [5, 5])], inits, path)


def missing_input(path):
    """A node that reads a tensor nothing produces."""
    nodes = [helper.make_node("Add", ["x", "ghost"], ["y"], name="adder")]
    _save(nodes, [_t("x", [2, 2])], [_t("y", [2, 2])], [], path)


def transpose_activation(path):
    """A transpose of a computed tensor, which the chip cannot run yet."""
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("Transpose", ["r"], ["y"], name="flip", perm=[1, 0]),
    ]
    _save(nodes, [_t("x", [4, 8])], [_t("y", [8, 4])], [], path)


def mlp(path):
    """A two-layer MLP for the tool tests."""
    rng = np.random.default_rng(1)
    inits = [
        numpy_helper.from_array(rng.standard_normal((16, 24)).astype(np.float32) / 4, "w0"),
        numpy_helper.from_array(rng.standard_normal(24).astype(np.float32) / 4, "b0"),
        numpy_helper.from_array(rng.standard_normal((24, 10)).astype(np.float32) / 4, "w1"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w0"], ["m0"], name="fc0/matmul"),
        helper.make_node("Add", ["m0", "b0"], ["a0"], name="fc0/bias"),
        helper.make_node("Relu", ["a0"], ["h0"], name="fc0/relu"),
        helper.make_node("MatMul", ["h0", "w1"], ["y"], name="fc1/matmul"),
    ]
    _save(nodes, [_t("x", [2, 16])], [_t("y", [2, 10])], inits, path)


def embedding(path):
    """A lookup of token ids in a 300 x 24 embedding table (rows of two
    vectors on test-chip), scaled: Gather along axis 0 of a constant."""
    rng = np.random.default_rng(4)
    table = numpy_helper.from_array(
        rng.standard_normal((300, 24)).astype(np.float32), "table")
    two = numpy_helper.from_array(np.array(2.0, np.float32), "two")
    nodes = [
        helper.make_node("Gather", ["table", "ids"], ["rows"], name="lookup", axis=0),
        helper.make_node("Mul", ["rows", "two"], ["y"], name="scale"),
    ]
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [2, 3])
    _save(nodes, [ids], [_t("y", [2, 3, 24])], [table, two], path)


def _kv_update(path, elem):
    """A cache of 1000 rows of [2, 12] updated at run-time positions: a
    ScatterND without reduction, as a KV-cache write is, then scaled."""
    two = numpy_helper.from_array(np.array(2.0, np.float16 if elem == TensorProto.FLOAT16 else np.float32), "two")
    nodes = [
        helper.make_node("ScatterND", ["cache", "pos", "kv"], ["new"], name="cache_update"),
        helper.make_node("Mul", ["new", "two"], ["y"], name="scale"),
    ]
    inputs = [
        helper.make_tensor_value_info("cache", elem, [1000, 2, 12]),
        helper.make_tensor_value_info("pos", TensorProto.INT64, [3, 1]),
        helper.make_tensor_value_info("kv", elem, [3, 2, 12]),
    ]
    outputs = [helper.make_tensor_value_info("y", elem, [1000, 2, 12])]
    _save(nodes, inputs, outputs, [two], path)


def kv_update(path):
    _kv_update(path, TensorProto.FLOAT)


def kv_update_f16(path):
    _kv_update(path, TensorProto.FLOAT16)


def _tensor_scatter(path, mode):
    """A KV cache [2 samples, 2 heads, 8 positions, 4] updated by two new
    positions per sample at its own write index (TensorScatter, opset 24)."""
    nodes = [helper.make_node("TensorScatter", ["past", "new", "at"], ["present"],
                              name="cache_write", mode=mode)]
    inputs = [_t("past", [2, 2, 8, 4]), _t("new", [2, 2, 2, 4]),
              helper.make_tensor_value_info("at", TensorProto.INT64, [2])]
    _save(nodes, inputs, [_t("present", [2, 2, 8, 4])], [], path, opset=24)


def tensor_scatter(path):
    _tensor_scatter(path, "linear")


def tensor_scatter_circular(path):
    _tensor_scatter(path, "circular")


def _attention_step(rng, hidden, heads, context, position, batch=1, seq=1):
    """The nodes and initializers of one decode step of single-layer
    attention from `x` [batch * seq, hidden] to `y` with a static KV cache
    (`past_k`, `past_v` in, `present_k`, `present_v` out): each sequence's
    keys and values written from its own `position` on (TensorScatter) and
    its mask built from it. With seq > 1 (a prefill of one sequence), query
    i sits at position + i and sees the positions up to it."""
    dh = hidden // heads
    w = lambda name: numpy_helper.from_array(
        (rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)).astype(np.float32), name)
    i64 = lambda name, vals: numpy_helper.from_array(np.array(vals, np.int64), name)
    inits = [w("wq"), w("wk"), w("wv"), w("wo"),
             i64("heads_shape", [batch, seq, heads, dh]), i64("out_shape", [batch * seq, hidden]),
             i64("positions", list(range(context))), i64("slot_shape", [batch, 1, seq, 1]),
             i64("offsets", list(range(seq))),
             numpy_helper.from_array(np.array(-1e9, np.float32), "hidden_score"),
             numpy_helper.from_array(np.array(1 / np.sqrt(dh), np.float32), "scale")]
    def split(x, out):
        return [helper.make_node("Reshape", [x, "heads_shape"], [out + "_r"]),
                helper.make_node("Transpose", [out + "_r"], [out], perm=[0, 2, 1, 3])]
    nodes = [helper.make_node("MatMul", ["x", "wq"], ["q0"], name="q"),
             helper.make_node("MatMul", ["x", "wk"], ["k0"], name="k"),
             helper.make_node("MatMul", ["x", "wv"], ["v0"], name="v")]
    nodes += split("q0", "q") + split("k0", "knew") + split("v0", "vnew")
    nodes += [
        helper.make_node("TensorScatter", ["past_k", "knew", position], ["present_k"], name="k_cache"),
        helper.make_node("TensorScatter", ["past_v", "vnew", position], ["present_v"], name="v_cache"),
        helper.make_node("Transpose", ["present_k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s0"], name="scores"),
        helper.make_node("Mul", ["s0", "scale"], ["s1"]),
        helper.make_node("Add", [position, "offsets"], ["query_position"]),
        helper.make_node("Reshape", ["query_position", "slot_shape"], ["slot_position"]),
        helper.make_node("LessOrEqual", ["positions", "slot_position"], ["seen"], name="mask"),
        helper.make_node("Where", ["seen", "s1", "hidden_score"], ["s2"]),
        helper.make_node("Softmax", ["s2"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "present_v"], ["o0"], name="mix"),
        helper.make_node("Transpose", ["o0"], ["o1"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["o1", "out_shape"], ["o2"]),
        helper.make_node("MatMul", ["o2", "wo"], ["y"], name="out"),
    ]
    cache = [batch, heads, context, dh]
    caches_in = [_t("past_k", cache), _t("past_v", cache)]
    caches_out = [_t("present_k", cache), _t("present_v", cache)]
    return nodes, inits, caches_in, caches_out


def decode_step(path, hidden=16, heads=2, context=8, seed=5):
    """One decode step of single-layer attention with a static KV cache:
    the new token's key and value are written at position `pos`
    (TensorScatter), and its query attends to the positions up to `pos`
    (a mask built at run time from `pos`), so one program serves every
    position."""
    nodes, inits, caches_in, caches_out = _attention_step(
        np.random.default_rng(seed), hidden, heads, context, "pos")
    inputs = [_t("x", [1, hidden])] + caches_in + [
        helper.make_tensor_value_info("pos", TensorProto.INT64, [1])]
    _save(nodes, inputs, [_t("y", [1, hidden])] + caches_out, inits, path, opset=24)


def lookup_lm(path):
    """A language model whose logits are a row of a constant table picked
    by the token: token 2's row holds an infinity."""
    table = np.zeros((4, 4), np.float32)
    table[2, 1] = np.inf
    inits = [numpy_helper.from_array(table, "table"),
             numpy_helper.from_array(np.array([1, 4], np.int64), "row_shape")]
    nodes = [helper.make_node("Gather", ["table", "input_ids"], ["row"], name="lookup", axis=0),
             helper.make_node("Reshape", ["row", "row_shape"], ["logits"])]
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, 1]),
              helper.make_tensor_value_info("position", TensorProto.INT64, [1])]
    _save(nodes, inputs, [_t("logits", [1, 4])], inits, path)


def decode_lm(path, vocab=40, hidden=16, heads=2, context=12, seed=6, batch=1, seq=1):
    """A tiny language model's decode step: the token's embedding, one
    attention step with a static KV cache at `position`, a residual and the
    logits over a vocabulary of 40 (what `hetc generate` runs); `batch`
    sequences side by side, each at its own position; or a prefill of
    `seq` tokens from `position` on (its logits a row per token)."""
    rng = np.random.default_rng(seed)
    nodes, inits, caches_in, caches_out = _attention_step(rng, hidden, heads, context, "position",
                                                          batch, seq)
    inits += [
        numpy_helper.from_array(rng.standard_normal((vocab, hidden)).astype(np.float32), "embed"),
        numpy_helper.from_array(rng.standard_normal((hidden, vocab)).astype(np.float32), "head"),
        numpy_helper.from_array(np.array([batch * seq, hidden], np.int64), "row_shape"),
    ]
    nodes = [helper.make_node("Gather", ["embed", "input_ids"], ["e"], name="embed", axis=0),
             helper.make_node("Reshape", ["e", "row_shape"], ["x"])] + nodes + [
             helper.make_node("Add", ["x", "y"], ["h"], name="residual"),
             helper.make_node("MatMul", ["h", "head"], ["logits"], name="lm_head")]
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [batch, seq]),
              helper.make_tensor_value_info("position", TensorProto.INT64, [batch])] + caches_in
    _save(nodes, inputs, [_t("logits", [batch * seq, vocab])] + caches_out, inits, path, opset=24)


def decode_lm_prefill4(path):
    """decode_lm's prefill over four positions: the prompt's tokens (padded
    to four) from `position` on, the caches written at all four."""
    decode_lm(path, seq=4)


def decode_lm_prefill8(path):
    """decode_lm's prefill over eight positions."""
    decode_lm(path, seq=8)


def growing_lm(path, vocab=40, hidden=16, heads=2, seed=6, masked=True, shape_read=False,
               pastless=False):
    """A tiny language model exported as decoders with a growing KV cache
    are (torch's tuple of past key/values, Hugging Face's
    decoder_with_past_model.onnx): input_ids [batch, sequence],
    attention_mask [batch, past + 1], position_ids, past_key_values.0.key
    and .value [batch, heads, past, head size] concatenated with the new
    key and value into present.0.key and .value; every length symbolic.
    The mask's zeros hide positions from attention. Variants for errors:
    no attention_mask (`masked`), and the past's shape read (`shape_read`,
    as exporters compute the past length). With `pastless`, the same
    weights as the decoder without a past (Hugging Face's
    decoder_model.onnx): the prompt's tokens at once, each attending to
    those up to it (a causal mask from Trilu over the sequence) and to
    no padding, present.0.key and .value of the sequence's length."""
    rng = np.random.default_rng(seed)
    dh = hidden // heads
    f32 = lambda name, shape: numpy_helper.from_array(
        (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32), name)
    i64 = lambda name, vals: numpy_helper.from_array(np.array(vals, np.int64), name)
    inits = [f32("embed", (vocab, hidden)), f32("pos_embed", (64, hidden)),
             f32("wq", (hidden, hidden)), f32("wk", (hidden, hidden)),
             f32("wv", (hidden, hidden)), f32("wo", (hidden, hidden)),
             f32("head", (hidden, vocab)),
             i64("heads_shape", [0, 0, heads, dh]), i64("out_shape", [0, 0, hidden]),
             i64("mask_axes", [1, 2]),
             numpy_helper.from_array(np.array(1.0, np.float32), "one"),
             numpy_helper.from_array(np.array(-1e9, np.float32), "hidden_score"),
             numpy_helper.from_array(np.array(1 / np.sqrt(dh), np.float32), "scale")]
    def split(x, out):
        return [helper.make_node("Reshape", [x, "heads_shape"], [out + "_r"]),
                helper.make_node("Transpose", [out + "_r"], [out], perm=[0, 2, 1, 3])]
    nodes = [helper.make_node("Gather", ["embed", "input_ids"], ["e"], name="embed", axis=0),
             helper.make_node("Gather", ["pos_embed", "position_ids"], ["pe"], name="pos", axis=0),
             helper.make_node("Add", ["e", "pe"], ["x"]),
             helper.make_node("MatMul", ["x", "wq"], ["q0"], name="q"),
             helper.make_node("MatMul", ["x", "wk"], ["k0"], name="k"),
             helper.make_node("MatMul", ["x", "wv"], ["v0"], name="v")]
    nodes += split("q0", "q") + split("k0", "knew") + split("v0", "vnew")
    if pastless:
        nodes += [helper.make_node("Identity", ["knew"], ["present.0.key"], name="k_cache"),
                  helper.make_node("Identity", ["vnew"], ["present.0.value"], name="v_cache")]
    else:
        nodes += [
            helper.make_node("Concat", ["past_key_values.0.key", "knew"], ["present.0.key"],
                             name="k_cache", axis=2),
            helper.make_node("Concat", ["past_key_values.0.value", "vnew"], ["present.0.value"],
                             name="v_cache", axis=2)]
    nodes += [
        helper.make_node("Transpose", ["present.0.key"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s0"], name="scores"),
        helper.make_node("Mul", ["s0", "scale"], ["s1"]),
    ]
    if masked:
        nodes += [
            helper.make_node("Cast", ["attention_mask"], ["m0"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["m0", "mask_axes"], ["m1"])]
        if pastless:
            # Token i sees the tokens up to it: [S, S] ones, lower triangle.
            inits.append(numpy_helper.from_array(np.array([1], np.int64), "seq_at"))
            inits.append(numpy_helper.from_array(np.array([2], np.int64), "seq_end"))
            nodes += [
                helper.make_node("Shape", ["input_ids"], ["ids_shape"]),
                helper.make_node("Slice", ["ids_shape", "seq_at", "seq_end"], ["seq"]),
                helper.make_node("Concat", ["seq", "seq"], ["square"], axis=0),
                helper.make_node("ConstantOfShape", ["square"], ["ones"],
                                 value=numpy_helper.from_array(np.array([1.0], np.float32))),
                helper.make_node("Trilu", ["ones"], ["causal"], upper=0),
                helper.make_node("Mul", ["m1", "causal"], ["m1c"], name="causal")]
            mask_seen = "m1c"
        else:
            mask_seen = "m1"
        nodes += [
            helper.make_node("Sub", ["one", mask_seen], ["m2"]),
            helper.make_node("Mul", ["m2", "hidden_score"], ["m3"]),
            helper.make_node("Add", ["s1", "m3"], ["s2"], name="mask")]
    else:
        nodes.append(helper.make_node("Identity", ["s1"], ["s2"]))
    nodes += [
        helper.make_node("Softmax", ["s2"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "present.0.value"], ["o0"], name="mix"),
        helper.make_node("Transpose", ["o0"], ["o1"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["o1", "out_shape"], ["o2"]),
        helper.make_node("MatMul", ["o2", "wo"], ["y"], name="out"),
        helper.make_node("Add", ["x", "y"], ["h"], name="residual"),
        helper.make_node("MatMul", ["h", "head"], ["logits"], name="lm_head"),
    ]
    i64v = lambda name, shape: helper.make_tensor_value_info(name, TensorProto.INT64, shape)
    cache = ["batch_size", heads, "past_sequence_length", dh]
    grown = ["batch_size", heads, "past_sequence_length + 1", dh]
    if pastless:
        grown = ["batch_size", heads, "sequence_length", dh]
    inputs = [i64v("input_ids", ["batch_size", "sequence_length"])]
    if masked:
        inputs.append(i64v("attention_mask", ["batch_size", "sequence_length" if pastless
                                              else "past_sequence_length + 1"]))
    inputs.append(i64v("position_ids", ["batch_size", "sequence_length"]))
    if not pastless:
        inputs += [_t("past_key_values.0.key", cache), _t("past_key_values.0.value", cache)]
    outputs = [_t("logits", ["batch_size", "sequence_length", vocab]),
               _t("present.0.key", grown), _t("present.0.value", grown)]
    if shape_read:
        nodes.append(helper.make_node("Shape", ["past_key_values.0.key"], ["past_shape"],
                                      name="past_length"))
        outputs.append(helper.make_tensor_value_info("past_shape", TensorProto.INT64, [4]))
    _save(nodes, inputs, outputs, inits, path, opset=17)


def growing_lm_pastless(path):
    """growing_lm's decoder without a past (decoder_model.onnx): the
    prompt's tokens at once, from no cache."""
    growing_lm(path, pastless=True)


def growing_lm_pastless_no_positions(path):
    """growing_lm's decoder without a past whose positions input is not
    named position_ids, so that its rows' places in a cache are unknown."""
    growing_lm(path, pastless=True)
    model = onnx.load(path)
    for value in model.graph.input:
        if value.name == "position_ids":
            value.name = "token_places"
    for node in model.graph.node:
        for i, name in enumerate(node.input):
            if name == "position_ids":
                node.input[i] = "token_places"
    onnx.save(model, path)


def growing_lm_unmasked(path):
    """growing_lm without an attention_mask input."""
    growing_lm(path, masked=False)


def growing_lm_shape_read(path):
    """growing_lm whose past's shape is read besides its growth."""
    growing_lm(path, shape_read=True)


def decode_lm_slots(path):
    """decode_lm with four batch slots: four sequences decode together,
    each at its own position."""
    decode_lm(path, batch=4)


def scatter_types(path):
    """Row writes by run-time index into tables of every kind of element:
    f16, int8 and bool rows of three (several rows to an SRAM row), int64
    (held as int32) and int32."""
    types = {"f16": TensorProto.FLOAT16, "i8": TensorProto.INT8, "b": TensorProto.BOOL,
             "i64": TensorProto.INT64, "i32": TensorProto.INT32}
    nodes, inputs, outputs = [], [helper.make_tensor_value_info("i", TensorProto.INT64, [2, 1])], []
    for name, elem in types.items():
        nodes.append(helper.make_node("ScatterND", [f"d_{name}", "i", f"u_{name}"], [f"y_{name}"],
                                      name=f"scatter_{name}"))
        inputs += [helper.make_tensor_value_info(f"d_{name}", elem, [6, 3]),
                   helper.make_tensor_value_info(f"u_{name}", elem, [2, 3])]
        outputs.append(helper.make_tensor_value_info(f"y_{name}", elem, [6, 3]))
    _save(nodes, inputs, outputs, [], path)


def typed_ops(path):
    """Mod (both modes), Round, a comparison with Where, BitwiseAnd and
    BitwiseNot on int32 and float16 tensors."""
    i32 = lambda name, shape: helper.make_tensor_value_info(name, TensorProto.INT32, shape)
    f16 = lambda name, shape: helper.make_tensor_value_info(name, TensorProto.FLOAT16, shape)
    nodes = [
        helper.make_node("Mod", ["a", "b"], ["m"], name="mod"),
        helper.make_node("Mod", ["a", "b"], ["f"], name="fmod", fmod=1),
        helper.make_node("Round", ["h"], ["r"], name="round"),
        helper.make_node("Less", ["m", "f"], ["c"], name="less"),
        helper.make_node("Where", ["c", "m", "f"], ["w"], name="where"),
        helper.make_node("BitwiseAnd", ["a", "b"], ["ba"], name="bitand"),
        helper.make_node("BitwiseNot", ["ba"], ["bn"], name="bitnot"),
    ]
    _save(nodes, [i32("a", [2, 8]), i32("b", [2, 8]), f16("h", [2, 8])],
          [i32("w", [2, 8]), f16("r", [2, 8]), i32("bn", [2, 8])], [], path)


def big_int64(path):
    """An int64 Add whose constant does not fit the int32 lanes the chip
    holds int64 tensors in."""
    i64 = lambda name, shape: helper.make_tensor_value_info(name, TensorProto.INT64, shape)
    inits = [numpy_helper.from_array(np.array([1 << 40, 5], np.int64), "big")]
    nodes = [helper.make_node("Add", ["x", "big"], ["y"], name="add_big")]
    _save(nodes, [i64("x", [3, 2])], [i64("y", [3, 2])], inits, path)


def double_affine(path):
    """y = x * 0.1 + 3 in float64, which the chip holds as float32."""
    f64 = lambda name, shape: helper.make_tensor_value_info(name, TensorProto.DOUBLE, shape)
    inits = [numpy_helper.from_array(np.array([0.1], np.float64), "scale"),
             numpy_helper.from_array(np.array([3.0], np.float64), "shift")]
    nodes = [helper.make_node("Mul", ["x", "scale"], ["m"], name="mul"),
             helper.make_node("Add", ["m", "shift"], ["y"], name="add")]
    _save(nodes, [f64("x", [2, 5])], [f64("y", [2, 5])], inits, path)


def depthwise_cf(path):
    """Two channels-first depthwise convolutions (3 x 3: stride 1 with a
    bias, then stride 2 without), which the chip runs as moves, products
    and sums and the kernel plan as one kernel each."""
    rng = np.random.default_rng(11)
    inits = [
        numpy_helper.from_array(rng.standard_normal((4, 1, 3, 3)).astype(np.float32), "w1"),
        numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b1"),
        numpy_helper.from_array(rng.standard_normal((4, 1, 3, 3)).astype(np.float32), "w2"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["h"], group=4, pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["h", "w2"], ["y"], group=4, pads=[1, 1, 1, 1],
                         strides=[2, 2]),
    ]
    _save(nodes, [_t("x", [1, 4, 9, 9])], [_t("y", [1, 4, 5, 5])], inits, path)


def conv_plan(path):
    """Convolutions whose windows the chip gathers, one plan kernel each:
    a 3 x 3 one with a bias and a relu after it; a strided one of a
    concatenation of that and the input (the window gather reads through
    the concatenation on the chip); one of two groups with a bias."""
    rng = np.random.default_rng(12)
    def weights(*shape):
        return rng.standard_normal(shape).astype(np.float32)
    inits = [
        numpy_helper.from_array(weights(4, 3, 3, 3), "w1"),
        numpy_helper.from_array(weights(4), "b1"),
        numpy_helper.from_array(weights(6, 7, 3, 3), "w2"),
        numpy_helper.from_array(weights(4, 3, 3, 3), "w3"),
        numpy_helper.from_array(weights(4), "b3"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["a"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["a"], ["r"]),
        helper.make_node("Concat", ["r", "x"], ["c"], axis=1),
        helper.make_node("Conv", ["c", "w2"], ["h"], pads=[1, 1, 1, 1],
                         strides=[2, 2]),
        helper.make_node("Conv", ["h", "w3", "b3"], ["y"], group=2,
                         pads=[1, 1, 1, 1]),
    ]
    _save(nodes, [_t("x", [1, 3, 8, 8])], [_t("y", [1, 4, 4, 4])], inits, path)


def deep_matmul(path):
    """A matmul of 64 rows whose K spans five 16-lane tiles and N two,
    with a bias: the plane-group tests sum K tiles on the vector unit."""
    rng = np.random.default_rng(2)
    inits = [
        numpy_helper.from_array(rng.standard_normal((72, 20)).astype(np.float32) / 8, "w"),
        numpy_helper.from_array(rng.standard_normal(20).astype(np.float32), "b"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"], name="matmul"),
        helper.make_node("Add", ["m", "b"], ["y"], name="bias"),
    ]
    _save(nodes, [_t("x", [64, 72])], [_t("y", [64, 20])], inits, path)


def wide_deep_matmul(path):
    """A matmul of 64 rows whose K spans five 16-lane tiles and N three:
    a round of the plane groups holds a lone K tile beside a group."""
    rng = np.random.default_rng(3)
    inits = [numpy_helper.from_array(
        rng.standard_normal((80, 48)).astype(np.float32) / 8, "w")]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")]
    _save(nodes, [_t("x", [64, 80])], [_t("y", [64, 48])], inits, path)


def streamed_matmul(path):
    """A matmul of 2 rows by a 700 x 900 weight on 320-lane planes: its
    full K tiles (320 rows, multiplied by two rows each) go in by trains,
    its last one (60 rows) row by row."""
    rng = np.random.default_rng(4)
    inits = [numpy_helper.from_array(
        rng.standard_normal((700, 900)).astype(np.float32) / 16, "w")]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")]
    _save(nodes, [_t("x", [2, 700])], [_t("y", [2, 900])], inits, path)


if __name__ == "__main__":
    globals()[sys.argv[1]](sys.argv[2])
