/*
 * ftrace_selftest.c — the x86-64 tracing hooks on their own, below the
 * generic ftrace core: site encoding, text poking, trampolines built from
 * the templates, the int3 protocol under fire (suite arch_ftrace).
 *
 * The traced targets are written in assembly (top of this file): arch/ is
 * built without patchable entries and without SSE, and the targets need
 * both — each starts with the compiled 5-byte NOP, by hand.  They are not
 * in __patchable_function_entries, so the record table never sees them; this file patches
 * their sites directly with patch_apply() and makes trampolines with
 * tramp_alloc()/arch_tramp_build()/tramp_write().  The cases both arches
 * share (an ops trampoline's view, the direct trampolines) are
 * tests/guest/test_arch_ftrace.c's, over arch_test_site3 and its caller
 * (below; arch/tests.h).
 */
#include <errno.h>
#include <string.h>

#include "arch/hooks.h"
#include "arch/tests.h"
#include "arch/x86_64/x86.h"
#include "boot/bench.h"
#include "boot/clock.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/fault.h"
#include "boot/sched.h"
#include "boot/test.h"
#include "patch/patch.h"
#include "patch/tramp.h"
#include "trace/core/ftrace.h"

/* ---- Targets and helpers (SysV ABI; doubles travel as their bits) ---- */
long st_add3(long a, long b, long c);
long st_args6(long a, long b, long c, long d, long e, long f);
long st_alt(long a, long b, long c);
long st_nosite(void);
long st_compiled(void);                        /* a site as GCC leaves it */
long st_compiled_clang(void);                  /* a site as clang leaves it */
uint64_t st_call_fsum8(const uint64_t v[8]);   /* st_fsum8(v[0..7]) */
uint64_t st_call_rax(uint64_t v);              /* st_ret_rax() with rax = v */
uint64_t st_call_r10(uint64_t v);              /* st_ret_r10() with r10 = v */
void st_fsum8(void);
void st_ret_rax(void);
void st_ret_r10(void);
void st_clobber_fp(void);                      /* xmm0-15, rax, r10, r11 := junk */

#define SITE_NOP ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"
__asm__(".text\n"
	".balign 16\n.globl st_add3\nst_add3:\n\t" SITE_NOP
	"leaq (%rdi,%rsi), %rax\n\taddq %rdx, %rax\n\tret\n"
	".balign 16\n.globl st_args6\nst_args6:\n\t" SITE_NOP
	"leaq (%rdi,%rsi,2), %rax\n\tleaq (%rax,%rdx,4), %rax\n\tleaq (%rax,%rcx,8), %rax\n\t"
	"shlq $4, %r8\n\taddq %r8, %rax\n\tshlq $5, %r9\n\taddq %r9, %rax\n\tret\n"
	".balign 16\n.globl st_alt\nst_alt:\n\t" SITE_NOP
	"leaq 4200(%rdi), %rax\n\tret\n"
	".balign 16\n.globl st_nosite\nst_nosite:\n\t"
	"xorl %eax, %eax\n\tret\n"
	".balign 16\n.globl st_compiled\nst_compiled:\n\t"
	".byte 0x90, 0x90, 0x90, 0x90, 0x90\n\tmovl $7, %eax\n\tret\n"
	".balign 16\n.globl st_compiled_clang\nst_compiled_clang:\n\t"
	".byte 0x0f, 0x1f, 0x44, 0x00, 0x08\n\tmovl $8, %eax\n\tret\n"
	/* The generic cases' site, as GCC leaves one, and its recording
	 * caller (arch/tests.h). */
	".balign 16\n.globl arch_test_site3\narch_test_site3:\n\t"
	".byte 0x90, 0x90, 0x90, 0x90, 0x90\n\t"
	"imulq $100, %rdi, %rax\n\timulq $10, %rsi, %rsi\n\taddq %rsi, %rax\n\t"
	"addq %rdx, %rax\n\tret\n"
	".balign 16\n.globl arch_test_call_site3, arch_test_call_site3_ret\n"
	"arch_test_call_site3:\n\t"
	"pushq %rbp\n\tmovq %rsp, %rbp\n\tmovq %rsp, arch_test_caller(%rip)\n\t"
	"movq %rbp, arch_test_caller+8(%rip)\n\tcall arch_test_site3\n"
	"arch_test_call_site3_ret:\n\tpopq %rbp\n\tret\n"
	".balign 16\n.globl st_fsum8\nst_fsum8:\n\t" SITE_NOP
	"addsd %xmm1, %xmm0\n\taddsd %xmm2, %xmm0\n\taddsd %xmm3, %xmm0\n\t"
	"addsd %xmm4, %xmm0\n\taddsd %xmm5, %xmm0\n\taddsd %xmm6, %xmm0\n\t"
	"addsd %xmm7, %xmm0\n\tret\n"
	".balign 16\n.globl st_call_fsum8\nst_call_fsum8:\n\t"
	"pushq %rbp\n\tmovq %rsp, %rbp\n\t"
	"movsd 0(%rdi), %xmm0\n\tmovsd 8(%rdi), %xmm1\n\tmovsd 16(%rdi), %xmm2\n\t"
	"movsd 24(%rdi), %xmm3\n\tmovsd 32(%rdi), %xmm4\n\tmovsd 40(%rdi), %xmm5\n\t"
	"movsd 48(%rdi), %xmm6\n\tmovsd 56(%rdi), %xmm7\n\t"
	"call st_fsum8\n\tmovq %xmm0, %rax\n\tpopq %rbp\n\tret\n"
	".balign 16\n.globl st_ret_rax\nst_ret_rax:\n\t" SITE_NOP "ret\n"
	".balign 16\n.globl st_ret_r10\nst_ret_r10:\n\t" SITE_NOP "movq %r10, %rax\n\tret\n"
	".balign 16\n.globl st_call_rax\nst_call_rax:\n\t"
	"pushq %rbp\n\tmovq %rsp, %rbp\n\tmovq %rdi, %rax\n\tcall st_ret_rax\n\tpopq %rbp\n\tret\n"
	".balign 16\n.globl st_call_r10\nst_call_r10:\n\t"
	"pushq %rbp\n\tmovq %rsp, %rbp\n\tmovq %rdi, %r10\n\tcall st_ret_r10\n\tpopq %rbp\n\tret\n"
	".balign 16\n.globl st_clobber_fp\nst_clobber_fp:\n\t"
	"pcmpeqd %xmm0, %xmm0\n\tpcmpeqd %xmm1, %xmm1\n\tpcmpeqd %xmm2, %xmm2\n\t"
	"pcmpeqd %xmm3, %xmm3\n\tpcmpeqd %xmm4, %xmm4\n\tpcmpeqd %xmm5, %xmm5\n\t"
	"pcmpeqd %xmm6, %xmm6\n\tpcmpeqd %xmm7, %xmm7\n\tpcmpeqd %xmm8, %xmm8\n\t"
	"pcmpeqd %xmm15, %xmm15\n\tmovq $-1, %rax\n\tmovq $-1, %r10\n\tmovq $-1, %r11\n\tret\n");

uintptr_t arch_test_caller[2];

static const uint64_t fsum_in[8] = {      /* 1.0 .. 8.0 */
	0x3FF0000000000000, 0x4000000000000000, 0x4008000000000000, 0x4010000000000000,
	0x4014000000000000, 0x4018000000000000, 0x401C000000000000, 0x4020000000000000,
};
#define FSUM_OUT 0x4042000000000000ull    /* 36.0 */

/* ---- A callback that checks what it is given ---- */
struct probe {
	struct ftrace_ops ops;
	unsigned long hits;              /* atomic */
	unsigned long bad;               /* atomic: a check failed */
	bool want_regs;
	uintptr_t redirect;              /* SAVE_REGS: set pt_regs rip to this */
	const unsigned *attached;        /* if set: *attached & mask says a site may call us */
	unsigned mask;
	unsigned long detached_hits;     /* atomic: calls while no site could reach us */
	/* Last call, for the single-call checks (one CPU only). */
	uintptr_t ip, parent, sp, fp, tramp_rec_ret, fn_rec_ret, fn_rec_fp;
	struct pt_regs regs;
	bool had_regs;
};

static void bad(struct probe *p)
{
	__atomic_fetch_add(&p->bad, 1, __ATOMIC_RELAXED);
}

static void probe_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		     struct ftrace_regs *f)
{
	struct probe *p = (struct probe *)op;
	__atomic_fetch_add(&p->hits, 1, __ATOMIC_RELAXED);
	if (p->attached && !(__atomic_load_n(p->attached, __ATOMIC_ACQUIRE) & p->mask))
		__atomic_fetch_add(&p->detached_hits, 1, __ATOMIC_RELAXED);
	if (ftrace_regs_get_instruction_pointer(f) != ip ||
	    ftrace_regs_get_return_address(f) != parent ||
	    *(uintptr_t *)ftrace_regs_get_stack_pointer(f) != parent ||
	    (ftrace_get_regs(f) != NULL) != p->want_regs)
		bad(p);
	if (ip == (uintptr_t)st_add3 &&
	    (ftrace_regs_get_argument(f, 0) != 1 || ftrace_regs_get_argument(f, 1) != 2 ||
	     ftrace_regs_get_argument(f, 2) != 3))
		bad(p);
	struct pt_regs *r = ftrace_get_regs(f);
	if (r && (r->rip != ip || r->rsp != ftrace_regs_get_stack_pointer(f) ||
		  r->rdi != f->args[0] || r->rsi != f->args[1] || r->r9 != f->args[5] ||
		  r->rbp != ftrace_regs_get_frame_pointer(f) || !(r->rflags & 2)))
		bad(p);
	/* The frame-pointer chain: this frame -> trampoline -> function. */
	const uintptr_t *tramp = *(uintptr_t **)__builtin_frame_address(0);
	const uintptr_t *fn = (const uintptr_t *)tramp[0];
	p->ip = ip;
	p->parent = parent;
	p->sp = ftrace_regs_get_stack_pointer(f);
	p->fp = ftrace_regs_get_frame_pointer(f);
	p->tramp_rec_ret = tramp[1];
	p->fn_rec_ret = fn[1];
	p->fn_rec_fp = fn[0];
	p->had_regs = r != NULL;
	if (r) {
		p->regs = *r;
		if (p->redirect && ip == (uintptr_t)st_add3)
			r->rip = p->redirect;
	}
	st_clobber_fp();
}

static void probe_init(struct probe *p, bool regs)
{
	memset(p, 0, sizeof(*p));
	p->ops.call = probe_cb;
	p->ops.func = probe_cb;
	p->want_regs = regs;
}

/* ---- Patching one or several of our sites ---- */
static int set_sites(const uintptr_t *funcs, unsigned n, uintptr_t from, uintptr_t to)
{
	struct patch_site s[8];
	unsigned badi;
	for (unsigned i = 0; i < n; i++)
		s[i] = (struct patch_site){ .func = funcs[i], .old_target = from,
					    .new_target = to };
	preempt_disable();                 /* as under the ftrace lock */
	int r = patch_apply(s, n, &badi);
	preempt_enable();
	return r;
}

static int set_site(uintptr_t func, uintptr_t from, uintptr_t to)
{
	return set_sites(&func, 1, from, to);
}

static uintptr_t make_tramp(struct probe *p, bool regs)
{
	static uint8_t buf[ARCH_TRAMP_SIZE];
	uintptr_t slot = tramp_alloc();
	if (!slot)
		return 0;
	int len = arch_tramp_build(buf, slot, &p->ops, (void *)probe_cb,
				   regs ? ARCH_TRAMP_REGS : ARCH_TRAMP_ARGS);
	if (len <= 0)
		return 0;
	tramp_write(slot, buf, (size_t)len);
	return slot;
}

/* ---- Cases ---- */

TEST_CASE(arch_ftrace, site_encoding)
{
	ARCH_FTRACE_FENTRY_SITES();
	uint8_t b[ARCH_SITE_SIZE];
	uintptr_t f = (uintptr_t)st_add3;
	EXPECT_EQ(arch_site_func(f), f);
	/* Compiled (GCC's five NOPs, clang's nopl 0x8) -> disabled (one NOP5),
	 * once: an initialised site, or no site, is not as compiled. */
	uintptr_t c = (uintptr_t)st_compiled, cc = (uintptr_t)st_compiled_clang;
	EXPECT_EQ(arch_site_init(c, 0), 0);
	EXPECT_EQ(memcmp((const void *)c, "\x0f\x1f\x44\x00\x00", ARCH_SITE_SIZE), 0);
	EXPECT_EQ(st_compiled(), 7);
	EXPECT_EQ(arch_site_init(c, 0), -EILSEQ);
	EXPECT_EQ(arch_site_init(cc, 0), 0);
	EXPECT_EQ(memcmp((const void *)cc, "\x0f\x1f\x44\x00\x00", ARCH_SITE_SIZE), 0);
	EXPECT_EQ(st_compiled_clang(), 8);
	EXPECT_EQ(arch_site_init(cc, 0), -EILSEQ);
	EXPECT_EQ(arch_site_init(f, 0), -EILSEQ);
	EXPECT_EQ(arch_site_init((uintptr_t)st_nosite, 0), -EILSEQ);
	EXPECT_EQ(arch_site_data(f), 0);
	ASSERT_EQ(arch_site_encode(f, 0, b), 0);
	EXPECT_EQ(memcmp(b, (const void *)f, ARCH_SITE_SIZE), 0);
	ASSERT_EQ(arch_site_encode(f, f + 0x1005, b), 0);
	EXPECT_EQ(b[0], 0xE8);
	EXPECT_EQ(b[1] | b[2] << 8 | b[3] << 16 | (uint32_t)b[4] << 24, 0x1000);
	ASSERT_EQ(arch_site_encode(f, f - 0x100, b), 0);
	EXPECT_EQ(b[1] | b[2] << 8 | b[3] << 16 | (uint32_t)b[4] << 24, (uint32_t)-0x105);
	EXPECT_EQ(arch_site_encode(f, f + (3ull << 30), b), -ERANGE);
	EXPECT_EQ(arch_site_encode(f, f - (3ull << 30), b), -ERANGE);
}

/* Every recorded site holds the NOP5 boot made of it, or a call (when
 * something is traced); none is left as compiled. */
extern const uintptr_t __sites_start[], __sites_end[];
TEST_CASE(arch_ftrace, recorded_sites)
{
	ARCH_FTRACE_FENTRY_SITES();
	unsigned n = 0, odd = 0;
	for (const uintptr_t *r = __sites_start; r < __sites_end; r++, n++) {
		const uint8_t *s = (const uint8_t *)arch_site_func(*r);
		if (memcmp(s, "\x0f\x1f\x44\x00\x00", ARCH_SITE_SIZE) != 0 && s[0] != 0xE8)
			odd++;
	}
	EXPECT_TRUE(n > 100);
	EXPECT_EQ(odd, 0);
}

static void write_pool(void *arg)
{
	*(volatile uint8_t *)arg = 0x90;
}

TEST_CASE(arch_ftrace, text_poke)
{
	uint8_t pat[16], back[16];
	uintptr_t va;
	/* Across a page boundary of the pool (the pool is >= 2 pages). */
	uint8_t *dst = (uint8_t *)__tramp_pool_start + PAGE_SIZE - 8;
	for (unsigned i = 0; i < sizeof(pat); i++)
		pat[i] = (uint8_t)(0xA0 + i);
	memcpy(back, dst, sizeof(back));
	arch_text_poke(dst, pat, sizeof(pat));
	EXPECT_EQ(memcmp(dst, pat, sizeof(pat)), 0);
	arch_text_poke(dst, back, sizeof(back));
	EXPECT_EQ(memcmp(dst, back, sizeof(back)), 0);
	/* No alias left behind, and the text itself still refuses writes. */
	EXPECT_EQ(*mmu_poke_pte(cpu_id(), &va), 0);
	struct fault_info fi;
	EXPECT_EQ(fault_catch(write_pool, __tramp_pool_start, &fi), 1);
	EXPECT_EQ(fi.kind, FAULT_WRITE);
}

/* A stray int3 (not an in-flight site) is an ordinary fault at its pc. */
static void stray_int3(void *arg)
{
	__asm__ volatile("int3");
}

TEST_CASE(arch_ftrace, stray_breakpoint)
{
	struct fault_info fi;
	EXPECT_EQ(fault_catch(stray_int3, NULL, &fi), 1);
	EXPECT_EQ(fi.kind, FAULT_UNDEF);
	EXPECT_EQ(((const uint8_t *)fi.pc)[0], 0xCC);
}

/* Every argument register, rax, r10 and xmm0-7 reach the function intact
 * although the callback clobbers them all; then the same through SAVE_REGS. */
TEST_CASE(arch_ftrace, argument_state_survives)
{
	ARCH_FTRACE_FENTRY_SITES();
	static struct probe p;
	const uintptr_t fns[] = { (uintptr_t)st_args6, (uintptr_t)st_fsum8,
				  (uintptr_t)st_ret_rax, (uintptr_t)st_ret_r10 };
	for (int regs = 0; regs < 2; regs++) {
		probe_init(&p, regs);
		uintptr_t t = make_tramp(&p, regs);
		ASSERT_TRUE(t != 0);
		ASSERT_EQ(set_sites(fns, 4, 0, t), 0);
		EXPECT_EQ(st_args6(1, 2, 3, 4, 5, 6), 1 + 4 + 12 + 32 + 80 + 192);
		EXPECT_EQ(st_call_fsum8(fsum_in), FSUM_OUT);
		EXPECT_EQ(st_call_rax(0x1234567887654321), 0x1234567887654321);
		EXPECT_EQ(st_call_r10(0x0badc0ffee), 0x0badc0ffee);
		EXPECT_EQ(p.hits, 4);
		EXPECT_EQ(p.bad, 0);
		ASSERT_EQ(set_sites(fns, 4, t, 0), 0);
		tramp_free(t);
	}
}

/* SAVE_REGS: pt_regs holds the arguments, and a changed rip replaces the
 * function (the alternative runs with the original entry stack). */
TEST_CASE(arch_ftrace, regs_and_redirect)
{
	ARCH_FTRACE_FENTRY_SITES();
	static struct probe p;
	probe_init(&p, true);
	uintptr_t t = make_tramp(&p, true);
	ASSERT_TRUE(t != 0);
	ASSERT_EQ(set_site((uintptr_t)st_add3, 0, t), 0);
	EXPECT_EQ(st_add3(1, 2, 3), 6);
	EXPECT_TRUE(p.had_regs);
	EXPECT_EQ(p.regs.rdi, 1);
	EXPECT_EQ(p.regs.rsi, 2);
	EXPECT_EQ(p.regs.rdx, 3);
	EXPECT_EQ(p.regs.rip, (uintptr_t)st_add3);
	EXPECT_EQ(p.regs.rsp, p.sp);
	p.redirect = (uintptr_t)st_alt + ARCH_SITE_SIZE;
	EXPECT_EQ(st_add3(1, 2, 3), 4201);
	p.redirect = 0;
	EXPECT_EQ(st_add3(1, 2, 3), 6);
	EXPECT_EQ(p.hits, 3);
	EXPECT_EQ(p.bad, 0);
	ASSERT_EQ(set_site((uintptr_t)st_add3, t, 0), 0);
	tramp_free(t);
}

/* A site whose bytes are not what the batch expects is refused, untouched. */
TEST_CASE(arch_ftrace, wrong_old_state_refused)
{
	uint8_t before[ARCH_SITE_SIZE];
	memcpy(before, (const void *)st_add3, sizeof(before));
	EXPECT_EQ(set_site((uintptr_t)st_add3, (uintptr_t)arch_test_direct_tramp, 0), -EILSEQ);
	EXPECT_EQ(memcmp(before, (const void *)st_add3, sizeof(before)), 0);
}

/* ---- Under fire: other CPUs call the targets while this one flips them
 * disabled -> plain -> SAVE_REGS -> plain -> disabled, through int3. ---- */
struct fire {
	volatile bool stop;
	unsigned long calls;             /* atomic */
	unsigned long wrong;             /* atomic: a target returned a wrong value */
};

static int fire_worker(void *arg)
{
	struct fire *f = arg;
	unsigned long n = 0, wrong = 0;
	while (!f->stop) {
		if (st_add3(1, 2, 3) != 6)
			wrong++;
		if (st_call_fsum8(fsum_in) != FSUM_OUT)
			wrong++;
		n += 2;
	}
	__atomic_fetch_add(&f->calls, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&f->wrong, wrong, __ATOMIC_RELAXED);
	return 0;
}

/* Full cycles of four batches: at least FIRE_MIN, then more until
 * FIRE_NS of guest time have passed (TCG speed varies a lot), at most
 * FIRE_MAX. */
#define FIRE_MIN 10
#define FIRE_MAX 1000
#define FIRE_NS  1500000000ull

TEST_CASE(arch_ftrace, live_patching_under_fire)
{
	ARCH_FTRACE_FENTRY_SITES();
	static struct probe a, b;
	static struct fire f;
	struct thread *w[MAX_CPUS];
	const uintptr_t fns[] = { (uintptr_t)st_add3, (uintptr_t)st_fsum8 };
	if (ncpus < 2)
		TEST_SKIP("needs a second CPU");
	probe_init(&a, false);
	probe_init(&b, true);
	uintptr_t ta = make_tramp(&a, false), tb = make_tramp(&b, true);
	ASSERT_TRUE(ta && tb);
	memset(&f, 0, sizeof(f));
	unsigned long bp_before = x86_bp_emulated();
	for (unsigned c = 1; c < ncpus; c++)
		ASSERT_TRUE((w[c] = thread_create("fire", fire_worker, &f, (int)c)) != NULL);

	/* attached: which probes a site may reach now — during a batch the old
	 * and the new one, after it only the new one.  RELEASE before a batch
	 * (a CPU reaching the new target sees its bit), after it: a probe
	 * whose bit is clear is called only by a stale view of a site. */
	static unsigned attached;
	a.attached = b.attached = &attached;
	a.mask = 1;
	b.mask = 2;
	int err = 0;
	unsigned rounds = 0;
	const uintptr_t cycle[] = { 0, ta, tb, ta };
	const unsigned bits[] = { 0, 1, 2, 1 };
	uint64_t end = clock_ns() + FIRE_NS;
	__atomic_store_n(&attached, 0, __ATOMIC_RELEASE);
	while (!err && rounds < FIRE_MAX && (rounds < FIRE_MIN || clock_ns() < end)) {
		for (unsigned i = 0; i < 4 && !err; i++) {
			unsigned next = bits[(i + 1) % 4];
			__atomic_store_n(&attached, bits[i] | next, __ATOMIC_RELEASE);
			err = set_sites(fns, 2, cycle[i], cycle[(i + 1) % 4]);
			__atomic_store_n(&attached, next, __ATOMIC_RELEASE);
		}
		rounds++;
	}

	f.stop = true;
	for (unsigned c = 1; c < ncpus; c++)
		thread_join(w[c]);
	EXPECT_EQ(err, 0);
	EXPECT_EQ(f.wrong, 0);
	EXPECT_EQ(a.bad + b.bad, 0);
	EXPECT_EQ(a.detached_hits + b.detached_hits, 0);
	EXPECT_TRUE(f.calls > 0);
	EXPECT_TRUE(a.hits > 0 && b.hits > 0);
	EXPECT_TRUE(a.hits + b.hits <= f.calls);
	unsigned long bp = x86_bp_emulated() - bp_before;
	EXPECT_TRUE(bp > 0);
	kprintf("    # %u batches, %lu calls, %lu + %lu traced, %lu int3 emulated, "
		"%lu stale fetches retried\n", rounds * 4, f.calls, a.hits, b.hits, bp,
		x86_bp_stale());
	tramp_free(ta);
	tramp_free(tb);
}

/*
 * ---- A CPU that hits a site mid-update runs the site's NEW state ----
 *
 * live_patching_under_fire lets a call reach the old or the new target
 * during a batch, as it must for a call that fetched the site before the
 * int3: it cannot tell the #BP handler emulating the new state from one
 * emulating the old.  Here one caller (the only code that runs st_add3, so
 * the only source of #BP emulations) brackets each call with the phase
 * (the batch's new target, stored before the batch writes its int3s) and
 * the global emulation count: a call that saw one phase on both sides and
 * took exactly one emulation trapped on that batch's int3, and must have
 * reached the new state — probe a called once on 0 -> ta, not at all on
 * ta -> 0.  Ordering: the phase store precedes the int3 store, and the
 * handler's ACQUIRE of the in-flight batch (patch.c B) orders the caller's
 * later phase load after both, so a trap on the next batch reads the next
 * phase and the call is not counted.
 */
#define NEWSTATE_MIN_TRAPS 50
#define NEWSTATE_NS        3000000000ull

struct newstate {
	uintptr_t phase;                 /* atomic: the current batch's new target */
	int stop;                        /* atomic */
	unsigned long trapped;           /* atomic: the caller writes, main polls */
	unsigned long wrong;             /* the caller's; read after join */
	struct probe *a;
};

static int newstate_worker(void *arg)
{
	struct newstate *s = arg;
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		uintptr_t ph0 = __atomic_load_n(&s->phase, __ATOMIC_ACQUIRE);
		unsigned long b0 = x86_bp_emulated();
		unsigned long h0 = __atomic_load_n(&s->a->hits, __ATOMIC_RELAXED);
		long r = st_add3(1, 2, 3);
		unsigned long h1 = __atomic_load_n(&s->a->hits, __ATOMIC_RELAXED);
		unsigned long b1 = x86_bp_emulated();
		uintptr_t ph1 = __atomic_load_n(&s->phase, __ATOMIC_ACQUIRE);
		if (r != 6)
			s->wrong++;
		if (ph0 != ph1 || b1 - b0 != 1)
			continue;
		__atomic_store_n(&s->trapped, s->trapped + 1, __ATOMIC_RELAXED);
		if (h1 - h0 != (ph1 ? 1u : 0u))
			s->wrong++;
	}
	return 0;
}

TEST_CASE(arch_ftrace, int3_emulates_the_new_state)
{
	ARCH_FTRACE_FENTRY_SITES();
	static struct probe a;
	static struct newstate s;
	const uintptr_t fns[] = { (uintptr_t)st_add3 };
	if (ncpus < 2)
		TEST_SKIP("needs a second CPU");
	probe_init(&a, false);
	uintptr_t ta = make_tramp(&a, false);
	ASSERT_TRUE(ta != 0);
	memset(&s, 0, sizeof(s));
	s.a = &a;
	struct thread *w = thread_create("newstate", newstate_worker, &s, 1);
	ASSERT_TRUE(w != NULL);
	int err = 0;
	unsigned batches = 0;
	uint64_t end = clock_ns() + NEWSTATE_NS;
	while (!err && clock_ns() < end &&
	       __atomic_load_n(&s.trapped, __ATOMIC_RELAXED) < NEWSTATE_MIN_TRAPS) {
		__atomic_store_n(&s.phase, ta, __ATOMIC_RELEASE);
		err = set_sites(fns, 1, 0, ta);
		__atomic_store_n(&s.phase, 0, __ATOMIC_RELEASE);
		err = err ? err : set_sites(fns, 1, ta, 0);
		batches += 2;
	}
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
	thread_join(w);
	kprintf("    # %u batches, %lu calls trapped mid-update\n", batches, s.trapped);
	EXPECT_EQ(err, 0);
	EXPECT_TRUE(s.trapped > 0);
	EXPECT_EQ(s.wrong, 0);
	EXPECT_EQ(a.bad, 0);
	EXPECT_EQ(((const uint8_t *)st_add3)[0], 0x0F);
	tramp_free(ta);
}

/* ---- Cost per traced call (guest instructions under ICOUNT=1) ---- */
#define COST_CALLS 1000

static void empty_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		     struct ftrace_regs *f)
{
}

static void call_many(void *arg)
{
	for (unsigned i = 0; i < COST_CALLS; i++)
		st_add3(1, 2, 3);
}

/* The site calls `target` (0: disabled); per-call cost beyond the NOP's. */
static void cost(const char *name, uintptr_t target, struct bench_result base)
{
	if (set_site((uintptr_t)st_add3, 0, target) != 0) {
		bench_print_na(name, "insn/call", "patch refused");
		return;
	}
	struct bench_result r = bench_measure(call_many, NULL);
	set_site((uintptr_t)st_add3, target, 0);
	r.median -= base.median;
	r.min -= base.min;
	r.max -= base.max;
	bench_print(name, r, COST_CALLS, "insn/call");
}

BENCH_CASE(x86_tramp_cost)
{
	static struct ftrace_ops ops = { .call = empty_cb, .func = empty_cb };
	static uint8_t buf[ARCH_TRAMP_SIZE];
	struct bench_result base = bench_measure(call_many, NULL);
	for (int regs = 0; regs < 2; regs++) {
		uintptr_t slot = tramp_alloc();
		int len = slot ? arch_tramp_build(buf, slot, &ops, (void *)empty_cb,
						  regs ? ARCH_TRAMP_REGS : ARCH_TRAMP_ARGS) : -1;
		if (len <= 0) {
			bench_print_na(regs ? "x86_tramp_regs" : "x86_tramp", "insn/call", "no slot");
			continue;
		}
		tramp_write(slot, buf, (size_t)len);
		cost(regs ? "x86_tramp_regs" : "x86_tramp", slot, base);
		tramp_free(slot);
	}
	cost("x86_tramp_direct", (uintptr_t)arch_test_direct_tramp, base);
}

uintptr_t arch_test_find_jump(uintptr_t start, size_t len, uintptr_t target)
{
	const uint8_t *p = (const uint8_t *)start;
	for (size_t i = 0; i + 2 <= len; i++) {
		if (p[i] == 0xe9 && i + 5 <= len) {             /* jmp rel32 */
			int32_t rel;
			memcpy(&rel, p + i + 1, 4);
			if (start + i + 5 + (intptr_t)rel == target)
				return start + i;
		} else if (p[i] == 0xeb) {                      /* jmp rel8 */
			if (start + i + 2 + (int8_t)p[i + 1] == target)
				return start + i;
		}
	}
	return 0;
}

void arch_test_trash_caller_saved(void)
{
	__asm__ volatile("mov $0xdead, %%eax\n\tmov %%rax, %%rcx\n\tmov %%rax, %%rdx\n\t"
			 "mov %%rax, %%rsi\n\tmov %%rax, %%rdi\n\tmov %%rax, %%r8\n\t"
			 "mov %%rax, %%r9\n\tmov %%rax, %%r10\n\tmov %%rax, %%r11"
			 : : : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory");
}

/* uint64_t arch_test_preserving_call(void (*thunk)(void)): arch/tests.h.
 * rbx (callee-saved) holds the thunk; pushed twice so that the call below
 * is made with rsp 16-aligned. */
__asm__(".text\n"
	".balign 16\n.globl arch_test_preserving_call\narch_test_preserving_call:\n\t"
	"pushq %rbp\n\tmovq %rsp, %rbp\n\tpushq %rbx\n\tpushq %rbx\n\t"
	"movq %rdi, %rbx\n\t"
	"movq $0x101, %rcx\n\t"
	"movq $0x106, %rsi\n\t"
	"movq $0x107, %rdi\n\t"
	"movq $0x108, %r8\n\t"
	"movq $0x109, %r9\n\t"
	"movq $0x10a, %r10\n\t"
	"movq $0x10b, %r11\n\t"
	"call *%rbx\n\t"
	"xorl %eax, %eax\n\t"
	"cmpq $0x101, %rcx\n\tsetne %dl\n\tmovzbl %dl, %edx\n\tshlq $1, %rdx\n\torq %rdx, %rax\n\t"
	"cmpq $0x106, %rsi\n\tsetne %dl\n\tmovzbl %dl, %edx\n\tshlq $6, %rdx\n\torq %rdx, %rax\n\t"
	"cmpq $0x107, %rdi\n\tsetne %dl\n\tmovzbl %dl, %edx\n\tshlq $7, %rdx\n\torq %rdx, %rax\n\t"
	"cmpq $0x108, %r8\n\tsetne %dl\n\tmovzbl %dl, %edx\n\tshlq $8, %rdx\n\torq %rdx, %rax\n\t"
	"cmpq $0x109, %r9\n\tsetne %dl\n\tmovzbl %dl, %edx\n\tshlq $9, %rdx\n\torq %rdx, %rax\n\t"
	"cmpq $0x10a, %r10\n\tsetne %dl\n\tmovzbl %dl, %edx\n\tshlq $10, %rdx\n\torq %rdx, %rax\n\t"
	"cmpq $0x10b, %r11\n\tsetne %dl\n\tmovzbl %dl, %edx\n\tshlq $11, %rdx\n\torq %rdx, %rax\n\t"
	"popq %rbx\n\tpopq %rbx\n\tpopq %rbp\n\tret\n");
