/* host_read_str.h — the host fsig_port_read_str's faulting range
 * (host_read_str.c): addresses below 4096 or at or above HOST_FAULT_AT. */
#ifndef HOST_READ_STR_H
#define HOST_READ_STR_H
#include <stdint.h>
#define HOST_FAULT_AT ((uintptr_t)0xfff0000000000000ull)
#endif
