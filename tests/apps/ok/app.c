/* A test application: newlib's stdio and malloc, one thread per CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/sched.h"

static int square_sum(void *arg)
{
	int n = (int)(long)arg, s = 0;
	for (int i = 1; i <= n; i++)
		s += i * i;
	return s;
}

int app_main(void)
{
	char *buf = malloc(64);
	if (!buf)
		return 2;
	snprintf(buf, 64, "app: hello from cpu %u", cpu_id());
	puts(buf);
	free(buf);
	struct thread *t[4];
	int total = 0;
	for (int i = 0; i < 4; i++)
		t[i] = thread_create("app", square_sum, (void *)(long)(10 * (i + 1)),
				     i % (int)ncpus);
	for (int i = 0; i < 4; i++)
		total += thread_join(t[i]);
	printf("app: sum of squares %d\n", total);
	return total == 385 + 2870 + 9455 + 22140 ? 0 : 1;
}
