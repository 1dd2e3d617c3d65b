/*
 * btf_twin.c — the second `btf_twin` of suite btf (test_btf.c has the
 * first): a static function of the same name and another prototype, so
 * that only the image's address table (tools/btfaddr.py, btf_funcs[]) can
 * give each its own signature.
 */
#include <stdbool.h>
#include <stdint.h>

#include "lib/noipa.h"

uintptr_t btf_twin_other_ip(void);
unsigned btf_twin_other_call(unsigned long x, short y, bool z);

static noipa unsigned short btf_twin(unsigned long x, short y, bool z)
{
	return (unsigned short)(x + (unsigned long)y + z);
}

/* Its address (the table's key), and a call to it. */
uintptr_t btf_twin_other_ip(void)
{
	return (uintptr_t)btf_twin;
}

unsigned btf_twin_other_call(unsigned long x, short y, bool z)
{
	return btf_twin(x, y, z);
}
