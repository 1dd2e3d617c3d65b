/*
 * site_state.h — the state a record's site must be in, for the site update
 * (update.c) and for enabled_functions (enabled_functions.c), which
 * describes the states the update installed.
 *
 * A state is a record's flags (records.h): the "wanted" bits say what the
 * site should call (count of callers, REGS, TRAMP, DIRECT, CALL_OPS), the
 * "enabled" bits what it was last patched to.  want_of() gathers what the
 * registered ops ask of one function; flags_of() turns that into wanted
 * flags; target_of() and data_of() say what a site in a state calls and
 * which ops its data word names.  All of it reads ftrace_ops_list:
 * ftrace_mutex held.  Inline: the update calls these per candidate site.
 */
#ifndef TRACE_SITE_STATE_H
#define TRACE_SITE_STATE_H

#include <string.h>

#include "trace/core/ftrace.h"
#include "trace/core/ftrace_internal.h"
#include "trace/core/records.h"

#define SITE_INLINE static inline __attribute__((always_inline))

/* Callback ops attached in (new or stored) flags f: the count less the
 * direct trampoline, which records.h counts as Linux does. */
SITE_INLINE uint32_t callers_of(uint32_t f)
{
	return (f & FREC_REF_MASK) - ((f & FREC_DIRECT) ? 1 : 0);
}

/* Does a record with (new or stored) flags f have its site call the list
 * function?  Several callbacks, one without a trampoline of its own, or
 * callbacks and a direct trampoline (the regs list caller enters it after
 * them). */
SITE_INLINE bool calls_list(uint32_t f)
{
	return (f & FREC_ENABLED) && callers_of(f) &&
	       !(f & (FREC_TRAMP | FREC_CALL_OPS | FREC_DISABLED));
}

/* New (wanted) state of one record under the current hashes. */
struct site_want {
	unsigned count;
	struct ftrace_ops *single;      /* the attached ops when count == 1 */
	bool regs;
	uintptr_t direct;
};

SITE_INLINE void want_of(uintptr_t ip, struct site_want *w, bool applied)
{
	memset(w, 0, sizeof(*w));
	for (struct ftrace_ops *op = ftrace_ops_list; op; op = op->next) {
		bool live = applied ? op->applied : (op->flags & FTRACE_OPS_FL_ENABLED);
		if (!live)
			continue;
		if (!ftrace_ops_wants(applied ? op->applied_filter_hash : op->filter_hash,
			       applied ? op->applied_notrace_hash : op->notrace_hash, ip))
			continue;
		if (op->flags & FTRACE_OPS_FL_DIRECT) {
			w->direct = op->direct;
			continue;                 /* direct ops do not count as callers */
		}
		w->count++;
		w->single = op;
		w->regs |= (op->flags & FTRACE_OPS_FL_SAVE_REGS) != 0;
	}
}

/* The count is every attached ops, the direct one included (Linux's
 * enabled_functions count); DIRECT with callbacks as well is a list site. */
SITE_INLINE uint32_t flags_of(const struct site_want *w)
{
	uint32_t f = (w->count + (w->direct ? 1 : 0)) & FREC_REF_MASK;
	if (w->regs)
		f |= FREC_REGS;
	if (w->direct)
		f |= FREC_DIRECT;
	else if (w->count == 1 && w->single->tramp)
		f |= FREC_TRAMP;
	else if (w->count == 1 && ARCH_SITE_HAS_DATA)
		f |= FREC_CALL_OPS;
	if (w->direct || w->count)
		f |= FREC_ENABLED;
	return f;
}

/* What a site with wanted/enabled flags f calls, given its ops (f may
 * come without its count: the callers are w's).  A direct trampoline alone
 * is called by the site itself; with callbacks the site calls the regs
 * list caller, which calls them through its list function and then enters
 * the direct trampoline as the site would have (ftrace.c list_direct). */
SITE_INLINE uintptr_t target_of(uint32_t f, const struct site_want *w)
{
	if (!(f & FREC_ENABLED))
		return 0;
	if (f & FREC_DIRECT)
		return w->count ? (uintptr_t)arch_ftrace_regs_list_caller : w->direct;
	if (f & FREC_TRAMP)        /* 0 if no single ops: the site check refuses */
		return w->single ? w->single->tramp : 0;
	return (f & FREC_REGS) ? (uintptr_t)arch_ftrace_regs_list_caller
			       : (uintptr_t)arch_ftrace_list_caller;
}

/* Does a site in wanted state f (with its count) call a list caller, the
 * only code that reads the site's data word (arm64: ftrace_tramp.S)? */
SITE_INLINE bool reads_data(uint32_t f)
{
	return ARCH_SITE_HAS_DATA && (f & FREC_ENABLED) && !(f & FREC_TRAMP) &&
	       (!(f & FREC_DIRECT) || callers_of(f));
}

/*
 * The data word a site in wanted state f needs.  Every value a data word
 * holds, from boot on (records.c), names an ops that is live until the
 * grace period after the update that stops using it: ftrace_list_ops, or
 * the one ops a CALL_OPS site calls.  That matters because a CPU that
 * fetches a site's new BL is not promised to load the literal stored
 * before it (instruction fetch does not order later loads; arm64 patch.c,
 * B): it may call through the previous value.  So a state that does not
 * read the word (disabled, a trampoline, a direct target) gives it back
 * ftrace_list_ops, which is a store only when leaving CALL_OPS (rare: an
 * ops without a trampoline), and otherwise keeps it.  So the word is a
 * function of the state alone: the one ops in CALL_OPS, else
 * ftrace_list_ops (a list site, direct trampoline or not, calls the list
 * function through it) -- which is what the update checks a site's word
 * against before it changes the site (update.c).  f may come without its
 * count.  Both list callers read the same word and call a field of their
 * own from the ops it names (call, regs_call: ftrace.h), so whichever of
 * those values a CPU loads with either BL, the regs list caller reaches
 * the regs list function or a SAVE_REGS CALL_OPS ops' entry (a plain ops'
 * regs_call is the regs list function), never the plain list function
 * nor a plain ops' entry with the frame; and the plain list caller the
 * plain list function or a plain ops' entry (a SAVE_REGS ops' call is the
 * plain list function), never a SAVE_REGS ops' entry without the frame.
 */
SITE_INLINE uintptr_t data_of(uint32_t f, const struct site_want *w)
{
	if (!ARCH_SITE_HAS_DATA)
		return 0;                      /* no data word: arch_site_data says 0 */
	return (f & FREC_ENABLED) && (f & FREC_CALL_OPS) && w->single ? (uintptr_t)w->single :
									(uintptr_t)&ftrace_list_ops;
}

/* The enabled-state flags moved to wanted positions, to compare with wanted. */
SITE_INLINE uint32_t enabled_as_wanted(uint32_t f)
{
	return ((f & FREC_REGS_EN) ? FREC_REGS : 0) | ((f & FREC_TRAMP_EN) ? FREC_TRAMP : 0) |
	       ((f & FREC_DIRECT_EN) ? FREC_DIRECT : 0) |
	       ((f & FREC_CALL_OPS_EN) ? FREC_CALL_OPS : 0) | (f & FREC_ENABLED);
}

SITE_INLINE uint32_t wanted_as_enabled(uint32_t f)
{
	return ((f & FREC_REGS) ? FREC_REGS_EN : 0) | ((f & FREC_TRAMP) ? FREC_TRAMP_EN : 0) |
	       ((f & FREC_DIRECT) ? FREC_DIRECT_EN : 0) |
	       ((f & FREC_CALL_OPS) ? FREC_CALL_OPS_EN : 0);
}

/* The flags a record stores once its site is in wanted state f. */
SITE_INLINE uint32_t stored_flags(uint32_t f)
{
	return (f & (FREC_REF_MASK | FREC_WANT_MASK | FREC_ENABLED)) | wanted_as_enabled(f);
}

#endif
