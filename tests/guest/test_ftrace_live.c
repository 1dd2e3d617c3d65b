/*
 * test_ftrace_live.c — live switching under fire (suite `ftrace`): ops come
 * and go on functions other CPUs call without pause, and every call is
 * checked on its own against what was attached around it; the quick run
 * does 40 rounds, live_switching_many_rounds (bt.test_slow) does
 * bt.live_rounds= of them.  The rule, the brackets and why they are sound
 * are below.  The ops core's cases are test_ftrace.c's; ft_leaf, which the
 * migrant calls: ftrace_harness.h.
 *
 * ft_hot and ft_fire are this file's traced targets; noinline and an empty
 * asm keep every call a real call.
 */
#include <stdlib.h>
#include <string.h>

#include "boot/clock.h"
#include "boot/cmdline.h"
#include "boot/console.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "patch/tramp.h"
#include "tests/guest/ftrace_harness.h"
#include "trace/core/ftrace.h"
#include "trace/core/records.h"

#define T __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")

T int ft_hot(int x) { KEEP(); return x ^ 1; }
T int ft_fire(int x) { KEEP(); return x + 7; }

/*
 * Callers on every other CPU call ft_hot and ft_fire without pause while
 * this CPU moves three ops through single -> several -> regs -> several ->
 * single -> none, round after round.  Every call is checked on its own:
 *
 * `epoch` is raised (SEQ_CST) right before and right after each
 * register/unregister call, so an even epoch 2j means "transition j done,
 * the next not begun" (the attached set is set_after(j)) and an odd one
 * "transition j+1 running".  A caller reads the epoch (e0), its own CPU's
 * hit slot of each ops, makes the call, reads the slots and the epoch (e1)
 * again.  An ops attached at every epoch in [e0, e1] -- in a transition,
 * attached both before and after it -- must have seen this call exactly
 * once; one attached at none of them, never; any other (its own
 * registration or unregistration overlapped the call) once or not at all.
 * That is the rule: a callback sees only calls made while it was
 * attached, all of them, however the site's target changes underneath.
 *
 * Why the brackets are sound: register/unregister return only after every
 * CPU has synchronised (patch_apply's syncs), so a caller that reads the
 * epoch after a registration's return fetches the site's new instructions;
 * the unregistration writes text only after its epoch store, so a call
 * whose e1 still reads the old epoch ran before the site changed.  The
 * fences keep the slot reads inside the bracket.  Callers are pinned (one
 * per CPU), so a CPU's slot counts only its caller's calls; the migrant
 * calls ft_leaf only, counted apart.
 */
enum { NFOPS = 3 };
/* set_after(j) = round_sets[j % 6]: reg 0, reg 1, reg 2 (SAVE_REGS), then
 * unreg 2, unreg 1, unreg 0 (bit k: fops[k] attached). */
static const unsigned round_sets[6] = { 0, 1, 3, 7, 3, 1 };
#define ROUND_EPOCHS 12

struct fire_ops {
	struct ftrace_ops ops;
	struct {
		unsigned long n;                  /* atomic; written on its CPU only */
	} __attribute__((aligned(64))) hits[MAX_CPUS];
	unsigned long leaf_hits;              /* atomic */
	unsigned long bad;                    /* atomic: wrong ip/parent, or another function */
};
static struct fire_ops fops[NFOPS];

static unsigned long epoch;                   /* atomic, SEQ_CST */
static int fire_quit;                         /* atomic */

/* What one caller saw; its own until joined. */
struct fire_caller {
	unsigned cpu;
	unsigned long calls;                  /* atomic (main polls it) */
	unsigned long sure[NFOPS], boundary[NFOPS], boundary_seen[NFOPS];
	unsigned long wrong;                  /* calls that broke the rule */
	/* the first wrong call */
	unsigned long w_e0, w_e1, w_delta;
	int w_ops;
	const char *w_fn;
};

static void fire_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		    struct ftrace_regs *fregs)
{
	struct fire_ops *f = (struct fire_ops *)op;
	if (ip == (uintptr_t)ft_leaf) {
		__atomic_fetch_add(&f->leaf_hits, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&f->hits[cpu_id()].n, 1, __ATOMIC_RELAXED);
	if ((ip != (uintptr_t)ft_hot && ip != (uintptr_t)ft_fire) ||
	    ftrace_regs_get_instruction_pointer(fregs) != ip ||
	    ftrace_regs_get_return_address(fregs) != parent)
		__atomic_fetch_add(&f->bad, 1, __ATOMIC_RELAXED);
}

/* Which ops are attached throughout [e0, e1] (sure) and at some point of it
 * (maybe).  A span of a whole round or more has every state in it. */
static void attached_in(unsigned long e0, unsigned long e1, unsigned *sure, unsigned *maybe)
{
	unsigned s = (1u << NFOPS) - 1, m = 0;
	unsigned long span = e1 - e0 < ROUND_EPOCHS ? e1 - e0 : ROUND_EPOCHS;
	for (unsigned long e = e0; e <= e0 + span; e++) {
		unsigned before = round_sets[(e / 2) % 6];
		unsigned after = (e & 1) ? round_sets[(e / 2 + 1) % 6] : before;
		s &= before & after;
		m |= before | after;
	}
	*sure = s;
	*maybe = m;
}

/* One bracketed call of fn (ft_hot or ft_fire), checked as above. */
static void fire_one(struct fire_caller *me, int (*fn)(int), const char *name, int arg)
{
	unsigned long before[NFOPS], e0, e1;
	e0 = __atomic_load_n(&epoch, __ATOMIC_SEQ_CST);
	for (int k = 0; k < NFOPS; k++)
		before[k] = __atomic_load_n(&fops[k].hits[me->cpu].n, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	fn(arg);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	e1 = __atomic_load_n(&epoch, __ATOMIC_SEQ_CST);
	unsigned sure, maybe;
	attached_in(e0, e1, &sure, &maybe);
	for (int k = 0; k < NFOPS; k++) {
		unsigned long d = __atomic_load_n(&fops[k].hits[me->cpu].n, __ATOMIC_RELAXED) - before[k];
		bool ok;
		if (sure & (1u << k)) {
			me->sure[k]++;
			ok = d == 1;
		} else if (maybe & (1u << k)) {
			me->boundary[k]++;
			me->boundary_seen[k] += d;
			ok = d <= 1;
		} else {
			ok = d == 0;
		}
		if (!ok && me->wrong++ == 0) {
			me->w_e0 = e0;
			me->w_e1 = e1;
			me->w_delta = d;
			me->w_ops = k;
			me->w_fn = name;
		}
	}
	__atomic_fetch_add(&me->calls, 1, __ATOMIC_RELAXED);
}

static int fire_thread(void *arg)
{
	struct fire_caller *me = arg;
	me->cpu = cpu_id();                   /* pinned: it stays */
	for (int i = 0; !__atomic_load_n(&fire_quit, __ATOMIC_RELAXED); i++) {
		fire_one(me, ft_hot, "ft_hot", i);
		for (int j = 0; j < 4; j++)
			fire_one(me, ft_fire, "ft_fire", j);
	}
	return 0;
}

/* Calls ft_leaf while hopping between CPUs (and being preempted), so
 * trampolines are entered on every CPU by a thread that moves. */
static int migrant_thread(void *arg)
{
	unsigned long i = 0;
	while (!__atomic_load_n(&fire_quit, __ATOMIC_RELAXED)) {
		ft_leaf((int)i);
		if (++i % 64 == 0)
			thread_migrate(current_thread(), (int)((i / 64) % ncpus));
	}
	thread_migrate(current_thread(), -1);
	return 0;
}

/* Wait until every caller has made `n` more calls (so each stable state and
 * each transition is met by calls).  False after 5 s of guest time: a
 * caller is stuck. */
static bool callers_advance(struct fire_caller *c, unsigned n, unsigned long more)
{
	unsigned long from[MAX_CPUS];
	for (unsigned i = 0; i < n; i++)
		from[i] = __atomic_load_n(&c[i].calls, __ATOMIC_RELAXED);
	uint64_t end = clock_ns() + 5000000000ull;
	for (unsigned i = 0; i < n; i++)
		while (__atomic_load_n(&c[i].calls, __ATOMIC_RELAXED) - from[i] < more) {
			if (clock_ns() > end)
				return false;
			arch_cpu_relax();
		}
	return true;
}

/* One transition: the epoch odd around the call, even after it. */
static int fire_switch(int k, bool attach)
{
	__atomic_add_fetch(&epoch, 1, __ATOMIC_SEQ_CST);
	int err = attach ? register_ftrace_function(&fops[k].ops)
			 : unregister_ftrace_function(&fops[k].ops);
	__atomic_add_fetch(&epoch, 1, __ATOMIC_SEQ_CST);
	return err;
}

/* `rounds` rounds of six transitions.  Each costs a few IPI rounds (about
 * 0.3 s a round under TCG with 4 vCPUs on 2 host cores): the quick run does
 * 40; bt.test_slow adds a run of bt.live_rounds= (default 180, which keeps
 * the whole slow ftrace run, as `make test` runs it, under a minute; 1000
 * take about 5 minutes). */
static unsigned live_rounds = 180;

static int opt_live_rounds(const char *v)
{
	char *end;
	unsigned long n = v ? strtoul(v, &end, 10) : 0;
	if (!v || !*v || *end || n == 0 || n > 100000)
		return -1;
	live_rounds = (unsigned)n;
	return 0;
}
BT_PARAM("bt.live_rounds", opt_live_rounds, "rounds of ftrace/live_switching_many_rounds");

static void live_switching(unsigned rounds);

TEST_CASE(ftrace, live_switching_under_fire)
{
	live_switching(40);
}

TEST_CASE_FLAGS(ftrace, live_switching_many_rounds, TEST_SLOW)
{
	live_switching(live_rounds);
}

static void live_switching(unsigned rounds)
{
	static struct fire_caller callers[MAX_CPUS];
	unsigned n = ncpus - 1;
	if (n == 0)
		TEST_SKIP("needs a second CPU");
	for (int k = 0; k < NFOPS; k++) {
		memset(&fops[k], 0, sizeof(fops[k]));
		fops[k].ops.func = fire_cb;
		ASSERT_EQ(ftrace_set_filter(&fops[k].ops, "ft_hot ft_fire ft_leaf", true), 0);
	}
	fops[2].ops.flags = FTRACE_OPS_FL_SAVE_REGS;
	memset(callers, 0, sizeof(callers));
	__atomic_store_n(&epoch, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&fire_quit, 0, __ATOMIC_SEQ_CST);
	struct thread *t[MAX_CPUS];
	for (unsigned i = 0; i < n; i++)
		t[i] = thread_create("fire", fire_thread, &callers[i], (int)(i + 1));
	struct thread *migrant = thread_create("migrant", migrant_thread, NULL, -1);
	struct tramp_stats ts0, ts1;
	tramp_get_stats(&ts0);
	uint64_t t0 = clock_ns();
	int err = 0;
	bool stuck = false;
	for (unsigned r = 0; r < rounds && !err && !stuck; r++) {
		for (int step = 0; step < 6 && !err && !stuck; step++) {
			/* Calls during the transition, then in the state it leaves. */
			err = step < 3 ? fire_switch(step, true) : fire_switch(5 - step, false);
			stuck = !callers_advance(callers, n, 2);
		}
	}
	uint64_t ms = (clock_ns() - t0) / 1000000;
	__atomic_store_n(&fire_quit, 1, __ATOMIC_SEQ_CST);
	for (unsigned i = 0; i < n; i++)
		thread_join(t[i]);
	thread_join(migrant);
	/* Leave nothing attached whatever happened above. */
	for (int k = 0; k < NFOPS; k++)
		if (fops[k].ops.flags & FTRACE_OPS_FL_ENABLED)
			unregister_ftrace_function(&fops[k].ops);
	EXPECT_EQ(err, 0);
	EXPECT_TRUE(!stuck);
	unsigned long wrong = 0, calls = 0;
	for (unsigned i = 0; i < n; i++) {
		struct fire_caller *c = &callers[i];
		calls += c->calls;
		wrong += c->wrong;
		if (c->wrong)
			kprintf("    # CPU %u: %lu wrong calls; the first: %s, epochs %lu..%lu "
				"(odd: a switch running), ops %d saw it %lu times\n", c->cpu,
				c->wrong, c->w_fn, c->w_e0, c->w_e1, c->w_ops, c->w_delta);
	}
	EXPECT_EQ(wrong, 0);
	/* Every hit an ops got is a call some caller counted: the calls made
	 * while it was attached throughout, plus those of its own boundaries
	 * that reached it. */
	for (int k = 0; k < NFOPS; k++) {
		unsigned long hits = 0, sure = 0, boundary = 0, seen = 0;
		for (unsigned c = 0; c < MAX_CPUS; c++)
			hits += fops[k].hits[c].n;
		for (unsigned i = 0; i < n; i++) {
			sure += callers[i].sure[k];
			boundary += callers[i].boundary[k];
			seen += callers[i].boundary_seen[k];
		}
		kprintf("    # ops %d: %lu hits = %lu calls while attached + %lu of %lu at its "
			"own switches\n", k, hits, sure, seen, boundary);
		EXPECT_EQ(hits, sure + seen);
		EXPECT_TRUE(sure > 0);
		EXPECT_EQ(fops[k].bad, 0);
	}
	kprintf("    # %u rounds, %lu calls on %u CPUs, %lu ms\n", rounds, calls, n,
		(unsigned long)ms);
	EXPECT_TRUE(fops[0].leaf_hits > 0);
	ftrace_reclaim_trampolines();
	tramp_get_stats(&ts1);
	/* Trampolines were freed and reused many times; none is left in use. */
	EXPECT_TRUE(ts1.reclaimed > ts0.reclaimed);
	EXPECT_EQ(ts1.used, 0);
	EXPECT_EQ(rec_find((uintptr_t)ft_hot)->flags, 0);
}
