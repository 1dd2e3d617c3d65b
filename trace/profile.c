/*
 * profile.c — the function profiler (trace/profile.h).
 *
 * Per CPU, a table of struct pent in open addressing with linear probing
 * (hash_index of the function address), a power of two of slots, at most
 * 3/4 used.  Entries are only ever added, until a reset zeroes the table.
 *
 * Who touches what:
 *   - the exit callback, on CPU c, is the only writer of tables[c], with
 *     interrupts off (an interrupt's own profiled calls would otherwise
 *     nest inside an insert);
 *   - readers (lookup, sorted, show) hold profile_mutex; a new entry's
 *     counters are stored before its key (RELEASE), so a reader that sees
 *     the key (ACQUIRE) sees a hit; a later update is bracketed by the
 *     entry's seq (odd while it runs), and a reader retries until it read
 *     every counter of one entry between the same even seq, so the sum of
 *     squares (two words) is never read half updated;
 *   - zeroing (enable, reset) holds profile_mutex and runs with no writer:
 *     either the user is unregistered (unregister_fgraph waits until no
 *     callback runs), or counting is paused and a grace period has passed
 *     (callbacks run with preemption off, so tramp_grace_period waits for
 *     every one that did not see the pause).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "boot/clock.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "patch/tramp.h"
#include "trace/fgraph.h"
#include "trace/global_ops.h"
#include "trace/hash.h"
#include "trace/profile.h"
#include "trace/records.h"
#include "trace/tracefs.h"

struct pent {
	uintptr_t func;                 /* 0: free; owner CPU, RELEASE once */
	uint32_t seq;                   /* odd while the owner updates the counters */
	uint64_t hits, total, min, max; /* ns; owner CPU, irqs off */
	uint64_t s2_lo, s2_hi;          /* sum of squares, ns^2, 128 bits: one call
					 * of 4.3 s squares past 64 bits; same */
};

/* Reader retries of one entry before it takes what it read: the writer
 * holds an entry for a few dozen instructions with interrupts off. */
#define READ_TRIES 1000

struct ptable {
	unsigned mask;                  /* slots - 1; written once */
	unsigned used;                  /* slots taken; owner CPU */
	uint64_t dropped;               /* hits with no room; owner CPU */
	struct pent e[];
};

static struct ptable *tables[MAX_CPUS];   /* profile_mutex; written before the first enable */
static unsigned table_slots;              /* per table; written once */
static struct mutex profile_mutex = MUTEX_INIT;
static bool enabled;                      /* profile_mutex */
static bool paused;                       /* atomic: callbacks count nothing */

#define LD(p)     __atomic_load_n(p, __ATOMIC_RELAXED)
#define ST(p, v)  __atomic_store_n(p, v, __ATOMIC_RELAXED)

/* ---- the graph user ---- */

static bool prof_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	return true;                    /* only the exit counts; calltime is the core's */
}

static void add_s2(struct pent *p, uint64_t ns)
{
	unsigned __int128 sq = (unsigned __int128)ns * ns;
	unsigned __int128 sum = ((unsigned __int128)p->s2_hi << 64 | p->s2_lo) + sq;
	ST(&p->s2_lo, (uint64_t)sum);
	ST(&p->s2_hi, (uint64_t)(sum >> 64));
}

/* Add one call of `ns` to the table (owner CPU, interrupts off). */
static void account(struct ptable *t, uintptr_t func, uint64_t ns)
{
	for (unsigned i = hash_index(func, t->mask), n = 0; n <= t->mask;
	     i = (i + 1) & t->mask, n++) {
		struct pent *p = &t->e[i];
		if (p->func == func) {
			/* seq odd before any counter changes (RELEASE fence:
			 * the seq store is ordered before the counters'). */
			ST(&p->seq, p->seq + 1);
			__atomic_thread_fence(__ATOMIC_RELEASE);
			ST(&p->hits, p->hits + 1);
			ST(&p->total, p->total + ns);
			add_s2(p, ns);
			if (ns < p->min)
				ST(&p->min, ns);
			if (ns > p->max)
				ST(&p->max, ns);
			/* RELEASE: the counters before the even seq. */
			__atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELEASE);
			return;
		}
		if (p->func)
			continue;
		if (t->used >= (t->mask + 1) / 4 * 3)
			break;
		ST(&p->hits, 1);
		ST(&p->total, ns);
		add_s2(p, ns);
		ST(&p->min, ns);
		ST(&p->max, ns);
		/* RELEASE: a reader that finds the key finds the counters. */
		__atomic_store_n(&p->func, func, __ATOMIC_RELEASE);
		t->used++;
		return;
	}
	ST(&t->dropped, t->dropped + 1);
}

/* One call of func that took ns, on this CPU; false if no table yet. */
static bool count_call(uintptr_t func, uint64_t ns)
{
	unsigned long f = arch_irq_save();
	struct ptable *t = tables[arch_this_cpu()->id];
	if (t && !__atomic_load_n(&paused, __ATOMIC_ACQUIRE))
		account(t, func, ns);
	arch_irq_restore(f);
	return t != NULL;
}

static void prof_return(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data)
{
	/* Graph time: from entry to return, children included.  A trace-stack
	 * exit with a mark (fgraph_frame.h) has no true end time: not counted. */
	if (r->mark)
		return;
	count_call(r->func, clock_cycles_to_ns(r->rettime - r->calltime));
}

int profile_count_call(uintptr_t func, uint64_t ns)
{
	return count_call(func, ns) ? 0 : -ENOENT;
}

static struct fgraph_ops prof_ops = {
	.entryfunc = prof_entry,
	.retfunc = prof_return,
	.idx = -1,
};
/* set_ftrace_filter drives it, as Linux's global filter does. */
GLOBAL_OPS(profile, &prof_ops.ops);

/* ---- control ---- */

static int alloc_tables(void)
{
	if (!table_slots) {
		unsigned s = 64;
		while (s < 2 * ftrace_nrecs)
			s *= 2;
		table_slots = s;
	}
	for (unsigned c = 0; c < ncpus; c++) {
		if (tables[c])
			continue;
		tables[c] = calloc(1, sizeof(struct ptable) + table_slots * sizeof(struct pent));
		if (!tables[c])
			return -ENOMEM;
		tables[c]->mask = table_slots - 1;
	}
	return 0;
}

/* profile_mutex held, no writer (see the top). */
static void clear_tables(void)
{
	for (unsigned c = 0; c < ncpus; c++) {
		struct ptable *t = tables[c];
		if (!t)
			continue;
		memset(t->e, 0, table_slots * sizeof(struct pent));
		t->used = 0;
		t->dropped = 0;
	}
}

int profile_enable(void)
{
	mutex_lock(&profile_mutex);
	int err = enabled ? -EBUSY : alloc_tables();
	if (!err) {
		/* Registered paused, zeroed only once registered: a failed
		 * enable keeps the last profile readable.  No writer while
		 * zeroing: the user was unregistered (no callback ran since)
		 * and is registered paused, so none runs unpaused. */
		__atomic_store_n(&paused, true, __ATOMIC_RELEASE);
		err = register_fgraph(&prof_ops);
		if (!err)
			clear_tables();
		__atomic_store_n(&paused, false, __ATOMIC_RELEASE);
		enabled = err == 0;
	}
	mutex_unlock(&profile_mutex);
	return err;
}

void profile_disable(void)
{
	mutex_lock(&profile_mutex);
	if (enabled)
		unregister_fgraph(&prof_ops);
	enabled = false;
	mutex_unlock(&profile_mutex);
}

bool profile_enabled(void)
{
	mutex_lock(&profile_mutex);
	bool on = enabled;
	mutex_unlock(&profile_mutex);
	return on;
}

void profile_reset(void)
{
	mutex_lock(&profile_mutex);
	if (enabled) {
		__atomic_store_n(&paused, true, __ATOMIC_RELEASE);
		tramp_grace_period();     /* no callback still counts */
	}
	clear_tables();
	__atomic_store_n(&paused, false, __ATOMIC_RELEASE);
	mutex_unlock(&profile_mutex);
}

int profile_set_filter(const char *patterns, bool reset)
{
	return ftrace_set_filter(&prof_ops.ops, patterns, reset);
}

int profile_set_notrace(const char *patterns, bool reset)
{
	return ftrace_set_notrace(&prof_ops.ops, patterns, reset);
}


/* ---- reading ---- */

/* A copy of entry p, false if the slot is free.  Every counter from
 * between the same two even values of p->seq (after READ_TRIES attempts,
 * what the last one read). */
static bool read_ent(const struct pent *p, struct profile_rec *out)
{
	uintptr_t func = __atomic_load_n(&p->func, __ATOMIC_ACQUIRE);
	if (!func)
		return false;
	for (unsigned tries = 0; tries < READ_TRIES; tries++) {
		uint32_t seq = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
		*out = (struct profile_rec){
			.func = func, .hits = LD(&p->hits), .total_ns = LD(&p->total),
			.min_ns = LD(&p->min), .max_ns = LD(&p->max),
			.s2 = (unsigned __int128)LD(&p->s2_hi) << 64 | LD(&p->s2_lo),
		};
		/* ACQUIRE fence: the counters' loads before seq's second load. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) && LD(&p->seq) == seq)
			break;
	}
	return true;
}

int profile_lookup(unsigned cpu, uintptr_t func, struct profile_rec *out)
{
	if (cpu >= ncpus)
		return -EINVAL;
	int err = -ENOENT;
	mutex_lock(&profile_mutex);
	struct ptable *t = tables[cpu];
	for (unsigned i = hash_index(func, t ? t->mask : 0), n = 0; t && n <= t->mask;
	     i = (i + 1) & t->mask, n++) {
		struct profile_rec r;
		if (!read_ent(&t->e[i], &r))
			break;
		if (r.func == func) {
			*out = r;
			err = 0;
			break;
		}
	}
	mutex_unlock(&profile_mutex);
	return err;
}

uint64_t profile_dropped(unsigned cpu)
{
	return cpu < ncpus && tables[cpu] ? LD(&tables[cpu]->dropped) : 0;
}

static int by_total(const void *a, const void *b)
{
	const struct profile_rec *x = a, *y = b;
	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* Every function hit on cpu, sorted, in a malloc'd array (*out, NULL if
 * none); returns how many or -errno.  profile_mutex held. */
static int snapshot(unsigned cpu, struct profile_rec **out)
{
	*out = NULL;
	if (cpu >= ncpus)
		return -EINVAL;
	struct ptable *t = tables[cpu];
	if (!t)
		return 0;
	struct profile_rec *v = malloc(table_slots * sizeof(*v));
	if (!v)
		return -ENOMEM;
	unsigned n = 0;
	for (unsigned i = 0; i < table_slots; i++)
		if (read_ent(&t->e[i], &v[n]) && v[n].hits)
			n++;
	qsort(v, n, sizeof(*v), by_total);
	*out = v;
	return (int)n;
}

int profile_sorted(unsigned cpu, struct profile_rec *out, unsigned max)
{
	struct profile_rec *v;
	mutex_lock(&profile_mutex);
	int n = snapshot(cpu, &v);
	mutex_unlock(&profile_mutex);
	if (n > (int)max)
		n = (int)max;
	if (n > 0)
		memcpy(out, v, (unsigned)n * sizeof(*v));
	free(v);
	return n;
}

/* The graph tracer's microseconds: at most 7 digits (fraction digits
 * dropped to make room), " us ", padded to the width of "1.234 us    ". */
static size_t put_usecs(char *buf, size_t size, uint64_t ns)
{
	char us[24];
	int len = ksnprintf(us, sizeof(us), "%llu", (unsigned long long)(ns / 1000));
	size_t n = (size_t)ksnprintf(buf, size, "%s", us);
	if (len < 7) {
		char frac[8];
		int digits = 7 - len < 3 ? 7 - len : 3;
		ksnprintf(frac, sizeof(frac), "%03u", (unsigned)(ns % 1000));
		n += (size_t)ksnprintf(buf + (n < size ? n : size), n < size ? size - n : 0,
				       ".%.*s", digits, frac);
		len += digits + 1;
	}
	n += (size_t)ksnprintf(buf + (n < size ? n : size), n < size ? size - n : 0,
			       " us %*s", len < 8 ? 8 - len : 0, "");
	return n;
}

/* The sample variance in ns^2, (n*sum(x^2) - sum(x)^2) / (n*(n-1)), in 128
 * bits; 0 for one hit.  If n*sum(x^2) passes 128 bits (only after years
 * of calls), (sum(x^2) - sum(x)^2/n) / (n-1) instead: the same but for
 * the floor of sum(x)^2/n, less than 1/(n-1) ns^2. */
static unsigned __int128 variance_ns2(const struct profile_rec *r)
{
	if (r->hits <= 1)
		return 0;
	unsigned __int128 n = r->hits, sum = r->total_ns;
	unsigned __int128 b = sum * sum;
	if (r->s2 <= ~(unsigned __int128)0 / n) {
		unsigned __int128 a = n * r->s2;
		return a > b ? (a - b) / (n * (n - 1)) : 0;
	}
	return r->s2 > b / n ? (r->s2 - b / n) / (n - 1) : 0;
}

/* Linux's s^2 column value: the variance over 1000, printed as
 * microseconds (so in us^2). */
static uint64_t variance_col(const struct profile_rec *r)
{
	unsigned __int128 v = variance_ns2(r) / 1000;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* The standard deviation in ns: the integer square root of the variance
 * (floor), bit by bit (at most 64 steps). */
static uint64_t stddev_ns(const struct profile_rec *r)
{
	unsigned __int128 v = variance_ns2(r), root = 0;
	unsigned __int128 bit = (unsigned __int128)1 << 126;
	while (bit > v)
		bit >>= 2;
	for (; bit; bit >>= 2) {
		if (v >= root + bit) {
			v -= root + bit;
			root = (root >> 1) + bit;
		} else {
			root >>= 1;
		}
	}
	return root > UINT64_MAX ? UINT64_MAX : (uint64_t)root;
}

void profile_format(char *buf, size_t size, const struct profile_rec *r)
{
	char name[32];
	const char *sym = ksym_lookup(r->func, NULL, NULL);
	if (!sym) {
		ksnprintf(name, sizeof(name), "0x%lx", (unsigned long)r->func);
		sym = name;
	}
	/* Linux's three, then ours: min, max, standard deviation. */
	uint64_t cols[PROFILE_COLS] = { r->total_ns, r->hits ? r->total_ns / r->hits : 0,
					variance_col(r), r->min_ns, r->max_ns, stddev_ns(r) };
	size_t n = (size_t)ksnprintf(buf, size, "  %-30.30s  %10llu    ", sym,
				     (unsigned long long)r->hits);
	for (int i = 0; i < PROFILE_COLS; i++) {
		n += put_usecs(buf + (n < size ? n : size), n < size ? size - n : 0, cols[i]);
		if (i < PROFILE_COLS - 1)
			n += (size_t)ksnprintf(buf + (n < size ? n : size),
					       n < size ? size - n : 0, "    ");
	}
	ksnprintf(buf + (n < size ? n : size), n < size ? size - n : 0, "\n");
}

int profile_show(unsigned cpu, void (*out)(void *ctx, const char *line), void *ctx)
{
	struct profile_rec *v;
	mutex_lock(&profile_mutex);
	int n = snapshot(cpu, &v);
	mutex_unlock(&profile_mutex);
	if (n < 0)
		return n;
	out(ctx, "  Function                               Hit    Time            Avg             s^2"
		 "             Min             Max             Stddev\n");
	out(ctx, "  --------                               ---    ----            ---             ---"
		 "             ---             ---             ------\n");
	for (int i = 0; i < n; i++) {
		char line[PROFILE_LINE_MAX];
		profile_format(line, sizeof(line), &v[i]);
		out(ctx, line);
	}
	free(v);
	return 0;
}

static void print_line(void *ctx, const char *line)
{
	kprintf("%s", line);
}

int profile_print(unsigned cpu)
{
	return profile_show(cpu, print_line, NULL);
}

/* ---- the files ---- */

static int cat_profile_enabled(const char *arg)
{
	kprintf("%d\n", profile_enabled());
	return 0;
}

static int set_profile_enabled(const char *arg, const char *value, bool append)
{
	unsigned long n;
	if (!tracefs_parse_ulong(value, &n, ULONG_MAX))      /* Linux: any number, 0 is off */
		return tracefs_write_error(-EINVAL, "function_profile_enabled takes a number, 0 for off");
	if (!n) {
		profile_disable();
		return 0;
	}
	int err = profile_enabled() ? 0 : profile_enable();
	return err ? tracefs_write_error(err, NULL) : 0;
}

/* trace_stat/functionN: CPU N's profile (N as Linux names it: no leading
 * zero, so function01 is no file).  Is `name` one, and of which CPU? */
static bool stat_cpu(const char *name, unsigned long *cpu)
{
	return !strncmp(name, "function", 8) && tracefs_parse_ulong(name + 8, cpu, MAX_CPUS - 1) &&
	       *cpu < ncpus && !(name[8] == '0' && name[9]);
}

static int cat_trace_stat(const char *name)
{
	unsigned long cpu;
	if (!stat_cpu(name, &cpu))
		return -ENOENT;
	int err = profile_print((unsigned)cpu);
	if (err == -ENOMEM)
		kprintf("cat: trace_stat/%s: Cannot allocate memory\n", name);
	return err == -EINVAL ? -ENOENT : err;
}

static int ls_trace_stat(const char *entry)
{
	unsigned long cpu;
	if (*entry)
		return stat_cpu(entry, &cpu) ? 0 : -ENOENT;
	for (unsigned c = 0; c < ncpus; c++)
		kprintf("function%u\n", c);
	return 0;
}

TRACEFS_FILE(220, "function_profile_enabled", .cat = cat_profile_enabled, .write = set_profile_enabled);
TRACEFS_FILE(230, "trace_stat/", .cat = cat_trace_stat, .ls = ls_trace_stat);
