/*
 * ftrace.c — ops registration, filters, and the callbacks a site reaches
 * (the assist wrapper, the two list functions).
 *
 * State: `ftrace_ops_list` holds every ops whose sites may be live, in
 * registration order; the list functions walk it lock-free with preemption
 * disabled, so an ops leaves it only after a grace period
 * (tramp_synchronize).  Each ops remembers the hashes of the last completed
 * update (`applied_*`): the old state of a site is derived from them and the
 * record's _EN flags, the new state from the current hashes.  Everything
 * else happens under ftrace_mutex.  Every change ends in the site update
 * (trace/core/update.c, ftrace_update_commit), which moves the sites to the new
 * state or, refusing a site, kills tracing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "boot/console.h"
#include "boot/panic.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "lib/glob.h"
#include "patch/patch.h"
#include "patch/tramp.h"
#include "trace/boot.h"
#include "trace/core/ftrace.h"
#include "trace/core/fgraph_hooks.h"
#include "trace/core/ftrace_internal.h"
#include "trace/core/recursion.h"
#include "trace/core/hash.h"
#include "trace/core/listvec.h"
#include "trace/core/records.h"
#include "trace/tracefs/tracefs.h"

struct mutex ftrace_mutex = MUTEX_INIT;
struct ftrace_ops *ftrace_ops_list;            /* lock-free readers; see header */
static struct listvec *list_table;             /* lock-free readers; listvec.h */
bool ftrace_dead;                              /* atomic; ftrace_is_dead() */

/* The data word of list sites: each list caller calls its own function
 * through it (ftrace.h, regs_call). */
struct ftrace_ops ftrace_list_ops = {
	.call = ftrace_ops_list_func,
	.regs_call = ftrace_ops_list_regs_func,
	.func = ftrace_ops_list_func,
};

void ftrace_kill(const char *why)
{
	/* Every CPU's byte first, by every caller: a second caller that
	 * loses the exchange below returns at once, and its own CPU must see
	 * the kill by then (program order), as the first caller's does. */
	for (unsigned i = 0; i < MAX_CPUS; i++)
		__atomic_store_n(&cpus[i].ftrace_dead, 1, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(&ftrace_dead, true, __ATOMIC_RELAXED))
		return;
	kprintf("ftrace: tracing disabled: %s\n", why);
}

/* The task context's bits: the callbacks' and the list function's. */
#define TASK_RECURSION_BITS (1u | (1u << FTRACE_RECURSION_LIST_SHIFT))

void ftrace_thread_notrace_begin(void)
{
	/* Interrupts off: the thread's word and its CPU's change together
	 * (a switch in between would move stale bits), and an interrupt,
	 * which leaves trace_recursion as it found it, cannot come between
	 * the read and the write of it. */
	unsigned long f = arch_irq_save();
	struct thread *t = current_thread();
	if (t->trace_held)
		panic("ftrace_thread_notrace_begin: %s is not traced already", t->name);
	t->trace_held = TASK_RECURSION_BITS;
	this_cpu()->trace_recursion |= TASK_RECURSION_BITS;
	arch_irq_restore(f);
}

void ftrace_thread_notrace_end(void)
{
	unsigned long f = arch_irq_save();
	struct thread *t = current_thread();
	this_cpu()->trace_recursion &= ~t->trace_held;
	t->trace_held = 0;
	arch_irq_restore(f);
}

/* ---- callbacks ---- */

/*
 * The wrapper trampolines call for an ops without FTRACE_OPS_FL_RECURSION:
 * preemption off, then the recursion guard of this context, then the user's
 * callback.
 */
static FTRACE_HOT void ftrace_ops_assist_func(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	/* FTRACE_HOT: not preempted here, so c stays this CPU (function.c). */
	struct cpu *c = arch_this_cpu();
	struct thread *t = c->current;
	ftrace_preempt_disable_on(t);
	unsigned bit = ftrace_recursion_take_on(c, 0);
	if (bit && !ftrace_is_dead_on(c)) {
		op->func(ip, parent, op, fregs);
		ftrace_recursion_exit_on(c, bit);
	}
	ftrace_preempt_enable_on(t);
}

/*
 * Several ops on one function.  The list guard is a recursion bit of its own
 * (FTRACE_RECURSION_LIST_SHIFT), so that an ops guarding itself
 * (FTRACE_OPS_FL_RECURSION, e.g. the function tracer) still gets its bit
 * when called from here; an ops that does not gets the callbacks' bit taken
 * for it, as on a site of its own.  Graph users are collected and entered once, with
 * all their bits: a call has one shadow frame however many users take it.
 *
 * Which ops: the function's run in the published listvec (computed by the
 * update from the same hashes), or else every registered ops whose hashes
 * match (a site still running its old state during an update, or no table).
 *
 * Two entries, one per list caller: ftrace_ops_list_func for the plain one
 * (fregs without registers) and ftrace_ops_list_regs_func for the regs one
 * (fregs with the site's full frame, never NULL there).  Which one ran is
 * the `regs_entry` constant the walk below is built with, not a test of
 * fregs: the plain entry never meets a frame, whatever the site's state
 * (a site the update moves off the regs list caller may still call it, and
 * then reaches the regs entry, which hides the frame from ops that did not
 * ask for it).
 */
struct list_walk {
	struct cpu *c;
	unsigned graph;                  /* graph users met */
	/* The callbacks' bit, held across the ops that do not guard
	 * themselves (taken once, lazily) and dropped before one that does:
	 * each kind finds the bit as on a site of its own. */
	unsigned cb;
	bool cb_busy;                    /* the bit was already held: skip them */
	/* The regs entry: the site's full frame.  Only SAVE_REGS ops see it
	 * (ftrace.h): for the others ftrace_get_regs() says NULL, as on a
	 * site of their own.  The plain entry: NULL. */
	struct pt_regs *regs;
};

static inline __attribute__((always_inline)) void
list_call(struct list_walk *w, struct ftrace_ops *op, unsigned flags, uintptr_t ip,
	  uintptr_t parent, struct ftrace_regs *fregs, const bool regs_entry)
{
	/* An ops that asked for registers gets them only through the regs
	 * entry; a direct ops is no callback (list_direct). */
	if (((flags & FTRACE_OPS_FL_SAVE_REGS) && !regs_entry) || (flags & FTRACE_OPS_FL_DIRECT))
		return;
	if (regs_entry)
		ftrace_regs_set_regs(fregs, (flags & FTRACE_OPS_FL_SAVE_REGS) ? w->regs : NULL);
	if (flags & FTRACE_OPS_FL_GRAPH) {
		w->graph |= op->graph_mask;
	} else if (flags & FTRACE_OPS_FL_RECURSION) {
		if (w->cb)
			ftrace_recursion_exit_on(w->c, w->cb);
		w->cb = 0;
		op->func(ip, parent, op, fregs);
	} else if (!w->cb_busy) {
		if (!w->cb && !(w->cb = ftrace_recursion_take_on(w->c, 0)))
			w->cb_busy = true;
		if (w->cb)
			op->func(ip, parent, op, fregs);
	}
}

/*
 * A site with a direct trampoline and callbacks calls the regs list caller,
 * whose list function (ftrace_ops_list_regs_func) has it enter the direct
 * trampoline after the callbacks when told so here
 * (ftrace_regs_set_direct).  The direct ops is in the function's run (the
 * update lists it, which makes the run not plain), or, without a run, found
 * by the full walk's rule.  Unlike the callbacks it is not subject to the
 * recursion guard or to a killed tracer: a site that calls a direct
 * trampoline alone calls it whatever happens, and a direct trampoline may
 * be part of what the function does (arch_test_direct_tramp_body).
 * During an update a call may see the state before or after, each
 * complete: an ops is listed as long as it is ENABLED, and the full walk
 * serves a site that still calls the regs list caller after the update
 * took it off the table (back to the direct trampoline alone).
 */
static FTRACE_HOT void list_direct(const struct listvec *v, const struct listvec_entry *e,
				   uintptr_t ip, struct ftrace_regs *fregs)
{
	if (e) {
		/* A run without a direct ops: nothing to find (the flag never
		 * changes while an ops is registered). */
		if (!e->direct)
			return;
		for (struct ftrace_ops *const *run = &v->ops[e->first], *op; (op = *run); run++)
			if ((arch_load_relaxed32(&op->flags) &
			     (FTRACE_OPS_FL_DIRECT | FTRACE_OPS_FL_ENABLED)) ==
			    (FTRACE_OPS_FL_DIRECT | FTRACE_OPS_FL_ENABLED)) {
				ftrace_regs_set_direct(fregs, op->direct);
				return;
			}
		return;
	}
	/* ACQUIRE: as list_walk_all's walk (op->direct is set before the ops
	 * is published, and stays while it is ENABLED). */
	for (struct ftrace_ops *op = __atomic_load_n(&ftrace_ops_list, __ATOMIC_ACQUIRE); op;
	     op = __atomic_load_n(&op->next, __ATOMIC_ACQUIRE)) {
		unsigned flags = arch_load_relaxed32(&op->flags);
		if ((flags & FTRACE_OPS_FL_DIRECT) && (flags & FTRACE_OPS_FL_ENABLED) &&
		    ftrace_ops_wants(__atomic_load_n(&op->filter_hash, __ATOMIC_ACQUIRE),
				     __atomic_load_n(&op->notrace_hash, __ATOMIC_ACQUIRE), ip)) {
			ftrace_regs_set_direct(fregs, op->direct);
			return;
		}
	}
}

/* Everything but the plain case: the list bit, then each ops as list_call
 * says; the full walk when the function has no run in the table (v, e as
 * the list function found them).  Built once per entry (regs_entry a constant:
 * list_walk_plain, ftrace_ops_list_regs_func); the regs entry first finds
 * the function's direct trampoline (list_direct). */
static inline __attribute__((always_inline)) void
list_walk_all(struct cpu *c, const struct listvec *v, const struct listvec_entry *e, uintptr_t ip,
	      uintptr_t parent, struct ftrace_regs *fregs, const bool regs_entry)
{
	if (regs_entry)
		list_direct(v, e, ip, fregs);
	unsigned bit = ftrace_recursion_take_on(c, FTRACE_RECURSION_LIST_SHIFT);
	if (!bit)
		return;
	if (!ftrace_is_dead()) {
		struct list_walk w = { .c = c, .regs = regs_entry ? ftrace_get_regs(fregs) : NULL };
		if (e) {
			for (unsigned i = 0; i < e->n; i++) {
				struct ftrace_ops *op = v->ops[e->first + i];
				/* Unregistered since (its update failed): stopped. */
				unsigned flags = arch_load_relaxed32(&op->flags);
				if (flags & FTRACE_OPS_FL_ENABLED)
					list_call(&w, op, flags, ip, parent, fregs, regs_entry);
			}
		} else {
			/* ACQUIRE: an ops published by register is seen complete. */
			for (struct ftrace_ops *op = __atomic_load_n(&ftrace_ops_list, __ATOMIC_ACQUIRE); op;
			     op = __atomic_load_n(&op->next, __ATOMIC_ACQUIRE)) {
				unsigned flags = arch_load_relaxed32(&op->flags);
				if (!(flags & FTRACE_OPS_FL_ENABLED) || (flags & FTRACE_OPS_FL_DIRECT))
					continue;
				if (ftrace_ops_wants(__atomic_load_n(&op->filter_hash, __ATOMIC_ACQUIRE),
					      __atomic_load_n(&op->notrace_hash, __ATOMIC_ACQUIRE), ip))
					list_call(&w, op, flags, ip, parent, fregs, regs_entry);
			}
		}
		if (w.cb)
			ftrace_recursion_exit_on(c, w.cb);
		if (w.graph) {
			unsigned gbit = ftrace_recursion_take_on(c, 0);
			if (gbit) {
				if (regs_entry)             /* graph users: no SAVE_REGS */
					ftrace_regs_set_regs(fregs, NULL);
				fgraph_list_enter(ip, parent, fregs, w.graph);
				ftrace_recursion_exit_on(c, gbit);
			}
		}
		if (regs_entry)                         /* the trampoline's again */
			ftrace_regs_set_regs(fregs, w.regs);
	}
	ftrace_recursion_exit_on(c, bit);
}

/* The plain entry's walk, out of line: it keeps the plain case's registers
 * free (ftrace_ops_list_func). */
static FTRACE_HOT __attribute__((noinline)) void
list_walk_plain(struct cpu *c, const struct listvec *v, const struct listvec_entry *e,
		uintptr_t ip, uintptr_t parent, struct ftrace_regs *fregs)
{
	list_walk_all(c, v, e, ip, parent, fregs, false);
}

/*
 * The plain case — the function's run in the table holds only plain
 * callbacks (listvec.h) — takes the callbacks' bit once and calls them
 * straight: each would have found that bit free and taken it on a site of
 * its own, or found it held and not been called.  The list bit is not taken
 * because nothing here can re-enter the list function with the callbacks'
 * bit free: a traced call made by a callback reaches, whatever its site
 * calls, a guard on the callbacks' bit (an assisted ops, a plain run here,
 * an ops guarding itself, the graph users' entry) or list_walk_all, whose list
 * bit then stops a second level.  So a plain run is guarded exactly as
 * list_call guards unguarded ops, which is how it was called before.
 */
FTRACE_HOT void ftrace_ops_list_func(uintptr_t ip, uintptr_t parent, struct ftrace_ops *unused,
				     struct ftrace_regs *fregs)
{
	/* FTRACE_HOT: not preempted here, so the CPU and the running thread
	 * stay ours throughout; they are read again after the calls rather
	 * than kept (one instruction each), which leaves registers for what
	 * the calls need. */
	unsigned depth = arch_current()->preempt_count;
	ftrace_preempt_disable_at(arch_current(), depth);
	/* ACQUIRE: a table (and the ops it names) published by the update is
	 * seen complete; it is freed only after a grace period, and we are not
	 * preempted. */
	const struct listvec *v = __atomic_load_n(&list_table, __ATOMIC_ACQUIRE);
	const struct listvec_entry *e = v ? listvec_find(v, ip) : NULL;
	if (__builtin_expect(e && e->plain, 1)) {
		if (ftrace_recursion_take_on(arch_this_cpu(), 0)) {
			if (!ftrace_is_dead()) {
				/* fregs has no frame (the plain list caller):
				 * ftrace_get_regs() says NULL, as promised to
				 * these ops (none asks for registers). */
				struct ftrace_ops *const *run = &v->ops[e->first];
				for (struct ftrace_ops *op; (op = *run); run++)
					/* Unregistered since (its update failed): stopped. */
					if (arch_load_relaxed32(&op->flags) &
					    FTRACE_OPS_FL_ENABLED)
						op->func(ip, parent, op, fregs);
			}
			ftrace_recursion_exit_ctx(arch_this_cpu(), 0);
		}
	} else {
		list_walk_plain(arch_this_cpu(), v, e, ip, parent, fregs);
	}
	ftrace_preempt_enable_at(arch_current(), depth);
}

/*
 * The regs list caller's entry: a site with a SAVE_REGS ops, or with a
 * direct trampoline and callbacks, or one that the update is moving off
 * those states (its run may be plain by then).  Never the plain case:
 * every ops goes through list_call, which shows the frame to SAVE_REGS
 * ops only, and the direct trampoline is found first.  Preemption off as
 * in ftrace_ops_list_func.
 */
FTRACE_HOT void ftrace_ops_list_regs_func(uintptr_t ip, uintptr_t parent, struct ftrace_ops *unused,
					  struct ftrace_regs *fregs)
{
	unsigned depth = arch_current()->preempt_count;
	ftrace_preempt_disable_at(arch_current(), depth);
	/* ACQUIRE: as in ftrace_ops_list_func. */
	const struct listvec *v = __atomic_load_n(&list_table, __ATOMIC_ACQUIRE);
	const struct listvec_entry *e = v ? listvec_find(v, ip) : NULL;
	list_walk_all(arch_this_cpu(), v, e, ip, parent, fregs, true);
	ftrace_preempt_enable_at(arch_current(), depth);
}

/* ---- the list function's table (update.c builds it) ---- */

const struct listvec *ftrace_list_table_get(void)
{
	return list_table;               /* ftrace_mutex: only the update writes it */
}

struct listvec *ftrace_list_table_swap(struct listvec *v)
{
	struct listvec *old = list_table;
	/* RELEASE: the table and the ops it names are complete before a list
	 * call that loads it (ACQUIRE, the list functions) reads them. */
	__atomic_store_n(&list_table, v, __ATOMIC_RELEASE);
	return old;
}

/* ---- trampolines of an ops ---- */

static int ops_tramp_create(struct ftrace_ops *op)
{
	uint8_t buf[ARCH_TRAMP_SIZE];
	if (op->flags & FTRACE_OPS_FL_DIRECT)
		return 0;
	uintptr_t slot = tramp_alloc();
	if (!slot)
		return 0;                  /* pool full: the list caller serves it */
	int len = arch_tramp_build(buf, slot, op, (void *)ftrace_ops_entry(op),
				   (op->flags & FTRACE_OPS_FL_SAVE_REGS) ? ARCH_TRAMP_REGS :
				   (op->flags & FTRACE_OPS_FL_NOARGS) ? ARCH_TRAMP_NOARGS :
				   (op->flags & FTRACE_OPS_FL_ARGS_ONLY) ? ARCH_TRAMP_ARGS_ONLY :
				   (op->flags & FTRACE_OPS_FL_NOFP) ? ARCH_TRAMP_NOFP : ARCH_TRAMP_ARGS);
	if (len < 0) {
		tramp_free(slot);
		return len;
	}
	tramp_write(slot, buf, (size_t)len);
	op->tramp = slot;
	return 0;
}

/* ---- registration ---- */

static bool on_list(struct ftrace_ops *op)
{
	for (struct ftrace_ops *p = ftrace_ops_list; p; p = p->next)
		if (p == op)
			return true;
	return false;
}

static void unlink_ops(struct ftrace_ops *op)
{
	struct ftrace_ops **pp = &ftrace_ops_list;
	while (*pp && *pp != op)
		pp = &(*pp)->next;
	if (*pp)
		__atomic_store_n(pp, op->next, __ATOMIC_RELEASE);
}

int ftrace_do_register(struct ftrace_ops *op)
{
	if (ftrace_is_dead())
		return -ENODEV;
	if (op->flags & FTRACE_OPS_FL_ENABLED)
		return -EBUSY;
	if (!op->func && !(op->flags & FTRACE_OPS_FL_DIRECT))
		return -EINVAL;
	if ((op->flags & FTRACE_OPS_FL_RECURSION) && !text_is_trampoline((uintptr_t)op->func))
		return -EINVAL;               /* see FTRACE_HOT */
	if ((op->flags & FTRACE_OPS_FL_NOFP) &&
	    (!(op->flags & FTRACE_OPS_FL_RECURSION) || !text_is_nofp((uintptr_t)op->func)))
		return -EINVAL;               /* see FTRACE_HOT_NOFP */
	if ((op->flags & FTRACE_OPS_FL_NOARGS) &&
	    (!(op->flags & FTRACE_OPS_FL_NOFP) || (op->flags & FTRACE_OPS_FL_SAVE_REGS)))
		return -EINVAL;               /* see FTRACE_OPS_FL_NOARGS */
	if ((op->flags & FTRACE_OPS_FL_ARGS_ONLY) &&
	    (!(op->flags & FTRACE_OPS_FL_NOFP) ||
	     (op->flags & (FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_NOARGS))))
		return -EINVAL;               /* see FTRACE_OPS_FL_ARGS_ONLY */
	ftrace_func_t entry = (op->flags & FTRACE_OPS_FL_RECURSION) ? op->func : ftrace_ops_assist_func;
	/* A CALL_OPS site of this ops calls the regs list caller if the ops
	 * saves registers, else the plain one: that caller's field is the
	 * entry.  The other caller reaches the word only mid-update, from a
	 * CPU whose fetch of the site's call and load of its word straddle
	 * the update (a regs list site becoming a plain ops' own, a SAVE_REGS
	 * ops' CALL_OPS site becoming a plain list site, or the reverse of
	 * either; trace/DESIGN.md): its list function then walks the
	 * function's ops, so a plain ops never sees the frame, nor a SAVE_REGS
	 * one a call without it, and a direct trampoline the site still has
	 * is entered. */
	bool regs = op->flags & FTRACE_OPS_FL_SAVE_REGS;
	op->call = regs ? ftrace_ops_list_func : entry;
	op->regs_call = regs ? entry : ftrace_ops_list_regs_func;
	int err = ops_tramp_create(op);
	if (err)
		return err;
	if (!on_list(op)) {
		op->next = ftrace_ops_list;
		op->applied = false;
		op->applied_filter_hash = op->applied_notrace_hash = NULL;
		/* RELEASE: the list function sees a complete ops. */
		__atomic_store_n(&ftrace_ops_list, op, __ATOMIC_RELEASE);
	}
	__atomic_fetch_or(&op->flags, FTRACE_OPS_FL_ENABLED, __ATOMIC_RELEASE);
	err = ftrace_update_commit(op);
	if (err) {
		/* No site was patched (validation comes first): take the ops out
		 * again; nothing can be running its new trampoline. */
		__atomic_fetch_and(&op->flags, ~FTRACE_OPS_FL_ENABLED, __ATOMIC_RELEASE);
		unlink_ops(op);
		tramp_synchronize();
		if (op->tramp) {
			tramp_free(op->tramp);
			op->tramp = 0;
		}
	}
	return err;
}

int register_ftrace_function(struct ftrace_ops *op)
{
	if (op->flags & FTRACE_OPS_FL_DIRECT)
		return -EINVAL;
	mutex_lock(&ftrace_mutex);
	int err = ftrace_do_register(op);
	mutex_unlock(&ftrace_mutex);
	return err;
}

int ftrace_do_unregister(struct ftrace_ops *op)
{
	if (!(op->flags & FTRACE_OPS_FL_ENABLED))
		return -EINVAL;
	__atomic_fetch_and(&op->flags, ~FTRACE_OPS_FL_ENABLED, __ATOMIC_RELEASE);
	int err = ftrace_update_commit(op);
	if (err) {
		/* Sites may still call its trampoline: keep the ops linked and
		 * the slot allocated; the caller must not free the ops.  With
		 * tracing killed, a dead tracer calls nothing.  Otherwise (no
		 * memory) no site changed and nothing was committed: it is
		 * registered as before, so it is ENABLED again and the caller
		 * may retry (calls meanwhile may have skipped it).  Left
		 * cleared, the next update's commit would count it unapplied
		 * while its sites still call it. */
		if (!ftrace_is_dead())
			__atomic_fetch_or(&op->flags, FTRACE_OPS_FL_ENABLED, __ATOMIC_RELEASE);
		return err;
	}
	/* Unlink; walkers that already hold a pointer to it finish within the
	 * grace period below, after which its trampoline and memory are free. */
	unlink_ops(op);
	tramp_synchronize();
	if (op->tramp) {
		tramp_free(op->tramp);
		op->tramp = 0;
	}
	op->applied_filter_hash = op->applied_notrace_hash = NULL;
	return err;
}

void ftrace_reclaim_trampolines(void)
{
	mutex_lock(&ftrace_mutex);
	tramp_synchronize();
	mutex_unlock(&ftrace_mutex);
}

int unregister_ftrace_function(struct ftrace_ops *op)
{
	mutex_lock(&ftrace_mutex);
	int err = ftrace_do_unregister(op);
	mutex_unlock(&ftrace_mutex);
	return err;
}

/* ---- filters ---- */

/* Apply one pattern (no '!') to *hp: add or remove every matching record.
 * Returns the number of functions matched, or -errno. */
static int apply_pattern(struct ftrace_hash **hp, const char *pat, bool remove)
{
	/* A literal name matches every record of that name (static functions
	 * may share one); strcmp is much cheaper than the glob walk. */
	bool literal = glob_is_literal(pat);
	int matched = 0;
	for (unsigned i = 0; i < ftrace_nrecs; i++) {
		const char *name = rec_name(&ftrace_recs[i]);
		if (literal ? strcmp(name, pat) != 0 : !glob_match(pat, name))
			continue;
		matched++;
		if (remove)
			hash_remove(*hp, rec_ip(&ftrace_recs[i]));
		else if (hash_add_rec(hp, rec_ip(&ftrace_recs[i]), i))
			return -ENOMEM;
	}
	return matched;
}

/*
 * A word of decimal digits is an index into available_filter_functions, as
 * in Linux (Documentation/trace/ftrace.rst, "Selecting function filters via
 * index"): N, from 1, selects the function on line N, which is record N - 1
 * (ftrace_list_available lists the records in order).  That is how one of
 * two functions sharing a name is chosen.  1 if applied; 0 if no line has
 * that number (the reason in ftrace_filter_error); -ENOMEM.
 */
static bool is_index(const char *pat)
{
	if (!*pat)
		return false;
	for (const char *p = pat; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static int apply_index(struct ftrace_hash **hp, const char *pat, bool remove)
{
	unsigned long n = 0;
	for (const char *p = pat; *p && n <= ftrace_nrecs; p++)
		n = n * 10 + (unsigned long)(*p - '0');
	if (n == 0 || n > ftrace_nrecs) {
		ksnprintf(ftrace_filter_error, sizeof(ftrace_filter_error),
			  "no line %.20s in available_filter_functions (it has %u, from 1)",
			  pat, ftrace_nrecs);
		return 0;
	}
	uintptr_t ip = rec_ip(&ftrace_recs[n - 1]);
	if (remove)
		hash_remove(*hp, ip);
	else if (hash_add_rec(hp, ip, (unsigned)(n - 1)))
		return -ENOMEM;
	return 1;
}

/* Copy the next space-separated word of *s into buf; false at the end.
 * A word that does not fit is cut to size - 1 bytes and *too_long set. */
static bool next_word(const char **s, char *buf, size_t size, bool *too_long)
{
	const char *p = *s;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == ',')
		p++;
	if (!*p)
		return false;
	size_t n = 0;
	while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '\n' && p[n] != ',')
		n++;
	*too_long = n >= size;
	if (n >= size)
		n = size - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	*s = p + n;
	while (**s && **s != ' ' && **s != '\t' && **s != '\n' && **s != ',')
		(*s)++;
	return true;
}

/* After a removal (or a base built without them), list the record of
 * every key again, in record order (trace/core/hash.h): the update walks that
 * list.  One probe per record, cheaper than the glob walk that built h. */
static void hash_reindex(struct ftrace_hash *h)
{
	hash_recs_restart(h);
	for (unsigned i = 0; i < ftrace_nrecs && h->nrecs < h->count; i++)
		if (hash_contains(h, rec_ip(&ftrace_recs[i])))
			hash_recs_append(h, i);
}

char ftrace_filter_error[FTRACE_ERROR_SIZE];

int ftrace_build_hash(const struct ftrace_hash *base, const char *patterns, bool reset,
		      struct ftrace_hash **out)
{
	char word[128];
	const char *s = patterns;
	struct ftrace_hash *h = (!reset && base) ? hash_copy(base) : hash_alloc(16);
	if (!h)
		return -ENOMEM;
	ftrace_filter_error[0] = '\0';
	bool too_long;
	while (next_word(&s, word, sizeof(word), &too_long)) {
		bool remove = word[0] == '!';
		const char *pat = word + remove;
		bool index = !too_long && is_index(pat);
		const char *why = too_long ? "longer than 127 characters" :
				  index ? NULL : glob_check(pat);
		int n = why ? -EINVAL : index ? apply_index(&h, pat, remove) :
			apply_pattern(&h, pat, remove);
		/* A long word is cut in the message, which keeps its quote
		 * and its reason. */
		const char *more = strlen(word) > 40 ? "..." : "";
		if (why)
			ksnprintf(ftrace_filter_error, sizeof(ftrace_filter_error),
				  "invalid pattern '%.40s%s': %s", word, more, why);
		else if (n == 0 && !index)
			ksnprintf(ftrace_filter_error, sizeof(ftrace_filter_error),
				  "no function matches '%.40s%s'", word, more);
		if (why || n == 0) {
			hash_free(h);
			return -EINVAL;
		}
		if (n < 0) {
			hash_free(h);
			return n;
		}
	}
	if (!hash_recs_all(h))
		hash_reindex(h);
	*out = h;
	return 0;
}

static struct ftrace_hash **hash_slot(struct ftrace_ops *op, bool notrace)
{
	return notrace ? &op->notrace_hash : &op->filter_hash;
}

/*
 * New hashes for every ops of ops[] (distinct), all or none: every hash is
 * built first, then they are published together and one update moves the
 * sites (the changed ops' own when only one is registered, else a rescan
 * of every record).  If the update fails nothing was patched: the old
 * hashes go back (the list function may have seen the new ones, hence the
 * grace period before they are freed).
 */
static int set_hashes(struct ftrace_ops *const *ops, unsigned n, bool notrace,
		      const char *patterns, bool reset)
{
	struct ftrace_hash *h[FTRACE_SET_MAX_OPS], *old[FTRACE_SET_MAX_OPS];
	if (n == 0 || n > FTRACE_SET_MAX_OPS)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < i; j++)
			if (ops[i] == ops[j])
				return -EINVAL;     /* the rollback would free a live hash */
	mutex_lock(&ftrace_mutex);
	int err = 0;
	unsigned built = 0, live = 0;
	const struct ftrace_ops *changed = NULL;
	for (; built < n && !err; built++)
		err = ftrace_build_hash(*hash_slot(ops[built], notrace), patterns, reset, &h[built]);
	if (err)
		built--;                                     /* the last one failed */
	/* A registered direct ops takes the functions of its new hashes:
	 * each must be its own and within its reach (direct_check). */
	struct direct_change dc = { .ops = ops, .n = n };
	for (unsigned i = 0; i < n && !err; i++) {
		dc.filter_hash[i] = notrace ? ops[i]->filter_hash : h[i];
		dc.notrace_hash[i] = notrace ? h[i] : ops[i]->notrace_hash;
		dc.addr[i] = (ops[i]->flags & (FTRACE_OPS_FL_DIRECT | FTRACE_OPS_FL_ENABLED)) ==
			     (FTRACE_OPS_FL_DIRECT | FTRACE_OPS_FL_ENABLED) ? ops[i]->direct : 0;
	}
	if (!err)
		err = direct_check(&dc);
	if (err) {
		for (unsigned i = 0; i < built; i++)
			hash_free(h[i]);
		mutex_unlock(&ftrace_mutex);
		return err;
	}
	for (unsigned i = 0; i < n; i++) {
		old[i] = *hash_slot(ops[i], notrace);
		/* RELEASE: the hash is complete before the list function sees it. */
		__atomic_store_n(hash_slot(ops[i], notrace), h[i], __ATOMIC_RELEASE);
		if (ops[i]->flags & FTRACE_OPS_FL_ENABLED) {
			live++;
			changed = ops[i];
		}
	}
	/* The update frees the old hashes of registered ops after a grace period. */
	if (live)
		err = ftrace_update_commit(live == 1 ? changed : NULL);
	if (err) {
		for (unsigned i = 0; i < n; i++)
			__atomic_store_n(hash_slot(ops[i], notrace), old[i], __ATOMIC_RELEASE);
		tramp_synchronize();
		for (unsigned i = 0; i < n; i++)
			hash_free(h[i]);
	} else {
		for (unsigned i = 0; i < n; i++)
			if (!(ops[i]->flags & FTRACE_OPS_FL_ENABLED) &&
			    old[i] != (notrace ? ops[i]->applied_notrace_hash : ops[i]->applied_filter_hash))
				hash_free(old[i]);
	}
	mutex_unlock(&ftrace_mutex);
	return err;
}

static int set_hash(struct ftrace_ops *op, bool notrace, const char *patterns, bool reset)
{
	return set_hashes(&op, 1, notrace, patterns, reset);
}

int ftrace_set_filter_ops(struct ftrace_ops *const *ops, unsigned n, bool notrace,
			  const char *patterns, bool reset)
{
	return set_hashes(ops, n, notrace, patterns, reset);
}

int ftrace_set_filter(struct ftrace_ops *op, const char *patterns, bool reset)
{
	return set_hash(op, false, patterns, reset);
}

int ftrace_set_notrace(struct ftrace_ops *op, const char *patterns, bool reset)
{
	return set_hash(op, true, patterns, reset);
}

int ftrace_set_filter_ip(struct ftrace_ops *op, uintptr_t ip, bool remove, bool reset)
{
	struct ftrace_rec *r = rec_find(ip);
	if (!r)
		return -EINVAL;
	char name[128];
	ksnprintf(name, sizeof(name), "%s%s", remove ? "!" : "", rec_name(r));
	return set_hash(op, false, name, reset);
}

/* ---- boot ---- */

int ftrace_init(void)
{
	int err = records_init();
	/* Without it an unregister could fail, which its callers (stopping
	 * tracers, graph users, fprobes) cannot undo: no tracing then. */
	if (!err && ftrace_update_reserve_init())
		panic("ftrace: no memory for the update reserve (%u records)", ftrace_nrecs);
	return err;
}

/* ---- listings (available_filter_functions, enabled_functions) ---- */

void ftrace_list_available(void (*out)(void *ctx, const char *line), void *ctx)
{
	for (unsigned i = 0; i < ftrace_nrecs; i++)
		out(ctx, rec_name(&ftrace_recs[i]));
}

void ftrace_list_available_addrs(void (*out)(void *ctx, const char *line), void *ctx)
{
	char line[FTRACE_ERROR_SIZE];
	for (unsigned i = 0; i < ftrace_nrecs; i++) {
		ksnprintf(line, sizeof(line), "%lx %s", (unsigned long)rec_ip(&ftrace_recs[i]),
			  rec_name(&ftrace_recs[i]));
		out(ctx, line);
	}
}

static int cat_available(const char *arg)
{
	ftrace_list_available(tracefs_print_line, NULL);
	return 0;
}

static int cat_available_addrs(const char *arg)
{
	ftrace_list_available_addrs(tracefs_print_line, NULL);
	return 0;
}

TRACEFS_FILE(150, "available_filter_functions", .cat = cat_available);
TRACEFS_FILE(160, "available_filter_functions_addrs", .cat = cat_available_addrs);
