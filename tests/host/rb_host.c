/*
 * rb_host.c — host-side pieces shared by the ring-buffer tests: the port's
 * variables and an allocator on top of libc.
 */
#include <stdlib.h>

#include "rb_host.h"

__thread unsigned rb_host_cpu;
uint64_t (*volatile rb_host_clock)(void);
int rb_host_race;
void (*rb_host_race_hook)(void);

static void *host_alloc(void *ctx, size_t size, size_t align)
{
	(void)ctx;
	if (align < sizeof(void *))
		align = sizeof(void *);
	size = (size + align - 1) / align * align;
	return aligned_alloc(align, size);
}

static void host_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

const struct rb_allocator rb_host_allocator = { host_alloc, host_free, NULL };
