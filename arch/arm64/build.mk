# arch/arm64/build.mk — arm64 build and QEMU parameters (included by the Makefile).
CROSS        := aarch64-linux-gnu-
ARCH_CFLAGS  := -march=armv8-a -mcpu=cortex-a72 -mno-outline-atomics
# Patchable entry: two NOPs before the symbol (per-site ops pointer), two at entry.
INSTR_CFLAGS := -fpatchable-function-entry=4,2
# Tracer, arch and low-level code: no patchable entry, no FP/SIMD registers.
NOFP_CFLAGS  := -mgeneral-regs-only
ARCH_SRCS    :=
