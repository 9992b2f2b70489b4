"""Checks the trace `hetc generate --trace` wrote for a session with
prefill programs: its spans on the track "steps" (prefills, hand-overs and
steps) lie back to back from cycle 0, and every instruction on the units'
tracks lies inside a prefill's or a step's span and names its ONNX node.
With PREFILL_CYCLES, every prefill's span is that long (the prefill's
compiled cycles). Prints the spans in order, a line each, and a summary
line.
Usage: check_timeline_trace.py TRACE.json [PREFILL_CYCLES]"""
import json
import sys

events = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in events
         if e["ph"] == "M" and e["name"] == "thread_name"}
spans = [e for e in events if e["ph"] == "X" and names[e["tid"]] == "steps"]
units = [e for e in events if e["ph"] == "X" and names[e["tid"]] != "steps"]
at = 0
for span in spans:
    args = span["args"]
    assert args["cycle"] == at, f"{span['name']} starts at {args['cycle']}, not {at}"
    at += args["cycles"]
    if len(sys.argv) > 2 and span["name"].startswith("prefill"):
        assert args["cycles"] == int(sys.argv[2]), f"{span['name']}: {args['cycles']} cycles"
    print(f"{span['name']}: {args['cycles']} cycles")
running = [s["args"] for s in spans if not s["name"].startswith("hand-over")]
inside = [0] * len(running)
for e in units:
    cycle = e["args"]["cycle"]
    hits = [k for k, s in enumerate(running) if s["cycle"] <= cycle < s["cycle"] + s["cycles"]]
    assert hits, f"an instruction outside every prefill and step: {e}"
    assert e["args"]["node"], f"instruction without a node: {e}"
    inside[hits[0]] += 1
assert all(inside), f"a span without instructions: {inside}"
print(f"timeline: {len(spans)} spans back to back over {at} cycles, "
      f"{len(units)} instructions inside them, each named by its node")
