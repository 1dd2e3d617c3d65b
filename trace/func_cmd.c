/*
 * func_cmd.c — set_ftrace_filter's traceon / traceoff commands (func_cmd.h).
 *
 * One ftrace ops per command, registered while any function holds it, its
 * filter hash exactly those functions (an empty filter would mean every
 * function: the last one leaving unregisters the ops instead).  Per
 * function, an entry with its count; a command's entries are a table
 * sorted by address, which the callback searches.
 *
 * Lock-free reading: a change builds a new table (new entries for the
 * functions it adds or re-counts, the others shared), publishes its
 * pointer with RELEASE, and frees the old table and the entries it dropped
 * only after tramp_grace_period(): callbacks run with preemption disabled,
 * so once every CPU has passed a quiescent state none still reads them.
 * A count is decremented with a CAS, never below 0, only by a call that
 * then changes tracing_on; two CPUs racing on the last unit: one wins, the
 * other finds 0 and changes nothing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "boot/console.h"
#include "boot/sched.h"
#include "lib/glob.h"
#include "patch/tramp.h"
#include "trace/ftrace.h"
#include "trace/ftrace_filter.h"
#include "trace/func_cmd.h"
#include "trace/hash.h"
#include "trace/records.h"
#include "trace/trace.h"

#define NO_LIMIT (-1L)
#define MAX_WORDS 16

struct cmd_entry {
	uintptr_t ip;
	long count;                        /* atomic; NO_LIMIT or >= 0 */
};

struct cmd_table {                         /* sorted by ip; replaced whole */
	unsigned n;
	struct cmd_entry *e[];
};

struct func_cmd {
	struct ftrace_ops ops;             /* first: the callback finds us from op */
	const char *name;
	bool on;                           /* the tracing_on state it sets */
	struct cmd_table *table;           /* atomic pointer; cmd_mutex to replace */
};

static void cmd_call(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		     struct ftrace_regs *fregs);

static struct func_cmd cmds[] = {
	{ .ops.func = cmd_call, .name = "traceon", .on = true },
	{ .ops.func = cmd_call, .name = "traceoff", .on = false },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static struct mutex cmd_mutex = MUTEX_INIT;
char func_cmd_error[128];

static struct cmd_entry *find(const struct cmd_table *t, uintptr_t ip)
{
	unsigned lo = 0, hi = t ? t->n : 0;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (t->e[mid]->ip == ip)
			return t->e[mid];
		if (t->e[mid]->ip < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Any context, preemption disabled (the core's wrapper: this ops guards
 * no recursion itself). */
static void cmd_call(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		     struct ftrace_regs *fregs)
{
	struct func_cmd *fc = (struct func_cmd *)op;
	struct cmd_entry *e = find(__atomic_load_n(&fc->table, __ATOMIC_ACQUIRE), ip);
	if (!e || tracing_is_on() == fc->on)
		return;                            /* nothing to change: no count used */
	long c = __atomic_load_n(&e->count, __ATOMIC_RELAXED);
	do {
		if (c == 0)
			return;
	} while (c != NO_LIMIT &&
		 !__atomic_compare_exchange_n(&e->count, &c, c - 1, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	if (fc->on)
		tracing_on();
	else
		tracing_off();
}

bool func_cmd_is(const char *value)
{
	return value[glob_span(value, ':')] != '\0';
}

/* One word of a write, parsed. */
struct word {
	char text[128];                    /* the glob, then the command, cut at ':' */
	bool remove;
	struct func_cmd *cmd;
	long count;
	unsigned matched;                  /* functions the glob matches */
};

__attribute__((format(printf, 1, 2))) static int refuse(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kvsnprintf(func_cmd_error, sizeof(func_cmd_error), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static unsigned count_matches(const char *glob)
{
	unsigned n = 0;
	for (unsigned i = 0; i < ftrace_nrecs; i++)
		n += glob_match(glob, rec_name(&ftrace_recs[i]));
	return n;
}

static int parse_word(const char *s, size_t len, struct word *w)
{
	if (len >= sizeof(w->text))
		return refuse("'%.40s...': longer than 127 characters", s);
	memcpy(w->text, s, len);
	w->text[len] = '\0';
	char *glob = w->text;
	w->remove = *glob == '!';
	glob += w->remove;
	char *name = glob + glob_span(glob, ':');       /* a ':' in "[...]" is the glob's */
	if (!*name)
		return refuse("'%s': a function name among commands (one write holds either)",
			      w->text);
	*name++ = '\0';
	char *param = strchr(name, ':');
	if (param)
		*param++ = '\0';
	w->cmd = NULL;
	for (unsigned i = 0; i < NCMDS; i++)
		if (!strcmp(name, cmds[i].name))
			w->cmd = &cmds[i];
	if (!w->cmd)
		return refuse("no command '%s' (traceon, traceoff)", name);
	w->count = NO_LIMIT;
	if (param && *param && !w->remove) {       /* Linux's: empty is no limit */
		char *end;
		if (*param < '0' || *param > '9')
			return refuse("count '%s' of %s is not a number", param, name);
		errno = 0;
		w->count = strtol(param, &end, 0);         /* Linux's: 0x10, 010 as C */
		if (*end || errno)
			return refuse("count '%s' of %s is not a number", param, name);
	}
	const char *why = glob_check(glob);
	if (why)
		return refuse("invalid pattern '%s': %s", glob, why);
	if (!(w->matched = count_matches(glob)))
		return refuse("no function matches '%s'", glob);
	memmove(w->text, glob, strlen(glob) + 1);      /* text = the glob */
	return 0;
}

static void free_table(struct cmd_table *t, bool entries)
{
	if (t && entries)
		for (unsigned i = 0; i < t->n; i++)
			free(t->e[i]);
	free(t);
}

/* A table next_table() built and nobody will see: its own entries (those
 * not shared with old) and itself. */
static void free_added(struct cmd_table *t, const struct cmd_table *old)
{
	for (unsigned k = 0; k < t->n; k++)
		if (find(old, t->e[k]->ip) != t->e[k])
			free(t->e[k]);
	free(t);
}

/*
 * The command's table after the word: the old entries not matched, and for
 * an addition a new entry per matching function.  *dropped gets the old
 * entries the new table lacks (to free after the grace period).  A table
 * of 0 entries: the command holds nothing.
 */
static int next_table(const struct word *w, struct cmd_table **out, struct cmd_table **dropped)
{
	const struct cmd_table *old = w->cmd->table;
	unsigned oldn = old ? old->n : 0;
	struct cmd_table *t = malloc(sizeof(*t) + (oldn + w->matched) * sizeof(t->e[0]));
	struct cmd_table *d = malloc(sizeof(*d) + oldn * sizeof(d->e[0]));
	if (!t || !d) {
		free(t);
		free(d);
		return -ENOMEM;
	}
	t->n = d->n = 0;
	unsigned j = 0;
	for (unsigned i = 0; i <= ftrace_nrecs; i++) {
		uintptr_t ip = i < ftrace_nrecs ? rec_ip(&ftrace_recs[i]) : UINTPTR_MAX;
		for (; j < oldn && old->e[j]->ip < ip; j++)
			t->e[t->n++] = old->e[j];          /* not a record: cannot be */
		if (i == ftrace_nrecs)
			break;
		bool held = j < oldn && old->e[j]->ip == ip;
		bool match = glob_match(w->text, rec_name(&ftrace_recs[i]));
		if (held && !match)
			t->e[t->n++] = old->e[j];
		else if (held)
			d->e[d->n++] = old->e[j];
		j += held;
		if (!match || w->remove)
			continue;
		struct cmd_entry *e = malloc(sizeof(*e));
		if (!e) {
			free_added(t, old);
			free(d);
			return -ENOMEM;
		}
		e->ip = ip;
		e->count = w->count;
		t->e[t->n++] = e;
	}
	*out = t;        /* a removal holds one at least: check_removals */
	*dropped = d;
	return 0;
}

/* The ops follows the table: registered with exactly its functions, or
 * unregistered when it holds none.  Nothing changed on an error. */
static int follow(const struct word *w, const struct cmd_table *t)
{
	struct ftrace_ops *op = &w->cmd->ops;
	bool registered = w->cmd->table != NULL;
	char pat[130];
	if (t->n == 0)
		return registered ? unregister_ftrace_function(op) : 0;
	ksnprintf(pat, sizeof(pat), "%s%s", w->remove ? "!" : "", w->text);
	if (registered)
		return ftrace_set_filter(op, pat, false);
	/* The first function: its filter built aside, so that a refused
	 * registration leaves the ops and the heap as they were (as
	 * register_fprobe does). */
	struct ftrace_hash *f, *old = op->filter_hash;
	mutex_lock(&ftrace_mutex);                 /* ftrace_filter_error */
	int err = ftrace_build_hash(NULL, pat, true, &f);
	mutex_unlock(&ftrace_mutex);
	if (err)
		return err;
	op->filter_hash = f;
	err = register_ftrace_function(op);
	hash_free(err ? f : old);
	if (err)
		op->filter_hash = old;
	return err;
}

static int apply(const struct word *w)
{
	struct cmd_table *t = NULL, *dropped = NULL;
	int err = next_table(w, &t, &dropped);
	if (err)
		return err;
	err = follow(w, t);
	if (err) {
		free_added(t, w->cmd->table);
		free(dropped);
		return err;
	}
	struct cmd_table *old = w->cmd->table;
	if (t->n == 0) {
		free(t);
		t = NULL;
	}
	__atomic_store_n(&w->cmd->table, t, __ATOMIC_RELEASE);
	tramp_grace_period();                   /* no callback still reads old */
	free_table(dropped, true);
	free_table(old, false);
	return 0;
}

/* Does cmd hold record r once words w[0..i) are applied?  The last of
 * them for cmd whose glob matches r decides; none: the current table. */
static bool held_after(const struct word *w, unsigned i, const struct func_cmd *cmd,
		       const struct ftrace_rec *r)
{
	while (i-- > 0)
		if (w[i].cmd == cmd && glob_match(w[i].text, rec_name(r)))
			return !w[i].remove;
	return find(cmd->table, rec_ip(r)) != NULL;
}

/* A removal that would find no function holding its command, judged after
 * the write's earlier words: refused before any word applies.  cmd_mutex. */
static int check_removals(const struct word *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		bool held = !w[i].remove;
		for (unsigned k = 0; k < ftrace_nrecs && !held; k++)
			held = glob_match(w[i].text, rec_name(&ftrace_recs[k])) &&
			       held_after(w, i, w[i].cmd, &ftrace_recs[k]);
		if (!held)
			return refuse("no function matching '%s' has %s", w[i].text,
				      w[i].cmd->name);
	}
	return 0;
}

int func_cmd_write(const char *value)
{
	struct word *w = calloc(MAX_WORDS, sizeof(*w));
	unsigned n = 0;
	int err = 0;
	if (!w)
		return -ENOMEM;
	func_cmd_error[0] = '\0';
	for (const char *p = value; *p && !err;) {
		size_t len = strcspn(p, " \t\n");
		if (len && n == MAX_WORDS)
			err = refuse("more than %d commands in one write", MAX_WORDS);
		else if (len)
			err = parse_word(p, len, &w[n++]);
		p += len;
		p += strspn(p, " \t\n");
	}
	mutex_lock(&cmd_mutex);
	if (!err)
		err = check_removals(w, n);
	for (unsigned i = 0; i < n && !err; i++)
		err = apply(&w[i]);
	mutex_unlock(&cmd_mutex);
	free(w);
	return err;
}

void func_cmd_list(void (*out)(void *ctx, const char *line), void *ctx)
{
	char line[160];
	mutex_lock(&cmd_mutex);
	for (unsigned c = 0; c < NCMDS; c++) {
		const struct cmd_table *t = cmds[c].table;
		for (unsigned i = 0; t && i < t->n; i++) {
			const struct ftrace_rec *r = rec_find(t->e[i]->ip);
			long n = __atomic_load_n(&t->e[i]->count, __ATOMIC_RELAXED);
			char count[32];
			if (n == NO_LIMIT)
				ksnprintf(count, sizeof(count), "unlimited");
			else
				ksnprintf(count, sizeof(count), "count=%ld", n);
			ksnprintf(line, sizeof(line), "%s:%s:%s", r ? rec_name(r) : "?",
				  cmds[c].name, count);
			out(ctx, line);
		}
	}
	mutex_unlock(&cmd_mutex);
}
