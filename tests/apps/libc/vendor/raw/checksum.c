/* checksum.c — listed in APP_NOTRACE: compiled without a patchable entry. */
#include "fmt.h"

unsigned checksum_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	unsigned s = 0;
	for (size_t i = 0; i < n; i++)
		s = s * 31 + b[i];
	return s;
}
