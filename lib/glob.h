/*
 * glob.h — shell-style patterns on function names, as tracefs takes them.
 *
 * `*` any run of characters, `?` one character, `[abc]` `[a-z]` `[!a-z]`
 * `[^a-z]` a set, `\x` the character x.  glob_check() validates a pattern
 * (an unterminated `[`, a trailing `\`, or a POSIX character class such as
 * `[[:alpha:]]`, which is not supported, is an error) so that callers can
 * refuse it before changing anything; glob_match() on an invalid pattern
 * matches nothing.  Pure functions: any context, never traced.
 */
#ifndef LIB_GLOB_H
#define LIB_GLOB_H

#include <stdbool.h>
#include <stddef.h>

/* NULL if pat is valid, else a message saying what is wrong. */
const char *glob_check(const char *pat);
bool glob_match(const char *pat, const char *s);
/* The length of s up to its first `stop` that is a character of its own:
 * not inside a set ("[...]", "[[:alpha:]]") nor escaped (an unterminated
 * '[' is no set); strlen(s) if none.  Where set_ftrace_filter's
 * "glob:command" splits. */
size_t glob_span(const char *s, char stop);
/* True if pat has no wildcard: it can match only the string itself. */
bool glob_is_literal(const char *pat);

#endif
