/* listing.c — tracefs listings captured for tests (listing.h). */
#include <string.h>

#include "boot/console.h"
#include "tests/guest/listing.h"
#include "trace/core/ftrace.h"

void listing_line(void *ctx, const char *line)
{
	struct listing *l = ctx;
	int n = ksnprintf(l->text + l->len, sizeof(l->text) - l->len, "%s\n", line);
	if (n > 0 && l->len + (size_t)n < sizeof(l->text))
		l->len += (size_t)n;
	l->lines++;
}

void listing_append(void *ctx, const char *s, size_t n)
{
	struct listing *l = ctx;
	size_t room = sizeof(l->text) - 1 - l->len;
	if (n > room)
		n = room;
	memcpy(l->text + l->len, s, n);
	l->len += n;
	l->text[l->len] = '\0';
}

const char *enabled_listing(struct listing *l)
{
	memset(l, 0, sizeof(*l));
	ftrace_list_enabled(listing_line, l);
	return l->text;
}
