/*
 * test_xray.c — the XRay backend's sleds (INSTR=xray only: mk/xray.mk
 * links this file; suite `xray`, and `xray_refuse`, run only when named:
 * it kills tracing).
 *
 * The record table covers every sled (each function's exit and tail sleds
 * found from its record, inside the function), every sled holds what its
 * record's state says, a function's sleds are enabled and disabled
 * together while three other CPUs run through them, and a sled whose
 * bytes are not what the table says is refused with nothing written
 * (`xray_refuse_func`, also manual: one whose way back to its function
 * leads elsewhere).
 *
 * xt_* are this file's traced targets; noinline and an empty asm keep
 * every call a real call, and xt_tail's call of xt_leaf is a tail call
 * (a jump: the case checks that its record has a tail sled).
 */
#include <errno.h>
#include <string.h>

#include "boot/ksyms.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "patch/patch.h"
#include "tests/guest/ftrace_harness.h"
#include "trace/core/ftrace.h"
#include "trace/core/records.h"

#define T __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")

T int xt_leaf(int x) { KEEP(); return x + 3; }
/* An exit (x > 100) and a tail call (else). */
T int xt_tail(int x) { KEEP(); if (x > 100) return x; return xt_leaf(x + 1); }
T int xt_refuse_other(int x) { KEEP(); if (x > 100) return x; return xt_leaf(x + 2); }
T int xt_refuse_target(int x) { KEEP(); if (x > 100) return x; return xt_leaf(x + 5); }

/* What sled d should hold: its handler's call when its record is on. */
static uintptr_t sled_target(const struct ftrace_rec *r, const struct ftrace_sled *d)
{
	if (!(r->flags & FREC_ENABLED))
		return 0;
	return d->kind == ARCH_SLED_EXIT ? (uintptr_t)__fexit__ : (uintptr_t)__ftail__;
}

/* Sleds (entry ones included) that do not hold their record's state; the
 * records DISABLED at boot aside. */
static unsigned sleds_astray(void)
{
	unsigned bad = 0, first, end;
	for (unsigned i = 0; i < ftrace_nrecs; i++) {
		const struct ftrace_rec *r = &ftrace_recs[i];
		if (r->flags & FREC_DISABLED)
			continue;
		if (!(r->flags & FREC_ENABLED) && !arch_site_holds(rec_ip(r), 0))
			bad++;
		if ((r->flags & FREC_ENABLED) && arch_site_holds(rec_ip(r), 0))
			bad++;
		rec_sleds(r, &first, &end);
		for (unsigned k = first; k < end; k++)
			bad += !arch_sled_holds(sled_ip(&ftrace_sleds[k]), sled_target(r, &ftrace_sleds[k]),
						ftrace_sleds[k].kind);
	}
	return bad;
}

/* xt_tail's sleds, each holding target 0 (off) or its handler (on). */
static bool xt_tail_sleds_are(bool on)
{
	const struct ftrace_rec *r = rec_find((uintptr_t)xt_tail);
	unsigned first, end;
	if (!r)
		return false;
	rec_sleds(r, &first, &end);
	for (unsigned k = first; k < end; k++) {
		const struct ftrace_sled *d = &ftrace_sleds[k];
		uintptr_t h = d->kind == ARCH_SLED_EXIT ? (uintptr_t)__fexit__ : (uintptr_t)__ftail__;
		if (!arch_sled_holds(sled_ip(d), on ? h : 0, d->kind))
			return false;
	}
	return first < end && arch_site_holds(rec_ip(r), 0) == !on;
}

TEST_CASE(xray, table_covers_every_sled)
{
	unsigned first, end, outside = 0, exits = 0, tails = 0, unsorted = 0;
	EXPECT_TRUE(ftrace_nrecs > 100);
	EXPECT_TRUE(ftrace_nsleds > ftrace_nrecs / 2);
	for (unsigned k = 1; k < ftrace_nsleds; k++)
		unsorted += ftrace_sleds[k].off <= ftrace_sleds[k - 1].off;
	EXPECT_EQ(unsorted, 0);
	unsigned seen = 0;
	for (unsigned i = 0; i < ftrace_nrecs; i++) {
		const struct ftrace_rec *r = &ftrace_recs[i];
		rec_sleds(r, &first, &end);
		seen += end - first;
		for (unsigned k = first; k < end; k++) {
			uintptr_t off, ip = sled_ip(&ftrace_sleds[k]);
			/* Inside the record's function by the symbol table. */
			if (!ksym_lookup(ip, &off, NULL) || ip - off != rec_ip(r) ||
			    rec_of_sled_search(ip) != r)
				outside++;
			exits += ftrace_sleds[k].kind == ARCH_SLED_EXIT;
			tails += ftrace_sleds[k].kind == ARCH_SLED_TAIL;
		}
	}
	EXPECT_EQ(seen, ftrace_nsleds);               /* every sled has its record */
	EXPECT_EQ(outside, 0);
	EXPECT_EQ(exits + tails, ftrace_nsleds);
	EXPECT_TRUE(exits > 0 && tails > 0);
	/* xt_tail: one entry, an exit and a tail sled, found from its record. */
	const struct ftrace_rec *r = rec_find((uintptr_t)xt_tail);
	ASSERT_TRUE(r != NULL);
	rec_sleds(r, &first, &end);
	unsigned te = 0, tt = 0;
	for (unsigned k = first; k < end; k++) {
		te += ftrace_sleds[k].kind == ARCH_SLED_EXIT;
		tt += ftrace_sleds[k].kind == ARCH_SLED_TAIL;
		unsigned kind = 99;
		EXPECT_TRUE(rec_sled_at(sled_ip(&ftrace_sleds[k]), &kind) && kind == ftrace_sleds[k].kind);
		EXPECT_TRUE(arch_sled_func(sled_ip(&ftrace_sleds[k])) == rec_ip(r));
		EXPECT_TRUE(rec_of_sled_search(sled_ip(&ftrace_sleds[k])) == r);
	}
	EXPECT_TRUE(te >= 1);
	EXPECT_TRUE(tt >= 1);
	unsigned kind;
	EXPECT_TRUE(!rec_sled_at(rec_ip(r), &kind));  /* the entry is the record's */
	EXPECT_TRUE(rec_of_sled_search(rec_ip(r)) == NULL);
	EXPECT_TRUE(rec_of_sled_search(rec_ip(r) + 1) == NULL);
	EXPECT_EQ(xt_tail(1), 5);
	EXPECT_EQ(xt_tail(200), 200);
}

/*
 * The handlers' O(1) lookup (arch_sled_func: the function's address that
 * boot wrote into each exit and tail sled) gives, for every
 * sled of the image whose function boot initialised, the function of the
 * record that the two binary searches give, and that record is the one
 * whose sleds hold it.
 */
TEST_CASE(xray, sled_function_is_its_record)
{
	unsigned first, end, checked = 0, wrong = 0;
	for (unsigned i = 0; i < ftrace_nrecs; i++) {
		const struct ftrace_rec *r = &ftrace_recs[i];
		if (r->flags & FREC_DISABLED)
			continue;           /* its sleds may never have been written */
		rec_sleds(r, &first, &end);
		for (unsigned k = first; k < end; k++) {
			uintptr_t ip = sled_ip(&ftrace_sleds[k]);
			wrong += arch_sled_func(ip) != rec_ip(r) || rec_of_sled_search(ip) != r;
			checked++;
		}
	}
	EXPECT_EQ(wrong, 0);
	EXPECT_TRUE(checked > ftrace_nsleds / 2);
}

TEST_CASE(xray, every_sled_holds_its_state)
{
	EXPECT_EQ(sleds_astray(), 0);
	EXPECT_TRUE(xt_tail_sleds_are(false));
}

/* Callers on the other CPUs: xt_tail without pause, every result checked. */
static unsigned long xt_stop, xt_calls, xt_wrong;   /* atomic */

static int xt_caller(void *arg)
{
	unsigned long calls = 0, wrong = 0;
	int x = (int)(uintptr_t)arg;
	while (!__atomic_load_n(&xt_stop, __ATOMIC_ACQUIRE)) {
		wrong += xt_tail(x) != x + 4;
		wrong += xt_tail(x + 200) != x + 200;
		calls += 2;
	}
	__atomic_fetch_add(&xt_calls, calls, __ATOMIC_RELAXED);
	__atomic_fetch_add(&xt_wrong, wrong, __ATOMIC_RELAXED);
	return 0;
}

/*
 * 40 switches of xt_tail's sleds, on and off, with three other CPUs
 * running through them: after each, all its sleds hold the same state
 * (on: the entry calls the ops, the exit and tail sleds their handlers),
 * the callers never get a wrong result, and a call made here is counted
 * exactly once while on; at the end every sled of the table holds its
 * state.
 */
TEST_CASE(xray, sleds_switch_together_under_fire)
{
	struct thread *t[MAX_CPUS];
	unsigned n = 0;
	__atomic_store_n(&xt_stop, 0, __ATOMIC_RELAXED);
	xt_calls = xt_wrong = 0;
	for (unsigned c = 1; c < ncpus && c < 4; c++)
		t[n++] = thread_create("xt_caller", xt_caller, (void *)(uintptr_t)(c * 10), (int)c);
	static struct counter k;
	unsigned bad_on = 0, bad_off = 0, miscounted = 0;
	for (unsigned round = 0; round < 40; round++) {
		counter_init(&k, "xt_tail");
		ASSERT_EQ(register_ftrace_function(&k.ops), 0);
		bad_on += !xt_tail_sleds_are(true);
		unsigned long before = __atomic_load_n(&k.hits, __ATOMIC_RELAXED);
		(void)xt_tail(7);
		miscounted += __atomic_load_n(&k.hits, __ATOMIC_RELAXED) < before + 1;
		ASSERT_EQ(unregister_ftrace_function(&k.ops), 0);
		bad_off += !xt_tail_sleds_are(false);
	}
	__atomic_store_n(&xt_stop, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < n; i++)
		thread_join(t[i]);
	EXPECT_EQ(bad_on, 0);
	EXPECT_EQ(bad_off, 0);
	EXPECT_EQ(miscounted, 0);
	EXPECT_EQ(xt_wrong, 0);
	EXPECT_TRUE(n == 0 || xt_calls > 0);
	/* Quiet: exact counts, the tail callee not counted (not filtered). */
	counter_init(&k, "xt_tail");
	ASSERT_EQ(register_ftrace_function(&k.ops), 0);
	for (int i = 0; i < 10; i++)
		EXPECT_EQ(xt_tail(i), i + 4);
	EXPECT_EQ(k.hits, 10);
	EXPECT_EQ(k.leaf_hits, 0);
	ASSERT_EQ(unregister_ftrace_function(&k.ops), 0);
	EXPECT_EQ(xt_tail(1), 5);
	EXPECT_EQ(k.hits, 10);
	EXPECT_EQ(sleds_astray(), 0);
}

/* The first exit sled of func, or 0. */
static uintptr_t exit_sled_of(uintptr_t func)
{
	const struct ftrace_rec *r = rec_find(func);
	unsigned first, end;
	if (!r)
		return 0;
	rec_sleds(r, &first, &end);
	for (unsigned k = first; k < end; k++)
		if (ftrace_sleds[k].kind == ARCH_SLED_EXIT)
			return sled_ip(&ftrace_sleds[k]);
	return 0;
}

/* Switching xt_refuse_target and xt_refuse_other on (c counts them) is
 * refused (EILSEQ), tracing killed, xt_refuse_target DISABLED, and
 * nothing written: both entry sleds and xt_refuse_other's exit sled are
 * off, and xt_refuse_other runs untraced. */
static void update_is_refused(struct counter *c)
{
	counter_init(c, "xt_refuse_target xt_refuse_other");
	EXPECT_EQ(register_ftrace_function(&c->ops), -EILSEQ);
	EXPECT_TRUE(ftrace_is_dead());
	EXPECT_TRUE(rec_find((uintptr_t)xt_refuse_target)->flags & FREC_DISABLED);
	EXPECT_TRUE(arch_site_holds((uintptr_t)xt_refuse_target, 0));
	EXPECT_TRUE(arch_site_holds((uintptr_t)xt_refuse_other, 0));
	EXPECT_TRUE(arch_sled_holds(exit_sled_of((uintptr_t)xt_refuse_other), 0, ARCH_SLED_EXIT));
	EXPECT_EQ(xt_refuse_other(1), 6);
	EXPECT_EQ(c->hits, 0);
}

/*
 * An exit sled made to call __fexit__ behind the records' back: patch_apply
 * refuses a batch that says it is off, and the update that would switch
 * its function on refuses (EILSEQ), kills tracing naming the function
 * (tests/checks/checks_xray.py reads the line), and writes nothing: the other
 * function's sleds and the target's entry sled stay off.
 */
TEST_CASE_FLAGS(xray_refuse, corrupt_sled_is_refused, TEST_MANUAL)
{
	uintptr_t f = (uintptr_t)xt_refuse_target, s = exit_sled_of(f);
	uint8_t bad[ARCH_SITE_SIZE];
	ASSERT_TRUE(s != 0);
	ASSERT_TRUE((uintptr_t)xt_refuse_other < f);
	ASSERT_EQ(arch_site_encode(s, (uintptr_t)__fexit__, bad), 0);
	arch_text_poke((void *)s, bad, ARCH_SITE_SIZE);
	patch_sync_cores();
	struct patch_site p = { .func = s, .old_target = 0, .new_target = (uintptr_t)__fexit__,
				.kind = ARCH_SLED_EXIT };
	unsigned badi = 99;
	EXPECT_EQ(patch_apply(&p, 1, &badi), -EILSEQ);
	EXPECT_EQ(badi, 0);
	static struct counter c;
	update_is_refused(&c);
	EXPECT_EQ(memcmp((void *)s, bad, ARCH_SITE_SIZE), 0);
}

/*
 * An exit sled whose way back to its function (the bytes boot wrote for
 * the handler, arch_sled_func) leads to another function: the update that
 * would switch its function on refuses (EILSEQ), kills tracing naming the
 * sled's function (tests/checks/checks_xray.py reads the line), and
 * writes nothing.
 */
TEST_CASE_FLAGS(xray_refuse_func, sled_function_word_is_refused, TEST_MANUAL)
{
	uintptr_t f = (uintptr_t)xt_refuse_target, s = exit_sled_of(f);
	const struct ftrace_rec *other = rec_find((uintptr_t)xt_refuse_other);
	ASSERT_TRUE(s != 0 && other != NULL);
	ASSERT_TRUE(arch_sled_func(s) == f);
	/* The other function's address, as boot writes a sled's (patch.c). */
	uint32_t bad = (uint32_t)rec_ip(other);
	arch_text_poke((void *)(s + ARCH_SLED_FUNC_OFF), &bad, sizeof(bad));
	patch_sync_cores();
	ASSERT_TRUE(arch_sled_func(s) == rec_ip(other));
	static struct counter c;
	update_is_refused(&c);
	EXPECT_TRUE(arch_sled_holds(s, 0, ARCH_SLED_EXIT));
	EXPECT_EQ(xt_refuse_target(1), 9);
}

