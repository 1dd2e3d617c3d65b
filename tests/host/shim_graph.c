/*
 * shim_graph.c — host definitions of what trace/tracers/function_graph_output.c calls
 * (see shim_graph.h for the list).  Signatures and their text come from
 * the real trace/btf/fsig.c (built with FSIG_HOST), whose environment is here;
 * shim_load_sigs() loads graph_sample.c's BTF for the functions below.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/clock.h"
#include "boot/console.h"
#include "boot/ksyms.h"
#include "trace/btf/btf.h"
#include "trace/btf/fsig.h"
#include "trace/options.h"
#include "trace/trace.h"

struct cpu shim_cpu;
unsigned ncpus = 4;
unsigned long trace_opts;

char shim_out[1 << 16];
size_t shim_out_len;

void shim_out_reset(void)
{
	shim_out_len = 0;
	shim_out[0] = '\0';
}

/* ---- boot/console.h ---- */

/* ksnprintf, kvsnprintf: host_snprintf.c */

int kvprintf(const char *fmt, va_list ap)
{
	char buf[512];              /* as small as the kernel's: long lines must be split */
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
	if (shim_out_len + len < sizeof(shim_out)) {
		memcpy(shim_out + shim_out_len, buf, len);
		shim_out_len += len;
		shim_out[shim_out_len] = '\0';
	}
	return n;
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = kvprintf(fmt, ap);
	va_end(ap);
	return n;
}

/* ---- boot/ksyms.h, boot/clock.h, trace_comm ---- */

static const struct { uintptr_t addr, size; const char *name; } syms[] = {
	{ 0x1000, 0x100, "do_work" },
	{ 0x2000, 0x100, "leaf_a" },
	{ 0x3000, 0x100, "handle_irq" },
	{ 0x4000, 0x100, "timer_tick" },
	{ 0x5000, 0x100, "void_fn" },
	{ 0x6000, 0x100, "long_args" },
	/* test_tstack.c's functions */
	{ 0xa000, 0x100, "outer" },
	{ 0xa100, 0x100, "fa" },
	{ 0xa200, 0x100, "fb" },
	{ 0xa300, 0x100, "fc" },
	{ 0xa400, 0x100, "rec" },
};

const char *ksym_lookup(uintptr_t addr, uintptr_t *offset, uintptr_t *size)
{
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		if (addr >= syms[i].addr && addr < syms[i].addr + syms[i].size) {
			if (offset)
				*offset = addr - syms[i].addr;
			if (size)
				*size = syms[i].size;
			return syms[i].name;
		}
	}
	return NULL;
}

uint64_t clock_cycles_to_ns(uint64_t cycles)
{
	return cycles;
}

const char *trace_comm(int pid, char *buf, size_t size)
{
	switch (pid) {
	case 0:
		return "<idle>";
	case 12:
		return "demo";
	case 7:
		snprintf(buf, size, "%s", "kworker/0:1");
		return buf;
	default:
		return "<...>";
	}
}

/* ---- trace/output.c's look-ahead ---- */

int trace_iter_peek(struct trace_iter *ti, unsigned cpu, struct rb_event *ev)
{
	return rb_iter_peek_cpu(&ti->it, cpu, ev);
}

void trace_iter_skip(struct trace_iter *ti, unsigned cpu)
{
	rb_iter_drop_cpu(&ti->it, cpu);
}

/* ---- trace/btf/fsig.c's environment (FSIG_HOST; trace/btf/btf.h) ---- */

const char *shim_btf_path;
char shim_btf_log[256];

void fsig_lock(void) {}
void fsig_unlock(void) {}

void fsig_port_log(const char *line)
{
	snprintf(shim_btf_log, sizeof(shim_btf_log), "%s", line);
}

/* The symbol table above: each name is one function. */
int fsig_port_address(const char *name, uintptr_t *addr)
{
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		if (strcmp(syms[i].name, name) == 0) {
			*addr = syms[i].addr;
			return 0;
		}
	}
	return -ENOENT;
}

/* fsig_port_read_str: host_read_str.c */

void shim_load_sigs(void)
{
	FILE *f = fopen(shim_btf_path, "rb");
	static char blob[1 << 16] __attribute__((aligned(8)));
	size_t n = f ? fread(blob, 1, sizeof(blob), f) : 0;
	if (f)
		fclose(f);
	if (!n || btf_load(blob, n, "graph_sample") != 0) {
		fprintf(stderr, "shim_load_sigs: %s: %s\n", shim_btf_path, shim_btf_log);
		abort();
	}
}
