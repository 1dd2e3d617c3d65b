/*
 * ftrace_selftest.c — the arm64 tracing hooks on their own, below the
 * generic core: sites, text poking, trampolines, the live protocol on SMP.
 * The cases both arches share (an ops trampoline's view, the direct
 * trampolines) are tests/guest/test_arch_ftrace.c's, over the site and
 * caller of ftrace_selftest.S that arch/tests.h declares.
 *
 *   bt.test=arch_ftrace            the checks (quick; also run by "all")
 *   bt.test=arch_ftrace_cost       instructions per traced call, printed as
 *                                  KTAP diagnostics; meaningful under ICOUNT=1
 *
 * The traced functions are the hand-made sites of ftrace_selftest.S, which
 * the record table does not know, so these tests drive arch_patch_sites()
 * directly (as patch_apply() would after validating).  Trampolines go into
 * the last slots of the pool, which the allocator hands out last; each test
 * checks they hold the trap fill first and puts it back afterwards.
 * Run in thread context, one test at a time, like every suite.
 */
#include <errno.h>
#include <string.h>

#include "arch/hooks.h"
#include "arch/tests.h"
#include "boot/clock.h"
#include "boot/console.h"
#include "boot/fault.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "insn.h"
#include "mmu.h"
#include "patch/patch.h"
#include "patch/tramp.h"
#include "trace/core/ftrace.h"
#include "tests/guest/trace_seen.h"

/* ftrace_selftest.S */
long arm64_st_int3(long a, long b, long c);
long arm64_st_alt(long a, long b, long c);
void arm64_st_args8(void);
void arm64_st_fp8(void);
void arm64_st_bad(void);
long arm64_st_call_int3(long a, long b, long c);
long arm64_st_call_args8(const long v[9]);
long arm64_st_call_fp8(const long v[8]);
void arm64_st_clobber_fp(void);
extern char arm64_st_call_int3_ret[];

extern const uintptr_t __sites_start[], __sites_end[];

/* Until patch/patch.c is linked: the same context synchronisation. */
__attribute__((weak)) void patch_sync_cores(void)
{
	smp_sync_all();
}

/* ---- sites the tests own ---- */

struct st_site {
	uintptr_t func;
	uintptr_t target, data;        /* current state */
	bool ready;
};

static struct st_site s_int3 = { (uintptr_t)arm64_st_int3 };
static struct st_site s_args8 = { (uintptr_t)arm64_st_args8 };
static struct st_site s_fp8 = { (uintptr_t)arm64_st_fp8 };

/* Initialise once per boot; false (and a failure) if that did not work. */
static bool site_ready(struct st_site *s)
{
	if (!s->ready) {
		int err = arch_site_init(s->func, (uintptr_t)&ftrace_list_ops);
		if (err) {
			test_fail(__FILE__, __LINE__, "arch_site_init(%lx) = %d", (unsigned long)s->func, err);
			return false;
		}
		s->ready = true;
	}
	return true;
}

static bool site_is(const struct st_site *s, uintptr_t target, uintptr_t data)
{
	uint8_t want[ARCH_SITE_SIZE];
	return arch_site_encode(s->func, target, want) == 0 &&
	       memcmp((const void *)s->func, want, ARCH_SITE_SIZE) == 0 &&
	       arch_site_data(s->func) == data;
}

static void site_set(struct st_site *s, uintptr_t target, uintptr_t data)
{
	struct patch_site p = { s->func, s->target, target, s->data, data };
	arch_patch_sites(&p, 1);
	s->target = target;
	s->data = data;
}

/* ---- pool slots the tests borrow ---- */

static uintptr_t test_slot(unsigned k)
{
	return (uintptr_t)__tramp_pool_end - (k + 1) * (uintptr_t)ARCH_TRAMP_SIZE;
}

static bool slot_is_trap_fill(uintptr_t slot)
{
	for (unsigned i = 0; i < ARCH_TRAMP_SIZE / 4; i++)
		if (((const uint32_t *)slot)[i] != INSN_TRAMP_POISON)
			return false;
	return true;
}

static void slot_refill(uintptr_t slot)
{
	static uint8_t traps[ARCH_TRAMP_SIZE];
	arch_tramp_poison(traps, sizeof(traps));
	arch_text_poke((void *)slot, traps, sizeof(traps));
	patch_sync_cores();
}

static bool slot_build(uintptr_t slot, struct ftrace_ops *op, bool regs)
{
	uint8_t buf[ARCH_TRAMP_SIZE];
	int len = arch_tramp_build(buf, slot, op, (void *)op->call,
				   regs ? ARCH_TRAMP_REGS : ARCH_TRAMP_ARGS);
	if (len <= 0 || len > ARCH_TRAMP_SIZE)
		return false;
	arch_text_poke((void *)slot, buf, (size_t)len);
	patch_sync_cores();
	return true;
}

/* ---- a recording callback ---- */

static struct {
	struct trace_seen c;           /* what every callback records */
	uintptr_t x8;
	struct pt_regs saved;          /* *c.regs, when there is one */
} seen;

static bool cb_clobber_fp, cb_redirect;
static long cb_set_arg0 = -1;

static void record_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		      struct ftrace_regs *f)
{
	trace_seen_record(&seen.c, ip, parent, op, f);
	seen.x8 = f->r.regs[8];
	if (seen.c.regs)
		seen.saved = *seen.c.regs;
	if (cb_clobber_fp)
		arm64_st_clobber_fp();
	if (cb_set_arg0 >= 0)
		f->r.regs[0] = (uint64_t)cb_set_arg0;
	if (cb_redirect && seen.c.regs)
		seen.c.regs->pc = (uintptr_t)arm64_st_alt;
}

static struct ftrace_ops rec_ops = { .call = record_cb, .regs_call = record_cb, .func = record_cb };

static void seen_reset(void)
{
	memset(&seen, 0, sizeof(seen));
	cb_clobber_fp = cb_redirect = false;
	cb_set_arg0 = -1;
}

/* ---- tests ---- */

TEST_CASE(arch_ftrace, compiled_sites_are_aligned)
{
	ARCH_FTRACE_FENTRY_SITES();
	unsigned n = (unsigned)(__sites_end - __sites_start), misaligned = 0, odd = 0;
	for (unsigned i = 0; i < n; i++) {
		uintptr_t func = arch_site_func(__sites_start[i]);
		const uint32_t *w = (const uint32_t *)func;
		if (func & 7)
			misaligned++;
		else if (!(w[0] == INSN_NOP || w[0] == INSN_MOV_X9_X30) ||
			 !(w[1] == INSN_NOP || (w[1] & 0xfc000000u) == INSN_BL))
			odd++;
	}
	EXPECT_TRUE(n > 0);
	EXPECT_EQ(misaligned, 0);
	EXPECT_EQ(odd, 0);
}

TEST_CASE(arch_ftrace, site_init_and_encode)
{
	ARCH_FTRACE_FENTRY_SITES();
	uintptr_t f = s_int3.func;
	const uint32_t *w = (const uint32_t *)(f - 8);
	uint32_t enc[2];

	EXPECT_EQ(arch_site_func(f - 8), f);
	ASSERT_TRUE(!s_int3.ready);
	for (unsigned i = 0; i < 4; i++)
		EXPECT_EQ(w[i], INSN_NOP);
	ASSERT_TRUE(site_ready(&s_int3));
	EXPECT_EQ(arch_site_data(f), (uintptr_t)&ftrace_list_ops);
	EXPECT_EQ(w[2], INSN_MOV_X9_X30);
	EXPECT_EQ(w[3], INSN_NOP);
	EXPECT_EQ(arch_site_init(f, 0), -EILSEQ);         /* no longer as compiled */
	EXPECT_EQ(arm64_st_int3(1, 2, 3), 123);

	/* Refused, and left alone: bytes altered, literal misaligned. */
	uint32_t bad[4];
	memcpy(bad, (const void *)((uintptr_t)arm64_st_bad - 8), sizeof(bad));
	EXPECT_EQ(arch_site_init((uintptr_t)arm64_st_bad, 0), -EILSEQ);
	EXPECT_EQ(memcmp(bad, (const void *)((uintptr_t)arm64_st_bad - 8), sizeof(bad)), 0);
	EXPECT_EQ(arch_site_init(s_args8.func + 4, 0), -EILSEQ);

	EXPECT_EQ(arch_site_encode(f, 0, (uint8_t *)enc), 0);
	EXPECT_EQ(enc[0], INSN_MOV_X9_X30);
	EXPECT_EQ(enc[1], INSN_NOP);
	uintptr_t t = (uintptr_t)arch_ftrace_list_caller;
	EXPECT_EQ(arch_site_encode(f, t, (uint8_t *)enc), 0);
	EXPECT_EQ(enc[1], INSN_BL | (((t - (f + 4)) >> 2) & INSN_IMM26_MASK));
	/* BL reach from f + 4: [-128 MiB, +128 MiB - 4]. */
	EXPECT_EQ(arch_site_encode(f, f + 4 - (128ul << 20), (uint8_t *)enc), 0);
	EXPECT_EQ(arch_site_encode(f, f + 4 + (128ul << 20) - 4, (uint8_t *)enc), 0);
	EXPECT_EQ(arch_site_encode(f, f + 4 + (128ul << 20), (uint8_t *)enc), -ERANGE);
	EXPECT_EQ(arch_site_encode(f, f + 4 - (128ul << 20) - 4, (uint8_t *)enc), -ERANGE);
}

static void write_byte(void *p) { *(volatile uint8_t *)p = 0; }
static void read_byte(void *p) { (void)*(volatile uint8_t *)p; }
static void call_code(void *p) { ((void (*)(void))p)(); }

TEST_CASE(arch_ftrace, text_poke_wx)
{
	uintptr_t slot = test_slot(0);
	struct fault_info fi;
	ASSERT_TRUE(slot_is_trap_fill(slot));

	/* Text stays read-only; the alias is gone after the poke. */
	EXPECT_EQ(fault_catch(write_byte, (void *)slot, &fi), 1);
	EXPECT_EQ(fi.kind, FAULT_WRITE);
	static const uint32_t ret42[] = { 0xd2800540u /* mov x0, #42 */, 0xd65f03c0u /* ret */ };
	arch_text_poke((void *)slot, ret42, sizeof(ret42));
	EXPECT_EQ(((long (*)(void))slot)(), 42);
	unsigned readable = 0;
	for (unsigned i = 0; i < FIXMAP_SLOTS; i++)
		if (!fault_catch(read_byte, (void *)(FIXMAP_VA + i * 4096ull), &fi) ||
		    fi.kind != FAULT_READ)
			readable++;
	EXPECT_EQ(readable, 0);

	/* Unaligned and page-crossing copies land intact. */
	uint8_t pattern[37];
	for (unsigned i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + 1);
	arch_text_poke((void *)(slot + 3), pattern, sizeof(pattern));
	EXPECT_EQ(memcmp((const void *)(slot + 3), pattern, sizeof(pattern)), 0);

	/* The trap fill names itself when executed. */
	slot_refill(slot);
	EXPECT_TRUE(slot_is_trap_fill(slot));
	EXPECT_EQ(fault_catch(call_code, (void *)slot, &fi), 1);
	EXPECT_EQ(fi.kind, FAULT_UNDEF);
	EXPECT_TRUE(strstr(fi.what, "trampoline") != NULL);
}

TEST_CASE(arch_ftrace, all_argument_registers_survive)
{
	ARCH_FTRACE_FENTRY_SITES();
	static const long v[9] = { 11, 22, 33, 44, 55, 66, 77, 88, 9 };
	static const long d[8] = { 1, -2, 3, -4, 5, -6, 7, 100 };
	long want8 = 9000, wantfp = 36;               /* 2 * sum (i+1) * 0.5 */
	for (unsigned i = 0; i < 8; i++) {
		want8 += (long)(i + 1) * v[i];
		wantfp += 2 * (long)(i + 1) * d[i];
	}
	uintptr_t slot = test_slot(0);
	ASSERT_TRUE(site_ready(&s_args8) && site_ready(&s_fp8) && site_ready(&s_int3) &&
		    slot_is_trap_fill(slot));
	ASSERT_TRUE(slot_build(slot, &rec_ops, false));
	EXPECT_EQ(arm64_st_call_args8(v), want8);
	EXPECT_EQ(arm64_st_call_fp8(d), wantfp);

	/* What the callback writes in an argument register is what the
	 * function gets. */
	seen_reset();
	site_set(&s_int3, slot, (uintptr_t)&rec_ops);
	cb_set_arg0 = 5;
	EXPECT_EQ(arm64_st_call_int3(1, 2, 3), 523);
	cb_set_arg0 = -1;
	EXPECT_EQ(arm64_st_call_int3(1, 2, 3), 123);
	EXPECT_EQ(seen.c.hits, 2);
	site_set(&s_int3, 0, (uintptr_t)&rec_ops);

	seen_reset();
	cb_clobber_fp = true;
	site_set(&s_args8, slot, (uintptr_t)&rec_ops);
	site_set(&s_fp8, slot, (uintptr_t)&rec_ops);
	EXPECT_EQ(arm64_st_call_args8(v), want8);
	EXPECT_EQ(seen.c.hits, 1);
	for (unsigned i = 0; i < 8; i++)
		EXPECT_EQ(seen.c.arg[i], v[i]);
	EXPECT_EQ(seen.x8, v[8]);
	EXPECT_EQ(arm64_st_call_fp8(d), wantfp);          /* v0-v7 clobbered by the callback */
	EXPECT_EQ(seen.c.hits, 2);

	/* The same through the regs variant and the list caller. */
	ASSERT_TRUE(slot_build(slot, &rec_ops, true));
	EXPECT_EQ(arm64_st_call_args8(v), want8);
	EXPECT_EQ(arm64_st_call_fp8(d), wantfp);
	site_set(&s_fp8, (uintptr_t)arch_ftrace_list_caller, (uintptr_t)&rec_ops);
	EXPECT_EQ(arm64_st_call_fp8(d), wantfp);
	EXPECT_EQ(seen.c.hits, 5);

	site_set(&s_args8, 0, (uintptr_t)&rec_ops);
	site_set(&s_fp8, 0, (uintptr_t)&rec_ops);
	slot_refill(slot);
}

TEST_CASE(arch_ftrace, regs_trampoline)
{
	ARCH_FTRACE_FENTRY_SITES();
	uintptr_t slot = test_slot(0), f = s_int3.func;
	ASSERT_TRUE(site_ready(&s_int3) && slot_is_trap_fill(slot));
	ASSERT_TRUE(slot_build(slot, &rec_ops, true));
	seen_reset();
	site_set(&s_int3, slot, (uintptr_t)&rec_ops);

	EXPECT_EQ(arm64_st_call_int3(1, 2, 3), 123);
	EXPECT_EQ(seen.c.hits, 1);
	ASSERT_TRUE(seen.c.regs != NULL);
	EXPECT_EQ(seen.saved.regs[0], 1);
	EXPECT_EQ(seen.saved.regs[1], 2);
	EXPECT_EQ(seen.saved.regs[2], 3);
	EXPECT_EQ(seen.saved.regs[29], arch_test_caller[1]);
	EXPECT_EQ(seen.saved.regs[30], (uintptr_t)arm64_st_call_int3_ret);
	EXPECT_EQ(seen.saved.sp, arch_test_caller[0]);
	EXPECT_EQ(seen.saved.pc, f);
	EXPECT_EQ(seen.saved.pstate & 0xf, 5);            /* EL1h */
	EXPECT_EQ(seen.c.chain[1], f + 8);

	/* A SAVE_REGS callback moves the PC: the call runs st_alt instead. */
	cb_redirect = true;
	EXPECT_EQ(arm64_st_call_int3(1, 2, 3), -6);
	cb_redirect = false;
	EXPECT_EQ(arm64_st_call_int3(1, 2, 3), 123);

	/* The static regs caller takes the ops from the literal. */
	site_set(&s_int3, (uintptr_t)arch_ftrace_regs_list_caller, (uintptr_t)&rec_ops);
	seen_reset();
	EXPECT_EQ(arm64_st_call_int3(7, 8, 9), 789);
	EXPECT_EQ(seen.c.op, &rec_ops);
	EXPECT_TRUE(seen.c.regs != NULL);
	EXPECT_EQ(seen.saved.regs[2], 9);

	site_set(&s_int3, 0, (uintptr_t)&rec_ops);
	slot_refill(slot);
}

static unsigned long other_hits;
static void other_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		     struct ftrace_regs *f)
{
	other_hits++;
}
static struct ftrace_ops other_ops = { .call = other_cb, .regs_call = other_cb, .func = other_cb };

TEST_CASE(arch_ftrace, list_caller_uses_the_literal)
{
	ARCH_FTRACE_FENTRY_SITES();
	ASSERT_TRUE(site_ready(&s_int3));
	seen_reset();
	other_hits = 0;
	site_set(&s_int3, (uintptr_t)arch_ftrace_list_caller, (uintptr_t)&rec_ops);
	EXPECT_EQ(arm64_st_call_int3(1, 2, 3), 123);
	EXPECT_EQ(seen.c.hits, 1);
	EXPECT_EQ(seen.c.op, &rec_ops);
	EXPECT_TRUE(seen.c.regs == NULL);
	EXPECT_TRUE(seen.c.chain[0] >= (uintptr_t)__tramp_text_start &&
		    seen.c.chain[0] < (uintptr_t)__tramp_text_end);
	EXPECT_EQ(seen.c.chain[1], s_int3.func + 8);

	/* Only the literal changes: the next call reaches the other ops. */
	site_set(&s_int3, (uintptr_t)arch_ftrace_list_caller, (uintptr_t)&other_ops);
	EXPECT_TRUE(site_is(&s_int3, (uintptr_t)arch_ftrace_list_caller, (uintptr_t)&other_ops));
	EXPECT_EQ(arm64_st_call_int3(1, 2, 3), 123);
	EXPECT_EQ(seen.c.hits, 1);
	EXPECT_EQ(other_hits, 1);
	site_set(&s_int3, 0, (uintptr_t)&other_ops);
}

/* ---- live switching on SMP ---- */

struct live_count {
	unsigned long hits, bad;
};
static struct live_count live_a, live_b;

static void live_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		    struct ftrace_regs *f)
{
	struct live_count *c = op->private;
	bool ok = ip == s_int3.func && ftrace_regs_get_argument(f, 1) == 2 &&
		  ftrace_regs_get_argument(f, 2) == 3 && ftrace_regs_get_argument(f, 0) < 100000;
	__atomic_fetch_add(ok ? &c->hits : &c->bad, 1, __ATOMIC_RELAXED);
}

static struct ftrace_ops live_ops_a = { .call = live_cb, .regs_call = live_cb, .func = live_cb,
					  .private = &live_a };
static struct ftrace_ops live_ops_b = { .call = live_cb, .regs_call = live_cb, .func = live_cb,
					  .private = &live_b };

struct live_worker {
	unsigned long calls, wrong;
};
static volatile bool live_stop;

static int live_worker(void *arg)
{
	struct live_worker *w = arg;
	long i = 0;
	while (!__atomic_load_n(&live_stop, __ATOMIC_ACQUIRE)) {
		if (arm64_st_int3(i, 2, 3) != i * 100 + 23)
			w->wrong++;
		w->calls++;
		i = (i + 1) % 100000;
	}
	return 0;
}

TEST_CASE(arch_ftrace, live_switching_under_fire)
{
	ARCH_FTRACE_FENTRY_SITES();
	uintptr_t sa = test_slot(0), sr = test_slot(1);
	struct live_worker w[MAX_CPUS];
	struct thread *t[MAX_CPUS];
	ASSERT_TRUE(site_ready(&s_int3) && slot_is_trap_fill(sa) && slot_is_trap_fill(sr));
	ASSERT_TRUE(ncpus > 1);
	ASSERT_TRUE(slot_build(sa, &live_ops_a, false) && slot_build(sr, &live_ops_b, true));

	/* Every state a site can be in, visited in a ring. */
	const struct { uintptr_t target, data; } ring[] = {
		{ sa, (uintptr_t)&live_ops_a },
		{ (uintptr_t)arch_ftrace_list_caller, (uintptr_t)&live_ops_a },
		{ (uintptr_t)arch_ftrace_list_caller, (uintptr_t)&live_ops_b },
		{ sr, (uintptr_t)&live_ops_b },
		{ (uintptr_t)arch_ftrace_regs_list_caller, (uintptr_t)&live_ops_a },
		{ (uintptr_t)arch_test_direct_tramp, (uintptr_t)&live_ops_a },
		{ 0, (uintptr_t)&live_ops_a },
	};
	const unsigned rounds = 30, nring = sizeof(ring) / sizeof(ring[0]);

	memset(&live_a, 0, sizeof(live_a));
	memset(&live_b, 0, sizeof(live_b));
	memset(w, 0, sizeof(w));
	live_stop = false;
	for (unsigned c = 1; c < ncpus; c++) {
		t[c] = thread_create("st-live", live_worker, &w[c], (int)c);
		ASSERT_TRUE(t[c] != NULL);
	}
	uint64_t t0 = clock_ns();
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned k = 0; k < nring; k++)
			site_set(&s_int3, ring[k].target, ring[k].data);
	uint64_t dt = clock_ns() - t0;
	__atomic_store_n(&live_stop, true, __ATOMIC_RELEASE);
	unsigned long calls = 0, wrong = 0;
	for (unsigned c = 1; c < ncpus; c++) {
		thread_join(t[c]);
		EXPECT_TRUE(w[c].calls > 0);
		calls += w[c].calls;
		wrong += w[c].wrong;
	}
	kprintf("# %u site changes in %llu ms, %lu calls on %u CPUs, %lu + %lu callbacks\n",
		rounds * nring, (unsigned long long)(dt / 1000000), calls, ncpus - 1,
		live_a.hits, live_b.hits);
	EXPECT_EQ(wrong, 0);
	EXPECT_EQ(live_a.bad + live_b.bad, 0);
	EXPECT_TRUE(live_a.hits > 0 && live_b.hits > 0);
	EXPECT_TRUE(live_a.hits + live_b.hits <= calls);
	EXPECT_TRUE(site_is(&s_int3, 0, (uintptr_t)&live_ops_a));
	slot_refill(sa);
	slot_refill(sr);
}

/*
 * Exact counts: the callers are parked between calls (none in flight) while
 * the site changes, then run for a window; a callback attached for the
 * window sees exactly the calls made in it, a detached one none.
 * Parking: the test makes `epoch` odd; a caller seeing an odd epoch records
 * it in parked[] and waits for the epoch to move on.
 */
static unsigned long epoch;                  /* atomic; odd = park */
static unsigned long parked[MAX_CPUS];       /* atomic: epoch each caller parked in */
static unsigned long exact_calls[MAX_CPUS];  /* caller c's own; read while parked */

static int exact_worker(void *arg)
{
	unsigned c = (unsigned)(uintptr_t)arg;
	long i = 0;
	for (;;) {
		unsigned long e = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
		if (e == ~0ul)
			return 0;
		if (e & 1) {
			__atomic_store_n(&parked[c], e, __ATOMIC_RELEASE);
			while (__atomic_load_n(&epoch, __ATOMIC_ACQUIRE) == e)
				arch_cpu_relax();
			continue;
		}
		arm64_st_int3(i, 2, 3);
		__atomic_store_n(&exact_calls[c], exact_calls[c] + 1, __ATOMIC_RELEASE);
		i = (i + 1) % 100000;
	}
}

static void park_all(void)
{
	unsigned long e = __atomic_add_fetch(&epoch, 1, __ATOMIC_ACQ_REL);
	for (unsigned c = 1; c < ncpus; c++)
		while (__atomic_load_n(&parked[c], __ATOMIC_ACQUIRE) != e)
			arch_cpu_relax();
}

static unsigned long total_calls(void)
{
	unsigned long n = 0;
	for (unsigned c = 1; c < ncpus; c++)
		n += __atomic_load_n(&exact_calls[c], __ATOMIC_ACQUIRE);
	return n;
}

TEST_CASE(arch_ftrace, exact_counts_per_window)
{
	ARCH_FTRACE_FENTRY_SITES();
	uintptr_t sa = test_slot(0), sr = test_slot(1);
	struct thread *t[MAX_CPUS];
	ASSERT_TRUE(site_ready(&s_int3) && slot_is_trap_fill(sa) && slot_is_trap_fill(sr));
	ASSERT_TRUE(ncpus > 1);
	ASSERT_TRUE(slot_build(sa, &live_ops_a, false) && slot_build(sr, &live_ops_b, true));
	const struct { uintptr_t target, data; struct live_count *counts; } ring[] = {
		{ sa, (uintptr_t)&live_ops_a, &live_a },
		{ (uintptr_t)arch_ftrace_list_caller, (uintptr_t)&live_ops_b, &live_b },
		{ (uintptr_t)arch_ftrace_list_caller, (uintptr_t)&live_ops_a, &live_a },
		{ 0, (uintptr_t)&live_ops_a, NULL },
		{ sr, (uintptr_t)&live_ops_b, &live_b },
		{ (uintptr_t)arch_ftrace_regs_list_caller, (uintptr_t)&live_ops_a, &live_a },
		{ 0, (uintptr_t)&live_ops_a, NULL },
	};
	const unsigned rounds = 20, nring = sizeof(ring) / sizeof(ring[0]);
	unsigned failures = 0;

	memset(&live_a, 0, sizeof(live_a));
	memset(&live_b, 0, sizeof(live_b));
	memset(exact_calls, 0, sizeof(exact_calls));
	memset(parked, 0, sizeof(parked));
	epoch = 0;                                   /* running; parked below */
	for (unsigned c = 1; c < ncpus; c++) {
		t[c] = thread_create("st-exact", exact_worker, (void *)(uintptr_t)c, (int)c);
		ASSERT_TRUE(t[c] != NULL);
	}
	park_all();
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned k = 0; k < nring; k++) {
			site_set(&s_int3, ring[k].target, ring[k].data);
			unsigned long c0 = total_calls(), a0 = live_a.hits, b0 = live_b.hits;
			__atomic_add_fetch(&epoch, 1, __ATOMIC_ACQ_REL);       /* run */
			clock_delay_ns(300000);
			park_all();
			unsigned long calls = total_calls() - c0;
			unsigned long da = live_a.hits - a0, db = live_b.hits - b0;
			unsigned long wa = ring[k].counts == &live_a ? calls : 0;
			unsigned long wb = ring[k].counts == &live_b ? calls : 0;
			if ((da != wa || db != wb) && failures++ < 5)
				test_fail(__FILE__, __LINE__,
					  "round %u state %u: %lu calls, callbacks a %lu b %lu", r, k,
					  calls, da, db);
		}
	__atomic_store_n(&epoch, ~0ul, __ATOMIC_RELEASE);
	for (unsigned c = 1; c < ncpus; c++)
		thread_join(t[c]);
	EXPECT_EQ(failures, 0);
	EXPECT_EQ(live_a.bad + live_b.bad, 0);
	EXPECT_TRUE(total_calls() > 0);
	site_set(&s_int3, 0, (uintptr_t)&live_ops_a);
	slot_refill(sa);
	slot_refill(sr);
}

/* ---- cost per call (bt.test=arch_ftrace_cost, with ICOUNT=1) ---- */

static void empty_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		     struct ftrace_regs *f)
{
}
static struct ftrace_ops empty_ops = { .call = empty_cb, .regs_call = empty_cb, .func = empty_cb };

/* Tenths of a nanosecond per call of st_int3, interrupts off. */
static uint64_t tenth_ns_per_call(unsigned n)
{
	unsigned long f = arch_irq_save();
	uint64_t t0 = arch_counter();
	for (unsigned i = 0; i < n; i++)
		arm64_st_int3(i, 2, 3);
	uint64_t dt = arch_counter() - t0;
	arch_irq_restore(f);
	return clock_cycles_to_ns(dt) * 10 / n;
}

TEST_CASE_FLAGS(arch_ftrace_cost, per_call, TEST_MANUAL)
{
	uintptr_t sa = test_slot(0), sr = test_slot(1);
	const unsigned n = 200000;
	ASSERT_TRUE(site_ready(&s_int3) && slot_is_trap_fill(sa) && slot_is_trap_fill(sr));
	ASSERT_TRUE(slot_build(sa, &empty_ops, false) && slot_build(sr, &empty_ops, true));
	const struct { const char *name; uintptr_t target; } cases[] = {
		{ "disabled", 0 },
		{ "ops trampoline", sa },
		{ "list caller (CALL_OPS)", (uintptr_t)arch_ftrace_list_caller },
		{ "regs trampoline", sr },
		{ "regs list caller", (uintptr_t)arch_ftrace_regs_list_caller },
		{ "direct", (uintptr_t)arch_test_direct_tramp },
	};
	uint64_t base = 0;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		site_set(&s_int3, cases[i].target, (uintptr_t)&empty_ops);
		uint64_t t = tenth_ns_per_call(n);
		if (i == 0)
			base = t;
		kprintf("# %-24s %4llu.%llu ns/call, +%lld.%llu over disabled"
			" (instructions, under ICOUNT=1)\n", cases[i].name,
			(unsigned long long)(t / 10), (unsigned long long)(t % 10),
			(long long)(t - base) / 10, (unsigned long long)((t - base) % 10));
	}
	site_set(&s_int3, 0, (uintptr_t)&empty_ops);
	slot_refill(sa);
	slot_refill(sr);

	/* Rewriting a site's 8 bytes in place, one arch_text_poke() each. */
	uint8_t code[ARCH_SITE_SIZE];
	memcpy(code, (const void *)s_int3.func, sizeof(code));
	const unsigned npoke = 2000;
	unsigned long f = arch_irq_save();
	uint64_t t0 = arch_counter();
	for (unsigned i = 0; i < npoke; i++)
		arch_text_poke((void *)s_int3.func, code, sizeof(code));
	uint64_t dt = arch_counter() - t0;
	arch_irq_restore(f);
	kprintf("# %-24s %4llu ns/call\n", "arch_text_poke 8 bytes",
		(unsigned long long)(clock_cycles_to_ns(dt) / npoke));
}

uintptr_t arch_test_find_jump(uintptr_t start, size_t len, uintptr_t target)
{
	for (size_t i = 0; i + 4 <= len; i += 4) {
		uint32_t insn = *(const uint32_t *)(start + i);
		if ((insn & 0xfc000000u) != 0x14000000u)        /* b imm26 */
			continue;
		int64_t off = (int64_t)((uint64_t)(insn & 0x03ffffffu) << 38) >> 36;
		if (start + i + off == target)
			return start + i;
	}
	return 0;
}

void arch_test_trash_caller_saved(void)
{
	__asm__ volatile("mov x0, #0xdead\n\tmov x1, x0\n\tmov x2, x0\n\tmov x3, x0\n\t"
			 "mov x4, x0\n\tmov x5, x0\n\tmov x6, x0\n\tmov x7, x0\n\t"
			 "mov x8, x0\n\tmov x9, x0\n\tmov x10, x0\n\tmov x11, x0\n\t"
			 "mov x12, x0\n\tmov x13, x0\n\tmov x14, x0\n\tmov x15, x0\n\t"
			 "mov x16, x0\n\tmov x17, x0\n\tmov x18, x0"
			 : : : "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
			   "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "memory");
}
