/*
 * marker.c — trace_marker: text written from the shell into the buffer as
 * Linux's `print` event (TRACE_PRINT), the event's printer, and the file.
 *
 *   echo hello > trace_marker      one event: "hello\n"
 *   cat trace:  "<context> tracing_mark_write: hello"
 *
 * The event names its writer (tracing_mark_write) as Linux's does, and
 * prints with it; function_graph prints it as a comment in its graph
 * instead (trace/graph_output.c).
 */
#include <errno.h>
#include <string.h>

#include "boot/console.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "trace/trace.h"
#include "trace/tracefs.h"

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

/* A trace_marker write: "tracing_mark_write: text" (Linux's print event). */
static bool marker_print(struct trace_iter *ti)
{
	const struct print_entry *e = (const void *)ti->ent;
	if (ti->ev.len <= sizeof(*e))
		return false;
	const char *fn = ksym_lookup(e->ip, NULL, NULL);
	trace_print_context(&ti->ev, ti->ent);
	/* Bounded by the event: a damaged one has no NUL. */
	int n = (int)strnlen(e->buf, ti->ev.len - sizeof(*e));
	kprintf("%s: %.*s", fn ? fn : "?", n, e->buf);
	if (!n || e->buf[n - 1] != '\n')
		kprintf("\n");
	return true;
}
TRACE_EVENT_PRINTER(TRACE_PRINT, marker_print);

/* ---- the file: write-only ---- */

static int cat_write_only(const char *arg)
{
	kprintf("cat: trace_marker: Invalid argument\n");
	return -EINVAL;
}

static int write_marker(const char *arg, const char *value, bool append)
{
	int err = tracing_mark_write(value);
	if (err == -EINVAL)
		return tracefs_write_error(err, "a mark holds at most 1024 bytes");
	if (err == -ENODEV)
		kprintf("echo: trace_marker: no trace buffer\n");
	else if (err)
		kprintf("echo: write error: Bad file descriptor (recording is off)\n");
	return err;
}

TRACEFS_FILE(060, "trace_marker", .cat = cat_write_only, .write = write_marker, .append = true);
