/*
 * heap.h — the kernel heap behind newlib's malloc.
 *
 * heap_init() hands the RAM after the image to the heap once, on the boot
 * CPU.  newlib's malloc grows it with _sbrk(); malloc/free/memalign are
 * callable from threads and interrupt handlers on every CPU (newlib's malloc
 * lock is an interrupt-safe spinlock, lib/newlib_glue.c).
 */
#ifndef LIB_HEAP_H
#define LIB_HEAP_H

#include <stddef.h>
#include <stdint.h>

void heap_init(uintptr_t start, uintptr_t end);
size_t heap_size(void);

#endif
