# arch/arm64/build.mk — arm64 build and QEMU parameters (included by the Makefile).
CROSS        := aarch64-linux-gnu-
# -falign-loops=1: no padding before a loop's head, which code falling into
# the loop executes; the entry's NOPs shift where it lands (x86_64/build.mk).
ARCH_CFLAGS  := -march=armv8.2-a -mcpu=cortex-a76 -mno-outline-atomics -mno-omit-leaf-frame-pointer \
	-falign-loops=1
# Patchable entry: two NOPs before the symbol (per-site ops pointer), two at entry;
# functions 8-aligned so that the ops pointer is (arch/arm64/patch.c).
INSTR_CFLAGS := -fpatchable-function-entry=4,2 -falign-functions=8
# Tracer, arch and low-level code: no patchable entry, no FP/SIMD registers,
# and no jump tables (an indirect branch tools/check-nofp.py could not follow).
NOFP_CFLAGS  := -mgeneral-regs-only -fno-jump-tables
# Code that runs before the MMU is on (Device memory: an unaligned access
# faults): the compiler must not merge or widen loads and stores.  A flag,
# not `#pragma GCC target`, which clang ignores.
EARLY_SRCS   := arch/arm64/setup.c arch/arm64/mmu.c arch/arm64/fdt.c
EARLY_CFLAGS := -mstrict-align
ARCH_SRCS    := arch/arm64/entry.S arch/arm64/fgraph.S arch/arm64/vectors.S arch/arm64/switch.S \
	arch/arm64/setup.c arch/arm64/fdt.c arch/arm64/mmu.c \
	arch/arm64/uart.c arch/arm64/gic.c arch/arm64/timer.c arch/arm64/irq.c \
	arch/arm64/smp.c arch/arm64/psci.c arch/arm64/power.c arch/arm64/fault.c \
	arch/arm64/thread.c arch/arm64/text_poke.c arch/arm64/patch.c arch/arm64/tramp.c \
	arch/arm64/ftrace_tramp.S arch/arm64/rtc.c
# The arch's own tests and the test support tests/guest calls (arch/tests.h),
# built as arch code (no patchable entries, NOFP_CFLAGS).
ARCH_TEST_SRCS := arch/arm64/tests/fpu_test.S arch/arm64/tests/direct_test.S \
	arch/arm64/tests/list_test.S arch/arm64/tests/ftrace_selftest.c arch/arm64/tests/ftrace_selftest.S
