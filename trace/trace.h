/*
 * trace.h — the trace buffer, its events, and the tracers that fill it.
 *
 * One global buffer (trace_buffer, one ring per CPU) holds every event.
 * Events start with Linux's common header, so their layout is the one
 * trace-cmd knows from the `function`/`funcgraph_*` formats.
 *
 * Tracers (`nop`, `function`, `function_graph`) register themselves with
 * TRACER() in the .tracers section, listed (available_tracers) in the
 * order of their keys; one is current at a time (tracer_set(), `ftrace=`
 * at boot).  Starting and stopping a tracer happens in thread context
 * under tracer_mutex.  Each event type's text comes from the printer its
 * owner registers with TRACE_EVENT_PRINTER() (Linux's struct trace_event),
 * unless the current tracer prints the event its own way first.
 */
#ifndef TRACE_TRACE_H
#define TRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/cpu.h"
#include "boot/sched.h"
#include "trace/ring_buffer/ring_buffer.h"

struct ftrace_ops;

/* common_type values (Linux's enum trace_type numbering). */
enum {
	TRACE_FN = 1,
	TRACE_PRINT = 5,
	TRACE_GRAPH_RET = 10,
	TRACE_GRAPH_ENT = 11,
};

/* common_flags (Linux's TRACE_FLAG_*). */
enum {
	TRACE_FLAG_IRQS_OFF = 0x01,
	TRACE_FLAG_NEED_RESCHED = 0x04,
	TRACE_FLAG_HARDIRQ = 0x08,
	TRACE_FLAG_NMI = 0x40,
};

struct trace_entry {
	uint16_t type;
	uint8_t flags;
	uint8_t preempt_count;
	int32_t pid;               /* thread id; 0 for the idle threads */
};

struct ftrace_entry {          /* TRACE_FN: the `function` event */
	struct trace_entry ent;
	uint64_t ip;
	uint64_t parent_ip;
};
_Static_assert(sizeof(struct ftrace_entry) == 24, "function event is 24 bytes");

struct print_entry {           /* TRACE_PRINT: trace_marker text (Linux's `print`) */
	struct trace_entry ent;
	uint64_t ip;               /* the writer: tracing_mark_write */
	char buf[];                /* NUL-terminated, ends with '\n' as echo wrote it */
};
#define TRACE_MARKER_MAX 1024  /* bytes of text one write may carry */

/* trace_marker: put `text` (plus '\n') in the buffer as a print event.
 * -EINVAL if longer than TRACE_MARKER_MAX, -ENODEV without a buffer,
 * -EBUSY if recording is off or the buffer refused it.  Any context. */
int tracing_mark_write(const char *text);

extern struct rb_buffer *trace_buffer;
/* Pages from the kernel heap (newlib memalign): for any kernel rb_create(). */
extern const struct rb_allocator rb_kernel_allocator;
extern size_t trace_buf_size;               /* bytes per CPU (trace_buf_size=) */


/* tracing_on: the one global recording switch (the file, traceoff_on_warning).
 * Idempotent; any context.  Other users of rb_record_off/on (printing,
 * resizing) nest inside it. */
void tracing_off(void);
void tracing_on(void);
bool tracing_is_on(void);

/* tracing_cpumask (Linux's): bit N set = CPU N records.  A CPU leaving the
 * mask has its recording switched off (rb_record_cpu_off: its writers stop
 * at once, nothing counted lost), and on again when it comes back.  0, or
 * -EINVAL for a bit of a CPU that does not exist, -ENODEV without a buffer
 * (nothing changed).  Thread context. */
int trace_set_cpumask(uint32_t mask);
uint32_t trace_cpumask(void);
/* Whether there is a trace buffer (trace_init may have made none); if
 * not, says so for the tracefs file `file` and the command `op` ("cat",
 * "echo"). */
bool trace_need_buffer(const char *op, const char *file);
/* `echo > trace` (cpu RB_ALL_CPUS) or `echo > per_cpu/cpuN/trace`: empty
 * the buffer of CPU `cpu` or all, recording off on it meanwhile.  0 or
 * -errno, said in tracefs terms for `file` (tracefs_write_error).  Thread
 * context. */
int trace_clear_buffer(const char *file, int cpu);

/*
 * A printing pass over the buffer (`cat trace`): the merged iterator, the
 * event being printed, and what printers remember from one event to the
 * next.  Recording is paused for the whole pass.
 */
#define GRAPH_PRINT_DEPTH 50            /* depths whose entries the graph printer remembers */
/* What the function_graph printer (trace/tracers/function_graph_output.c) remembers per CPU
 * during a pass.  Only it reads or writes this; it clears a CPU's copy at
 * that CPU's first graph event of the pass (seen as last_pid == -1). */
struct graph_print_cpu {
	uint64_t enter_func[GRAPH_PRINT_DEPTH];   /* "func() {" open at each depth, 0: none */
	int depth;                                /* depth of the last line, -1 at the start */
	bool in_irq;                              /* inside a "==========>" ... "<==========" */
};
struct trace_iter {
	struct rb_iter it;
	struct rb_event ev;              /* the event being printed */
	const struct trace_entry *ent;   /* ev.data */
	int last_pid[MAX_CPUS];          /* task last seen on each CPU, -1 before any */
	bool consuming;                  /* trace_pipe: events are taken out as printed */
	struct rb_iter count;            /* trace_print_pass: a copy of `it` to count with */
	/* The event being printed, copied: a consuming look-ahead may give its
	 * page back to the writers (ev.data and ent point here). */
	uint64_t copy[(RB_MAX_PAYLOAD + 7) / 8];
	struct graph_print_cpu graph[MAX_CPUS];   /* graph printer's state (see above) */
};
/* The next event of `cpu` after the current one, without taking it:
 * 0, or -RB_EAGAIN if there is none. */
int trace_iter_peek(struct trace_iter *ti, unsigned cpu, struct rb_event *ev);
/* Take (and drop) the event trace_iter_peek() returned for `cpu`. */
void trace_iter_skip(struct trace_iter *ti, unsigned cpu);

struct tracer {
	const char *name;
	int (*start)(void);        /* register ops; 0 or -errno; NULL: nothing to start */
	void (*stop)(void);
	/* NULL, or print ti->ev the tracer's own way (function_graph prints
	 * marks as comments in its graph); false leaves it to the event's
	 * printer. */
	bool (*print)(struct trace_iter *ti);
	void (*print_header)(void);    /* NULL: Linux's default header */
	/* NULL, or called after any trace option changed (Linux's
	 * flag_changed), whichever tracer is current: function_graph keeps
	 * funcgraph-args in a word its entry tests.  Thread context. */
	void (*flag_changed)(void);
};

/*
 * TRACER(key, var) = { "name", ... };  defines and registers a tracer.
 * The linker sorts the .tracers.KEY sections by name (linker/ARCH.ld):
 * available_tracers lists the tracers in the order of their keys, three
 * digits each, unique.
 */
#define TRACER(key, var)                                                         	static const struct tracer var                                           		__attribute__((used, section(".tracers." #key), aligned(8)))

/*
 * TRACE_EVENT_PRINTER(type, fn): fn prints the events of `type`
 * (common_type) in `cat trace` and trace_pipe, after the context columns
 * it prints itself; it returns false for an event it cannot print (one too
 * short: then nothing is printed).  One printer per type, registered by
 * the file that writes the event; the .trace_events section holds them.
 */
struct trace_event {
	uint16_t type;
	bool (*print)(struct trace_iter *ti);
};
#define TRACE_EVENT_PRINTER(ttype, fn)                                            	static const struct trace_event __trace_event_##ttype                     		__attribute__((used, section(".trace_events"), aligned(8))) =      		{ ttype, fn }

const struct tracer *tracer_find(const char *name);
const struct tracer *tracer_current(void);
/* Switch tracers: start `name`, stop the current one, clear the buffer (as
 * Linux does).  Setting the current tracer again changes nothing.
 * -EINVAL if unknown, -ENODEV for a tracer other than nop when there is
 * no buffer (trace_init failed), or the start's error (e.g. -ENOMEM,
 * -EBUSY): either way nothing changed (the old tracer runs, the buffer
 * keeps its events). */
int tracer_set(const char *name);
void tracer_list(void (*fn)(const char *name, void *arg), void *arg);
/* After trace_opts changed (trace/options.c): every tracer's flag_changed. */
void tracer_flags_changed(void);

/* The common header of an event written now from the tracer, on CPU c
 * (this one, stable: preemption off) by thread t (c's current), as one
 * little-endian 8-byte word: type, flags, preempt count (the traced
 * code's, capped at 15 as Linux does), pid (idle threads have tid 0; the
 * thread keeps it shifted into place, with TRACE_FN's type: entry_pid;
 * function_graph's two types: ret_pid, with TRACE_GRAPH_RET's).  cx is
 * c->trace_guard | c->trace_ctx (a caller that has loaded the pair
 * passes it: ftrace_callback_free_on).  trace_entry_word_on loads it;
 * trace_entry_fill_on stores the word at e in one store.  Inline: they
 * are on every traced call's path.  The layout is Linux's struct
 * trace_entry (include/linux/trace_events.h). */
static inline __attribute__((always_inline)) uint64_t
trace_entry_word_pidw(uint32_t cx, const uint64_t *pidw, uint16_t flip, unsigned preempt_depth)
{
	_Static_assert(sizeof(struct trace_entry) == 8 && offsetof(struct trace_entry, pid) == 4,
		       "one little-endian word");
	_Static_assert(TRACE_CTX_HARDIRQ == TRACE_FLAG_HARDIRQ << 16 &&
			       CPU_NEED_RESCHED == TRACE_FLAG_NEED_RESCHED &&
			       offsetof(struct cpu, need_resched) == offsetof(struct cpu, trace_guard) + 2,
		       "boot/cpu.h");
	/* The hardirq flag (trace_ctx) and need-resched (the guard's third
	 * byte) are in cx where the word wants them (boot/cpu.h), and
	 * nothing else of the two words is in that byte: one AND.  The
	 * irqs-off flag comes in place from the arch, joined to the type
	 * there (x86-64 folds it into its flip of RFLAGS.IF).  The 32-bit
	 * ones are joined in 32 bits, so that the word is widened once (each
	 * widened alone costs arm64 a UBFIZ), and then to the pid word, into
	 * which the count goes last (arm64's BFI writes the register the
	 * join made: no copy of the pid word).  The pid word *pidw carries a
	 * type already (boot/sched.h: entry_pid TRACE_FN's, ret_pid
	 * TRACE_GRAPH_RET's): the join is an XOR, which flips it by `flip`
	 * into the event's (nothing when it is the word's) and is an OR
	 * everywhere else (the flags' bits are 0 in the word). */
	_Static_assert(TRACE_FLAG_IRQS_OFF == 1, "bit 16 of the word");
	uint32_t flags = (cx & (TRACE_CTX_HARDIRQ | CPU_NEED_RESCHED << 16)) |
			 arch_irqs_disabled_or(16, flip);
	uint64_t w = arch_min15_or(*pidw ^ flags, 24, preempt_depth);
	return w;
}

static inline __attribute__((always_inline)) uint64_t
trace_entry_word_ctx(uint32_t cx, const struct thread *t, uint16_t type, unsigned preempt_depth)
{
	_Static_assert(THREAD_ENTRY_TYPE == TRACE_FN, "boot/sched.h");
	/* function_graph's entry from ret_pid: TRACE_GRAPH_ENT is one bit
	 * from TRACE_GRAPH_RET (an immediate arm64's ORR takes), where from
	 * entry_pid it is 11 ^ 1 = 10 (none: a MOV and an ORR). */
	_Static_assert(THREAD_RET_TYPE == TRACE_GRAPH_RET && (TRACE_GRAPH_ENT ^ THREAD_RET_TYPE) == 1,
		       "boot/sched.h");
	if (type == TRACE_GRAPH_ENT || type == TRACE_GRAPH_RET)
		return trace_entry_word_pidw(cx, &t->ret_pid, type ^ THREAD_RET_TYPE, preempt_depth);
	return trace_entry_word_pidw(cx, &t->entry_pid, type ^ THREAD_ENTRY_TYPE, preempt_depth);
}

static inline __attribute__((always_inline)) uint64_t
trace_entry_word_on(struct cpu *c, const struct thread *t, uint16_t type, unsigned preempt_depth)
{
	uint32_t ctx, guard = arch_load_pair32(&c->trace_guard, &ctx);
	return trace_entry_word_ctx(guard | ctx, t, type, preempt_depth);
}

/* The same for c = arch_cpu_pinned() and its current thread, read through
 * arch_cpu_pair32 and arch_cpu_word (x86-64: GS-relative loads, so that
 * no register need keep c for it). */
static inline __attribute__((always_inline)) uint64_t
trace_entry_word_pinned(struct cpu *c, uint16_t type, unsigned preempt_depth)
{
	uint32_t ctx, guard = arch_cpu_pair32(c, offsetof(struct cpu, trace_guard), &ctx);
	const struct thread *t = (const struct thread *)arch_cpu_word(c, offsetof(struct cpu, current));
	return trace_entry_word_ctx(guard | ctx, t, type, preempt_depth);
}

static inline __attribute__((always_inline)) void
trace_entry_fill_on(struct cpu *c, const struct thread *t, struct trace_entry *e,
		    uint16_t type, unsigned preempt_depth)
{
	uint64_t w = trace_entry_word_on(c, t, type, preempt_depth);
	__builtin_memcpy(e, &w, 8);
}

static inline __attribute__((always_inline)) void
trace_entry_fill(struct trace_entry *e, uint16_t type, unsigned preempt_depth)
{
	struct cpu *c = arch_this_cpu();
	trace_entry_fill_on(c, c->current, e, type, preempt_depth);
}

/* Print the buffer in the current tracer's format, all CPUs merged by time
 * (`cat trace`; non-consuming).  Returns the number of events printed. */
unsigned long trace_print_all(void);
/* `cat per_cpu/cpuN/trace`: the same header (counting every CPU, as
 * Linux's does), then the events of CPU `cpu` only; RB_ALL_CPUS: all. */
unsigned long trace_print_cpu(int cpu);
/* The same over an iterator the caller started (ti->it; the panic dump's
 * forced one): header and events.  The caller ends the iterator. */
unsigned long trace_print_pass(struct trace_iter *ti);
/* `cat trace_pipe`: print and consume events as they come, no header, until
 * stop() says so (polled between events and while the buffer is empty;
 * it sleeps meanwhile).  Thread context.  Returns the events printed. */
unsigned long trace_pipe(bool (*stop)(bool empty));
/* per_cpu/cpuN/trace_pipe: the same for CPU `cpu`'s events only. */
unsigned long trace_pipe_cpu(int cpu, bool (*stop)(bool empty));
/* The shell's `cat trace_pipe` of CPU `cpu` or all (RB_ALL_CPUS): until a
 * key arrives, or in a script until the buffer is drained; the reading
 * thread is not traced meanwhile.  Thread context. */
void trace_pipe_read(int cpu);
/* "   sec.usec" of a buffer timestamp, as the trace prints it. */
void trace_format_ts(char *buf, size_t size, uint64_t ts);
/* "comm-pid [cpu] flags timestamp: " context columns. */
void trace_print_context(const struct rb_event *ev, const struct trace_entry *ent);
const char *trace_comm(int pid, char *buf, size_t size);

#endif
