"""Checks the trace `hetc generate --trace` wrote: a span per step on the
track "steps", back to back, each as long as the step's predicted cycles;
every issue (each of a train's) of every step on the units' tracks, inside
its step's span, named by its ONNX node. Prints a summary line.
Usage: check_session_trace.py TRACE.json STEPS ISSUES CYCLES"""
import json
import sys

path, steps, instructions, cycles = sys.argv[1], *map(int, sys.argv[2:])
events = json.load(open(path))["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in events
         if e["ph"] == "M" and e["name"] == "thread_name"}
spans = [e for e in events if e["ph"] == "X" and names[e["tid"]] == "steps"]
units = [e for e in events if e["ph"] == "X" and names[e["tid"]] != "steps"]
assert len(spans) == steps, f"{len(spans)} step spans, expected {steps}"
for i, span in enumerate(spans):
    args = span["args"]
    assert args["step"] == i and args["cycle"] == i * cycles and args["cycles"] == cycles, args
assert len(units) == steps * instructions, f"{len(units)} instructions, expected {steps * instructions}"
per_step = [0] * steps
for e in units:
    step = e["args"]["cycle"] // cycles
    assert 0 <= step < steps, e
    per_step[step] += 1
    assert e["args"]["node"], f"instruction without a node: {e}"
assert per_step == [instructions] * steps, per_step
print(f"session trace: {steps} steps of {cycles} cycles, {instructions} instructions each, "
      f"slots {spans[0]['args']['tokens']} at positions {spans[0]['args']['positions']}")
