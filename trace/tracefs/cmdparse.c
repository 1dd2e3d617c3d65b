/*
 * cmdparse.c — shell line parsing (cmdparse.h).
 */
#include <string.h>

#include "trace/tracefs/cmdparse.h"

static char *skip_blanks(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static void trim_right(char *start, char *end)
{
	while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
}

void cmdparse_line(char *line, struct shell_line *out)
{
	line = skip_blanks(line);
	out->cmd = line;
	char *args = line + strcspn(line, " \t");
	if (*args)
		*args++ = '\0';
	args = skip_blanks(args);
	trim_right(args, args + strlen(args));
	out->args = args;
}

/* The last '>' of s outside quotes ('...' or "..."), or NULL; *open is
 * the quote left open at the end, if any. */
static char *last_unquoted_gt(char *s, const char **open)
{
	char *gt = NULL, q = 0;
	*open = NULL;
	for (; *s; s++) {
		if (q) {
			q = *s == q ? 0 : q;
		} else if (*s == '\'' || *s == '"') {
			q = *s;
			*open = s;
		} else if (*s == '>') {
			gt = s;
		}
	}
	if (!q)
		*open = NULL;
	return gt;
}

/* The value as a shell makes it from its words, in place: a quoted run
 * ('...' or "...", anywhere in a word) is kept as it is, without its
 * quotes; outside quotes a run of blanks is one space.  A quote that is
 * never closed is an ordinary character.  s has no leading or trailing
 * blank. */
static char *unquote(char *s)
{
	char *out = s, q = 0;
	bool blank = false;
	for (char *p = s; *p; p++) {
		if (q && *p == q) {
			q = 0;
		} else if (!q && (*p == '\'' || *p == '"') && strchr(p + 1, *p)) {
			q = *p;
		} else if (!q && (*p == ' ' || *p == '\t')) {
			if (!blank)
				*out++ = ' ';
			blank = true;
			continue;
		} else {
			*out++ = *p;
		}
		blank = false;
	}
	*out = '\0';
	return s;
}

int cmdparse_echo(char *args, struct echo_args *out, const char **why)
{
	const char *open;
	char *gt = last_unquoted_gt(args, &open);
	out->file = NULL;
	out->append = false;
	/* A '>' after a quote left open was meant as a redirection (echo
	 * don't > f): refused, rather than printed with nothing written.  A
	 * lone quote with no '>' after it is just the value. */
	if (open && strchr(open, '>')) {
		*why = "unterminated quote";
		return -1;
	}
	char *vend = args + strlen(args);
	if (gt) {
		out->append = gt > args && gt[-1] == '>';
		vend = out->append ? gt - 1 : gt;
		char *file = skip_blanks(gt + 1);
		trim_right(file, file + strlen(file));
		if (!*file) {
			*why = "missing file after '>'";
			return -1;
		}
		if (strpbrk(file, "'\">")) {
			*why = "a file name has no quote or '>'";
			return -1;
		}
		out->file = file;
		*vend = '\0';
	}
	trim_right(args, vend);
	out->value = unquote(skip_blanks(args));
	return 0;
}
