/*
 * glob.h — shell-style patterns on function names, as tracefs takes them.
 *
 * `*` any run of characters, `?` one character, `[abc]` `[a-z]` `[!a-z]`
 * `[^a-z]` a set, `\x` the character x.  glob_check() validates a pattern
 * (an unterminated `[` or a trailing `\` is an error) so that callers can
 * refuse it before changing anything; glob_match() on an invalid pattern
 * matches nothing.  Pure functions: any context, never traced.
 */
#ifndef LIB_GLOB_H
#define LIB_GLOB_H

#include <stdbool.h>

/* NULL if pat is valid, else a message saying what is wrong. */
const char *glob_check(const char *pat);
bool glob_match(const char *pat, const char *s);
/* True if pat has no wildcard: it can match only the string itself. */
bool glob_is_literal(const char *pat);

#endif
