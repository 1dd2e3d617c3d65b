/*
 * function.c — the `function` tracer: one event (ip, parent ip) per call.
 *
 * Its ops guards recursion itself (FTRACE_OPS_FL_RECURSION), so the site's
 * trampoline calls function_trace_call directly: the whole per-call path is
 * trampoline -> this callback -> ring-buffer reserve/commit.  None of it
 * touches an FP/SIMD register or calls a traced function
 * (FTRACE_OPS_FL_NOFP, checked at build time), so the trampoline does not
 * save them, and the callback only tests its context's recursion bit; it
 * reads no argument, nor its op, either (FTRACE_OPS_FL_NOARGS), so its
 * trampoline builds no ftrace_regs and passes only ip and parent; and it
 * leaves the preemption count alone (it runs in trampoline text, where a
 * thread is never preempted).
 *
 * Its ops follows set_ftrace_filter / set_ftrace_notrace (GLOBAL_OPS,
 * trace/global_ops.c, with the boot options ftrace_filter= and
 * ftrace_notrace=); its events print with function_print.
 */
#include "boot/console.h"
#include "boot/ksyms.h"
#include "trace/core/ftrace.h"
#include "trace/tracers/function.h"
#include "trace/global_ops.h"
#include "trace/options.h"
#include "trace/core/recursion.h"
#include "trace/trace.h"

/* The event of one call: the header word (trace_entry_word_on), ip and
 * parent. */
static inline __attribute__((always_inline)) void
function_event(void *data, uint64_t head, uintptr_t ip, uintptr_t parent)
{
	struct ftrace_entry *e = data;
	__builtin_memcpy(&e->ent, &head, 8);
	e->ip = ip;
	e->parent_ip = parent;
}

/*
 * function_trace_call's way when the buffer's fast path does not do: the
 * reservation was begun (gate word g, r) and is finished here, apart from
 * the common path, which the compiler would otherwise join to this one
 * (a test and registers on every call).  Tail-called; as FTRACE_HOT_NOFP
 * code it is not preempted either, and the buffer's general path, which
 * is ordinary text, holds preemption off itself (rb_port.h).
 */
static FTRACE_HOT_NOFP void function_trace_rest(uintptr_t ip, uintptr_t parent, struct rb_cpu *cb,
						uint64_t g, uint64_t head)
{
	struct rb_resv r = { .cb = cb };
	if (rb_reserve_rest(sizeof(struct ftrace_entry), g, &r) == 0) {
		function_event(r.data, head, ip, parent);
		rb_commit_nopreempt(&r);
	}
}

/* op, fregs: undefined from its own trampoline (FTRACE_OPS_FL_NOARGS), unread. */
static FTRACE_HOT_NOFP void function_trace_call(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
				struct ftrace_regs *fregs)
{
	/* FTRACE_HOT: this thread is not preempted here, so c stays this CPU
	 * and t its thread until we return, without the preemption count
	 * raised (the buffer's general path raises it: rb_port.h); the count
	 * is the traced code's.  The header is made before the reservation,
	 * as Linux makes its context word before it reserves: then only the
	 * word, not the CPU and the thread, lives across it. */
	struct cpu *c = arch_cpu_pinned();
	uint32_t cx;
	if (ftrace_callback_free_on(c, &cx)) {
		struct thread *t = (struct thread *)arch_cpu_word(c, offsetof(struct cpu, current));
		uint64_t head = trace_entry_word_ctx(cx, t, TRACE_FN, t->preempt_count);
		struct rb_cpu *cb = (struct rb_cpu *)arch_cpu_word(c, offsetof(struct cpu, trace_rb));
		struct rb_resv r;
		uint64_t g;
		if (__builtin_expect(!rb_reserve_fast(cb, sizeof(struct ftrace_entry), &r, &g), 0))
			return function_trace_rest(ip, parent, r.cb, g, head);
		function_event(r.data, head, ip, parent);
		rb_commit_fast(&r);
	}
}

struct ftrace_ops function_ops = {
	.func = function_trace_call,
	.flags = FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_NOFP | FTRACE_OPS_FL_NOARGS,
};
GLOBAL_OPS(function, &function_ops);

static int function_start(void)
{
	return register_ftrace_function(&function_ops);
}

static void function_stop(void)
{
	unregister_ftrace_function(&function_ops);
}

/* An address as the function format prints it: the symbol's name, or with
 * sym-offset "name+0xoff/0xsize"; an unknown one in hex. */
static void put_sym(char *buf, size_t size, uintptr_t addr)
{
	uintptr_t off, len;
	const char *name = ksym_lookup(addr, &off, &len);
	if (!name)
		ksnprintf(buf, size, "0x%lx", (unsigned long)addr);
	else if (trace_opt(TRACE_OPT_SYM_OFFSET))
		ksnprintf(buf, size, "%s+0x%lx/0x%lx", name, (unsigned long)off, (unsigned long)len);
	else
		ksnprintf(buf, size, "%s", name);
}

/* A TRACE_FN event: "func <-parent" (with print-parent) after the context. */
static bool function_print(struct trace_iter *ti)
{
	const struct rb_event *ev = &ti->ev;
	const struct trace_entry *ent = ti->ent;
	const struct ftrace_entry *e = (const void *)ent;
	char fn[96], parent[96];
	put_sym(fn, sizeof(fn), e->ip);
	trace_print_context(ev, ent);
	if (trace_opt(TRACE_OPT_PRINT_PARENT)) {
		put_sym(parent, sizeof(parent), e->parent_ip);
		kprintf("%s <-%s\n", fn, parent);
	} else {
		kprintf("%s\n", fn);
	}
	return true;
}

TRACE_EVENT_PRINTER(TRACE_FN, function_print);

TRACER(020, function_tracer) = {
	.name = "function", .start = function_start, .stop = function_stop,
};
