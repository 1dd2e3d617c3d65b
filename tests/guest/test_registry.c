/*
 * test_registry.c — what the owners register (suite registry): the
 * tracers, the event printers and which of them prints an event, the ops
 * set_ftrace_filter drives, the tracefs files (trace/DESIGN.md, "Owners
 * register their parts").
 *
 * The printing cases trace one function of this file (reg_probe, the
 * filter's only function) on CPU 0, write a mark, and read `cat trace`
 * back through console_tap: the function tracer's line comes from the
 * TRACE_FN printer, a mark under nop or function from the TRACE_PRINT
 * printer, and under function_graph from the tracer's own print (a
 * comment in the graph), never the other way.
 */
#include <stdlib.h>
#include <string.h>

#include "boot/console.h"
#include "boot/sched.h"
#include "boot/test.h"
#include "lib/noipa.h"
#include "trace/boot.h"
#include "trace/ftrace.h"
#include "trace/function.h"
#include "trace/global_ops.h"
#include "trace/graph.h"
#include "trace/hash.h"
#include "trace/trace.h"

extern struct ftrace_ops *const __global_ops_start[], *const __global_ops_end[];

static struct {
	char text[8192];
	size_t len;
} out;

static void tap(void *ctx, const char *s, size_t n)
{
	size_t room = sizeof(out.text) - 1 - out.len;
	n = n < room ? n : room;
	memcpy(out.text + out.len, s, n);
	out.len += n;
	out.text[out.len] = '\0';
}

/* `cat trace` into out.text. */
static void cat_trace(void)
{
	char line[] = "trace";
	bool handled;
	memset(&out, 0, sizeof(out));
	console_tap(tap, NULL);
	tracefs_command("cat", line, &handled);
	console_tap(NULL, NULL);
}

static volatile int reg_sink;
__attribute__((noinline)) noipa int reg_probe(int x)
{
	reg_sink = x;
	return x + 1;
}

/* Under `tracer` (its buffer empty, only reg_probe traced, on CPU 0):
 * reg_probe once, then the mark "reg-mark"; the trace in out.text. */
static bool trace_probe_and_mark(const char *tracer)
{
	thread_migrate(current_thread(), 0);
	bool ok = tracer_set("nop") == 0 && trace_filter_set(false, "reg_probe", true) == 0 &&
		  tracer_set(tracer) == 0;
	if (ok) {
		reg_probe(1);
		ok = tracing_mark_write("reg-mark") == 0;
		cat_trace();
	}
	tracer_set("nop");
	trace_filter_set(false, "", true);
	thread_migrate(current_thread(), -1);
	return ok;
}

/* Under `tracer`: the trace holds every string of `has` and none of
 * `lacks` (NULL-ended lists). */
static void expect_trace(const char *tracer, const char *const has[], const char *const lacks[])
{
	ASSERT_TRUE(trace_buffer != NULL);
	ASSERT_TRUE(trace_probe_and_mark(tracer));
	for (; *has; has++)
		if (!strstr(out.text, *has))
			test_fail(__FILE__, __LINE__, "%s: no \"%.*s\" in the trace", tracer,
				  (int)strcspn(*has, "\n"), *has);
	for (; *lacks; lacks++)
		if (strstr(out.text, *lacks))
			test_fail(__FILE__, __LINE__, "%s: \"%.*s\" in the trace", tracer,
				  (int)strcspn(*lacks, "\n"), *lacks);
}

TEST_CASE(registry, function_event_and_mark_by_their_printers)
{
	static const char *const has[] = { "# tracer: function\n", ": reg_probe <-",
					   ": tracing_mark_write: reg-mark\n", NULL };
	static const char *const lacks[] = { "/* reg-mark */", NULL };
	expect_trace("function", has, lacks);
}

TEST_CASE(registry, graph_tracer_prints_the_mark_as_a_comment)
{
	static const char *const has[] = { "# tracer: function_graph\n", "reg_probe();",
					   "/* reg-mark */\n", NULL };
	static const char *const lacks[] = { "tracing_mark_write: reg-mark", NULL };
	expect_trace("function_graph", has, lacks);
}

TEST_CASE(registry, nop_prints_a_mark_in_the_function_format)
{
	static const char *const has[] = { "# tracer: nop\n", ": tracing_mark_write: reg-mark\n",
					   NULL };
	static const char *const lacks[] = { "reg_probe", NULL };      /* nop traces nothing */
	expect_trace("nop", has, lacks);
}

static void add_name(const char *name, void *arg)
{
	char *s = arg;
	size_t n = strlen(s);
	ksnprintf(s + n, 64 - n, "%s%s", n ? " " : "", name);
}

TEST_CASE(registry, tracers_in_key_order)
{
	char names[64] = "";
	tracer_list(add_name, names);
	EXPECT_STREQ(names, "nop function function_graph");
	EXPECT_TRUE(tracer_find("function_graph") != NULL);
	EXPECT_TRUE(tracer_find("function_graphx") == NULL);
}

/* The function tracer, function_graph and the profiler: each follows
 * set_ftrace_filter, all three alike. */
TEST_CASE(registry, global_ops_share_the_filter)
{
	uintptr_t ip = (uintptr_t)reg_probe;
	unsigned n = (unsigned)(__global_ops_end - __global_ops_start);
	bool fn = false, graph = false;
	EXPECT_EQ(n, 3);
	for (unsigned i = 0; i < n; i++) {
		fn |= __global_ops_start[i] == &function_ops;
		graph |= __global_ops_start[i] == &graph_fgraph_ops.ops;
	}
	EXPECT_TRUE(fn && graph);
	ASSERT_EQ(trace_filter_set(false, "reg_probe", true), 0);
	for (unsigned i = 0; i < n; i++) {
		const struct ftrace_hash *h = __global_ops_start[i]->filter_hash;
		EXPECT_TRUE(h && h->count == 1);
		EXPECT_TRUE(hash_contains(h, ip));
	}
	EXPECT_TRUE(trace_filter_hash(false) == __global_ops_start[0]->filter_hash);
	ASSERT_EQ(trace_filter_set(false, "", true), 0);
	for (unsigned i = 0; i < n; i++)
		EXPECT_TRUE(hash_empty(__global_ops_start[i]->filter_hash));
}

static void count_file(void *ctx, const char *name)
{
	const char **names = ctx;
	unsigned i = 0;
	while (names[i])
		i++;
	if (i < 31)
		names[i] = name;
}

/* Every file once (a key or a name given twice would go unseen in `ls`). */
TEST_CASE(registry, tracefs_files_unique)
{
	const char *names[32] = { NULL };
	tracefs_list_files(count_file, names);
	unsigned n = 0;
	while (names[n])
		n++;
	EXPECT_EQ(n, 24);
	EXPECT_STREQ(names[0], "available_tracers");
	EXPECT_STREQ(names[n - 1], "per_cpu/");
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < i; j++)
			EXPECT_TRUE(strcmp(names[i], names[j]) != 0);
}
