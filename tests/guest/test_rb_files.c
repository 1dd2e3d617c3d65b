/*
 * test_rb_files.c — the trace buffer's loss accounting as the tracefs files
 * show it (suite ring_buffer): options/overwrite, per_cpu/cpuN/buffer_size_kb,
 * per_cpu/cpuN/stats and per_cpu/cpuN/trace_pipe, driven through the shell's
 * commands (tracefs_command) and read back through console_tap, whole lines.
 *
 * A thread pinned to one CPU writes a known number of trace_marker events of
 * one size (24 bytes with the header: 170 to a 4080-byte page) into that
 * CPU's buffer shrunk to 3 pages; with the nop tracer nothing else writes
 * there, so what fits and what is lost is exact:
 *   producer/consumer: the 3 pages fill (510), the rest is dropped;
 *   overwrite: the 4th page overwrites the 1st (170 overrun), 430 stay.
 * An event more than 2^27 clock cycles after the one before it takes a time
 * extend (8 bytes), and one fewer would fit: a run whose writes spanned that
 * long (a host that stopped the vCPU) is cleared and run again, at most
 * RUNS times.  The files_resize_* cases resize that buffer (and every
 * CPU's) with the events in and tracing on: the events and counts stay, a
 * shrink drops the oldest pages as overrun, `cat trace` counts losses in
 * its header only and trace_pipe reports them in a LOST line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch/hooks.h"
#include "boot/clock.h"
#include "boot/console.h"
#include "boot/sched.h"
#include "boot/test.h"
#include "trace/options.h"
#include "trace/trace.h"
#include "trace/boot.h"

#define MARK        "x"        /* print_entry (16) + "x\n\0" = 19 -> 20 payload, 24 in all */
#define EV_BYTES    24u
#define PER_PAGE    (RB_DATA_SIZE / EV_BYTES)     /* 170, no room left over */
#define PAGES       3u         /* 8 KB rounds up to 3 pages of 4080 */
#define WRITES      600u       /* 3.5 pages' worth */
#define RUNS        5u

_Static_assert(PER_PAGE * EV_BYTES == RB_DATA_SIZE, "the events fill a page exactly");
_Static_assert(WRITES > PAGES * PER_PAGE && WRITES <= (PAGES + 1) * PER_PAGE,
	       "one page more than the ring holds, partly filled");

static struct {
	char text[1024];
	size_t len;
	unsigned lines;
} out;

static void tap(void *ctx, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out.lines += s[i] == '\n';
	size_t room = sizeof(out.text) - 1 - out.len;
	n = n < room ? n : room;
	memcpy(out.text + out.len, s, n);
	out.len += n;
	out.text[out.len] = '\0';
}

/* Run `cmd args` as the shell does; its output lands in `out`. */
static int sh(const char *cmd, const char *fmt, unsigned cpu)
{
	char line[96];
	bool handled;
	ksnprintf(line, sizeof(line), fmt, cpu);
	memset(&out, 0, sizeof(out));
	console_tap(tap, NULL);
	int err = tracefs_command(cmd, line, &handled);
	console_tap(NULL, NULL);
	return err;
}

struct writes {
	unsigned ok;               /* tracing_mark_write() took it */
	uint64_t span;             /* clock cycles from the first write to the last */
};

static int writer(void *arg)
{
	struct writes *w = arg;
	uint64_t t0 = arch_counter();
	for (unsigned i = 0; i < WRITES; i++)
		w->ok += tracing_mark_write(MARK) == 0;
	w->span = arch_counter() - t0;
	return 0;
}

static int one_mark(void *arg)
{
	return tracing_mark_write(MARK);
}

/* WRITES markers on `cpu`, in a run fast enough to need no time extend. */
static bool write_on(unsigned cpu, unsigned *ok)
{
	for (unsigned run = 0; run < RUNS; run++) {
		struct writes w = { 0 };
		if (sh("echo", "> per_cpu/cpu%u/trace", cpu))
			return false;
		struct thread *t = thread_create("rb-files", writer, &w, (int)cpu);
		if (!t)
			return false;
		thread_join(t);
		*ok = w.ok;
		if (w.span < RB_DELTA_MAX)
			return true;
		kprintf("    # writes spanned %llu cycles (a time extend possible): again\n",
			(unsigned long long)w.span);
	}
	return false;
}

/* `cat per_cpu/cpuN/stats`, every line compared whole: "oldest event ts"
 * with the first event's time as a consuming reader sees it, "now ts"
 * between the clock's readings around the cat. */
static void stats_are(unsigned cpu, unsigned long entries, unsigned long overrun,
		      unsigned long dropped, unsigned long read)
{
	char want[320], oldest[32], lo[32], hi[32];
	struct rb_event ev;
	uint64_t first = rb_peek(trace_buffer, cpu, &ev) == 0 ? ev.ts : 0;
	EXPECT_EQ(first != 0, entries != 0);
	trace_format_ts(oldest, sizeof(oldest), first);
	uint64_t before = arch_counter();
	EXPECT_EQ(sh("cat", "per_cpu/cpu%u/stats", cpu), 0);
	uint64_t after = arch_counter();
	trace_format_ts(lo, sizeof(lo), before);
	trace_format_ts(hi, sizeof(hi), after);
	const char *now = strstr(out.text, "now ts: ");
	ASSERT_TRUE(now != NULL);
	now += strlen("now ts: ");
	size_t nlen = strcspn(now, "\n");
	/* Same width (5.6 digits): the text compares as the number does. */
	EXPECT_TRUE(nlen == strlen(lo) && strncmp(now, lo, nlen) >= 0 && strncmp(now, hi, nlen) <= 0);
	ksnprintf(want, sizeof(want),
		  "entries: %lu\noverrun: %lu\ncommit overrun: 0\nbytes: %lu\n"
		  "oldest event ts: %s\nnow ts: %.*s\ndropped events: %lu\nread events: %lu\n",
		  entries, overrun, entries * EV_BYTES, oldest, (int)nlen, now, dropped, read);
	EXPECT_STREQ(out.text, want);
}

static unsigned test_cpu(void)
{
	return ncpus > 1 ? ncpus - 1 : 0;      /* not the boot CPU, when there is another */
}

static char tracer_was[32];
static size_t size_was[MAX_CPUS];

/* nop, the buffer empty, `cpu`'s buffer 3 pages. */
static bool setup(unsigned cpu)
{
	ksnprintf(tracer_was, sizeof(tracer_was), "%s", tracer_current()->name);
	if (!trace_buffer || tracer_set("nop") || sh("echo", "> trace", cpu))
		return false;
	for (unsigned c = 0; c < ncpus; c++)
		size_was[c] = rb_size(trace_buffer, c);
	if (sh("echo", "8 > per_cpu/cpu%u/buffer_size_kb", cpu) ||
	    sh("cat", "per_cpu/cpu%u/buffer_size_kb", cpu))
		return false;
	EXPECT_STREQ(out.text, "11\n");            /* 3 pages of 4080 bytes */
	return true;
}

/* `cpu`'s size back (its KB round up to the same pages), the default mode,
 * the buffer empty, the tracer as it was. */
static void teardown(unsigned cpu)
{
	char line[64];
	bool handled;
	ksnprintf(line, sizeof(line), "%lu > per_cpu/cpu%u/buffer_size_kb",
		  (unsigned long)size_was[cpu] / 1024, cpu);
	EXPECT_EQ(tracefs_command("echo", line, &handled), 0);
	EXPECT_EQ(rb_size(trace_buffer, cpu), size_was[cpu]);
	EXPECT_EQ(sh("echo", "1 > options/overwrite", 0), 0);
	EXPECT_EQ(sh("echo", "> trace", 0), 0);
	EXPECT_EQ(tracer_set(tracer_was), 0);
	EXPECT_TRUE(rb_overwrite(trace_buffer));
}

TEST_CASE(ring_buffer, files_producer_consumer_loss)
{
	unsigned cpu = test_cpu(), ok = 0;
	ASSERT_TRUE(setup(cpu));
	EXPECT_EQ(sh("echo", "0 > options/overwrite", cpu), 0);
	EXPECT_EQ(sh("cat", "options/overwrite", cpu), 0);
	EXPECT_STREQ(out.text, "0\n");
	ASSERT_TRUE(write_on(cpu, &ok));
	EXPECT_EQ(ok, PAGES * PER_PAGE);               /* the rest came back refused */
	stats_are(cpu, PAGES * PER_PAGE, 0, WRITES - PAGES * PER_PAGE, 0);
	/* One event on another CPU, which the pipe below must leave alone. */
	unsigned other = cpu ? 0 : 1;
	if (other < ncpus) {
		struct thread *t = thread_create("rb-files", one_mark, NULL, (int)other);
		ASSERT_TRUE(t != NULL);
		thread_join(t);
	}
	/* A consuming read of that CPU: every event that fit, once. */
	EXPECT_EQ(sh("cat", "per_cpu/cpu%u/trace_pipe", cpu), 0);
	EXPECT_EQ(out.lines, PAGES * PER_PAGE);
	stats_are(cpu, 0, 0, WRITES - PAGES * PER_PAGE, PAGES * PER_PAGE);
	if (other < ncpus)
		stats_are(other, 1, 0, 0, 0);
	teardown(cpu);
}

TEST_CASE(ring_buffer, files_overwrite_loss)
{
	unsigned cpu = test_cpu(), ok = 0;
	ASSERT_TRUE(setup(cpu));
	EXPECT_EQ(sh("cat", "options/overwrite", cpu), 0);
	EXPECT_STREQ(out.text, "1\n");                 /* the default */
	ASSERT_TRUE(write_on(cpu, &ok));
	EXPECT_EQ(ok, WRITES);
	/* Entering page 4 overwrote page 1, whole. */
	stats_are(cpu, WRITES - PER_PAGE, PER_PAGE, 0, 0);
	/* The other CPUs: untouched by the resize and the writes. */
	for (unsigned c = 0; c < ncpus; c++) {
		if (c == cpu)
			continue;
		EXPECT_EQ(rb_size(trace_buffer, c), size_was[c]);
		stats_are(c, 0, 0, 0, 0);
	}
	teardown(cpu);
}

/*
 * Resizes keep the events (Linux's ring_buffer_resize), through the files
 * and with tracing on: after the overwrite run above, `cpu`'s ring holds
 * pages 2 (170), 3 (170) and 4 (90 events), page 1's 170 overrun.
 */
#define IN_RING     (WRITES - PER_PAGE)                /* 430 */
#define LAST_PAGE   (WRITES - 3 * PER_PAGE)            /* 90 */

/* `cat trace`'s header says in/written, and no LOST line follows (the
 * losses before a read are in the header only). */
static void trace_header_is(unsigned long in, unsigned long written)
{
	char want[96];
	ksnprintf(want, sizeof(want), "# entries-in-buffer/entries-written: %lu/%lu   #P:%u\n", in,
		  written, ncpus);
	EXPECT_EQ(sh("cat", "trace", 0), 0);
	EXPECT_TRUE(strstr(out.text, want) != NULL);
	EXPECT_TRUE(strstr(out.text, "LOST") == NULL);
}

/* per_cpu/cpuN/trace_pipe: `lost` reported first (if any), then `n` events. */
static void pipe_is(unsigned cpu, unsigned long lost, unsigned long n)
{
	char want[48];
	ksnprintf(want, sizeof(want), "CPU:%u [LOST %lu EVENTS]\n", cpu, lost);
	EXPECT_EQ(sh("cat", "per_cpu/cpu%u/trace_pipe", cpu), 0);
	EXPECT_EQ(out.lines, n + (lost != 0));
	if (lost)
		EXPECT_TRUE(strncmp(out.text, want, strlen(want)) == 0);
	EXPECT_TRUE(strstr(out.text + (lost ? strlen(want) : 0), "LOST") == NULL);
}

TEST_CASE(ring_buffer, files_resize_grow_keeps)
{
	unsigned cpu = test_cpu(), ok = 0;
	ASSERT_TRUE(setup(cpu));
	ASSERT_TRUE(write_on(cpu, &ok));
	EXPECT_EQ(ok, WRITES);
	EXPECT_EQ(sh("echo", "64 > per_cpu/cpu%u/buffer_size_kb", cpu), 0);   /* 17 pages */
	EXPECT_EQ(rb_size(trace_buffer, cpu), 17 * RB_DATA_SIZE);
	stats_are(cpu, IN_RING, PER_PAGE, 0, 0);
	trace_header_is(IN_RING, WRITES);
	/* Back to 3 pages: the reader holds page 2 (stats_are peeked at it), 3
	 * and 4 fit in the ring: nothing lost. */
	EXPECT_EQ(sh("echo", "8 > per_cpu/cpu%u/buffer_size_kb", cpu), 0);
	stats_are(cpu, IN_RING, PER_PAGE, 0, 0);
	pipe_is(cpu, PER_PAGE, IN_RING);
	stats_are(cpu, 0, PER_PAGE, 0, IN_RING);
	teardown(cpu);
}

TEST_CASE(ring_buffer, files_resize_shrink_drops_oldest)
{
	unsigned cpu = test_cpu(), ok = 0;
	ASSERT_TRUE(setup(cpu));
	ASSERT_TRUE(write_on(cpu, &ok));
	EXPECT_EQ(ok, WRITES);
	/* 2 pages: page 2 goes, counted as overrun with page 1. */
	EXPECT_EQ(sh("echo", "4 > per_cpu/cpu%u/buffer_size_kb", cpu), 0);
	EXPECT_EQ(rb_size(trace_buffer, cpu), 2 * RB_DATA_SIZE);
	stats_are(cpu, PER_PAGE + LAST_PAGE, 2 * PER_PAGE, 0, 0);
	trace_header_is(PER_PAGE + LAST_PAGE, WRITES);
	trace_header_is(PER_PAGE + LAST_PAGE, WRITES);      /* and again: no LOST line */
	pipe_is(cpu, 2 * PER_PAGE, PER_PAGE + LAST_PAGE);
	stats_are(cpu, 0, 2 * PER_PAGE, 0, PER_PAGE + LAST_PAGE);
	teardown(cpu);
}

/* buffer_size_kb resizes every CPU, each keeping its own events. */
TEST_CASE(ring_buffer, files_resize_every_cpu)
{
	unsigned ok = 0;
	size_t buf_was = trace_buf_size;        /* what buffer_size_kb last set */
	char line[64];
	bool handled;
	ASSERT_TRUE(setup(0));
	EXPECT_EQ(sh("echo", "8 > buffer_size_kb", 0), 0);
	for (unsigned c = 0; c < ncpus; c++) {
		ASSERT_TRUE(write_on(c, &ok));
		EXPECT_EQ(ok, WRITES);
	}
	/* 2 pages: on each CPU page 2 goes, counted as overrun with page 1. */
	EXPECT_EQ(sh("echo", "4 > buffer_size_kb", 0), 0);
	for (unsigned c = 0; c < ncpus; c++)
		stats_are(c, PER_PAGE + LAST_PAGE, 2 * PER_PAGE, 0, 0);
	trace_header_is(ncpus * (PER_PAGE + LAST_PAGE), ncpus * WRITES);
	/* Larger again: everything stays, counts and all. */
	EXPECT_EQ(sh("echo", "64 > buffer_size_kb", 0), 0);
	for (unsigned c = 0; c < ncpus; c++)
		stats_are(c, PER_PAGE + LAST_PAGE, 2 * PER_PAGE, 0, 0);
	trace_header_is(ncpus * (PER_PAGE + LAST_PAGE), ncpus * WRITES);
	/* Sizes back, and buffer_size_kb's own record of the size (others
	 * read it: the enomem suite resizes back to it). */
	ksnprintf(line, sizeof(line), "%lu > buffer_size_kb", (unsigned long)buf_was / 1024);
	EXPECT_EQ(tracefs_command("echo", line, &handled), 0);
	EXPECT_EQ(trace_buf_size, buf_was);
	for (unsigned c = 0; c < ncpus; c++) {
		ksnprintf(line, sizeof(line), "%lu > per_cpu/cpu%u/buffer_size_kb",
			  (unsigned long)size_was[c] / 1024, c);
		EXPECT_EQ(tracefs_command("echo", line, &handled), 0);
		EXPECT_EQ(rb_size(trace_buffer, c), size_was[c]);
	}
	teardown(0);
}
