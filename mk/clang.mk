# mk/clang.mk — what building with clang changes (included by the Makefile
# when $(CC) is clang: `make qemu-arm64 CC=clang`).  Checked with clang 14.0.6
# (Debian 12); docs/TOOLCHAIN-NOTES.md "clang 14 as the kernel's compiler".
#
# The target is the Linux triple, not *-none-elf: the same ABI and ELF as
# the GCC cross compiler's objects (newlib and libgcc stay built by GCC and
# link unchanged), and the triple clang accepts -fxray-instrument for.
# Everything else in build.mk means the same to clang: -mcpu, -march,
# -mno-outline-atomics, -mno-omit-leaf-frame-pointer, -mgeneral-regs-only,
# -mno-sse -mno-mmx -mno-80387, -fno-jump-tables, -fpatchable-function-entry
# (same section, same recorded address; x86-64's site is one 5-byte NOP
# where GCC writes five 1-byte NOPs, arch/x86_64/patch.c takes both).
CLANG_TARGET := $(if $(filter arm64,$(ARCH)),aarch64-linux-gnu,x86_64-linux-gnu)
ARCH_CFLAGS  := --target=$(CLANG_TARGET) $(ARCH_CFLAGS)
# .S files through GNU as, as with GCC (the Makefile's .S rule): the
# hand-written code keeps the same bytes whichever compiler drives it, and
# its DWARF has line tables only (the integrated assembler adds DW_TAG_label
# entries that pahole reports as unsupported on every build).
ASM_CFLAGS   := -fno-integrated-as
# The files of the tracer's FTRACE_HOT_NOFP callbacks (the function and
# function_graph tracers') build their leaf functions without a frame
# record, as GCC builds those callbacks (FTRACE_NOFP_NOFRAME,
# trace/core/ftrace.h: a per-function switch clang does not have).  The
# callbacks call out only through register-preserving thunks (an asm call),
# so to clang they are leaves: x86-64 keeps rbp free and loses the
# push/mov/pop, arm64 saves x30 alone.  Non-leaf functions keep their
# records; a backtrace taken inside a leaf goes on from its caller's caller
# (INSTR=xray graph_call -4 / -8: docs/PERFORMANCE.md, issue 20).  fgraph.c
# too: the exit sled's ftrace_sled_exit only tail-calls, a leaf to clang
# (INSTR=xray graph_call -3 / -3).
NOFRAME_SRCS   := trace/tracers/function.c trace/tracers/function_graph.c trace/core/fgraph.c
NOFRAME_CFLAGS := -momit-leaf-frame-pointer
