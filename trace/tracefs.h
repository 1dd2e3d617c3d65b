/*
 * tracefs.h — tracefs files for the shell: `cat FILE`, `echo V > FILE`.
 */
#ifndef TRACE_TRACEFS_H
#define TRACE_TRACEFS_H

#include <stdbool.h>

/* Run `cmd args` if it is a tracefs command (*handled = true): 0 or -errno
 * (a message was printed and nothing changed). */
int tracefs_command(const char *cmd, char *args, bool *handled);
/* The files' names, one per call (for `help`). */
void tracefs_list_files(void (*out)(void *ctx, const char *line), void *ctx);

#endif
