/*
 * cmdparse.c — shell line parsing (cmdparse.h).
 */
#include <string.h>

#include "trace/cmdparse.h"

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
	char *value = skip_blanks(args);
	size_t len = strlen(value);
	if (len >= 2 && (value[0] == '\'' || value[0] == '"') && value[len - 1] == value[0]) {
		value[len - 1] = '\0';
		value++;
	}
	out->value = value;
	return 0;
}
