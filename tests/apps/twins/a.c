/*
 * tests/apps/twins — an APP whose static functions share names: `twin`
 * here and in b.c (two prototypes), and `writer`, which the kernel's
 * tests/guest/test_rb_files.c also has.  Traced with funcgraph-args, each
 * prints its own typed arguments (tests/checks/checks_btfaddr.py).
 */
#include <stdio.h>

#include "lib/noipa.h"   /* the calls stay calls, with these arguments */

unsigned b_run(unsigned long x, short y, int z);

static noipa long twin(int a, const char *s)
{
	return 2L * a + (s[0] == 'l');
}

static noipa int writer(const char *msg, int n)
{
	int len = 0;
	while (msg[len])
		len++;
	return len + n;
}

int app_main(void)
{
	long t = twin(-5, "left");
	unsigned u = b_run(0x2a, -3, 1);
	int w = writer("hello", 2);
	int ok = t == -9 && u == 0x28 && w == 7;
	printf("twins: %s (%ld %u %d)\n", ok ? "ok" : "WRONG", t, u, w);
	return ok ? 0 : 1;
}
