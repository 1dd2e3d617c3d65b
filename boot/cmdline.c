/*
 * cmdline.c — split the command line and dispatch to BT_PARAM handlers.
 */
#include <stdbool.h>
#include <string.h>

#include "boot/cmdline.h"
#include "boot/console.h"

extern const struct bt_param __bt_params_start[], __bt_params_end[];

static char copy[1024];       /* the handlers keep pointers into it */

static const struct bt_param *find(const char *name)
{
	for (const struct bt_param *p = __bt_params_start; p < __bt_params_end; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

/* Cut the next token out of *s (in place); NULL at the end. */
static char *next_token(char **s)
{
	char *p = *s, *out, *start;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (!*p)
		return NULL;
	start = out = p;
	bool quoted = false;
	for (; *p && (quoted || (*p != ' ' && *p != '\t' && *p != '\n')); p++) {
		if (*p == '"')
			quoted = !quoted;
		else
			*out++ = *p;
	}
	if (*p)
		p++;
	*out = '\0';
	*s = p;
	return start;
}

int cmdline_parse(const char *cmdline)
{
	int bad = 0;
	if (strlen(cmdline) >= sizeof(copy)) {
		kprintf("baretrace: command line longer than %u bytes, ignored\n",
			(unsigned)sizeof(copy) - 1);
		return 1;
	}
	strcpy(copy, cmdline);
	char *s = copy, *tok;
	while ((tok = next_token(&s))) {
		char *eq = strchr(tok, '=');
		if (eq)
			*eq = '\0';
		const struct bt_param *p = find(tok);
		if (!p) {
			kprintf("baretrace: unknown boot option '%s', ignored\n", tok);
			bad++;
		} else if (p->set(eq ? eq + 1 : NULL) != 0) {
			kprintf("baretrace: bad boot option '%s%s%s', ignored\n", tok,
				eq ? "=" : "", eq ? eq + 1 : "");
			bad++;
		}
	}
	return bad;
}
