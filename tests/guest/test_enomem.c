/*
 * test_enomem.c — every allocation of the tracer's operations made to fail
 * in turn (lib/failalloc.h), and the contract checked: a failed operation
 * returns -ENOMEM and leaves the tracer exactly as it was.
 *
 * sweep() runs an operation once with nothing injected (counting its
 * allocations; the state it reaches is the "after" state), undoes it, then
 * again with allocation k failing for k = 0, 1, 2, ... until a run sees no
 * injected failure: first allocation k alone, then k and every later one
 * (memory gone for good: error paths get no memory either).  A run that
 * fails must return -ENOMEM and leave everything a snapshot holds
 * unchanged (snap_take): every record's flags, every site's bytes and data
 * word, enabled_functions' exact text, the registered ops (order, flags,
 * hashes, trampolines), the list function's table, the current tracer,
 * graph filters, the ring buffer's size and the events in it, the
 * profiler's counts, the signature table, the heap's bytes in use
 * (nothing leaked) — and the exact hit counts every attached callback,
 * graph user, fprobe, direct trampoline and tracer gets when each en_*
 * function is then called CALLS times.  A run that succeeds although an
 * allocation failed (a path that can do without it: the list function's
 * table, an unregister's update from the reserve) must reach the same
 * flags, hit counts and listing as the clean run, and undo cleanly.
 * Afterwards the operation must still succeed and undo (the sweep's last
 * run).
 *
 * Layout (one suite, so one file, longer than most): the probes, what a
 * call reaches (exercise), snapshots, the sweep; then the cases, by
 * subsystem.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "boot/console.h"
#include "boot/panic.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "lib/failalloc.h"
#include "patch/tramp.h"
#include "trace/btf.h"
#include "trace/fgraph.h"
#include "trace/fprobe.h"
#include "trace/ftrace.h"
#include "trace/ftrace_internal.h"
#include "trace/graph.h"
#include "trace/hash.h"
#include "trace/profile.h"
#include "trace/records.h"
#include "trace/trace.h"
#include "trace/tracefs.h"

#ifndef ARCH_SITE_HAS_DATA
#define ARCH_SITE_HAS_DATA 0
#endif

#define T __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")

T int en_a(int x) { KEEP(); return x + 1; }
T int en_b(int x) { KEEP(); return x + 2; }
T int en_c(int x) { KEEP(); return x + 3; }
T int en_d(int x) { KEEP(); return x + 4; }      /* direct trampolines only */

#define NFUNCS 4
#define CALLS 3                 /* calls of each function per exercise */
#define MAX_K 200               /* allocations an operation may make, at most */
static int (*const funcs[NFUNCS])(int) = { en_a, en_b, en_c, en_d };

static int func_index(uintptr_t ip)
{
	for (int i = 0; i < NFUNCS; i++)
		if (ip == (uintptr_t)funcs[i])
			return i;
	return -1;
}

/* ---- the probes: ftrace ops, a graph user, an fprobe ---- */

struct counter {
	struct ftrace_ops ops;
	unsigned long hits[NFUNCS];      /* atomic */
};
#define NCTR 3
static struct counter ctr[NCTR];     /* ctr[2] asks for SAVE_REGS */
static struct ftrace_ops direct_ops;

static void count_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		     struct ftrace_regs *fregs)
{
	int i = func_index(ip);
	if (i >= 0)
		__atomic_fetch_add(&((struct counter *)op)->hits[i], 1, __ATOMIC_RELAXED);
}

static unsigned long g_ent[NFUNCS], g_ret[NFUNCS];     /* atomic */
static bool gu_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	int i = func_index(e->func);
	if (i >= 0)
		__atomic_fetch_add(&g_ent[i], 1, __ATOMIC_RELAXED);
	return true;
}

static void gu_return(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data)
{
	int i = func_index(r->func);
	if (i >= 0)
		__atomic_fetch_add(&g_ret[i], 1, __ATOMIC_RELAXED);
}

static struct fgraph_ops gu = { .entryfunc = gu_entry, .retfunc = gu_return, .idx = -1 };

static unsigned long p_ent[NFUNCS], p_ret[NFUNCS];     /* atomic */
static int fp_entry(struct fprobe *fp, uintptr_t ip, uintptr_t parent,
		    struct ftrace_regs *fregs, uint64_t *data)
{
	int i = func_index(ip);
	if (i >= 0)
		__atomic_fetch_add(&p_ent[i], 1, __ATOMIC_RELAXED);
	return 0;
}

static void fp_exit(struct fprobe *fp, uintptr_t ip, uintptr_t parent, uint64_t retval,
		    uint64_t *data)
{
	int i = func_index(ip);
	if (i >= 0)
		__atomic_fetch_add(&p_ret[i], 1, __ATOMIC_RELAXED);
}

static struct fprobe fp = { .entry_handler = fp_entry, .exit_handler = fp_exit };

/* Fresh counters (unregistered, no hashes): whatever an earlier case
 * that failed left registered goes first. */
static void probes_init(void)
{
	for (int i = 0; i < NCTR; i++) {
		if (ctr[i].ops.flags & FTRACE_OPS_FL_ENABLED)
			unregister_ftrace_function(&ctr[i].ops);
		memset(&ctr[i], 0, sizeof(ctr[i]));
		ctr[i].ops.func = count_cb;
	}
	ctr[2].ops.flags = FTRACE_OPS_FL_SAVE_REGS;
	if (direct_ops.flags & FTRACE_OPS_FL_ENABLED)
		unregister_ftrace_direct(&direct_ops);
	memset(&direct_ops, 0, sizeof(direct_ops));
	if (gu.idx >= 0)
		unregister_fgraph(&gu);
	if (fprobe_is_registered(&fp))
		unregister_fprobe(&fp);
}

/* ---- what a call of each function reaches ---- */

enum { E_CTR = 0, E_GENT = E_CTR + NCTR * NFUNCS, E_GRET = E_GENT + NFUNCS,
       E_PENT = E_GRET + NFUNCS, E_PRET = E_PENT + NFUNCS, E_DIRECT = E_PRET + NFUNCS,
       E_FN = E_DIRECT + 1, E_GRAPH_ENT = E_FN + NFUNCS, E_GRAPH_RET = E_GRAPH_ENT + NFUNCS,
       E_N = E_GRAPH_RET + NFUNCS };

static void counts(unsigned long *v)
{
	for (int c = 0; c < NCTR; c++)
		for (int i = 0; i < NFUNCS; i++)
			v[E_CTR + c * NFUNCS + i] = __atomic_load_n(&ctr[c].hits[i], __ATOMIC_RELAXED);
	for (int i = 0; i < NFUNCS; i++) {
		v[E_GENT + i] = __atomic_load_n(&g_ent[i], __ATOMIC_RELAXED);
		v[E_GRET + i] = __atomic_load_n(&g_ret[i], __ATOMIC_RELAXED);
		v[E_PENT + i] = __atomic_load_n(&p_ent[i], __ATOMIC_RELAXED);
		v[E_PRET + i] = __atomic_load_n(&p_ret[i], __ATOMIC_RELAXED);
	}
	v[E_DIRECT] = (unsigned long)arch_test_direct_hits;
}

/* The tracers' events for our functions in the buffer. */
static void events(unsigned long *v)
{
	struct rb_iter it;
	struct rb_event ev;
	for (int i = 0; i < 3 * NFUNCS; i++)
		v[E_FN + i] = 0;
	if (!trace_buffer || rb_iter_start(&it, trace_buffer, RB_ALL_CPUS))
		return;
	while (rb_iter_next(&it, &ev) == 0) {
		const struct trace_entry *e = ev.data;
		int i;
		if (e->type == TRACE_FN && (i = func_index(((const struct ftrace_entry *)e)->ip)) >= 0)
			v[E_FN + i]++;
		else if (e->type == TRACE_GRAPH_ENT &&
			 (i = func_index(((const struct fgraph_ent_entry *)e)->func)) >= 0)
			v[E_GRAPH_ENT + i]++;
		else if (e->type == TRACE_GRAPH_RET &&
			 (i = func_index(((const struct fgraph_ret_entry *)e)->func)) >= 0)
			v[E_GRAPH_RET + i]++;
	}
	rb_iter_end(&it);
}

/* Events in the buffer, all kinds. */
static unsigned long buffered(void)
{
	struct rb_iter it;
	struct rb_event ev;
	unsigned long n = 0;
	if (!trace_buffer || rb_iter_start(&it, trace_buffer, RB_ALL_CPUS))
		return 0;
	while (rb_iter_next(&it, &ev) == 0)
		n++;
	rb_iter_end(&it);
	return n;
}

/* The profiler's hits on our functions, every CPU. */
static unsigned long profiled(void)
{
	unsigned long n = 0;
	struct profile_rec r;
	for (unsigned c = 0; c < ncpus; c++)
		for (int i = 0; i < NFUNCS; i++)
			if (profile_lookup(c, (uintptr_t)funcs[i], &r) == 0)
				n += r.hits;
	return n;
}

/* Call every function CALLS times from an empty buffer: what each probe
 * and tracer got. */
static void exercise(unsigned long *delta)
{
	unsigned long before[E_N], after[E_N];
	if (trace_buffer) {
		rb_record_off(trace_buffer);
		rb_reset(trace_buffer, RB_ALL_CPUS);
		rb_record_on(trace_buffer);
	}
	counts(before);
	for (int n = 0; n < CALLS; n++)
		for (int i = 0; i < NFUNCS; i++)
			if (funcs[i](i) != i + i + 1)
				test_fail(__FILE__, __LINE__, "en_%c returned a wrong value", 'a' + i);
	counts(after);
	events(after);
	for (int i = 0; i < E_N; i++)
		delta[i] = after[i] - (i < E_FN ? before[i] : 0);
}

static const char *event_name(int i)
{
	static char buf[48];
	const char *kind = i < E_GENT ? "ops" : i < E_GRET ? "graph entry" : i < E_PENT ? "graph exit" :
			   i < E_PRET ? "fprobe entry" : i < E_DIRECT ? "fprobe exit" :
			   i == E_DIRECT ? "direct" : i < E_GRAPH_ENT ? "function event" :
			   i < E_GRAPH_RET ? "graph entry event" : "graph exit event";
	int f = i < E_GENT ? (i - E_CTR) % NFUNCS : i < E_DIRECT ? (i - E_GENT) % NFUNCS :
		i == E_DIRECT ? -1 : (i - E_FN) % NFUNCS;
	if (i < E_GENT)
		ksnprintf(buf, sizeof(buf), "ctr[%d] on en_%c", (i - E_CTR) / NFUNCS, 'a' + f);
	else if (f >= 0)
		ksnprintf(buf, sizeof(buf), "%s en_%c", kind, 'a' + f);
	else
		ksnprintf(buf, sizeof(buf), "%s", kind);
	return buf;
}

/* ---- snapshots ---- */

struct text {
	char buf[2048];
	size_t len;
	unsigned lines;
};

static void text_line(void *ctx, const char *line)
{
	struct text *t = ctx;
	int n = ksnprintf(t->buf + t->len, sizeof(t->buf) - t->len, "%s\n", line);
	if (n > 0 && t->len + (size_t)n < sizeof(t->buf))
		t->len += (size_t)n;
	t->lines++;
}

#define MAX_OPS 16
struct ops_state {
	struct ftrace_ops *op;
	unsigned flags;
	const struct ftrace_hash *filter, *notrace;
	uintptr_t tramp, direct;
};

struct snap {
	uint32_t *flags;                 /* every record's, ftrace_nrecs */
	uint64_t *site;                  /* every site's bytes */
	uintptr_t *data;                 /* every site's data word (0 without) */
	struct text enabled;             /* enabled_functions */
	struct ops_state ops[MAX_OPS];   /* the registered list, in order */
	unsigned nops;
	const struct listvec *table;     /* the list function's, as published */
	const struct tracer *tracer;
	const struct ftrace_hash *graph[2];
	unsigned graph_count[2];
	unsigned pages[MAX_CPUS];
	size_t buf_size;
	struct text btf;
	bool profile, fprobe;
	size_t heap;                     /* bytes in use */
	unsigned long kept;              /* events in the buffer at the snapshot */
	unsigned long hits[E_N];         /* exercise() */
	unsigned long left;              /* events it left in the buffer */
	unsigned long prof_kept, prof_left;   /* profiler hits, the same way */
};

static struct snap s_before, s_after, s_clean;

static void snap_alloc(struct snap *s)
{
	if (!s->flags) {
		s->flags = calloc(ftrace_nrecs, sizeof(*s->flags));
		s->site = calloc(ftrace_nrecs, sizeof(*s->site));
		s->data = calloc(ftrace_nrecs, sizeof(*s->data));
		if (!s->flags || !s->site || !s->data)
			panic("test_enomem: no memory for a snapshot");
	}
}

/* Everything but the hit counts, then (hits) exercise().  The heap is read
 * first: exercise() allocates nothing, the rest neither. */
static void snap_take(struct snap *s, bool hits)
{
	s->heap = mallinfo().uordblks;
	s->kept = buffered();
	s->prof_kept = profiled();
	for (unsigned i = 0; i < ftrace_nrecs; i++) {
		uintptr_t ip = rec_ip(&ftrace_recs[i]);
		s->flags[i] = ftrace_recs[i].flags;
		s->site[i] = arch_site_read(ip);
		s->data[i] = ARCH_SITE_HAS_DATA ? arch_site_data(ip) : 0;
	}
	memset(&s->enabled, 0, sizeof(s->enabled));
	ftrace_list_enabled(text_line, &s->enabled);
	mutex_lock(&ftrace_mutex);
	s->nops = 0;
	for (struct ftrace_ops *op = ftrace_ops_list; op && s->nops < MAX_OPS; op = op->next)
		s->ops[s->nops++] = (struct ops_state){ op, op->flags, op->filter, op->notrace,
						       op->tramp, op->direct };
	s->table = ftrace_list_table_get();
	mutex_unlock(&ftrace_mutex);
	s->tracer = tracer_current();
	for (int k = 0; k < 2; k++) {
		s->graph[k] = graph_hash(k);
		s->graph_count[k] = s->graph[k] ? s->graph[k]->count : 0;
	}
	for (unsigned c = 0; c < ncpus && trace_buffer; c++) {
		struct rb_stats st;
		rb_stats(trace_buffer, c, &st);
		s->pages[c] = st.pages;
	}
	s->buf_size = trace_buf_size;
	memset(&s->btf, 0, sizeof(s->btf));
	btf_status(text_line, &s->btf);
	s->profile = profile_enabled();
	s->fprobe = fprobe_is_registered(&fp);
	if (hits) {
		exercise(s->hits);
		s->left = buffered();
		s->prof_left = profiled();
	}
}

static const char *rname(unsigned i)
{
	return rec_name(&ftrace_recs[i]);
}

/*
 * Compare b (before) and a (after).  exact: everything (a failed
 * operation); else what does not depend on which trampoline slot or hash
 * allocation a run got (two successful runs).  Reports the first
 * difference of each kind; false if any.
 */
static bool snap_same(const struct snap *b, const struct snap *a, bool exact, const char *what,
		      unsigned k)
{
	bool ok = true;
#define DIFF(...) do { kprintf("    # %s, allocation %u failing: ", what, k);         \
		       kprintf(__VA_ARGS__); kprintf("\n"); ok = false; } while (0)
	for (unsigned i = 0; i < ftrace_nrecs; i++)
		if (b->flags[i] != a->flags[i]) {
			DIFF("%s flags %#x -> %#x", rname(i), b->flags[i], a->flags[i]);
			break;
		}
	for (unsigned i = 0; exact && i < ftrace_nrecs; i++)
		if (b->site[i] != a->site[i] || b->data[i] != a->data[i]) {
			DIFF("%s site %#llx/%#lx -> %#llx/%#lx", rname(i),
			     (unsigned long long)b->site[i], (unsigned long)b->data[i],
			     (unsigned long long)a->site[i], (unsigned long)a->data[i]);
			break;
		}
	if (exact ? strcmp(b->enabled.buf, a->enabled.buf) != 0 : b->enabled.lines != a->enabled.lines)
		DIFF("enabled_functions was\n%s    # and is\n%s", b->enabled.buf, a->enabled.buf);
	if (b->nops != a->nops)
		DIFF("%u ops registered -> %u", b->nops, a->nops);
	for (unsigned i = 0; i < b->nops && i < a->nops; i++) {
		const struct ops_state *x = &b->ops[i], *y = &a->ops[i];
		/* Two runs may register in another order: the same ops. */
		for (unsigned j = 0; !exact && j < a->nops; j++)
			if (a->ops[j].op == x->op)
				y = &a->ops[j];
		if (x->op != y->op || x->flags != y->flags ||
		    (exact && (x->filter != y->filter || x->notrace != y->notrace ||
			       x->tramp != y->tramp || x->direct != y->direct))) {
			DIFF("ops %u: %p flags %#x filter %p notrace %p tramp %#lx direct %#lx -> "
			     "%p flags %#x filter %p notrace %p tramp %#lx direct %#lx", i,
			     (void *)x->op, x->flags, (void *)x->filter, (void *)x->notrace,
			     (unsigned long)x->tramp, (unsigned long)x->direct,
			     (void *)y->op, y->flags, (void *)y->filter, (void *)y->notrace,
			     (unsigned long)y->tramp, (unsigned long)y->direct);
			break;
		}
	}
	if (exact && b->table != a->table)
		DIFF("list table %p -> %p", (const void *)b->table, (const void *)a->table);
	if (b->tracer != a->tracer)
		DIFF("tracer %s -> %s", b->tracer->name, a->tracer->name);
	for (int k2 = 0; k2 < 2; k2++)
		if ((exact && b->graph[k2] != a->graph[k2]) || b->graph_count[k2] != a->graph_count[k2])
			DIFF("graph %s hash %p (%u) -> %p (%u)", k2 ? "notrace" : "function",
			     (void *)b->graph[k2], b->graph_count[k2], (void *)a->graph[k2],
			     a->graph_count[k2]);
	for (unsigned c = 0; c < ncpus; c++)
		if (b->pages[c] != a->pages[c]) {
			DIFF("CPU %u buffer pages %u -> %u", c, b->pages[c], a->pages[c]);
			break;
		}
	if (b->buf_size != a->buf_size)
		DIFF("buffer_size_kb %lu -> %lu", (unsigned long)b->buf_size / 1024,
		     (unsigned long)a->buf_size / 1024);
	if (strcmp(b->btf.buf, a->btf.buf))
		DIFF("btf status was\n%s    # and is\n%s", b->btf.buf, a->btf.buf);
	if (b->profile != a->profile || b->fprobe != a->fprobe)
		DIFF("profile %d fprobe %d -> profile %d fprobe %d", b->profile, b->fprobe,
		     a->profile, a->fprobe);
	if (exact && b->prof_left != a->prof_kept)
		DIFF("%lu profiler hits -> %lu", b->prof_left, a->prof_kept);
	if (exact && b->left != a->kept)
		DIFF("%lu events in the buffer -> %lu", b->left, a->kept);
	if (exact && b->heap != a->heap)
		DIFF("heap in use %lu -> %lu bytes", (unsigned long)b->heap, (unsigned long)a->heap);
	for (int i = 0; i < E_N; i++)
		if (b->hits[i] != a->hits[i]) {
			DIFF("%s: %lu hits for %d calls, was %lu", event_name(i), a->hits[i], CALLS,
			     b->hits[i]);
			break;
		}
#undef DIFF
	return ok;
}

/* ---- the sweep ---- */

typedef int (*op_fn)(void);

/*
 * With allocation k failing for k = 0, 1, ... (count 1: that one alone;
 * count ~0u: it and every later one, memory gone for good) until a run
 * sees no injected failure; see the top.  Counts the failures (-ENOMEM)
 * and the tolerated ones in *failed and *tolerated; false on a finding.
 */
static bool sweep_mode(const char *what, op_fn run, op_fn undo, unsigned count,
		       unsigned *failed, unsigned *tolerated)
{
	struct failalloc_stats st;
	const char *how = count == 1 ? "alone" : "and every later one";
	for (unsigned k = 0;; k++) {
		if (k > MAX_K) {
			test_fail(__FILE__, __LINE__, "%s: still failing at allocation %u", what, k);
			return false;
		}
		snap_take(&s_before, true);
		failalloc_start(k, count);
		int err = run();
		failalloc_stop(&st);
		if (!st.failed) {
			/* Allocation k was never reached: a clean run. */
			if (err || undo()) {
				test_fail(__FILE__, __LINE__, "%s: %d with nothing injected, or no undo",
					  what, err);
				return false;
			}
			return true;
		}
		if (err == 0) {
			/* Done without those allocations: it must work as a clean run. */
			++*tolerated;
			snap_take(&s_after, true);
			bool same = snap_same(&s_clean, &s_after, false, what, k);
			if (undo()) {
				test_fail(__FILE__, __LINE__, "%s: allocation %u (%s) failing: success, "
					  "then no undo", what, k, how);
				return false;
			}
			if (!same) {
				test_fail(__FILE__, __LINE__, "%s: allocation %u (%s) failing: success, "
					  "but not the clean run's state", what, k, how);
				return false;
			}
			continue;
		}
		++*failed;
		snap_take(&s_after, true);
		if (err != -ENOMEM)
			test_fail(__FILE__, __LINE__, "%s: allocation %u (%s) failing: error %d, "
				  "not -ENOMEM", what, k, how, err);
		if (!snap_same(&s_before, &s_after, true, what, k)) {
			test_fail(__FILE__, __LINE__, "%s: allocation %u (%s) failing changed the state",
				  what, k, how);
			return false;
		}
	}
}

/*
 * The clean run (its allocations, and the state a success reaches: undo
 * must restore the state before), then both sweeps.  `undo` takes a
 * successful run back.  Returns the allocations of the clean run, 0 after
 * a finding.
 */
static unsigned sweep(const char *what, op_fn run, op_fn undo)
{
	struct failalloc_stats st;
	snap_alloc(&s_before);
	snap_alloc(&s_after);
	snap_alloc(&s_clean);
	snap_take(&s_before, true);
	failalloc_start(0, 0);
	int err = run();
	failalloc_stop(&st);
	if (err) {
		test_fail(__FILE__, __LINE__, "%s: %d with nothing injected", what, err);
		return 0;
	}
	snap_take(&s_clean, true);
	if (undo()) {
		test_fail(__FILE__, __LINE__, "%s: undo failed", what);
		return 0;
	}
	snap_take(&s_after, true);
	if (!snap_same(&s_before, &s_after, false, what, ~0u)) {
		test_fail(__FILE__, __LINE__, "%s: undo did not restore the state", what);
		return 0;
	}
	unsigned f1 = 0, t1 = 0, fn = 0, tn = 0;
	if (!sweep_mode(what, run, undo, 1, &f1, &t1) ||
	    !sweep_mode(what, run, undo, ~0u, &fn, &tn))
		return 0;
	kprintf("    # %s: %u allocations; one failing: %u -ENOMEM, %u tolerated; "
		"all from one on: %u -ENOMEM, %u tolerated\n", what, st.attempts, f1, t1, fn, tn);
	EXPECT_TRUE(!failalloc_armed());
	return st.attempts;
}

/* ---- the injection itself ---- */

static volatile bool other_go, other_done;
static int other_allocs(void *arg)
{
	while (!__atomic_load_n(&other_go, __ATOMIC_ACQUIRE))
		thread_yield();
	for (int i = 0; i < 100; i++) {
		void *p = malloc(32);
		if (!p)
			__atomic_store_n((bool *)arg, true, __ATOMIC_RELAXED);
		free(p);
	}
	__atomic_store_n(&other_done, true, __ATOMIC_RELEASE);
	return 0;
}

TEST_CASE(enomem, failalloc_counts_and_fails)
{
	struct failalloc_stats st;
	void *p[6];
	/* Count only. */
	failalloc_start(0, 0);
	p[0] = malloc(8);
	p[1] = calloc(2, 8);
	p[2] = memalign(64, 64);
	p[3] = memalign(16, 32);
	p[4] = realloc(p[0], 128);
	failalloc_stop(&st);
	EXPECT_EQ(st.attempts, 5);
	EXPECT_EQ(st.failed, 0);
	for (int i = 1; i < 5; i++)
		EXPECT_TRUE(p[i] != NULL);
	EXPECT_EQ((uintptr_t)p[2] % 64, 0);
	free(p[1]); free(p[2]); free(p[3]);
	/* Each allocator fails as the nth; a failed realloc keeps the block. */
	failalloc_start(1, 4);
	void *first = malloc(8);
	EXPECT_TRUE(calloc(1, 8) == NULL);
	EXPECT_TRUE(memalign(16, 8) == NULL);
	EXPECT_TRUE(malloc(16) == NULL);
	EXPECT_TRUE(realloc(p[4], 4096) == NULL);
	void *after = malloc(8);
	failalloc_stop(&st);
	EXPECT_EQ(st.attempts, 6);
	EXPECT_EQ(st.failed, 4);
	EXPECT_TRUE(first != NULL && after != NULL);
	memset(p[4], 0x5a, 128);             /* still ours */
	free(p[4]); free(first); free(after);
	/* Disarmed: nothing fails, nothing is counted. */
	p[5] = malloc(8);
	EXPECT_TRUE(p[5] != NULL);
	free(p[5]);
	failalloc_get(&st);
	EXPECT_EQ(st.attempts, 6);
	EXPECT_TRUE(!failalloc_armed());
	/* Another thread's allocations are neither failed nor counted. */
	static bool other_failed;
	other_failed = other_go = other_done = false;
	struct thread *t = thread_create("allocs", other_allocs, &other_failed, ncpus > 1 ? 1 : 0);
	ASSERT_TRUE(t != NULL);
	failalloc_start(0, 1000);
	__atomic_store_n(&other_go, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&other_done, __ATOMIC_ACQUIRE))
		thread_yield();
	failalloc_stop(&st);
	thread_join(t);
	EXPECT_EQ(st.attempts, 0);
	EXPECT_TRUE(!other_failed);
}

/* ---- ftrace ops ---- */

static int reg0(void) { return register_ftrace_function(&ctr[0].ops); }
static int unreg0(void) { return unregister_ftrace_function(&ctr[0].ops); }
static int reg1(void) { return register_ftrace_function(&ctr[1].ops); }
static int unreg1(void) { return unregister_ftrace_function(&ctr[1].ops); }
static int reg2(void) { return register_ftrace_function(&ctr[2].ops); }
static int unreg2(void) { return unregister_ftrace_function(&ctr[2].ops); }

/* Nothing attached anywhere: the suite's starting (and ending) point. */
static bool all_clear(void)
{
	for (int i = 0; i < NFUNCS; i++)
		if (rec_find((uintptr_t)funcs[i])->flags != 0)
			return false;
	return true;
}

TEST_CASE(enomem, register_single_ops)
{
	probes_init();
	ASSERT_TRUE(all_clear());
	ASSERT_EQ(ftrace_set_filter(&ctr[0].ops, "en_a en_b", true), 0);
	EXPECT_TRUE(sweep("register one ops", reg0, unreg0) > 0);
	ASSERT_EQ(register_ftrace_function(&ctr[0].ops), 0);
	EXPECT_TRUE(sweep("unregister one ops", unreg0, reg0) > 0);
	ASSERT_EQ(unregister_ftrace_function(&ctr[0].ops), 0);
	EXPECT_TRUE(all_clear());
}

TEST_CASE(enomem, second_ops_joins_shared_site)
{
	probes_init();
	ASSERT_EQ(ftrace_set_filter(&ctr[0].ops, "en_a en_b", true), 0);
	ASSERT_EQ(ftrace_set_filter(&ctr[1].ops, "en_b en_c", true), 0);
	ASSERT_EQ(register_ftrace_function(&ctr[0].ops), 0);
	EXPECT_TRUE(sweep("second ops joins", reg1, unreg1) > 0);
	ASSERT_EQ(register_ftrace_function(&ctr[1].ops), 0);
	EXPECT_TRUE(sweep("second ops leaves", unreg1, reg1) > 0);
	EXPECT_TRUE(sweep("first ops leaves a shared site", unreg0, reg0) > 0);
	ASSERT_EQ(unregister_ftrace_function(&ctr[1].ops), 0);
	ASSERT_EQ(unregister_ftrace_function(&ctr[0].ops), 0);
	EXPECT_TRUE(all_clear());
}

TEST_CASE(enomem, save_regs_ops)
{
	probes_init();
	ASSERT_EQ(ftrace_set_filter(&ctr[0].ops, "en_a en_b", true), 0);
	ASSERT_EQ(ftrace_set_filter(&ctr[2].ops, "en_b en_c", true), 0);
	EXPECT_TRUE(sweep("SAVE_REGS ops alone", reg2, unreg2) > 0);
	ASSERT_EQ(register_ftrace_function(&ctr[0].ops), 0);
	EXPECT_TRUE(sweep("SAVE_REGS ops joins", reg2, unreg2) > 0);
	ASSERT_EQ(register_ftrace_function(&ctr[2].ops), 0);
	EXPECT_TRUE(sweep("SAVE_REGS ops leaves", unreg2, reg2) > 0);
	ASSERT_EQ(unregister_ftrace_function(&ctr[2].ops), 0);
	ASSERT_EQ(unregister_ftrace_function(&ctr[0].ops), 0);
	EXPECT_TRUE(all_clear());
}

static int reg_direct(void)
{
	return register_ftrace_direct(&direct_ops, (uintptr_t)arch_test_direct_tramp);
}

static int unreg_direct(void)
{
	return unregister_ftrace_direct(&direct_ops);
}

TEST_CASE(enomem, direct_ops)
{
	probes_init();
	ASSERT_EQ(ftrace_set_filter(&direct_ops, "en_d", true), 0);
	ASSERT_EQ(ftrace_set_filter(&ctr[0].ops, "en_a en_b", true), 0);
	ASSERT_EQ(register_ftrace_function(&ctr[0].ops), 0);
	EXPECT_TRUE(sweep("register a direct ops", reg_direct, unreg_direct) > 0);
	ASSERT_EQ(reg_direct(), 0);
	EXPECT_TRUE(sweep("unregister a direct ops", unreg_direct, reg_direct) > 0);
	ASSERT_EQ(unreg_direct(), 0);
	ASSERT_EQ(unregister_ftrace_function(&ctr[0].ops), 0);
	EXPECT_TRUE(all_clear());
}

/* ---- filters on live ops ---- */

static int filter_to_bc(void) { return ftrace_set_filter(&ctr[0].ops, "en_b en_c", true); }
static int filter_to_ab(void) { return ftrace_set_filter(&ctr[0].ops, "en_a en_b", true); }
static int filter_add_c(void) { return ftrace_set_filter(&ctr[0].ops, "en_c", false); }
static int filter_drop_c(void) { return ftrace_set_filter(&ctr[0].ops, "!en_c", false); }
static int notrace_b(void) { return ftrace_set_notrace(&ctr[0].ops, "en_b", true); }
static int notrace_none(void) { return ftrace_set_notrace(&ctr[0].ops, "", true); }
static int filter_all(void) { return ftrace_set_filter(&ctr[1].ops, "", true); }
static int filter_c1(void) { return ftrace_set_filter(&ctr[1].ops, "en_c", true); }

static int filter_ip_add_c(void) { return ftrace_set_filter_ip(&ctr[0].ops, (uintptr_t)en_c, false, false); }
static int filter_ip_drop_c(void) { return ftrace_set_filter_ip(&ctr[0].ops, (uintptr_t)en_c, true, false); }
/* Every function but en_c: a hash that grows from 16 slots to the table's
 * size (each growth an allocation) and a candidate bitmap. */
static int notrace_all_but_c(void) { return ftrace_set_notrace(&ctr[1].ops, "* !en_c", true); }
static int notrace_none1(void) { return ftrace_set_notrace(&ctr[1].ops, "", true); }

TEST_CASE(enomem, filters_on_live_ops)
{
	probes_init();
	ASSERT_EQ(ftrace_set_filter(&ctr[0].ops, "en_a en_b", true), 0);
	ASSERT_EQ(ftrace_set_filter(&ctr[1].ops, "en_c", true), 0);
	ASSERT_EQ(register_ftrace_function(&ctr[0].ops), 0);
	ASSERT_EQ(register_ftrace_function(&ctr[1].ops), 0);
	EXPECT_TRUE(sweep("set_filter (replace) on a live ops", filter_to_bc, filter_to_ab) > 0);
	EXPECT_TRUE(sweep("set_filter (append) on a live ops", filter_add_c, filter_drop_c) > 0);
	EXPECT_TRUE(sweep("set_notrace on a live ops", notrace_b, notrace_none) > 0);
	EXPECT_TRUE(sweep("set_filter_ip on a live ops", filter_ip_add_c, filter_ip_drop_c) > 0);
	EXPECT_TRUE(sweep("set_notrace of (almost) every function", notrace_all_but_c,
			  notrace_none1) > 3);
	/* "" on a live ops: every function (the whole table is a candidate);
	 * notrace for the rest so the sweep does not trace the kernel. */
	ASSERT_EQ(ftrace_set_notrace(&ctr[1].ops, "*", true), 0);
	ASSERT_EQ(ftrace_set_notrace(&ctr[1].ops, "!en_*", false), 0);
	EXPECT_TRUE(sweep("set_filter to every function on a live ops", filter_all, filter_c1) > 0);
	/* Leaving every function: the largest update, from the reserve. */
	ASSERT_EQ(filter_all(), 0);
	EXPECT_TRUE(sweep("unregister an ops on every function", unreg1, reg1) > 0);
	ASSERT_EQ(unregister_ftrace_function(&ctr[1].ops), 0);
	ASSERT_EQ(unregister_ftrace_function(&ctr[0].ops), 0);
	EXPECT_TRUE(all_clear());
}

/* Three ops, two of them registered, given one filter at once. */
static struct ftrace_ops *const three[3] = { &ctr[0].ops, &ctr[1].ops, &ctr[2].ops };
static int filters_bc(void) { return ftrace_set_filter_ops(three, 3, false, "en_b en_c", true); }
static int filters_ab(void) { return ftrace_set_filter_ops(three, 3, false, "en_a en_b", true); }
static int notraces_a(void) { return ftrace_set_filter_ops(three, 3, true, "en_a", true); }
static int notraces_none(void) { return ftrace_set_filter_ops(three, 3, true, "", true); }

TEST_CASE(enomem, filter_of_several_ops)
{
	probes_init();
	ASSERT_EQ(filters_ab(), 0);
	ASSERT_EQ(register_ftrace_function(&ctr[0].ops), 0);
	ASSERT_EQ(register_ftrace_function(&ctr[1].ops), 0);
	EXPECT_TRUE(sweep("one filter for three ops", filters_bc, filters_ab) > 0);
	EXPECT_TRUE(sweep("one notrace for three ops", notraces_a, notraces_none) > 0);
	EXPECT_EQ(ftrace_set_filter_ops(three, 3, false, "en_a no_such_function_xyz", true), -EINVAL);
	ASSERT_EQ(unregister_ftrace_function(&ctr[1].ops), 0);
	ASSERT_EQ(unregister_ftrace_function(&ctr[0].ops), 0);
	EXPECT_TRUE(all_clear());
}

/* ---- graph users, fprobes ---- */

static int reg_gu(void) { return register_fgraph(&gu); }
static int unreg_gu(void) { return unregister_fgraph(&gu); }

TEST_CASE(enomem, register_fgraph)
{
	probes_init();
	ASSERT_EQ(ftrace_set_filter(&gu.ops, "en_a en_b", true), 0);
	EXPECT_TRUE(sweep("register_fgraph", reg_gu, unreg_gu) > 0);
	/* A graph user joining an ops on a shared site (the list function). */
	ASSERT_EQ(ftrace_set_filter(&ctr[0].ops, "en_b en_c", true), 0);
	ASSERT_EQ(register_ftrace_function(&ctr[0].ops), 0);
	EXPECT_TRUE(sweep("register_fgraph on a shared site", reg_gu, unreg_gu) > 0);
	ASSERT_EQ(unregister_ftrace_function(&ctr[0].ops), 0);
	EXPECT_TRUE(all_clear());
}

static int reg_fp(void) { return register_fprobe(&fp, "en_a en_c", "en_b"); }
static int unreg_fp(void) { return unregister_fprobe(&fp); }

TEST_CASE(enomem, register_fprobe)
{
	probes_init();
	EXPECT_TRUE(sweep("register_fprobe", reg_fp, unreg_fp) > 0);
	EXPECT_TRUE(all_clear());
}

/* ---- tracers ---- */

static const char *tracer_to, *tracer_from;
static int set_tracer(void) { return tracer_set(tracer_to); }
static int back_tracer(void) { return tracer_set(tracer_from); }

static int tracer_step(const char *from, const char *to)
{
	char what[64];
	tracer_from = from;
	tracer_to = to;
	ksnprintf(what, sizeof(what), "current_tracer %s -> %s", from, to);
	return (int)sweep(what, set_tracer, back_tracer);
}

/* The function and function_graph tracers on en_a and en_b only. */
static bool tracers_on_ours(void)
{
	return trace_filter_set(false, "en_a en_b", true) == 0;
}

static void tracers_back(void)
{
	tracer_set("nop");
	trace_filter_set(false, "", true);
}

TEST_CASE(enomem, tracer_switches)
{
	probes_init();
	ASSERT_TRUE(tracers_on_ours());
	ASSERT_EQ(tracer_set("nop"), 0);
	EXPECT_TRUE(tracer_step("nop", "function") > 0);
	ASSERT_EQ(tracer_set("function"), 0);
	EXPECT_TRUE(tracer_step("function", "function_graph") > 0);
	ASSERT_EQ(tracer_set("function_graph"), 0);
	EXPECT_TRUE(tracer_step("function_graph", "nop") > 0);
	tracers_back();
	EXPECT_TRUE(all_clear());
}

static int graph_funcs_a(void) { return graph_set_hash(false, "en_a", true); }
static int graph_funcs_none(void) { return graph_set_hash(false, "", true); }
static int graph_notrace_b(void) { return graph_set_hash(true, "en_b", true); }
static int graph_notrace_none(void) { return graph_set_hash(true, "", true); }

TEST_CASE(enomem, set_graph_function)
{
	probes_init();
	ASSERT_TRUE(tracers_on_ours());
	ASSERT_EQ(tracer_set("function_graph"), 0);
	EXPECT_TRUE(sweep("set_graph_function", graph_funcs_a, graph_funcs_none) > 0);
	EXPECT_TRUE(sweep("set_graph_notrace", graph_notrace_b, graph_notrace_none) > 0);
	tracers_back();
	EXPECT_TRUE(all_clear());
}

/* ---- the ring buffer ---- */

static size_t rb_from, rb_to;
static int resize_to(void)
{
	rb_record_off(trace_buffer);
	int err = rb_resize(trace_buffer, RB_ALL_CPUS, rb_to);
	rb_record_on(trace_buffer);
	return err == -RB_ENOMEM ? -ENOMEM : err;
}

static int resize_back(void)
{
	rb_record_off(trace_buffer);
	int err = rb_resize(trace_buffer, RB_ALL_CPUS, rb_from);
	rb_record_on(trace_buffer);
	return err;
}

static char knob_cmd[64];
static int shell(const char *cmd, const char *args)
{
	char line[128];
	bool handled;
	ksnprintf(line, sizeof(line), "%s", args);
	return tracefs_command(cmd, line, &handled);
}

static int knob_to(void) { return shell("echo", knob_cmd); }
static int knob_back(void)
{
	char cmd[64];
	ksnprintf(cmd, sizeof(cmd), "%lu > buffer_size_kb", (unsigned long)rb_from / 1024);
	return shell("echo", cmd);
}

static struct rb_buffer *extra;
static int create_extra(void)
{
	int err = rb_create(&extra, ncpus, 2 * 4096, RB_FL_OVERWRITE, &rb_kernel_allocator);
	return err == -RB_ENOMEM ? -ENOMEM : err;
}

static int destroy_extra(void)
{
	rb_destroy(extra);
	extra = NULL;
	return 0;
}

TEST_CASE(enomem, ring_buffer_create)
{
	EXPECT_TRUE(sweep("rb_create", create_extra, destroy_extra) > 0);
}

TEST_CASE(enomem, ring_buffer_resize)
{
	ASSERT_TRUE(trace_buffer != NULL);
	rb_from = trace_buf_size;
	rb_to = 3 * 4096;
	EXPECT_TRUE(sweep("rb_resize", resize_to, resize_back) > 0);
	ksnprintf(knob_cmd, sizeof(knob_cmd), "%lu > buffer_size_kb", (unsigned long)rb_to / 1024);
	EXPECT_TRUE(sweep("echo N > buffer_size_kb", knob_to, knob_back) > 0);
	EXPECT_EQ(trace_buf_size, rb_from);
}

/* ---- BTF, the profiler, tracefs writes ---- */

static int btf_embedded(void) { return btf_load_embedded(); }
static int nothing(void) { return 0; }

TEST_CASE(enomem, btf_load)
{
	struct text t = { 0 };
	btf_status(text_line, &t);
	if (!strstr(t.buf, "embedded"))
		TEST_SKIP("no embedded BTF loaded");
	EXPECT_TRUE(sweep("btf load (embedded)", btf_embedded, nothing) > 0);
}

static int prof_on(void) { return profile_enable(); }
static int prof_off(void) { profile_disable(); return 0; }

TEST_CASE(enomem, profiler)
{
	ASSERT_TRUE(!profile_enabled());
	ASSERT_EQ(profile_set_filter("en_a en_b", true), 0);
	EXPECT_TRUE(sweep("function_profile_enabled", prof_on, prof_off) > 0);
	EXPECT_EQ(profile_set_filter("", true), 0);
	EXPECT_TRUE(all_clear());
}

static int cat_stat(void) { return shell("cat", "trace_stat/function0"); }

static const char *cmd_to, *cmd_from;
static int echo_to(void) { return shell("echo", cmd_to); }
static int echo_from(void) { return shell("echo", cmd_from); }

static void echo_sweep(const char *to, const char *from)
{
	char what[96];
	cmd_to = to;
	cmd_from = from;
	ksnprintf(what, sizeof(what), "echo %s", to);
	sweep(what, echo_to, echo_from);
}

TEST_CASE(enomem, tracefs_writes)
{
	ASSERT_TRUE(tracers_on_ours());
	ASSERT_EQ(tracer_set("function_graph"), 0);
	echo_sweep("en_a > set_graph_function", " > set_graph_function");
	echo_sweep("en_b >> set_graph_notrace", " > set_graph_notrace");
	echo_sweep("function > current_tracer", "function_graph > current_tracer");
	echo_sweep("embedded > btf", "embedded > btf");
	echo_sweep("1 > function_profile_enabled", "0 > function_profile_enabled");
	/* A read that allocates: -ENOMEM and nothing else. */
	ASSERT_EQ(profile_set_filter("en_a en_b", true), 0);
	ASSERT_EQ(profile_enable(), 0);
	EXPECT_TRUE(sweep("cat trace_stat/function0", cat_stat, nothing) > 0);
	profile_disable();
	EXPECT_EQ(profile_set_filter("", true), 0);
	tracers_back();
	EXPECT_TRUE(all_clear());
}

/* ---- unregistering: never fails for lack of memory (trace/update.c's
 * reserve), so the callers that ignore its error (tracers' stop(),
 * unregister_fgraph()'s slot handling) never meet one ---- */

TEST_CASE(enomem, unregister_fgraph)
{
	probes_init();
	ASSERT_EQ(ftrace_set_filter(&gu.ops, "en_a en_b", true), 0);
	ASSERT_EQ(register_fgraph(&gu), 0);
	EXPECT_TRUE(sweep("unregister_fgraph", unreg_gu, reg_gu) > 0);
	EXPECT_EQ(unregister_fgraph(&gu), 0);
	EXPECT_TRUE(all_clear());
}

TEST_CASE(enomem, unregister_fprobe)
{
	probes_init();
	ASSERT_EQ(reg_fp(), 0);
	EXPECT_TRUE(sweep("unregister_fprobe", unreg_fp, reg_fp) > 0);
	EXPECT_EQ(unregister_fprobe(&fp), 0);
	EXPECT_TRUE(all_clear());
}

/* trace_filter_set(): the filter of the three ops it drives (function,
 * function_graph, the profiler) changes for all or none (it once set them
 * one after the other: allocation 2 failing left the function tracer on
 * the new filter alone). */
TEST_CASE(enomem, set_ftrace_filter)
{
	ASSERT_TRUE(tracers_on_ours());
	ASSERT_EQ(tracer_set("function"), 0);
	echo_sweep("en_b > set_ftrace_filter", "en_a en_b > set_ftrace_filter");
	echo_sweep("en_b >> set_ftrace_notrace", " > set_ftrace_notrace");
	tracers_back();
}
