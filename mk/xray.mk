# mk/xray.mk — the XRay backend (included by the Makefile for INSTR=xray:
# `make qemu-arm64 INSTR=xray`, which implies CC=clang).
#
# Traced files get clang's XRay sleds instead of patchable function
# entries: an entry sled at each function, an exit sled before each `ret`
# and a tail sled before each tail-call jump, listed in section
# xray_instr_map (one 32-byte entry per sled; docs/TOOLCHAIN-NOTES.md and
# patch/DESIGN.md "XRay sleds").  -fxray-instruction-threshold=1: every
# function, however small.  No compiler-rt runtime is linked: the sled
# table (trace/core/records.c), the sleds' patching (arch/ARCH/patch.c) and the
# handlers are baretrace's.  The tracer's own files keep NOFP_CFLAGS
# without any instrumentation, and notrace (lib/compiler.h) says
# xray_never_instrument to clang.
ifeq ($(CLANG),)
$(error INSTR=xray needs clang (CC=$(CC)): leave CC out, or give CC=clang)
endif
# arm64: functions 8-aligned, so the data word inside the entry sled
# (func + 16, arch/arm64/patch.c) is an aligned 64-bit literal.
INSTR_CFLAGS := -fxray-instrument -fxray-instruction-threshold=1 \
	$(if $(filter arm64,$(ARCH)),-falign-functions=8)
# Generic code and the arch's assembly know the backend by this define.
ARCH_CFLAGS  += -DBT_INSTR_XRAY=1
# Suites `xray` and `xray_refuse` (the sled table, sleds switched together,
# refusal): only this backend has sleds.
INSTR_TEST_SRCS := tests/guest/test_xray.c tests/guest/test_xgraph.c
