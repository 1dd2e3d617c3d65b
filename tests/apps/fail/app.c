/* A test application that reports failure: `make qemu-ARCH APP=...` must fail. */
#include <stdio.h>

int app_main(void)
{
	printf("app: failing on purpose\n");
	return 3;
}
