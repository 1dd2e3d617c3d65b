/*
 * options.c — trace_options (options.h): the table of names and defaults,
 * and the trace_options= boot option.
 */
#include <errno.h>
#include <string.h>

#include "boot/cmdline.h"
#include "boot/console.h"
#include "trace/options.h"

static const struct {
	const char *name;
	bool on;                          /* Linux's default */
} opts[TRACE_OPT_COUNT] = {
	[TRACE_OPT_PRINT_PARENT]        = { "print-parent", true },
	[TRACE_OPT_SYM_OFFSET]          = { "sym-offset", false },
	[TRACE_OPT_FUNCGRAPH_OVERRUN]   = { "funcgraph-overrun", false },
	[TRACE_OPT_FUNCGRAPH_CPU]       = { "funcgraph-cpu", true },
	[TRACE_OPT_FUNCGRAPH_OVERHEAD]  = { "funcgraph-overhead", true },
	[TRACE_OPT_FUNCGRAPH_PROC]      = { "funcgraph-proc", false },
	[TRACE_OPT_FUNCGRAPH_DURATION]  = { "funcgraph-duration", true },
	[TRACE_OPT_FUNCGRAPH_ABSTIME]   = { "funcgraph-abstime", false },
	[TRACE_OPT_FUNCGRAPH_IRQS]      = { "funcgraph-irqs", true },
	[TRACE_OPT_FUNCGRAPH_TAIL]      = { "funcgraph-tail", false },
	[TRACE_OPT_FUNCGRAPH_RETVAL]    = { "funcgraph-retval", false },
	[TRACE_OPT_FUNCGRAPH_RETVAL_HEX]= { "funcgraph-retval-hex", false },
	[TRACE_OPT_FUNCGRAPH_ARGS]      = { "funcgraph-args", false },
	[TRACE_OPT_FUNCGRAPH_ARGS_STR]  = { "funcgraph-args-string", false },
};

/* Linux's defaults; must agree with the table's `on` column (checked by the
 * options test in tests/guest/test_fgraph.c). */
unsigned long trace_opts = 1ul << TRACE_OPT_PRINT_PARENT | 1ul << TRACE_OPT_FUNCGRAPH_CPU |
			   1ul << TRACE_OPT_FUNCGRAPH_OVERHEAD | 1ul << TRACE_OPT_FUNCGRAPH_DURATION |
			   1ul << TRACE_OPT_FUNCGRAPH_IRQS;

bool trace_opt_default(enum trace_opt o)
{
	return (unsigned)o < TRACE_OPT_COUNT && opts[o].on;
}

static int lookup(const char *word, bool *on)
{
	*on = strncmp(word, "no", 2) != 0;
	const char *name = *on ? word : word + 2;
	for (int i = 0; i < TRACE_OPT_COUNT; i++)
		if (!strcmp(name, opts[i].name))
			return i;
	/* "nosomething" may also be an option whose name starts with "no". */
	for (int i = 0; i < TRACE_OPT_COUNT && !*on; i++)
		if (!strcmp(word, opts[i].name)) {
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
	return 0;
}

const char *trace_opt_name(enum trace_opt o)
{
	return (unsigned)o < TRACE_OPT_COUNT ? opts[o].name : NULL;
}

void trace_opt_list(void (*out)(void *ctx, const char *line), void *ctx)
{
	char line[64];
	for (unsigned i = 0; i < TRACE_OPT_COUNT; i++) {
		ksnprintf(line, sizeof(line), "%s%s", trace_opt(i) ? "" : "no", opts[i].name);
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
