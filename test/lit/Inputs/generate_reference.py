"""The tokens a greedy generation gives on ONNX Runtime: the prompt one
position at a time, then the most likely token each step, with a decode
step's static cache (present_* fed back as past_*; the loop of
bench/models/generate_models.py) or, with --growing, a decoder whose cache
grows (its past starting empty). Writes a FileCheck file expecting hetc
generate's token line.
Usage: generate_reference.py [--growing] MODEL.onnx PROMPT_IDS MAX_NEW_TOKENS OUT"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "bench", "models"))
from generate_models import ort_growing_tokens, ort_tokens  # noqa: E402

args = sys.argv[1:]
loop = ort_tokens
if args[0] == "--growing":
    loop, args = ort_growing_tokens, args[1:]
model, prompt, count, out = args[0], args[1], int(args[2]), args[3]
tokens = loop(model, [int(t) for t in prompt.split(",")], count)
with open(out, "w") as f:
    f.write("CHECK: tokens: " + " ".join(map(str, tokens)) + "{{$}}\n")
