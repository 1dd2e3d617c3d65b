/*
 * listvec.h — for every function whose site calls the list function, the
 * ops attached to it, found by address.
 *
 * The list function (ftrace.c) would otherwise test every registered ops'
 * filter and notrace hash on every call.  The update computes the same
 * answer once per site, when it computes the site's state, and publishes it
 * here; a call then costs one lookup and a walk over exactly its ops.
 *
 * A table is built under ftrace_mutex (listvec_alloc, listvec_add), then
 * published with a RELEASE store and never modified; a replaced table is
 * freed after a grace period (tramp_synchronize), because the list function
 * reads it lock-free from any context.  A function that is not in the table
 * (no memory for one, or a site still running its old state during an
 * update) is served by the full walk, so the table only ever saves time.
 *
 * Layout: open addressing on the address (hash_index), linear probing, at
 * most half full; each entry names a run of `ops[]`.  One allocation.
 */
#ifndef TRACE_LISTVEC_H
#define TRACE_LISTVEC_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/hash.h"

struct ftrace_ops;

struct listvec_entry {
	uintptr_t ip;                   /* 0 = empty slot */
	uint32_t first, n;              /* its ops: ops[first .. first + n) */
};

struct listvec {
	unsigned mask;                  /* slots - 1 */
	unsigned nops, maxops;          /* ops[] used / allocated */
	struct ftrace_ops **ops;
	struct listvec_entry slot[];
};

/* Room for `sites` functions and `ops` ops entries in all; NULL without
 * memory. */
struct listvec *listvec_alloc(unsigned sites, unsigned ops);
/* Add function ip with its n ops (in call order).  Within what was
 * allocated; an ip already present is not added again. */
void listvec_add(struct listvec *v, uintptr_t ip, struct ftrace_ops *const *ops, unsigned n);
/* Same functions with the same ops in the same order. */
bool listvec_equal(const struct listvec *a, const struct listvec *b);
void listvec_free(struct listvec *v);

/* Lock-free lookup (v published, or owned); NULL if ip is not there. */
static inline __attribute__((always_inline)) const struct listvec_entry *
listvec_find(const struct listvec *v, uintptr_t ip)
{
	for (unsigned i = hash_index(ip, v->mask);; i = (i + 1) & v->mask) {
		const struct listvec_entry *e = &v->slot[i];
		if (e->ip == ip)
			return e;
		if (!e->ip)
			return NULL;
	}
}

#endif
