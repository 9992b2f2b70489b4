"""Reads `hetc inspect -d` and prints the most M_LOAD_WEIGHTS one plane
issues in one cycle."""
import collections
import sys

loads = collections.Counter()
for line in sys.stdin:
    fields = line.split()
    # "#148 58 M_LOAD_WEIGHTS plane 0 row 0 ...": cycle, then the plane.
    if len(fields) > 4 and fields[2] == "M_LOAD_WEIGHTS" and fields[3] == "plane":
        loads[(fields[1], fields[4])] += 1
print("most weight loads on one plane in a cycle:", max(loads.values()))
