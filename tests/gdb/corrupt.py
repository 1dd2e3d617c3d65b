# tests/checks/checks_gdb_corrupt.py's gdb side (run by gdb -x: GDB_BATCH).
# Stops where the hooked-return case does (dir_lookup, with hooked frames
# on the stopped thread's shadow stack), then for each case of the JSON
# list in $BT_CORRUPT_CASES: writes the corrupt values into guest memory,
# runs every bt-* command and `bt`, prints what each did, and writes the
# old bytes back.  The guest never runs while anything is corrupt.
#
# A case: {"id": str, "set": [[lvalue, value], ...]}, both gdb expressions;
# every lvalue's address and every value are evaluated before the first
# write, so a case may corrupt what a later lvalue's expression reads.
# $sig is vfs_stat's index in the signature table (set_sig).
# Output, for the checker:
#   ==== case ID
#   == CMD: ok            or   == CMD: error: MESSAGE
#   | a line CMD printed (bt's frames, notes on stderr)
#   ==== done N
import json
import os

import gdb

COMMANDS = ["bt-trace bt-trace.txt", "bt-save-dat bt.dat", "bt-json bt.json", "bt-enabled",
            "bt-stats", "bt 12"]


def out(s):
    gdb.write(s + "\n")
    gdb.flush()


def run_commands():
    for c in COMMANDS:
        name = c.split()[0]
        try:
            text = gdb.execute(c, to_string=True)
            out("== %s: ok" % name)
        except gdb.error as e:
            text = ""
            out("== %s: error: %s" % (name, str(e).replace("\n", " | ")))
        if name == "bt" or "bt: " in text or "Python" in text or "rror" in text:
            for line in text.splitlines()[:40]:
                if name == "bt" or not line.startswith(("#", " ")):
                    out("| " + line)


def clear_caches():
    """gdb's frames (else `bt` shows the unwind of before the write) and
    the extension's symbol table."""
    gdb.invalidate_cached_frames()
    import __main__
    ks = getattr(__main__, "Ksyms", None)
    if ks is not None:
        ks._cache.clear()


def one_case(case):
    inf = gdb.selected_inferior()
    writes = []
    for lv, val in case["set"]:
        v = gdb.parse_and_eval(lv)
        addr, size = int(v.address), v.type.sizeof
        new = int(gdb.parse_and_eval(val)) & ((1 << (8 * size)) - 1)
        writes.append((addr, size, new.to_bytes(size, "little")))
    old = [(a, bytes(inf.read_memory(a, s))) for a, s, _ in writes]
    try:
        for a, _, b in writes:
            inf.write_memory(a, b)
        clear_caches()
        run_commands()
    finally:
        for a, b in reversed(old):
            inf.write_memory(a, b)
        clear_caches()


def set_sig(fn):
    """$sig = the index of fn's signature in the loaded table (its params
    are what the trace of fn's entry reads): the last ip at or below fn's
    address (a signature's ip is the symbol's, before arm64's entry NOPs)."""
    cur = "'trace/btf/fsig.c'::cur"
    ip = int(gdb.parse_and_eval("(unsigned long)%s" % fn))
    lo, hi = 0, int(gdb.parse_and_eval(cur + "->n"))
    while lo < hi:
        mid = (lo + hi) // 2
        if int(gdb.parse_and_eval("%s->sigs[%d].ip" % (cur, mid))) <= ip:
            lo = mid + 1
        else:
            hi = mid
    name = gdb.parse_and_eval("%s->sigs[%d].name" % (cur, lo - 1)).string()
    if name != fn:
        raise gdb.GdbError("no signature of %s loaded (%s)" % (fn, name))
    gdb.execute("set $sig = %d" % (lo - 1))


def main():
    gdb.execute("set python print-stack full")
    gdb.execute("cd " + os.environ["BT_GDB_OUT"])
    with open(os.environ["BT_CORRUPT_CASES"]) as f:
        cases = json.load(f)
    gdb.execute("break dir_lookup if cpus[$_thread - 1].current->ret_stack->depth >= 3")
    gdb.execute("continue")
    gdb.execute("delete")
    set_sig("vfs_stat")
    n = 0
    for case in cases:
        out("==== case %s" % case["id"])
        try:
            one_case(case)
        except gdb.error as e:
            out("== setup: error: %s" % e)
        n += 1
    out("==== done %d" % n)
    gdb.execute("kill")


main()
