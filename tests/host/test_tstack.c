/*
 * test_tstack.c — the trace stack's pairing rules (trace/core/tstack.c, built as
 * it is) driven by synthetic sled sequences, checked by the function_graph
 * text they give (trace/tracers/function_graph_output.c, byte for byte).
 *
 * This file plays fgraph.c's part (fgraph_ts_push, fgraph_ts_pop): a push
 * writes a frame as fgraph's and a funcgraph_entry event, a pop a
 * funcgraph_exit event with the return value and mark it is given, into a
 * real ring buffer (host port, fake clock: each sled is 10 ns after the
 * one before).  Stack pointers are small numbers: a deeper frame has a
 * lower one, as on both arches.  Expected graphs are written out in full.
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
#include "trace/core/fgraph_frame.h"
#include "trace/tracers/function_graph.h"
#include "trace/options.h"
#include "trace/core/tstack.h"

/* Functions in shim_graph.c's symbol table. */
enum { OUTER = 0xa000, FA = 0xa100, FB = 0xa200, FC = 0xa300, REC = 0xa400,
       HANDLE_IRQ = 0x3000, TIMER_TICK = 0x4000, LEAF_A = 0x2000,
       REFUSED = 0xb000 };   /* no user takes its calls */
#define OPT(o) (1ul << (o))

static struct rb_buffer *buf;
static struct trace_iter ti;
static struct fgraph_stack thread_st, irq_st;
static struct tstack_ctx thread_ctx = { &thread_st, NULL, 0, NULL };
static struct tstack_ctx irq1 = { &irq_st, &thread_st, 1, NULL };
static struct tstack_ctx irq2 = { &irq_st, &thread_st, 2, NULL };
static const struct tstack_ctx *ctx;     /* the context of the next sleds */

static int setup(void **state)
{
	(void)state;
	buf = graph_test_buffer();
	ncpus = 1;
	graph_test_now = 1000;
	memset(&thread_st, 0, sizeof(thread_st));
	memset(&irq_st, 0, sizeof(irq_st));
	ctx = &thread_ctx;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rb_destroy(buf);
	return 0;
}

/* ---- fgraph.c's part ---- */

static void put_event(const void *e, uint32_t len)
{
	rb_host_cpu = 0;
	assert_int_equal(rb_write(buf, e, len), 0);
}

static uint32_t depth_of(const struct tstack_ctx *x)
{
	return x->st->depth - 1 + (x->outer ? x->outer->depth : 0);
}

uint64_t *fgraph_ts_push(const struct tstack_ctx *x, uintptr_t func, uintptr_t parent,
			 uintptr_t sp, struct ftrace_regs *fregs, unsigned mask)
{
	struct fgraph_stack *st = x->st;
	(void)fregs;
	if (func == REFUSED)
		return NULL;
	if (st->top + FR_WORDS(1) > FGRAPH_STACK_WORDS) {
		st->overrun++;
		return NULL;
	}
	uint64_t *f = &st->w[st->top];
	st->top += FR_WORDS(1);
	st->depth++;
	f[FR_RET] = parent;
	f[FR_FUNC] = func;
	f[FR_SP] = sp;
	f[FR_TIME] = graph_test_now;
	f[FR_USERS] = mask * 0x10001u;
	f[FR_HEADER + FB_GEN] = 1;
	f[FR_WORDS(1) - 1] = FR_WORDS(1);
	struct fgraph_ent_entry e = {
		.ent = { TRACE_GRAPH_ENT, x->level ? TRACE_FLAG_HARDIRQ : 0, 0, 12 },
		.func = func, .depth = depth_of(x),
	};
	put_event(&e, sizeof(e));
	return f;
}

void fgraph_ts_pop(const struct tstack_ctx *x, unsigned base, uint64_t retval, unsigned mark)
{
	struct fgraph_stack *st = x->st;
	assert_int_equal(st->top - base, FR_WORDS(1));     /* the top frame */
	struct fgraph_ret_entry e = {
		.ent = { TRACE_GRAPH_RET, x->level ? TRACE_FLAG_HARDIRQ : 0, 0, 12 },
		.func = st->w[base + FR_FUNC], .retval = retval, .depth = depth_of(x),
		.overrun = (uint32_t)st->overrun | mark, .calltime = st->w[base + FR_TIME],
		.rettime = graph_test_now,
	};
	put_event(&e, sizeof(e));
	st->top = base;
	st->depth--;
}

/* ---- the sleds: each one 10 ns after the last ---- */

/* An entry whose return address is parent (E: all the same one). */
static void E_from(uintptr_t func, uintptr_t sp, uintptr_t parent)
{
	graph_test_now += 10;
	tstack_entry_on(ctx, func, parent, sp, NULL, 1);
}

static void E(uintptr_t func, uintptr_t sp)
{
	E_from(func, sp, 0);
}

/* A tail sled whose jump's target is target (0: an indirect jump). */
static void T_to(uintptr_t func, uintptr_t sp, uintptr_t target)
{
	graph_test_now += 10;
	tstack_tail_on(ctx, func, sp, target);
}

static void T(uintptr_t func, uintptr_t sp)
{
	T_to(func, sp, 0);
}

static void X(uintptr_t func, uintptr_t sp, uint64_t retval)
{
	graph_test_now += 10;
	tstack_exit_on(ctx, func, sp, retval);
}

/* ---- printing: trace_print_all()'s loop ---- */

static const char *print_all(void)
{
	return graph_text(buf, &ti);
}

static void expect_empty_stacks(void)
{
	assert_int_equal(thread_st.top, 0);
	assert_int_equal(thread_st.depth, 0);
	assert_int_equal(irq_st.top, 0);
}

/* ---- the tail-call matrix ---- */

/* outer calls fa, which tail-calls fb: fb nests in fa, and fb's exit ends
 * both, with fb's return value. */
static void test_traced_to_traced(void **state)
{
	(void)state;
	trace_opts |= OPT(TRACE_OPT_FUNCGRAPH_RETVAL);
	E(OUTER, 100);
	E(FA, 90);
	T(FA, 90);
	E(FB, 90);
	X(FB, 90, 7);
	X(OUTER, 100, 8);
	expect_empty_stacks();
	assert_string_equal(print_all(),
		" 0)               |  outer() {\n"
		" 0)               |    fa() {\n"
		" 0)   0.010 us    |      fb(); /* ret=0x7 */\n"
		" 0)   0.030 us    |    } /* fa ret=0x7 */\n"
		" 0)   0.050 us    |  } /* outer ret=0x8 */\n");
}

/* The top frame's trace-stack bits (the users word's high half). */
static uint64_t top_bits(void)
{
	const struct fgraph_stack *st = ctx->st;
	return st->w[st->top - FR_WORDS(1) + FR_USERS] >> 32 << 32;
}

/* FR_TS_TAILED, which the exit's single-user path reads instead of the
 * frame below (fgraph.c, ftrace_sled_exit): set exactly on an entry pushed
 * on top of its tail caller; a call nested in it, a call at the same sp
 * after a late pop, and an entry of an interrupt have it clear. */
static void test_tailed_bit(void **state)
{
	(void)state;
	E(OUTER, 100);
	assert_int_equal(top_bits(), fr_ts_entry_bits(0));
	E(FA, 90);
	T(FA, 90);
	E(FB, 90);                 /* fa's tail callee */
	assert_int_equal(top_bits(), fr_ts_entry_bits(0) | FR_TS_TAILED);
	E(FC, 80);                 /* a call of fb's */
	assert_int_equal(top_bits(), fr_ts_entry_bits(0));
	ctx = &irq1;
	E(HANDLE_IRQ, 90);
	assert_int_equal(top_bits(), fr_ts_entry_bits(1));
	X(HANDLE_IRQ, 90, 0);
	ctx = &thread_ctx;
	X(FC, 80, 0);
	X(FB, 90, 0);              /* ends fa too */
	assert_int_equal(thread_st.depth, 1);
	E(FA, 90);
	T(FA, 90);
	E_from(FB, 90, 0x1234);    /* not fa's callee: fa popped late first */
	assert_int_equal(top_bits(), fr_ts_entry_bits(0));
	X(FB, 90, 0);
	X(OUTER, 100, 0);
	expect_empty_stacks();
}

/* fa tail-calls an untraced function, which calls fb and returns to
 * outer: fa is complete and stays (fb nests in it) until outer's exit,
 * which pops it late. */
static void test_traced_to_notrace(void **state)
{
	(void)state;
	E(OUTER, 100);
	E(FA, 90);
	T(FA, 90);
	E(FB, 80);                 /* the untraced callee calls fb, */
	X(FB, 80, 1);
	X(OUTER, 100, 8);          /* then returns to outer */
	expect_empty_stacks();
	assert_string_equal(print_all(),
		" 0)               |  outer() {\n"
		" 0)               |    fa() {\n"
		" 0)   0.010 us    |      fb();\n"
		" 0)   0.040 us    |    } /* fa (late) */\n"
		" 0)   0.050 us    |  }\n");
}

/* fa tail-calls an untraced function which returns to outer; outer then
 * calls fb at the same sp from another call site: fb's return address is
 * not fa's, so fb is no tail callee of fa, which is popped late first. */
static void test_traced_to_notrace_then_call(void **state)
{
	(void)state;
	E(OUTER, 100);
	E(FA, 90);
	T(FA, 90);
	E_from(FB, 90, 0x1234);    /* another return address */
	X(FB, 90, 1);
	X(OUTER, 100, 8);
	expect_empty_stacks();
	assert_string_equal(print_all(),
		" 0)               |  outer() {\n"
		" 0)               |    fa() {\n"
		" 0)   0.020 us    |    } /* fa (late) */\n"
		" 0)   0.010 us    |    fb();\n"
		" 0)   0.050 us    |  }\n");
}

/* A loop in outer calls fa from one call site (same sp, same return
 * address); fa tail-calls an untraced function by a direct jump: the next
 * fa is no tail callee of the last (the jump names another function), so
 * each fa is popped late at the next one's entry, flat.  Then fa
 * tail-calls fb by a direct jump: fb nests in fa as before.  A jump that
 * names fa itself (tail recursion) nests the next fa; an indirect one
 * (target unknown) too: the one case the sleds cannot tell apart. */
static void test_same_call_site_loop(void **state)
{
	(void)state;
	trace_opts |= OPT(TRACE_OPT_FUNCGRAPH_RETVAL);
	const uintptr_t untraced = 0xc000, site = 0x1234;
	E(OUTER, 100);
	for (int i = 0; i < 2; i++) {
		E_from(FA, 90, site);
		T_to(FA, 90, untraced);
	}
	E_from(FA, 90, site);
	T_to(FA, 90, FB);
	E_from(FB, 90, site);
	X(FB, 90, 7);
	E_from(FA, 90, site);
	T_to(FA, 90, FA);          /* to itself */
	E_from(FA, 90, site);
	T_to(FA, 90, 0);           /* indirect */
	E_from(FA, 90, site);
	X(FA, 90, 5);
	X(OUTER, 100, 8);
	expect_empty_stacks();
	assert_string_equal(print_all(),
		" 0)               |  outer() {\n"
		" 0)               |    fa() {\n"
		" 0)   0.020 us    |    } /* fa (late) */\n"
		" 0)               |    fa() {\n"
		" 0)   0.020 us    |    } /* fa (late) */\n"
		" 0)               |    fa() {\n"
		" 0)   0.010 us    |      fb(); /* ret=0x7 */\n"
		" 0)   0.030 us    |    } /* fa ret=0x7 */\n"
		" 0)               |    fa() {\n"
		" 0)               |      fa() {\n"
		" 0)   0.010 us    |        fa(); /* ret=0x5 */\n"
		" 0)   0.030 us    |      } /* fa ret=0x5 */\n"
		" 0)   0.050 us    |    } /* fa ret=0x5 */\n"
		" 0)   0.150 us    |  } /* outer ret=0x8 */\n");
}

/* An untraced function tail-calls fb: fb is traced as any call. */
static void test_notrace_to_traced(void **state)
{
	(void)state;
	E(OUTER, 100);
	E(FB, 90);                 /* entered by a jump from untraced code */
	X(FB, 90, 5);
	X(OUTER, 100, 8);
	expect_empty_stacks();
	assert_string_equal(print_all(),
		" 0)               |  outer() {\n"
		" 0)   0.010 us    |    fb();\n"
		" 0)   0.030 us    |  }\n");
}

/* fa -> fb -> fc by tail calls: fc's exit ends all three, innermost
 * first, with fc's value; then fa -> untraced -> fc, fa's jump indirect
 * (T: no target kept): the same graph (the untraced link is invisible), fa
 * ended at fc's exit.  Were fa's jump direct, it would name the untraced
 * function: fa late at fc's entry (test_same_call_site_loop's rule). */
static void test_chains_of_three(void **state)
{
	(void)state;
	trace_opts |= OPT(TRACE_OPT_FUNCGRAPH_RETVAL);
	E(OUTER, 100);
	E(FA, 90);
	T(FA, 90);
	E(FB, 90);
	T(FB, 90);
	E(FC, 90);
	X(FC, 90, 3);
	E(FA, 90);
	T(FA, 90);
	E(FC, 90);                 /* through an untraced function's jump */
	X(FC, 90, 4);
	X(OUTER, 100, 8);
	expect_empty_stacks();
	assert_string_equal(print_all(),
		" 0)               |  outer() {\n"
		" 0)               |    fa() {\n"
		" 0)               |      fb() {\n"
		" 0)   0.010 us    |        fc(); /* ret=0x3 */\n"
		" 0)   0.030 us    |      } /* fb ret=0x3 */\n"
		" 0)   0.050 us    |    } /* fa ret=0x3 */\n"
		" 0)               |    fa() {\n"
		" 0)   0.010 us    |      fc(); /* ret=0x4 */\n"
		" 0)   0.030 us    |    } /* fa ret=0x4 */\n"
		" 0)   0.110 us    |  } /* outer ret=0x8 */\n");
}

/* rec(3) -> rec(2) -> rec(1) -> rec(0) by tail calls, all at one sp: the
 * last exit pops the four; then a real recursion whose innermost call
 * tail-calls an untraced function: late at its caller's exit. */
static void test_recursion_through_tail_call(void **state)
{
	(void)state;
	trace_opts |= OPT(TRACE_OPT_FUNCGRAPH_RETVAL);
	E(OUTER, 100);
	for (int i = 0; i < 4; i++) {
		E(REC, 90);
		if (i < 3)
			T(REC, 90);
	}
	X(REC, 90, 0);
	E(REC, 90);
	E(REC, 80);
	T(REC, 80);                /* to an untraced function */
	X(REC, 90, 2);
	X(OUTER, 100, 8);
	expect_empty_stacks();
	assert_string_equal(print_all(),
		" 0)               |  outer() {\n"
		" 0)               |    rec() {\n"
		" 0)               |      rec() {\n"
		" 0)               |        rec() {\n"
		" 0)   0.010 us    |          rec(); /* ret=0x0 */\n"
		" 0)   0.030 us    |        } /* rec ret=0x0 */\n"
		" 0)   0.050 us    |      } /* rec ret=0x0 */\n"
		" 0)   0.070 us    |    } /* rec ret=0x0 */\n"
		" 0)               |    rec() {\n"
		" 0)               |      rec() {\n"
		" 0)   0.020 us    |      } /* rec (late) */\n"
		" 0)   0.030 us    |    } /* rec ret=0x2 */\n"
		" 0)   0.130 us    |  } /* outer ret=0x8 */\n");
}

/* ---- pairing never assumed ---- */

/* Exits whose entries were not pushed (refused, or enabled midway) pop
 * nothing of anyone else's: not the caller at a higher sp, not an
 * incomplete entry of another function at the same sp; tails likewise. */
static void test_unpaired_exits(void **state)
{
	(void)state;
	E(OUTER, 100);
	X(FA, 90, 1);              /* fa entered before its sleds were on */
	T(FA, 90);
	E(REFUSED, 90);            /* no user took it */
	X(REFUSED, 90, 2);
	E(FB, 90);
	X(FC, 90, 3);              /* fc at fb's sp: fb's sleds went off, fb jumped to fc */
	T(FC, 90);
	X(FB, 80, 4);              /* fb's name, another frame */
	X(OUTER, 100, 8);          /* fb is gone */
	X(OUTER, 100, 8);          /* twice: nothing left to pop */
	expect_empty_stacks();
	assert_string_equal(print_all(),
		" 0)               |  outer() {\n"
		" 0)               |    fb() {\n"
		" 0)   0.040 us    |    } /* fb (gone) */\n"
		" 0)   0.090 us    |  }\n");
}

/* Frames left without an exit (longjmp): popped, marked gone, at the next
 * sled above them -- an exit of an enclosing function, or an entry at
 * their sp or above. */
static void test_gone_frames(void **state)
{
	(void)state;
	E(OUTER, 100);
	E(FA, 90);
	E(FB, 80);
	E(FC, 70);
	X(OUTER, 100, 8);          /* longjmp'd from fc into outer, which returns */
	E(OUTER, 100);
	E(FA, 90);
	E(FB, 80);                 /* longjmp'd from fb into outer, */
	E(FC, 90);                 /* which calls fc: fb and fa are gone */
	X(FC, 90, 3);
	T(OUTER, 100);             /* outer tail-calls fa */
	E(FA, 100);
	E(FB, 90);                 /* longjmp from fb into fa, which returns */
	X(FA, 100, 1);
	expect_empty_stacks();
	assert_string_equal(print_all(),
		" 0)               |  outer() {\n"
		" 0)               |    fa() {\n"
		" 0)               |      fb() {\n"
		" 0)               |        fc() {\n"
		" 0)   0.010 us    |        } /* fc (gone) */\n"
		" 0)   0.020 us    |      } /* fb (gone) */\n"
		" 0)   0.030 us    |    } /* fa (gone) */\n"
		" 0)   0.040 us    |  }\n"
		" 0)               |  outer() {\n"
		" 0)               |    fa() {\n"
		" 0)               |      fb() {\n"
		" 0)   0.010 us    |      } /* fb (gone) */\n"
		" 0)   0.020 us    |    } /* fa (gone) */\n"
		" 0)   0.010 us    |    fc();\n"
		" 0)               |    fa() {\n"
		" 0)               |      fb() {\n"
		" 0)   0.010 us    |      } /* fb (gone) */\n"
		" 0)   0.020 us    |    }\n"
		" 0)   0.080 us    |  }\n");
}

/* Interrupts: their entries go on the CPU's interrupt stack and continue
 * the thread's depth; a nested interrupt's sleds never touch the level
 * below, even at a higher sp (another stack); an interrupt's gone entry
 * is popped in the interrupt. */
static void test_interrupts_nesting(void **state)
{
	(void)state;
	E(OUTER, 100);
	E(FA, 90);
	ctx = &irq1;
	E(HANDLE_IRQ, 500);
	E(TIMER_TICK, 490);
	ctx = &irq2;
	E(LEAF_A, 700);            /* nested, on a stack above the first one's */
	X(LEAF_A, 700, 1);
	X(HANDLE_IRQ, 800, 0);     /* unpaired at a higher sp: no effect below */
	ctx = &irq1;
	E(LEAF_A, 480);
	X(TIMER_TICK, 490, 0);     /* leaf_a's frame is gone */
	X(HANDLE_IRQ, 500, 0);
	ctx = &thread_ctx;
	X(FA, 90, 1);
	X(OUTER, 100, 8);
	expect_empty_stacks();
	assert_string_equal(print_all(),
		" 0)               |  outer() {\n"
		" 0)               |    fa() {\n"
		" 0)   ==========> |\n"
		" 0)               |      handle_irq() {\n"
		" 0)               |        timer_tick() {\n"
		" 0)   0.010 us    |          leaf_a();\n"
		" 0)               |          leaf_a() {\n"
		" 0)   0.010 us    |          } /* leaf_a (gone) */\n"
		" 0)   0.050 us    |        }\n"
		" 0)   0.070 us    |      }\n"
		" 0)   <========== |\n"
		" 0)   0.090 us    |    }\n"
		" 0)   0.110 us    |  }\n");
}

/* An interrupt's entries end with it (irq_exit): what it left is popped
 * then, late or gone, the nested interrupt's first; the thread's stay. */
static void test_interrupt_end(void **state)
{
	(void)state;
	E(OUTER, 100);
	ctx = &irq1;
	E(HANDLE_IRQ, 500);
	E(TIMER_TICK, 490);
	T(TIMER_TICK, 490);        /* to an untraced function */
	ctx = &irq2;
	E(LEAF_A, 700);            /* its exit sled switched off meanwhile */
	graph_test_now += 10;
	tstack_level_end_on(&irq2);
	ctx = &irq1;
	graph_test_now += 10;
	tstack_level_end_on(&irq1);
	ctx = &thread_ctx;
	X(OUTER, 100, 8);
	expect_empty_stacks();
	assert_string_equal(print_all(),
		" 0)               |  outer() {\n"
		" 0)   ==========> |\n"
		" 0)               |    handle_irq() {\n"
		" 0)               |      timer_tick() {\n"
		" 0)               |        leaf_a() {\n"
		" 0)   0.010 us    |        } /* leaf_a (gone) */\n"
		" 0)   0.040 us    |      } /* timer_tick (late) */\n"
		" 0)   0.050 us    |    } /* handle_irq (gone) */\n"
		" 0)   <========== |\n"
		" 0)   0.070 us    |  }\n");
}

/* A deeper interrupt's entry that its end did not pop (that context was
 * inside the tracer at irq_exit) is gone at the next sled below it. */
static void test_deeper_level_left(void **state)
{
	(void)state;
	ctx = &irq1;
	E(HANDLE_IRQ, 500);
	ctx = &irq2;
	E(LEAF_A, 700);
	ctx = &irq1;
	X(HANDLE_IRQ, 500, 0);
	expect_empty_stacks();
	assert_string_equal(print_all(),
		" 0)   ==========> |\n"
		" 0)               |  handle_irq() {\n"
		" 0)               |    leaf_a() {\n"
		" 0)   0.010 us    |    } /* leaf_a (gone) */\n"
		" 0)   0.020 us    |  }\n");
}

/* A frame of the return-hook backend is not the trace stack's: never
 * popped or completed by it, and it hides what lies below. */
/* A return-hook frame of func at sp, as fgraph's entry pushes it. */
static void push_hooked(uintptr_t func, uintptr_t sp)
{
	uint64_t *f = &thread_st.w[thread_st.top];
	thread_st.top += FR_WORDS(1);
	thread_st.depth++;
	memset(f, 0, FR_WORDS(1) * 8);
	f[FR_FUNC] = func;
	f[FR_SP] = sp;
	f[FR_USERS] = 0x10001;
	f[FR_WORDS(1) - 1] = FR_WORDS(1);
}

static void test_return_hook_frame_untouched(void **state)
{
	(void)state;
	E(OUTER, 100);
	push_hooked(FA, 90);
	T(FA, 90);
	X(FA, 90, 1);
	X(OUTER, 100, 8);
	assert_int_equal(thread_st.top, 2 * FR_WORDS(1));
	assert_int_equal(thread_st.w[thread_st.top - FR_WORDS(1) + FR_USERS], 0x10001);
	thread_st.top -= FR_WORDS(1);
	thread_st.depth--;
	X(OUTER, 100, 8);
	expect_empty_stacks();
	assert_string_equal(print_all(),
		" 0)   0.040 us    |  outer();\n");
}

/* The last user gone (fgraph.c's ts_drop_left): tstack_drop releases the
 * entries on top, complete or not, without an exit event; a return-hook
 * frame below them stops it; an exit of a dropped call pops nothing. */
static void test_drop(void **state)
{
	(void)state;
	E(OUTER, 100);
	push_hooked(FA, 90);
	E(FB, 80);
	E(FC, 70);
	T(FC, 70);
	assert_int_equal(tstack_drop(&thread_st), 2);       /* fc, fb: fa stops it */
	assert_int_equal(thread_st.top, 2 * FR_WORDS(1));
	assert_int_equal(thread_st.depth, 2);
	assert_int_equal(tstack_drop(&thread_st), 0);
	thread_st.top -= FR_WORDS(1);                       /* fa returns through its hook */
	thread_st.depth--;
	assert_int_equal(tstack_drop(&thread_st), 1);       /* outer */
	expect_empty_stacks();
	X(FB, 80, 3);                                       /* dropped: nothing to pop */
	expect_empty_stacks();
	assert_int_equal(tstack_drop(&thread_st), 0);
	assert_string_equal(print_all(),
		" 0)               |  outer() {\n"
		" 0)               |      fb() {\n"              /* under fa's frame */
		" 0)               |        fc() {\n");
}

/* A full stack: the calls that found no room are counted and their exits
 * pop nothing; every pushed entry gets its exit. */
static void test_overflow(void **state)
{
	(void)state;
	enum { FIT = FGRAPH_STACK_WORDS / FR_WORDS(1), N = FIT + 3 };
	for (int i = 0; i < N; i++)
		E(REC, 10000 - 10 * (uintptr_t)i);
	assert_int_equal(thread_st.overrun, 3);
	assert_int_equal(thread_st.depth, FIT);
	for (int i = N - 1; i >= 0; i--)
		X(REC, 10000 - 10 * (uintptr_t)i, (uint64_t)i);
	expect_empty_stacks();
	/* Every pushed entry's exit, innermost first, unmarked, its return
	 * value its own, the 3 overruns counted in each. */
	unsigned ents = 0, exits = 0;
	assert_int_equal(rb_iter_start(&ti.it, buf, RB_ALL_CPUS), 0);
	while (rb_iter_next(&ti.it, &ti.ev) == 0) {
		const struct fgraph_ent_entry *e = ti.ev.data;
		const struct fgraph_ret_entry *r = ti.ev.data;
		if (e->ent.type == TRACE_GRAPH_ENT) {
			assert_int_equal(e->depth, ents++);
			continue;
		}
		assert_int_equal(r->ent.type, TRACE_GRAPH_RET);
		exits++;
		assert_int_equal(r->depth, FIT - exits);
		assert_int_equal(r->retval, FIT - exits);
		assert_int_equal(r->overrun, 3);
	}
	rb_iter_end(&ti.it);
	assert_int_equal(ents, FIT);
	assert_int_equal(exits, FIT);
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_traced_to_traced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_traced_to_notrace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tailed_bit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_call_site_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_traced_to_notrace_then_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_notrace_to_traced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chains_of_three, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recursion_through_tail_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unpaired_exits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gone_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupts_nesting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupt_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deeper_level_left, setup, teardown),
		cmocka_unit_test_setup_teardown(test_return_hook_frame_untouched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drop, setup, teardown),
	};
	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("tstack", tests, NULL, NULL);
}
