# tests/checks/gdb_checks.py, hooked-return case: stop inside functions whose
# returns function_graph hooked and unwind: the extension's unwinder takes
# gdb from the return hook to the real callers (tools/gdb/baretrace.py).
break dir_lookup
continue
echo ==== bt\n
bt 12
echo ==== end\n
kill
