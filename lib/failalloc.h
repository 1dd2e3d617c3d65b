/*
 * failalloc.h — allocation-failure injection for tests (in the spirit of
 * Linux's failslab / fault-injection).
 *
 *   failalloc_start(nth, count);   arm: for the calling thread only,
 *                                  allocation attempts nth .. nth+count-1
 *                                  from now (0 = the next) return NULL
 *   ... the operation under test ...
 *   failalloc_stop(&st);           disarm; st: attempts made, failures given,
 *                                  and the blocks the thread kept or let go
 *
 * What is covered: every malloc, calloc, realloc and memalign call linked
 * into the kernel (newlib's aligned_alloc needs a posix_memalign it does
 * not have, so nothing can call it) (the link wraps them with
 * GNU ld's --wrap, Makefile: FAILALLOC_WRAP).  newlib's own internal
 * allocations go through _malloc_r and friends and are not counted.  A
 * failed realloc leaves the old block alone, as the real one does.
 * free is wrapped too, for the block balance: what an operation that
 * failed kept, or swapped for another block.  The heap's bytes in use
 * cannot say that exactly: newlib's nano-malloc hands out a free chunk up
 * to 8 bytes larger than asked whole, so a block replaced by one of the
 * same size may count 8 bytes more or less, or the same, by where it lands.
 *
 * Whose allocations count: only those the arming thread makes in thread
 * context.  Other threads, other CPUs, and interrupt handlers (on any CPU,
 * even one interrupting the armed thread) allocate normally and are not
 * counted, so a test sees the same sequence every run.
 *
 * Rules: one armed thread at a time (start while armed by another thread
 * panics, so two tests cannot silently share it); thread context only;
 * stop before the armed thread ends.  Tests only: nothing outside
 * tests/guest arms it.
 * Off, an allocation or a free pays one load and one predictable branch.
 */
#ifndef LIB_FAILALLOC_H
#define LIB_FAILALLOC_H

#include <stdbool.h>
#include <stdint.h>

struct failalloc_stats {
	unsigned attempts;    /* allocation calls by the armed thread since start */
	unsigned failed;      /* of them, made to fail */
	/* The armed thread's blocks since start: got minus given back (a
	 * block from before start given back counts -1), and the same sum
	 * over their addresses (mod 2^64).  Both 0 when the live blocks are
	 * those of the start; a replacement leaves `blocks` 0, not `addr`. */
	int blocks;
	uintptr_t addr;
};

/* Arm for the calling thread; count 0 only counts (nothing fails). */
void failalloc_start(unsigned nth, unsigned count);
/* Disarm (no-op if not armed); *st (may be NULL) gets the counts. */
void failalloc_stop(struct failalloc_stats *st);
/* The counts so far, armed or not (those of the last start). */
void failalloc_get(struct failalloc_stats *st);
/* Armed at all (by any thread)? */
bool failalloc_armed(void);

#endif
