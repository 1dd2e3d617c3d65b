/*
 * listvec.c — building the list function's per-function ops table (the
 * contract is in listvec.h).  Control side only: ftrace_mutex held.
 */
#include <stdlib.h>
#include <string.h>

#include "trace/listvec.h"

struct listvec *listvec_alloc(unsigned sites, unsigned ops)
{
	unsigned slots = 4;
	while (slots < 2 * sites)
		slots *= 2;
	size_t head = sizeof(struct listvec) + slots * sizeof(struct listvec_entry);
	struct listvec *v = calloc(1, head + (ops ? ops : 1) * sizeof(struct ftrace_ops *));
	if (!v)
		return NULL;
	v->mask = slots - 1;
	v->maxops = ops;
	v->ops = (struct ftrace_ops **)((char *)v + head);
	return v;
}

void listvec_add(struct listvec *v, uintptr_t ip, struct ftrace_ops *const *ops, unsigned n)
{
	if (!ip || v->nops + n > v->maxops)
		return;
	unsigned i = hash_index(ip, v->mask);
	while (v->slot[i].ip) {
		if (v->slot[i].ip == ip)
			return;
		i = (i + 1) & v->mask;
	}
	memcpy(&v->ops[v->nops], ops, n * sizeof(*ops));
	v->slot[i] = (struct listvec_entry){ ip, v->nops, n };
	v->nops += n;
}

bool listvec_equal(const struct listvec *a, const struct listvec *b)
{
	if (!a || !b)
		return a == b;
	/* Built by the same deterministic walk, equal tables are equal bytes. */
	return a->mask == b->mask && a->nops == b->nops &&
	       !memcmp(a->slot, b->slot, (a->mask + 1) * sizeof(a->slot[0])) &&
	       !memcmp(a->ops, b->ops, a->nops * sizeof(a->ops[0]));
}

void listvec_free(struct listvec *v)
{
	free(v);
}
