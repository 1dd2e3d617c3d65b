/*
 * options.c — trace_options (options.h): the table of names and defaults,
 * and the trace_options= boot option.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "boot/cmdline.h"
#include "boot/console.h"
#include "trace/options.h"
#include "trace/trace.h"
#include "trace/tracefs/tracefs.h"

/* Every option once: its enum value, its name, Linux's default.  The names
 * and the initial trace_opts both come from this one list, so they cannot
 * disagree; the asserts below check that every enum value is listed
 * (a value listed twice is a duplicate designated initializer, an error
 * under -Werror=override-init, part of -Wextra). */
#define TRACE_OPTS(X)                                                   \
	X(TRACE_OPT_PRINT_PARENT,         "print-parent",          1)   \
	X(TRACE_OPT_SYM_OFFSET,           "sym-offset",            0)   \
	X(TRACE_OPT_FUNCGRAPH_OVERRUN,    "funcgraph-overrun",     0)   \
	X(TRACE_OPT_FUNCGRAPH_CPU,        "funcgraph-cpu",         1)   \
	X(TRACE_OPT_FUNCGRAPH_OVERHEAD,   "funcgraph-overhead",    1)   \
	X(TRACE_OPT_FUNCGRAPH_PROC,       "funcgraph-proc",        0)   \
	X(TRACE_OPT_FUNCGRAPH_DURATION,   "funcgraph-duration",    1)   \
	X(TRACE_OPT_FUNCGRAPH_ABSTIME,    "funcgraph-abstime",     0)   \
	X(TRACE_OPT_FUNCGRAPH_IRQS,       "funcgraph-irqs",        1)   \
	X(TRACE_OPT_FUNCGRAPH_TAIL,       "funcgraph-tail",        0)   \
	X(TRACE_OPT_FUNCGRAPH_RETVAL,     "funcgraph-retval",      0)   \
	X(TRACE_OPT_FUNCGRAPH_RETVAL_HEX, "funcgraph-retval-hex",  0)   \
	X(TRACE_OPT_FUNCGRAPH_ARGS,       "funcgraph-args",        0)   \
	X(TRACE_OPT_FUNCGRAPH_ARGS_STR,   "funcgraph-args-string", 0)   \
	X(TRACE_OPT_OVERWRITE,            "overwrite",             1)

#define OPT_NAME(o, name, on)    [o] = name,
#define OPT_DEFAULT(o, name, on) | ((unsigned long)(on) << (o))
#define OPT_ONE(o, name, on)     + 1

static const char *const names[TRACE_OPT_COUNT] = { TRACE_OPTS(OPT_NAME) };
#define TRACE_OPTS_DEFAULT (0ul TRACE_OPTS(OPT_DEFAULT))

_Static_assert(0 TRACE_OPTS(OPT_ONE) == TRACE_OPT_COUNT,
	       "TRACE_OPTS must list every enum trace_opt value once");
_Static_assert(TRACE_OPT_COUNT <= 8 * sizeof(unsigned long), "trace_opts has a bit per option");
/* Spot checks of Linux's defaults (Documentation/trace/ftrace.rst). */
_Static_assert((TRACE_OPTS_DEFAULT >> TRACE_OPT_PRINT_PARENT & 1) &&
	       (TRACE_OPTS_DEFAULT >> TRACE_OPT_FUNCGRAPH_IRQS & 1) &&
	       (TRACE_OPTS_DEFAULT >> TRACE_OPT_OVERWRITE & 1) &&
	       !(TRACE_OPTS_DEFAULT >> TRACE_OPT_FUNCGRAPH_RETVAL & 1), "Linux's defaults");

unsigned long trace_opts = TRACE_OPTS_DEFAULT;

static int lookup(const char *word, bool *on)
{
	*on = strncmp(word, "no", 2) != 0;
	const char *name = *on ? word : word + 2;
	for (int i = 0; i < TRACE_OPT_COUNT; i++)
		if (!strcmp(name, names[i]))
			return i;
	/* "nosomething" may also be an option whose name starts with "no". */
	for (int i = 0; i < TRACE_OPT_COUNT && !*on; i++)
		if (!strcmp(word, names[i])) {
			*on = true;
			return i;
		}
	return -EINVAL;
}

int trace_opt_set(const char *word)
{
	bool on;
	int i = lookup(word, &on);
	if (i < 0)
		return i;
	if (on)
		__atomic_fetch_or(&trace_opts, 1ul << i, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&trace_opts, ~(1ul << i), __ATOMIC_RELAXED);
	tracer_flags_changed();
	return 0;
}

void trace_opts_restore(unsigned long saved)
{
	__atomic_store_n(&trace_opts, saved, __ATOMIC_RELAXED);
	tracer_flags_changed();
}

const char *trace_opt_name(enum trace_opt o)
{
	return (unsigned)o < TRACE_OPT_COUNT ? names[o] : NULL;
}

void trace_opt_list(void (*out)(void *ctx, const char *line), void *ctx)
{
	char line[64];
	for (unsigned i = 0; i < TRACE_OPT_COUNT; i++) {
		ksnprintf(line, sizeof(line), "%s%s", trace_opt(i) ? "" : "no", names[i]);
		out(ctx, line);
	}
}

/* trace_options=a,nob,...: each word checked; a bad one is reported by
 * itself and the rest are set (so the option as a whole is not "ignored"). */
static int opt_trace_options(const char *v)
{
	if (!v || !*v)
		return -1;
	while (*v) {
		char word[48];
		size_t n = strcspn(v, ",");
		if (n && n < sizeof(word)) {
			memcpy(word, v, n);
			word[n] = '\0';
			if (trace_opt_set(word))
				kprintf("trace_options: unknown option '%s', ignored\n", word);
		} else if (n) {
			kprintf("trace_options: option too long, ignored\n");
		}
		v += n + (v[n] != '\0');
	}
	return 0;
}
BT_PARAM("trace_options", opt_trace_options, "trace options, comma-separated (noX clears)");

/* ---- the files ---- */

/* The options the buffer itself holds, from trace_opts to the buffer:
 * after every option write (a no-op for the others). */
static void options_to_buffer(void)
{
	if (trace_buffer)
		rb_set_overwrite(trace_buffer, trace_opt(TRACE_OPT_OVERWRITE));
}

static int cat_trace_options(const char *arg)
{
	trace_opt_list(tracefs_print_line, NULL);
	return 0;
}

static int set_trace_options(const char *arg, const char *value, bool append)
{
	char why[80];
	if (trace_opt_set(value)) {
		/* A long value is cut, with its closing quote kept. */
		ksnprintf(why, sizeof(why), "no option '%.*s%s'", 40, value,
			  strlen(value) > 40 ? "..." : "");
		return tracefs_write_error(-EINVAL, why);
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
	if (!tracefs_parse_ulong(value, &n, 1))
		return tracefs_write_error(-EINVAL, "an option takes 0 or 1");
	char word[48];
	ksnprintf(word, sizeof(word), "%s%s", n ? "" : "no", name);
	int err = trace_opt_set(word);
	if (!err)
		options_to_buffer();
	return err;
}

/* `entry` "": print every entry; else 0 if the directory has it, -ENOENT. */
static int ls_options(const char *entry)
{
	if (*entry)
		return option_index(entry) >= 0 ? 0 : -ENOENT;
	for (int i = 0; i < TRACE_OPT_COUNT; i++)
		kprintf("%s\n", trace_opt_name(i));
	return 0;
}

TRACEFS_FILE(190, "trace_options", .cat = cat_trace_options, .write = set_trace_options);
TRACEFS_FILE(200, "options/", .cat = cat_option, .write = set_option, .ls = ls_options);
