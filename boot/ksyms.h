/*
 * ksyms.h — the kernel's own symbol table (built by tools/gen-ksyms.py in a
 * second link pass): address -> function name + offset, and name -> address.
 * Read-only data; callable from any context, never traced.
 */
#ifndef BOOT_KSYMS_H
#define BOOT_KSYMS_H

#include <stddef.h>
#include <stdint.h>

/* Function containing addr, or NULL; *offset and *size describe the hit. */
const char *ksym_lookup(uintptr_t addr, uintptr_t *offset, uintptr_t *size);
/* Address of the function called name, or 0.  With duplicate (static)
 * names, one of them. */
uintptr_t ksym_address(const char *name);
/* 0 and *addr if exactly one function is called name, -ENOENT if none,
 * -EEXIST if several (static functions sharing a name). */
int ksym_address_unique(const char *name, uintptr_t *addr);
size_t ksym_count(void);
uintptr_t ksym_addr_at(size_t i);        /* ascending */
const char *ksym_name_at(size_t i);
/* "name+0x1c/0x80", or the raw address in hex if unknown. */
int ksym_format(char *buf, size_t size, uintptr_t addr);

#endif
