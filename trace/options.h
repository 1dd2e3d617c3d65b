/*
 * options.h — trace_options: named on/off switches that change what is
 * recorded or how the trace prints, with Linux's names and defaults.
 *
 * Set at boot with trace_options=opt,noopt,... or from the shell
 * (`echo funcgraph-proc > trace_options`, `echo 1 > options/funcgraph-proc`).
 * Read lock-free anywhere (a racing reader sees the old or new value).
 */
#ifndef TRACE_OPTIONS_H
#define TRACE_OPTIONS_H

#include <stdbool.h>

enum trace_opt {
	TRACE_OPT_PRINT_PARENT,        /* function: "<-parent" (on) */
	TRACE_OPT_SYM_OFFSET,          /* function: "func+0x10/0x40" (off) */
	TRACE_OPT_FUNCGRAPH_OVERRUN,   /* graph: overrun count on exits (off) */
	TRACE_OPT_FUNCGRAPH_CPU,       /* graph: CPU column (on) */
	TRACE_OPT_FUNCGRAPH_OVERHEAD,  /* graph: + ! # * @ $ duration markers (on) */
	TRACE_OPT_FUNCGRAPH_PROC,      /* graph: comm-pid column (off) */
	TRACE_OPT_FUNCGRAPH_DURATION,  /* graph: duration column (on) */
	TRACE_OPT_FUNCGRAPH_ABSTIME,   /* graph: absolute time column (off) */
	TRACE_OPT_FUNCGRAPH_IRQS,      /* graph: trace functions in interrupts (on) */
	TRACE_OPT_FUNCGRAPH_TAIL,      /* graph: the name after every closing brace (off) */
	TRACE_OPT_FUNCGRAPH_RETVAL,    /* graph: return values (off) */
	TRACE_OPT_FUNCGRAPH_RETVAL_HEX,/* graph: return values always in hex (off) */
	TRACE_OPT_FUNCGRAPH_ARGS,      /* graph: record and print arguments (off) */
	TRACE_OPT_FUNCGRAPH_ARGS_STR,  /* graph: char * arguments as strings (off; ours) */
	/* The trace buffer's mode (on): overwrite the oldest events when full,
	 * or drop new ones (producer/consumer).  Last although Linux lists it
	 * before the tracer options: the bit numbers are in dumps
	 * (tools/btlib/text.py).  trace_init() creates the buffer in this mode;
	 * a change from the shell is applied by tracefs (rb_set_overwrite). */
	TRACE_OPT_OVERWRITE,
	TRACE_OPT_COUNT
};

extern unsigned long trace_opts;      /* bit per enum trace_opt */

static inline bool trace_opt(enum trace_opt o)
{
	return (__atomic_load_n(&trace_opts, __ATOMIC_RELAXED) >> o) & 1;
}

/* "name" sets, "noname" clears.  -EINVAL (nothing changes) if unknown. */
int trace_opt_set(const char *word);
/* All options at once, as trace_opts was (saved): what a test restores.
 * Write trace_opts only through these two: they tell the tracers
 * (struct tracer's flag_changed; function_graph keeps a copy of
 * funcgraph-args). */
void trace_opts_restore(unsigned long saved);
const char *trace_opt_name(enum trace_opt o);
/* trace_options' listing: one line per option, "name" or "noname". */
void trace_opt_list(void (*out)(void *ctx, const char *line), void *ctx);

#endif
