# callprof.py — gdb script: where one traced call's instructions go.
#
# Counts the instructions of one warm call of bench_fn (tests/bench/
# bench_ftrace.c) per function, while a mechanism is attached.  TRIGGER (env)
# names a function that runs only then (e.g. ftrace_ops_list_func,
# function_trace_call, graph_ops_func); the script stops there twice (the
# second call is warm), then single-steps one call from call_loop's call of
# bench_fn to its return.  DUMP=f1,f2 also prints every instruction of those.
#
#   echo 'source tools/callprof.py' > /tmp/cp.gdb
#   TRIGGER=function_trace_call GDB=1 GDB_BATCH=/tmp/cp.gdb SMP=1 \
#       tools/qemu-run.sh arm64 build/arm64/kernel.elf bt.bench=ftrace_calls
#
# The total includes bench_fn's own instructions (about 5-7): subtract them
# to compare with the bench's per-call figures.
import collections
import os

import gdb

trigger = os.environ.get("TRIGGER", "ftrace_ops_list_func")
dump = set(filter(None, os.environ.get("DUMP", "").split(",")))
gdb.execute("set pagination off")
gdb.execute("set confirm off")
bp = gdb.Breakpoint(trigger, internal=True)
gdb.execute("continue")
gdb.execute("continue")
bp.delete()

callpc = None
for line in gdb.execute("disassemble call_loop", to_string=True).splitlines():
    words = line.split()
    if "<bench_fn>" in line and ("bl" in words or "call" in words):
        callpc = int(next(w for w in words if w.startswith("0x")), 16)
        break
if callpc is None:
    raise gdb.GdbError("no call of bench_fn in call_loop")
gdb.execute("tbreak *%d" % callpc)
gdb.execute("continue")
insn_len = 4 if "aarch64" in gdb.selected_inferior().architecture().name() else 5
after = callpc + insn_len


def symbol(pc):
    s = gdb.execute("info symbol %d" % pc, to_string=True).split()
    return s[0] if s and s[0] != "No" else hex(pc)


counts = collections.OrderedDict()
seq = []
n = 0
while n < 5000:
    gdb.execute("stepi", to_string=True)
    pc = int(gdb.parse_and_eval("$pc"))
    if pc == after:
        break
    n += 1
    s = symbol(pc)
    counts[s] = counts.get(s, 0) + 1
    if seq and seq[-1][0] == s:
        seq[-1][1] += 1
    else:
        seq.append([s, 1])
    if s in dump:
        print("PC", gdb.execute("x/i %d" % pc, to_string=True).strip())
print("TOTAL (the call instruction excluded):", n)
for k, v in counts.items():
    print("  %-40s %d" % (k, v))
print("SEQ:", " > ".join("%s:%d" % (a, b) for a, b in seq))
gdb.execute("kill")
