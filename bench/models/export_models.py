#!/usr/bin/env python3
"""Exports the model suite: common architectures as model teams export them.

Usage: export_models.py OUT_DIR [--only NAME[,NAME...]] [--list]

Each model is built with torch/torchvision (Debian's python3-torch and
python3-torchvision; this script runs under the Python that has them),
given random weights from a fixed seed, put in eval mode and exported with
torch.onnx.export at opset 17 to OUT_DIR/NAME.onnx, together with
OUT_DIR/NAME.json: the parameter count, the input names, shapes and
element types, and the `--dim` values that pin the dynamic axes.

A model whose .onnx and .json exist and whose recipe (this file, the torch
version) is unchanged is not exported again: OUT_DIR/NAME.stamp holds the
digest of both. The models are generated, never committed.
"""
import argparse
import hashlib
import json
import math
import os
import sys
import warnings

import torch
from torch import nn
import torchvision

OPSET = 17
SEED = 0


# --- Language models written out, as model teams write them -------------

class BertStyleEncoder(nn.Module):
    """Token, position and segment embeddings, post-norm encoder layers."""

    def __init__(self, vocab=30522, seq=128, hidden=256, layers=4, heads=4, ff=1024):
        super().__init__()
        self.tokens = nn.Embedding(vocab, hidden)
        self.positions = nn.Embedding(seq, hidden)
        self.norm = nn.LayerNorm(hidden)
        layer = nn.TransformerEncoderLayer(hidden, heads, ff, dropout=0.0,
                                           activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.pooler = nn.Linear(hidden, hidden)

    def forward(self, input_ids):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        x = self.norm(self.tokens(input_ids) + self.positions(positions)[None])
        x = self.encoder(x)
        return x, torch.tanh(self.pooler(x[:, 0]))


class CausalSelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        shape = (b, t, self.heads, c // self.heads)
        q, k, v = (y.view(shape).transpose(1, 2) for y in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(c // self.heads)
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool, device=x.device), 1)
        scores = scores.masked_fill(mask, float("-inf"))
        y = torch.softmax(scores, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class Gpt2Block(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(hidden)
        self.attn = CausalSelfAttention(hidden, heads)
        self.ln2 = nn.LayerNorm(hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden, 4 * hidden), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * hidden, hidden))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class Gpt2StyleDecoder(nn.Module):
    """GPT-2: learned positions, pre-norm blocks, tied output embedding."""

    def __init__(self, vocab=50257, context=128, hidden=256, layers=4, heads=4):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(context, hidden)
        self.blocks = nn.ModuleList(Gpt2Block(hidden, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)

    def forward(self, input_ids):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        x = self.wte(input_ids) + self.wpe(positions)[None]
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x) @ self.wte.weight.t()


class RmsNorm(nn.Module):
    def __init__(self, hidden, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


class LlamaAttention(nn.Module):
    """Grouped-query attention with rotary position embeddings."""

    def __init__(self, hidden, heads, kv_heads, context):
        super().__init__()
        self.heads, self.kv_heads, self.dim = heads, kv_heads, hidden // heads
        self.q = nn.Linear(hidden, heads * self.dim, bias=False)
        self.k = nn.Linear(hidden, kv_heads * self.dim, bias=False)
        self.v = nn.Linear(hidden, kv_heads * self.dim, bias=False)
        self.o = nn.Linear(heads * self.dim, hidden, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.dim, 2).float() / self.dim))
        angles = torch.outer(torch.arange(context).float(), inv)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def repeat_kv(self, x):
        """Each key/value head repeated for its group of query heads."""
        b, kv, t, d = x.shape
        repeat = self.heads // kv
        return x[:, :, None].expand(b, kv, repeat, t, d).reshape(b, kv * repeat, t, d)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.q(x).view(b, t, self.heads, self.dim).transpose(1, 2)
        k = self.k(x).view(b, t, self.kv_heads, self.dim).transpose(1, 2)
        v = self.v(x).view(b, t, self.kv_heads, self.dim).transpose(1, 2)
        cos, sin = self.cos[:t], self.sin[:t]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k, v = self.repeat_kv(k), self.repeat_kv(v)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.dim)
        mask = torch.triu(torch.full((t, t), float("-inf"), device=x.device), 1)
        y = torch.softmax(scores + mask, dim=-1) @ v
        return self.o(y.transpose(1, 2).reshape(b, t, -1))


class LlamaBlock(nn.Module):
    def __init__(self, hidden, heads, kv_heads, ff, context):
        super().__init__()
        self.norm1 = RmsNorm(hidden)
        self.attn = LlamaAttention(hidden, heads, kv_heads, context)
        self.norm2 = RmsNorm(hidden)
        self.gate = nn.Linear(hidden, ff, bias=False)
        self.up = nn.Linear(hidden, ff, bias=False)
        self.down = nn.Linear(ff, hidden, bias=False)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        h = self.norm2(x)
        return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))


class LlamaStyleDecoder(nn.Module):
    """Llama: RMSNorm, RoPE, GQA, SwiGLU, untied output head."""

    def __init__(self, vocab=32000, context=128, hidden=256, layers=4, heads=8,
                 kv_heads=2, ff=688):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.blocks = nn.ModuleList(LlamaBlock(hidden, heads, kv_heads, ff, context)
                                    for _ in range(layers))
        self.norm = RmsNorm(hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, input_ids):
        x = self.embed(input_ids)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


# --- Decode steps with a static KV cache ----------------------------------
#
# One token at a time, as model teams export a decoder for generation with
# a static cache (Hugging Face's StaticCache): the token at `position`, each
# layer's key and value written into its cache at that position by
# index_copy (exported as ScatterElements), attention over the positions up
# to it. Inputs input_ids [1, 1], position [1], past_k<i>/past_v<i>; outputs
# logits and present_k<i>/present_v<i>, what `hetc generate` runs.
#
# With batch slots (batch > 1) each sequence is at its own position: the
# inputs are input_ids [B, 1] and position [B], the caches [B, ...], and
# each slot's key and value are written at its position by a scatter
# (index_copy writes one position for the whole batch, as a static cache
# whose sequences all start together does).
#
# A prefill program (seq > 1, one sequence) takes input_ids [1, L] from
# `position` on: the keys and values of all L written at once by
# index_copy, query i attending to the positions up to position + i, the
# logits a row per token (`hetc generate --prefill`).

def cache_names(layers):
    names = []
    for i in range(layers):
        names += [f"past_k{i}", f"past_v{i}"]
    return names


def query_positions(position, batch, seq):
    """The position of each query, [B, S]: each slot's own (seq 1), or the
    prefill's L from `position` on."""
    if seq == 1:
        return position.view(batch, 1)
    return position.view(1, 1) + torch.arange(seq).view(1, seq)


def attend(q, k_cache, v_cache, where, context):
    """Attention of each query over the cache positions up to its own
    (`where`, [B, S])."""
    scores = q @ k_cache.transpose(-2, -1) / math.sqrt(q.shape[-1])
    b, s = where.shape
    visible = torch.arange(context) <= where.view(b, 1, s, 1)
    scores = scores.masked_fill(~visible, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v_cache


def gpt2_qkv(block, h, heads):
    """A Gpt2Block's query, key and value of `h` [B, S, hidden], heads
    first."""
    b, s, c = h.shape
    q, k, v = block.attn.qkv(h).split(c, dim=2)
    return (y.view(b, s, heads, c // heads).transpose(1, 2) for y in (q, k, v))


def llama_qkv(a, h, where):
    """A LlamaAttention's query, key and value of `h` [B, S, hidden], heads
    first, the query and key rotated to the positions `where` [B, S]."""
    b, s = where.shape
    q = a.q(h).view(b, s, a.heads, a.dim).transpose(1, 2)
    k = a.k(h).view(b, s, a.kv_heads, a.dim).transpose(1, 2)
    v = a.v(h).view(b, s, a.kv_heads, a.dim).transpose(1, 2)
    cos = a.cos[where].view(b, 1, s, -1)
    sin = a.sin[where].view(b, 1, s, -1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin, v


def write_cache(cache, where, new):
    """`cache` [B, heads, context, dim] with `new` [B, heads, S, dim] written
    at the positions `where` [B, S]."""
    if cache.shape[0] == 1:
        return cache.index_copy(2, where.view(-1), new)
    index = where.view(-1, 1, 1, 1).expand(-1, new.shape[1], 1, new.shape[3])
    return cache.scatter(2, index, new)


class Gpt2DecodeStep(nn.Module):
    """A decode step of Gpt2StyleDecoder (its weights, its vocabulary)."""

    def __init__(self, vocab=50257, context=128, hidden=256, layers=4, heads=4, batch=1,
                 seq=1):
        super().__init__()
        self.decoder = Gpt2StyleDecoder(vocab, context, hidden, layers, heads)
        self.context, self.heads, self.batch, self.seq = context, heads, batch, seq
        self.output_names = ["logits"] + [n.replace("past", "present")
                                          for n in cache_names(layers)]

    def forward(self, input_ids, position, *past):
        d, b, s = self.decoder, self.batch, self.seq
        where = query_positions(position, b, s)
        x = d.wte(input_ids) + d.wpe(where)
        presents = []
        for i, block in enumerate(d.blocks):
            q, k, v = gpt2_qkv(block, block.ln1(x), self.heads)
            k_cache = write_cache(past[2 * i], where, k)
            v_cache = write_cache(past[2 * i + 1], where, v)
            presents += [k_cache, v_cache]
            y = attend(q, k_cache, v_cache, where, self.context)
            x = x + block.attn.proj(y.transpose(1, 2).reshape(b, s, -1))
            x = x + block.mlp(block.ln2(x))
        return (d.ln_f(x) @ d.wte.weight.t(), *presents)


class LlamaDecodeStep(nn.Module):
    """A decode step of LlamaStyleDecoder: RoPE at `position`, GQA over the
    cache of the key/value heads."""

    def __init__(self, vocab=32000, context=128, hidden=256, layers=4, heads=8,
                 kv_heads=2, ff=688, batch=1, seq=1):
        super().__init__()
        self.decoder = LlamaStyleDecoder(vocab, context, hidden, layers, heads, kv_heads, ff)
        self.context, self.batch, self.seq = context, batch, seq
        self.output_names = ["logits"] + [n.replace("past", "present")
                                          for n in cache_names(layers)]

    def forward(self, input_ids, position, *past):
        d, b, s = self.decoder, self.batch, self.seq
        where = query_positions(position, b, s)
        x = d.embed(input_ids)
        presents = []
        for i, block in enumerate(d.blocks):
            a = block.attn
            q, k, v = llama_qkv(a, block.norm1(x), where)
            k_cache = write_cache(past[2 * i], where, k)
            v_cache = write_cache(past[2 * i + 1], where, v)
            presents += [k_cache, v_cache]
            y = attend(q, a.repeat_kv(k_cache), a.repeat_kv(v_cache), where, self.context)
            x = x + a.o(y.transpose(1, 2).reshape(b, s, -1))
            h = block.norm2(x)
            x = x + block.down(nn.functional.silu(block.gate(h)) * block.up(h))
        return (d.head(d.norm(x)), *presents)


def masked_scores(input_ids, attention_mask, past):
    """What to add to the attention scores: -1e9 where attention_mask is 0
    (over the past and the new tokens), [B, 1, 1, P + S]; without a past,
    also where a token would see a later one, [B, 1, S, S]."""
    seen = attention_mask[:, None, None, :].float()
    if not past:
        s = input_ids.shape[1]
        seen = torch.ones(s, s).tril()[None, None] * seen
    return (1.0 - seen) * -1e9


def grown(past, layer, k, v):
    """Layer `layer`'s key and value after the past's (none: the new ones
    alone)."""
    if not past:
        return k, v
    return (torch.cat([past[2 * layer], k], dim=2),
            torch.cat([past[2 * layer + 1], v], dim=2))


class Gpt2WithPast(nn.Module):
    """Gpt2StyleDecoder exported as Hugging Face exports decoders with a
    growing cache (decoder_with_past_model.onnx): input_ids, attention_mask
    over the past and the new tokens, position_ids, and each layer's past
    key and value of any length, the new ones concatenated after them into
    present.<i>.key/.value (`hetc compile --max-context` makes it a decode
    step for every position)."""

    def __init__(self, vocab=50257, context=128, hidden=256, layers=4, heads=4):
        super().__init__()
        self.decoder = Gpt2StyleDecoder(vocab, context, hidden, layers, heads)
        self.heads = heads
        self.output_names = ["logits"] + [f"present.{i}.{kv}" for i in range(layers)
                                          for kv in ("key", "value")]

    def forward(self, input_ids, attention_mask, position_ids, *past):
        d = self.decoder
        b, s = input_ids.shape
        x = d.wte(input_ids) + d.wpe(position_ids)
        hidden = masked_scores(input_ids, attention_mask, past)
        presents = []
        for i, block in enumerate(d.blocks):
            q, k, v = gpt2_qkv(block, block.ln1(x), self.heads)
            k, v = grown(past, i, k, v)
            presents += [k, v]
            scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + hidden
            y = torch.softmax(scores, dim=-1) @ v
            x = x + block.attn.proj(y.transpose(1, 2).reshape(b, s, -1))
            x = x + block.mlp(block.ln2(x))
        return (d.ln_f(x) @ d.wte.weight.t(), *presents)


class LlamaWithPast(nn.Module):
    """LlamaStyleDecoder exported with a growing cache, as Gpt2WithPast:
    RoPE at position_ids, GQA over the grown cache of the key/value
    heads."""

    def __init__(self, vocab=32000, context=128, hidden=256, layers=4, heads=8,
                 kv_heads=2, ff=688):
        super().__init__()
        self.decoder = LlamaStyleDecoder(vocab, context, hidden, layers, heads, kv_heads, ff)
        self.output_names = ["logits"] + [f"present.{i}.{kv}" for i in range(layers)
                                          for kv in ("key", "value")]

    def forward(self, input_ids, attention_mask, position_ids, *past):
        d = self.decoder
        b, s = input_ids.shape
        x = d.embed(input_ids)
        hidden = masked_scores(input_ids, attention_mask, past)
        presents = []
        for i, block in enumerate(d.blocks):
            a = block.attn
            q, k, v = llama_qkv(a, block.norm1(x), position_ids)
            k, v = grown(past, i, k, v)
            presents += [k, v]
            kr, vr = a.repeat_kv(k), a.repeat_kv(v)
            scores = q @ kr.transpose(-2, -1) / math.sqrt(a.dim) + hidden
            y = torch.softmax(scores, dim=-1) @ vr
            x = x + a.o(y.transpose(1, 2).reshape(b, s, -1))
            h = block.norm2(x)
            x = x + block.down(nn.functional.silu(block.gate(h)) * block.up(h))
        return (d.head(d.norm(x)), *presents)


class Gpt2WithoutPast(Gpt2WithPast):
    """Gpt2WithPast's decoder without a past, as Hugging Face exports it
    beside it (decoder_model.onnx): the prompt's tokens at once, each seeing
    those up to it and no padding, and present.<i>.key/.value of the
    prompt's length (compiled for a bucket, a prefill program of the
    growing-cache decode step)."""

    def forward(self, input_ids, attention_mask, position_ids):
        return super().forward(input_ids, attention_mask, position_ids)


class LlamaWithoutPast(LlamaWithPast):
    """LlamaWithPast's decoder without a past, as Gpt2WithoutPast."""

    def forward(self, input_ids, attention_mask, position_ids):
        return super().forward(input_ids, attention_mask, position_ids)


def without_past_inputs(vocab, seq=16):
    """A prompt of `seq` tokens, as the export traces it."""
    return {"input_ids": ((1, seq), torch.int64, vocab),
            "attention_mask": ((1, seq), torch.int64, 2),
            "position_ids": ((1, seq), torch.int64, seq)}


def without_past_axes():
    return {name: {0: "batch_size", 1: "sequence_length"}
            for name in ("input_ids", "attention_mask", "position_ids")}


def with_past_inputs(vocab, layers, heads, head_dim, past=4):
    """One token after `past` others, as the export traces it."""
    spec = {"input_ids": ((1, 1), torch.int64, vocab),
            "attention_mask": ((1, past + 1), torch.int64, 2),
            "position_ids": ((1, 1), torch.int64, past + 1)}
    for i in range(layers):
        for kv in ("key", "value"):
            spec[f"past_key_values.{i}.{kv}"] = ((1, heads, past, head_dim), torch.float32)
    return spec


def with_past_axes(layers):
    """The dynamic axes Hugging Face's exports give such a decoder."""
    axes = {"input_ids": {0: "batch_size", 1: "sequence_length"},
            "attention_mask": {0: "batch_size", 1: "past_sequence_length + 1"},
            "position_ids": {0: "batch_size", 1: "sequence_length"}}
    for i in range(layers):
        for kv in ("key", "value"):
            axes[f"past_key_values.{i}.{kv}"] = {0: "batch_size", 2: "past_sequence_length"}
    return axes


def step_inputs(vocab, context, layers, kv_heads, head_dim, batch=1, seq=1):
    spec = {"input_ids": ((batch, seq), torch.int64, vocab),
            "position": ((batch,), torch.int64, context - seq + 1)}
    for name in cache_names(layers):
        spec[name] = ((batch, kv_heads, context, head_dim), torch.float32)
    return spec


# --- Convolutional models written out ------------------------------------

def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())


class UNet(nn.Module):
    """The UNet of Ronneberger et al. at a quarter of its widths."""

    def __init__(self, channels=3, classes=2, widths=(16, 32, 64, 128)):
        super().__init__()
        self.down = nn.ModuleList()
        cin = channels
        for w in widths:
            self.down.append(conv_block(cin, w))
            cin = w
        self.bottom = conv_block(widths[-1], 2 * widths[-1])
        self.up = nn.ModuleList()
        self.merge = nn.ModuleList()
        cin = 2 * widths[-1]
        for w in reversed(widths):
            self.up.append(nn.ConvTranspose2d(cin, w, 2, stride=2))
            self.merge.append(conv_block(2 * w, w))
            cin = w
        self.out = nn.Conv2d(widths[0], classes, 1)

    def forward(self, x):
        skips = []
        for block in self.down:
            x = block(x)
            skips.append(x)
            x = nn.functional.max_pool2d(x, 2)
        x = self.bottom(x)
        for up, merge, skip in zip(self.up, self.merge, reversed(skips)):
            x = merge(torch.cat((up(x), skip), dim=1))
        return self.out(x)


class WhisperStyleEncoder(nn.Module):
    """Whisper's encoder: two conv1d over log-mel frames, sinusoidal
    positions, pre-norm attention blocks (whisper-tiny's widths, 2 layers)."""

    def __init__(self, mels=80, frames=3000, hidden=384, layers=2, heads=6):
        super().__init__()
        self.conv1 = nn.Conv1d(mels, hidden, 3, padding=1)
        self.conv2 = nn.Conv1d(hidden, hidden, 3, stride=2, padding=1)
        positions = frames // 2
        inv = torch.exp(-math.log(10000) * torch.arange(hidden // 2).float() / (hidden // 2 - 1))
        angles = torch.arange(positions).float()[:, None] * inv[None]
        self.register_buffer("positions", torch.cat((angles.sin(), angles.cos()), dim=1))
        layer = nn.TransformerEncoderLayer(hidden, heads, 4 * hidden, dropout=0.0,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, mel):
        x = nn.functional.gelu(self.conv1(mel))
        x = nn.functional.gelu(self.conv2(x)).transpose(1, 2)
        return self.norm(self.blocks(x + self.positions))


def vit_s_16():
    return torchvision.models.VisionTransformer(image_size=224, patch_size=16, num_layers=12,
                                                num_heads=6, hidden_dim=384, mlp_dim=1536)


def image(batch=1):
    return {"input": ((batch, 3, 224, 224), torch.float32)}


def tokens(seq, vocab):
    return {"input_ids": ((1, seq), torch.int64, vocab)}


# name -> (builder, inputs, dynamic axes {input: {axis: name}}, quick).
# "quick" models run in the test command; the rest only in the bench.
MODELS = {
    "resnet18": (torchvision.models.resnet18, image(), {"input": {0: "batch"}}, False),
    "resnet50": (torchvision.models.resnet50, image(), {}, False),
    "mobilenet_v2": (torchvision.models.mobilenet_v2, image(), {}, False),
    "efficientnet_b0": (torchvision.models.efficientnet_b0, image(), {}, False),
    "convnext_tiny": (torchvision.models.convnext_tiny, image(), {}, False),
    "vit_s_16": (vit_s_16, image(), {}, False),
    "vit_b_16": (torchvision.models.vit_b_16, image(), {}, False),
    "bert_encoder": (BertStyleEncoder, tokens(128, 30522), {"input_ids": {1: "seq"}}, False),
    "gpt2_decoder": (Gpt2StyleDecoder, tokens(128, 50257), {"input_ids": {1: "seq"}}, False),
    "llama_decoder": (LlamaStyleDecoder, tokens(128, 32000), {"input_ids": {1: "seq"}}, False),
    "unet": (lambda: UNet(), {"input": ((1, 3, 128, 128), torch.float32)}, {}, False),
    "whisper_encoder": (WhisperStyleEncoder, {"mel": ((1, 80, 3000), torch.float32)}, {}, False),
    # Decode steps with a static KV cache (hetc generate; bench/models/generate_models.py).
    "gpt2_step": (Gpt2DecodeStep, step_inputs(50257, 128, 4, 4, 64), {}, False),
    "llama_step": (LlamaDecodeStep, step_inputs(32000, 128, 4, 2, 32), {}, False),
    # The same steps with four batch slots, each sequence at its own position.
    "gpt2_step_b4": (lambda: Gpt2DecodeStep(batch=4), step_inputs(50257, 128, 4, 4, 64, 4),
                     {}, False),
    "llama_step_b4": (lambda: LlamaDecodeStep(batch=4), step_inputs(32000, 128, 4, 2, 32, 4),
                      {}, False),
    # A GPT-2-style step whose weights fill most of the chip's SRAM at
    # --precision fp16 (4 layers of hidden 1024, 16 heads, a vocabulary of
    # 8192: 59 M parameters): decode bound by installing its weights.
    "gpt2_step_h1024": (lambda: Gpt2DecodeStep(vocab=8192, hidden=1024, layers=4, heads=16),
                        step_inputs(8192, 128, 4, 16, 64), {}, False),
    # The GPT-2 style as Hugging Face exports it with a growing cache.
    "gpt2_with_past": (Gpt2WithPast, with_past_inputs(50257, 4, 4, 64), with_past_axes(4),
                       False),
    "llama_with_past": (LlamaWithPast, with_past_inputs(32000, 4, 2, 32), with_past_axes(4),
                        False),
    # Their decoders without a past (decoder_model.onnx), prefill programs
    # of the growing-cache steps once compiled for a bucket.
    "gpt2_without_past": (Gpt2WithoutPast, without_past_inputs(50257), without_past_axes(),
                          False),
    "llama_without_past": (LlamaWithoutPast, without_past_inputs(32000), without_past_axes(),
                           False),
    # Their prefill programs over 16 tokens.
    "gpt2_prefill16": (lambda: Gpt2DecodeStep(seq=16),
                       step_inputs(50257, 128, 4, 4, 64, seq=16), {}, False),
    "llama_prefill16": (lambda: LlamaDecodeStep(seq=16),
                        step_inputs(32000, 128, 4, 2, 32, seq=16), {}, False),
    # Small members of the same families, for the test command.
    "llama_tiny": (lambda: LlamaStyleDecoder(vocab=512, context=16, hidden=64, layers=2,
                                             heads=4, kv_heads=2, ff=176),
                   tokens(16, 512), {"input_ids": {1: "seq"}}, True),
    "gpt2_tiny": (lambda: Gpt2StyleDecoder(vocab=512, context=16, hidden=64, layers=2, heads=2),
                  tokens(16, 512), {"input_ids": {1: "seq"}}, True),
    "cnn_tiny": (lambda: UNet(widths=(4, 8)), {"input": ((1, 3, 16, 16), torch.float32)}, {},
                 True),
}


def example_inputs(spec):
    generator = torch.Generator().manual_seed(SEED + 1)
    values = []
    for shape, dtype, *vocab in spec.values():
        if dtype == torch.int64:
            values.append(torch.randint(0, vocab[0], shape, generator=generator))
        else:
            values.append(torch.randn(shape, generator=generator))
    return tuple(values)


def recipe_digest(name):
    digest = hashlib.sha256()
    digest.update(open(os.path.abspath(__file__), "rb").read())
    digest.update(f"{name} {torch.__version__} {torchvision.__version__}".encode())
    return digest.hexdigest()


def export(name, out_dir):
    build, inputs, dynamic, quick = MODELS[name]
    onnx_path = os.path.join(out_dir, name + ".onnx")
    info_path = os.path.join(out_dir, name + ".json")
    stamp_path = os.path.join(out_dir, name + ".stamp")
    digest = recipe_digest(name)
    if (os.path.exists(onnx_path) and os.path.exists(info_path) and os.path.exists(stamp_path)
            and open(stamp_path).read() == digest):
        return False
    torch.manual_seed(SEED)
    model = build().eval()
    # Some layers start at zero (torchvision's ViT head and class token);
    # drawn at random like the rest, so that no output is a constant that
    # any compiler would match.
    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.dim() >= 2 and not parameter.any():
                parameter.normal_(0.0, 0.02)
    args = example_inputs(inputs)
    dims = {axis_name: inputs[inp][0][axis] for inp, axes in dynamic.items()
            for axis, axis_name in axes.items()}
    tmp = onnx_path + ".tmp"
    # Exported with autograd on: under no_grad, eval-mode nn.MultiheadAttention
    # takes a fused fast path that torch cannot export.
    torch.onnx.export(model, args, tmp, opset_version=OPSET, input_names=list(inputs),
                      output_names=getattr(model, "output_names", None),
                      dynamic_axes=dynamic or None, do_constant_folding=True)
    os.replace(tmp, onnx_path)
    info = {
        "name": name,
        "parameters": sum(p.numel() for p in model.parameters()),
        "inputs": {k: {"shape": list(v[0]), "dtype": str(v[1]).replace("torch.", ""),
                       **({"high": v[2]} if len(v) > 2 else {})}
                   for k, v in inputs.items()},
        "dims": dims,
        "quick": quick,
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
    }
    with open(info_path + ".tmp", "w") as f:
        json.dump(info, f, indent=1)
    os.replace(info_path + ".tmp", info_path)
    with open(stamp_path, "w") as f:
        f.write(digest)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--only", default="", help="comma-separated model names")
    parser.add_argument("--quick", action="store_true", help="only the quick models")
    parser.add_argument("--list", action="store_true", help="print the model names and exit")
    args = parser.parse_args()
    names = list(MODELS)
    if args.only:
        names = args.only.split(",")
        unknown = [n for n in names if n not in MODELS]
        if unknown:
            sys.exit(f"export_models.py: unknown model(s) {', '.join(unknown)}; "
                     f"known: {', '.join(MODELS)}")
    if args.quick:
        names = [n for n in names if MODELS[n][3]]
    if args.list:
        print("\n".join(names))
        return
    os.makedirs(args.out_dir, exist_ok=True)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    for name in names:
        fresh = export(name, args.out_dir)
        print(f"{name}: {'exported' if fresh else 'up to date'}", flush=True)


if __name__ == "__main__":
    main()
