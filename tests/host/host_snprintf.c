/*
 * host_snprintf.c — the kernel's ksnprintf/kvsnprintf (boot/kprintf.c) for
 * host builds of kernel code (tests/host): the C library's, which agrees
 * with ours on every conversion that code uses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	return vsnprintf(buf, size, fmt, ap);
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
