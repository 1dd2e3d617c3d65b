/*
 * listing.h — a tracefs listing (enabled_functions, available_filter_
 * functions) captured as one string, for tests to compare.
 *
 * listing_line is the line callback ftrace_list_enabled and
 * ftrace_list_available take: it appends "line\n" to the listing's text,
 * cut at sizeof(text) (always NUL-terminated), and counts every line.
 * enabled_listing(l) empties l, captures enabled_functions and returns
 * its text.  Listings are large: keep them static, not on the stack.
 */
#ifndef TESTS_GUEST_LISTING_H
#define TESTS_GUEST_LISTING_H

#include <stddef.h>

struct listing {
	char text[2048];
	size_t len;
	unsigned lines;
};

void listing_line(void *ctx, const char *line);
/* Raw text as given (a console_tap callback, boot/console.h). */
void listing_append(void *ctx, const char *s, size_t n);
const char *enabled_listing(struct listing *l);

#endif
