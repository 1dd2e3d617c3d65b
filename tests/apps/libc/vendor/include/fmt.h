/* fmt.h — a "third-party" helper with its own include directory. */
#ifndef FMT_H
#define FMT_H
#include <stddef.h>

/* Join n doubles printed with %g into buf (size bytes), FMT_SEP between them. */
size_t fmt_join(char *buf, size_t size, const double *v, int n);
/* A checksum built without instrumentation (APP_NOTRACE). */
unsigned checksum_bytes(const void *p, size_t n);
#endif
