/*
 * test_func_cmd.c — set_ftrace_filter's traceon / traceoff commands
 * (trace/func_cmd.h), written and listed through the tracefs shell's own
 * entry (tracefs_command): exact counts per function, a count used only by
 * a call that changes tracing_on, replacing and removing, the function
 * filter left alone, `cat set_ftrace_filter`'s exact text, and each bad
 * write refused with its message and nothing changed (listing, filter,
 * enabled_functions).
 *
 * The fcmd_* functions are the targets (this file is built with patchable
 * entries).  Every case leaves tracing on, as it found it.
 */
#include <errno.h>
#include <string.h>

#include "boot/console.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "lib/noipa.h"
#include "tests/guest/listing.h"
#include "trace/core/ftrace.h"
#include "trace/func_cmd.h"
#include "trace/trace.h"
#include "trace/boot.h"

#define T __attribute__((noinline)) noclone
#define KEEP() __asm__ volatile("" ::: "memory")

static volatile int sink;
T void fcmd_a(void) { sink++; KEEP(); }
T void fcmd_b(void) { sink++; KEEP(); }

static int echo(const char *args)
{
	char line[256];
	bool handled;
	ksnprintf(line, sizeof(line), "%s", args);
	return tracefs_command("echo", line, &handled);
}

/* What `cat set_ftrace_filter` prints, as it prints it. */
static const char *cat_filter(void)
{
	static struct listing out;
	char line[32] = "set_ftrace_filter";
	bool handled;
	memset(&out, 0, sizeof(out));
	console_tap(listing_append, &out);
	tracefs_command("cat", line, &handled);
	console_tap(NULL, NULL);
	return out.text;
}

/* `cat set_ftrace_filter` with an empty filter and one command line each
 * for fcmd_a and fcmd_b, in address order. */
static const char *two_lines(const char *a, const char *b)
{
	static char want[160];
	bool a_first = (uintptr_t)fcmd_a < (uintptr_t)fcmd_b;
	ksnprintf(want, sizeof(want), "#### all functions enabled ####\n%s\n%s\n",
		  a_first ? a : b, a_first ? b : a);
	return want;
}

TEST_CASE(func_cmd, traceoff_counts_only_changes)
{
	ASSERT_TRUE(tracing_is_on());
	ASSERT_EQ(echo("fcmd_a:traceoff:2 > set_ftrace_filter"), 0);
	EXPECT_STREQ(cat_filter(), "#### all functions enabled ####\nfcmd_a:traceoff:count=2\n");
	fcmd_b();                                   /* no command: nothing */
	EXPECT_TRUE(tracing_is_on());
	fcmd_a();                                   /* on -> off: one used */
	EXPECT_TRUE(!tracing_is_on());
	EXPECT_STREQ(cat_filter(), "#### all functions enabled ####\nfcmd_a:traceoff:count=1\n");
	fcmd_a();                                   /* already off: none used */
	EXPECT_STREQ(cat_filter(), "#### all functions enabled ####\nfcmd_a:traceoff:count=1\n");
	tracing_on();
	fcmd_a();                                   /* the last one */
	EXPECT_TRUE(!tracing_is_on());
	tracing_on();
	fcmd_a();                                   /* count 0: no more */
	EXPECT_TRUE(tracing_is_on());
	EXPECT_STREQ(cat_filter(), "#### all functions enabled ####\nfcmd_a:traceoff:count=0\n");
	ASSERT_EQ(echo("'!fcmd_a:traceoff' >> set_ftrace_filter"), 0);
	EXPECT_STREQ(cat_filter(), "#### all functions enabled ####\n");
	static struct listing en;
	EXPECT_TRUE(!strstr(enabled_listing(&en), "fcmd_a"));   /* its ops went */
	tracing_on();
}

TEST_CASE(func_cmd, traceon_unlimited_by_glob_and_replaced)
{
	ASSERT_EQ(echo("fcmd_*:traceon >> set_ftrace_filter"), 0);
	EXPECT_STREQ(cat_filter(),
		     two_lines("fcmd_a:traceon:unlimited", "fcmd_b:traceon:unlimited"));
	for (int i = 0; i < 3; i++) {
		tracing_off();
		(i & 1 ? fcmd_b : fcmd_a)();
		EXPECT_TRUE(tracing_is_on());
	}
	/* Written again for one function: its count replaces the old one. */
	ASSERT_EQ(echo("fcmd_b:traceon:1 > set_ftrace_filter"), 0);
	EXPECT_STREQ(cat_filter(),
		     two_lines("fcmd_a:traceon:unlimited", "fcmd_b:traceon:count=1"));
	tracing_off();
	fcmd_b();
	EXPECT_TRUE(tracing_is_on());
	tracing_off();
	fcmd_b();                                   /* used up */
	EXPECT_TRUE(!tracing_is_on());
	fcmd_a();
	EXPECT_TRUE(tracing_is_on());
	ASSERT_EQ(echo("'!fcmd_*:traceon' > set_ftrace_filter"), 0);
	EXPECT_STREQ(cat_filter(), "#### all functions enabled ####\n");
	tracing_off();
	fcmd_a();                                   /* gone: nothing */
	EXPECT_TRUE(!tracing_is_on());
	tracing_on();
}

TEST_CASE(func_cmd, filter_and_commands_apart)
{
	ASSERT_EQ(echo("fcmd_b > set_ftrace_filter"), 0);
	ASSERT_EQ(echo("fcmd_a:traceoff > set_ftrace_filter"), 0);   /* > too: filter kept */
	EXPECT_STREQ(cat_filter(), "fcmd_b\nfcmd_a:traceoff:unlimited\n");
	ASSERT_EQ(echo(" > set_ftrace_filter"), 0);                   /* the filter only */
	EXPECT_STREQ(cat_filter(), "#### all functions enabled ####\nfcmd_a:traceoff:unlimited\n");
	fcmd_a();
	EXPECT_TRUE(!tracing_is_on());
	tracing_on();
	ASSERT_EQ(echo("!fcmd_a:traceoff > set_ftrace_filter"), 0);
	EXPECT_STREQ(cat_filter(), "#### all functions enabled ####\n");
}

TEST_CASE(func_cmd, bad_writes_change_nothing)
{
	static const struct {
		const char *write, *why;
	} bad[] = {
		{ "fcmd_a:nosuch", "no command 'nosuch' (traceon, traceoff)" },
		{ "fcmd_a:traceoff:x", "count 'x' of traceoff is not a number" },
		{ "fcmd_a:traceoff:-1", "count '-1' of traceoff is not a number" },
		{ "fcmd_a:traceoff:3z", "count '3z' of traceoff is not a number" },
		{ "fcmd_a:traceoff:0x", "count '0x' of traceoff is not a number" },
		{ "fcmd_a:traceoff:08", "count '08' of traceoff is not a number" },
		{ "nosuch_fn_*:traceoff", "no function matches 'nosuch_fn_*'" },
		{ "[x:traceoff", "invalid pattern '[x': unterminated '[' in pattern" },
		{ "fcmd_b:traceoff fcmd_a",
		  "'fcmd_a': a function name among commands (one write holds either)" },
		{ "!fcmd_a:traceon", "no function matching 'fcmd_a' has traceon" },
		{ "fcmd_b:traceoff fcmd_b:nosuch", "no command 'nosuch' (traceon, traceoff)" },
		/* Judged after the write's earlier words, before any applies. */
		{ "fcmd_a:traceoff !fcmd_a:traceon", "no function matching 'fcmd_a' has traceon" },
		{ "fcmd_a:traceon !fcmd_a:traceon !fcmd_a:traceon",
		  "no function matching 'fcmd_a' has traceon" },
	};
	static struct listing en0, en1;
	char before[256], want[192], line[256];
	ASSERT_EQ(echo("fcmd_a > set_ftrace_filter"), 0);
	ASSERT_EQ(echo("fcmd_b:traceon:4 >> set_ftrace_filter"), 0);
	ksnprintf(before, sizeof(before), "%s", cat_filter());
	EXPECT_STREQ(before, "fcmd_a\nfcmd_b:traceon:count=4\n");
	enabled_listing(&en0);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		static struct listing out;
		bool handled;
		ksnprintf(line, sizeof(line), "%s > set_ftrace_filter", bad[i].write);
		memset(&out, 0, sizeof(out));
		console_tap(listing_append, &out);
		int err = tracefs_command("echo", line, &handled);
		console_tap(NULL, NULL);
		EXPECT_EQ(err, -EINVAL);
		ksnprintf(want, sizeof(want), "echo: write error: Invalid argument (%s)\n", bad[i].why);
		EXPECT_STREQ(out.text, want);
		EXPECT_STREQ(cat_filter(), before);
		EXPECT_STREQ(enabled_listing(&en1), en0.text);
	}
	/* Seventeen words: one too many. */
	static char many[512];
	many[0] = '\0';
	for (int i = 0; i < 17; i++)
		ksnprintf(many + strlen(many), sizeof(many) - strlen(many), "fcmd_a:traceon ");
	ksnprintf(many + strlen(many), sizeof(many) - strlen(many), "> set_ftrace_filter");
	bool handled;
	EXPECT_EQ(tracefs_command("echo", many, &handled), -EINVAL);
	EXPECT_STREQ(func_cmd_error, "more than 16 commands in one write");
	EXPECT_STREQ(cat_filter(), before);
	ASSERT_EQ(echo("!fcmd_b:traceon > set_ftrace_filter"), 0);
	ASSERT_EQ(echo(" > set_ftrace_filter"), 0);
	EXPECT_STREQ(cat_filter(), "#### all functions enabled ####\n");
	EXPECT_TRUE(tracing_is_on());
}

/* A write's words apply in order: a removal may take what an earlier word
 * of the same write added. */
TEST_CASE(func_cmd, words_in_order)
{
	ASSERT_EQ(echo("fcmd_a:traceon:2 !fcmd_a:traceon fcmd_b:traceoff:1 > set_ftrace_filter"), 0);
	EXPECT_STREQ(cat_filter(), "#### all functions enabled ####\nfcmd_b:traceoff:count=1\n");
	ASSERT_EQ(echo("!fcmd_b:traceoff > set_ftrace_filter"), 0);
	EXPECT_STREQ(cat_filter(), "#### all functions enabled ####\n");
}

/* Counts as Linux reads them (kstrtoul base 0): hex, octal, and an empty
 * count for no limit. */
TEST_CASE(func_cmd, count_bases)
{
	ASSERT_EQ(echo("fcmd_a:traceoff:0x10 fcmd_b:traceoff:010 > set_ftrace_filter"), 0);
	EXPECT_STREQ(cat_filter(),
		     two_lines("fcmd_a:traceoff:count=16", "fcmd_b:traceoff:count=8"));
	ASSERT_EQ(echo("fcmd_a:traceoff: > set_ftrace_filter"), 0);
	EXPECT_STREQ(cat_filter(),
		     two_lines("fcmd_a:traceoff:unlimited", "fcmd_b:traceoff:count=8"));
	ASSERT_EQ(echo("!fcmd_*:traceoff > set_ftrace_filter"), 0);
	EXPECT_STREQ(cat_filter(), "#### all functions enabled ####\n");
	EXPECT_TRUE(tracing_is_on());
}

/* Tables replaced while other CPUs run the callbacks: workers on every
 * other CPU call fcmd_a / fcmd_b and put tracing back on; this thread
 * rewrites and removes the commands.  No crash, and at the end a last
 * count runs down to exactly 0 (never below: a CAS per change). */
static volatile bool stress_stop;

static int stress_worker(void *arg)
{
	unsigned long calls = 0;
	while (!__atomic_load_n(&stress_stop, __ATOMIC_RELAXED)) {
		fcmd_a();
		fcmd_b();
		if (!tracing_is_on())
			tracing_on();
		calls++;
	}
	return (int)(calls > 0);
}

TEST_CASE(func_cmd, swap_under_callers)
{
	static const char *const writes[] = {
		"fcmd_a:traceoff:3 fcmd_b:traceon > set_ftrace_filter",
		"fcmd_*:traceoff:7 > set_ftrace_filter",
		"!fcmd_b:traceoff > set_ftrace_filter",
		"fcmd_b:traceoff fcmd_a:traceon:2 > set_ftrace_filter",
		"!fcmd_*:traceoff !fcmd_*:traceon > set_ftrace_filter",
	};
	struct thread *t[MAX_CPUS];
	unsigned nw = 0;
	if (ncpus < 2)
		TEST_SKIP("needs two CPUs");
	stress_stop = false;
	for (unsigned c = 1; c < ncpus; c++)
		if ((t[nw] = thread_create("fcmd-w", stress_worker, NULL, (int)c)))
			nw++;
	for (unsigned i = 0; i < 60; i++)
		EXPECT_EQ(echo(writes[i % 5]), 0);
	ASSERT_EQ(echo("fcmd_a:traceoff:5 > set_ftrace_filter"), 0);
	for (unsigned i = 0; i < 2000 && strcmp(cat_filter(), "#### all functions enabled ####\n"
					      "fcmd_a:traceoff:count=0\n"); i++)
		thread_yield();
	__atomic_store_n(&stress_stop, true, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < nw; i++)
		EXPECT_EQ(thread_join(t[i]), 1);
	EXPECT_STREQ(cat_filter(), "#### all functions enabled ####\nfcmd_a:traceoff:count=0\n");
	ASSERT_EQ(echo("!fcmd_a:traceoff > set_ftrace_filter"), 0);
	EXPECT_STREQ(cat_filter(), "#### all functions enabled ####\n");
	tracing_on();
}
