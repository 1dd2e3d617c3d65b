/*
 * hash.h — sets of traced functions (an ops' filter or notrace set).
 *
 * Keys are function addresses.  Open addressing with linear probing, size a
 * power of two, at most half full.  Beside each key the hash keeps the index
 * of its record in the record table (trace/records.h), when the builder
 * knows it (hash_add_rec): the update finds the records a hash names by
 * walking the hash, without a lookup per key.  The indices sit after the
 * slots in the same allocation (hash_recs), so a copy is one memcpy.  A hash is built by its owner under the
 * ftrace lock and then published; once published it is never modified —
 * a change builds a new hash and the old one is freed after a grace period
 * (tramp_synchronize), because the list function reads it lock-free from
 * any context.
 */
#ifndef TRACE_HASH_H
#define TRACE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ftrace_hash {
	unsigned count;        /* keys stored */
	unsigned mask;         /* slots - 1 */
	uintptr_t slot[];      /* 0 = empty; then mask + 1 record indices (hash_recs) */
};

#define HASH_NO_REC 0xffffffffu   /* the key's record index is not known */

struct ftrace_hash *hash_alloc(unsigned expect);
void hash_free(struct ftrace_hash *h);
/* Insert key (with the index of its record, or HASH_NO_REC); may replace
 * *hp by a bigger copy.  -ENOMEM leaves *hp as it was.  A key already
 * present keeps the index it has. */
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

/* rec[i] is the record index of slot[i]'s key (meaningless for an empty
 * slot).  Owner, or a published hash (never modified). */
static inline uint32_t *hash_recs(const struct ftrace_hash *h)
{
	return (uint32_t *)&h->slot[h->mask + 1];
}

static inline bool hash_empty(const struct ftrace_hash *h)
{
	return !h || h->count == 0;
}

#endif
