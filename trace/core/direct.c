/*
 * direct.c — direct trampolines: user code a function's site calls with
 * nothing in between (ftrace.h register_ftrace_direct), and the rule every
 * change of what direct ops take must keep (direct_check: one direct
 * trampoline per function, each in reach of its site).
 *
 * A direct ops is an ops with FTRACE_OPS_FL_DIRECT and its address in
 * `direct`; it registers through the core (ftrace_do_register) and the
 * update gives its sites their target (site_state.h target_of).  With
 * callbacks on the same function the site calls the regs list caller,
 * which enters the direct trampoline after them (ftrace.c list_direct).
 * Everything here runs under ftrace_mutex.
 */
#include <errno.h>
#include <stdint.h>

#include "boot/console.h"
#include "boot/sched.h"
#include "trace/core/ftrace.h"
#include "trace/core/ftrace_internal.h"
#include "trace/core/hash.h"
#include "trace/core/records.h"

/* ---- what a change gives direct ops ---- */

static bool in_change(const struct direct_change *c, const struct ftrace_ops *op)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->ops[i] == op)
			return true;
	return false;
}

/* The address of the ENABLED direct ops outside the change that takes ip
 * (its current hashes: the state the last update installed), or 0. */
static uintptr_t direct_taken_by_other(const struct direct_change *c, uintptr_t ip)
{
	for (const struct ftrace_ops *p = ftrace_ops_list; p; p = p->next)
		if ((p->flags & (FTRACE_OPS_FL_DIRECT | FTRACE_OPS_FL_ENABLED)) ==
		    (FTRACE_OPS_FL_DIRECT | FTRACE_OPS_FL_ENABLED) &&
		    !in_change(c, p) && ftrace_ops_wants(p->filter_hash, p->notrace_hash, ip))
			return p->direct;
	return 0;
}

static int direct_refuse(int err, const char *what, uintptr_t addr, unsigned rec, uintptr_t other)
{
	uintptr_t ip = rec_ip(&ftrace_recs[rec]);
	if (err == -ERANGE)
		ksnprintf(ftrace_filter_error, sizeof(ftrace_filter_error),
			  "direct trampoline %lx cannot be called from the site of %s at %lx "
			  "(out of reach, or misaligned)",
			  (unsigned long)addr, rec_name(&ftrace_recs[rec]), (unsigned long)ip);
	else
		ksnprintf(ftrace_filter_error, sizeof(ftrace_filter_error),
			  "direct trampoline %lx refused: the site of %s at %lx is taken by %lx",
			  (unsigned long)addr, rec_name(&ftrace_recs[rec]), (unsigned long)ip,
			  (unsigned long)other);
	kprintf("ftrace: %s: %s\n", ftrace_filter_error, what);
	return err;
}

/*
 * May the change be made?  Every function a direct ops of the change would
 * take (its filter, less its notrace: a function in its notrace is not
 * wanted, one only in another's notrace is not taken by that one) must
 *   - be one no other direct ops takes: neither an ENABLED one outside the
 *     change (with its hashes as they are) nor another of the change (with
 *     its new ones) -- one direct trampoline per function, as Linux's
 *     -EBUSY; the update would otherwise silently call only one of them;
 *   - have a site that can call the ops' address (arch_site_reaches: in
 *     range of the site's call, a valid target there), which the update
 *     could not encode (it would refuse the update).
 * And a direct ops keeps a filter (an empty one would take every function),
 * as register_ftrace_direct requires.  0, or -EBUSY / -ERANGE with the
 * first function in record order named in ftrace_filter_error and on the
 * console (-EINVAL for the empty filter).  ftrace_mutex held; reads only,
 * so a refusal leaves everything as it was.  Free for a change without a
 * direct ops (the common filter change).
 */
int direct_check(const struct direct_change *c)
{
	bool any = false;
	for (unsigned i = 0; i < c->n; i++) {
		if (c->addr[i] && hash_empty(c->filter_hash[i])) {
			ksnprintf(ftrace_filter_error, sizeof(ftrace_filter_error),
				  "direct trampoline %lx: an empty filter would take every function",
				  (unsigned long)c->addr[i]);
			return -EINVAL;
		}
		any |= c->addr[i] != 0;
	}
	for (unsigned k = 0; any && k < ftrace_nrecs; k++) {
		uintptr_t ip = rec_ip(&ftrace_recs[k]), taken = 0;
		for (unsigned i = 0; i < c->n; i++) {
			if (!c->addr[i] || !ftrace_ops_wants(c->filter_hash[i], c->notrace_hash[i], ip))
				continue;
			if (!arch_site_reaches(ip, c->addr[i]))
				return direct_refuse(-ERANGE, "ERANGE", c->addr[i], k, 0);
			if (taken)
				return direct_refuse(-EBUSY, "EBUSY", c->addr[i], k, taken);
			taken = c->addr[i];
		}
		uintptr_t other = taken ? direct_taken_by_other(c, ip) : 0;
		if (other)
			return direct_refuse(-EBUSY, "EBUSY", taken, k, other);
	}
	return 0;
}

/* ---- registration ---- */

int register_ftrace_direct(struct ftrace_ops *op, uintptr_t addr)
{
	if (!addr || hash_empty(op->filter_hash))
		return -EINVAL;
	mutex_lock(&ftrace_mutex);
	/* Its functions: its own (one direct trampoline each) and in reach. */
	struct direct_change dc = { .ops = &op, .n = 1, .filter_hash = { op->filter_hash },
				    .notrace_hash = { op->notrace_hash }, .addr = { addr } };
	int err = (op->flags & FTRACE_OPS_FL_ENABLED) ? -EBUSY : direct_check(&dc);
	if (!err) {
		op->flags |= FTRACE_OPS_FL_DIRECT;
		op->direct = addr;
		err = ftrace_do_register(op);
		if (err) {
			op->flags &= ~FTRACE_OPS_FL_DIRECT;
			op->direct = 0;
		}
	}
	mutex_unlock(&ftrace_mutex);
	return err;
}

int unregister_ftrace_direct(struct ftrace_ops *op)
{
	if (!(op->flags & FTRACE_OPS_FL_DIRECT))
		return -EINVAL;
	mutex_lock(&ftrace_mutex);
	int err = ftrace_do_unregister(op);
	/* A failed unregister leaves it registered, and still direct: its
	 * sites call op->direct, and without the flag the list function
	 * would call it as a callback (op->func, NULL). */
	if (!err) {
		op->flags &= ~FTRACE_OPS_FL_DIRECT;
		op->direct = 0;
	}
	mutex_unlock(&ftrace_mutex);
	return err;
}
