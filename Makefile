# baretrace — the only build entry.
#
#   make qemu-arm64 | qemu-x86_64    build and boot (SMP, MEM, CMDLINE, APP, ACCEL)
#   make test                         every test, ends with "N passed, N failed"
#   make bench                        the performance table (docs/PERFORMANCE.md)
#   make gdb-arm64 | gdb-x86_64       boot halted under QEMU's gdbstub, attach gdb
#   make deps                         install packages, build newlib (idempotent)
#   make clean
#
# Internally the per-arch targets re-enter this Makefile with ARCH set; all
# outputs go under build/.

SMP     ?= 4
MEM     ?= 512M
# The default run (issue 6, "default experience"): the demo traced by
# function_graph with typed arguments and return values, the demo's own
# functions only, in a flight-recorder buffer small enough to read.
DEMO_FUNCS := demo_main,worker_main,demo_tick,vfs_stat,path_walk,walk_component,follow_link,dir_lookup,kind_name,inode_size,tree_bytes
CMDLINE ?= ftrace=function_graph trace_options=funcgraph-args,funcgraph-retval,funcgraph-args-string \
	ftrace_filter=$(DEMO_FUNCS) trace_buf_size=16k
# CMDLINE reaches the guest byte for byte (quotes, $, backslashes, runs of
# blanks): a value given on make's command line or in the environment is
# taken unexpanded, and goes to tools/qemu-run.sh through the environment
# (BT_CMDLINE), never through a shell's word splitting.  CMDLINE itself is
# not exported (make would expand it for that).
ifneq ($(filter command line environment environment override,$(origin CMDLINE)),)
BT_CMDLINE := $(value CMDLINE)
else
BT_CMDLINE := $(CMDLINE)
endif
export BT_CMDLINE
unexport CMDLINE
APP     ?=
ACCEL   ?= tcg
ARCH    ?= arm64

.DEFAULT_GOAL := help
.PHONY: help deps qemu-arm64 qemu-x86_64 gdb-arm64 gdb-x86_64 test test-host bench \
	kernel run gdb clean print-kernel print-initrd

help:
	@sed -n '3,9p' Makefile | sed 's/^# \{0,1\}//'

DEPS_STAMP := build/.deps-packages
deps: $(DEPS_STAMP)
	@tools/deps.sh newlib arm64 >/dev/null
	@tools/deps.sh newlib x86_64 >/dev/null
$(DEPS_STAMP): tools/deps.sh
	@tools/deps.sh packages
	@mkdir -p build && touch $@

# The run is this recipe's last command, not a sub-make's, so make's
# error line names its status ("Error 124"); make itself exits 2 for any
# failure.  tools/make-run exits with the run's own status (BT_RUN_STATUS:
# a file the recipe writes it to).
qemu-arm64 qemu-x86_64: qemu-%: deps
	@$(MAKE) --no-print-directory ARCH=$* kernel
	@$(call qemu_run,$*,$(call bdir,$*))

gdb-arm64 gdb-x86_64: gdb-%: deps
	@$(MAKE) --no-print-directory ARCH=$* kernel
	@GDB=1 $(call qemu_run,$*,$(call bdir,$*))

test: deps
	@tests/run.py

bench: deps
	@tools/bench.py

test-host: deps
	@$(MAKE) --no-print-directory -C tests/host

clean:
	rm -rf build

# ---------------------------------------------------------------- one arch --

include arch/$(ARCH)/build.mk      # CROSS, ARCH_CFLAGS, ARCH_SRCS, ARCH_TEST_SRCS, INSTR_CFLAGS, QEMU_*

NEWLIB   := $(shell tools/deps.sh newlib $(ARCH) 2>/dev/null)
CC       := $(CROSS)gcc
LD       := $(CROSS)ld
OBJCOPY  := $(CROSS)objcopy
NM       := $(CROSS)nm
# INSTR=xray: the instrumentation backend is clang's XRay sleds (mk/xray.mk);
# it needs clang, so it implies CC=clang unless CC is given.
INSTR    ?=
ifeq ($(INSTR),xray)
ifneq ($(origin CC),command line)
CC       := clang
endif
else ifneq ($(INSTR),)
$(error INSTR=$(INSTR): the backends are the default (empty: patchable function entries) and xray)
endif
# make test and make bench build and run both backends themselves; an INSTR
# given to them would reach every build they start (MAKEFLAGS) and measure
# or test INSTR=xray under the default's name.
ifneq ($(INSTR),)
ifneq ($(filter test bench,$(MAKECMDGOALS)),)
$(error INSTR=$(INSTR) with make $(filter test bench,$(MAKECMDGOALS)): it runs both backends itself (the xray group, the xray_* figures); run it without INSTR)
endif
endif
# CC=clang (or clang-14, a path to one): its flags in mk/clang.mk, its own
# build directory; the linker, newlib and libgcc stay GCC's.
CLANG    := $(findstring clang,$(notdir $(CC)))
ifneq ($(CLANG),)
include mk/clang.mk
endif
ifeq ($(INSTR),xray)
include mk/xray.mk
endif
LIBGCC   := $(shell $(CROSS)gcc -print-libgcc-file-name 2>/dev/null)

APPTAG   := $(if $(APP),-app-$(shell echo '$(abspath $(APP))' | md5sum | cut -c1-8))
# NOINSTR=1: the same kernel without patchable entries (bench baseline).
ifneq ($(NOINSTR),)
INSTR_CFLAGS :=
endif
# BENCH_FUNCS=1: link 50,000 generated functions for the patching benchmark.
bdir      = build/$(1)$(if $(CLANG),-clang)$(if $(INSTR),-$(INSTR))$(APPTAG)$(if $(NOINSTR),-noinstr)$(if $(BENCH_FUNCS),-bf)
B        := $(call bdir,$(ARCH))
# OB, the objects' directory: B, but BENCH_FUNCS=1 with the default backend
# links the objects of the build without it (the same flags: make test has
# built them before its bench group).  INSTR=xray's keep their own: make
# test's xray group builds that directory while the bench runs.
OB       := $(if $(BENCH_FUNCS),$(if $(INSTR),$(B),$(patsubst %-bf,%,$(B))),$(B))

CFLAGS_BASE := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Werror \
	-ffreestanding -fno-pic -fno-pie -fno-stack-protector -fno-omit-frame-pointer \
	-fno-common -I. -Iarch/$(ARCH) -isystem $(NEWLIB)/include $(ARCH_CFLAGS) -MMD -MP

# Generic sources.  Files under arch/, trace/, patch/ and the ones listed in
# NOTRACE_SRCS are built without patchable entries: the tracer and everything
# it calls must never reach a site.
BOOT_SRCS := boot/main.c boot/console.c boot/kprintf.c boot/panic.c boot/fault.c \
	boot/irq.c boot/smp.c boot/sched.c boot/clock.c boot/ksyms.c boot/cmdline.c \
	boot/selftest.c boot/shell.c boot/bench.c boot/stack.c
LIB_SRCS  := lib/newlib_glue.c lib/heap.c lib/glob.c lib/failalloc.c lib/fs.c lib/initrd.c \
	lib/timekeeping.c
TRACE_SRCS := trace/ring_buffer/ring_buffer.c trace/ring_buffer/rb_event.c trace/ring_buffer/rb_read.c trace/ring_buffer/rb_setup.c \
	trace/core/records.c trace/core/hash.c trace/core/listvec.c trace/core/ftrace.c trace/core/direct.c trace/core/update.c trace/core/enabled_functions.c trace/trace.c trace/tracers/function.c \
	trace/global_ops.c trace/marker.c trace/output.c trace/tracefs/tracefs.c trace/tracers/function_graph_output.c trace/core/fgraph.c trace/options.c trace/tracers/function_graph.c trace/tracefs/cmdparse.c
PATCH_SRCS := patch/patch.c patch/tramp.c
DEMO_SRCS := demo/demo.c demo/vfs.c
# Suite ftrace spans test_ftrace.c, _regs, _live and _recl (its cases run in
# this order: file by file in link order) with their helpers, ftrace_harness.c.
TEST_SRCS := tests/guest/test_boot.c tests/guest/test_sched.c tests/guest/test_mem.c \
	tests/guest/test_ring_buffer.c tests/guest/test_rb_files.c tests/guest/test_ftrace.c \
	tests/guest/test_ftrace_regs.c tests/guest/test_ftrace_live.c tests/guest/test_ftrace_recl.c \
	tests/guest/ftrace_harness.c \
	tests/guest/test_fgraph.c tests/guest/test_fgraph_solo.c tests/guest/test_graph.c \
	tests/guest/test_rb_delta.c tests/guest/test_fn_entry.c \
	tests/guest/irq_probe.c \
	tests/bench/bench_basic.c tests/bench/bench_ftrace.c \
	tests/bench/bench_ring_buffer.c
# What the function-graph return hook calls (trace/core/fgraph_hooks.h) and its suite.
TEST_SRCS  += tests/guest/test_fgraph_hook.c
# function_graph's exit event header (issue 23) and its suite.
TEST_SRCS  += tests/guest/test_graph_exit.c
# function_graph's site callback after the tracer stopped, and its entry
# event header (issue 23): their suites.
TEST_SRCS  += tests/guest/test_graph_stop.c tests/guest/test_graph_entry.c
# Function signatures from BTF (trace/btf/btf.h, trace/btf/fsig.h) and their suite.
TRACE_SRCS += trace/btf/btf.c trace/btf/fsig.c
TEST_SRCS  += tests/guest/test_btf.c tests/guest/btf_twin.c
# The function profiler and fprobes (trace/tracers/profile.h, trace/core/fprobe.h) and their suites.
TRACE_SRCS += trace/tracers/profile.c trace/core/fprobe.c
TEST_SRCS  += tests/guest/test_profile.c tests/guest/test_fprobe.c

# set_ftrace_filter's traceon/traceoff commands (trace/func_cmd.h) and their suite.
TRACE_SRCS += trace/func_cmd.c
# The trace stack: function_graph without return hooks (trace/core/tstack.h) and its suite.
TRACE_SRCS += trace/core/tstack.c
TEST_SRCS  += tests/guest/test_tstack.c
TEST_SRCS  += tests/guest/test_func_cmd.c

# Dumps (trace/dump.h): the framed binary dump, ftrace_dump_on_oops, traceoff_on_warning.
TRACE_SRCS += trace/dump.c
TEST_SRCS  += tests/guest/test_dump.c

# What the owners register (trace/DESIGN.md, "Owners register their parts"): its suite.
TEST_SRCS  += tests/guest/test_registry.c

# Allocation-failure injection (lib/failalloc.h) and the suite that fails
# every allocation of the tracer's operations in turn.
TEST_SRCS  += tests/guest/test_enomem.c tests/guest/enomem_harness.c
# Direct trampolines: what they do (test_direct.c, with the site's data word), the
# rules and refusals of what they take (test_direct_rules.c), shared helpers.
TEST_SRCS  += tests/guest/test_direct.c tests/guest/test_direct_rules.c tests/guest/direct_harness.c tests/guest/listing.c
# The regs list caller's list function, reached by an old site's call.
TEST_SRCS  += tests/guest/test_list_regs.c
# Suite arch_ftrace's cases both arches share (after the arch's own, which
# ARCH_TEST_SRCS links first).
TEST_SRCS  += tests/guest/test_arch_ftrace.c
# function_graph with set_ftrace_filter's commands, and its last user
# leaving while a thread is inside: one exact outcome for both backends.
TEST_SRCS  += tests/guest/test_graph_edges.c
# funcgraph-args without funcgraph-args-string: the stack words by
# fsig_filter alone, and that filter exact for the image.
TEST_SRCS  += tests/guest/test_graph_args.c
# Fixtures (TEST_FIXTURE, boot/test.h): cases the host judges — deliberate
# crashes and stack overflows (the crash group), every site state at once
# stopped for gdb (tests/checks/gdb_checks.py).
TEST_SRCS  += tests/guest/fixtures/crash.c tests/guest/fixtures/stack.c \
	tests/guest/fixtures/gdb_states.c
# The instrumentation backend's own suites (mk/xray.mk).
TEST_SRCS  += $(INSTR_TEST_SRCS)

# The APP (README, "Writing an APP"): APP=DIR links in every *.c under DIR,
# subdirectories too, except APP_EXCLUDE.  DIR/app.mk, if there, may set
# APP_CFLAGS, APP_CPPFLAGS, APP_NOTRACE, APP_EXCLUDE and APP_DATA (a value
# on make's command line wins).  Paths in them are relative to DIR unless
# absolute: -Idir in APP_CPPFLAGS, and APP_NOTRACE / APP_EXCLUDE words,
# each a file, a glob within one directory, or a directory (all below it).
# APP files get the kernel's flags and instrumentation (not for
# APP_NOTRACE files) but not -Werror: third-party code keeps its warnings.
APP_DIR := $(patsubst %/,%,$(APP))
ifneq ($(APP_DIR),)
ifeq ($(wildcard $(APP_DIR)/.),)
$(error APP=$(APP): no such directory)
endif
-include $(APP_DIR)/app.mk
endif
app_path = $(foreach p,$(1),$(if $(filter /%,$(p)),$(p),$(APP_DIR)/$(p)))
app_match = $(filter $(wildcard $(call app_path,$(1))) $(addsuffix /%,$(call app_path,$(1))),$(2))
app_incdir = $(foreach f,$(1),$(if $(filter -I%,$(f)),$(if $(filter -I/%,$(f)),$(f),-I$(APP_DIR)/$(f:-I%=%)),$(f)))
APP_FOUND := $(if $(APP_DIR),$(shell find $(APP_DIR) -name '*.c' -type f | LC_ALL=C sort))
APP_SRCS  := $(filter-out $(call app_match,$(APP_EXCLUDE) $(APP_DATA),$(APP_FOUND)),$(APP_FOUND))
APP_NOTRACE_SRCS := $(call app_match,$(APP_NOTRACE),$(APP_SRCS))
$(foreach p,$(APP_NOTRACE) $(APP_EXCLUDE),$(if $(call app_match,$(p),$(APP_FOUND)),,\
	$(warning APP: '$(p)' (APP_NOTRACE / APP_EXCLUDE) matches no *.c under $(APP_DIR))))
ifneq ($(APP_DIR),)
ifeq ($(APP_SRCS),)
$(error APP=$(APP): no *.c files)
endif
endif
# The POSIX options lib/ provides beyond newlib's defaults (newlib's
# <time.h> declares clock_gettime and CLOCK_MONOTONIC only under them).
LIBC_CPPFLAGS := -D_POSIX_TIMERS=200809L -D_POSIX_MONOTONIC_CLOCK=200809L
APP_CFLAGS_ALL := $(filter-out -Werror,$(CFLAGS_BASE)) $(LIBC_CPPFLAGS) \
	$(call app_incdir,$(APP_CPPFLAGS)) $(APP_CFLAGS)
APP_STAMP := $(OB)/.app-flags
APP_FLAGS_NOW := $(APP_CFLAGS_ALL) | $(INSTR_CFLAGS) | $(APP_NOTRACE_SRCS)
ifneq ($(APP_DIR),)
ifneq ($(file <$(APP_STAMP)),$(APP_FLAGS_NOW))
$(shell mkdir -p $(OB))
$(file >$(APP_STAMP),$(APP_FLAGS_NOW))
endif
endif

NOTRACE_SRCS := boot/kprintf.c boot/console.c boot/panic.c boot/fault.c boot/ksyms.c boot/smp.c boot/stack.c \
	boot/irq.c boot/clock.c boot/bench.c lib/newlib_glue.c lib/heap.c lib/glob.c lib/failalloc.c \
	lib/fs.c lib/initrd.c lib/timekeeping.c
TRACED_SRCS  := $(filter-out $(NOTRACE_SRCS),$(BOOT_SRCS) $(LIB_SRCS) $(DEMO_SRCS) $(TEST_SRCS))

OBJS := $(patsubst %,$(OB)/%.o,$(ARCH_SRCS) $(ARCH_TEST_SRCS) $(BOOT_SRCS) $(LIB_SRCS) $(TRACE_SRCS) \
	$(PATCH_SRCS) $(DEMO_SRCS) $(TEST_SRCS)) $(if $(BENCH_FUNCS),$(B)/bench_funcs.o) \
	$(patsubst $(APP_DIR)/%,$(OB)/app/%.o,$(APP_SRCS))

# Every object depends on a stamp of the flags it was built with: the stamp
# is rewritten only when they change (an edit to build.mk, a variable given
# on the command line), so a flag change rebuilds everything and nothing else
# does.
FLAGS_STAMP := $(OB)/.flags
FLAGS_NOW   := $(CC) $(CFLAGS_BASE) | $(INSTR_CFLAGS) | $(NOFP_CFLAGS) | $(TRACED_SRCS) | \
	$(EARLY_CFLAGS) $(EARLY_SRCS) | $(NOFRAME_CFLAGS) $(NOFRAME_SRCS) | $(ASM_CFLAGS)
ifneq ($(file <$(FLAGS_STAMP)),$(FLAGS_NOW))
$(shell mkdir -p $(OB))
$(file >$(FLAGS_STAMP),$(FLAGS_NOW))
endif

$(OB)/%.c.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(if $(filter $<,$(TRACED_SRCS)),$(INSTR_CFLAGS),$(NOFP_CFLAGS)) \
		$(if $(filter $<,$(EARLY_SRCS)),$(EARLY_CFLAGS)) \
		$(if $(filter $<,$(NOFRAME_SRCS)),$(NOFRAME_CFLAGS)) -c $< -o $@
$(OB)/%.S.o: %.S $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(ASM_CFLAGS) -D__ASSEMBLY__ -c $< -o $@
$(B)/bench_funcs.c: tools/gen-bench-funcs.py
	@mkdir -p $(@D)
	tools/gen-bench-funcs.py 50000 > $@
$(B)/bench_funcs.o: $(B)/bench_funcs.c $(FLAGS_STAMP)
	$(CC) $(CFLAGS_BASE) -O1 $(INSTR_CFLAGS) -c $< -o $@

# BTF (DESIGN.md 3.9; trace/btf/DESIGN.md, "Build"): pahole turns the DWARF of
# our objects, linked relocatable, into a raw blob; newlib and the
# benchmark's generated functions are left out.  pahole keeps one FUNC per
# name, so tools/btfaddr.py then reads pass 1's DWARF (the final addresses)
# and gives every function whose name several symbols share its own FUNC
# (appended) and an entry address -> FUNC id.  Both go into pass 2 only,
# after .ksyms (the image's tail, as ksyms: nothing moves), with the blob's
# size and CRC-32 as btf_image_ident (trace/btf/btf.h): a module
# ($(B)/kernel.btf, for QEMU's -initrd) must be this blob.
# $(B)/kernel.btf.addrs lists the table as text.
BTF_INPUTS := $(filter-out $(B)/bench_funcs.o,$(OBJS))
$(B)/kernel.btf $(B)/btf.S &: $(B)/kernel.pass1.elf tools/btfaddr.py tools/btfsig.py
	$(LD) -r -o $(B)/btf-input.o $(BTF_INPUTS)
	pahole -J --btf_gen_floats --btf_encode_detached=$(B)/pahole.btf $(B)/btf-input.o
	rm -f $(B)/btf-input.o
	tools/btfaddr.py $(CURDIR) $(B)/pahole.btf $< $<.nm $(B)/kernel.btf $(B)/btf.S \
		$(B)/kernel.btf.addrs $(if $(BENCH_FUNCS),$(B)/bench_funcs.c)
$(B)/btf.S.o: $(B)/btf.S
	$(CC) $(CFLAGS_BASE) -c $< -o $@
$(B)/btf0.S.o: tools/btfaddr.py
	@mkdir -p $(@D)
	tools/btfaddr.py --empty $(B)/btf0.S
	$(CC) $(CFLAGS_BASE) -c $(B)/btf0.S -o $@

# APP_DATA=DIR: the APP's files, packed with the image's BTF module
# (kernel.btf) into a cpio "newc" archive that QEMU loads as -initrd
# (lib/fs.h).  Rewritten only when its contents change, so a boot of an
# unchanged APP reuses it.
ifneq ($(APP_DATA),)
ifeq ($(APP_DIR),)
$(error APP_DATA=$(APP_DATA) needs APP=)
endif
APP_DATA_DIR := $(call app_path,$(APP_DATA))
ifeq ($(wildcard $(APP_DATA_DIR)/.),)
$(error APP_DATA=$(APP_DATA): no directory $(APP_DATA_DIR))
endif
ifneq ($(INITRD),)
$(error INITRD=$(INITRD) and APP_DATA=$(APP_DATA) both give the initrd; the APP_DATA archive holds kernel.btf for btf=initrd)
endif
APP_INITRD := $(B)/initrd.cpio
$(APP_INITRD): $(B)/kernel.btf tools/mkinitrd.py FORCE
	tools/mkinitrd.py $@ $(B)/kernel.btf $(APP_DATA_DIR)
kernel: $(APP_INITRD)
endif
.PHONY: FORCE

$(OB)/app/%.c.o: $(APP_DIR)/%.c $(APP_STAMP)
	@mkdir -p $(@D)
	$(CC) $(APP_CFLAGS_ALL) $(if $(filter $<,$(APP_NOTRACE_SRCS)),,$(INSTR_CFLAGS)) -c $< -o $@

LDSCRIPT := linker/$(ARCH).ld
LDLIBS   := -L$(NEWLIB)/lib -lm -lc $(LIBGCC)
# Every allocator call, and free, goes through lib/failalloc.c (failure
# injection, block balance).
FAILALLOC_WRAP := --wrap=malloc --wrap=calloc --wrap=realloc --wrap=memalign --wrap=free
LDFLAGS  := -nostdlib -static -z max-page-size=4096 -z noexecstack --no-warn-rwx-segments \
	$(FAILALLOC_WRAP) -T $(LDSCRIPT)

# Two-pass link (like kallsyms): pass 1 with an empty symbol table and no
# BTF, then the table generated from pass 1's symbols, and the BTF (above).  The table's section comes last in
# the image, so its size moves no other symbol; tools/gen-ksyms.py --check
# verifies that pass 2 kept every address.
$(B)/ksyms0.S.o: tools/gen-ksyms.py
	@mkdir -p $(@D)
	tools/gen-ksyms.py --empty > $(B)/ksyms0.S
	$(CC) $(CFLAGS_BASE) -c $(B)/ksyms0.S -o $@
$(B)/kernel.pass1.elf: $(OBJS) $(B)/ksyms0.S.o $(B)/btf0.S.o $(LDSCRIPT)
	$(LD) $(LDFLAGS) -o $@ $(OBJS) $(B)/ksyms0.S.o $(B)/btf0.S.o --start-group $(LDLIBS) --end-group
	$(NM) -n $@ > $@.nm
$(B)/ksyms.S.o: $(B)/kernel.pass1.elf tools/gen-ksyms.py
	tools/gen-ksyms.py < $<.nm > $(B)/ksyms.S
	$(CC) $(CFLAGS_BASE) -c $(B)/ksyms.S -o $@
$(B)/kernel.elf: $(B)/ksyms.S.o $(B)/btf.S.o tools/check-nofp.py tools/sort-sites.py
	$(LD) $(LDFLAGS) -o $@ $(OBJS) $(B)/ksyms.S.o $(B)/btf.S.o --start-group $(LDLIBS) --end-group
	$(NM) -n $@ | tools/gen-ksyms.py --check $(B)/kernel.pass1.elf.nm
	tools/sort-sites.py $@ $(B)/kernel.sites
	$(CROSS)objdump -d $@ > $(B)/kernel.asm
	$(NM) -n $@ > $(B)/kernel.nm
	tools/check-nofp.py $(B)/kernel.nm $(B)/kernel.asm $(B)/kernel.sites

# A raw image as well: arm64 boots it as a Linux Image (the only way QEMU
# loads -initrd and passes the DTB in x0); gdb reads the ELF.
$(B)/kernel.bin: $(B)/kernel.elf
	$(OBJCOPY) -O binary $< $@

kernel: $(B)/kernel.elf $(B)/kernel.bin

print-kernel:
	@echo $(B)/kernel.elf
print-initrd:
	@echo $(APP_INITRD)

# $(call qemu_run,ARCH,BUILD_DIR): boot that kernel with $BT_CMDLINE; the
# recipe's status is the run's, also written to $BT_RUN_STATUS if set.
# APP_DATA: the archive beside that kernel is the initrd.
qemu_run = SMP=$(SMP) MEM=$(MEM) ACCEL=$(ACCEL) \
	$(if $(APP_DATA),INITRD=$(abspath $(2))/initrd.cpio) tools/qemu-run.sh $(1) $(2)/kernel.elf \
	"$$BT_CMDLINE"; rc=$$?; [ -z "$$BT_RUN_STATUS" ] || echo $$rc > "$$BT_RUN_STATUS"; exit $$rc

run: kernel
	@$(call qemu_run,$(ARCH),$(B))

gdb: kernel
	@GDB=1 $(call qemu_run,$(ARCH),$(B))

-include $(OBJS:.o=.d)
