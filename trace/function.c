/*
 * function.c — the `function` tracer: one event (ip, parent ip) per call.
 *
 * Its ops guards recursion itself (FTRACE_OPS_FL_RECURSION), so the site's
 * trampoline calls function_trace_call directly: the whole per-call path is
 * trampoline -> this callback -> ring-buffer reserve/commit.  None of it
 * touches an FP/SIMD register or calls a traced function
 * (FTRACE_OPS_FL_NOFP, checked at build time), so the trampoline does not
 * save them, and the callback only tests its context's recursion bit; it
 * reads no argument either (FTRACE_OPS_FL_NOARGS), so its trampoline builds
 * no ftrace_regs; and it leaves the preemption count alone (it runs in
 * trampoline text, where a thread is never preempted).
 *
 * Boot options: ftrace=function, ftrace_filter=, ftrace_notrace= (Linux's
 * meanings: comma- or space-separated globs, each applied on its own: a bad
 * one is reported and skipped, the others apply).
 */
#include <string.h>

#include "boot/cmdline.h"
#include "boot/console.h"
#include "boot/ksyms.h"
#include "lib/glob.h"
#include "trace/ftrace.h"
#include "trace/fgraph.h"
#include "trace/ftrace_internal.h"
#include "trace/recursion.h"
#include "trace/graph.h"
#include "trace/options.h"
#include "trace/profile.h"
#include "trace/trace.h"

/* The event of one call: the header, ip and parent. */
static inline __attribute__((always_inline)) void
function_event(struct cpu *c, struct thread *t, unsigned depth, void *data, uintptr_t ip,
	       uintptr_t parent)
{
	struct ftrace_entry *e = data;
	trace_entry_fill_on(c, t, &e->ent, TRACE_FN, depth);
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
						uint64_t g)
{
	struct cpu *c = arch_this_cpu();
	struct thread *t = c->current;
	struct rb_resv r = { .cb = cb };
	if (rb_reserve_rest(sizeof(struct ftrace_entry), g, &r) == 0) {
		function_event(c, t, t->preempt_count, r.data, ip, parent);
		rb_commit_nopreempt(&r);
	}
}

/* fregs: NULL from its own trampoline (FTRACE_OPS_FL_NOARGS), unread. */
static FTRACE_HOT_NOFP void function_trace_call(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
				struct ftrace_regs *fregs)
{
	/* FTRACE_HOT: this thread is not preempted here, so c stays this CPU
	 * and t its thread until we return, without the preemption count
	 * raised (the buffer's general path raises it: rb_port.h); the count
	 * is the traced code's. */
	struct cpu *c = arch_this_cpu();
	if (ftrace_recursion_free_on(c) && !ftrace_is_dead_on(c)) {
		struct thread *t = c->current;
		struct rb_resv r;
		uint64_t g;
		if (__builtin_expect(!rb_reserve_fast(c->trace_rb, sizeof(struct ftrace_entry), &r, &g),
				     0))
			return function_trace_rest(ip, parent, r.cb, g);
		function_event(c, t, t->preempt_count, r.data, ip, parent);
		rb_commit_fast(&r);
	}
}

struct ftrace_ops function_ops = {
	.func = function_trace_call,
	.flags = FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_NOFP | FTRACE_OPS_FL_NOARGS,
};

/* ---- the filter the function and function_graph tracers share ---- */

static const char *boot_filter, *boot_notrace;

/* The next pattern of a boot option's value (separated by commas or
 * spaces, as ftrace_build_hash splits them) into word; its length, which
 * is >= size when it did not fit (word then holds nothing useful); 0 at
 * the end.  *v moves past it. */
static size_t boot_glob_next(const char **v, char *word, size_t size)
{
	const char *p = *v + strspn(*v, ", \t\n");
	size_t n = strcspn(p, ", \t\n");
	if (n && n < size) {
		memcpy(word, p, n);
		word[n] = '\0';
	}
	*v = p + n;
	return n;
}

/* Why one pattern of a boot option cannot be applied, or NULL. */
static const char *boot_glob_why(const char *word, size_t n, size_t size)
{
	if (n >= size)
		return "longer than 127 characters";
	return glob_check(word[0] == '!' ? word + 1 : word);
}

unsigned trace_boot_globs_check(const char *opt, const char *v)
{
	char word[128];
	unsigned good = 0;
	size_t n;
	while (v && (n = boot_glob_next(&v, word, sizeof(word)))) {
		const char *why = boot_glob_why(word, n, sizeof(word));
		if (why)
			kprintf("%s: invalid pattern '%.40s%s': %s, ignored\n", opt,
				n < sizeof(word) ? word : v - n, n > 40 ? "..." : "", why);
		else
			good++;
	}
	return good;
}

void trace_boot_globs_apply(const char *opt, const char *v, bool notrace,
			    int (*set)(bool notrace, const char *patterns, bool reset))
{
	char word[128];
	bool applied = false;
	size_t n;
	while ((n = boot_glob_next(&v, word, sizeof(word)))) {
		if (boot_glob_why(word, n, sizeof(word)))
			continue;              /* reported by trace_boot_globs_check */
		/* The first pattern that applies replaces what was there, the
		 * others add to it (or, with '!', take from it). */
		if (set(notrace, word, !applied) == 0)
			applied = true;
		else
			kprintf("%s: %s, ignored\n", opt, ftrace_filter_error);
	}
	if (!applied && !notrace)
		kprintf("%s: no pattern applies: the filter stays empty (every function)\n", opt);
}

/* Each pattern is checked now (a typo is reported at boot with its reason);
 * whether it matches a function is known when it is applied.  The option is
 * refused as a whole only when no pattern in it is well formed. */
static int opt_filter(const char *v)
{
	if (!trace_boot_globs_check("ftrace_filter", v))
		return -1;
	boot_filter = v;
	return 0;
}

static int opt_notrace(const char *v)
{
	if (!trace_boot_globs_check("ftrace_notrace", v))
		return -1;
	boot_notrace = v;
	return 0;
}
BT_PARAM("ftrace_filter", opt_filter, "functions the function tracers trace (globs)");
BT_PARAM("ftrace_notrace", opt_notrace, "functions they never trace (globs)");

int trace_filter_set(bool notrace, const char *patterns, bool reset)
{
	/* The function tracer, function_graph and the function profiler, as
	 * Linux's global filter drives all three. */
	struct ftrace_ops *ops[3] = { &function_ops, &graph_fgraph_ops.ops, profile_ftrace_ops() };
	/* All three or none (-EINVAL, -ENOMEM: nothing changes). */
	return ftrace_set_filter_ops(ops, 3, notrace, patterns, reset);
}

const struct ftrace_hash *trace_filter_hash(bool notrace)
{
	return notrace ? function_ops.notrace_hash : function_ops.filter_hash;
}

void trace_filter_boot(void)
{
	if (boot_filter)
		trace_boot_globs_apply("ftrace_filter", boot_filter, false, trace_filter_set);
	if (boot_notrace)
		trace_boot_globs_apply("ftrace_notrace", boot_notrace, true, trace_filter_set);
	boot_filter = boot_notrace = NULL;
}

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

/* A trace_marker write: "tracing_mark_write: text" (Linux's print event). */
static bool marker_print(struct trace_iter *ti)
{
	const struct print_entry *e = (const void *)ti->ent;
	if (ti->ev.len <= sizeof(*e))
		return false;
	const char *fn = ksym_lookup(e->ip, NULL, NULL);
	trace_print_context(&ti->ev, ti->ent);
	/* Bounded by the event: a damaged one has no NUL. */
	int n = (int)strnlen(e->buf, ti->ev.len - sizeof(*e));
	kprintf("%s: %.*s", fn ? fn : "?", n, e->buf);
	if (!n || e->buf[n - 1] != '\n')
		kprintf("\n");
	return true;
}

bool function_print(struct trace_iter *ti)
{
	const struct rb_event *ev = &ti->ev;
	const struct trace_entry *ent = ti->ent;
	if (ent->type == TRACE_PRINT)
		return marker_print(ti);
	if (ent->type != TRACE_FN)
		return false;
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

const struct tracer function_tracer = {
	"function", function_start, function_stop, function_print, NULL,
};
