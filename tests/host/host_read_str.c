/*
 * host_read_str.c — trace/btf/btf.h's fsig_port_read_str and fsig_port_retire
 * for host builds of the
 * argument printer (tests/host: test_btf, test_graph_output).  Host memory
 * is read as it is; an address below 4096 or at or above HOST_FAULT_AT
 * (host_read_str.h) stands for one the kernel's fault-safe copy would refuse (-EFAULT), so
 * tests can name a faulting pointer.  The fuzzer has its own (fuzz_btf.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "trace/btf/btf.h"
#include "host_read_str.h"

int fsig_port_read_str(char *dst, uintptr_t src, size_t max, size_t *len)
{
	if (src >= HOST_FAULT_AT || src < 4096)
		return -EFAULT;
	const char *s = (const char *)src;
	size_t n = 0;
	while (n < max) {
		dst[n] = s[n];
		if (!s[n++])
			break;
	}
	*len = n;
	return 0;
}

bool fsig_port_ram(uintptr_t addr, size_t len)
{
	return addr >= 4096 && addr < HOST_FAULT_AT && len <= HOST_FAULT_AT - addr;
}

/* No tracing callbacks on the host: a replaced table goes at once. */
void fsig_port_retire(void *old)
{
	free(old);
}
