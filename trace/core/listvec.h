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
 * Layout: open addressing on the address (listvec_index), linear probing
 * without wrapping around (the `sites` slots after the last home slot take
 * any run off its end: no run of n entries reaches past home + n), at most
 * half full; each entry names a run of `ops[]`, which a NULL ends (so
 * a caller walking it keeps one pointer, not two).  One allocation.
 */
#ifndef TRACE_LISTVEC_H
#define TRACE_LISTVEC_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/core/hash.h"

struct ftrace_ops;

struct listvec_entry {
	uintptr_t ip;                   /* 0 = empty slot */
	uint32_t first;                 /* its ops: ops[first .. first + n), then NULL */
	uint16_t n;
	uint8_t plain;                  /* 1: every one of them is a plain callback
					   (no GRAPH, RECURSION, SAVE_REGS or DIRECT
					   flag, which never change while registered;
					   a DIRECT one is listed for its address,
					   not called: ftrace.c list_direct) */
	uint8_t direct;                 /* 1: one of them is a DIRECT ops (0: the
					   regs list function need not look) */
};

struct listvec {
	unsigned mask;                  /* home slots - 1; slot[] has `sites` more */
	unsigned sites, used;           /* functions it has room for / holds */
	unsigned nops, maxops;          /* ops[] used / allocated (NULLs included) */
	struct ftrace_ops **ops;
	struct listvec_entry slot[];
};

/* Room for `sites` functions and `ops` ops entries in all (the runs' NULLs
 * come on top); NULL without memory. */
struct listvec *listvec_alloc(unsigned sites, unsigned ops);
/* Add function ip with its n ops (in call order).  Within what was
 * allocated; an ip already present, or more than 65535 ops, is not added
 * (the function gets the full walk). */
void listvec_add(struct listvec *v, uintptr_t ip, struct ftrace_ops *const *ops, unsigned n);
/* Same functions with the same ops in the same order. */
bool listvec_equal(const struct listvec *a, const struct listvec *b);
void listvec_free(struct listvec *v);

/* The home slot of ip.  Neighbouring entries are 16 bytes or more apart
 * (arm64: two NOPs before each function and two at its entry; x86-64:
 * 16-byte function alignment), so ip / 16 differs between neighbours and
 * only wraps modulo the table: scattering enough for a table of list sites,
 * in two instructions on the list function's path.  Entries that do share
 * a home slot cost one more probe, never a wrong answer. */
static inline __attribute__((always_inline)) unsigned listvec_index(uintptr_t ip, unsigned mask)
{
	return (unsigned)(ip >> 4) & mask;
}

/* Lock-free lookup (v published, or owned); NULL if ip is not there. */
static inline __attribute__((always_inline)) const struct listvec_entry *
listvec_find(const struct listvec *v, uintptr_t ip)
{
	const struct listvec_entry *e = &v->slot[listvec_index(ip, v->mask)];
	for (; e->ip != ip; e++)
		if (!e->ip)
			return NULL;
	return e;
}

#endif
