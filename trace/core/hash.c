/*
 * hash.c — building function sets (owner only, under the ftrace lock).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/core/hash.h"

/* The slots, then room for a record index per key: at most half the slots. */
static size_t hash_bytes(unsigned mask)
{
	return sizeof(struct ftrace_hash) + (mask + 1) * sizeof(uintptr_t) +
	       (mask + 1) / 2 * sizeof(uint32_t);
}

struct ftrace_hash *hash_alloc(unsigned expect)
{
	unsigned slots = 16;
	while (slots < 2 * expect)
		slots *= 2;
	struct ftrace_hash *h = calloc(1, hash_bytes(slots - 1));
	if (h) {
		h->mask = slots - 1;
		h->sorted = true;
	}
	return h;
}

void hash_free(struct ftrace_hash *h)
{
	free(h);
}

/* Put a key that is not there into its slot (the list is the caller's). */
static void insert(struct ftrace_hash *h, uintptr_t key)
{
	unsigned i = hash_index(key, h->mask);
	while (h->slot[i])
		i = (i + 1) & h->mask;
	h->slot[i] = key;
	h->count++;
}

int hash_add_rec(struct ftrace_hash **hp, uintptr_t key, uint32_t rec)
{
	struct ftrace_hash *h = *hp;
	if (hash_contains(h, key))
		return 0;
	if (2 * (h->count + 1) > h->mask + 1) {
		struct ftrace_hash *big = hash_alloc(2 * (h->count + 1));
		if (!big)
			return -ENOMEM;
		for (unsigned i = 0; i <= h->mask; i++)
			if (h->slot[i])
				insert(big, h->slot[i]);
		memcpy(hash_recs(big), hash_recs(h), h->nrecs * sizeof(uint32_t));
		big->nrecs = h->nrecs;
		big->sorted = h->sorted;
		free(h);
		*hp = h = big;
	}
	insert(h, key);
	if (rec != HASH_NO_REC)
		hash_recs_append(h, rec);
	return 0;
}

void hash_remove(struct ftrace_hash *h, uintptr_t key)
{
	unsigned i = hash_index(key, h->mask);
	while (h->slot[i] && h->slot[i] != key)
		i = (i + 1) & h->mask;
	if (!h->slot[i])
		return;
	h->slot[i] = 0;
	h->count--;
	hash_recs_restart(h);            /* it may name the key's record */
	/* Re-insert the rest of the cluster so no probe chain is cut short. */
	for (i = (i + 1) & h->mask; h->slot[i]; i = (i + 1) & h->mask) {
		uintptr_t k = h->slot[i];
		h->slot[i] = 0;
		h->count--;
		insert(h, k);
	}
}

struct ftrace_hash *hash_copy(const struct ftrace_hash *h)
{
	size_t bytes = hash_bytes(h->mask);
	struct ftrace_hash *c = malloc(bytes);
	if (c)
		memcpy(c, h, bytes);
	return c;
}
