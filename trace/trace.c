/*
 * trace.c — the trace buffer, boot options, and the current tracer.
 *
 * Boot options (Linux's names): trace_buf_size=N[kKmM] bytes per CPU;
 * ftrace=TRACER starts that tracer once the CPUs are up.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "boot/cmdline.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/irq.h"
#include "boot/sched.h"
#include "trace/boot.h"
#include "trace/btf.h"
#include "trace/graph.h"
#include "trace/options.h"
#include "trace/trace.h"

struct rb_buffer *trace_buffer;
size_t trace_buf_size = 1441792;       /* Linux's default: 1.4 MB per CPU */
static const char *boot_tracer;

static const struct tracer *const tracers[] = { &nop_tracer, &function_tracer, &graph_tracer };
#define NTRACERS (sizeof(tracers) / sizeof(tracers[0]))
static const struct tracer *current_tracer;     /* tracer_mutex */
static struct mutex tracer_mutex = MUTEX_INIT;

/* trace_buf_size=N[kKmM]: 1 to RB_MAX_SIZE bytes per CPU, N in C's bases as
 * Linux's memparse reads it (decimal, 0x hex, 0 octal); 0, a sign, junk,
 * an overflow or anything larger is a bad option (the default stays). */
static int opt_buf_size(const char *v)
{
	if (!v || *v < '0' || *v > '9')
		return -1;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 0);
	unsigned shift = 0;
	if (*end == 'k' || *end == 'K')
		shift = 10, end++;
	else if (*end == 'm' || *end == 'M')
		shift = 20, end++;
	if (*end || errno || n == 0 || n > RB_MAX_SIZE >> shift)
		return -1;
	trace_buf_size = (size_t)(n << shift);
	return 0;
}
BT_PARAM("trace_buf_size", opt_buf_size, "ring buffer bytes per CPU (k/m suffixes)");

static int opt_ftrace(const char *v)
{
	if (!v || !tracer_find(v))
		return -1;
	boot_tracer = v;
	return 0;
}
BT_PARAM("ftrace", opt_ftrace, "start this tracer at boot (function, ...)");

static void *page_alloc(void *ctx, size_t size, size_t align)
{
	return memalign(align, size);
}

static void page_free(void *ctx, void *p)
{
	free(p);
}

const struct rb_allocator rb_kernel_allocator = { page_alloc, page_free, NULL };

int trace_init(void)
{
	/* Signatures and the filter first: neither needs the buffer (the
	 * profiler and fprobes work without one). */
	btf_boot_init();
	trace_filter_boot();
	/* The mode trace_options= chose (options/overwrite, on by default). */
	int err = rb_create(&trace_buffer, ncpus, trace_buf_size,
			    trace_opt(TRACE_OPT_OVERWRITE) ? RB_FL_OVERWRITE : 0, &rb_kernel_allocator);
	if (err) {
		kprintf("trace: cannot create the buffer (%lu bytes per CPU): %s; only the nop "
			"tracer runs\n", (unsigned long)trace_buf_size, rb_strerror(err));
		if (boot_tracer && strcmp(boot_tracer, "nop"))
			kprintf("trace: tracer %s not started: no trace buffer\n", boot_tracer);
		return err;
	}
	/* Each CPU's handle on its buffer, for the tracers' callbacks: set
	 * before any tracer can run; the patching that makes a callback
	 * reachable orders these stores before its loads. */
	for (unsigned i = 0; i < MAX_CPUS; i++)
		cpus[i].trace_rb = rb_cpu_buffer(trace_buffer, i);
	if (boot_tracer) {
		err = tracer_set(boot_tracer);
		if (err)
			kprintf("trace: tracer %s did not start (%d)\n", boot_tracer, err);
	}
	return err;
}

static bool recording = true;                  /* atomic: the tracing_on switch */

void tracing_off(void)
{
	if (trace_buffer && __atomic_exchange_n(&recording, false, __ATOMIC_RELAXED))
		rb_record_off(trace_buffer);
}

void tracing_on(void)
{
	if (trace_buffer && !__atomic_exchange_n(&recording, true, __ATOMIC_RELAXED))
		rb_record_on(trace_buffer);
}

bool tracing_is_on(void)
{
	return __atomic_load_n(&recording, __ATOMIC_RELAXED);
}

static uint32_t cpumask_off;                   /* CPUs switched off by the mask; cpumask_mutex */
static struct mutex cpumask_mutex = MUTEX_INIT;

static uint32_t all_cpus(void)
{
	return ncpus >= 32 ? ~0u : (1u << ncpus) - 1;
}

int trace_set_cpumask(uint32_t mask)
{
	uint32_t all = all_cpus();
	if (mask & ~all)
		return -EINVAL;
	if (!trace_buffer)
		return -ENODEV;
	mutex_lock(&cpumask_mutex);
	uint32_t off = all & ~mask;
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		uint32_t bit = 1u << cpu;
		if ((off & bit) && !(cpumask_off & bit))
			rb_record_cpu_off(trace_buffer, cpu);
		else if (!(off & bit) && (cpumask_off & bit))
			rb_record_cpu_on(trace_buffer, cpu);
	}
	cpumask_off = off;
	mutex_unlock(&cpumask_mutex);
	return 0;
}

uint32_t trace_cpumask(void)
{
	mutex_lock(&cpumask_mutex);
	uint32_t mask = all_cpus() & ~cpumask_off;
	mutex_unlock(&cpumask_mutex);
	return mask;
}

int tracing_mark_write(const char *text)
{
	size_t n = strlen(text);
	if (n > TRACE_MARKER_MAX)
		return -EINVAL;
	if (!trace_buffer)
		return -ENODEV;
	struct rb_resv r;
	uint32_t len = (uint32_t)(sizeof(struct print_entry) + n + 2);
	preempt_disable();
	unsigned depth = current_thread()->preempt_count - 1;
	int err = rb_reserve(trace_buffer, len, &r);
	if (!err) {
		struct print_entry *e = r.data;
		trace_entry_fill(&e->ent, TRACE_PRINT, depth);
		e->ip = (uintptr_t)tracing_mark_write;
		memcpy(e->buf, text, n);
		e->buf[n] = '\n';
		e->buf[n + 1] = '\0';
		rb_commit(&r);
	}
	preempt_enable();
	return err ? -EBUSY : 0;
}

const struct tracer *tracer_find(const char *name)
{
	for (size_t i = 0; i < NTRACERS; i++)
		if (strcmp(tracers[i]->name, name) == 0)
			return tracers[i];
	return NULL;
}

const struct tracer *tracer_current(void)
{
	const struct tracer *t = __atomic_load_n(&current_tracer, __ATOMIC_ACQUIRE);
	return t ? t : tracer_find("nop");
}

int tracer_set(const char *name)
{
	const struct tracer *t = tracer_find(name);
	if (!t)
		return -EINVAL;
	/* Without a buffer (trace_init could not make one: trace_buf_size
	 * too large) only nop runs: a tracer would write through a CPU's
	 * handle that is not there. */
	if (!trace_buffer && t->start)
		return -ENODEV;
	mutex_lock(&tracer_mutex);
	const struct tracer *old = tracer_current();
	int err = 0;
	if (old != t) {
		/* The new tracer starts while the old one still runs (they
		 * use different ops), with recording off so neither writes:
		 * a start that fails (-ENOMEM, -EBUSY) has changed nothing,
		 * the old tracer and the buffer's events are as they were.
		 * Then the old one stops (unregistering does not fail for
		 * lack of memory) and, as Linux, the new one begins with an
		 * empty buffer. */
		if (trace_buffer)
			rb_record_off(trace_buffer);
		err = t->start ? t->start() : 0;
		if (!err) {
			if (old && old->stop)
				old->stop();
			/* -RB_EBUSY only with a reader holding a CPU's
			 * buffer (trace_pipe): said, and the switch stands. */
			if (trace_buffer && rb_reset(trace_buffer, RB_ALL_CPUS))
				kprintf("tracer: %s: the buffer was not cleared (a reader holds it)\n",
					t->name);
			__atomic_store_n(&current_tracer, t, __ATOMIC_RELEASE);
		}
		if (trace_buffer)
			rb_record_on(trace_buffer);
	}
	mutex_unlock(&tracer_mutex);
	return err;
}

void tracer_list(void (*fn)(const char *name, void *arg), void *arg)
{
	for (size_t i = 0; i < NTRACERS; i++)
		fn(tracers[i]->name, arg);
}


/* The nop tracer: nothing is traced. */
static bool nop_print(struct trace_iter *ti)
{
	return false;
}

const struct tracer nop_tracer = { "nop", NULL, NULL, nop_print, NULL };

void trace_print_workload_end(void)
{
	if (tracer_current() != &nop_tracer)
		trace_print_all();
}
