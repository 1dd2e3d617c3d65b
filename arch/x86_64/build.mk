# arch/x86_64/build.mk — x86-64 build and QEMU parameters (included by the Makefile).
CROSS        :=
# -falign-loops=1 (Linux builds x86-64 so too): no padding before a loop's
# head, which code falling into the loop executes.  Where it lands depends on
# the layout, which the entry's 5 bytes shift: it put one NOP per call into
# the demo's name_hash, 28% of site_disabled_ratio's excess (docs/PERFORMANCE.md).
ARCH_CFLAGS  := -m64 -march=x86-64 -mno-red-zone -mcmodel=small -falign-loops=1
# Patchable entry: five one-byte NOPs at each function's entry, recorded in
# __patchable_function_entries; boot makes them one 5-byte NOP (patch.c).
# Not -pg -mfentry: -pg gives every function a frame, leaf functions included,
# which costs more than the NOP itself (docs/PERFORMANCE.md, site_disabled_ratio).
INSTR_CFLAGS := -fpatchable-function-entry=5
# Tracer, arch and low-level code: no FP/SIMD registers, and no jump tables
# (an indirect jump tools/check-nofp.py could not follow).
NOFP_CFLAGS  := -mno-sse -mno-mmx -mno-80387 -fno-jump-tables
ARCH_SRCS    := arch/x86_64/entry.S arch/x86_64/fgraph.S arch/x86_64/vectors.S arch/x86_64/trampoline.S \
	arch/x86_64/switch.S arch/x86_64/boot.c arch/x86_64/cpu.c \
	arch/x86_64/trap.c arch/x86_64/mmu.c arch/x86_64/acpi.c arch/x86_64/tsc.c \
	arch/x86_64/lapic.c arch/x86_64/ioapic.c arch/x86_64/uart.c arch/x86_64/smp.c \
	arch/x86_64/thread.c arch/x86_64/power.c \
	arch/x86_64/text_poke.c arch/x86_64/patch.c arch/x86_64/ftrace.c \
	arch/x86_64/ftrace_tramp.S arch/x86_64/rtc.c
# The arch's own tests and the test support tests/guest calls (arch/tests.h),
# built as arch code (no patchable entries, NOFP_CFLAGS).
ARCH_TEST_SRCS := arch/x86_64/tests/fpu_test.S arch/x86_64/tests/direct_test.S \
	arch/x86_64/tests/list_test.S arch/x86_64/tests/ftrace_selftest.c
