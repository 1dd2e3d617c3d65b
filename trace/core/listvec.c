/*
 * listvec.c — building the list function's per-function ops table (the
 * contract is in listvec.h).  Control side only: ftrace_mutex held.
 */
#include <stdlib.h>
#include <string.h>

#include "trace/core/ftrace.h"
#include "trace/core/listvec.h"

struct listvec *listvec_alloc(unsigned sites, unsigned ops)
{
	unsigned slots = 4;
	while (slots < 2 * sites)
		slots *= 2;
	/* The home slots, then `sites` + 1 more: with at most `sites` entries a
	 * run of full slots from any home slot ends by home + sites, so no
	 * probe runs off the end. */
	size_t head = sizeof(struct listvec) + (slots + sites + 1) * sizeof(struct listvec_entry);
	struct listvec *v = calloc(1, head + (ops + sites) * sizeof(struct ftrace_ops *));
	if (!v)
		return NULL;
	v->mask = slots - 1;
	v->sites = sites;
	v->maxops = ops + sites;
	v->ops = (struct ftrace_ops **)((char *)v + head);
	return v;
}

void listvec_add(struct listvec *v, uintptr_t ip, struct ftrace_ops *const *ops, unsigned n)
{
	if (!ip || v->used == v->sites || v->nops + n + 1 > v->maxops || n > UINT16_MAX)
		return;
	unsigned i = listvec_index(ip, v->mask);
	while (v->slot[i].ip) {
		if (v->slot[i].ip == ip)
			return;
		i++;    /* fewer than `sites` entries so far: i < home + sites */
	}
	v->used++;
	uint8_t plain = 1, direct = 0;
	for (unsigned k = 0; k < n; k++) {
		if (ops[k]->flags & (FTRACE_OPS_FL_GRAPH | FTRACE_OPS_FL_RECURSION |
				     FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_DIRECT))
			plain = 0;
		if (ops[k]->flags & FTRACE_OPS_FL_DIRECT)
			direct = 1;
	}
	memcpy(&v->ops[v->nops], ops, n * sizeof(*ops));
	v->ops[v->nops + n] = NULL;             /* calloc'd; said for the reader */
	v->slot[i] = (struct listvec_entry){ ip, v->nops, (uint16_t)n, plain, direct };
	v->nops += n + 1;
}

bool listvec_equal(const struct listvec *a, const struct listvec *b)
{
	if (!a || !b)
		return a == b;
	/* Built by the same deterministic walk, equal tables are equal bytes. */
	return a->mask == b->mask && a->sites == b->sites && a->nops == b->nops &&
	       !memcmp(a->slot, b->slot, (a->mask + 1 + a->sites) * sizeof(a->slot[0])) &&
	       !memcmp(a->ops, b->ops, a->nops * sizeof(a->ops[0]));
}

void listvec_free(struct listvec *v)
{
	free(v);
}
