#!/usr/bin/env python3
"""file-cycles.py BUILD_DIR: the circles of calls between the files of each
src/ folder, read from the object files' symbols (nm): file A calls file B
when A uses a symbol B defines.  Prints each folder's strongly connected
sets of more than one file; exits 1 when there is one."""
import os
import subprocess
import sys
from collections import defaultdict


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBR":
            defined.add(parts[2])
    return defined, used


def sccs(nodes, edges):
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    found = 0
    root = os.path.join(build, "src")
    for folder in sorted(os.listdir(root)):
        d = os.path.join(root, folder)
        # an object whose source is gone (a file merged away) is stale
        objs = sorted(f for f in os.listdir(d) if f.endswith(".o") and
                      os.path.exists(os.path.join("src", folder, f[:-2] + ".c")))
        info = {o[:-2] + ".c": symbols(os.path.join(d, o)) for o in objs}
        owner = {s: f for f, (defs, _) in info.items() for s in defs}
        edges = defaultdict(set)
        for f, (_, used) in info.items():
            for s in used:
                if s in owner and owner[s] != f:
                    edges[f].add(owner[s])
        for comp in sccs(info.keys(), edges):
            if len(comp) > 1:
                found += 1
                calls = "; ".join(f"{a} -> {', '.join(sorted(edges[a] & set(comp)))}" for a in comp)
                print(f"src/{folder}: {' '.join(comp)}  ({calls})")
    print(f"file-cycles: {found} circle{'s' if found != 1 else ''}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
