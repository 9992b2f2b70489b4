"""Reads `hetc inspect -d` and prints the most M_LOAD_WEIGHTS (or
M_LOAD_WEIGHTS_COLUMN) one plane issues in one cycle."""
import collections
import sys

loads = collections.Counter()
for line in sys.stdin:
    fields = line.split()
    # "#148 58 M_LOAD_WEIGHTS plane 0 row 0 ...": cycle, then the plane; a
    # train ("... repeat 8 every 1 ...") loads at each of its issues.
    if len(fields) > 4 and fields[2] in ("M_LOAD_WEIGHTS", "M_LOAD_WEIGHTS_COLUMN") and fields[3] == "plane":
        count, every = 1, 1
        if "repeat" in fields:
            at = fields.index("repeat")
            count, every = int(fields[at + 1]), int(fields[at + 3])
        for k in range(count):
            loads[(int(fields[1]) + k * every, fields[4])] += 1
print("most weight loads on one plane in a cycle:", max(loads.values()))
