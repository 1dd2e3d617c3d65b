/*
 * shim_graph.c — host definitions of what trace/graph_output.c calls
 * (see shim_graph.h for the list).  The fsig stubs follow trace/fsig.h's
 * formatting rules closely enough to show that the printer places their
 * text right; trace/fsig.c has its own tests.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "boot/clock.h"
#include "boot/console.h"
#include "boot/ksyms.h"
#include "trace/fsig.h"
#include "trace/options.h"
#include "trace/trace.h"

struct cpu shim_cpu;
unsigned ncpus = 4;
unsigned long trace_opts;
bool shim_fsig_loaded;

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

/* ---- trace/fsig.h stubs ---- */

static const struct fsig_param do_work_params[] = {
	{ "a", { FSIG_INT, 4 } }, { "flags", { FSIG_UINT, 4 } },
};
static const struct fsig_param leaf_a_params[] = { { "x", { FSIG_INT, 8 } } };
static const struct fsig sigs[] = {
	{ 0x1000, "do_work", 2, { FSIG_INT, 4 }, do_work_params },
	{ 0x2000, "leaf_a", 1, { FSIG_INT, 8 }, leaf_a_params },
	{ 0x5000, "void_fn", 0, { FSIG_VOID, 0 }, NULL },
};

void fsig_lock(void) {}
void fsig_unlock(void) {}
bool fsig_loaded(void) { return shim_fsig_loaded; }

const struct fsig *fsig_find(uintptr_t ip)
{
	for (size_t i = 0; shim_fsig_loaded && i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigs[i].ip == ip)
			return &sigs[i];
	return NULL;
}

static int64_t cut_signed(uint64_t v, unsigned size)
{
	if (size >= 8 || size == 0)
		return (int64_t)v;
	unsigned shift = 64 - 8 * size;
	return (int64_t)(v << shift) >> shift;
}

size_t fsig_format_args(char *buf, size_t size, const struct fsig *s, const uint64_t *words,
			unsigned nwords, bool strings)
{
	(void)strings;
	size_t len = 0;
	unsigned n = s ? (s->nparams < nwords ? s->nparams : nwords) : nwords;
	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		const char *sep = i ? ", " : "";
		int w;
		if (!s)
			w = snprintf(buf + len, size - len, "%s0x%llx", sep,
				     (unsigned long long)words[i]);
		else if (s->params[i].type.kind == FSIG_INT)
			w = snprintf(buf + len, size - len, "%s%s=%lld", sep, s->params[i].name,
				     (long long)cut_signed(words[i], s->params[i].type.size));
		else
			w = snprintf(buf + len, size - len, "%s%s=0x%llx", sep, s->params[i].name,
				     (unsigned long long)words[i]);
		len += (size_t)w;
		if (len >= size)
			return len;
	}
	return len;
}

size_t fsig_format_ret(char *buf, size_t size, const struct fsig *s, uint64_t raw, bool hex)
{
	if (s && s->ret.kind == FSIG_VOID) {
		buf[0] = '\0';
		return 0;
	}
	/* Without a type, Linux's guess: a 32-bit negative value in a 64-bit
	 * register is an int. */
	unsigned bytes = s ? s->ret.size : (raw >> 31) == 1 ? 4 : 8;
	int64_t v = cut_signed(raw, bytes);
	if (!hex && v < 0 && v >= -4095)
		return (size_t)snprintf(buf, size, "ret=%lld", (long long)v);
	return (size_t)snprintf(buf, size, "ret=0x%llx", (unsigned long long)raw);
}
