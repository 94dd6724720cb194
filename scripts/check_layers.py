#!/usr/bin/env python3
"""check_layers.py [ROOT] - every #include of the C sources points down the
layer table of docs/internals.md ("Layers and who may depend on whom"), and
no two files include each other, directly or around a circle.

A folder's files may include headers of their own folder and of the folders
listed below it in LAYERS, except those in `never` (the runtime knows no
Lua: only the command line reaches gen/).  System headers (<...>) and
headers no folder of the table holds (the embedded texts) are not checked.
Prints each offending include and exits 1; prints the table and exits 0
when the graph is clean.  ctest runs it as `layers`.
"""
import os
import re
import sys

# bottom first: a folder may include what is above it in this list
LAYERS = [
    "templates",
    "runtime/include",
    "ir/base",
    "ir/sys",
    "ir",
    "gen",
    "runtime/io",
    "runtime/core",
    "runtime/backends",
    "runtime/solve",
    "runtime/sim",
    "runtime/cli",
]
NEVER = {folder: {"gen"} for folder in
         ("runtime/io", "runtime/core", "runtime/backends", "runtime/solve", "runtime/sim")}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def sources(root):
    for folder in LAYERS:
        path = os.path.join(root, folder)
        for name in sorted(os.listdir(path)):
            if name.endswith((".c", ".h", ".in")):
                yield folder, name, os.path.join(path, name)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    home = {}  # header name -> its folder
    files = list(sources(root))
    for folder, name, _ in files:
        if name in home:
            print(f"check_layers: {name} is in both {home[name]}/ and {folder}/ (includes name files alone)")
            return 1
        home[name] = folder
    rank = {folder: i for i, folder in enumerate(LAYERS)}
    bad, edges = [], {}
    for folder, name, path in files:
        text = COMMENT.sub("", open(path, encoding="utf-8", errors="replace").read())
        for header in INCLUDE.findall(text):
            header = os.path.basename(header)
            to = home.get(header)
            if to is None:
                continue
            if to != folder and (rank[to] > rank[folder] or to in NEVER.get(folder, ())):
                bad.append(f"{folder}/{name} includes {to}/{header}: {to}/ is not below {folder}/")
            edges.setdefault(f"{folder}/{name}", set()).add(f"{to}/{header}")
    # a file and its header are one node: a.c -> b.h and b.c -> a.h is a circle
    def node(p):
        return os.path.splitext(p)[0]
    graph = {}
    for a, bs in edges.items():
        for b in bs:
            if node(a) != node(b):
                graph.setdefault(node(a), set()).add(node(b))
    state, stack = {}, []
    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                bad.append("circle: " + " -> ".join(stack[stack.index(m):] + [m]))
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2
    for n in sorted(graph):
        if n not in state:
            visit(n)
    for line in bad:
        print("check_layers:", line)
    if not bad:
        print("check_layers: every include points down:", " < ".join(LAYERS))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
