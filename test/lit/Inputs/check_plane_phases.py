"""Reads hisa IR and checks that no weight row of a plane is installed twice
before the plane multiplies: two weight tiles installed into one plane side
by side overwrite each other. Prints the loads per plane, or the first
row installed twice and exits 1."""
import collections
import re
import sys

LOAD = re.compile(r"hisa\.load_weights %\S+ plane (\d+) (row|column) (\d+)"
                  r"(?:.*? repeat <(\d+) every \d+(?: step (-?\d+))?>)?")
MATMUL = re.compile(r"hisa\.matmul %\S+ plane (\d+)")
phase = collections.defaultdict(set)
loads = collections.Counter()
for number, line in enumerate(sys.stdin, 1):
    if m := LOAD.search(line):
        # A train installs `index + k * step` at its issue k.
        plane, first = int(m.group(1)), int(m.group(3))
        count, step = int(m.group(4) or 1), int(m.group(5) or 0)
        for k in range(count):
            slot = (m.group(2), first + k * step)
            if slot in phase[plane]:
                print(f"line {number}: plane {plane} {slot[0]} {slot[1]} is "
                      "installed twice before the plane multiplies")
                sys.exit(1)
            phase[plane].add(slot)
            loads[plane] += 1
    elif m := MATMUL.search(line):
        phase[int(m.group(1))].clear()
print("weight loads per plane:",
      ", ".join(f"{p}: {n}" for p, n in sorted(loads.items())))
