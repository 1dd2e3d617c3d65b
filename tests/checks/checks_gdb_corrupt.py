"""checks_gdb_corrupt.py — the gdb extension (tools/gdb/baretrace.py and
tools/btlib/memsrc.py) against corrupt guest state, for tests/run.py's gdb
group.

One boot per arch under QEMU's gdbstub with the default run's command line
(make gdb-ARCH), stopped in dir_lookup with hooked returns on the stopped
thread's shadow stack (tests/gdb/corrupt.py).  Then, one case at a time,
every count and pointer the extension reads from guest memory is given a
value no correct guest holds (all ones, one past its capacity, negative,
NULL, 0xffffffff, an address that wraps past 2^64, a misaligned address in
RAM holding something else, a list looping on itself), every bt-* command
and `bt` run, and the old value written back.  _fields() lists them by
the reads of baretrace.py and memsrc.py they reach: the ring buffer
(buffer_state, ring_cpu and memsrc's walk), the trace's metadata
(tracer_name, signatures, build_dump), the symbol table (Ksyms), the
records and ops (enabled_lines, ops_list, _hash), and the shadow return
stacks (shadow_frames, the unwinder); and the words the walk and the
writers decode (a page's time stamp and first event, a signature's ip,
kinds and sizes, a shadow frame's return address and SP).

Passes when gdb ends normally after the last case, nothing printed an
internal error, a Python exception or traceback, and each bt-* command
either worked or failed with its own error naming the field (the case's
`names`); where the extension knows the exact capacity (ncpus, rb_cpu.n,
ftrace_nrecs, ksyms_count, a hash's mask, ...) or a pointer leaves RAM,
the commands that read the field must fail.  `bt` may stop where gdb's
own unwinder stops: the extension's unwinder declines what it cannot trust.

Port: 1253 (arm64) / 1254 (x86_64), or BT_GDB_PORT_BASE + 4 / + 5.
"""
import json
import os
import re

from gdb_checks import gdb_port

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CMDLINE = ("ftrace=function_graph trace_options=funcgraph-args,funcgraph-retval,"
           "funcgraph-args-string ftrace_filter=demo_main,worker_main,demo_tick,vfs_stat,"
           "path_walk,walk_component,follow_link,dir_lookup,kind_name,inode_size,tree_bytes "
           "trace_buf_size=16k")
PORT = {"arm64": 1253, "x86_64": 1254}
COMMANDS = ["bt-trace", "bt-save-dat", "bt-json", "bt-enabled", "bt-stats", "bt"]

# Values.  P: pointers (NULL, 0xffffffff, one whose end wraps past 2^64, a
# misaligned one into RAM that holds something else).  U32 / U64: counts.
GARBAGE = "(unsigned long)&cpus + 4"
P = ["0", "0xffffffff", "0xfffffffffffffff0", GARBAGE]
U32 = ["0xffffffff", "0x80000000"]
U64 = ["-1", "0xffffffff"]
# Values a command may take in its stride: NULL (many pointers may be
# NULL), 0 (an empty count) and the garbage pointer (what it points at may
# parse).  Every other value of a field with commands to fail must make
# each of them fail.
SOFT = {"0", GARBAGE}

CPU0 = "trace_buffer->cpu[0]"
TAILPG = "((%s->tail >> 25) & 0xffff)" % CPU0
THIS = "cpus[$_thread - 1]"
RS = THIS + ".current->ret_stack"
CUR = "'trace/btf/fsig.c'::cur"
OPS = "ftrace_ops_list"
# The words of CPU 0's tail page, as u32s (trace/ring_buffer/rb_internal.h's struct
# rb_page: u64 time stamp, u64 commit, then the events from word 4).
PAGE0 = "((unsigned int *)%s->pages[%s])" % (CPU0, TAILPG)
# Word k of the innermost shadow frame: w[top - size + k], the size being
# the last word's low half (trace/core/fgraph_frame.h, FR_TAG).
FRAME = "%s->w[%s->top - (unsigned int)%s->w[%s->top - 1] + %%d]" % (RS, RS, RS, RS)
# Which commands read what: the buffer, the dump (buffer, symbols, tracer,
# signatures), the enabled functions.
BUF = ["bt-trace", "bt-save-dat", "bt-json", "bt-stats"]
DUMP = ["bt-trace", "bt-save-dat", "bt-json"]
ENA = ["bt-enabled"]


def _fields():
    """(lvalue, [values], names, commands that must fail[, the values they
    must fail at, if not all but SOFT]): names is a regex their errors (and
    any other bt-* error) must match."""
    f = [
        # buffer_state / ring_cpu
        ("trace_buffer", P, r"trace_buffer", BUF),
        ("trace_buffer->ncpus", U32 + ["17", "0"], r"ncpus", BUF),
        (CPU0, P, r"cpu\[0\]", BUF),
        (CPU0 + "->n", U32 + ["65001", "0"], r"->n\b", BUF),
    ]
    for arr in ("slot", "slot_c", "pstart", "meta", "pages"):
        f.append((CPU0 + "->" + arr, P, arr, BUF))
    f += [
        ("%s->pages[%s]" % (CPU0, TAILPG), P, r"pages\[", BUF),
        ("%s->slot[0]" % CPU0, U64 + ["0xffff"], r"slot|page", []),
        ("%s->slot_c[0]" % CPU0, U64, r"slot_c", []),
        ("%s->pstart[%s]" % (CPU0, TAILPG), U64, r"pstart", []),
        ("%s->meta[%s].real_end" % (CPU0, TAILPG), U32, r"real_end", []),
        ("%s->meta[%s].drops_before" % (CPU0, TAILPG), U64, r"drops_before", []),
        ("%s->meta[%s].entries" % (CPU0, TAILPG), U32, r"entries", []),
        # The page's time stamp, then its first event's header word (type_len
        # 31, 0 (a length word follows), 29 (padding) and 30) and the word
        # after it.
        (PAGE0 + "[0]", ["-1"], r"pages", []),
        (PAGE0 + "[4]", ["-1", "0", "0x1d", "0x1e"], r"pages", []),
        (PAGE0 + "[5]", ["-1", "0"], r"pages", []),
    ]
    for w in ("commit", "tail", "gate", "overrun", "dropped", "read", "unplaced",
              "lost_reported", "reader"):
        f.append((CPU0 + "->" + w, ["-1", "0"] if w in ("commit", "tail") else ["-1"], w, []))
    for w in ("cnt", "head", "ts", "cbase", "pending", "pidx", "off", "valid", "started"):
        f.append((CPU0 + "->rd." + w, ["-1"] if w not in ("valid", "started") else ["1"],
                  r"rd\." + w, []))
    f += [
        ("trace_buffer->record_off", ["-1"], "record_off", []),
        ("trace_buffer->overwrite", ["-1"], "overwrite", []),
        # tracer_name, build_dump
        ("'trace/trace.c'::current_tracer", P, r"current_tracer", DUMP),
        ("'trace/trace.c'::current_tracer->name", P, r"current_tracer->name", DUMP),
        ("'boot/clock.c'::mult", ["0", "-1"], r"mult", []),
        ("trace_opts", ["-1"], r"trace_opts", []),
        ("boot_info.ram_start", ["0", "-1"], r"boot_info", BUF + ENA),
        ("boot_info.heap_end", ["0", "-1"], r"boot_info", BUF + ENA, ["0"]),
        # signatures ($sig: vfs_stat's index, set by tests/gdb/corrupt.py)
        (CUR, P, r"cur\b", DUMP),
        (CUR + "->n", U64 + ["%s->n + 1" % CUR], r"cur->n", DUMP, U64),
        (CUR + "->sigs[$sig].nparams", ["0xff"], r"params", []),
        (CUR + "->sigs[$sig].ip", ["-1", "0"], r"sigs", []),
        (CUR + "->sigs[$sig].ret.kind", ["0xff"], r"ret", []),
        (CUR + "->sigs[$sig].ret.size", ["0xff", "0"], r"ret", []),
        (CUR + "->sigs[$sig].params[0].type.kind", ["0xff"], r"params", []),
        (CUR + "->sigs[$sig].params[0].type.size", ["0xff", "0"], r"params", []),
        (CUR + "->sigs[$sig].params", P, r"params", DUMP),
        (CUR + "->sigs[$sig].params[0].name", P, r"name", DUMP),
        # Ksyms (assembly symbols: no debug info)
        ("*(unsigned long *)&ksyms_count", U64 + ["*(unsigned long *)&ksyms_count + 1"],
         r"ksyms_count", DUMP + ENA),
        ("*(unsigned long *)&ksyms_text_end", ["0", "-1"], r"ksyms", []),
        ("((unsigned int *)&ksyms_name)[0]", ["-1"], r"ksyms", []),
        ("((unsigned long *)&ksyms_addr)[0]", ["-1"], r"ksyms", []),
        # enabled_lines, ops_list, _hash
        ("ftrace_nrecs", U32 + ["ftrace_nrecs + 1"], r"ftrace_nrecs", ENA),
        ("ftrace_recs", P, r"ftrace_recs", ENA),
        ("ftrace_recs[0].flags", ["-1"], r"flags", []),
        ("ftrace_recs[0].off", ["-1"], r"off", []),
        (OPS, P, r"ftrace_ops", ENA),
        (OPS + "->next", P + [OPS], r"ftrace_ops", ENA),
        (OPS + "->flags", ["-1"], r"flags", []),
        (OPS + "->applied_filter_hash", P, r"applied_filter_hash", ENA),
        (OPS + "->applied_filter_hash->mask", U32 + ["0", "0x1f"], r"mask", ENA, U32 + ["0"]),
        (OPS + "->applied_filter_hash->count", U32, r"count", ENA),
        (OPS + "->applied_notrace_hash", P[1:], r"applied_notrace_hash", ENA),
        # shadow_frames, the unwinder (which declines: `bt` goes on)
        (THIS + ".current", P, r"current", []),
        (RS, P, r"ret_stack", []),
        (RS + "->top", U32 + ["2049"], r"top", []),
        ("%s->w[%s->top - 1]" % (RS, RS), ["-1", "0", "%s->top + 1" % RS], r"w\[", []),
        # The innermost frame's return address and entry SP (FR_RET, FR_SP).
        (FRAME % 0, ["-1", "0"], r"w\[", []),
        (FRAME % 2, ["-1", "0"], r"w\[", []),
        (THIS + ".irq_depth", ["-1"], r"irq", []),
    ]
    return f


def cases():
    out = [{"id": "none", "set": [], "names": "^$", "fail": []}]
    for lv, vals, names, fail, *hard in _fields():
        hard = hard[0] if hard else [v for v in vals if v not in SOFT]
        for v in vals:
            out.append({"id": "%s = %s" % (lv, v), "set": [[lv, v]], "names": names,
                        "fail": fail if v in hard else []})
    # Drops counted before the walk's first page on top of a pending count
    # near 2^64: the sum wraps in u64 as the guest's does.
    first = "%s->meta[%s->slot[%s->rd.head %% %s->n] & 0xffff].drops_before" % (
        CPU0, CPU0, CPU0, CPU0)
    out.append({"id": "rd.pending = -1, %s = -1" % first,
                "set": [[CPU0 + "->rd.pending", "-1"], [first, "-1"]],
                "names": r"pending|drops_before", "fail": []})
    # The reader's cursor inside a page whose committed bytes (a writer
    # inside: the commit word's) run past the page's data.
    out.append({"id": "a writer inside, commit = -1, rd on its page at offset 4085",
                "set": [[CPU0 + "->gate", "1"], [CPU0 + "->commit", "-1"],
                        [CPU0 + "->rd.valid", "1"], [CPU0 + "->rd.cnt", "0xfffffffffffff"],
                        [CPU0 + "->rd.off", "4085"]],
                "names": r"commit|rd\.", "fail": []})
    # An interrupt stack is read only with irq_depth set: both at once.
    irq = "'trace/core/fgraph.c'::irq_stacks[$_thread - 1]"
    for v in P:
        out.append({"id": "irq_depth = 1, %s = %s" % (irq, v),
                    "set": [[THIS + ".irq_depth", "1"], [irq, v]], "names": r"irq_stacks",
                    "fail": []})
    for v in U32:
        out.append({"id": "irq_depth = 1, %s->top = %s" % (irq, v),
                    "set": [[THIS + ".irq_depth", "1"], [irq + "->top", v]], "names": r"top",
                    "fail": []})
    return out


BAD = re.compile(r"internal-error|Traceback|Python Exception|Error occurred in Python|"
                 r"Recursive internal problem|Aborted|core dumped|MemoryError")


def check_output(out, all_cases):
    """[problem lines] of the driver's output (empty: all well)."""
    problems = []
    m = re.search(r"^==== done (\d+)$", out, re.M)
    if not m or int(m.group(1)) != len(all_cases):
        problems.append("gdb did not reach the end of the %d cases (%s)" % (
            len(all_cases), "done %s" % m.group(1) if m else "no end marker"))
    blocks = re.split(r"^==== case ", out, flags=re.M)[1:]
    by_id = {c["id"]: c for c in all_cases}
    seen = set()
    for b in blocks:
        lines = b.split("\n")
        cid = lines[0]
        case = by_id.get(cid)
        if case is None:
            problems.append("unknown case %r" % cid)
            continue
        seen.add(cid)
        body = "\n".join(lines[1:]).split("==== done", 1)[0]
        for bad in BAD.finditer(body):
            problems.append("%s: %r in its output" % (cid, bad.group(0)))
        results = dict(re.findall(r"^== ([\w-]+): (.*)$", body, re.M))
        if "setup" in results:
            problems.append("%s: could not set: %s" % (cid, results["setup"]))
            continue
        for cmd in COMMANDS:
            r = results.get(cmd)
            if r is None:
                problems.append("%s: %s did not run" % (cid, cmd))
            elif cmd in case["fail"] and not r.startswith("error: "):
                problems.append("%s: %s worked: it must fail naming /%s/" % (
                    cid, cmd, case["names"]))
            elif r == "ok" or cmd == "bt":
                continue
            elif not r.startswith("error: %s: " % cmd) or "a bug in it" in r:
                problems.append("%s: %s: not its own error: %s" % (cid, cmd, r))
            elif not re.search(case["names"], r[len("error: %s: " % cmd):]):
                problems.append("%s: %s: the error names no field /%s/: %s" % (
                    cid, cmd, case["names"], r))
    for c in all_cases:
        if c["id"] not in seen:
            problems.append("%s: no output" % c["id"])
    return problems


def gdb_corrupt_checks(arch, run, report, kernel, logs):
    d = os.path.join(logs, "gdb-%s-corrupt" % arch)
    os.makedirs(d, exist_ok=True)
    all_cases = cases()
    cases_file = os.path.join(d, "cases.json")
    with open(cases_file, "w") as f:
        json.dump(all_cases, f, indent=1)
    rc, out, secs = run(["tools/qemu-run.sh", arch, kernel, CMDLINE], 300,
                        env={"GDB": "1", "GDB_PORT": gdb_port(arch, PORT[arch], 4),
                             "GDB_BATCH": "tests/gdb/corrupt.py",
                             "SERIAL_LOG": os.path.join(d, "serial.log"), "SMP": "2",
                             "BT_GDB_OUT": d, "BT_CORRUPT_CASES": cases_file})
    with open(os.path.join(d, "gdb.log"), "w") as f:
        f.write(out)
    problems = check_output(out, all_cases)
    if rc != 0:
        problems.insert(0, "gdb ended with status %d" % rc)
    report(not problems, "%s gdb on corrupt guest state: %d cases (each count and pointer the "
           "extension reads), every bt-* command and bt: a bt-* error naming the field or a "
           "result, never an internal error or traceback (%.0fs)" % (arch, len(all_cases), secs),
           "\n".join(problems[:60]) + "\n(log: %s)" % os.path.join(d, "gdb.log"))


def main():
    import argparse
    import subprocess
    import sys
    import checklib
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", action="append")
    a = ap.parse_args()
    results = []
    report = checklib.reporter(results)
    for arch in a.arch or ["arm64", "x86_64"]:
        p = subprocess.run(["make", "-s", "--no-print-directory", "ARCH=" + arch, "kernel"],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            report(False, "%s kernel builds" % arch, p.stdout.decode())
            continue
        gdb_corrupt_checks(arch, checklib.run, report, "build/%s/kernel.elf" % arch,
                           os.path.join(ROOT, "build", "gdb-checks"))
    print("%d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
