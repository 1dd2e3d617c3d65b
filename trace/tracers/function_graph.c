/*
 * function_graph.c — the `function_graph` tracer: an entry and an exit event per
 * call, through a function-graph user (trace/core/fgraph.h).
 *
 * What is recorded follows Linux:
 *   - set_ftrace_filter / set_ftrace_notrace choose the hooked functions
 *     (the filter shared with the function tracer: trace_filter_set);
 *   - set_graph_function: when not empty, only calls made inside one of
 *     these functions (themselves included) are recorded — interrupts
 *     arriving inside count as inside, as Linux's task bit does;
 *   - set_graph_notrace: these functions and everything they call are not
 *     recorded;
 *   - max_graph_depth: calls deeper than this are not hooked (0: no limit);
 *   - funcgraph-irqs off: nothing is recorded in interrupt context;
 *   - funcgraph-args on: the entry event carries the argument registers,
 *     and the words a function's signature says the call passed on the
 *     stack or by reference; with funcgraph-args-string, its `char *`
 *     arguments' strings too, read at the call (graph_entry_full).
 *
 * The per-context state word (fgraph_ent.state) counts open graph-function
 * calls in its low half and open notrace calls in its high half; the
 * per-call data word remembers which of the two this call opened.
 *
 * Boot options: ftrace=function_graph, ftrace_graph_filter=,
 * ftrace_graph_notrace= (globs, Linux's meanings), ftrace_graph_max_depth=
 * (max_graph_depth at boot; a number as Linux's kstrtouint reads it:
 * decimal, 0x hex or 0 octal, 0 for no limit).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "boot/cmdline.h"
#include "boot/console.h"
#include "lib/noipa.h"
#include "patch/tramp.h"
#include "trace/core/fgraph.h"
#include "trace/core/fgraph_inline.h"
#include "boot/cpu.h"
#include "trace/btf/fsig.h"
#include "trace/core/ftrace_filter.h"
#include "trace/global_ops.h"
#include "trace/tracers/function_graph.h"
#include "trace/core/hash.h"
#include "trace/options.h"
#include "trace/trace.h"
#include "trace/tracefs/tracefs.h"

#define IN_GRAPH_FUNC(s)  ((s) & 0xffffu)
#define IN_NOTRACE(s)     ((s) >> 16)
#define CALL_ROOT         1u     /* data[0]: this call opened a graph function */
#define CALL_NOTRACE      2u     /* data[0]: this call opened a notrace function */
#define CALL_NOENT        4u     /* data[0], with CALL_ROOT: no entry event was written */

/* set_graph_function / set_graph_notrace: published hashes, read lock-free
 * by the entry callback; replaced under graph_mutex, old ones freed after a
 * grace period.  graph_filters says which are non-empty, and whether
 * max_graph_depth is set, so that a call with none of them (and no open
 * filtered call) tests one word. */
static struct ftrace_hash *graph_funcs, *graph_notrace;
/* FILTER_*: atomic or/and, read lock-free.  In a section of its own, so
 * that arm64's GCC addresses it itself (adrp, ldr :lo12:) rather than from
 * the file's section anchor (adrp, add, ldr): on every graph entry. */
static unsigned graph_filters __attribute__((section(".bss.graph_filters")));
#define FILTER_FUNCS    1u
#define FILTER_NOTRACE  2u
#define FILTER_DEPTH    4u               /* max_graph_depth is not 0 */
#define FILTER_ARGS_STR 8u               /* funcgraph-args-string, with funcgraph-args */
#define FILTER_OFF      16u              /* the tracer is stopping or stopped
					  * (graph_stop, graph_start): the entry
					  * refuses every call; its site callback
					  * tests no ops flag (FGRAPH_DEFINE_ENTRY_NOFP) */
/* funcgraph-args is on (graph_flag_changed): a bit no thread's state word
 * has (each of its counts is at most the frames of one stack, bit 15 and
 * bit 31 clear), so that graph_entry_site tests the state word or'd with
 * the filters against it, once. */
#define FILTER_ARGS     (1u << 15)
_Static_assert(FGRAPH_STACK_WORDS / FR_MIN < FILTER_ARGS, "FILTER_ARGS above the state's counts");
static struct mutex graph_mutex = MUTEX_INIT;
unsigned max_graph_depth;                 /* 0: no limit; graph_set_max_depth */

/* Set max_graph_depth, then its bit (both read lock-free: a call racing
 * with a change is limited by the old or the new depth). */
void graph_set_max_depth(unsigned depth)
{
	__atomic_store_n(&max_graph_depth, depth, __ATOMIC_RELAXED);
	if (depth)
		__atomic_fetch_or(&graph_filters, FILTER_DEPTH, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&graph_filters, ~FILTER_DEPTH, __ATOMIC_RELAXED);
}

/* The tracer's flag_changed: after every change of trace_opts
 * (trace_opt_set, trace_opts_restore), funcgraph-args into FILTER_ARGS,
 * and funcgraph-args-string, while funcgraph-args is on, into
 * FILTER_ARGS_STR (the entry's args path then tests one word). */
static void graph_flag_changed(void)
{
	bool args = trace_opt(TRACE_OPT_FUNCGRAPH_ARGS);
	bool str = args && trace_opt(TRACE_OPT_FUNCGRAPH_ARGS_STR);
	if (args)
		__atomic_fetch_or(&graph_filters, FILTER_ARGS, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&graph_filters, ~FILTER_ARGS, __ATOMIC_RELAXED);
	if (str)
		__atomic_fetch_or(&graph_filters, FILTER_ARGS_STR, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&graph_filters, ~FILTER_ARGS_STR, __ATOMIC_RELAXED);
}

/* Whether the function at ip may have words beyond its registers to
 * copy (fsig.h, fsig_filter; false: it has none), for the args event. */
static inline __attribute__((always_inline)) bool graph_capture_maybe(uintptr_t ip)
{
	return arch_load_relaxed8(&fsig_filter[fsig_filter_slot(ip)]) != 0;
}

/* Fill an event's header on CPU c (fgraph's callbacks are not preempted,
 * so c is stable); preempt: the traced code's preemption count --
 * fgraph_ent.preempt at entry, fgraph_ret.preempt at exit. */
static inline __attribute__((always_inline)) void graph_header(struct cpu *c, struct trace_entry *ent,
							       uint16_t type, unsigned preempt)
{
	trace_entry_fill_on(c, c->current, ent, type, preempt);
}

enum { GRAPH_SKIP, GRAPH_RECORD, GRAPH_HOOK_ONLY };

/*
 * set_graph_notrace and set_graph_function for a call of func (state:
 * its context's state word; inside: that and the thread's or'd).  A notrace call is hooked
 * only to know when it ends; with graph functions set, a call is recorded
 * if it is one or runs inside one.  A hash read here may be newer than the
 * graph_filters bit that sent us here: an empty one just matches nothing.
 */
static FTRACE_HOT __attribute__((used)) noipa int graph_filter(uintptr_t func, uint32_t *state,
								uint64_t *data, uint32_t inside)
{
	if (IN_NOTRACE(inside))
		return GRAPH_SKIP;
	if (hash_contains(__atomic_load_n(&graph_notrace, __ATOMIC_ACQUIRE), func)) {
		data[0] = CALL_NOTRACE;
		*state += 1u << 16;
		return GRAPH_HOOK_ONLY;
	}
	const struct ftrace_hash *funcs = __atomic_load_n(&graph_funcs, __ATOMIC_ACQUIRE);
	if (!hash_empty(funcs)) {
		if (hash_contains(funcs, func)) {
			data[0] = CALL_ROOT;
			*state += 1;
		} else if (!IN_GRAPH_FUNC(inside)) {
			return GRAPH_SKIP;
		}
	}
	return GRAPH_RECORD;
}
/* Called only through its thunk (used, noipa: the compiler sees no call). */
ARCH_PRESERVING_THUNK(graph_filter);

/* `#pragma GCC unroll n` with n a macro's value (the pragma does not expand
 * macros under GCC).  The count is the argument registers' exactly: clang
 * 14 leaves a loop of 6 (x86-64) rolled under `unroll 8`, and a rolled copy
 * is 5 instructions a word. */
#define GRAPH_PRAGMA(x) _Pragma(#x)
#define GRAPH_UNROLL(n) GRAPH_PRAGMA(GCC unroll n)
/* Half the count, as a number the pragma takes (the pairs of an even
 * ARCH_FTRACE_NARGS: clang 14 leaves a loop of 4 rolled under `unroll 8`). */
#define GRAPH_HALF(n)   GRAPH_HALF_(n)
#define GRAPH_HALF_(n)  GRAPH_HALF_##n
#define GRAPH_HALF_6    3
#define GRAPH_HALF_8    4

/* The entry event's fields, with nargs argument words; head: its header
 * word (trace_entry_word_on). */
static inline __attribute__((always_inline)) void graph_entry_fields(uint64_t head,
								     const struct fgraph_ent *e,
								     void *data, unsigned nargs)
{
	struct fgraph_ent_entry *ev = data;
	/* In pairs where the arch copies two words at once (ARCH_PAIR_COPY:
	 * arm64 LDP and STP, 8 where singles took 15), from the event's data
	 * as the base (the compiler would address the page's event header,
	 * whose offset to the words, 4 mod 8, no STP encodes). */
	if (ARCH_PAIR_COPY)
		__asm__("" : "+r"(ev));
	__builtin_memcpy(&ev->ent, &head, 8);
	ev->func = e->func;
	/* depth, then nargs and strs (0) as one 32-bit store: GCC made the
	 * 64-bit word of the two a zero-extension and a store (arm64: the
	 * args event's copy came out 4 instructions longer). */
	ev->depth = e->depth;
	uint32_t ns = nargs;
	__builtin_memcpy(&ev->nargs, &ns, 4);
	if (ARCH_PAIR_COPY) {
GRAPH_UNROLL(GRAPH_HALF(ARCH_FTRACE_NARGS))
		for (unsigned i = 0; i < nargs; i += 2) {
			uint64_t p[2] = { ftrace_regs_get_argument(e->fregs, i),
					  ftrace_regs_get_argument(e->fregs, i + 1) };
			__builtin_memcpy(&ev->args[i], p, 16);
		}
		return;
	}
GRAPH_UNROLL(ARCH_FTRACE_NARGS)
	for (unsigned i = 0; i < nargs; i++)
		ev->args[i] = ftrace_regs_get_argument(e->fregs, i);
}
_Static_assert(ARCH_FTRACE_NARGS % 2 == 0, "graph_entry_fields copies the registers in pairs");

/* The entry event, with nargs argument words (a constant: each caller
 * below gets its own copy, sized at build time).  The fast path's event
 * and the rest's are written apart (ring_buffer.h, rb_reserve_fast), so
 * that the compiler does not join them.  opened: data[0] may be set (a
 * graph filter ran); false: it is 0, so that data need not live across
 * the reservation. */
static inline __attribute__((always_inline)) bool graph_entry_event(struct cpu *c,
								    const struct fgraph_ent *e,
								    uint64_t *data, unsigned nargs,
								    bool opened, bool has_cx)
{
	uint32_t size = sizeof(struct fgraph_ent_entry) + 8 * nargs;
	struct rb_resv r;
	uint64_t gate;
	/* The header before the reservation (as the function tracer's): only
	 * the word, not the CPU, its thread and the count, lives across it.
	 * has_cx: the guard and trace_ctx as the _NOFP entry's guard test
	 * loaded them (e->cx), not loaded again after the push's fence (x86-64
	 * too, now that the entry keeps neither the CPU nor the thread in a
	 * register: graph_call -1). */
	uint64_t head = has_cx ? trace_entry_word_ctx(e->cx,
			(const struct thread *)arch_cpu_word(c, offsetof(struct cpu, current)),
			TRACE_GRAPH_ENT, e->preempt)
			       : trace_entry_word_pinned(c, TRACE_GRAPH_ENT, e->preempt);
	struct rb_cpu *cb = (struct rb_cpu *)arch_cpu_word(c, offsetof(struct cpu, trace_rb));
	/* The event's time is the call's (one clock read for both). */
	if (__builtin_expect(rb_reserve_fast_at(cb, size, e->calltime, &r, &gate), 1)) {
		graph_entry_fields(head, e, r.data, nargs);
		rb_commit_fast(&r);
		return true;
	}
	if (rb_reserve_rest(size, gate, &r) == 0) {
		graph_entry_fields(head, e, r.data, nargs);
		rb_commit_nopreempt(&r);
		return true;
	}
	/* No entry event (recording off, or the buffer refused it): the call
	 * is not hooked, as in Linux, since its exit alone would print a '}'
	 * with no entry.  A call that opened a graph function stays hooked,
	 * to close it again, and records nothing at its exit. */
	if (!opened || !data[0])
		return false;
	data[0] |= CALL_NOENT;
	return true;
}

/*
 * The entry event with more than the argument registers (fsig.h): the
 * words the call passed on the stack or by reference, read now from the
 * entry's stack pointer and from RAM, and with funcgraph-args-string the
 * strings of its `char *` arguments as they are now (a buffer reused after
 * the call must not change the trace).  Called through its thunk, off the
 * plain args path, for a function graph_capture_maybe() names or with
 * funcgraph-args-string on; one with nothing more to copy gets the plain
 * event.  Everything is copied first into this frame (bounded, never
 * faulting: fsig_capture_words, fsig_capture_strs), so the event is sized
 * exactly.
 */
static FTRACE_HOT __attribute__((used)) noipa bool graph_entry_full(uintptr_t func,
								     struct ftrace_regs *fregs,
								     uint64_t calltime,
								     uint64_t depth_preempt,
								     uint64_t *data)
{
	/* The call's fields as words (a struct's address would make the
	 * caller keep the whole struct in memory on every path). */
	struct fgraph_ent ent = { .func = func, .fregs = fregs, .calltime = calltime,
				  .depth = (unsigned)depth_preempt,
				  .preempt = (unsigned)(depth_preempt >> 32), .cpu = this_cpu() };
	const struct fgraph_ent *e = &ent;
	struct cpu *c = e->cpu;
	const struct fsig_capture *cap = fsig_capture_find(func);
	bool strings = trace_opt(TRACE_OPT_FUNCGRAPH_ARGS_STR);
	if (!cap || !(cap->nstack || cap->nref || (strings && cap->strs)))
		return graph_entry_event(c, e, data, ARCH_FTRACE_NARGS, true, false);
	uint64_t words[FSIG_MAX_WORDS];
	uint8_t strs[FSIG_STRS_SIZE(FSIG_MAX_STRS)];
	for (unsigned i = 0; i < ARCH_FTRACE_NARGS; i++)
		words[i] = ftrace_regs_get_argument(fregs, i);
	unsigned nw = fsig_capture_words(cap, words,
					 ftrace_regs_get_stack_pointer(fregs) + ARCH_CALL_PUSH);
	size_t n = strings && cap->strs ? fsig_capture_strs(strs, cap->strs, words, nw) : 0;
	uint32_t size = sizeof(struct fgraph_ent_entry) + nw * 8 + (uint32_t)n;
	struct rb_resv r;
	uint64_t gate;
	bool fast = rb_reserve_fast_at(c->trace_rb, size, e->calltime, &r, &gate);
	if (!fast && rb_reserve_rest(size, gate, &r) != 0) {
		if (!data[0])              /* as graph_entry_event */
			return false;
		data[0] |= CALL_NOENT;
		return true;
	}
	struct fgraph_ent_entry *ev = r.data;
	graph_header(c, &ev->ent, TRACE_GRAPH_ENT, e->preempt);
	ev->func = e->func;
	ev->depth = e->depth;
	ev->nargs = (uint16_t)nw;
	ev->strs = (uint16_t)n;
	for (unsigned i = 0; i < nw; i++)
		ev->args[i] = words[i];
	uint8_t *to = (uint8_t *)(ev->args + nw);
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {           /* words, then the tail's bytes */
		uint64_t v;
		__builtin_memcpy(&v, strs + i, 8);
		__builtin_memcpy(to + i, &v, 8);
	}
	for (; i < n; i++)
		to[i] = strs[i];
	if (fast)
		rb_commit_fast(&r);
	else
		rb_commit_nopreempt(&r);
	return true;
}
ARCH_PRESERVING_THUNK(graph_entry_full);

/* The entry's event, with or without the arguments (funcgraph-args);
 * opened: as graph_entry_event. */
static inline __attribute__((always_inline)) bool graph_entry_record(const struct fgraph_ent *e,
								     uint64_t *data, bool opened)
{
	struct cpu *c = e->cpu;
	if (trace_opt(TRACE_OPT_FUNCGRAPH_ARGS)) {
		if (trace_opt(TRACE_OPT_FUNCGRAPH_ARGS_STR) || graph_capture_maybe(e->func))
			return FTRACE_CALL_COLD(bool, graph_entry_full, e->func, e->fregs, e->calltime,
					       e->depth | (uint64_t)e->preempt << 32, data);
		return graph_entry_event(c, e, data, ARCH_FTRACE_NARGS, opened, false);
	}
	return graph_entry_event(c, e, data, 0, opened, false);
}

/* The entry callback, inlined into the tracer's site callback (below) and
 * called through entryfunc when a site has other graph users too. */
static inline __attribute__((always_inline)) bool graph_entry_inline(const struct fgraph_ent *e,
								     struct fgraph_ops *g,
								     uint64_t *data)
{
	if (e->in_irq && !trace_opt(TRACE_OPT_FUNCGRAPH_IRQS))
		return false;
	/* The thread's word only in an interrupt (else it is *state: one
	 * load, which the compiler cannot tell from the pointers). */
	uint32_t inside = *e->state;
	if (__builtin_expect(e->in_irq, 0))
		inside |= *e->task_state;
	data[0] = 0;
	unsigned filters = arch_load_relaxed32(&graph_filters);
	if (__builtin_expect(inside | filters, 0)) {
		if (filters & FILTER_OFF)
			return false;
		unsigned max = __atomic_load_n(&max_graph_depth, __ATOMIC_RELAXED);
		if (max && e->depth >= max)
			return false;
		if (inside | (filters & (FILTER_FUNCS | FILTER_NOTRACE))) {
			int v = FTRACE_CALL_COLD(int, graph_filter, e->func, e->state, data, inside);
			if (v != GRAPH_RECORD)
				return v == GRAPH_HOOK_ONLY;
		}
		return graph_entry_record(e, data, true);
	}
	return graph_entry_record(e, data, false);
}

static FTRACE_HOT bool graph_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	return graph_entry_inline(e, g, data);
}

/* graph_entry_site's way in thread context when a graph filter, an open
 * filtered call, max_graph_depth or funcgraph-args has work: tail-called,
 * the call found again from its frame (fgraph_ent_of_top); it takes the
 * call back itself if it refuses it. */
static FTRACE_HOT_NOFP void graph_entry_thread(void)
{
	struct fgraph_ent e;
	struct fgraph_stack *st;
	uint64_t *data = fgraph_ent_of_top(&e, arch_this_cpu(), &graph_fgraph_ops, &st);
	if (!graph_entry_inline(&e, &graph_fgraph_ops, data))
		fgraph_enter_refuse(st);
}

/* The entry inlined into the tracer's site callback: in thread context,
 * with no graph filter, open filtered call, depth limit or funcgraph-args,
 * the plain event here, and everything else in graph_entry_thread, so
 * that the site callback keeps only what the plain event needs (x86-64:
 * no callee-saved register). */
static inline __attribute__((always_inline)) bool graph_entry_site(const struct fgraph_ent *e,
								   struct fgraph_ops *g,
								   uint64_t *data)
{
	if (e->in_irq)                   /* a constant in each instance */
		return graph_entry_inline(e, g, data);
	data[0] = 0;
	/* One test for the plain event, the state word or'd with
	 * graph_filters, and one more for the args event: that word is
	 * FILTER_ARGS alone (funcgraph-args-string, a filter, a depth limit or
	 * an open filtered call adds a bit). */
	unsigned any = *e->state | arch_load_relaxed32(&graph_filters);
	if (__builtin_expect(any, 0)) {
		if (any != FILTER_ARGS || graph_capture_maybe(e->func))
			goto thread;
		return graph_entry_event(e->cpu, e, data, ARCH_FTRACE_NARGS, false, true);
	}
	return graph_entry_event(e->cpu, e, data, 0, false, true);
thread:
	graph_entry_thread();
	return true;
}

/* What a site whose only graph user is the tracer calls (its trampoline
 * saves no FP/SIMD register: nothing on this path touches one).  It tests
 * no ops flag: FILTER_OFF, one bit of the word the entry tests anyway,
 * refuses the calls that reach it while the tracer stops.  Under
 * INSTR=xray the entry may need the trace stack's rules, which ask the
 * users through their entryfunc pointers (frame_enter): fgraph_enter_one
 * reaches them through tstack_entry's FP-saving thunk (CALL_FPSAVING_VOID),
 * where tools/check-nofp.py stops.  Of fregs, the entry reads the
 * arguments, the entry SP and the return slot only (fgraph_enter_one,
 * graph_entry_full, tstack_entry with the tracer's bit alone). */
FGRAPH_DEFINE_ENTRY_NOFP(graph_ops_func, graph_entry_site)
#define GRAPH_OPS_FLAGS (FTRACE_OPS_FL_NOFP | FTRACE_OPS_FL_ARGS_ONLY)

/* The exit event's fields; head: its header word (trace_entry_word_on). */
static inline __attribute__((always_inline)) void graph_exit_fields(const struct fgraph_ret *ret,
								   uint64_t head, void *data)
{
	struct fgraph_ret_entry *ev = data;
	__builtin_memcpy(&ev->ent, &head, 8);
	/* From the frame, after the reservation (fgraph.h: fewer values live
	 * across it). */
	ev->func = fgraph_ret_func(ret);
	ev->retval = ret->retval;
	ev->depth = fgraph_ret_depth(ret);
	/* The trace stack's mark in the top bits (function_graph.h), above the count
	 * (at most FGRAPH_OVERRUN_MAX). */
	ev->overrun = (uint32_t)fgraph_ret_overrun(ret) | ret->mark;
	ev->calltime = fgraph_ret_calltime(ret);
	ev->rettime = ret->rettime;
}

/* The exit callback, inlined into the tracer's return path (below) and
 * called through retfunc when a frame has other graph users too. */
static inline __attribute__((always_inline)) void graph_return_inline(const struct fgraph_ret *ret,
								      struct fgraph_ops *g,
								      uint64_t *data)
{
	if (__builtin_expect(data[0] != 0, 0)) {
		if (data[0] & CALL_NOTRACE) {
			*fgraph_ret_state(ret, g) -= 1u << 16;
			return;
		}
		*fgraph_ret_state(ret, g) -= 1;  /* CALL_ROOT */
		if (data[0] & CALL_NOENT)
			return;
	}
	/* The header word made before the reservation, as the function
	 * tracer's (function.c): it, not the CPU, lives across it. */
	struct cpu *c = ret->cpu;
	uint64_t head = trace_entry_word_ctx(fgraph_ret_cx(ret), ret->thread, TRACE_GRAPH_RET,
					     fgraph_ret_preempt(ret));
	/* The fast path's event and the rest's apart (ring_buffer.h,
	 * rb_reserve_fast), so that the compiler does not join them. */
	struct rb_resv r;
	uint64_t gate;
	/* GS-relative on x86-64 (c from arch_cpu_pinned on the solo return). */
	struct rb_cpu *cb = (struct rb_cpu *)arch_cpu_word(c, offsetof(struct cpu, trace_rb));
	if (__builtin_expect(rb_reserve_fast_at(cb, sizeof(struct fgraph_ret_entry),
						ret->rettime, &r, &gate), 1)) {
		graph_exit_fields(ret, head, r.data);
		rb_commit_fast(&r);
	} else if (rb_reserve_rest(sizeof(struct fgraph_ret_entry), gate, &r) == 0) {
		graph_exit_fields(ret, head, r.data);
		rb_commit_nopreempt(&r);
	}
}

static FTRACE_HOT void graph_return(const struct fgraph_ret *ret, struct fgraph_ops *g,
				    uint64_t *data)
{
	graph_return_inline(ret, g, data);
}

/* The return of a call only the tracer took (nothing on this path touches
 * an FP/SIMD register or calls a traced function either), and the whole
 * return while the tracer is the only graph user (the hook then saves no
 * FP/SIMD register). */
FGRAPH_DEFINE_RETURN_NOFP(graph_ret_handler, graph_return_inline, graph_fgraph_ops)

struct fgraph_ops graph_fgraph_ops = {
	.ops.func = graph_ops_func,
	.ops.flags = GRAPH_OPS_FLAGS,
	.entryfunc = graph_entry,
	.retfunc = graph_return,
	.ret_handler = graph_ret_handler,
	.solo_return = graph_ret_handler_solo,
	.idx = -1,
};
GLOBAL_OPS(graph, &graph_fgraph_ops.ops);

/* ---- set_graph_function / set_graph_notrace ---- */

const struct ftrace_hash *graph_hash(bool notrace)
{
	return notrace ? graph_notrace : graph_funcs;
}

/* Same rules as ftrace_set_filter: the whole list is checked first; -EINVAL
 * (reason in ftrace_filter_error) changes nothing. */
int graph_set_hash(bool notrace, const char *patterns, bool reset)
{
	mutex_lock(&graph_mutex);
	struct ftrace_hash **hp = notrace ? &graph_notrace : &graph_funcs, *h;
	int err = ftrace_build_hash(*hp, patterns, reset, &h);
	if (!err) {
		struct ftrace_hash *old = *hp;
		/* RELEASE: the entry callback sees the new hash complete. */
		__atomic_store_n(hp, h, __ATOMIC_RELEASE);
		unsigned bit = notrace ? FILTER_NOTRACE : FILTER_FUNCS;
		if (hash_empty(h))
			__atomic_fetch_and(&graph_filters, ~bit, __ATOMIC_RELAXED);
		else
			__atomic_fetch_or(&graph_filters, bit, __ATOMIC_RELAXED);
		tramp_grace_period();     /* no entry callback still reads it */
		hash_free(old);
	}
	mutex_unlock(&graph_mutex);
	return err;
}

static const char *boot_graph[2];

/* As ftrace_filter= (trace/global_ops.c): each pattern on its own. */
static int opt_graph_filter(const char *v)
{
	return trace_boot_globs_check("ftrace_graph_filter", v) ? (boot_graph[0] = v, 0) : -1;
}

static int opt_graph_notrace(const char *v)
{
	return trace_boot_globs_check("ftrace_graph_notrace", v) ? (boot_graph[1] = v, 0) : -1;
}
BT_PARAM("ftrace_graph_filter", opt_graph_filter, "function_graph: trace only these calls' graphs");
BT_PARAM("ftrace_graph_notrace", opt_graph_notrace, "function_graph: never trace these calls' graphs");

/* Set at once (max_graph_depth is read lock-free, any time); a bad value
 * says why and leaves the depth as it was. */
static int opt_graph_max_depth(const char *v)
{
	char *end;
	unsigned long n = 0;
	bool ok = v && *v >= '0' && *v <= '9';
	if (ok) {
		errno = 0;
		n = strtoul(v, &end, 0);
		ok = *end == '\0' && errno == 0 && n <= 0xffffffffu;
	}
	if (!ok) {
		kprintf("ftrace_graph_max_depth: '%s' is not a depth (a number up to 4294967295, "
			"0 for no limit)\n", v ? v : "");
		return -1;
	}
	graph_set_max_depth((unsigned)n);
	return 0;
}
BT_PARAM("ftrace_graph_max_depth", opt_graph_max_depth, "function_graph: max_graph_depth at boot");

static int graph_start(void)
{
	for (int k = 0; k < 2; k++)
		if (boot_graph[k])
			trace_boot_globs_apply(k ? "ftrace_graph_notrace" : "ftrace_graph_filter",
					       boot_graph[k], k == 1, graph_set_hash);
	boot_graph[0] = boot_graph[1] = NULL;
	/* Before the sites reach the entry, as the ops' ENABLED flag is set
	 * before its sites are patched. */
	__atomic_fetch_and(&graph_filters, ~FILTER_OFF, __ATOMIC_RELAXED);
	return register_fgraph(&graph_fgraph_ops);
}

static void graph_stop(void)
{
	/* Before the sites are moved away, as the ops' ENABLED flag is
	 * cleared before: calls meanwhile are refused (graph_entry_inline). */
	__atomic_fetch_or(&graph_filters, FILTER_OFF, __ATOMIC_RELAXED);
	unregister_fgraph(&graph_fgraph_ops);
}

TRACER(030, graph_tracer) = {
	.name = "function_graph", .start = graph_start, .stop = graph_stop,
	.print = graph_print, .print_header = graph_print_header,
	.flag_changed = graph_flag_changed,
};

/* ---- the files ---- */

static int cat_graph_function(const char *arg)
{
	trace_filter_print(graph_hash(false), TRACE_FILTER_ALL);
	return 0;
}

static int cat_graph_notrace(const char *arg)
{
	trace_filter_print(graph_hash(true), TRACE_FILTER_NONE);
	return 0;
}

static int set_graph_function(const char *arg, const char *value, bool append)
{
	return trace_filter_result(graph_set_hash(false, value, !append));
}

static int set_graph_notrace(const char *arg, const char *value, bool append)
{
	return trace_filter_result(graph_set_hash(true, value, !append));
}

static int cat_max_graph_depth(const char *arg)
{
	kprintf("%u\n", max_graph_depth);
	return 0;
}

static int set_max_graph_depth(const char *arg, const char *value, bool append)
{
	unsigned long n;
	if (!tracefs_parse_ulong(value, &n, 0xffffffffu))
		return tracefs_write_error(-EINVAL, "max_graph_depth takes a number, 0 for no limit");
	graph_set_max_depth((unsigned)n);
	return 0;
}

TRACEFS_FILE(130, "set_graph_function", .cat = cat_graph_function, .write = set_graph_function,
	     .append = true);
TRACEFS_FILE(140, "set_graph_notrace", .cat = cat_graph_notrace, .write = set_graph_notrace,
	     .append = true);
TRACEFS_FILE(180, "max_graph_depth", .cat = cat_max_graph_depth, .write = set_max_graph_depth);
