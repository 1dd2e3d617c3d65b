/*
 * ftrace_internal.h — the tracing core's private parts, shared by its
 * files (ftrace.c, update.c, direct.c, enabled_functions.c) and the core's
 * own tests: the ops list, the list function's table, the update,
 * registration under the lock, direct trampolines' checks.  Nothing else
 * includes it: tracers use trace/ftrace.h (the user API),
 * trace/ftrace_filter.h (function sets built from patterns) and
 * trace/recursion.h (the recursion guard); boot/ uses trace/boot.h.
 */
#ifndef TRACE_FTRACE_INTERNAL_H
#define TRACE_FTRACE_INTERNAL_H

#include "boot/cpu.h"
#include "boot/sched.h"
#include "trace/ftrace_filter.h"
#include "trace/hash.h"

struct ftrace_ops;
struct ftrace_hash;
struct listvec;

/* ftrace.c: every ops whose sites may be live, in registration order
 * (lock-free readers: ACQUIRE loads of it and of each `next`). */
extern struct ftrace_ops *ftrace_ops_list;
/* ftrace.c: the list function's table (listvec.h) as published, or NULL;
 * publish a complete new one (RELEASE) and get the replaced one back, to
 * free after a grace period.  ftrace_mutex held. */
const struct listvec *ftrace_list_table_get(void);
struct listvec *ftrace_list_table_swap(struct listvec *v);

/* update.c.  Re-patch after `changed` was (un)registered or its hashes
 * changed (NULL: consider every record), and on success make every ops'
 * current hashes its applied ones (the replaced hashes are freed after a
 * grace period).  ftrace_mutex held.  0; -ENOMEM (nothing changed: the
 * caller puts its own state back); -EILSEQ, -EINVAL, -ENODEV (tracing
 * killed).  ftrace_update is the re-patch alone. */
int ftrace_update_commit(const struct ftrace_ops *changed);
int ftrace_update(const struct ftrace_ops *changed);
/* update.c: the block that lets an update taking an ops away (its
 * ENABLED bit cleared) go on without the heap: unregistering never fails
 * with -ENOMEM once this succeeded.  Boot, after records_init. */
int ftrace_update_reserve_init(void);

/* ftrace.c: register / unregister op with ftrace_mutex held (the public
 * calls take it; direct.c adds its checks around them). */
int ftrace_do_register(struct ftrace_ops *op);
int ftrace_do_unregister(struct ftrace_ops *op);

/* The most ops one ftrace_set_filter_ops call changes. */
#define FTRACE_SET_MAX_OPS 4

/*
 * A change of the functions direct ops take: ops[0..n) (distinct) with the
 * hashes each will have, and the direct address of each that is a direct
 * ops once the change is made (0 for the others: they take nothing here).
 * register_ftrace_direct: the one ops it registers, with its hashes and
 * address; set_hashes: every ops of the call, a registered direct ops with
 * its own address.
 */
struct direct_change {
	struct ftrace_ops *const *ops;
	unsigned n;
	const struct ftrace_hash *filter_hash[FTRACE_SET_MAX_OPS],
			 *notrace_hash[FTRACE_SET_MAX_OPS];
	uintptr_t addr[FTRACE_SET_MAX_OPS];
};

/* direct.c: may the change be made?  0, or -EBUSY / -ERANGE / -EINVAL
 * with the reason in ftrace_filter_error; reads only.  ftrace_mutex held. */
int direct_check(const struct direct_change *c);

#ifndef FTRACE_INLINE
#define FTRACE_INLINE static inline __attribute__((always_inline))
#endif

/* Does an ops with these hashes trace ip?  (An empty filter means every
 * function; notrace wins.) */
FTRACE_INLINE bool ftrace_ops_wants(const struct ftrace_hash *filter_hash,
				    const struct ftrace_hash *notrace_hash, uintptr_t ip)
{
	return (hash_empty(filter_hash) || hash_contains(filter_hash, ip)) &&
	       !hash_contains(notrace_hash, ip);
}

#endif
