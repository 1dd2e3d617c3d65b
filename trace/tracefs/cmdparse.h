/*
 * cmdparse.h — parsing a shell line, before anything runs (no side effects,
 * no kernel dependencies: built for the host too, unit-tested and fuzzed).
 *
 *   line:  [blanks] CMD [blanks ARGS]            cmdparse_line
 *   echo:  VALUE                 plain echo        cmdparse_echo
 *          VALUE > FILE          write (replace)
 *          VALUE >> FILE         append
 *   VALUE is its words as a shell joins them: a quoted run '...' or
 *   "..." anywhere in a word is kept as it is, without its quotes; blanks
 *   outside quotes are one space; a quote never closed is a character.
 *   Blanks around '>' / '>>' are not part of VALUE or FILE.  The last '>' of the
 *   line outside quotes is the redirection, so a VALUE holds '>' only
 *   quoted (echo 'a > b' > trace_marker); a FILE holds neither a quote
 *   nor '>'.
 * The parsers cut the caller's buffer in place (NUL terminators) and point
 * into it.
 */
#ifndef TRACE_CMDPARSE_H
#define TRACE_CMDPARSE_H

#include <stdbool.h>

struct shell_line {
	char *cmd;              /* "" for an empty line */
	char *args;             /* "" if none */
};

struct echo_args {
	char *value;
	char *file;             /* NULL for a plain echo */
	bool append;
};

void cmdparse_line(char *line, struct shell_line *out);
/* 0, or -1 with *why set ("missing file after '>'", "a file name has no
 * quote or '>'", "unterminated quote": one left open with a '>' after it). */
int cmdparse_echo(char *args, struct echo_args *out, const char **why);

#endif
