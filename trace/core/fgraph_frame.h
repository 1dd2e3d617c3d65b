/*
 * fgraph_frame.h — the frames of fgraph's stacks, without the kernel
 * around them: sizes, word layout, the stack itself, and the marks an exit
 * can carry.  Included by trace/core/fgraph.h (users), trace/core/fgraph_inline.h
 * (the code that pushes and pops), trace/core/tstack.c (the trace stack's
 * pairing rules) and the host tests of those rules, which build without an
 * arch (tests/host/test_tstack.c).
 *
 * A frame, in words of its context's stack (the layout is described at the
 * top of trace/core/fgraph.c; words 0 and 2 and the size word's low half
 * are read by tools/gdb/baretrace.py too).  The users word's bits 32 and up are the
 * trace stack's (trace/core/tstack.h): a frame of the return-hook backend has
 * them all 0.
 */
#ifndef TRACE_FGRAPH_FRAME_H
#define TRACE_FGRAPH_FRAME_H

#include <stdint.h>

#define FGRAPH_MAX_USERS   8
#define FGRAPH_DATA_WORDS  2
#define FGRAPH_STACK_WORDS 2048     /* per context: ~220 frames of one user */

#define FR_RET      0
#define FR_FUNC     1
#define FR_SP       2
#define FR_TIME     3
#define FR_USERS    4
#define FR_HEADER   5
#define FB_GEN      0                          /* in a user's block */
#define FB_DATA     1
#define FB_WORDS    (1 + FGRAPH_DATA_WORDS)
#define FR_WORDS(n) (FR_HEADER + FB_WORDS * (n) + 1)   /* a frame of n users */
#define FR_MIN      FR_WORDS(1)
/* A frame's last word: bits 0-31 its size in words (so `(unsigned)` of
 * it is the size); bits 32-63 0, or in a single-user frame (FR_MIN words,
 * pushed by fgraph_enter_one for user g) the low 32 bits of g's serial:
 * FR_TAG(g->gen), which g->frame_tag holds.  A tagged frame's users word
 * and block serial are not written: the tag stands for both. */
#define FR_TAG(gen) ((uint64_t)(gen) << 32 | FR_MIN)

/* The trace stack's bits of the users word (trace/core/tstack.c). */
#define FR_TS_ENTRY       (1ull << 40)     /* pushed by the trace stack */
#define FR_TS_COMPLETE    (1ull << 41)     /* its function has left (exit or tail call) */
#define FR_TS_LEVEL_SHIFT 32               /* bits 32-38: the irq_depth it was pushed at */
#define FR_TS_LEVEL_MASK  0x7full
/* Pushed on top of its tail caller: a complete entry of the same level at
 * the same sp (tstack_entry_on), which this one's exit ends too.  The
 * entry below never changes while this one is on the stack (only the top
 * entry is completed or popped), so the exit's single-user path
 * (ftrace_sled_exit) reads this bit instead of the frame below. */
#define FR_TS_TAILED      (1ull << 39)
/* The bits above say whether and how an entry runs; what lies above them
 * is the tail target of a complete entry (tstack.c): set at its tail sled
 * when the jump after it is direct and its target lies within
 * FR_TS_TARGET_REACH bytes of the function, FR_TS_TARGET and the target
 * less the function in bits 43-63 (signed). */
#define FR_TS_TARGET      (1ull << 42)
#define FR_TS_TARGET_SHIFT 43
#define FR_TS_TARGET_REACH (1l << (63 - FR_TS_TARGET_SHIFT))

/* The trace stack's bits of a running entry pushed at interrupt level
 * `level` (irq_depth): what tstack_entry_on adds to the users word, and
 * what the single-user push (fgraph_inline.h) writes with it. */
static inline uint64_t fr_ts_entry_bits(unsigned level)
{
	return FR_TS_ENTRY | ((uint64_t)level & FR_TS_LEVEL_MASK) << FR_TS_LEVEL_SHIFT;
}

struct fgraph_stack {
	unsigned top;                      /* words in use */
	unsigned depth;                    /* frames */
	uint64_t overrun;                  /* calls not hooked: no room (at most
					    * FGRAPH_OVERRUN_MAX) */
	uint32_t state[FGRAPH_MAX_USERS];  /* per user slot, this context (fgraph_ent.state):
					    * reset to 0 by register_fgraph on every stack */
	struct fgraph_stack *next, *prev;  /* every stack (fgraph.c's stacks list) */
	uint64_t w[FGRAPH_STACK_WORDS];
};

/*
 * How an exit of the trace stack came about (fgraph_ret.mark, and the top
 * bits of funcgraph_exit's overrun word: trace/tracers/function_graph.h).  0: at the
 * function's own exit, or at the exit of the function it tail-called.
 *   LATE  it left by a tail call to a function whose exit was not seen
 *         (untraced, or its sleds off); popped at the next sled of an
 *         enclosing function: its end time is that sled's, later than
 *         the real one, and its return value is unknown (0).
 *   GONE  its frame is gone without an exit or tail call seen (a longjmp
 *         out of it, or its sleds were turned off while it ran); popped
 *         at the next sled above its frame; return value unknown (0).
 */
#define FGRAPH_RET_LATE   (1u << 31)
#define FGRAPH_RET_GONE   (1u << 30)
#define FGRAPH_RET_MARKS  (FGRAPH_RET_LATE | FGRAPH_RET_GONE)
#define FGRAPH_OVERRUN_MAX ((1u << 30) - 1)   /* fgraph_stack.overrun stops there */

#endif
