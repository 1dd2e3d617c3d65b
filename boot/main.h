/*
 * main.h — what the boot sequence offers the rest of the kernel.
 */
#ifndef BOOT_MAIN_H
#define BOOT_MAIN_H

#include <stdbool.h>
#include <stdint.h>

struct boot_info;
void kernel_main(struct boot_info *bi);

/* Run the workload (APP= or the demo) once in the calling thread; its status. */
int run_workload(void);
int demo_main(void);               /* demo/demo.c */
/* boot/shell.c: the console shell, interactive or running a piped script;
 * powers off at its end. */
__attribute__((noreturn)) void shell_main(bool script);

extern bool console_interactive;   /* bt.interactive: a terminal is attached */
extern bool console_script;        /* bt.script: stdin is a script of shell commands */
extern uint64_t boot_start_ns, workload_start_ns;

#endif
