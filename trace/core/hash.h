/*
 * hash.h — sets of traced functions (an ops' filter or notrace set).
 *
 * Keys are function addresses.  Open addressing with linear probing, size a
 * power of two, at most half full.  A hash is built by its owner under the
 * ftrace lock and then published; once published it is never modified —
 * a change builds a new hash and the old one is freed after a grace period
 * (tramp_synchronize), because the list function reads it lock-free from
 * any context.
 *
 * Record indices: besides its keys, a hash lists the index in the record
 * table (trace/core/records.h) of the keys' records, when its builder gives them
 * (hash_add_rec), densely and in insertion order: hash_recs(h)[0..nrecs).
 * The update walks that list to find the records a hash names, without a
 * lookup per key or a walk over the slots — and when the list is sorted
 * (a hash built by one pass over the record table), without even sorting
 * them.  It holds every key's index when nrecs == count (hash_recs_all).
 * It lives after the slots in the same allocation, (mask + 1) / 2 entries:
 * never more than the keys, as the hash is at most half full; so a copy is
 * one memcpy.  A removal empties it (nrecs = 0); the owner may restate it
 * with hash_recs_restart() and hash_recs_append() before publishing.
 */
#ifndef TRACE_HASH_H
#define TRACE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ftrace_hash {
	unsigned count;        /* keys stored */
	unsigned mask;         /* slots - 1 */
	unsigned nrecs;        /* record indices listed (hash_recs) */
	bool sorted;           /* hash_recs() is in ascending order */
	uintptr_t slot[];      /* 0 = empty; then the record index list */
};

#define HASH_NO_REC 0xffffffffu   /* the key's record index is not known */

struct ftrace_hash *hash_alloc(unsigned expect);
void hash_free(struct ftrace_hash *h);
/* Insert key (with the index of its record, appended to the list, or
 * HASH_NO_REC); may replace *hp by a bigger copy.  -ENOMEM leaves *hp as it
 * was.  A key already present is left as it is. */
int hash_add_rec(struct ftrace_hash **hp, uintptr_t key, uint32_t rec);
static inline int hash_add(struct ftrace_hash **hp, uintptr_t key)
{
	return hash_add_rec(hp, key, HASH_NO_REC);
}
/* Remove key (no-op if absent); rebuilds the probe chain. */
void hash_remove(struct ftrace_hash *h, uintptr_t key);
struct ftrace_hash *hash_copy(const struct ftrace_hash *h);

static inline __attribute__((always_inline)) unsigned hash_index(uintptr_t key, unsigned mask)
{
	/* Fibonacci hashing of the address; functions are >= 4-byte aligned. */
	return (unsigned)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 40) & mask;
}

/* Lock-free lookup; h may be NULL (an empty set). */
static inline __attribute__((always_inline)) bool hash_contains(const struct ftrace_hash *h,
								uintptr_t key)
{
	if (!h || !h->count)
		return false;
	for (unsigned i = hash_index(key, h->mask);; i = (i + 1) & h->mask) {
		uintptr_t k = h->slot[i];
		if (k == key)
			return true;
		if (!k)
			return false;
	}
}

/* The record index list (see the header).  Owner, or a published hash. */
static inline uint32_t *hash_recs(const struct ftrace_hash *h)
{
	return (uint32_t *)&h->slot[h->mask + 1];
}

/* Does the list name the record of every key? */
static inline bool hash_recs_all(const struct ftrace_hash *h)
{
	return h->nrecs == h->count;
}

/* Owner, before publication: empty the list, then append the index of
 * each key's record (each key once: the list has room for `count`). */
static inline void hash_recs_restart(struct ftrace_hash *h)
{
	h->nrecs = 0;
	h->sorted = true;
}

static inline void hash_recs_append(struct ftrace_hash *h, uint32_t rec)
{
	uint32_t *r = hash_recs(h);
	if (h->nrecs && rec <= r[h->nrecs - 1])
		h->sorted = false;
	r[h->nrecs++] = rec;
}

static inline bool hash_empty(const struct ftrace_hash *h)
{
	return !h || h->count == 0;
}

#endif
