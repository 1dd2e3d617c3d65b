# tests/checks/gdb_checks.py, mid-run case: stop inside the traced workload, in a
# ring-buffer write (the 21st call of rb_reserve_slow: a writer is inside a
# reservation on that CPU; the other vCPU is wherever it was), read the
# trace, then let the guest finish and print its own `cat trace`.
# Outputs go to $BT_GDB_OUT.
python import os; gdb.execute("cd " + os.environ["BT_GDB_OUT"])
break rb_reserve_slow
ignore 1 20
continue
delete
bt-trace bt-trace.txt
bt-save-dat bt.dat
echo ==== bt-stats\n
bt-stats
echo ==== end\n
continue
