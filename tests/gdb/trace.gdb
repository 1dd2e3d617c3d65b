# tests/checks/gdb_checks.py, workload case: stop after the traced workload, just
# before the guest prints its own `cat trace`, and read the tracer with the
# extension (tools/gdb/baretrace.py); then let the guest print and power off.
# Outputs go to $BT_GDB_OUT (gdb's working directory from here on).
python import os; gdb.execute("cd " + os.environ["BT_GDB_OUT"])
break trace_print_all
continue
bt-trace bt-trace.txt
bt-save-dat bt.dat
bt-json bt.json
echo ==== bt-enabled\n
bt-enabled
echo ==== bt-stats\n
bt-stats
echo ==== end\n
delete
continue
