/*
 * test_graph_output.c — cmocka tests of trace/tracers/function_graph_output.c on the host:
 * the function_graph text, byte for byte, as Linux prints it for the same
 * events and options.
 *
 * Events go through a real ring buffer (host port, fake clock: one cycle is
 * one nanosecond) and are read back with the merged iterator, the way
 * trace_print_all() does; kprintf() output is captured (shim_graph.c).
 * Expected lines are written out in full: they are the format.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "graph_text.h"
#include "rb_host.h"
#include "trace/btf/btf.h"
#include "trace/tracers/function_graph.h"
#include "trace/options.h"

/* Functions in shim_graph.c's symbol table. */
enum {
	DO_WORK = 0x1000, LEAF_A = 0x2000, HANDLE_IRQ = 0x3000, TIMER_TICK = 0x4000,
	VOID_FN = 0x5000, UNKNOWN_FN = 0x9000,
};
#define IRQ TRACE_FLAG_HARDIRQ
#define OPT(o) (1ul << (o))

/* Linux's task-switch banner pieces. */
#define DASHES " ------------------------------------------\n"
#define PROC_DEMO  "   demo-12    "       /* "demo-12" centred in 14 */
#define PROC_IDLE  "   <idle>-0   "
#define PROC_KWORK "  kworker-7   "       /* comm cut to 7 characters */

static struct rb_buffer *buf;
static struct trace_iter ti;

static int setup(void **state)
{
	(void)state;
	buf = graph_test_buffer();
	ncpus = 4;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rb_destroy(buf);
	return 0;
}

static void opt_on(enum trace_opt o)  { trace_opts |= OPT(o); }
static void opt_off(enum trace_opt o) { trace_opts &= ~OPT(o); }

/* ---- Writing events ---- */

static void put_event(unsigned cpu, uint64_t ts, const void *e, uint32_t len)
{
	rb_host_cpu = cpu;
	graph_test_now = ts;
	assert_int_equal(rb_write(buf, e, len), 0);
}

static void ent_args(unsigned cpu, uint64_t ts, int pid, uint8_t flags, uint64_t func,
		     uint32_t depth, const uint64_t *args, unsigned nargs)
{
	struct { struct fgraph_ent_entry e; uint64_t args[8]; } ev;
	memset(&ev, 0, sizeof(ev));
	ev.e.ent = (struct trace_entry){ TRACE_GRAPH_ENT, flags, 0, pid };
	ev.e.func = func;
	ev.e.depth = depth;
	ev.e.nargs = nargs;
	memcpy(ev.args, args, nargs * sizeof(uint64_t));
	put_event(cpu, ts, &ev, (uint32_t)(sizeof(ev.e) + nargs * sizeof(uint64_t)));
}

static void ent(unsigned cpu, uint64_t ts, int pid, uint8_t flags, uint64_t func, uint32_t depth)
{
	ent_args(cpu, ts, pid, flags, func, depth, NULL, 0);
}

static void ret_full(unsigned cpu, uint64_t ts, int pid, uint8_t flags, uint64_t func,
		     uint32_t depth, uint64_t calltime, uint64_t retval, uint32_t overrun)
{
	struct fgraph_ret_entry e = {
		.ent = { TRACE_GRAPH_RET, flags, 0, pid },
		.func = func, .retval = retval, .depth = depth, .overrun = overrun,
		.calltime = calltime, .rettime = ts,
	};
	put_event(cpu, ts, &e, sizeof(e));
}

static void ret(unsigned cpu, uint64_t ts, int pid, uint8_t flags, uint64_t func,
		uint32_t depth, uint64_t calltime)
{
	ret_full(cpu, ts, pid, flags, func, depth, calltime, 0, 0);
}

/* A leaf call: entry at ts, exit `dur` ns later. */
static void leaf(unsigned cpu, uint64_t ts, int pid, uint64_t func, uint32_t depth, uint64_t dur)
{
	ent(cpu, ts, pid, 0, func, depth);
	ret(cpu, ts + dur, pid, 0, func, depth, ts);
}

/* ---- Printing: trace_print_all()'s loop ---- */

static const char *print_all(void)
{
	return graph_text(buf, &ti);
}

static const char *header(void)
{
	shim_out_reset();
	graph_print_header();
	return shim_out;
}

/* ---- Header ---- */

static void test_header_default(void **state)
{
	(void)state;
	assert_string_equal(header(),
		"# CPU  DURATION                  FUNCTION CALLS\n"
		"# |     |   |                     |   |   |   |\n");
}

static void test_header_columns(void **state)
{
	(void)state;
	opt_on(TRACE_OPT_FUNCGRAPH_ABSTIME);
	opt_on(TRACE_OPT_FUNCGRAPH_PROC);
	assert_string_equal(header(),
		"#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
		"#      |          |     |    |           |   |                     |   |   |   |\n");
	opt_off(TRACE_OPT_FUNCGRAPH_CPU);
	opt_off(TRACE_OPT_FUNCGRAPH_DURATION);
	opt_off(TRACE_OPT_FUNCGRAPH_ABSTIME);
	assert_string_equal(header(),
		"#  TASK/PID                      FUNCTION CALLS\n"
		"#   |    |                       |   |   |   |\n");
	opt_off(TRACE_OPT_FUNCGRAPH_PROC);
	assert_string_equal(header(),
		"#               FUNCTION CALLS\n"
		"#               |   |   |   |\n");
}

static void test_header_raw_notice(void **state)
{
	(void)state;
	const char *notice = "# no BTF loaded: arguments and return values are raw words\n";
	opt_on(TRACE_OPT_FUNCGRAPH_ARGS);
	assert_memory_equal(header(), notice, strlen(notice));
	opt_off(TRACE_OPT_FUNCGRAPH_ARGS);
	opt_on(TRACE_OPT_FUNCGRAPH_RETVAL);
	assert_memory_equal(header(), notice, strlen(notice));
	shim_load_sigs();
	assert_string_equal(header(),
		"# CPU  DURATION                  FUNCTION CALLS\n"
		"# |     |   |                     |   |   |   |\n");
}

/* ---- Lines ---- */

static void write_nested(void)
{
	ent(0, 1000, 12, 0, DO_WORK, 0);
	leaf(0, 2000, 12, LEAF_A, 1, 500);
	ent(0, 3000, 12, 0, VOID_FN, 1);
	leaf(0, 3100, 12, LEAF_A, 2, 250);
	ret(0, 4000, 12, 0, VOID_FN, 1, 3000);
	ret(0, 15000, 12, 0, DO_WORK, 0, 1000);
}

static void test_nested_and_leaf(void **state)
{
	(void)state;
	write_nested();
	assert_string_equal(print_all(),
		" 0)               |  do_work() {\n"
		" 0)   0.500 us    |    leaf_a();\n"
		" 0)               |    void_fn() {\n"
		" 0)   0.250 us    |      leaf_a();\n"
		" 0)   1.000 us    |    }\n"
		" 0) + 14.000 us   |  }\n");
}

static void test_durations_and_marks(void **state)
{
	(void)state;
	static const uint64_t durs[] = {
		0, 999, 10000, 10001, 100000, 100001, 1000001, 10000001, 100000001,
		1000000001, 12345678901ull,
	};
	uint64_t t = 1000;
	for (size_t i = 0; i < sizeof(durs) / sizeof(durs[0]); i++) {
		leaf(0, t, 12, LEAF_A, 0, durs[i]);
		t += durs[i] + 1000;
	}
	assert_string_equal(print_all(),
		" 0)   0.000 us    |  leaf_a();\n"
		" 0)   0.999 us    |  leaf_a();\n"
		" 0)   10.000 us   |  leaf_a();\n"
		" 0) + 10.001 us   |  leaf_a();\n"
		" 0) + 100.000 us  |  leaf_a();\n"
		" 0) ! 100.001 us  |  leaf_a();\n"
		" 0) # 1000.001 us |  leaf_a();\n"
		" 0) * 10000.00 us |  leaf_a();\n"
		" 0) @ 100000.0 us |  leaf_a();\n"
		" 0) $ 1000000 us  |  leaf_a();\n"
		" 0) $ 12345678 us |  leaf_a();\n");
}

static void test_overhead_off(void **state)
{
	(void)state;
	opt_off(TRACE_OPT_FUNCGRAPH_OVERHEAD);
	leaf(0, 1000, 12, LEAF_A, 0, 100001);
	assert_string_equal(print_all(), " 0)   100.001 us  |  leaf_a();\n");
}

static void test_duration_off(void **state)
{
	(void)state;
	opt_off(TRACE_OPT_FUNCGRAPH_DURATION);
	write_nested();
	assert_string_equal(print_all(),
		" 0) do_work() {\n"
		" 0)   leaf_a();\n"
		" 0)   void_fn() {\n"
		" 0)     leaf_a();\n"
		" 0)   }\n"
		" 0) }\n");
}

static void test_cpu_off_and_width(void **state)
{
	(void)state;
	opt_off(TRACE_OPT_FUNCGRAPH_CPU);
	leaf(0, 1000, 12, LEAF_A, 0, 500);
	assert_string_equal(print_all(), "  0.500 us    |  leaf_a();\n");
	/* 12 CPUs: the column is as wide as "11". */
	opt_on(TRACE_OPT_FUNCGRAPH_CPU);
	ncpus = 12;
	leaf(11, 2000, 12, LEAF_A, 0, 500);
	assert_string_equal(print_all(),
		"  0)   0.500 us    |  leaf_a();\n"
		" 11)   0.500 us    |  leaf_a();\n");
}

static void test_proc(void **state)
{
	(void)state;
	opt_on(TRACE_OPT_FUNCGRAPH_PROC);
	ent(0, 1000, 12, 0, DO_WORK, 0);
	leaf(0, 2000, 12, LEAF_A, 1, 500);
	ret(0, 3000, 12, 0, DO_WORK, 0, 1000);
	leaf(1, 4000, 7, LEAF_A, 0, 500);
	leaf(2, 5000, 0, LEAF_A, 0, 500);
	leaf(3, 6000, 123456, LEAF_A, 0, 500);
	assert_string_equal(print_all(),
		" 0) " PROC_DEMO " | " "              |  do_work() {\n"
		" 0) " PROC_DEMO " | " "  0.500 us    |    leaf_a();\n"
		" 0) " PROC_DEMO " | " "  2.000 us    |  }\n"
		" 1) " PROC_KWORK " | " "  0.500 us    |  leaf_a();\n"
		" 2) " PROC_IDLE " | " "  0.500 us    |  leaf_a();\n"
		" 3)  <...>-123456  | " "  0.500 us    |  leaf_a();\n");
}

static void test_abstime(void **state)
{
	(void)state;
	opt_on(TRACE_OPT_FUNCGRAPH_ABSTIME);
	leaf(0, 5000, 12, LEAF_A, 0, 500);
	ent(0, 1234567890123ull, 12, 0, DO_WORK, 0);
	ret(0, 1234567899123ull, 12, 0, DO_WORK, 0, 1234567890123ull);
	ent(0, 1234567999999ull, 12, 0, DO_WORK, 0);   /* not a leaf: exit on CPU 1 */
	ret(1, 1234568000000ull, 12, 0, DO_WORK, 0, 1234567990000ull);
	assert_string_equal(print_all(),
		"    0.000005 |   0)   0.500 us    |  leaf_a();\n"
		" 1234.567890 |   0)   9.000 us    |  do_work();\n"
		" 1234.567999 |   0)               |  do_work() {\n"
		" 1234.568000 |   1)   10.000 us   |  } /* do_work */\n");
}

static void test_tail(void **state)
{
	(void)state;
	opt_on(TRACE_OPT_FUNCGRAPH_TAIL);
	write_nested();
	assert_string_equal(print_all(),
		" 0)               |  do_work() {\n"
		" 0)   0.500 us    |    leaf_a();\n"
		" 0)               |    void_fn() {\n"
		" 0)   0.250 us    |      leaf_a();\n"
		" 0)   1.000 us    |    } /* void_fn */\n"
		" 0) + 14.000 us   |  } /* do_work */\n");
}

static void write_retvals(void)
{
	ent(0, 1000, 12, 0, DO_WORK, 0);
	ent(0, 2000, 12, 0, LEAF_A, 1);
	ret_full(0, 2500, 12, 0, LEAF_A, 1, 2000, 0, 0);
	ent(0, 3000, 12, 0, VOID_FN, 1);
	ret_full(0, 3500, 12, 0, VOID_FN, 1, 3000, 0x1234, 0);
	ent(0, 4000, 12, 0, VOID_FN, 1);
	leaf(0, 4100, 12, LEAF_A, 2, 100);
	ret_full(0, 5000, 12, 0, VOID_FN, 1, 4000, 0x5678, 0);
	ret_full(0, 10000, 12, 0, DO_WORK, 0, 1000, 0xffffffea, 0);
}

static void test_retval_raw(void **state)
{
	(void)state;
	opt_on(TRACE_OPT_FUNCGRAPH_RETVAL);
	write_retvals();
	/* No BTF: the raw register, error values as Linux spots them in it. */
	assert_string_equal(print_all(),
		" 0)               |  do_work() {\n"
		" 0)   0.500 us    |    leaf_a(); /* ret=0x0 */\n"
		" 0)   0.500 us    |    void_fn(); /* ret=0x1234 */\n"
		" 0)               |    void_fn() {\n"
		" 0)   0.100 us    |      leaf_a(); /* ret=0x0 */\n"
		" 0)   1.000 us    |    } /* void_fn ret=0x5678 */\n"
		" 0)   9.000 us    |  } /* do_work ret=-22 */\n");
}

/* No BTF, Linux's rule for an untyped register, through trace/btf/fsig.c:
 * -4095..-1 as the whole register or as an int (bit 31 set, upper half
 * clear) in decimal; everything else, and everything with
 * funcgraph-retval-hex, in hex. */
static void test_retval_raw_errors(void **state)
{
	(void)state;
	static const uint64_t raws[] = {
		0xfffffffe, 0xfffffffffffffffeull, 0xfffff001, 0xfffff000, 0xfffffffffffff000ull,
		0x80000000, 0x1fffffffe, 1,
	};
	opt_on(TRACE_OPT_FUNCGRAPH_RETVAL);
	uint64_t t = 1000;
	for (size_t i = 0; i < sizeof(raws) / sizeof(raws[0]); i++, t += 1000) {
		ent(0, t, 12, 0, LEAF_A, 0);
		ret_full(0, t + 100, 12, 0, LEAF_A, 0, t, raws[i], 0);
	}
	assert_string_equal(print_all(),
		" 0)   0.100 us    |  leaf_a(); /* ret=-2 */\n"
		" 0)   0.100 us    |  leaf_a(); /* ret=-2 */\n"
		" 0)   0.100 us    |  leaf_a(); /* ret=-4095 */\n"
		" 0)   0.100 us    |  leaf_a(); /* ret=0xfffff000 */\n"
		" 0)   0.100 us    |  leaf_a(); /* ret=0xfffffffffffff000 */\n"
		" 0)   0.100 us    |  leaf_a(); /* ret=0x80000000 */\n"
		" 0)   0.100 us    |  leaf_a(); /* ret=0x1fffffffe */\n"
		" 0)   0.100 us    |  leaf_a(); /* ret=0x1 */\n");
	opt_on(TRACE_OPT_FUNCGRAPH_RETVAL_HEX);
	const char *out = print_all();
	assert_memory_equal(out,
		" 0)   0.100 us    |  leaf_a(); /* ret=0xfffffffe */\n"
		" 0)   0.100 us    |  leaf_a(); /* ret=0xfffffffffffffffe */\n",
		2 * strlen(" 0)   0.100 us    |  leaf_a(); /* ret=0xfffffffe */\n") + 8);
}

static void test_retval_btf(void **state)
{
	(void)state;
	opt_on(TRACE_OPT_FUNCGRAPH_RETVAL);
	shim_load_sigs();
	write_retvals();
	/* do_work returns int: -22; void_fn is void: nothing after its name. */
	assert_string_equal(print_all(),
		" 0)               |  do_work() {\n"
		" 0)   0.500 us    |    leaf_a(); /* ret=0x0 */\n"
		" 0)   0.500 us    |    void_fn();\n"
		" 0)               |    void_fn() {\n"
		" 0)   0.100 us    |      leaf_a(); /* ret=0x0 */\n"
		" 0)   1.000 us    |    } /* void_fn */\n"
		" 0)   9.000 us    |  } /* do_work ret=-22 */\n");
	opt_on(TRACE_OPT_FUNCGRAPH_RETVAL_HEX);
	assert_string_equal(print_all(),
		" 0)               |  do_work() {\n"
		" 0)   0.500 us    |    leaf_a(); /* ret=0x0 */\n"
		" 0)   0.500 us    |    void_fn();\n"
		" 0)               |    void_fn() {\n"
		" 0)   0.100 us    |      leaf_a(); /* ret=0x0 */\n"
		" 0)   1.000 us    |    } /* void_fn */\n"
		" 0)   9.000 us    |  } /* do_work ret=0xffffffea */\n");
}

static void write_args(void)
{
	static const uint64_t wargs[] = { 1, 3 };
	static const uint64_t largs[] = { (uint64_t)-5 };
	ent_args(0, 1000, 12, 0, DO_WORK, 0, wargs, 2);
	ent_args(0, 2000, 12, 0, LEAF_A, 1, largs, 1);
	ret_full(0, 2500, 12, 0, LEAF_A, 1, 2000, 7, 0);
	ret(0, 9000, 12, 0, DO_WORK, 0, 1000);
}

static void test_args_btf(void **state)
{
	(void)state;
	opt_on(TRACE_OPT_FUNCGRAPH_ARGS);
	shim_load_sigs();
	write_args();
	assert_string_equal(print_all(),
		" 0)               |  do_work(a=1, flags=0x3) {\n"
		" 0)   0.500 us    |    leaf_a(x=-5);\n"
		" 0)   8.000 us    |  }\n");
	opt_on(TRACE_OPT_FUNCGRAPH_RETVAL);
	assert_string_equal(print_all(),
		" 0)               |  do_work(a=1, flags=0x3) {\n"
		" 0)   0.500 us    |    leaf_a(x=-5); /* ret=0x7 */\n"
		" 0)   8.000 us    |  } /* do_work ret=0x0 */\n");
}

/* Fewer words recorded than parameters: "..." in place of the first
 * missing one, as Linux prints past its recorded registers. */
static void test_args_ellipsis(void **state)
{
	(void)state;
	static const uint64_t one[] = { 0xffffffff };
	opt_on(TRACE_OPT_FUNCGRAPH_ARGS);
	shim_load_sigs();
	ent_args(0, 1000, 12, 0, DO_WORK, 0, one, 1);
	ret(0, 2000, 12, 0, DO_WORK, 0, 1000);
	assert_string_equal(print_all(), " 0)   1.000 us    |  do_work(a=-1, ...);\n");
}

static void test_args_raw(void **state)
{
	(void)state;
	opt_on(TRACE_OPT_FUNCGRAPH_ARGS);
	write_args();
	assert_string_equal(print_all(),
		" 0)               |  do_work(0x1, 0x3) {\n"
		" 0)   0.500 us    |    leaf_a(0xfffffffffffffffb);\n"
		" 0)   8.000 us    |  }\n");
	/* Arguments print when the event holds them, whatever the option says
	 * now (as Linux: they are recorded or not). */
	opt_off(TRACE_OPT_FUNCGRAPH_ARGS);
	assert_string_equal(print_all(),
		" 0)               |  do_work(0x1, 0x3) {\n"
		" 0)   0.500 us    |    leaf_a(0xfffffffffffffffb);\n"
		" 0)   8.000 us    |  }\n");
}

static void test_overrun(void **state)
{
	(void)state;
	opt_on(TRACE_OPT_FUNCGRAPH_OVERRUN);
	ent(0, 1000, 12, 0, DO_WORK, 0);
	leaf(0, 2000, 12, LEAF_A, 1, 500);
	ret_full(0, 9000, 12, 0, DO_WORK, 0, 1000, 0, 2);
	assert_string_equal(print_all(),
		" 0)               |  do_work() {\n"
		" 0)   0.500 us    |    leaf_a();\n"
		" 0)   8.000 us    |  }\n"
		" (Overruns: 2)\n");
}

static void test_exit_without_entry(void **state)
{
	(void)state;
	/* Tracing started inside do_work and void_fn; then an exit whose
	 * depth holds another function (its entry was lost). */
	ret(0, 3000, 12, 0, VOID_FN, 1, 1000);
	ret(0, 4000, 12, 0, DO_WORK, 0, 500);
	ent(0, 5000, 12, 0, DO_WORK, 0);
	ent(0, 5100, 12, 0, VOID_FN, 1);
	ret(0, 5300, 12, 0, LEAF_A, 1, 5200);
	ret(0, 6000, 12, 0, DO_WORK, 0, 5000);
	assert_string_equal(print_all(),
		" 0)   2.000 us    |    } /* void_fn */\n"
		" 0)   3.500 us    |  } /* do_work */\n"
		" 0)               |  do_work() {\n"
		" 0)               |    void_fn() {\n"
		" 0)   0.100 us    |    } /* leaf_a */\n"
		" 0)   1.000 us    |  }\n");
}

static void test_two_cpus_merged(void **state)
{
	(void)state;
	ent(0, 1000, 12, 0, DO_WORK, 0);
	leaf(1, 2000, 7, VOID_FN, 0, 4000);
	leaf(0, 4000, 12, LEAF_A, 1, 200);
	ret(0, 5000, 12, 0, DO_WORK, 0, 1000);
	assert_string_equal(print_all(),
		" 0)               |  do_work() {\n"
		" 1)   4.000 us    |  void_fn();\n"
		" 0)   0.200 us    |    leaf_a();\n"
		" 0)   4.000 us    |  }\n");
}

static void test_task_switch(void **state)
{
	(void)state;
	leaf(0, 1000, 12, LEAF_A, 0, 500);
	leaf(1, 1500, 7, LEAF_A, 0, 100);      /* another CPU: no banner */
	leaf(0, 2000, 0, LEAF_A, 0, 300);
	leaf(0, 3000, 12, LEAF_A, 0, 100);
	assert_string_equal(print_all(),
		" 0)   0.500 us    |  leaf_a();\n"
		" 1)   0.100 us    |  leaf_a();\n"
		DASHES
		" 0) " PROC_DEMO " => " PROC_IDLE "\n"
		DASHES "\n"
		" 0)   0.300 us    |  leaf_a();\n"
		DASHES
		" 0) " PROC_IDLE " => " PROC_DEMO "\n"
		DASHES "\n"
		" 0)   0.100 us    |  leaf_a();\n");
	/* A new pass starts without a banner, and so does each CPU. */
	assert_memory_equal(print_all(), " 0)   0.500 us    |  leaf_a();\n", 31);
}

static void test_irq_arrows(void **state)
{
	(void)state;
	ent(0, 1000, 12, 0, DO_WORK, 0);
	ent(0, 2000, 12, IRQ, HANDLE_IRQ, 1);
	ent(0, 2100, 12, IRQ, TIMER_TICK, 2);
	ret(0, 2200, 12, IRQ, TIMER_TICK, 2, 2100);
	ret(0, 3000, 12, IRQ, HANDLE_IRQ, 1, 2000);
	leaf(0, 4000, 12, LEAF_A, 1, 100);
	ent(0, 5000, 12, IRQ, TIMER_TICK, 1);      /* an interrupt with one leaf */
	ret(0, 5400, 12, IRQ, TIMER_TICK, 1, 5000);
	ret(0, 9000, 12, 0, DO_WORK, 0, 1000);
	ent(0, 9500, 12, IRQ, TIMER_TICK, 0);      /* still running at the end */
	assert_string_equal(print_all(),
		" 0)               |  do_work() {\n"
		" 0)   ==========> |\n"
		" 0)               |    handle_irq() {\n"
		" 0)   0.100 us    |      timer_tick();\n"
		" 0)   1.000 us    |    }\n"
		" 0)   <========== |\n"
		" 0)   0.100 us    |    leaf_a();\n"
		" 0)   ==========> |\n"
		" 0)   0.400 us    |    timer_tick();\n"
		" 0)   <========== |\n"
		" 0)   8.000 us    |  }\n"
		" 0)   ==========> |\n"
		" 0)               |  timer_tick() {\n");
	/* The arrow lines carry the context columns, not the duration's. */
	opt_off(TRACE_OPT_FUNCGRAPH_DURATION);
	opt_on(TRACE_OPT_FUNCGRAPH_PROC);
	const char *out = print_all();
	assert_non_null(strstr(out, " 0) " PROC_DEMO " | ==========>\n"));
	assert_non_null(strstr(out, " 0) " PROC_DEMO " | <==========\n"));
}

static void test_unknown_symbol_and_long_line(void **state)
{
	(void)state;
	leaf(0, 1000, 12, UNKNOWN_FN, 0, 100);
	leaf(0, 2000, 12, LEAF_A, 300, 100);
	const char *out = print_all();
	const char *first = " 0)   0.100 us    |  0x9000();\n";
	size_t fl = strlen(first);
	assert_memory_equal(out, first, fl);
	/* 600 spaces of indentation: longer than one kprintf, still one line. */
	char want[700];
	int n = snprintf(want, sizeof(want), " 0)   0.100 us    |  %600sleaf_a();\n", "");
	assert_int_equal(strlen(out), fl + (size_t)n);
	assert_string_equal(out + fl, want);
}

static void test_other_events(void **state)
{
	(void)state;
	struct ftrace_entry fe = { { TRACE_FN, 0, 0, 12 }, DO_WORK, LEAF_A };
	put_event(0, 1000, &fe, sizeof(fe));
	leaf(0, 2000, 12, LEAF_A, 0, 100);
	shim_out_reset();
	assert_int_equal(rb_iter_start(&ti.it, buf, RB_ALL_CPUS), 0);
	for (unsigned c = 0; c < MAX_CPUS; c++)
		ti.last_pid[c] = -1;
	assert_int_equal(rb_iter_next(&ti.it, &ti.ev), 0);
	ti.ent = ti.ev.data;
	assert_false(graph_print(&ti));
	assert_int_equal(rb_iter_next(&ti.it, &ti.ev), 0);
	ti.ent = ti.ev.data;
	assert_true(graph_print(&ti));
	assert_int_equal(rb_iter_next(&ti.it, &ti.ev), -RB_EAGAIN);   /* exit was taken */
	rb_iter_end(&ti.it);
	assert_string_equal(shim_out, " 0)   0.100 us    |  leaf_a();\n");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s GRAPH_SAMPLE.btf\n", argv[0]);
		return 2;
	}
	shim_btf_path = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_header_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_header_columns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_header_raw_notice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nested_and_leaf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_durations_and_marks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overhead_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duration_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_off_and_width, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abstime, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retval_raw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retval_raw_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retval_btf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_args_btf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_args_ellipsis, setup, teardown),
		cmocka_unit_test_setup_teardown(test_args_raw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overrun, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit_without_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_cpus_merged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_task_switch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irq_arrows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_symbol_and_long_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_events, setup, teardown),
	};
	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("graph_output", tests, NULL, NULL);
}
