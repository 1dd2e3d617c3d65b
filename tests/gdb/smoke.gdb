# Attach to a guest halted at reset, stop in the demo, and read its state:
# tests/run.py checks the backtrace, a global, and one thread per vCPU.
break demo_main
continue
bt 3
print ncpus
info threads
