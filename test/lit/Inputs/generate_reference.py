"""The tokens a greedy generation with a decode-step ONNX model gives on
ONNX Runtime: the prompt one position at a time, then the most likely
token each step, the present_* outputs fed back as past_*. Writes a
FileCheck file expecting hetc generate's token line.
Usage: generate_reference.py MODEL.onnx PROMPT_IDS MAX_NEW_TOKENS OUT"""
import sys

import numpy as np
import onnxruntime as ort

model, prompt, count, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
options = ort.SessionOptions()
options.log_severity_level = 3  # its TensorScatter notes that it copies
session = ort.InferenceSession(model, options)
state = {i.name: np.zeros(i.shape, np.float32)
         for i in session.get_inputs() if i.name.startswith("past")}
outputs = [o.name for o in session.get_outputs()]
prompt_ids = [int(t) for t in prompt.split(",")]
tokens, position, next_id = [], 0, prompt_ids[0]
while len(tokens) < count:
    token = prompt_ids[position] if position < len(prompt_ids) else next_id
    feeds = dict(state, input_ids=np.array([[token]], np.int64),
                 position=np.array([position], np.int64))
    result = dict(zip(outputs, session.run(None, feeds)))
    state = {name: result["present" + name[4:]] for name in state}
    if position + 1 >= len(prompt_ids):
        next_id = int(np.argmax(result["logits"].reshape(-1)))
        tokens.append(next_id)
    position += 1
with open(out, "w") as f:
    f.write("CHECK: tokens: " + " ".join(map(str, tokens)) + "{{$}}\n")
