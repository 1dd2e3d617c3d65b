/*
 * test_fprobe.c — fprobes: exact entry and exit counts; the exit handler
 * sees the call's return value, its parent, and the words the entry
 * handler saved (the arguments, read with ftrace_regs_get_argument); an
 * entry handler's refusal suppresses that call's exit; probes without an
 * exit handler; two probes on overlapping functions; calls on two CPUs;
 * bad filters refused with nothing changed; no handler after unregister;
 * missed calls counted; no free fgraph slot.
 *
 * The fpw_* functions are the probed targets (this file is built with
 * patchable entries).
 */
#include <errno.h>
#include <string.h>

#include "boot/cpu.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "boot/test.h"
#include "lib/noipa.h"
#include "trace/core/fgraph.h"
#include "trace/core/fprobe.h"
#include "trace/core/ftrace_internal.h"

#define T __attribute__((noinline)) noclone
#define KEEP() __asm__ volatile("" ::: "memory")

static volatile long sink;

T long fpw_add(long a, long b) { sink = a; KEEP(); return a + b; }
T long fpw_mid(long a) { long r = fpw_add(a, 1) * 2; KEEP(); return r; }
T long fpw_other(long a) { sink = a; KEEP(); return -a; }
T long fpw_rec(long n) { long r = n ? fpw_rec(n - 1) + n : 0; KEEP(); return r; }

/* A probe that counts and checks what it is handed. */
struct probe {
	struct fprobe fp;
	unsigned long entries, exits;   /* atomic */
	unsigned long bad;              /* exits whose data, parent or return were wrong */
	int skip_odd;                   /* entry handler refuses calls with an odd first argument */
	uintptr_t last_parent;
};

static long expected_ret(uintptr_t ip, long a0, long a1)
{
	if (ip == (uintptr_t)fpw_add)
		return a0 + a1;
	if (ip == (uintptr_t)fpw_mid)
		return (a0 + 1) * 2;
	if (ip == (uintptr_t)fpw_other)
		return -a0;
	return a0 * (a0 + 1) / 2;       /* fpw_rec */
}

static int pr_entry(struct fprobe *fp, uintptr_t ip, uintptr_t parent,
		    struct ftrace_regs *fregs, uint64_t *data)
{
	struct probe *p = (struct probe *)fp;
	__atomic_fetch_add(&p->entries, 1, __ATOMIC_RELAXED);
	long a0 = (long)ftrace_regs_get_argument(fregs, 0);
	data[0] = (uint64_t)a0;
	data[1] = (uint64_t)expected_ret(ip, a0, (long)ftrace_regs_get_argument(fregs, 1));
	p->last_parent = parent;
	return p->skip_odd && (a0 & 1);
}

static void pr_exit(struct fprobe *fp, uintptr_t ip, uintptr_t parent, uint64_t retval,
		    uint64_t *data)
{
	struct probe *p = (struct probe *)fp;
	__atomic_fetch_add(&p->exits, 1, __ATOMIC_RELAXED);
	if (retval != data[1] || (p->skip_odd && (data[0] & 1)) || !parent ||
	    parent == (uintptr_t)arch_fgraph_return_hook)
		__atomic_fetch_add(&p->bad, 1, __ATOMIC_RELAXED);
	if (ip == (uintptr_t)fpw_add && parent != p->last_parent)
		__atomic_fetch_add(&p->bad, 1, __ATOMIC_RELAXED);
}

static void probe_init(struct probe *p, bool with_exit)
{
	memset(p, 0, sizeof(*p));
	p->fp.entry_handler = pr_entry;
	p->fp.exit_handler = with_exit ? pr_exit : NULL;
}

static uintptr_t func_of(uintptr_t addr)
{
	uintptr_t off, size;
	return ksym_lookup(addr, &off, &size) ? addr - off : 0;
}

TEST_CASE(fprobe, entry_exit_data)
{
	static struct probe p;
	probe_init(&p, true);
	ASSERT_EQ(register_fprobe(&p.fp, "fpw_add fpw_mid", NULL), 0);
	EXPECT_TRUE(fprobe_is_registered(&p.fp));
	long sum = 0;
	for (long k = 0; k < 10; k++)
		sum += fpw_mid(k) + fpw_add(k, 100);
	/* fpw_add called straight from here: its parent is in this function. */
	EXPECT_EQ(func_of(p.last_parent), (uintptr_t)test_fprobe_entry_exit_data);
	EXPECT_EQ(unregister_fprobe(&p.fp), 0);
	EXPECT_EQ(sum, 110 + 1045);
	EXPECT_EQ(p.entries, 30);
	EXPECT_EQ(p.exits, 30);
	EXPECT_EQ(p.bad, 0);
	EXPECT_EQ(fprobe_nmissed(&p.fp), 0);
}

TEST_CASE(fprobe, entry_refuses_exit)
{
	static struct probe p;
	probe_init(&p, true);
	p.skip_odd = 1;
	ASSERT_EQ(register_fprobe(&p.fp, "fpw_add", NULL), 0);
	for (long k = 0; k < 10; k++)
		fpw_add(k, 0);
	EXPECT_EQ(unregister_fprobe(&p.fp), 0);
	EXPECT_EQ(p.entries, 10);
	EXPECT_EQ(p.exits, 5);                  /* even first arguments only */
	EXPECT_EQ(p.bad, 0);
}

TEST_CASE(fprobe, entry_only)
{
	/* No exit handler: no return is hooked, so a recursion deeper than
	 * the shadow stack loses nothing. */
	static struct probe p;
	probe_init(&p, false);
	ASSERT_EQ(register_fprobe(&p.fp, "fpw_rec", NULL), 0);
	EXPECT_EQ(fpw_rec(300), 45150);
	EXPECT_EQ(unregister_fprobe(&p.fp), 0);
	EXPECT_EQ(p.entries, 301);
	EXPECT_EQ(p.exits, 0);
	EXPECT_EQ(fprobe_nmissed(&p.fp), 0);
}

/* Two probes on overlapping sets, each with its own data words. */
TEST_CASE(fprobe, overlapping)
{
	static struct probe a, b;
	probe_init(&a, true);
	probe_init(&b, true);
	ASSERT_EQ(register_fprobe(&a.fp, "fpw_add fpw_mid", NULL), 0);
	ASSERT_EQ(register_fprobe(&b.fp, "fpw_add fpw_other", NULL), 0);
	for (long k = 0; k < 3; k++)
		fpw_mid(k);
	for (long k = 0; k < 2; k++)
		fpw_other(k);
	for (long k = 0; k < 4; k++)
		fpw_add(k, k);
	EXPECT_EQ(unregister_fprobe(&a.fp), 0);
	fpw_add(1, 1);                          /* b alone */
	EXPECT_EQ(unregister_fprobe(&b.fp), 0);
	EXPECT_EQ(a.entries, 3 + 3 + 4);
	EXPECT_EQ(a.exits, 10);
	EXPECT_EQ(b.entries, 3 + 2 + 4 + 1);
	EXPECT_EQ(b.exits, 10);
	EXPECT_EQ(a.bad + b.bad, 0);
}

/* The same probe hit from threads pinned to CPU 0 and CPU 1. */
static int call_adds(void *arg)
{
	for (long k = 0; k < 50; k++)
		fpw_add(k, 2);
	return (int)cpu_id();
}

TEST_CASE(fprobe, two_cpus)
{
	if (ncpus < 2)
		TEST_SKIP("needs two CPUs");
	static struct probe p;
	probe_init(&p, true);
	ASSERT_EQ(register_fprobe(&p.fp, "fpw_add", NULL), 0);
	struct thread *t0 = thread_create("fpw-0", call_adds, NULL, 0);
	struct thread *t1 = thread_create("fpw-1", call_adds, NULL, 1);
	ASSERT_TRUE(t0 && t1);
	EXPECT_EQ(thread_join(t0), 0);
	EXPECT_EQ(thread_join(t1), 1);
	EXPECT_EQ(unregister_fprobe(&p.fp), 0);
	EXPECT_EQ(p.entries, 100);
	EXPECT_EQ(p.exits, 100);
	EXPECT_EQ(p.bad, 0);
}

/* -EINVAL, and ftrace_filter_error holds `why` (cleared before the call). */
#define EXPECT_REFUSED(call, why)                                                  \
	do {                                                                       \
		ftrace_filter_error[0] = '\0';                                     \
		EXPECT_EQ(call, -EINVAL);                                          \
		EXPECT_TRUE(strstr(ftrace_filter_error, why) != NULL);             \
	} while (0)

/* Refused filters register nothing, and leave a registered probe as it was. */
TEST_CASE(fprobe, bad_filters)
{
	static struct probe p, other;
	probe_init(&p, true);
	probe_init(&other, true);
	ASSERT_EQ(register_fprobe(&other.fp, "fpw_other", NULL), 0);
	/* Each refusal says why in ftrace_filter_error (a stale reason, or
	 * none, was left there for the empty and the '!'-only filters). */
	EXPECT_REFUSED(register_fprobe(&p.fp, NULL, NULL), "needs a filter");
	EXPECT_REFUSED(register_fprobe(&p.fp, "", NULL), "needs a filter");
	EXPECT_REFUSED(register_fprobe(&p.fp, " , ", NULL), "needs a filter");
	EXPECT_REFUSED(register_fprobe(&p.fp, "fpw_[", NULL), "invalid pattern 'fpw_['");
	EXPECT_REFUSED(register_fprobe(&p.fp, "fpw_no_such_function", NULL),
		       "no function matches 'fpw_no_such_function'");
	EXPECT_REFUSED(register_fprobe(&p.fp, "fpw_add fpw_no_such_function", NULL),
		       "no function matches 'fpw_no_such_function'");
	EXPECT_REFUSED(register_fprobe(&p.fp, "!fpw_add", NULL), "leaves no function");
	EXPECT_REFUSED(register_fprobe(&p.fp, "fpw_add", "fpw_[x"), "invalid pattern 'fpw_[x'");
	EXPECT_TRUE(!fprobe_is_registered(&p.fp));
	fpw_add(1, 2);
	fpw_other(3);
	EXPECT_EQ(p.entries, 0);
	EXPECT_EQ(other.entries, 1);
	EXPECT_EQ(other.exits, 1);
	/* notrace removes from the filter. */
	ASSERT_EQ(register_fprobe(&p.fp, "fpw_*", "fpw_rec fpw_mid fpw_other"), 0);
	EXPECT_EQ(register_fprobe(&p.fp, "fpw_add", NULL), -EBUSY);   /* already on */
	fpw_mid(1);
	fpw_rec(2);
	EXPECT_EQ(unregister_fprobe(&p.fp), 0);
	EXPECT_EQ(unregister_fprobe(&other.fp), 0);
	EXPECT_EQ(p.entries, 1);                /* fpw_add inside fpw_mid */
	EXPECT_EQ(p.exits, 1);
	EXPECT_EQ(p.bad + other.bad, 0);
}

/* A refused registration leaves fp's hashes (those of its last
 * registration) as they were: it once kept the new filter when the notrace
 * list, or an empty result, was refused — and the enomem harness saw that
 * as 8 bytes more heap in use when the new hash took a chunk 8 bytes larger. */
TEST_CASE(fprobe, refusal_keeps_hashes)
{
	static struct probe p;
	probe_init(&p, true);
	ASSERT_EQ(register_fprobe(&p.fp, "fpw_other", "fpw_add"), 0);
	EXPECT_EQ(unregister_fprobe(&p.fp), 0);
	const struct ftrace_hash *f = p.fp.g.ops.filter_hash, *n = p.fp.g.ops.notrace_hash;
	ASSERT_TRUE(f && n);
	EXPECT_EQ(register_fprobe(&p.fp, "fpw_add", "fpw_[x"), -EINVAL);
	EXPECT_EQ(register_fprobe(&p.fp, "fpw_add !fpw_add", NULL), -EINVAL);
	EXPECT_EQ(register_fprobe(&p.fp, "fpw_add", "fpw_no_such_function"), -EINVAL);
	EXPECT_TRUE(p.fp.g.ops.filter_hash == f && p.fp.g.ops.notrace_hash == n);
	EXPECT_TRUE(!fprobe_is_registered(&p.fp));
	fpw_add(1, 2);
	EXPECT_EQ(p.entries, 0);
	/* A registration that succeeds takes the new ones. */
	ASSERT_EQ(register_fprobe(&p.fp, "fpw_add", NULL), 0);
	fpw_add(1, 2);
	fpw_other(3);
	EXPECT_EQ(unregister_fprobe(&p.fp), 0);
	EXPECT_EQ(p.entries, 1);
	EXPECT_EQ(p.exits, 1);
	EXPECT_EQ(p.bad, 0);
}

TEST_CASE(fprobe, unregister_silences)
{
	static struct probe p;
	probe_init(&p, true);
	ASSERT_EQ(register_fprobe(&p.fp, "fpw_add", NULL), 0);
	fpw_add(1, 1);
	EXPECT_EQ(unregister_fprobe(&p.fp), 0);
	EXPECT_EQ(unregister_fprobe(&p.fp), -EINVAL);
	EXPECT_TRUE(!fprobe_is_registered(&p.fp));
	for (long k = 0; k < 5; k++)
		fpw_add(k, 1);
	EXPECT_EQ(p.entries, 1);
	EXPECT_EQ(p.exits, 1);
	/* And it can be registered again. */
	ASSERT_EQ(register_fprobe(&p.fp, "fpw_add", NULL), 0);
	fpw_add(2, 2);
	EXPECT_EQ(unregister_fprobe(&p.fp), 0);
	EXPECT_EQ(p.entries, 2);
	EXPECT_EQ(p.exits, 2);
	EXPECT_EQ(p.bad, 0);
}

/* Recursion deeper than the shadow stack: the calls not hooked are missed. */
TEST_CASE(fprobe, nmissed)
{
	static struct probe p;
	probe_init(&p, true);
	ASSERT_EQ(register_fprobe(&p.fp, "fpw_rec", NULL), 0);
	EXPECT_EQ(fpw_rec(300), 45150);
	uint64_t live = fprobe_nmissed(&p.fp);
	EXPECT_EQ(unregister_fprobe(&p.fp), 0);
	EXPECT_TRUE(p.entries > 100 && p.entries < 301);
	EXPECT_EQ(p.exits, p.entries);
	EXPECT_EQ(fprobe_nmissed(&p.fp), 301 - p.entries);
	EXPECT_EQ(live, 301 - p.entries);
	EXPECT_EQ(p.bad, 0);
}

/* Each fprobe takes a fgraph slot; with none free, -EBUSY and nothing on. */
TEST_CASE(fprobe, no_free_slot)
{
	static struct probe p[FGRAPH_MAX_USERS + 1];
	int n = 0, err = 0;
	while (n <= FGRAPH_MAX_USERS) {
		probe_init(&p[n], true);
		err = register_fprobe(&p[n].fp, "fpw_other", NULL);
		if (err)
			break;
		n++;
	}
	EXPECT_EQ(err, -EBUSY);
	EXPECT_TRUE(n >= 1 && n <= FGRAPH_MAX_USERS);
	EXPECT_TRUE(!fprobe_is_registered(&p[n].fp));
	fpw_other(1);
	for (int i = 0; i < n; i++) {
		EXPECT_EQ(unregister_fprobe(&p[i].fp), 0);
		EXPECT_EQ(p[i].entries, 1);
		EXPECT_EQ(p[i].exits, 1);
	}
	EXPECT_EQ(p[n].entries, 0);
}
