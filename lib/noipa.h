/*
 * noipa.h — keeping a call as written, under GCC and clang.
 *
 * noipa: the call stays a call to this very function, whose arguments and
 * result the caller does not specialise (GCC's noipa: no inlining, cloning
 * or interprocedural facts).  noclone: no specialised copy (foo.constprop.0)
 * for traces, symbols and BTF to name instead.  clang 14 knows neither
 * attribute (an unknown attribute is a warning, an error with -Werror) and
 * makes no such copies; there they are used (the function's address
 * escapes, so no caller may drop or fix its arguments) and, for noipa,
 * noinline.  (Not in lib/compiler.h: the tracer's code includes this one,
 * and its `notrace` fields would meet that header's notrace macro.)
 */
#ifndef LIB_NOIPA_H
#define LIB_NOIPA_H

#ifdef __clang__
#define noipa   __attribute__((__noinline__, __used__))
#define noclone __attribute__((__used__))
#else
#define noipa   __attribute__((__noipa__))
#define noclone __attribute__((__noclone__))
#endif

#endif
