#!/usr/bin/env python3
"""gen-ksyms.py — build the kernel's symbol table (second link pass).

  nm -n kernel.pass1.elf | gen-ksyms.py > ksyms.S     emit the table
  gen-ksyms.py --empty > ksyms0.S                     an empty table for pass 1
  nm -n kernel.elf | gen-ksyms.py --check pass1.nm    verify pass 2 moved nothing

The table (section .ksyms, placed last in the image so its size moves no
other symbol) holds every function symbol of the text, sorted by address,
and an index sorted by name; boot/ksyms.c reads it:
  ksyms_count          u64
  ksyms_addr[count]    u64, ascending
  ksyms_name[count]    u32 offset into ksyms_strings
  ksyms_by_name[count] u32 index into ksyms_addr, names ascending (strcmp)
  ksyms_text_end       u64, end of the last function (_etext)
  ksyms_strings        NUL-terminated names
"""
import sys

FUNC_TYPES = set("tTwW")
# Symbols of the image's tail (.ksyms, then .BTF and .btf_funcs: linker
# scripts): the only ones pass 2 may move.
IMAGE_END = {"_end", "__ksyms_start", "__ksyms_end", "__btf_start", "__btf_end",
             "btf_image_ident", "btf_func_count", "btf_funcs"}


def read_nm(lines):
    syms = []
    for line in lines:
        parts = line.split()
        if len(parts) != 3:
            continue
        addr, typ, name = parts
        syms.append((int(addr, 16), typ, name))
    return syms


def functions(syms):
    text_end = next((a for a, t, n in syms if n == "_etext"), None)
    text_start = next((a for a, t, n in syms if n == "_text_start"), None)
    if text_end is None or text_start is None:
        sys.exit("gen-ksyms: _text_start/_etext not found in nm output")
    seen = {}
    for a, t, n in syms:
        if t not in FUNC_TYPES or not (text_start <= a < text_end):
            continue
        if n.startswith(("$", ".L")) or n in ("_text_start",):
            continue
        seen.setdefault((a, n), None)
    out = sorted(seen, key=lambda x: (x[0], x[1]))
    return out, text_end


def emit(funcs, text_end):
    o = [".section .ksyms,\"a\"", ".balign 8",
         ".globl ksyms_count, ksyms_addr, ksyms_name, ksyms_by_name, ksyms_text_end, ksyms_strings",
         "ksyms_count: .quad %d" % len(funcs), "ksyms_text_end: .quad 0x%x" % text_end,
         "ksyms_addr:"]
    o += ["  .quad 0x%x" % a for a, _ in funcs]
    offs, pos = [], 0
    for _, n in funcs:
        offs.append(pos)
        pos += len(n) + 1
    o.append("ksyms_name:")
    o += ["  .long %d" % x for x in offs]
    order = sorted(range(len(funcs)), key=lambda i: funcs[i][1].encode())
    o.append("ksyms_by_name:")
    o += ["  .long %d" % i for i in order]
    o.append("ksyms_strings:")
    o += ['  .asciz "%s"' % n for _, n in funcs]
    return "\n".join(o) + "\n"


def main():
    args = sys.argv[1:]
    if args[:1] == ["--empty"]:
        sys.stdout.write(emit([], 0))
        return
    syms = read_nm(sys.stdin)
    if args[:1] == ["--check"]:
        with open(args[1]) as f:
            before = {(n, a) for a, t, n in read_nm(f) if not n.startswith("ksyms_") and n not in IMAGE_END}
        after = {(n, a) for a, t, n in syms if not n.startswith("ksyms_") and n not in IMAGE_END}
        moved = sorted(n for n, a in before ^ after)
        if moved:
            sys.exit("gen-ksyms: pass 2 moved symbols: %s" % ", ".join(moved[:10]))
        return
    funcs, text_end = functions(syms)
    sys.stdout.write(emit(funcs, text_end))


main()
