/*
 * tracefs.c — the tracefs files as shell commands.
 *
 *   cat FILE             print it
 *   echo VALUE > FILE    write it (replace)
 *   echo VALUE >> FILE   append (filters only)
 *
 * Files: current_tracer, available_tracers, tracing_on, trace,
 * set_ftrace_filter, set_ftrace_notrace, available_filter_functions,
 * enabled_functions, buffer_size_kb.  Each command is parsed and checked
 * completely before anything changes; an error is reported in tracefs terms
 * and leaves the tracer's state as it was.  Thread context (the shell).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "boot/console.h"
#include "trace/ftrace.h"
#include "trace/ftrace_internal.h"
#include "trace/hash.h"
#include "trace/records.h"
#include "trace/trace.h"
#include "trace/tracefs.h"

static bool tracing_on = true;                 /* shell thread only */

static void print_line(void *ctx, const char *line)
{
	kprintf("%s\n", line);
}

static void print_tracer_name(const char *name, void *first)
{
	kprintf("%s%s", *(bool *)first ? "" : " ", name);
	*(bool *)first = false;
}

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

static int cat(const char *file)
{
	if (!strcmp(file, "current_tracer"))
		kprintf("%s\n", tracer_current()->name);
	else if (!strcmp(file, "available_tracers")) {
		bool first = true;
		tracer_list(print_tracer_name, &first);
		kprintf("\n");
	} else if (!strcmp(file, "tracing_on"))
		kprintf("%d\n", tracing_on);
	else if (!strcmp(file, "trace"))
		trace_print_all();
	else if (!strcmp(file, "set_ftrace_filter"))
		print_hash(trace_filter_hash(false), "#### all functions enabled ####");
	else if (!strcmp(file, "set_ftrace_notrace"))
		print_hash(trace_filter_hash(true), NULL);
	else if (!strcmp(file, "available_filter_functions"))
		ftrace_list_available(print_line, NULL);
	else if (!strcmp(file, "enabled_functions"))
		ftrace_list_enabled(print_line, NULL);
	else if (!strcmp(file, "buffer_size_kb"))
		kprintf("%lu\n", (unsigned long)(trace_buf_size / 1024));
	else {
		kprintf("cat: %s: No such file or directory\n", file);
		return -ENOENT;
	}
	return 0;
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

static int write_file(const char *file, const char *value, bool append)
{
	unsigned long n;
	int err = 0;
	if (append && strcmp(file, "set_ftrace_filter") && strcmp(file, "set_ftrace_notrace")) {
		kprintf("echo: %s: '>>' only appends to filter files\n", file);
		return -EINVAL;
	}
	if (!strcmp(file, "current_tracer")) {
		if (!tracer_find(value)) {
			kprintf("echo: write error: Invalid argument (no tracer '%s')\n", value);
			return -EINVAL;
		}
		err = tracer_set(value);
	} else if (!trace_buffer && (!strcmp(file, "tracing_on") || !strcmp(file, "trace") ||
				     !strcmp(file, "buffer_size_kb"))) {
		kprintf("echo: %s: no trace buffer\n", file);
		return -ENODEV;
	} else if (!strcmp(file, "tracing_on")) {
		if (!parse_ulong(value, &n, 1)) {
			kprintf("echo: write error: Invalid argument (tracing_on takes 0 or 1)\n");
			return -EINVAL;
		}
		if (n && !tracing_on)
			rb_record_on(trace_buffer);
		else if (!n && tracing_on)
			rb_record_off(trace_buffer);
		tracing_on = n != 0;
	} else if (!strcmp(file, "trace")) {
		rb_record_off(trace_buffer);
		err = rb_reset(trace_buffer, RB_ALL_CPUS);
		rb_record_on(trace_buffer);
	} else if (!strcmp(file, "set_ftrace_filter") || !strcmp(file, "set_ftrace_notrace")) {
		bool notrace = !strcmp(file, "set_ftrace_notrace");
		err = trace_filter_set(notrace, value, !append);
		if (err == -EINVAL) {
			kprintf("echo: write error: Invalid argument (%s)\n", ftrace_filter_error);
			return err;
		}
	} else if (!strcmp(file, "buffer_size_kb")) {
		if (!parse_ulong(value, &n, 1024 * 1024) || n == 0) {
			kprintf("echo: write error: Invalid argument (buffer_size_kb must be a "
				"number from 1 to 1048576)\n");
			return -EINVAL;
		}
		rb_record_off(trace_buffer);
		err = rb_resize(trace_buffer, RB_ALL_CPUS, n * 1024);
		rb_record_on(trace_buffer);
		if (!err)
			trace_buf_size = n * 1024;
	} else {
		kprintf("echo: %s: No such file or directory\n", file);
		return -ENOENT;
	}
	if (err)
		kprintf("echo: write error: %s\n", err == -ENOMEM ? "Cannot allocate memory" :
			"Device or resource busy");
	return err;
}

/* "echo WORDS > FILE" / "echo WORDS >> FILE"; quotes around WORDS allowed. */
static int echo(char *args)
{
	char *gt = strrchr(args, '>');
	if (!gt) {
		kprintf("%s\n", args);       /* plain echo */
		return 0;
	}
	bool append = gt > args && gt[-1] == '>';
	char *file = gt + 1, *vend = append ? gt - 1 : gt;
	while (*file == ' ')
		file++;
	*vend = '\0';
	while (vend > args && vend[-1] == ' ')
		*--vend = '\0';
	char *value = args;
	size_t len = strlen(value);
	if (len >= 2 && (value[0] == '\'' || value[0] == '"') && value[len - 1] == value[0]) {
		value[len - 1] = '\0';
		value++;
	}
	if (!*file) {
		kprintf("echo: missing file after '>'\n");
		return -EINVAL;
	}
	return write_file(file, value, append);
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
	*handled = false;
	return 0;
}
