# arch/x86_64/build.mk — x86-64 build and QEMU parameters (included by the Makefile).
CROSS        :=
ARCH_CFLAGS  := -m64 -march=x86-64 -mno-red-zone -mcmodel=small
# Patchable entry: a 5-byte NOP at each function's entry, recorded in __mcount_loc.
INSTR_CFLAGS := -pg -mfentry -mrecord-mcount -mnop-mcount
# Tracer, arch and low-level code: no FP/SIMD registers.
NOFP_CFLAGS  := -mno-sse -mno-mmx -mno-80387
ARCH_SRCS    :=
