# tests/checks/checks_xapp.py, gdb case: the INSTR=xray APP under
# function_graph (the trace stack: no return address is rewritten).  Stop in
# parse_string, deep in the traced calls, and unwind with gdb's own `bt`
# (hbreak: the sleds are patched while gdb's breakpoints are in, a software
# one would be bytes the patcher does not expect); then `bt` in the timer
# interrupt, through the exception entry into the interrupted code; then,
# after the APP, read the tracer with the extension (tools/gdb/baretrace.py)
# and let the guest print its own `cat trace` and power off.
python import os; gdb.execute("cd " + os.environ["BT_GDB_OUT"])
hbreak parse_string
continue
echo ==== bt\n
bt 12
echo ==== end\n
delete
hbreak timer_interrupt
continue
echo ==== irq bt\n
bt 40
echo ==== irq end\n
delete
break trace_print_all
continue
bt-trace bt-trace.txt
bt-json bt.json
delete
continue
