/*
 * func_cmd.h — set_ftrace_filter's function commands, as Linux's:
 *
 *     <glob>:traceon[:<count>]     tracing_on when a matching function runs
 *     <glob>:traceoff[:<count>]    tracing_off when one runs
 *     !<glob>:<command>            remove the command from those functions
 *
 * Each matching function gets the command with its own count: the times it
 * may still change tracing_on (a call that finds it already in the wanted
 * state changes nothing and uses none); without a count, no limit.  Writing
 * a command again for a function replaces its count.  Commands live beside
 * the function filter, never in it: a write of commands leaves the filter
 * alone, with `>` as with `>>` (Linux's "cumulative whether or not
 * appended"), and `echo > set_ftrace_filter` leaves the commands.  They act
 * whatever the current tracer, nop included.
 *
 * Thread context.  Callbacks run in any context (traced functions).
 */
#ifndef TRACE_FUNC_CMD_H
#define TRACE_FUNC_CMD_H

#include <stdbool.h>

/* Does the value of a set_ftrace_filter write hold a command (a word with
 * ':')?  Then it goes to func_cmd_write, not to the filter. */
bool func_cmd_is(const char *value);

/*
 * Apply a write: blank-separated words, each a command as above.  Every
 * word is checked before anything changes: -EINVAL with func_cmd_error set
 * (a word without a command among commands, an unknown command, a bad
 * count, a bad glob, a glob matching no function, a removal of a command
 * no matching function holds once the earlier words applied) changes
 * nothing; -ENOMEM
 * changes nothing of the word it struck (earlier words of the write stay).
 */
int func_cmd_write(const char *value);
extern char func_cmd_error[128];

/* One line per function and command, in command then address order:
 * "name:traceoff:count=N" or "name:traceon:unlimited" (Linux's). */
void func_cmd_list(void (*out)(void *ctx, const char *line), void *ctx);

#endif
