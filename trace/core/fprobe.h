/*
 * fprobe.h — entry and exit handlers on chosen functions (Linux's fprobe).
 *
 * An fprobe is a function-graph user (trace/core/fgraph.h) of its own: its
 * filter chooses the functions; on each call the entry handler runs, and
 * unless it returns non-zero, the exit handler runs when that call
 * returns, with the return value and the FPROBE_DATA_WORDS words the entry
 * handler left in `data`.  An fprobe without an exit handler does not hook
 * returns at all (cheaper, as in Linux).
 *
 *   static int my_entry(struct fprobe *fp, uintptr_t ip, uintptr_t parent,
 *                       struct ftrace_regs *fregs, uint64_t *data)
 *   { data[0] = ftrace_regs_get_argument(fregs, 0); return 0; }
 *   static struct fprobe fp = { .entry_handler = my_entry, .exit_handler = my_exit };
 *   register_fprobe(&fp, "vfs_* path_walk", NULL);  ...  unregister_fprobe(&fp);
 *
 * Handler contract (fgraph's): any context the probed function runs in,
 * preemption disabled, the context's recursion bit held (traced functions
 * they call are not probed), must not sleep.  `ip` is the probed function,
 * `parent` the address it returns to.  Handlers run only while the fprobe
 * is registered: after unregister_fprobe() returns, none is running or will
 * run, even for calls that were entered before.
 *
 * Each registered fprobe takes one of fgraph's FGRAPH_MAX_USERS slots.
 * Register and unregister: thread context, not from a handler.
 */
#ifndef TRACE_FPROBE_H
#define TRACE_FPROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/core/fgraph.h"

#define FPROBE_DATA_WORDS FGRAPH_DATA_WORDS

struct fprobe;
/* Return non-zero to skip the exit handler for this call. */
typedef int (*fprobe_entry_cb)(struct fprobe *fp, uintptr_t ip, uintptr_t parent,
			       struct ftrace_regs *fregs, uint64_t *data);
typedef void (*fprobe_exit_cb)(struct fprobe *fp, uintptr_t ip, uintptr_t parent,
			       uint64_t retval, uint64_t *data);

struct fprobe {
	fprobe_entry_cb entry_handler;     /* may be NULL; set before registering */
	fprobe_exit_cb exit_handler;       /* may be NULL; set before registering */
	void *private;                     /* for the user */
	/* Private to fprobe.c (fprobe_mutex). */
	struct fgraph_ops g;
	bool registered;
};

/*
 * Probe the functions matching `filter_globs` (globs as ftrace_set_filter;
 * required) minus those matching `notrace_globs` (NULL: none).
 * 0; -EINVAL: no filter, a bad glob, a pattern matching no function, or
 * only "!" patterns
 * (reason in ftrace_filter_error; nothing registered or changed);
 * -EBUSY: fp already registered, or no fgraph slot free; or the core's
 * error.  On any error fp keeps the hashes it had.
 */
int register_fprobe(struct fprobe *fp, const char *filter_globs, const char *notrace_globs);
/* 0, or -EINVAL if fp is not registered. */
int unregister_fprobe(struct fprobe *fp);

bool fprobe_is_registered(const struct fprobe *fp);
/* Calls of fp's functions not hooked because a shadow stack was full, since
 * fp was last registered (fgraph counts them per user; no handler runs for
 * such a call: fgraph has no room to ask). */
uint64_t fprobe_nmissed(const struct fprobe *fp);

#endif
