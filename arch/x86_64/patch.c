/*
 * patch.c — x86-64 patchable sites and the int3 protocol for rewriting them
 * while other CPUs run them (arch/hooks.h "Tracing").
 *
 * A site is the 5 bytes at a function's address (-fpatchable-function-entry=5):
 *
 *     state               bytes                 instruction
 *     compiled            90 90 90 90 90        nop x 5 (GCC; until arch_site_init)
 *                         0f 1f 44 00 08        nopl 0x8(%rax,%rax,1) (clang; until then)
 *     disabled            0f 1f 44 00 00        nopl 0x0(%rax,%rax,1)
 *     enabled             e8 <rel32>            call target  (rel32 = target - (func + 5))
 *     in flight           cc <any 4 bytes>      int3 (only inside arch_patch_sites)
 *
 * Why int3: the SDM lets another CPU execute a modified instruction only
 * after a serialising instruction, and a 5-byte store is not atomic to an
 * instruction fetch.  A 1-byte store is; so every changed site first gets
 * int3 (1 byte), every CPU serialises, the 4 tail bytes are written (no CPU
 * can decode them: any CPU reaching the site stops at the int3), every CPU
 * serialises, the first byte is written, every CPU serialises.  Three
 * patch_sync_cores() per batch, however many sites, and one more for the
 * batch's withdrawal (below).
 *
 * A CPU that hits one of those int3s takes #BP.  x86_bp_inflight() finds
 * the site in the batch (find_inflight(rip - 1)) and emulates its NEW state:
 * disabled -> resume at func + 5 (for an XRay sled too: below); `call T` -> push func + 5 and resume at T.
 * The push writes just below the interrupted rsp, which is where the CPU
 * would have put the exception frame; so #BP runs on its own IST stack
 * (cpu.c, IST_BREAKPOINT) and the frame is elsewhere.  The alternative —
 * resuming at a stub that pushes from scratch registers — would clobber
 * r10/r11, and r10 carries the static chain into GNU C nested functions;
 * with an IST stack the emulation is exact: every register, every flag and
 * the stack look as if the new instruction had executed.  The price is
 * that #BP must not nest (a nested one would reuse the IST stack and
 * overwrite the outer frame): the handler path (arch/, patch/) is notrace
 * and trap.c panics if it ever happens.
 *
 * The handler runs with interrupts off (interrupt gate), so the
 * patch_sync_cores() that ends a step cannot complete while any CPU is
 * between fetching an int3 and looking up its site: the in-flight entry it
 * finds is the one that put the int3 there.
 *
 * The batch is published for the handler, any CPU, any context:  A  the
 * array is complete (the caller built it);  B  inflight then inflight_n
 * stored with RELEASE, before the first int3;  the handler loads
 * inflight_n then inflight with ACQUIRE, so a count it sees covers a
 * complete array;  C  after the last step's sync no CPU can still fetch an
 * int3 of this batch, and inflight_n is cleared;  D  one more sync: every
 * CPU has taken an exception return since C, so no handler still walks
 * the array when the caller frees it.  (Clearing before the last step's
 * sync would leave a CPU that fetched an int3 just before the first byte
 * was written with no entry to find.)
 *
 * XRay sleds (INSTR=xray): 11 bytes each, made at boot (arch_site_init,
 * arch_sled_init, one CPU) into a 5-byte site followed by 6 bytes that
 * never change, so that the int3 protocol above rewrites only the first
 * 5, and the #BP handler's "resume at site + 5" is the disabled state:
 *
 *     kind       compiled                            disabled / enabled (bytes 0-4)   bytes 5-10
 *     entry      eb 09 + 66 0f 1f 84 00 00 02 00 00  eb 09 0f 1f 00 / e8 <rel32>     66 0f 1f 44 00 00 (nop6)
 *     tail       the same, before the tail jmp       the same                         eb 04 (jmp +4) <func>
 *     exit       c3 + 2e 66 0f 1f 84 00 00 02 00 00  c3 cc cc cc cc / e8 <rel32>     c3 cc <func>
 *
 * Disabled, an entry or tail sled jumps over itself and an exit sled
 * returns, as compiled; resuming at +5 runs the nop6 (the tail's jmp +4)
 * into the code after the sled, or the ret at +5.  Enabled, the call
 * returns to +5: the same (__fexit__ drops that return and returns for the
 * ret at +5 itself).  An exit or tail sled's target is __fexit__ /
 * __ftail__; bytes 7-10 of one, never executed, hold its function's
 * address (32 bits, little-endian: the kernel's text lies below 4 GiB),
 * which the handler reads at its return address + 2 (arch_sled_exit_func,
 * arch_sled_func; site.h): the function without a search.
 * They are written at boot and never change.
 *
 * QEMU's TCG (checked with the hypervisor CPUID leaf) needs one more
 * thing, which real processors do not.  TCG runs translations of guest
 * code and drops those that overlap a write to it — but a translation
 * still being made while the write happens is not yet registered with its
 * page, so it survives with the bytes it read, and serialising
 * instructions do not drop it.  After a batch, the only such leftover that
 * matters is a 1-byte translation of a step's int3 (a leftover of the old
 * 5-byte instruction from step 1 overlaps the tail, so step 2's write drops
 * it; one of a step-2 int3 overlaps the first byte, dropped by step 3).
 * A vCPU running it takes #BP at a site that is not in flight and no longer
 * holds int3: the handler stores to the site without changing it
 * (x86_poke_touch), which drops the translation, and resumes at the site —
 * bounded: X86_STALE_RETRIES in a row, each within 1 ms of the last, on one
 * CPU, then it is a fault.  On hardware this path is never taken.
 */
#include <errno.h>
#include <string.h>

#include "arch/hooks.h"
#include "arch/x86_64/x86.h"
#include "boot/cpu.h"
#include "boot/ksyms.h"
#include "boot/panic.h"
#include "patch/patch.h"
#include "patch/tramp.h"
#include "trace/core/records.h"
#include "site.h"

#define OP_INT3 0xCC
#define OP_CALL X86_OP_CALL

extern char _text_start[], _etext[];

static const uint8_t nop5[ARCH_SITE_SIZE] = { 0x0F, 0x1F, 0x44, 0x00, 0x00 };

/* -fpatchable-function-entry=5 records the first NOP, the function itself. */
uintptr_t arch_site_func(uintptr_t recorded)
{
	return recorded;
}

/*
 * The compiled site is five one-byte NOPs (GCC) or clang's one 5-byte NOP
 * with displacement 8 (0f 1f 44 00 08); either becomes the one 5-byte NOP
 * (no data word).  It must be one instruction before any CPU can run it
 * while it changes: a CPU that had executed two of five NOPs when the call
 * was written would run the call's last three bytes as an instruction.
 * Boot, one CPU, so nothing executes the site meanwhile.  One
 * arch_text_poke a site (map, write, unmap, serialise): a few ms for the
 * 50,000 sites of the patching benchmark.
 */
/* The XRay sleds as clang 14 leaves them and as boot makes them. */
#define SLED_LEN 11
static const uint8_t sled_jmp_compiled[SLED_LEN] = { 0xEB, 0x09, 0x66, 0x0F, 0x1F, 0x84, 0x00, 0x00,
						     0x02, 0x00, 0x00 };
static const uint8_t sled_ret_compiled[SLED_LEN] = { 0xC3, 0x2E, 0x66, 0x0F, 0x1F, 0x84, 0x00, 0x00,
						     0x02, 0x00, 0x00 };
static const uint8_t sled_jmp[SLED_LEN] = { 0xEB, 0x09, 0x0F, 0x1F, 0x00, 0x66, 0x0F, 0x1F, 0x44,
					    0x00, 0x00 };
/* An exit sled but its function (bytes 7-10); a tail sled's bytes 5-6
 * (its first 5 are an entry sled's). */
static const uint8_t sled_ret[ARCH_SLED_FUNC_OFF] = { 0xC3, 0xCC, 0xCC, 0xCC, 0xCC, 0xC3, 0xCC };
static const uint8_t sled_tail_jmp4[2] = { 0xEB, 0x04 };
_Static_assert(ARCH_SLED_FUNC_OFF + 4 == SLED_LEN, "the function ends the sled");

int arch_sled_init(uintptr_t addr, unsigned kind, uintptr_t func)
{
	bool exit = kind == ARCH_SLED_EXIT;
	if (kind == ARCH_SLED_ENTRY || !arch_sled_placed(addr) || func > UINT32_MAX ||
	    memcmp((const void *)addr, exit ? sled_ret_compiled : sled_jmp_compiled, SLED_LEN) != 0)
		return -EILSEQ;
	uint8_t b[SLED_LEN];
	if (exit) {
		memcpy(b, sled_ret, ARCH_SLED_FUNC_OFF);
	} else {
		memcpy(b, sled_jmp, ARCH_SITE_SIZE);
		memcpy(b + ARCH_SITE_SIZE, sled_tail_jmp4, sizeof(sled_tail_jmp4));
	}
	uint32_t word = (uint32_t)func;
	memcpy(b + ARCH_SLED_FUNC_OFF, &word, sizeof(word));
	arch_text_poke((void *)addr, b, SLED_LEN);
	return 0;
}

int arch_site_init(uintptr_t func, uintptr_t data)
{
#ifdef BT_INSTR_XRAY
	if (!arch_site_placed(func) || memcmp((const void *)func, sled_jmp_compiled, SLED_LEN) != 0)
		return -EILSEQ;
	arch_text_poke((void *)func, sled_jmp, SLED_LEN);
	return 0;
#endif
	static const uint8_t gcc[ARCH_SITE_SIZE] = { 0x90, 0x90, 0x90, 0x90, 0x90 };
	static const uint8_t clang[ARCH_SITE_SIZE] = { 0x0F, 0x1F, 0x44, 0x00, 0x08 };
	const void *p = (const void *)func;
	if (!arch_site_placed(func) ||
	    (memcmp(p, gcc, ARCH_SITE_SIZE) != 0 && memcmp(p, clang, ARCH_SITE_SIZE) != 0))
		return -EILSEQ;
	arch_text_poke((void *)func, nop5, ARCH_SITE_SIZE);
	return 0;
}

int arch_site_encode(uintptr_t func, uintptr_t target, uint8_t *out)
{
	uint64_t w = arch_site_word(func, target);
	if (!arch_site_reaches(func, target))
		return -ERANGE;
	/* __builtin_memcpy: -ffreestanding would make this a call. */
	__builtin_memcpy(out, &w, ARCH_SITE_SIZE);
	return 0;
}

uintptr_t arch_site_data(uintptr_t func)
{
	return 0;
}

static struct patch_site *inflight;  /* atomic; see B, C (header) */
static unsigned inflight_n;          /* atomic */

/* The in-flight entry for func, or NULL (any context; lock-free). */
static const struct patch_site *find_inflight(uintptr_t func)
{
	unsigned n = __atomic_load_n(&inflight_n, __ATOMIC_ACQUIRE);
	const struct patch_site *v = __atomic_load_n(&inflight, __ATOMIC_ACQUIRE);
	unsigned lo = 0, hi = n;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (v[mid].func == func)
			return &v[mid];
		if (v[mid].func < func)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool site_changes(const struct patch_site *s)
{
	return s->old_target != s->new_target;
}

/*
 * Running under QEMU's TCG?  Written once by the first arch_patch_sites()
 * (thread context), before it writes any site; read by the #BP handler,
 * which can only meet a patched site after that.
 */
static bool tcg;

static bool detect_tcg(void)
{
	uint32_t r[4];
	cpuid(1, 0, r);
	if (!(r[2] & (1u << 31)))            /* hypervisor present */
		return false;
	cpuid(0x40000000, 0, r);
	return r[1] == 0x54474354 && r[2] == 0x43544743 && r[3] == 0x47435447;  /* "TCGTCGTCGTCG" */
}

/*
 * One step's writes for every changed site, a text page at a time: the
 * page is mapped once and its sites are written through the alias with
 * interrupts off (at most STEP_CHUNK sites per stretch).  A site whose tail
 * crosses into the next page gets its tail through arch_text_poke.  Each
 * step is its own loop (`step` is a constant after inlining); the new
 * bytes are encoded without a range check: validation did it
 * (patch_apply's check, or the caller of patch_apply_checked: patch.h).
 */
enum step { STEP_INT3, STEP_TAIL, STEP_HEAD };
#define STEP_CHUNK 256

/* Bytes 1..4 / byte 0 of the site (or sled) s in its new state (checked). */
static inline __attribute__((always_inline)) uint32_t new_tail(const struct patch_site *s)
{
	return (uint32_t)(arch_sled_word(s->func, s->new_target, s->kind) >> 8);
}

static inline __attribute__((always_inline)) uint8_t new_head(const struct patch_site *s)
{
	return (uint8_t)arch_sled_word(s->func, s->new_target, s->kind);
}

static inline __attribute__((always_inline)) void write_step_as(const struct patch_site *sites,
								unsigned n, const enum step step)
{
	unsigned i = 0;

	while (i < n) {
		const struct patch_site *cross = NULL;
		unsigned stop = n - i > STEP_CHUNK ? i + STEP_CHUNK : n;
		uintptr_t page = sites[i].func & ~(uintptr_t)(PAGE_SIZE - 1), end = page + PAGE_SIZE;
		unsigned long flags = arch_irq_save();
		uintptr_t delta = (uintptr_t)x86_poke_page(page) - page;    /* alias - text */
		for (; i < stop; i++) {
			const struct patch_site *s = &sites[i];
			uintptr_t f = s->func, t = s->new_target;
			if (f >= end)
				break;
			if (t == s->old_target)
				continue;
			uint8_t *p = (uint8_t *)(f + delta);
			if (step == STEP_INT3) {
				__atomic_store_n(p, OP_INT3, __ATOMIC_RELAXED);
			} else if (step == STEP_HEAD) {
				__atomic_store_n(p, new_head(s), __ATOMIC_RELAXED);     /* one byte */
			} else if (f + ARCH_SITE_SIZE <= end) {
				uint32_t tail = new_tail(s);
				__builtin_memcpy(p + 1, &tail, sizeof(tail));
			} else {
				cross = s;
				i++;
				break;
			}
		}
		arch_irq_restore(flags);
		if (cross) {
			uint32_t tail = new_tail(cross);
			arch_text_poke((void *)(cross->func + 1), &tail, sizeof(tail));
		}
	}
}

static void write_step(const struct patch_site *sites, unsigned n, enum step step)
{
	if (step == STEP_INT3)
		write_step_as(sites, n, STEP_INT3);
	else if (step == STEP_TAIL)
		write_step_as(sites, n, STEP_TAIL);
	else
		write_step_as(sites, n, STEP_HEAD);
}

/* One step is done: this CPU serialises itself, then makes every other. */
static void step_done(void)
{
	x86_serialize();
	patch_sync_cores();
}

void arch_patch_sites(struct patch_site *sites, unsigned n)
{
	static bool detected;
	unsigned first = 0;

	if (!detected) {
		__atomic_store_n(&tcg, detect_tcg(), __ATOMIC_RELAXED);
		detected = true;
	}
	while (first < n && !site_changes(&sites[first]))
		first++;
	if (first == n)
		return;                          /* no instruction changes: no sync */
	sites += first;
	n -= first;
	/* B: publish (the array is complete: A). */
	__atomic_store_n(&inflight, sites, __ATOMIC_RELEASE);
	__atomic_store_n(&inflight_n, n, __ATOMIC_RELEASE);
	x86_poke_batch_begin();
	/* 1: int3 on every changed site.  A CPU now runs old or traps. */
	write_step(sites, n, STEP_INT3);
	step_done();
	/* 2: the tails, behind the int3 in every CPU's view. */
	write_step(sites, n, STEP_TAIL);
	step_done();
	/* 3: the first bytes; each site is whole again, in its new state. */
	write_step(sites, n, STEP_HEAD);
	step_done();
	x86_poke_batch_end();
	__atomic_store_n(&inflight_n, 0, __ATOMIC_RELEASE);   /* C */
	patch_sync_cores();                                   /* D */
}

static unsigned long bp_emulated, bp_stale;  /* atomic; statistics only */

unsigned long x86_bp_emulated(void)
{
	return __atomic_load_n(&bp_emulated, __ATOMIC_RELAXED);
}

unsigned long x86_bp_stale(void)
{
	return __atomic_load_n(&bp_stale, __ATOMIC_RELAXED);
}

#define X86_STALE_RETRIES 1000

/*
 * A stale int3 translation under TCG (header)?  func holds a whole site
 * instruction again, so resuming at func runs what is there now.  Only at a
 * function's entry outside trampoline text: an int3 anywhere else stays a
 * fault.  The retry count is per CPU, interrupts off.
 */
static bool stale_int3(uintptr_t func)
{
	static struct { uintptr_t pc; uint64_t t; unsigned n; } last[MAX_CPUS];
	const uint8_t *p = (const uint8_t *)func;
	uintptr_t off;
	unsigned kind = ARCH_SLED_ENTRY;

	if (!__atomic_load_n(&tcg, __ATOMIC_RELAXED) || text_is_trampoline(func) ||
	    !ksym_lookup(func, &off, NULL) || (off != 0 && !rec_sled_at(func, &kind)))
		return false;
	if (arch_site_read(func) != arch_sled_word(func, 0, kind) && p[0] != OP_CALL)
		return false;
	unsigned me = cpu_id();
	uint64_t now = arch_counter();
	bool again = last[me].pc == func && now - last[me].t < arch_counter_hz() / 1000;
	last[me].n = again ? last[me].n + 1 : 1;
	last[me].pc = func;
	last[me].t = now;
	if (last[me].n > X86_STALE_RETRIES)
		return false;
	x86_poke_touch(func);
	__atomic_fetch_add(&bp_stale, 1, __ATOMIC_RELAXED);
	return true;
}

bool x86_bp_inflight(struct trap_frame *tf)
{
	uintptr_t func = tf->rip - 1;            /* int3 is a trap: rip is past it */
	const struct patch_site *s = find_inflight(func);
	if (!s) {
		if (stale_int3(func)) {
			tf->rip = func;
			return true;
		}
		/* The int3 is there: a batch may have been published (before
		 * its int3s) since the first look. */
		if (!(s = find_inflight(func)))
			return false;
	}
	__atomic_fetch_add(&bp_emulated, 1, __ATOMIC_RELAXED);
	if (s->new_target) {
		/* Below the interrupted rsp: free, the frame is on the IST stack. */
		tf->rsp -= 8;
		*(uint64_t *)tf->rsp = func + ARCH_SITE_SIZE;
		tf->rip = s->new_target;
	} else {
		tf->rip = func + ARCH_SITE_SIZE;
	}
	return true;
}
