"""checks_xgraph.py — function_graph on the XRay sleds (INSTR=xray; issue
20): the trace stack's graph compared with the return-hook backend's.

Called by checks_xray.xray_group once the INSTR=xray kernel is built:
    checks_xgraph.xgraph_checks(arch, report, save_log, boot)

Checks, each one report(ok, name, detail):
  tail jumps  each tail call of suite xgraph's matrix (tests/guest/
              test_xgraph.c) is a jump in the INSTR=xray kernel: the caller
              branches to the callee and never calls it (llvm-objdump)
  golden      bt.test=graph_golden (args, retval, strings, a tail call,
              recursion) under INSTR=xray and under the default backend,
              durations masked: the two texts are equal line by line, the
              trace stack's marked exits aside (marks_aside: a call whose
              end the sleds cannot see, e.g. x86-64 clang's tail call of
              the untraced strlen in gw_str, ends late there, without a
              value), and those marked exits are exactly GOLDEN_MARKS'
              for the arch; the default's equals tests/golden/graph.txt
  demo        the demo under function_graph (args, retval), both backends:
              every vfs_stat call tree that both kept (the buffer wraps:
              each shows its last calls) is the same for the same path,
              addresses masked, indentation from the vfs_stat line; at least
              six of the demo's eight paths in common
"""
import difflib
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import ROOT, run, golden_compare, mask_durations  # noqa: E402

# caller -> callee, each reached by a jump (test_xgraph.c).
TAIL_JUMPS = [("xg_tt", "xg_leaf"), ("xg_tn", "xg_nleaf"), ("xg_nt", "xg_leaf"),
              ("xg_c1", "xg_c2"), ("xg_c2", "xg_c3"), ("xg_ra", "xg_rb"), ("xg_rb", "xg_ra")]
GOLDEN = os.path.join(ROOT, "tests", "golden", "graph.txt")
# The trace stack's marked exits in the golden graph, exactly (what follows
# the `|`: indentation, function, mark), per arch: x86-64 clang makes
# gw_str's call of the untraced strlen a tail call, whose end the sleds
# cannot see, so gw_str is popped late (by gw_mid's exit); arm64 calls it.
GOLDEN_MARKS = {"arm64": [], "x86_64": ["      } /* gw_str (late) */"]}


def default_kernel(arch):
    rc, out, _ = run(["nice", "make", "-s", "ARCH=" + arch, "kernel"], 1200)
    rc2, path, _ = run(["make", "-s", "--no-print-directory", "ARCH=" + arch, "print-kernel"], 60)
    return (path.strip().splitlines() or [""])[-1] if rc == 0 and rc2 == 0 else "", out


def tail_jumps(arch, elf, report):
    bad, text = [], ""
    for caller, callee in TAIL_JUMPS:
        rc, out, _ = run(["llvm-objdump", "-d", "--no-show-raw-insn",
                          "--disassemble-symbols=" + caller, elf], 60)
        text += out
        jump = re.search(r"^\s*[0-9a-f]+:\s+(b|jmp)\s+(0x)?[0-9a-f]+ <%s>$" % callee, out, re.M)
        call = re.search(r"^\s*[0-9a-f]+:\s+(bl|callq?)\s+(0x)?[0-9a-f]+ <%s>$" % callee, out, re.M)
        if rc != 0 or not jump or call:
            bad.append("%s->%s" % (caller, callee))
    report(not bad, "%s INSTR=xray: the xgraph matrix's %d tail calls are jumps in the code%s"
           % (arch, len(TAIL_JUMPS), "; not: " + ", ".join(bad) if bad else ""), text)


def graph_between_markers(out):
    m = re.search(r"--- graph golden begin ---\n(.*)--- graph golden end ---", out, re.S)
    return mask_durations(m.group(1)) if m else ""


OPEN = re.compile(r"^(.*\|)(\s+)(\S+?)(\(.*\)) \{$")
MARKED = re.compile(r"^(.*\|)(\s+)\} /\* (\S+) \((late|gone)\) \*/$")
LEAF = re.compile(r"^(.*\|)(\s+)(\S+?)(\(.*\));(?: /\* ret=\S+ \*/)?$")
CLOSE = re.compile(r"^(.*\|)(\s+)\} /\* (\S+)(?: ret=\S+)? \*/$")


def marks_aside(dtext, xtext):
    """The default backend's graph and the trace stack's, line by line,
    with the trace stack's marked exits set aside: where it closes a call
    late or gone (no return value: its end was not seen) and the default
    closes the same call at the same place, both lines become the call's
    end without a value; a marked call with no children (`f(...) {` then
    its marked close) stands for the default's leaf `f(...); ...`.
    Returns (default lines, xray lines, marks set aside)."""
    d, x = dtext.splitlines(), xtext.splitlines()
    dn, xn, marks, i, j = [], [], 0, 0, 0
    while i < len(d) and j < len(x):
        o, m2 = OPEN.match(x[j]), MARKED.match(x[j + 1]) if j + 1 < len(x) else None
        leaf = LEAF.match(d[i])
        if o and m2 and leaf and o.group(2) == m2.group(2) == leaf.group(2) and \
                o.group(3) == m2.group(3) == leaf.group(3) and o.group(4) == leaf.group(4):
            dn.append("%s%s%s%s; /* (marks aside) */" % (leaf.group(1), leaf.group(2), leaf.group(3),
                                                          leaf.group(4)))
            xn.append(dn[-1])
            i, j, marks = i + 1, j + 2, marks + 1
            continue
        m, c = MARKED.match(x[j]), CLOSE.match(d[i])
        if m and c and m.group(2) == c.group(2) and m.group(3) == c.group(3):
            dn.append("%s%s} /* %s (marks aside) */" % (c.group(1), c.group(2), c.group(3)))
            xn.append(dn[-1])
            i, j, marks = i + 1, j + 1, marks + 1
            continue
        dn.append(d[i])
        xn.append(x[j])
        i, j = i + 1, j + 1
    return dn + d[i:], xn + x[j:], marks


def golden(arch, boot, default_elf, report, save_log):
    rc1, xout, _ = boot(arch, "bt.test=graph_golden", 120, smp=2)
    save_log(arch + "-xray-graph-golden", xout)
    rc2, dout, _ = run(["tools/qemu-run.sh", arch, default_elf, "bt.test=graph_golden"], 150,
                       env={"SMP": "2", "TIMEOUT": "120"})
    save_log(arch + "-default-graph-golden", dout)
    xg, dg = graph_between_markers(xout), graph_between_markers(dout)
    with open(GOLDEN) as f:
        same, diff = golden_compare(f.read(), dg)
    dn, xn, marks = marks_aside(dg, xg)
    marked = [l.split("|", 1)[1] for l in xg.splitlines() if MARKED.match(l)]
    ok = rc1 == 0 and rc2 == 0 and xg and dn == xn and same and marked == GOLDEN_MARKS[arch]
    both = "".join(difflib.unified_diff([l + "\n" for l in dn], [l + "\n" for l in xn],
                                        "default", "xray"))
    wrong = "" if marked == GOLDEN_MARKS[arch] else \
        "marked exits %r, expected %r\n" % (marked, GOLDEN_MARKS[arch])
    report(bool(ok), "%s INSTR=xray: the golden graph (args, retval, tail call, recursion) "
           "equals the default backend's, durations masked, %d marked exit(s) set aside, exactly "
           "%s; the default's is tests/golden/graph.txt"
           % (arch, marks, ", ".join(m.strip() for m in GOLDEN_MARKS[arch]) or "none"),
           wrong + both + diff or xout + dout)


ADDR = re.compile(r"0x[0-9a-f]{6,}")


def vfs_trees(out):
    """{path: set of vfs_stat call trees} from a demo's graph: each CPU's
    lines apart, a tree from `vfs_stat(path=...) {` to its closing line,
    durations and addresses masked; a tree cut by a context switch or an
    interrupt is left out."""
    per_cpu = {}
    for line in out.splitlines():
        m = re.match(r"^ (\d+)\) (.*)$", line)
        if m:
            per_cpu.setdefault(m.group(1), []).append(m.group(2))
    trees = {}
    for lines in per_cpu.values():
        cur, path = None, None
        for l in lines:
            if "|" not in l or "=>" in l or "==========" in l:
                cur = None
                continue
            body = ADDR.sub("ADDR", l.split("|", 1)[1].rstrip())
            o = re.match(r"^\s+vfs_stat\(path=\"([^\"]*)\"\) \{$", body)
            if o:
                cur, path = [body.strip()], o.group(1)
                base = len(body) - len(body.lstrip(" "))
                continue
            if cur is None:
                continue
            cur.append(body[base:])
            if re.match(r"^\s+\} /\* vfs_stat", body):
                trees.setdefault(path, set()).add("\n".join(cur))
                cur = None
    return trees


def demo(arch, report, save_log):
    env = {"SMP": "4", "TIMEOUT": "150"}
    rc1, xout, _ = run(["make", "-s", "--no-print-directory", "qemu-" + arch, "INSTR=xray"], 200,
                       env=env)
    save_log(arch + "-xray-demo-graph", xout)
    rc2, dout, _ = run(["make", "-s", "--no-print-directory", "qemu-" + arch], 200, env=env)
    save_log(arch + "-default-demo-graph", dout)
    xt, dt = vfs_trees(xout), vfs_trees(dout)
    common = sorted(set(xt) & set(dt))
    differ = [p for p in common if xt[p] != dt[p]]
    marks = "(late)" in xout or "(gone)" in xout
    ok = rc1 == 0 and rc2 == 0 and len(common) >= 6 and not differ and not marks
    detail = "".join("path %s\n  xray:\n%s\n  default:\n%s\n" % (p, "\n".join(xt[p]), "\n".join(dt[p]))
                     for p in differ[:3])
    report(bool(ok), "%s INSTR=xray: the demo's vfs_stat call trees equal the default backend's "
           "for the %d paths both kept (args, retval; addresses masked)%s"
           % (arch, len(common), "; differ: " + ", ".join(differ) if differ else ""),
           detail or xout + dout)


def vfs_stat_flat(arch, out, report):
    """The demo's workload again under function_graph filtered to vfs_stat
    and path_walk (checks_xray's demo script): vfs_stat tail-calls the
    untraced inode_size and the workers call it in a loop from one call
    site, so each call that left by that jump ends `(late)` at the next
    one's entry, and none nests in another (each CPU's lines apart: the
    close of a call has no name without funcgraph-retval, so depth is
    read from the indentation)."""
    indent, irq, calls, late = {}, {}, 0, 0
    for line in out.splitlines():
        m = re.match(r"^ (\d+)\) (.*)$", line)
        if not m:
            continue
        body = m.group(2).split("|", 1)[-1]
        if "==========>" in m.group(2) or "<==========" in m.group(2):
            irq[m.group(1)] = "==========>" in m.group(2)    # demo_tick's own calls
            continue
        o = re.match(r"^(\s+)vfs_stat\(.*\) \{$", body)
        if o and not irq.get(m.group(1)):
            calls += 1
            indent.setdefault(m.group(1), []).append(len(o.group(1)))
        late += bool(re.match(r"^\s+\} /\* vfs_stat \(late\) \*/$", body))
    # worker_main is not traced: a vfs_stat deeper than its CPU's
    # shallowest one (out of interrupts) opened inside another.
    nested = sum(sum(1 for i in ins if i > min(ins)) for ins in indent.values())
    ok = calls >= 6 and late >= 1 and nested == 0
    report(ok, "%s INSTR=xray: the demo under function_graph filtered to vfs_stat,path_walk: "
           "%d vfs_stat calls, %d nested in another (want none), %d ended (late) by their tail "
           "call of the untraced inode_size (want some)" % (arch, calls, nested, late), out)


def xgraph_checks(arch, report, save_log, boot, elf):
    tail_jumps(arch, elf, report)
    default_elf, out = default_kernel(arch)
    if not default_elf:
        report(False, "%s the default kernel builds (for the differential checks)" % arch, out)
        return
    golden(arch, boot, default_elf, report, save_log)
    demo(arch, report, save_log)
