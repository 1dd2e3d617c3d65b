/*
 * fprobe.c — fprobes on function-graph users (trace/fprobe.h).
 *
 * Each fprobe embeds its fgraph_ops; g.private points back to it.  The
 * entry callback runs the entry handler and asks fgraph to hook the
 * return only if there is an exit handler and the entry handler did not
 * refuse the call: the per-call data words are fgraph's, so what the entry
 * handler writes is what the exit handler gets.
 *
 * The parent at exit is fgraph_ret.parent (the frame's original return
 * address); nmissed is fgraph's count for this user (fgraph_ops.nmissed).
 *
 * Registration state (registered) and fp's hashes while it is
 * not registered are under fprobe_mutex.
 */
#include <errno.h>

#include "boot/console.h"
#include "boot/sched.h"
#include "trace/fgraph.h"
#include "trace/fprobe.h"
#include "trace/ftrace.h"
#include "trace/ftrace_filter.h"
#include "trace/hash.h"

static struct mutex fprobe_mutex = MUTEX_INIT;

static bool fprobe_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	struct fprobe *fp = g->private;
	int skip = 0;
	if (fp->entry_handler)
		skip = fp->entry_handler(fp, e->func, e->parent, e->fregs, data);
	return !skip && fp->exit_handler;
}

static void fprobe_exit(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data)
{
	struct fprobe *fp = g->private;
	if (r->mark)
		return;       /* a trace-stack exit without return value (fgraph_frame.h) */
	fp->exit_handler(fp, r->func, r->parent, r->retval, data);
}

/* Some pattern in s: a character other than the separators of
 * ftrace_set_filter's list (an empty list would mean every function). */
static bool has_pattern(const char *s)
{
	for (; s && *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != ',')
			return true;
	return false;
}

/* fp's hashes for filter and notrace, built aside: -EINVAL (reason in
 * ftrace_filter_error) if there is no filter, a glob is bad or matches
 * nothing, or the filter is left empty (only "!..." patterns). */
static int build_hashes(const char *filter, const char *notrace, struct ftrace_hash **f,
			struct ftrace_hash **n)
{
	*f = *n = NULL;
	mutex_lock(&ftrace_mutex);               /* ftrace_filter_error */
	int err = -EINVAL;
	if (has_pattern(filter))
		err = ftrace_build_hash(NULL, filter, true, f);
	else
		ksnprintf(ftrace_filter_error, sizeof(ftrace_filter_error),
			  "an fprobe needs a filter (an empty one would mean every function)");
	if (!err)
		err = ftrace_build_hash(NULL, notrace ? notrace : "", true, n);
	if (!err && hash_empty(*f)) {
		ksnprintf(ftrace_filter_error, sizeof(ftrace_filter_error),
			  "the filter leaves no function ('!' patterns only)");
		err = -EINVAL;
	}
	mutex_unlock(&ftrace_mutex);
	if (err) {
		hash_free(*f);
		hash_free(*n);
	}
	return err;
}

/*
 * The new hashes replace fp's old ones (those of its last registration)
 * only once fp is registered: a failure leaves fp's ops as it was, the
 * heap included.  Swapping them by hand is safe while fp is not
 * registered: no list walker reaches an unregistered ops (unregistering,
 * and a failed registration, end with a grace period), so its hashes are
 * only fp's.
 */
int register_fprobe(struct fprobe *fp, const char *filter, const char *notrace)
{
	mutex_lock(&fprobe_mutex);
	struct ftrace_hash *f = NULL, *n = NULL;
	struct ftrace_hash *old_f = fp->g.ops.filter_hash, *old_n = fp->g.ops.notrace_hash;
	int err = fp->registered ? -EBUSY : build_hashes(filter, notrace, &f, &n);
	if (!err) {
		fp->g.entryfunc = fprobe_entry;
		fp->g.retfunc = fprobe_exit;
		fp->g.private = fp;
		fp->g.ops.filter_hash = f;
		fp->g.ops.notrace_hash = n;
		err = register_fgraph(&fp->g);      /* zeroes fp->g.nmissed */
		fp->registered = err == 0;
		if (err) {
			fp->g.ops.filter_hash = old_f;
			fp->g.ops.notrace_hash = old_n;
			hash_free(f);
			hash_free(n);
		} else {
			hash_free(old_f);
			hash_free(old_n);
		}
	}
	mutex_unlock(&fprobe_mutex);
	return err;
}

int unregister_fprobe(struct fprobe *fp)
{
	mutex_lock(&fprobe_mutex);
	int err = fp->registered ? 0 : -EINVAL;
	if (!err) {
		/* Returns once no handler of fp runs or can run (fgraph.h). */
		err = unregister_fgraph(&fp->g);
		/* A refused unregister leaves the user registered and called
		 * (fgraph.h), so the probe too; with tracing killed, fgraph
		 * let its slot go. */
		if (!err || ftrace_is_dead())
			fp->registered = false;
	}
	mutex_unlock(&fprobe_mutex);
	return err;
}

bool fprobe_is_registered(const struct fprobe *fp)
{
	mutex_lock(&fprobe_mutex);
	bool r = fp->registered;
	mutex_unlock(&fprobe_mutex);
	return r;
}

uint64_t fprobe_nmissed(const struct fprobe *fp)
{
	mutex_lock(&fprobe_mutex);
	uint64_t n = __atomic_load_n(&fp->g.nmissed, __ATOMIC_RELAXED);
	mutex_unlock(&fprobe_mutex);
	return n;
}
