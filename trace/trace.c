/*
 * trace.c — the trace buffer, boot options, and the current tracer.
 *
 * Boot options (Linux's names): trace_buf_size=N[kKmM] bytes per CPU;
 * ftrace=TRACER starts that tracer once the CPUs are up.
 *
 * Files: available_tracers, current_tracer, tracing_on, buffer_size_kb,
 * buffer_total_size_kb, tracing_cpumask, per_cpu/cpuN/.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "boot/cmdline.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/irq.h"
#include "boot/sched.h"
#include "trace/boot.h"
#include "trace/btf/btf.h"
#include "trace/global_ops.h"
#include "trace/options.h"
#include "trace/trace.h"
#include "trace/tracefs/tracefs.h"

struct rb_buffer *trace_buffer;
size_t trace_buf_size = 1441792;       /* Linux's default: 1.4 MB per CPU */
static const char *boot_tracer;

extern const struct tracer __tracers_start[], __tracers_end[];
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

const struct tracer *tracer_find(const char *name)
{
	for (const struct tracer *t = __tracers_start; t < __tracers_end; t++)
		if (strcmp(t->name, name) == 0)
			return t;
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
	for (const struct tracer *t = __tracers_start; t < __tracers_end; t++)
		fn(t->name, arg);
}

void tracer_flags_changed(void)
{
	for (const struct tracer *t = __tracers_start; t < __tracers_end; t++)
		if (t->flag_changed)
			t->flag_changed();
}


/* The nop tracer: nothing is traced. */
TRACER(010, nop_tracer) = { .name = "nop" };

void trace_print_workload_end(void)
{
	if (tracer_current() != &nop_tracer)
		trace_print_all();
}

/* ---- the files: tracers, the buffer ---- */

bool trace_need_buffer(const char *op, const char *file)
{
	if (trace_buffer)
		return true;
	kprintf("%s: %s: no trace buffer\n", op, file);
	return false;
}

_Static_assert(RB_MAX_SIZE / 1024 == 258984, "set_buffer_size's message names the limit");

/* A ring-buffer error (-RB_*) as the errno a tracefs write returns. */
static int rb_errno(int err)
{
	switch (-err) {
	case 0: return 0;
	case RB_ENOMEM: return -ENOMEM;
	case RB_EBUSY: return -EBUSY;
	default: return -EINVAL;
	}
}

/* ---- tracers ---- */

static void print_tracer_name(const char *name, void *first)
{
	kprintf("%s%s", *(bool *)first ? "" : " ", name);
	*(bool *)first = false;
}

static int cat_tracers(const char *arg)
{
	bool first = true;
	tracer_list(print_tracer_name, &first);
	kprintf("\n");
	return 0;
}

static int cat_current_tracer(const char *arg)
{
	kprintf("%s\n", tracer_current()->name);
	return 0;
}

static int set_current_tracer(const char *arg, const char *value, bool append)
{
	if (!tracer_find(value)) {
		kprintf("echo: write error: Invalid argument (no tracer '%s')\n", value);
		return -EINVAL;
	}
	int err = tracer_set(value);
	if (err == -ENODEV) {
		trace_need_buffer("echo", "current_tracer");
		return err;
	}
	return err ? tracefs_write_error(err, NULL) : 0;
}

static int cat_tracing_on(const char *arg)
{
	kprintf("%d\n", tracing_is_on());
	return 0;
}

static int set_tracing_on(const char *arg, const char *value, bool append)
{
	unsigned long n;
	if (!trace_need_buffer("echo", "tracing_on"))
		return -ENODEV;
	if (!tracefs_parse_ulong(value, &n, ULONG_MAX))      /* Linux: any number, 0 is off */
		return tracefs_write_error(-EINVAL, "tracing_on takes a number, 0 for off");
	if (n)
		tracing_on();
	else
		tracing_off();
	return 0;
}

/* Recording on or off for CPU `cpu`, or for every CPU (RB_ALL_CPUS):
 * off around a reset or a resize of what it names (rb_reset's and
 * rb_resize's rule). */
static void record_switch(int cpu, bool on)
{
	if (cpu == RB_ALL_CPUS)
		(on ? rb_record_on : rb_record_off)(trace_buffer);
	else
		(on ? rb_record_cpu_on : rb_record_cpu_off)(trace_buffer, (unsigned)cpu);
}

/* Empty CPU `cpu`'s buffer or all (RB_ALL_CPUS); `file` names the file
 * for the "no trace buffer" message. */
int trace_clear_buffer(const char *file, int cpu)
{
	if (!trace_need_buffer("echo", file))
		return -ENODEV;
	record_switch(cpu, false);
	int err = rb_errno(rb_reset(trace_buffer, cpu));
	record_switch(cpu, true);
	return err ? tracefs_write_error(err, NULL) : 0;
}

/* tracing_cpumask: the CPUs that record, in hex as Linux prints and
 * parses it (no 0x; the CPUs here fit one 32-bit group). */
static int cat_cpumask(const char *arg)
{
	if (!trace_need_buffer("cat", "tracing_cpumask"))
		return -ENODEV;
	kprintf("%x\n", trace_cpumask());
	return 0;
}

static int set_cpumask(const char *arg, const char *value, bool append)
{
	char why[64];
	const char *p = value;
	unsigned long mask = 0;
	if (!trace_need_buffer("echo", "tracing_cpumask"))
		return -ENODEV;
	while (*p == '0')
		p++;
	bool hex = *value != '\0' && strspn(value, "0123456789abcdefABCDEF") == strlen(value);
	if (hex && strlen(p) <= 8)
		mask = strtoul(value, NULL, 16);
	if (!hex || strlen(p) > 8 || trace_set_cpumask((uint32_t)mask) == -EINVAL) {
		ksnprintf(why, sizeof(why), "tracing_cpumask takes a hex mask of CPUs 0-%u",
			  ncpus - 1);
		return tracefs_write_error(-EINVAL, why);
	}
	return 0;
}

/* What a CPU's buffer holds, as Linux shows it: whole pages of 4080 data
 * bytes (the default 1441792 shows as 1410). */
static unsigned long size_kb(unsigned cpu)
{
	return (unsigned long)(rb_size(trace_buffer, cpu) / 1024);
}

/* The size of every CPU's buffer, or "X" when they differ (Linux). */
static int cat_buffer_size(const char *arg)
{
	if (!trace_need_buffer("cat", "buffer_size_kb"))
		return -ENODEV;
	for (unsigned c = 1; c < rb_ncpus(trace_buffer); c++)
		if (size_kb(c) != size_kb(0)) {
			kprintf("X\n");
			return 0;
		}
	kprintf("%lu\n", size_kb(0));
	return 0;
}

/* Resize CPU `cpu`'s buffer or all (RB_ALL_CPUS) to `value` KB, with
 * recording off on the CPUs concerned meanwhile (rb_resize's rule); `file`
 * names the file for the "no trace buffer" message. */
static int resize(const char *file, int cpu, const char *value, unsigned long *kb)
{
	if (!trace_need_buffer("echo", file))
		return -ENODEV;
	if (!tracefs_parse_ulong(value, kb, RB_MAX_SIZE / 1024) || *kb == 0)
		return tracefs_write_error(-EINVAL, "buffer_size_kb must be a number from 1 to 258984");
	/* Z1 and Z4 of a resize (trace/ring_buffer/DESIGN.md, "Resize"): tracing may be
	 * on, the writers meanwhile see recording off; the events stay. */
	record_switch(cpu, false);
	int err = rb_errno(rb_resize(trace_buffer, cpu, *kb * 1024));
	record_switch(cpu, true);
	return err ? tracefs_write_error(err, NULL) : 0;
}

/* A write sets every CPU's size. */
static int set_buffer_size(const char *arg, const char *value, bool append)
{
	unsigned long kb;
	int err = resize("buffer_size_kb", RB_ALL_CPUS, value, &kb);
	if (!err)
		trace_buf_size = kb * 1024;
	return err;
}

/* buffer_total_size_kb: the CPUs' sizes added up, each as buffer_size_kb
 * shows it. */
static int cat_buffer_total_size(const char *arg)
{
	unsigned long kb = 0;
	if (!trace_need_buffer("cat", "buffer_total_size_kb"))
		return -ENODEV;
	for (unsigned c = 0; c < rb_ncpus(trace_buffer); c++)
		kb += size_kb(c);
	kprintf("%lu\n", kb);
	return 0;
}

/* ---- per_cpu/cpuN/: one CPU's buffer ---- */

enum { PC_TRACE, PC_PIPE, PC_STATS, PC_SIZE, PC_NFILES, PC_DIR = PC_NFILES };
static const char *const percpu_files[PC_NFILES] = {
	[PC_TRACE] = "trace", [PC_PIPE] = "trace_pipe", [PC_STATS] = "stats",
	[PC_SIZE] = "buffer_size_kb",
};

/* "cpuN", "cpuN/" (PC_DIR) or "cpuN/FILE" (its PC_*), for a CPU N that
 * exists, named as Linux names it (no leading zero); -ENOENT otherwise. */
static int percpu_entry(const char *entry, unsigned *cpu)
{
	char num[4];
	unsigned long n;
	if (strncmp(entry, "cpu", 3))
		return -ENOENT;
	size_t len = strcspn(entry + 3, "/");      /* after the check: entry has 3 chars */
	if (len == 0 || len >= sizeof(num))
		return -ENOENT;
	memcpy(num, entry + 3, len);
	num[len] = '\0';
	if (!tracefs_parse_ulong(num, &n, MAX_CPUS - 1) || n >= ncpus || (num[0] == '0' && num[1]))
		return -ENOENT;
	*cpu = (unsigned)n;
	const char *rest = entry + 3 + len;
	if (!*rest || !strcmp(rest, "/"))
		return PC_DIR;
	for (int i = 0; i < PC_NFILES; i++)
		if (!strcmp(rest + 1, percpu_files[i]))
			return i;
	return -ENOENT;
}

/* Linux's per_cpu/cpuN/stats.  What the counters do not hold (the events
 * still in the buffer, their bytes, the oldest one's time) comes from a
 * pass over the CPU's buffer, recording paused on that CPU meanwhile as
 * for `cat trace`; the counters are read inside it, so all agree.  bytes:
 * the events' own bytes (headers and payloads, no time extends or
 * padding).  commit overrun: 0 -- a writer that would wrap onto an
 * uncommitted page drops its event, counted in dropped events. */
static int cat_stats(unsigned cpu, const char *path)
{
	static struct mutex lock = MUTEX_INIT;
	static struct rb_iter it;                /* large; under lock */
	struct rb_event ev;
	struct rb_stats st;
	unsigned long entries = 0, bytes = 0;
	uint64_t oldest = 0;
	char ts[32];
	mutex_lock(&lock);
	int err = rb_iter_start(&it, trace_buffer, (int)cpu);
	if (err) {
		mutex_unlock(&lock);
		kprintf("cat: %s: Device or resource busy\n", path);
		return -EBUSY;
	}
	while (rb_iter_next(&it, &ev) == 0) {
		if (entries++ == 0)
			oldest = ev.ts;
		bytes += rb_event_size(ev.len);
	}
	rb_stats(trace_buffer, cpu, &st);
	rb_iter_end(&it);
	mutex_unlock(&lock);
	kprintf("entries: %lu\noverrun: %llu\ncommit overrun: 0\nbytes: %lu\n", entries,
		(unsigned long long)st.overrun, bytes);
	trace_format_ts(ts, sizeof(ts), oldest);
	kprintf("oldest event ts: %s\n", ts);
	trace_format_ts(ts, sizeof(ts), arch_counter());
	kprintf("now ts: %s\ndropped events: %llu\nread events: %llu\n", ts,
		(unsigned long long)st.dropped, (unsigned long long)st.read);
	return 0;
}

static int cat_per_cpu(const char *entry)
{
	unsigned cpu;
	char path[48];
	int f = percpu_entry(entry, &cpu);
	if (f < 0 || f == PC_DIR)
		return f < 0 ? f : -EISDIR;
	ksnprintf(path, sizeof(path), "per_cpu/%s", entry);
	if (!trace_need_buffer("cat", path))
		return -ENODEV;
	switch (f) {
	case PC_TRACE:
		trace_print_cpu((int)cpu);
		return 0;
	case PC_PIPE:
		trace_pipe_read((int)cpu);
		return 0;
	case PC_STATS:
		return cat_stats(cpu, path);
	default:
		kprintf("%lu\n", size_kb(cpu));
		return 0;
	}
}

/* trace: clears this CPU's buffer; buffer_size_kb: resizes it; the
 * others are read-only. */
static int write_per_cpu(const char *entry, const char *value, bool append)
{
	unsigned cpu;
	unsigned long kb;
	char path[48];
	int f = percpu_entry(entry, &cpu);
	if (f < 0 || f == PC_DIR)
		return f < 0 ? f : -EISDIR;
	if (f != PC_TRACE && f != PC_SIZE)
		return -EACCES;
	ksnprintf(path, sizeof(path), "per_cpu/%s", entry);
	if (f == PC_SIZE)
		return resize(path, (int)cpu, value, &kb);
	return trace_clear_buffer(path, (int)cpu);
}

/* per_cpu/: a directory per CPU; "cpuN" lists that directory's files
 * (and returns 1: listed). */
static int ls_per_cpu(const char *entry)
{
	unsigned cpu;
	if (!*entry) {
		for (unsigned c = 0; c < ncpus; c++)
			kprintf("cpu%u\n", c);
		return 0;
	}
	int f = percpu_entry(entry, &cpu);
	if (f != PC_DIR)
		return f < 0 ? f : 0;
	for (int i = 0; i < PC_NFILES; i++)
		kprintf("%s\n", percpu_files[i]);
	return 1;
}

TRACEFS_FILE(010, "available_tracers", .cat = cat_tracers);
TRACEFS_FILE(020, "current_tracer", .cat = cat_current_tracer, .write = set_current_tracer);
TRACEFS_FILE(030, "tracing_on", .cat = cat_tracing_on, .write = set_tracing_on);
TRACEFS_FILE(070, "buffer_size_kb", .cat = cat_buffer_size, .write = set_buffer_size);
TRACEFS_FILE(080, "buffer_total_size_kb", .cat = cat_buffer_total_size);
TRACEFS_FILE(090, "tracing_cpumask", .cat = cat_cpumask, .write = set_cpumask);
TRACEFS_FILE(240, "per_cpu/", .cat = cat_per_cpu, .write = write_per_cpu, .ls = ls_per_cpu);
