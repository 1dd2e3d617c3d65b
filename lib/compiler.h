/*
 * compiler.h — attributes shared by generic code.
 *
 * notrace: no patchable entry for this function, on either arch
 * (-fpatchable-function-entry honours patchable_function_entry(0, 0);
 * no_instrument_function is there for -pg and -finstrument-functions
 * builds, such as the host's; xray_never_instrument for clang's XRay
 * sleds, INSTR=xray).  For
 * functions in traced files that the tracer or the patch engine calls.
 */
#ifndef LIB_COMPILER_H
#define LIB_COMPILER_H

#ifdef __clang__
/* clang's XRay sleds (INSTR=xray) ignore the other two. */
#define notrace __attribute__((no_instrument_function, patchable_function_entry(0, 0), \
			       xray_never_instrument))
#else
#define notrace __attribute__((no_instrument_function, patchable_function_entry(0, 0)))
#endif

#endif
