/*
 * printf after the heap ran out: the APP takes every heap block it can get,
 * then makes its first stdio call.  newlib's stdio set-up needs the heap,
 * so the kernel sets it up before the APP runs (boot/main.c libc_reserve);
 * the printf must print (unbuffered: its stream buffer cannot be had) and
 * return the number of bytes written, and malloc must keep failing with
 * ENOMEM.  Exit 0 only if all of that held.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int app_main(void)
{
	unsigned long total = 0;
	for (size_t sz = 64 << 20; sz >= 16; sz /= 2)
		while (malloc(sz) != NULL)
			total += sz;
	errno = 0;
	int enomem = malloc(16) == NULL && errno == ENOMEM;
	char line[80];
	int want = snprintf(line, sizeof(line), "app: took %lu bytes of heap\n", total);
	int got = printf("app: took %lu bytes of heap\n", total);
	int ok = enomem && got == want && total > (16ul << 20);
	printf("app: printf after out of memory: %s (printf returned %d of %d, malloc %s)\n",
	       ok ? "ok" : "FAILED", got, want, enomem ? "ENOMEM" : "did not fail");
	return ok ? 0 : 1;
}
