/*
 * test_enomem.c — the enomem suite: each operation of the tracer run by
 * sweep() (enomem_harness.c, which says what is checked) with its
 * allocations failing in turn; a failed operation must return -ENOMEM and
 * leave the tracer exactly as it was.  Cases by subsystem.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "arch/tests.h"
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
#include "trace/graph.h"
#include "trace/hash.h"
#include "trace/profile.h"
#include "trace/records.h"
#include "trace/global_ops.h"
#include "trace/trace.h"
#include "trace/boot.h"
#include "tests/guest/enomem.h"

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
	EXPECT_TRUE(st.blocks == 0 && st.addr == 0);
	EXPECT_TRUE(!other_failed);
}

/* The block balance: the armed thread's blocks got and given back. */
TEST_CASE(enomem, failalloc_balance)
{
	struct failalloc_stats st;
	void *old = malloc(40);
	ASSERT_TRUE(old != NULL);
	/* Each allocator's block given back, a realloc moving one, a failed
	 * allocation, free(NULL): balanced. */
	failalloc_start(3, 1);
	void *p = malloc(24), *q = calloc(3, 8), *r = memalign(64, 64);
	EXPECT_TRUE(malloc(8) == NULL);
	void *m = realloc(NULL, 16);
	void *moved = realloc(m, 4096);
	free(q); free(p); free(r); free(moved); free(NULL);
	failalloc_stop(&st);
	EXPECT_TRUE(p && q && r && m && moved && moved != m);
	EXPECT_EQ(st.blocks, 0);
	EXPECT_EQ(st.addr, 0);
	/* One kept: its address. */
	failalloc_start(0, 0);
	p = malloc(24);
	failalloc_stop(&st);
	free(p);                             /* disarmed: not counted */
	EXPECT_EQ(st.blocks, 1);
	EXPECT_EQ(st.addr, (uintptr_t)p);
	/* One older block given back and a new one kept: the count balances,
	 * the addresses do not (what a failed register_fprobe once did). */
	failalloc_start(0, 0);
	p = malloc(40);
	free(old);
	failalloc_stop(&st);
	EXPECT_EQ(st.blocks, 0);
	EXPECT_EQ(st.addr, (uintptr_t)p - (uintptr_t)old);
	free(p);
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
	struct listing t = { 0 };
	btf_status(listing_line, &t);
	if (!strstr(t.text, "embedded"))
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

/* A traceoff command on en_a: the state snapshots call en_a, which turns
 * tracing off while the command is there; taking it back turns it on. */
static int cmd_add(void) { return shell("echo", "en_a:traceoff:3 > set_ftrace_filter"); }
static int cmd_remove(void)
{
	int err = shell("echo", "!en_a:traceoff > set_ftrace_filter");
	tracing_on();
	return err;
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
	sweep("echo en_a:traceoff:3 > set_ftrace_filter", cmd_add, cmd_remove);
	/* A read that allocates: -ENOMEM and nothing else. */
	ASSERT_EQ(profile_set_filter("en_a en_b", true), 0);
	ASSERT_EQ(profile_enable(), 0);
	EXPECT_TRUE(sweep("cat trace_stat/function0", cat_stat, nothing) > 0);
	profile_disable();
	EXPECT_EQ(profile_set_filter("", true), 0);
	tracers_back();
	EXPECT_TRUE(all_clear());
}

/* What a tracefs write refused for lack of memory prints: errno's text, as
 * Linux's echo does, not the reason a blob or a value is refused, after
 * what the subsystem said (`before`).  Every allocation fails, from the
 * first on. */
static void says_no_memory(const char *args, const char *before)
{
	char want[160];
	ksnprintf(want, sizeof(want), "%secho: write error: Cannot allocate memory\n", before);
	static struct listing out;
	memset(&out, 0, sizeof(out));
	console_tap(listing_append, &out);
	failalloc_start(0, ~0u);
	int err = shell("echo", args);
	failalloc_stop(NULL);
	console_tap(NULL, NULL);
	EXPECT_EQ(err, -ENOMEM);
	EXPECT_STREQ(out.text, want);
}

TEST_CASE(enomem, tracefs_write_errors_say_no_memory)
{
	struct listing t = { 0 };
	btf_status(listing_line, &t);
	if (!strstr(t.text, "embedded"))
		TEST_SKIP("no embedded BTF loaded");
	char btf_said[96];                 /* t: "embedded: N types, M functions" */
	ksnprintf(btf_said, sizeof(btf_said), "btf: embedded: rejected: out of memory for %lu types\n",
		  strtoul(t.text + strlen("embedded: "), NULL, 10));
	says_no_memory("embedded > btf", btf_said);
	says_no_memory("en_a > set_ftrace_filter", "");
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
