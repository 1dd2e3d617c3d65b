# tests/checks/gdb_checks.py, crash case: the guest panicked (bt.test=crash_panic);
# stop on the way to power off, after the panic report, and read the trace
# left in the buffer.  Outputs go to $BT_GDB_OUT.
python import os; gdb.execute("cd " + os.environ["BT_GDB_OUT"])
break arch_poweroff
continue
bt 3
bt-trace bt-trace.txt
bt-save-dat bt.dat
echo ==== bt-stats\n
bt-stats
echo ==== end\n
