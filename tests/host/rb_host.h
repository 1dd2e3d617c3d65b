/*
 * rb_host.h — what the ring-buffer host tests share (see rb_host.c).
 */
#ifndef TESTS_HOST_RB_HOST_H
#define TESTS_HOST_RB_HOST_H

#include "rb_port_host.h"
#include "trace/ring_buffer/ring_buffer.h"

extern const struct rb_allocator rb_host_allocator;

#endif
