"""The tokens a greedy generation with a decoder whose KV cache grows
gives on ONNX Runtime, its past growing step by step (the loop of
bench/models/generate_models.py). Writes a FileCheck file expecting hetc
generate's token line.
Usage: growing_reference.py MODEL.onnx PROMPT_IDS MAX_NEW_TOKENS OUT"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "bench", "models"))
from generate_models import ort_growing_tokens  # noqa: E402

model, prompt, count, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
tokens = ort_growing_tokens(model, [int(t) for t in prompt.split(",")], count)
with open(out, "w") as f:
    f.write("CHECK: tokens: " + " ".join(map(str, tokens)) + "{{$}}\n")
