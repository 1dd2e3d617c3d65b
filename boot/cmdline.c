/*
 * cmdline.c — split the command line and dispatch to BT_PARAM handlers.
 */
#include <stdbool.h>
#include <string.h>

#include "boot/boot_info.h"
#include "boot/cmdline.h"
#include "boot/console.h"

extern const struct bt_param __bt_params_start[], __bt_params_end[];

static char copy[CMDLINE_MAX];        /* the handlers keep pointers into it */

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

/* What p takes, checked against the value given (NULL: no '='); the
 * reason it is refused, or NULL. */
static const char *value_refused(const struct bt_param *p, const char *v)
{
	switch (p->value) {
	case BT_NO_VALUE:
		return v ? "takes no value" : NULL;
	case BT_OPT_VALUE:
		return v && !*v ? "an empty value" : NULL;
	default:
		return !v || !*v ? "needs a value" : NULL;
	}
}

int cmdline_parse(const char *cmdline)
{
	int bad = 0;
	if (strlen(cmdline) >= sizeof(copy))      /* kernel_main refused it already */
		return 1;
	strcpy(copy, cmdline);
	char *s = copy, *tok;
	while ((tok = next_token(&s))) {
		char *eq = strchr(tok, '=');
		if (eq)
			*eq = '\0';
		const char *v = eq ? eq + 1 : NULL;
		const struct bt_param *p = find(tok);
		const char *why = p ? value_refused(p, v) : NULL;
		/* An option is named in at most 200 bytes: kprintf's line is 512. */
		if (!p) {
			kprintf("baretrace: unknown boot option '%.200s%s', ignored\n", tok,
				strlen(tok) > 200 ? "..." : "");
			bad++;
			continue;
		}
		if (why)
			kprintf("%s: %s\n", tok, why);
		if (why || p->set(v) != 0) {
			kprintf("baretrace: bad boot option '%s%s%.200s%s', ignored\n", tok,
				eq ? "=" : "", eq ? v : "", eq && strlen(v) > 200 ? "..." : "");
			bad++;
		}
	}
	return bad;
}
