/*
 * fuzz_shell.c — libFuzzer target for what the shell parses from its
 * input before anything runs: the line (trace/tracefs/cmdparse.c), echo's
 * redirection, and the glob patterns a filter value carries (lib/glob.c).
 * Checks, beyond "no crash and no out-of-bounds access" (ASan/UBSan):
 * every piece points inside the line, has no leading/trailing blank (once
 * unquoted, for the value), and a pattern glob_check accepts never makes
 * glob_match fail to terminate or read past its strings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/glob.h"
#include "trace/tracefs/cmdparse.h"

static int inside(const char *p, const char *buf, size_t n)
{
	return p >= buf && p <= buf + n;
}

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 512)
		return 0;
	char *buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	size_t n = strlen(buf);
	struct shell_line l;
	cmdparse_line(buf, &l);
	if (!inside(l.cmd, buf, n) || !inside(l.args, buf, n) || blank(l.cmd[0]) ||
	    (*l.args && (blank(l.args[0]) || blank(l.args[strlen(l.args) - 1]))))
		abort();
	struct echo_args e;
	const char *why;
	if (cmdparse_echo(l.args, &e, &why) == 0) {
		if (!inside(e.value, buf, n) || (e.file && (!inside(e.file, buf, n) || !*e.file ||
							   blank(e.file[0]) || strchr(e.file, '>') ||
							   strpbrk(e.file, "'\"") ||
							   blank(e.file[strlen(e.file) - 1]))))
			abort();
		/* The value as a filter: words, '!' removes, each a glob. */
		char *save, *w;
		for (w = strtok_r(e.value, " ,", &save); w; w = strtok_r(NULL, " ,", &save)) {
			const char *pat = w[0] == '!' ? w + 1 : w;
			if (!glob_check(pat)) {
				glob_match(pat, "vfs_stat");
				glob_match(pat, "");
				glob_match(pat, pat);
			}
			glob_is_literal(pat);
		}
	}
	free(buf);
	return 0;
}
