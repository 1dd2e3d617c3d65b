# tests/checks/gdb_checks.py, direct case: bt.test=direct_gdb registers a direct
# trampoline on dt_gdb and dt_gdb_alone, a callback ops on dt_gdb and a
# SAVE_REGS ops on dt_gdb_regs (its own trampoline), prints
# the guest's own enabled_functions, and calls direct_gdb_stop: stop there,
# list with the extension, and let the test finish.
break direct_gdb_stop
continue
echo ==== bt-enabled\n
bt-enabled
echo ==== end\n
delete
continue
