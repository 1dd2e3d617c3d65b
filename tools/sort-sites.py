#!/usr/bin/env python3
"""sort-sites.py ELF [LIST] — sort the patchable-site table of a linked kernel in place.

The compiler emits one 64-bit address per instrumented function
(__patchable_function_entries, both arches) in link
order; the linker script gathers them between __sites_start and __sites_end.
Sorting them here, after the final link, lets the kernel build its record
table in one pass with no sort at boot (trace/core/records.c checks the order).

An INSTR=xray kernel has clang's XRay sled table instead, between
__xray_start and __xray_end (section xray_instr_map, 32 bytes a sled:
sled address and function address as 64-bit words, PC-relative to their
own field in version 2, then kind, always-instrument and version bytes;
facts in docs/TOOLCHAIN-NOTES.md).  It is rewritten in place: absolute
addresses, sorted by sled address, version byte XRAY_SORTED, and kind 2
(tail) for arm64's tail sleds, which clang 14 records as exits (kind 1):
a sled followed by `ret` is an exit, any other is a tail.  Refused (exit 1,
the file unchanged): a kind other than entry, exit or tail; a function
with no entry sled, or more than one, or whose entry sled is not at its
address; a sled outside its function (past the next function's entry
sled); an exit sled not followed by `ret`.  trace/core/records.c reads it.

With LIST, also writes the sorted function addresses there (the entry
sleds' for xray), one hex number a line (tools/check-nofp.py reads them).
"""
import struct
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    path = sys.argv[1]
    listing = sys.argv[2] if len(sys.argv) == 3 else None
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            sys.exit("sort-sites: %s is not a little-endian ELF64 file" % path)
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        sections = []
        for i in range(shnum):
            name, typ, flags, addr, off, size, link, info, align, entsize = \
                struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
            sections.append((typ, addr, off, size, link, entsize))
        symtab = next((s for s in sections if s[0] == 2), None)
        if not symtab:
            sys.exit("sort-sites: no symbol table")
        strtab = sections[symtab[4]]
        want = {b"__sites_start": None, b"__sites_end": None,
                b"__xray_start": None, b"__xray_end": None}
        for i in range(symtab[3] // 24):
            st_name, st_info, st_other, st_shndx, st_value, st_size = \
                struct.unpack_from("<IBBHQQ", data, symtab[2] + i * 24)
            s = strtab[2] + st_name
            name = bytes(data[s:data.index(b"\0", s)])
            if name in want:
                want[name] = st_value
        start, end = want[b"__sites_start"], want[b"__sites_end"]
        if start is None or end is None:
            sys.exit("sort-sites: __sites_start/__sites_end not found")
        xs, xe = want[b"__xray_start"], want[b"__xray_end"]
        sites = []
        if xs is not None and xe is not None and xs != xe:
            if start != end:
                sys.exit("sort-sites: both patchable entries and XRay sleds: one backend a kernel")
            sites = xray(data, sections, xs, xe)
            f.seek(0)
            f.write(data)
            start = end
        if start == end:
            if listing:
                with open(listing, "w") as out:
                    out.writelines("%x\n" % s for s in sites)
            return
        off = file_offset(sections, start, end)
        n = (end - start) // 8
        sites = sorted(struct.unpack_from("<%dQ" % n, data, off))
        if len(set(sites)) != n:
            sys.exit("sort-sites: duplicate site addresses")
        struct.pack_into("<%dQ" % n, data, off, *sites)
        f.seek(0)
        f.write(data)
    if listing:
        with open(listing, "w") as out:
            out.writelines("%x\n" % s for s in sites)


def file_offset(sections, start, end):
    sec = next((s for s in sections if s[0] == 1 and s[1] <= start and end <= s[1] + s[3]), None)
    if not sec:
        sys.exit("sort-sites: no PROGBITS section holds the site table")
    return sec[2] + (start - sec[1])


XRAY_ENTRY, XRAY_EXIT, XRAY_TAIL = 0, 1, 2
XRAY_SORTED = 0xB7          # the version byte of a table this tool wrote (trace/core/records.c)
ARM64_RET = 0xD65F03C0
X86_RET = 0xC3


def xray(data, sections, xs, xe):
    """Rewrite the sled table in [xs, xe) in place (see the docstring);
    returns the sorted function addresses."""
    if (xe - xs) % 32:
        sys.exit("sort-sites: the XRay table is %d bytes, not whole 32-byte entries" % (xe - xs))
    arm = struct.unpack_from("<H", data, 0x12)[0] == 183          # e_machine EM_AARCH64
    off = file_offset(sections, xs, xe)
    sleds = []
    for i in range((xe - xs) // 32):
        a = xs + 32 * i
        sled, func = struct.unpack_from("<QQ", data, off + 32 * i)
        kind, always, version = struct.unpack_from("<BBB", data, off + 32 * i + 16)
        if version == XRAY_SORTED:
            sys.exit("sort-sites: the XRay table is sorted already (linked twice?)")
        if version >= 2:
            sled, func = (a + sled) & (2**64 - 1), (a + 8 + func) & (2**64 - 1)
        if kind not in (XRAY_ENTRY, XRAY_EXIT, XRAY_TAIL):
            sys.exit("sort-sites: sled at %x has kind %d (entry 0, exit 1, tail 2 only)" % (sled, kind))
        sleds.append([sled, func, kind, always])
    sleds.sort()
    after = sled_end_reader(data, sections, arm)
    funcs = []
    for s in sleds:
        sled, func, kind, _ = s
        if kind == XRAY_ENTRY:
            if sled != func or (funcs and funcs[-1] == func):
                sys.exit("sort-sites: entry sled at %x of function %x: not its address, or a second" %
                         (sled, func))
            funcs.append(func)
            continue
        if not funcs or funcs[-1] != func:
            sys.exit("sort-sites: sled at %x (kind %d) lies outside its function %x" % (sled, kind, func))
        ret = after(sled) == (ARM64_RET if arm else X86_RET)
        if arm and kind == XRAY_EXIT and not ret:
            s[2] = kind = XRAY_TAIL
        if kind == XRAY_EXIT and not ret:
            sys.exit("sort-sites: exit sled at %x is not followed by ret" % sled)
    if len(funcs) != len({s[1] for s in sleds}):
        sys.exit("sort-sites: a function has sleds but no entry sled")
    for i, (sled, func, kind, always) in enumerate(sleds):
        struct.pack_into("<QQBBB13x", data, off + 32 * i, sled, func, kind, always, XRAY_SORTED)
    return funcs


def sled_end_reader(data, sections, arm):
    """A function giving the instruction word after a sled (arm64: the 32-bit
    word at sled + 32; x86-64: the byte at the sled itself, its ret)."""
    def read(sled):
        a = sled + 32 if arm else sled
        o = file_offset(sections, a, a + 4)
        return struct.unpack_from("<I", data, o)[0] if arm else data[o]
    return read


main()
