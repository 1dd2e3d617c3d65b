/*
 * glob.c — matching without recursion: on a mismatch after a `*`, retry
 * from the character after the one the `*` last absorbed (the classic
 * two-pointer walk), so the cost is O(len(pat) * len(s)) at worst.
 */
#include <stddef.h>

#include "lib/glob.h"

/* Match one set at *pp against c; advances *pp past the set.  -1:
 * unterminated; -2: a POSIX class ([:alpha:], [=a=], [.a.]), which is
 * not supported (Linux's glob has none either). */
static int match_set(const char **pp, char c)
{
	const char *p = *pp + 1;             /* past '[' */
	bool negate = false, hit = false;
	if (*p == '!' || *p == '^') {
		negate = true;
		p++;
	}
	bool first = true;
	while (*p && (first || *p != ']')) {
		if (*p == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.'))
			return -2;
		char lo = *p, hi;
		if (lo == '\\' && p[1])
			lo = *++p;
		hi = lo;
		if (p[1] == '-' && p[2] && p[2] != ']') {
			hi = p[2];
			if (hi == '\\' && p[3])
				hi = p[3], p++;
			p += 2;
		}
		if (c >= lo && c <= hi)
			hit = true;
		p++;
		first = false;
	}
	if (*p != ']')
		return -1;
	*pp = p + 1;
	return hit != negate;
}

const char *glob_check(const char *pat)
{
	if (!*pat)
		return "empty pattern";
	for (const char *p = pat; *p;) {
		if (*p == '\\') {
			if (!p[1])
				return "pattern ends with '\\'";
			p += 2;
		} else if (*p == '[') {
			int m = match_set(&p, 'a');
			if (m == -2)
				return "character classes ('[:alpha:]' and the like) are not supported";
			if (m < 0)
				return "unterminated '[' in pattern";
		} else {
			p++;
		}
	}
	return NULL;
}

bool glob_match(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;
	while (*s) {
		const char *p = pat;
		int m;
		switch (*p) {
		case '*':
			star = ++pat;
			resume = s;
			continue;
		case '?':
			m = 1;
			p++;
			break;
		case '[':
			m = match_set(&p, *s);
			if (m < 0)
				return false;
			break;
		case '\\':
			p++;
			/* fall through */
		default:
			m = *p && *p == *s;
			if (*p)
				p++;
			break;
		}
		if (m) {
			pat = p;
			s++;
		} else if (star) {
			pat = star;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

bool glob_is_literal(const char *pat)
{
	for (; *pat; pat++)
		if (*pat == '*' || *pat == '?' || *pat == '[' || *pat == '\\')
			return false;
	return true;
}

/* Past the set at p ('['), as match_set reads its extent (a first ']' or
 * an escaped one is a member); NULL if it is never closed. */
static const char *set_end(const char *p)
{
	p++;
	if (*p == '!' || *p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']')
		p += (*p == '\\' && p[1]) ? 2 : 1;
	return *p ? p + 1 : NULL;
}

size_t glob_span(const char *s, char stop)
{
	const char *p = s;
	while (*p && *p != stop) {
		if (*p == '[') {
			const char *q = set_end(p);
			p = q ? q : p + 1;           /* unterminated: an ordinary '[' */
		} else {
			p += (*p == '\\' && p[1]) ? 2 : 1;
		}
	}
	return (size_t)(p - s);
}
