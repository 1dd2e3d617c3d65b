/*
 * output.c — `cat trace`: the buffer as text, all CPUs merged by time.
 *
 * The layout is Linux's: the "# tracer:" header with entry counts, the
 * tracer's column header, then one line per event with the context columns
 * (task-pid, [cpu], latency flags, seconds.microseconds) and the tracer's
 * own text.  Printing iterates without consuming; recording pauses meanwhile
 * (rb_iter_start), as reading Linux's trace file does.  An event's text is
 * the current tracer's (its print) or else its type's printer
 * (TRACE_EVENT_PRINTER, registered by the file that writes the event).
 *
 * Files: trace, trace_pipe, saved_cmdlines.
 */
#include <errno.h>
#include <string.h>

#include "boot/clock.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/main.h"
#include "boot/sched.h"
#include "trace/ftrace.h"
#include "trace/trace.h"
#include "trace/tracefs.h"

extern const struct trace_event __trace_events_start[], __trace_events_end[];

static struct mutex print_mutex = MUTEX_INIT;    /* one printing pass at a time */
static bool print_event(const struct tracer *t, struct trace_iter *ti);

const char *trace_comm(int pid, char *buf, size_t size)
{
	return thread_comm(pid, buf, size);
}

void trace_format_ts(char *buf, size_t size, uint64_t ts)
{
	uint64_t ns = clock_cycles_to_ns(ts);
	ksnprintf(buf, size, "%5llu.%06llu", (unsigned long long)(ns / 1000000000ull),
		  (unsigned long long)(ns % 1000000000ull / 1000));
}

void trace_print_context(const struct rb_event *ev, const struct trace_entry *ent)
{
	char comm[24], ts[32];
	const char *name = trace_comm(ent->pid, comm, sizeof(comm));
	trace_format_ts(ts, sizeof(ts), ev->ts);
	char depth = ent->preempt_count ? "0123456789abcdef"[ent->preempt_count & 15] : '.';
	kprintf("%16s-%-7d [%03u] %c%c%c%c. %s: ", name, ent->pid, ev->cpu,
		(ent->flags & TRACE_FLAG_IRQS_OFF) ? 'd' : '.',
		(ent->flags & TRACE_FLAG_NEED_RESCHED) ? 'N' : '.',
		(ent->flags & TRACE_FLAG_HARDIRQ) ? 'h' : '.', depth, ts);
}

/* Linux's trace_default_header for the function-style tracers. */
static void default_header(unsigned long in_buffer, unsigned long written)
{
	kprintf("# entries-in-buffer/entries-written: %lu/%lu   #P:%u\n#\n", in_buffer, written,
		ncpus);
	kprintf("#                                _-----=> irqs-off/BH-disabled\n"
		"#                               / _----=> need-resched\n"
		"#                              | / _---=> hardirq/softirq\n"
		"#                              || / _--=> preempt-depth\n"
		"#                              ||| / _-=> migrate-disable\n"
		"#                              |||| /     delay\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"#              | |         |   |||||     |         |\n");
}

/* A pass over ti->it, printing the events of `cpu` only, or of every CPU
 * (RB_ALL_CPUS).  The header counts the whole buffer either way, as
 * Linux's per_cpu/cpuN/trace does. */
static unsigned long print_pass(struct trace_iter *ti, int cpu)
{
	const struct tracer *t = tracer_current();
	/* Count on a copy of the iterator: the pass itself starts from the
	 * same place. */
	struct rb_iter *walk = &ti->count;
	struct rb_event ev;
	unsigned long in_buffer = 0, lost = 0, printed = 0;
	*walk = ti->it;
	while (rb_iter_next(walk, &ev) == 0)
		in_buffer++;
	for (unsigned c = 0; c < rb_ncpus(trace_buffer); c++) {
		struct rb_stats st;
		if (rb_stats(trace_buffer, c, &st) == 0)
			lost += st.overrun + st.dropped;
	}
	kprintf("# tracer: %s\n#\n", t->name);
	if (t->print_header)
		t->print_header();
	else
		default_header(in_buffer, in_buffer + lost);
	ti->consuming = false;
	for (unsigned c = 0; c < MAX_CPUS; c++)
		ti->last_pid[c] = -1;
	while (rb_iter_next(&ti->it, &ti->ev) == 0)
		if (cpu == RB_ALL_CPUS || ti->ev.cpu == (unsigned)cpu)
			printed += print_event(t, ti);
	return printed;
}

unsigned long trace_print_pass(struct trace_iter *ti)
{
	return print_pass(ti, RB_ALL_CPUS);
}

unsigned long trace_print_cpu(int cpu)
{
	static struct trace_iter ti;        /* large; one printer at a time (print_mutex) */
	if (!trace_buffer) {
		kprintf("# tracer: %s\n# (no trace buffer)\n", tracer_current()->name);
		return 0;
	}
	mutex_lock(&print_mutex);
	/* All CPUs even for one: the header counts them all. */
	int err = rb_iter_start(&ti.it, trace_buffer, RB_ALL_CPUS);
	if (err) {
		mutex_unlock(&print_mutex);
		kprintf("# trace: cannot read the buffer: %s\n", rb_strerror(err));
		return 0;
	}
	unsigned long printed = print_pass(&ti, cpu);
	rb_iter_end(&ti.it);
	mutex_unlock(&print_mutex);
	return printed;
}

unsigned long trace_print_all(void)
{
	return trace_print_cpu(RB_ALL_CPUS);
}

/*
 * One event.  Its losses are a line of their own only for a consuming
 * reader (trace_pipe), as in Linux: `cat trace` counts the losses before
 * the read in its header (entries-written) alone, and Linux's trace file
 * prints a LOST line only for events the writer overwrote while it was
 * being read, which cannot happen here (the iterator pauses recording,
 * rb_iter_start, as Linux's pause-on-trace does).
 */
static bool print_event(const struct tracer *t, struct trace_iter *ti)
{
	if (ti->ev.lost && ti->consuming)
		kprintf("CPU:%u [LOST %llu EVENTS]\n", ti->ev.cpu, (unsigned long long)ti->ev.lost);
	if (ti->ev.len < sizeof(struct trace_entry) || ti->ev.len > sizeof(ti->copy))
		return false;
	memcpy(ti->copy, ti->ev.data, ti->ev.len);
	ti->ev.data = ti->copy;
	ti->ent = (const struct trace_entry *)ti->copy;
	if (t->print && t->print(ti))
		return true;
	/* Events of an earlier tracer print in their own format. */
	for (const struct trace_event *e = __trace_events_start; e < __trace_events_end; e++)
		if (e->type == ti->ent->type)
			return e->print(ti);
	return false;
}

unsigned long trace_pipe(bool (*stop)(bool empty))
{
	return trace_pipe_cpu(RB_ALL_CPUS, stop);
}

unsigned long trace_pipe_cpu(int cpu, bool (*stop)(bool empty))
{
	static struct trace_iter ti;
	unsigned long printed = 0;
	if (!trace_buffer)
		return 0;
	mutex_lock(&print_mutex);
	memset(&ti, 0, sizeof(ti));
	ti.consuming = true;
	for (unsigned c = 0; c < MAX_CPUS; c++)
		ti.last_pid[c] = -1;
	const struct tracer *t = tracer_current();
	for (;;) {
		bool empty = (cpu == RB_ALL_CPUS ? rb_consume_merged(trace_buffer, &ti.ev) :
			      rb_consume(trace_buffer, (unsigned)cpu, &ti.ev)) != 0;
		if (!empty)
			printed += print_event(t, &ti);
		if (stop(empty))
			break;
		if (empty)
			thread_sleep_ns(20 * 1000 * 1000);
	}
	mutex_unlock(&print_mutex);
	return printed;
}

int trace_iter_peek(struct trace_iter *ti, unsigned cpu, struct rb_event *ev)
{
	if (ti->consuming)
		return rb_peek(trace_buffer, cpu, ev);
	return rb_iter_peek_cpu(&ti->it, cpu, ev);
}

void trace_iter_skip(struct trace_iter *ti, unsigned cpu)
{
	struct rb_event gone;
	if (ti->consuming)
		rb_consume(trace_buffer, cpu, &gone);
	else
		rb_iter_drop_cpu(&ti->it, cpu);
}

/* ---- the files ---- */

static int cat_trace(const char *arg)
{
	trace_print_all();
	return 0;
}

static int clear_trace(const char *arg, const char *value, bool append)
{
	return trace_clear_buffer("trace", RB_ALL_CPUS);
}

/* trace_pipe: until a key arrives; a script goes on once it is drained. */
static bool pipe_stop(bool empty)
{
	if (console_trygetc() >= 0)
		return true;
	return empty && !console_interactive;
}

/* The reader itself is not traced: what it calls to print an event would
 * otherwise be recorded as it prints, and the buffer would never drain
 * under a tracer that traces every function (trace/DESIGN.md, "The reader
 * is not traced"). */
void trace_pipe_read(int cpu)
{
	ftrace_thread_notrace_begin();
	trace_pipe_cpu(cpu, pipe_stop);
	ftrace_thread_notrace_end();
}

static int cat_trace_pipe(const char *arg)
{
	if (!trace_need_buffer("cat", "trace_pipe"))
		return -ENODEV;
	trace_pipe_read(RB_ALL_CPUS);
	return 0;
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

TRACEFS_FILE(040, "trace", .cat = cat_trace, .write = clear_trace);
TRACEFS_FILE(050, "trace_pipe", .cat = cat_trace_pipe);
TRACEFS_FILE(100, "saved_cmdlines", .cat = cat_saved_cmdlines);
