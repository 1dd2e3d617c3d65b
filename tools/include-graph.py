#!/usr/bin/env python3
"""include-graph.py — which parts of trace/ depend on which, and any circle.

Usage: tools/include-graph.py [--dot] [--files]

A file depends on each header it includes, and on each .c file that
defines (at its top level) a function or variable the file uses by name
from a header it includes, directly or through other headers.  Files are grouped in parts, as trace/DESIGN.md ("Parts and
layers") names them; the script prints each part's dependencies on the
others and every circle: a set of parts (or, with --files, of files) that
depend on one another.  Exit status 1 if there is a circle between parts
or a file in no part, 0 otherwise (tests/checks/checks_layers.py, the host
group, checks it).  --dot prints the part graph in Graphviz's format instead.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TRACE = os.path.join(ROOT, "trace")

# The parts, lowest first (a part should depend only on parts above it in
# this list: lower ones).  Stems: file names without .c/.h.
PARTS = [
    ("tracefs", ["tracefs", "cmdparse"]),
    ("ring_buffer", ["ring_buffer", "rb_event", "rb_read", "rb_setup", "rb_internal",
                     "rb_port", "rb_port_kernel", "rb_write"]),
    ("core", ["ftrace", "ftrace_internal", "ftrace_filter", "update", "direct",
              "enabled_functions", "records", "hash", "listvec", "site_state",
              "recursion", "fgraph", "fgraph_inline", "fgraph_hooks", "fgraph_frame",
              "tstack", "fprobe"]),
    ("btf", ["btf", "fsig"]),
    ("trace", ["trace", "output", "marker", "options", "global_ops", "func_cmd"]),
    ("tracers", ["function", "graph", "graph_output", "profile"]),
    ("dump", ["dump"]),
    ("boot_api", ["boot"]),
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"trace/([\w.]+)"', re.M)


def strip(text):
    """The text without comments, strings, preprocessor lines."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    return re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)


def top_level(text):
    """(statement text, ends with '{') for each top-level statement."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                out.append((text[start:i], True))
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                start = i + 1
        elif ch == ";" and depth == 0:
            out.append((text[start:i], False))
            start = i + 1
    return out


def name_of(stmt):
    """The name a top-level statement declares or defines, or None."""
    s = " ".join(stmt.split())
    if not s or s.startswith(("typedef", "_Static_assert")) or \
            s.startswith(("struct", "enum", "union")) and "(" not in s.split("=")[0]:
        return None
    head = s.split("=")[0]
    m = re.match(r"[^(]*\(\s*\*\s*(\w+)\s*\)\s*\(", head)   # a function pointer
    if m:
        return m.group(1)
    m = re.match(r"[^(]*?(\w+)\s*\(", head)                 # a function
    if m:
        return m.group(1)
    m = re.search(r"(\w+)\s*(\[[^\]]*\]\s*)*$", head)
    return m.group(1) if m else None


def scan():
    files = sorted(f for f in os.listdir(TRACE) if f.endswith((".c", ".h")))
    text = {f: open(os.path.join(TRACE, f), encoding="utf-8").read() for f in files}
    includes = {f: [h for h in INCLUDE.findall(text[f]) if h in text] for f in files}
    declared, defined = {}, {}
    for f in files:
        for stmt, body in top_level(strip(text[f])):
            n = name_of(stmt)
            if not n:
                continue
            static = re.match(r"\s*(static|extern\s+\"C\")\b", stmt)
            if f.endswith(".h"):
                # A header's own inline code is the header's (its
                # includers depend on it directly).
                if not body and not static:
                    declared.setdefault(n, set()).add(f)
            elif not static and not stmt.lstrip().startswith("extern"):
                defined.setdefault(n, set()).add(f)
    declared_in = {}
    for n, hs in declared.items():
        for h in hs:
            declared_in.setdefault(h, set()).add(n)
    return files, includes, declared_in, defined, text


def closure(f, includes):
    seen, todo = set(), list(includes[f])
    while todo:
        h = todo.pop()
        if h not in seen:
            seen.add(h)
            todo.extend(includes.get(h, []))
    return seen


def deps(files, includes, declared_in, defined, text):
    """File -> {file it depends on: the name it uses from it}: each header
    it includes itself (but one it implements), and each .c file that
    defines a name the file uses from a header it includes (directly or
    through other headers)."""
    out = {}
    for f in files:
        if not f.endswith(".c"):
            continue
        words = set(re.findall(r"\w+", strip(text[f])))
        mine = {n for n, fs in defined.items() if f in fs}
        # A header it implements is no dependency.
        d = {h: "included" for h in includes[f] if not declared_in.get(h, set()) & mine}
        for h in closure(f, includes):
            for n in sorted(declared_in.get(h, ())):
                if n in words:
                    for c in defined.get(n, ()):
                        d.setdefault(c, n)
        d.pop(f, None)
        out[f] = d
    return out


def part_of(f):
    stem = f.rsplit(".", 1)[0]
    for name, stems in PARTS:
        if stem in stems:
            return name
    return "?" + stem


def sccs(graph):
    """Tarjan's strongly connected components with more than one node."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
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
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main(argv):
    files, includes, declared_in, defined, text = scan()
    d = deps(files, includes, declared_in, defined, text)
    parts = {}
    why = {}
    for f, ds in d.items():
        for g in ds:
            a, b = part_of(f), part_of(g)
            if a != b:
                parts.setdefault(a, set()).add(b)
                why.setdefault((a, b), []).append(f"{f} -> {g} ({ds[g]})")
    if "--dot" in argv:
        print("digraph trace {")
        for a in sorted(parts):
            for b in sorted(parts[a]):
                print(f'  "{a}" -> "{b}";')
        print("}")
    else:
        for a in sorted(parts):
            print(f"{a} -> {', '.join(sorted(parts[a]))}")
    circles = sccs(parts)
    for c in circles:
        print("circle between parts: " + " ".join(c))
        for a in c:
            for b in c:
                for w in sorted(why.get((a, b), [])):
                    print(f"  {w}")
    if "--files" in argv:
        for c in sccs({f: {g for g in ds if g.endswith(".c")} for f, ds in d.items()}):
            print("circle between files: " + " ".join(c))
    loose = sorted(f for f in files if part_of(f).startswith("?"))
    for f in loose:
        print(f"in no part: {f} (add it to PARTS)")
    if not circles:
        print("no circle between parts")
    return 1 if circles or loose else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
