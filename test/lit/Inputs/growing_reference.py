"""The tokens a greedy generation with a decoder whose KV cache grows
gives on ONNX Runtime (as Hugging Face's decoder_with_past_model.onnx runs):
the past starts empty, each step feeds one token with attention_mask of
ones over the past and it, position_ids at its position, and the present
outputs become the next past. Writes a FileCheck file expecting hetc
generate's token line.
Usage: growing_reference.py MODEL.onnx PROMPT_IDS MAX_NEW_TOKENS OUT"""
import sys

import numpy as np
import onnxruntime as ort

model, prompt, count, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
prompt = [int(t) for t in prompt.split(",")]
options = ort.SessionOptions()
options.log_severity_level = 3
session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
past = {}
for i in session.get_inputs():
    if i.name.startswith("past"):
        shape = [1 if not isinstance(d, int) else d for d in i.shape]
        shape[2] = 0
        past[i.name] = np.zeros(shape, np.float32)
names = [o.name for o in session.get_outputs()]
tokens, position, next_id = [], 0, None
while len(tokens) < count:
    token = prompt[position] if position < len(prompt) else next_id
    feeds = dict(past, input_ids=np.array([[token]], np.int64),
                 attention_mask=np.ones((1, position + 1), np.int64),
                 position_ids=np.array([[position]], np.int64))
    result = dict(zip(names, session.run(None, feeds)))
    past = {name: result["present" + name[len("past_key_values"):]] for name in past}
    if position + 1 >= len(prompt):
        next_id = int(np.argmax(result["logits"].reshape(-1)))
        tokens.append(next_id)
    position += 1
with open(out, "w") as f:
    f.write("CHECK: tokens: " + " ".join(map(str, tokens)) + "{{$}}\n")
