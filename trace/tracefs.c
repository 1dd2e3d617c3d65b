/*
 * tracefs.c — the tracefs files as shell commands.
 *
 *   cat FILE             print it
 *   echo VALUE > FILE    write it (replace)
 *   echo VALUE >> FILE   append (filter files only)
 *
 * The files are a table (`files` below): name, a reader, a writer, and
 * whether `>>` appends.  Each write is parsed and checked completely before
 * anything changes; an error is reported in tracefs terms (the message bash
 * prints for a failed write, with the reason in parentheses) and leaves the
 * tracer's state as it was.  Thread context (the shell).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "boot/console.h"
#include "boot/main.h"
#include "boot/sched.h"
#include "trace/btf.h"
#include "trace/cmdparse.h"
#include "trace/fgraph.h"
#include "trace/ftrace.h"
#include "trace/func_cmd.h"
#include "trace/ftrace_internal.h"
#include "trace/graph.h"
#include "trace/hash.h"
#include "trace/options.h"
#include "trace/profile.h"
#include "trace/records.h"
#include "trace/trace.h"
#include "trace/boot.h"

_Static_assert(RB_MAX_SIZE / 1024 == 258984, "set_buffer_size's message names the limit");

static void print_line(void *ctx, const char *line)
{
	kprintf("%s\n", line);
}

static int write_error(int err, const char *why)
{
	if (why)
		kprintf("echo: write error: Invalid argument (%s)\n", why);
	else
		kprintf("echo: write error: %s\n", err == -ENOMEM ? "Cannot allocate memory" :
			err == -EINVAL ? "Invalid argument" :
			err == -EOPNOTSUPP ? "Operation not supported" : "Device or resource busy");
	return err;
}

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

/* Parse a decimal count up to `max`; false unless the whole string is one. */
static bool parse_ulong(const char *s, unsigned long *out, unsigned long max)
{
	char *end;
	if (*s < '0' || *s > '9')
		return false;                  /* no sign, no blank */
	errno = 0;
	*out = strtoul(s, &end, 10);
	return *end == '\0' && errno == 0 && *out <= max;
}

/* Whether there is a buffer (trace_init may have made none); if not, says
 * so for `op` ("cat", "echo") on `file`. */
static bool need_buffer(const char *op, const char *file)
{
	if (trace_buffer)
		return true;
	kprintf("%s: %s: no trace buffer\n", op, file);
	return false;
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
		need_buffer("echo", "current_tracer");
		return err;
	}
	return err ? write_error(err, NULL) : 0;
}

/* ---- the buffer ---- */

static int cat_tracing_on(const char *arg)
{
	kprintf("%d\n", tracing_is_on());
	return 0;
}

static int set_tracing_on(const char *arg, const char *value, bool append)
{
	unsigned long n;
	if (!need_buffer("echo", "tracing_on"))
		return -ENODEV;
	if (!parse_ulong(value, &n, ULONG_MAX))      /* Linux: any number, 0 is off */
		return write_error(-EINVAL, "tracing_on takes a number, 0 for off");
	if (n)
		tracing_on();
	else
		tracing_off();
	return 0;
}

static int cat_trace(const char *arg)
{
	trace_print_all();
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
static int clear_buffer(const char *file, int cpu)
{
	if (!need_buffer("echo", file))
		return -ENODEV;
	record_switch(cpu, false);
	int err = rb_errno(rb_reset(trace_buffer, cpu));
	record_switch(cpu, true);
	return err ? write_error(err, NULL) : 0;
}

static int clear_trace(const char *arg, const char *value, bool append)
{
	return clear_buffer("trace", RB_ALL_CPUS);
}

/* trace_pipe: until a key arrives; a script goes on once it is drained. */
static bool pipe_stop(bool empty)
{
	if (console_trygetc() >= 0)
		return true;
	return empty && !console_interactive;
}

/* Read trace_pipe (all CPUs, or one) with the reader itself not traced:
 * what it calls to print an event would otherwise be recorded as it
 * prints, and the buffer would never drain under a tracer that traces
 * every function (trace/DESIGN.md, "The reader is not traced"). */
static void pipe_read(int cpu)
{
	ftrace_thread_notrace_begin();
	trace_pipe_cpu(cpu, pipe_stop);
	ftrace_thread_notrace_end();
}

static int cat_trace_pipe(const char *arg)
{
	if (!need_buffer("cat", "trace_pipe"))
		return -ENODEV;
	pipe_read(RB_ALL_CPUS);
	return 0;
}

static int cat_write_only(const char *arg)
{
	kprintf("cat: trace_marker: Invalid argument\n");
	return -EINVAL;
}

static int write_marker(const char *arg, const char *value, bool append)
{
	int err = tracing_mark_write(value);
	if (err == -EINVAL)
		return write_error(err, "a mark holds at most 1024 bytes");
	if (err == -ENODEV)
		kprintf("echo: trace_marker: no trace buffer\n");
	else if (err)
		kprintf("echo: write error: Bad file descriptor (recording is off)\n");
	return err;
}

/* saved_cmdlines: "pid comm" of each thread the trace can name. */
static void print_comm(void *ctx, int tid, const char *name)
{
	kprintf("%d %s\n", tid, name);
}

static int cat_saved_cmdlines(const char *arg)
{
	thread_comm_each(print_comm, NULL);
	return 0;
}

/* tracing_cpumask: the CPUs that record, in hex as Linux prints and
 * parses it (no 0x; the CPUs here fit one 32-bit group). */
static int cat_cpumask(const char *arg)
{
	if (!need_buffer("cat", "tracing_cpumask"))
		return -ENODEV;
	kprintf("%x\n", trace_cpumask());
	return 0;
}

static int set_cpumask(const char *arg, const char *value, bool append)
{
	char why[64];
	const char *p = value;
	unsigned long mask = 0;
	if (!need_buffer("echo", "tracing_cpumask"))
		return -ENODEV;
	while (*p == '0')
		p++;
	bool hex = *value != '\0' && strspn(value, "0123456789abcdefABCDEF") == strlen(value);
	if (hex && strlen(p) <= 8)
		mask = strtoul(value, NULL, 16);
	if (!hex || strlen(p) > 8 || trace_set_cpumask((uint32_t)mask) == -EINVAL) {
		ksnprintf(why, sizeof(why), "tracing_cpumask takes a hex mask of CPUs 0-%u",
			  ncpus - 1);
		return write_error(-EINVAL, why);
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
	if (!need_buffer("cat", "buffer_size_kb"))
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
	if (!need_buffer("echo", file))
		return -ENODEV;
	if (!parse_ulong(value, kb, RB_MAX_SIZE / 1024) || *kb == 0)
		return write_error(-EINVAL, "buffer_size_kb must be a number from 1 to 258984");
	/* Z1 and Z4 of a resize (trace/DESIGN.md, "Resize"): tracing may be
	 * on, the writers meanwhile see recording off; the events stay. */
	record_switch(cpu, false);
	int err = rb_errno(rb_resize(trace_buffer, cpu, *kb * 1024));
	record_switch(cpu, true);
	return err ? write_error(err, NULL) : 0;
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
	if (!need_buffer("cat", "buffer_total_size_kb"))
		return -ENODEV;
	for (unsigned c = 0; c < rb_ncpus(trace_buffer); c++)
		kb += size_kb(c);
	kprintf("%lu\n", kb);
	return 0;
}

/* ---- function sets: set_ftrace_*, set_graph_* ---- */

static void print_hash(const struct ftrace_hash *h, const char *empty)
{
	if (hash_empty(h)) {
		if (empty)
			kprintf("%s\n", empty);
		return;
	}
	for (unsigned i = 0; i < ftrace_nrecs; i++)     /* in address order */
		if (hash_contains(h, rec_ip(&ftrace_recs[i])))
			kprintf("%s\n", rec_name(&ftrace_recs[i]));
}

/* What Linux's files say when their set is empty. */
#define ALL_ENABLED "#### all functions enabled ####"
#define NONE_DISABLED "#### no functions disabled ####"

static int cat_ftrace_filter(const char *arg)
{
	print_hash(trace_filter_hash(false), ALL_ENABLED);
	func_cmd_list(print_line, NULL);
	return 0;
}

static int cat_ftrace_notrace(const char *arg)
{
	print_hash(trace_filter_hash(true), NONE_DISABLED);
	return 0;
}

static int cat_graph_function(const char *arg)
{
	print_hash(graph_hash(false), ALL_ENABLED);
	return 0;
}

static int cat_graph_notrace(const char *arg)
{
	print_hash(graph_hash(true), NONE_DISABLED);
	return 0;
}

static int set_funcs(int err)
{
	if (err == -EINVAL)
		return write_error(err, ftrace_filter_error);
	return err ? write_error(err, NULL) : 0;
}

/* A write of commands (func_cmd.h) leaves the filter alone, with > as >>. */
static int set_ftrace_filter(const char *arg, const char *value, bool append)
{
	if (func_cmd_is(value)) {
		int err = func_cmd_write(value);
		return err == -EINVAL ? write_error(err, func_cmd_error) : err ? write_error(err, NULL) : 0;
	}
	return set_funcs(trace_filter_set(false, value, !append));
}

static int set_ftrace_notrace(const char *arg, const char *value, bool append)
{
	return set_funcs(trace_filter_set(true, value, !append));
}

static int set_graph_function(const char *arg, const char *value, bool append)
{
	return set_funcs(graph_set_hash(false, value, !append));
}

static int set_graph_notrace(const char *arg, const char *value, bool append)
{
	return set_funcs(graph_set_hash(true, value, !append));
}

static int cat_available(const char *arg)
{
	ftrace_list_available(print_line, NULL);
	return 0;
}

static int cat_available_addrs(const char *arg)
{
	ftrace_list_available_addrs(print_line, NULL);
	return 0;
}

static int cat_enabled(const char *arg)
{
	ftrace_list_enabled(print_line, NULL);
	return 0;
}

/* ---- graph depth and options ---- */

static int cat_max_graph_depth(const char *arg)
{
	kprintf("%u\n", max_graph_depth);
	return 0;
}

static int set_max_graph_depth(const char *arg, const char *value, bool append)
{
	unsigned long n;
	if (!parse_ulong(value, &n, 0xffffffffu))
		return write_error(-EINVAL, "max_graph_depth takes a number, 0 for no limit");
	graph_set_max_depth((unsigned)n);
	return 0;
}

/* The options the buffer itself holds, from trace_opts to the buffer:
 * after every option write (a no-op for the others). */
static void options_to_buffer(void)
{
	if (trace_buffer)
		rb_set_overwrite(trace_buffer, trace_opt(TRACE_OPT_OVERWRITE));
}

static int cat_trace_options(const char *arg)
{
	trace_opt_list(print_line, NULL);
	return 0;
}

static int set_trace_options(const char *arg, const char *value, bool append)
{
	char why[80];
	if (trace_opt_set(value)) {
		/* A long value is cut, with its closing quote kept. */
		ksnprintf(why, sizeof(why), "no option '%.*s%s'", 40, value,
			  strlen(value) > 40 ? "..." : "");
		return write_error(-EINVAL, why);
	}
	options_to_buffer();
	return 0;
}

/* options/NAME: "0" or "1". */
static int option_index(const char *name)
{
	for (int i = 0; i < TRACE_OPT_COUNT; i++)
		if (!strcmp(name, trace_opt_name(i)))
			return i;
	return -1;
}

static int cat_option(const char *name)
{
	int i = option_index(name);
	if (i < 0)
		return -ENOENT;
	kprintf("%d\n", trace_opt(i));
	return 0;
}

static int set_option(const char *name, const char *value, bool append)
{
	unsigned long n;
	int i = option_index(name);
	if (i < 0)
		return -ENOENT;
	if (!parse_ulong(value, &n, 1))
		return write_error(-EINVAL, "an option takes 0 or 1");
	char word[48];
	ksnprintf(word, sizeof(word), "%s%s", n ? "" : "no", name);
	int err = trace_opt_set(word);
	if (!err)
		options_to_buffer();
	return err;
}

/* ---- the function profiler (trace/profile.h) ---- */

static int cat_profile_enabled(const char *arg)
{
	kprintf("%d\n", profile_enabled());
	return 0;
}

static int set_profile_enabled(const char *arg, const char *value, bool append)
{
	unsigned long n;
	if (!parse_ulong(value, &n, ULONG_MAX))      /* Linux: any number, 0 is off */
		return write_error(-EINVAL, "function_profile_enabled takes a number, 0 for off");
	if (!n) {
		profile_disable();
		return 0;
	}
	int err = profile_enabled() ? 0 : profile_enable();
	return err ? write_error(err, NULL) : 0;
}

/* trace_stat/functionN: CPU N's profile (N as Linux names it: no leading
 * zero, so function01 is no file).  Is `name` one, and of which CPU? */
static bool stat_cpu(const char *name, unsigned long *cpu)
{
	return !strncmp(name, "function", 8) && parse_ulong(name + 8, cpu, MAX_CPUS - 1) &&
	       *cpu < ncpus && !(name[8] == '0' && name[9]);
}

static int cat_trace_stat(const char *name)
{
	unsigned long cpu;
	if (!stat_cpu(name, &cpu))
		return -ENOENT;
	int err = profile_print((unsigned)cpu);
	if (err == -ENOMEM)
		kprintf("cat: trace_stat/%s: Cannot allocate memory\n", name);
	return err == -EINVAL ? -ENOENT : err;
}

/* ---- btf: the signatures (ours; trace/btf.h) ---- */

static int cat_btf(const char *arg)
{
	btf_status(print_line, NULL);
	return 0;
}

/* "embedded" / "initrd" load that blob (a bad one is refused and the
 * current signatures stay); "unload" drops them. */
static int set_btf(const char *arg, const char *value, bool append)
{
	int err;
	if (!strcmp(value, "unload")) {
		btf_unload();
		return 0;
	}
	if (!strcmp(value, "embedded"))
		err = btf_load_embedded();
	else if (!strcmp(value, "initrd"))
		err = btf_load_initrd();
	else
		return write_error(-EINVAL, "btf takes embedded, initrd or unload");
	/* The loader has said why on its line.  (Not -ENOENT back: that
	 * would read as "no such file" for btf itself.) */
	if (err == -ENOENT)
		return write_error(-EINVAL, !strcmp(value, "initrd") ? "no initrd" : "none in this image");
	if (err == -ENOMEM)
		return write_error(err, NULL);   /* "Cannot allocate memory" */
	return err ? write_error(err, "blob rejected") : 0;
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
	if (!parse_ulong(num, &n, MAX_CPUS - 1) || n >= ncpus || (num[0] == '0' && num[1]))
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
	if (!need_buffer("cat", path))
		return -ENODEV;
	switch (f) {
	case PC_TRACE:
		trace_print_cpu((int)cpu);
		return 0;
	case PC_PIPE:
		pipe_read((int)cpu);
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
	return clear_buffer(path, (int)cpu);
}

/* ---- ls of a directory: its entries, or whether it has one ---- */

/* `entry` "": print every entry; else 0 if the directory has it, -ENOENT. */
static int ls_options(const char *entry)
{
	if (*entry)
		return option_index(entry) >= 0 ? 0 : -ENOENT;
	for (int i = 0; i < TRACE_OPT_COUNT; i++)
		kprintf("%s\n", trace_opt_name(i));
	return 0;
}

static int ls_trace_stat(const char *entry)
{
	unsigned long cpu;
	if (*entry)
		return stat_cpu(entry, &cpu) ? 0 : -ENOENT;
	for (unsigned c = 0; c < ncpus; c++)
		kprintf("function%u\n", c);
	return 0;
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

/* ---- the table ---- */

struct tracefs_file {
	const char *name;           /* ends with '/': a directory of entries */
	int (*cat)(const char *arg);                /* arg: the entry in a directory */
	int (*write)(const char *arg, const char *value, bool append);
	bool append;                /* `>>` adds to the set */
	/* A directory's: as ls_options; a directory inside it (per_cpu/cpuN)
	 * prints its entries and returns 1.  cat/write of an entry return
	 * -ENOENT (no such entry), -EISDIR (a directory inside) or -EACCES
	 * (read-only), and the shell says so. */
	int (*ls)(const char *entry);
};

static const struct tracefs_file files[] = {
	{ "available_tracers", cat_tracers, NULL, false },
	{ "current_tracer", cat_current_tracer, set_current_tracer, false },
	{ "tracing_on", cat_tracing_on, set_tracing_on, false },
	{ "trace", cat_trace, clear_trace, false },
	{ "trace_pipe", cat_trace_pipe, NULL, false },
	{ "trace_marker", cat_write_only, write_marker, true },
	{ "buffer_size_kb", cat_buffer_size, set_buffer_size, false },
	{ "buffer_total_size_kb", cat_buffer_total_size, NULL, false },
	{ "tracing_cpumask", cat_cpumask, set_cpumask, false },
	{ "saved_cmdlines", cat_saved_cmdlines, NULL, false },
	{ "set_ftrace_filter", cat_ftrace_filter, set_ftrace_filter, true },
	{ "set_ftrace_notrace", cat_ftrace_notrace, set_ftrace_notrace, true },
	{ "set_graph_function", cat_graph_function, set_graph_function, true },
	{ "set_graph_notrace", cat_graph_notrace, set_graph_notrace, true },
	{ "available_filter_functions", cat_available, NULL, false },
	{ "available_filter_functions_addrs", cat_available_addrs, NULL, false },
	{ "enabled_functions", cat_enabled, NULL, false },
	{ "max_graph_depth", cat_max_graph_depth, set_max_graph_depth, false },
	{ "trace_options", cat_trace_options, set_trace_options, false },
	{ "options/", cat_option, set_option, false, ls_options },
	{ "btf", cat_btf, set_btf, false },
	{ "function_profile_enabled", cat_profile_enabled, set_profile_enabled, false },
	{ "trace_stat/", cat_trace_stat, NULL, false, ls_trace_stat },
	{ "per_cpu/", cat_per_cpu, write_per_cpu, false, ls_per_cpu },
};

/* The file `path` names, and in *arg the entry inside a directory. */
static const struct tracefs_file *find_file(const char *path, const char **arg)
{
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t n = strlen(files[i].name);
		bool dir = files[i].name[n - 1] == '/';
		if (dir ? !strncmp(path, files[i].name, n) && path[n] : !strcmp(path, files[i].name)) {
			*arg = path + (dir ? n : 0);
			return &files[i];
		}
	}
	return NULL;
}

/* The directory `path` names ("options" or "options/"), or NULL. */
static const struct tracefs_file *find_dir(const char *path)
{
	size_t n = strlen(path);
	if (n && path[n - 1] == '/')
		n--;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && n; i++)
		if (files[i].ls && !strncmp(path, files[i].name, n) && files[i].name[n] == '/')
			return &files[i];
	return NULL;
}

/* What cat and echo say of a file they cannot use, as a shell does
 * (the file's own errors print themselves); returns err. */
static int file_error(const char *op, const char *path, int err)
{
	const char *what = err == -ENOENT ? "No such file or directory" :
			   err == -EISDIR ? "Is a directory" :
			   err == -EACCES ? "Permission denied" : NULL;
	if (what)
		kprintf("%s: %s: %s\n", op, path, what);
	return err;
}

static int cat(const char *path)
{
	const char *arg;
	const struct tracefs_file *f = find_dir(path) ? NULL : find_file(path, &arg);
	int err = find_dir(path) ? -EISDIR : f && f->cat ? f->cat(arg) : -ENOENT;
	return file_error("cat", path, err);
}

static int write_file(const char *path, const char *value, bool append)
{
	const char *arg;
	const struct tracefs_file *f = find_dir(path) ? NULL : find_file(path, &arg);
	int err;
	if (find_dir(path))
		err = -EISDIR;
	else if (!f)
		err = -ENOENT;
	else if (!f->write)
		err = -EACCES;
	else if (append && !f->append) {
		kprintf("echo: %s: '>>' only appends to filter files\n", path);
		return -EINVAL;
	} else
		err = f->write(arg, value, append);
	return file_error("echo", path, err);
}

/* "echo WORDS > FILE" / "echo WORDS >> FILE" (trace/cmdparse.h). */
static int echo(char *args)
{
	struct echo_args e;
	const char *why;
	if (cmdparse_echo(args, &e, &why)) {
		kprintf("echo: %s\n", why);
		return -EINVAL;
	}
	if (!e.file) {
		kprintf("%s\n", e.value);    /* plain echo */
		return 0;
	}
	return write_file(e.file, e.value, e.append);
}

/* "ls [PATH]": the files, one per line, a directory with its '/'; a
 * directory's entries (its ls); a file or a directory's entry by name if
 * there is one, as cat finds it. */
static int ls(const char *path)
{
	if (!*path || !strcmp(path, "/")) {
		tracefs_list_files(print_line, NULL);
		return 0;
	}
	const struct tracefs_file *f = find_dir(path);
	if (f)
		return f->ls("");
	const char *arg;
	f = find_file(path, &arg);
	int r = f && f->ls ? f->ls(arg) : f ? 0 : -ENOENT;
	if (r > 0)
		return 0;                /* a directory inside: listed */
	if (r == 0) {
		kprintf("%s\n", path);
		return 0;
	}
	kprintf("ls: cannot access '%s': No such file or directory\n", path);
	return -ENOENT;
}

int tracefs_command(const char *cmd, char *args, bool *handled)
{
	*handled = true;
	if (!strcmp(cmd, "cat")) {
		if (!*args) {
			kprintf("cat: which file? (try 'help')\n");
			return -EINVAL;
		}
		return cat(args);
	}
	if (!strcmp(cmd, "echo"))
		return echo(args);
	if (!strcmp(cmd, "ls"))
		return ls(args);
	*handled = false;
	return 0;
}

void tracefs_list_files(void (*out)(void *ctx, const char *line), void *ctx)
{
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		out(ctx, files[i].name);
}
