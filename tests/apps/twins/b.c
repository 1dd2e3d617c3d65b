/* tests/apps/twins: the second `twin` (a.c says why). */
#include <stdbool.h>

#include "lib/noipa.h"

unsigned b_run(unsigned long x, short y, int z);

static noipa unsigned short twin(unsigned long x, short y, bool z)
{
	return (unsigned short)(x + (unsigned long)y + z);
}

unsigned b_run(unsigned long x, short y, int z)
{
	return twin(x, y, z != 0);
}
