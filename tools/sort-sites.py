#!/usr/bin/env python3
"""sort-sites.py ELF [LIST] — sort the patchable-site table of a linked kernel in place.

The compiler emits one 64-bit address per instrumented function
(__patchable_function_entries, both arches) in link
order; the linker script gathers them between __sites_start and __sites_end.
Sorting them here, after the final link, lets the kernel build its record
table in one pass with no sort at boot (trace/records.c checks the order).
With LIST, also writes the sorted addresses there, one hex number a line
(tools/check-nofp.py reads them).
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
        want = {b"__sites_start": None, b"__sites_end": None}
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
        if start == end:
            if listing:
                open(listing, "w").close()
            return
        sec = next((s for s in sections if s[0] == 1 and s[1] <= start and end <= s[1] + s[3]), None)
        if not sec:
            sys.exit("sort-sites: no PROGBITS section holds the site table")
        off = sec[2] + (start - sec[1])
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


main()
