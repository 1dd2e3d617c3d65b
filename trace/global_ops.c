/*
 * global_ops.c — set_ftrace_filter / set_ftrace_notrace: the filter the
 * function tracer, function_graph and the function profiler share (Linux's
 * global ops), its boot options, and the glob splitting every filter boot
 * option uses.
 *
 * Boot options: ftrace_filter=, ftrace_notrace= (Linux's meanings: comma-
 * or space-separated globs, each applied on its own: a bad one is reported
 * and skipped, the others apply).  The ops the filter drives say so
 * themselves (GLOBAL_OPS, trace/global_ops.h).
 */
#include <errno.h>
#include <string.h>

#include "boot/cmdline.h"
#include "boot/console.h"
#include "lib/glob.h"
#include "trace/ftrace.h"
#include "trace/ftrace_filter.h"
#include "trace/func_cmd.h"
#include "trace/global_ops.h"
#include "trace/hash.h"
#include "trace/records.h"
#include "trace/tracefs.h"

extern struct ftrace_ops *const __global_ops_start[], *const __global_ops_end[];

static const char *boot_filter, *boot_notrace;

/* The next pattern of a boot option's value (separated by commas or
 * spaces, as ftrace_build_hash splits them) into word; its length, which
 * is >= size when it did not fit (word then holds nothing useful); 0 at
 * the end.  *v moves past it. */
static size_t boot_glob_next(const char **v, char *word, size_t size)
{
	const char *p = *v + strspn(*v, ", \t\n");
	size_t n = strcspn(p, ", \t\n");
	if (n && n < size) {
		memcpy(word, p, n);
		word[n] = '\0';
	}
	*v = p + n;
	return n;
}

/* Why one pattern of a boot option cannot be applied, or NULL. */
static const char *boot_glob_why(const char *word, size_t n, size_t size)
{
	if (n >= size)
		return "longer than 127 characters";
	return glob_check(word[0] == '!' ? word + 1 : word);
}

unsigned trace_boot_globs_check(const char *opt, const char *v)
{
	char word[128];
	unsigned good = 0;
	size_t n;
	while (v && (n = boot_glob_next(&v, word, sizeof(word)))) {
		const char *why = boot_glob_why(word, n, sizeof(word));
		if (why)
			kprintf("%s: invalid pattern '%.40s%s': %s, ignored\n", opt,
				n < sizeof(word) ? word : v - n, n > 40 ? "..." : "", why);
		else
			good++;
	}
	return good;
}

void trace_boot_globs_apply(const char *opt, const char *v, bool notrace,
			    int (*set)(bool notrace, const char *patterns, bool reset))
{
	char word[128];
	bool applied = false;
	size_t n;
	while ((n = boot_glob_next(&v, word, sizeof(word)))) {
		if (boot_glob_why(word, n, sizeof(word)))
			continue;              /* reported by trace_boot_globs_check */
		/* The first pattern that applies replaces what was there, the
		 * others add to it (or, with '!', take from it). */
		if (set(notrace, word, !applied) == 0)
			applied = true;
		else
			kprintf("%s: %s, ignored\n", opt, ftrace_filter_error);
	}
	if (!applied && !notrace)
		kprintf("%s: no pattern applies: the filter stays empty (every function)\n", opt);
}

/* Each pattern is checked now (a typo is reported at boot with its reason);
 * whether it matches a function is known when it is applied.  The option is
 * refused as a whole only when no pattern in it is well formed. */
static int opt_filter(const char *v)
{
	if (!trace_boot_globs_check("ftrace_filter", v))
		return -1;
	boot_filter = v;
	return 0;
}

static int opt_notrace(const char *v)
{
	if (!trace_boot_globs_check("ftrace_notrace", v))
		return -1;
	boot_notrace = v;
	return 0;
}
BT_PARAM("ftrace_filter", opt_filter, "functions the function tracers trace (globs)");
BT_PARAM("ftrace_notrace", opt_notrace, "functions they never trace (globs)");

int trace_filter_set(bool notrace, const char *patterns, bool reset)
{
	/* All or none (-EINVAL, -ENOMEM: nothing changes). */
	unsigned n = (unsigned)(__global_ops_end - __global_ops_start);
	return ftrace_set_filter_ops(__global_ops_start, n, notrace, patterns, reset);
}

/* Every global ops has the same sets: the first's are the filter's. */
const struct ftrace_hash *trace_filter_hash(bool notrace)
{
	const struct ftrace_ops *op = __global_ops_start[0];
	return notrace ? op->notrace_hash : op->filter_hash;
}

void trace_filter_boot(void)
{
	if (boot_filter)
		trace_boot_globs_apply("ftrace_filter", boot_filter, false, trace_filter_set);
	if (boot_notrace)
		trace_boot_globs_apply("ftrace_notrace", boot_notrace, true, trace_filter_set);
	boot_filter = boot_notrace = NULL;
}

/* ---- the files ---- */

void trace_filter_print(const struct ftrace_hash *h, const char *empty)
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

int trace_filter_result(int err)
{
	if (err == -EINVAL)
		return tracefs_write_error(err, ftrace_filter_error);
	return err ? tracefs_write_error(err, NULL) : 0;
}

static int cat_ftrace_filter(const char *arg)
{
	trace_filter_print(trace_filter_hash(false), TRACE_FILTER_ALL);
	func_cmd_list(tracefs_print_line, NULL);
	return 0;
}

static int cat_ftrace_notrace(const char *arg)
{
	trace_filter_print(trace_filter_hash(true), TRACE_FILTER_NONE);
	return 0;
}

/* A write of commands (func_cmd.h) leaves the filter alone, with > as >>. */
static int set_ftrace_filter(const char *arg, const char *value, bool append)
{
	if (func_cmd_is(value)) {
		int err = func_cmd_write(value);
		return err == -EINVAL ? tracefs_write_error(err, func_cmd_error) :
		       err ? tracefs_write_error(err, NULL) : 0;
	}
	return trace_filter_result(trace_filter_set(false, value, !append));
}

static int set_ftrace_notrace(const char *arg, const char *value, bool append)
{
	return trace_filter_result(trace_filter_set(true, value, !append));
}

TRACEFS_FILE(110, "set_ftrace_filter", .cat = cat_ftrace_filter, .write = set_ftrace_filter,
	     .append = true);
TRACEFS_FILE(120, "set_ftrace_notrace", .cat = cat_ftrace_notrace, .write = set_ftrace_notrace,
	     .append = true);
