# tests/checks/gdb_checks.py, states case: bt.test=gdb_states registers every kind
# of site state at once (tests/guest/fixtures/gdb_states.c), prints the guest's
# own enabled_functions, and calls gdb_states_stop: stop there, list with
# the extension, and let the test undo it all.
break gdb_states_stop
continue
echo ==== bt-enabled\n
bt-enabled
echo ==== end\n
delete
continue
