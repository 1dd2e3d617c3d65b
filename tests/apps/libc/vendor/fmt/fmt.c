/* fmt.c — written as third-party code is: it draws a warning (an unused
 * variable) that the kernel's -Werror would refuse; an APP gets the warning. */
#include <stdio.h>

#include "fmt.h"

#ifndef FMT_SEP
#error "FMT_SEP comes from APP_CPPFLAGS in app.mk"
#endif

size_t fmt_join(char *buf, size_t size, const double *v, int n)
{
	int unused_by_design;
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%g", i ? FMT_SEP : "", v[i]);
	return len;
}
