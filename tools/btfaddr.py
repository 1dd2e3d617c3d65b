#!/usr/bin/env python3
"""btfaddr.py — every traced function's own BTF signature, by address
(trace/DESIGN.md, "Build").

  btfaddr.py ROOT PAHOLE.btf PASS1.elf PASS1.nm OUT.btf OUT.S OUT.addrs [SKIP.c...]
  btfaddr.py --empty OUT.S

pahole 1.24 encodes one BTF FUNC per name, the first compilation unit's:
two functions that share a name (static ones in two files, an APP's
`panic` and the kernel's) would both get that one's prototype.  This tool,
run on the first link pass (its DWARF has the final addresses: pass 2 moves
nothing before the image's tail), for every name that several function
symbols share (PASS1.nm, the symbols ksyms lists):
  - reads each definition of it in the DWARF of our compilation units
    (DW_AT_comp_dir is ROOT, the directory make runs in: newlib's are
    not ours; nor are the SKIP.c ones, left out of pahole's input) and its
    prototype;
  - finds the FUNC of that name whose prototype is the same (the C
    spelling of every type: names, typedefs, qualifiers, pointers), or
    appends one: a FUNC, a FUNC_PROTO and the types it needs, each reused
    from the blob when one of the same spelling is there (BTF allows
    several FUNCs of one name), else appended (a struct or union not
    already in the blob is appended by name and size, without members:
    the tracer prints aggregates as raw words);
  - takes the address of the function symbol nearest below the
    definition's DW_AT_low_pc (they differ by the patchable entry's NOPs on
    arm64) if that symbol has exactly the definition's name (a GCC clone,
    foo.constprop.0, is not foo: no signature).
Outputs:
  OUT.btf    the blob, with the FUNCs appended (pahole's records unchanged)
  OUT.S      the image's tail (linker scripts: after .ksyms): section .BTF,
             the blob [__btf_start, __btf_end); section .btf_funcs,
             btf_image_ident (u64 size, u32 CRC-32 (zlib), u32 0:
             trace/btf.h) then btf_func_count (u64) and btf_funcs[count]:
             {u64 address, u32 FUNC type id, u32 0}, ascending address
             (trace/btf.h, struct btf_func_addr)
  OUT.addrs  the same table as text, one line each:
             "ADDRESS ID NAME COMPILATION-UNIT" (tests/checks/checks_thirdparty.py)
--empty writes OUT.S for the first pass: no blob, a zero identity, no
entries (the same sections, so the symbols exist).
"""
import bisect
import collections
import os
import struct
import sys
import zlib

try:
    from elftools.common.exceptions import DWARFError, ELFError
    from elftools.elf.elffile import ELFFile
except ImportError:                       # Debian's package, another python3
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        from elftools.common.exceptions import DWARFError, ELFError
        from elftools.elf.elffile import ELFFile
    except ImportError:
        sys.exit("btfaddr: needs pyelftools (Debian: python3-pyelftools; make deps)")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import btfsig  # noqa: E402

K = btfsig
FUNC_TYPES = set("tTwW")                  # gen-ksyms.py's function symbols
DW_ATE_boolean, DW_ATE_float, DW_ATE_signed, DW_ATE_signed_char = 2, 4, 5, 6
DW_ATE_unsigned_char = 8


class Blob:
    """A BTF blob that takes more types: pahole's records stay as they are
    (ids 1..n), new ones follow; strings are appended, shared."""

    def __init__(self, data):
        self.data = data
        self.types, strings = btfsig.parse(data)
        _m, _v, _f, self.hdr_len = struct.unpack_from("<HBBI", data, 0)
        self.type_off, self.type_len, self.str_off, self.str_len = \
            struct.unpack_from("<IIII", data, 8)
        self.strings = bytearray(strings)
        self.str_at = {}
        at = 0
        while at < len(strings):
            end = strings.index(b"\0", at)
            self.str_at.setdefault(bytes(strings[at:end]), at)
            at = end + 1
        self.n0 = len(self.types)          # pahole's ids: 1 .. n0 - 1
        self.new = []                      # appended records, bytes each
        self.added_keys = {}               # appended FUNC id -> proto_key
        self.keys = {}                     # C spelling -> [id]
        self.key_memo = {}
        for tid in range(1, len(self.types)):
            if self.types[tid][0] not in (K.K_FUNC, K.K_VAR, K.K_DATASEC, K.K_DECL_TAG):
                self.keys.setdefault(self.key(tid), []).append(tid)

    def name(self, off):
        return self.strings[off:self.strings.index(b"\0", off)].decode("utf-8", "replace")

    def str(self, s):
        b = s.encode()
        if b not in self.str_at:
            self.str_at[b] = len(self.strings)
            self.strings += b + b"\0"
        return self.str_at[b]

    def u32(self, off):
        return struct.unpack_from("<I", self.data, off)[0]

    def key(self, tid, depth=0):
        """The C spelling of type tid (the same as dwarf_key's)."""
        if tid == 0 or tid >= len(self.types) or depth > 40:
            return "void"
        if tid in self.key_memo:
            return self.key_memo[tid]
        kind, name_off, vlen, sot, data = self.types[tid]
        name = self.name(name_off)
        if kind in (K.K_INT, K.K_FLOAT):
            k = name
        elif kind == K.K_PTR:
            k = self.key(sot, depth + 1) + " *"
        elif kind in (K.K_CONST, K.K_VOLATILE, K.K_RESTRICT):
            k = {K.K_CONST: "const ", K.K_VOLATILE: "volatile ",
                 K.K_RESTRICT: "restrict "}[kind] + self.key(sot, depth + 1)
        elif kind == K.K_TYPE_TAG:
            k = self.key(sot, depth + 1)
        elif kind == K.K_TYPEDEF:
            k = name + "=" + self.key(sot, depth + 1)
        elif kind in (K.K_STRUCT, K.K_UNION, K.K_FWD):
            union = kind == K.K_UNION or (kind == K.K_FWD and self.u32(data - 8) >> 31)
            k = ("union " if union else "struct ") + (name or "<anon %d>" % sot)
        elif kind in (K.K_ENUM, K.K_ENUM64):
            k = "enum " + (name or "<anon %d>" % sot)
        elif kind == K.K_ARRAY:
            elem, _idx, n = struct.unpack_from("<III", self.data, data)
            k = self.key(elem, depth + 1) + "[%d]" % n
        elif kind == K.K_FUNC_PROTO:
            ps = [struct.unpack_from("<II", self.data, data + 8 * i) for i in range(vlen)]
            k = self.key(sot, depth + 1) + "(" + ",".join(
                "..." if t == 0 else self.key(t, depth + 1) for _n, t in ps) + ")"
        else:
            k = "?%d" % tid
        self.key_memo[tid] = k
        return k

    def proto_key(self, func_id):
        """(return, [(param name, type)]) spelling of FUNC func_id."""
        if func_id >= self.n0:
            return self.added_keys[func_id]
        _k, _n, _v, proto, data = self.types[func_id]
        _k, _n, vlen, ret, data = self.types[proto]
        ps = [struct.unpack_from("<II", self.data, data + 8 * i) for i in range(vlen)]
        return (self.key(ret), tuple((self.name(n), "..." if t == 0 else self.key(t))
                                     for n, t in ps))

    def add(self, name, kind, vlen, sot, extra=b"", kflag=0):
        """Append a record; its id."""
        info = (kflag << 31) | (kind << 24) | vlen
        self.new.append(struct.pack("<III", self.str(name) if name else 0, info, sot) + extra)
        return self.n0 - 1 + len(self.new)

    def bytes(self):
        types = self.data[self.hdr_len + self.type_off:self.hdr_len + self.type_off + self.type_len]
        types += b"".join(self.new)
        hdr = struct.pack("<HBBIIIII", 0xeb9f, 1, 0, 24, 0, len(types), len(types),
                          len(self.strings))
        return hdr + types + bytes(self.strings)


def attr(die, name, default=None):
    a = die.attributes.get(name)
    return a.value if a is not None else default


def target(die):
    return die.get_DIE_from_attribute("DW_AT_type") if "DW_AT_type" in die.attributes else None


def dname(die):
    n = attr(die, "DW_AT_name")
    return n.decode("utf-8", "replace") if n is not None else ""


class Dwarf2Btf:
    """DWARF types of prototypes -> BTF type ids of a Blob."""

    def __init__(self, blob):
        self.blob, self.memo = blob, {}
        self.index_type = next((i for i in range(1, len(blob.types))
                                if blob.types[i][0] == K.K_INT), 0)

    def key(self, die, depth=0):
        if die is None or depth > 40:
            return "void"
        tag = die.tag
        t = target(die) if tag != "DW_TAG_subroutine_type" else None
        if tag == "DW_TAG_base_type":
            return dname(die)
        if tag == "DW_TAG_pointer_type":
            return self.key(target(die), depth + 1) + " *"
        if tag in ("DW_TAG_const_type", "DW_TAG_volatile_type", "DW_TAG_restrict_type"):
            return tag[7:-5] + " " + self.key(t, depth + 1)
        if tag == "DW_TAG_atomic_type":          # BTF has none: pahole drops it
            return self.key(t, depth + 1)
        if tag == "DW_TAG_typedef":
            return dname(die) + "=" + self.key(t, depth + 1)
        if tag in ("DW_TAG_structure_type", "DW_TAG_union_type"):
            return ("union " if tag == "DW_TAG_union_type" else "struct ") + \
                (dname(die) or "<anon %d>" % attr(die, "DW_AT_byte_size", 0))
        if tag == "DW_TAG_enumeration_type":
            return "enum " + (dname(die) or "<anon %d>" % attr(die, "DW_AT_byte_size", 0))
        if tag == "DW_TAG_array_type":
            return self.key(t, depth + 1) + "[%d]" % self.nelems(die)
        if tag == "DW_TAG_subroutine_type":
            ret, params = self.proto_key(die, depth + 1)
            return ret + "(" + ",".join(p for _n, p in params) + ")"
        return "void"                            # unspecified_type and the like

    @staticmethod
    def nelems(die):
        for c in die.iter_children():
            if c.tag == "DW_TAG_subrange_type":
                if "DW_AT_count" in c.attributes:
                    return attr(c, "DW_AT_count")
                if "DW_AT_upper_bound" in c.attributes:
                    return attr(c, "DW_AT_upper_bound") + 1
        return 0

    def params(self, die):
        out = []
        for c in die.iter_children():
            if c.tag == "DW_TAG_formal_parameter":
                out.append((dname(c), target(c)))
            elif c.tag == "DW_TAG_unspecified_parameters":
                out.append(("", "..."))
        return out

    def proto_key(self, die, depth=0):
        return (self.key(target(die), depth),
                tuple((n, "..." if t == "..." else self.key(t, depth)) for n, t in self.params(die)))

    def type_id(self, die):
        """A BTF id for die's type: one of the same spelling in the blob,
        else appended."""
        if die is None:
            return 0
        k = self.key(die)
        if k in self.blob.keys:        # a full struct rather than its FWD
            return min(self.blob.keys[k], key=lambda t: (t < self.blob.n0 and
                                                         self.blob.types[t][0] == K.K_FWD, t))
        if die.offset in self.memo:
            return self.memo[die.offset]
        b, tag = self.blob, die.tag
        if tag in ("DW_TAG_atomic_type",):
            tid = self.type_id(target(die))
        elif tag == "DW_TAG_base_type":
            size, enc = attr(die, "DW_AT_byte_size", 0), attr(die, "DW_AT_encoding", 0)
            if enc == DW_ATE_float:
                tid = b.add(dname(die), K.K_FLOAT, 0, size)
            else:
                bits = (1 if enc in (DW_ATE_signed, DW_ATE_signed_char) else 0) | \
                    (2 if enc in (DW_ATE_signed_char, DW_ATE_unsigned_char) else 0) | \
                    (4 if enc == DW_ATE_boolean else 0)
                tid = b.add(dname(die), K.K_INT, 0, size, struct.pack("<I", (bits << 24) | size * 8))
        elif tag in ("DW_TAG_pointer_type", "DW_TAG_const_type", "DW_TAG_volatile_type",
                     "DW_TAG_restrict_type", "DW_TAG_typedef"):
            kind = {"DW_TAG_pointer_type": K.K_PTR, "DW_TAG_const_type": K.K_CONST,
                    "DW_TAG_volatile_type": K.K_VOLATILE, "DW_TAG_restrict_type": K.K_RESTRICT,
                    "DW_TAG_typedef": K.K_TYPEDEF}[tag]
            inner = self.type_id(target(die))
            tid = b.add(dname(die) if kind == K.K_TYPEDEF else "", kind, 0, inner)
        elif tag in ("DW_TAG_structure_type", "DW_TAG_union_type"):
            union = tag == "DW_TAG_union_type"
            if attr(die, "DW_AT_declaration"):
                tid = b.add(dname(die), K.K_FWD, 0, 0, kflag=int(union))
            else:
                tid = b.add(dname(die), K.K_UNION if union else K.K_STRUCT, 0,
                            attr(die, "DW_AT_byte_size", 0))
        elif tag == "DW_TAG_enumeration_type":
            vals = [c for c in die.iter_children() if c.tag == "DW_TAG_enumerator"]
            extra = b"".join(struct.pack("<Ii", b.str(dname(c)),
                                         ((attr(c, "DW_AT_const_value", 0) + 2 ** 31) % 2 ** 32)
                                         - 2 ** 31) for c in vals)
            tid = b.add(dname(die), K.K_ENUM, len(vals), attr(die, "DW_AT_byte_size", 4), extra)
        elif tag == "DW_TAG_array_type":
            elem = self.type_id(target(die))
            tid = b.add("", K.K_ARRAY, 0, 0, struct.pack("<III", elem, self.index_type,
                                                         self.nelems(die)))
        elif tag == "DW_TAG_subroutine_type":
            tid = self.proto_id(die)
        else:
            tid = 0
        self.memo[die.offset] = tid
        b.keys.setdefault(k, []).append(tid)
        return tid

    def proto_id(self, die):
        ret = self.type_id(target(die))
        ps = [(n, 0 if t == "..." else self.type_id(t)) for n, t in self.params(die)]
        extra = b"".join(struct.pack("<II", self.blob.str(n) if n and t else 0, t) for n, t in ps)
        return self.blob.add("", K.K_FUNC_PROTO, len(ps), ret, extra)


def read_nm(path):
    """[(address, name)] of the function symbols (gen-ksyms.py's), sorted."""
    out = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[1] in FUNC_TYPES and not parts[2].startswith(("$", ".L")):
                out.append((int(parts[0], 16), parts[2]))
    return sorted(out)


def symbol_at(syms, addrs, pc):
    """(address, name) of the function symbol nearest at or below pc."""
    i = bisect.bisect_right(addrs, pc) - 1
    return syms[i] if i >= 0 else (None, None)


def ranges(dwarf, cu, top, offset):
    """The start of each range of a function split in parts (GCC's
    foo.cold): its entry is one of them."""
    try:
        base = attr(top, "DW_AT_low_pc", 0)
        return [r.begin_offset + (0 if getattr(r, "is_absolute", False) else base)
                for r in dwarf.range_lists().get_range_list_at_offset(offset, cu=cu)
                if hasattr(r, "begin_offset")]
    except (ELFError, KeyError, ValueError, AttributeError):   # a form pyelftools 0.29 lacks
        return []


def definitions(elf_path, root, wanted, skip):
    """[(cu name, name, address, prototype DIE)] of the functions named in
    `wanted` defined in our compilation units, but those named in skip."""
    out = []
    with open(elf_path, "rb") as f:
        dwarf = ELFFile(f).get_dwarf_info()
        for cu in dwarf.iter_CUs():
            top = cu.get_top_DIE()
            if attr(top, "DW_AT_comp_dir", b"").decode("utf-8", "replace") != root:
                continue
            cu_name = dname(top)
            if cu_name in skip:
                continue
            for die in top.iter_children():
                if die.tag != "DW_TAG_subprogram" or attr(die, "DW_AT_declaration"):
                    continue
                proto = die
                if "DW_AT_abstract_origin" in die.attributes:
                    proto = die.get_DIE_from_attribute("DW_AT_abstract_origin")
                name = dname(proto)
                if name not in wanted:
                    continue
                addrs = [attr(die, "DW_AT_low_pc")]
                if addrs[0] is None and "DW_AT_ranges" in die.attributes:
                    addrs = ranges(dwarf, cu, top, attr(die, "DW_AT_ranges"))
                out += [(cu_name, name, a, proto) for a in addrs if a is not None]
    return out


def emit_s(blob, path, entries):
    o = []
    if blob:
        o += ['.section .BTF,"a"', ".balign 8", '.incbin "%s"' % path]
    o += ['.section .btf_funcs,"a"', ".balign 8",
          ".globl btf_image_ident, btf_func_count, btf_funcs",
          "btf_image_ident: .quad %d" % len(blob), ".long %d" % zlib.crc32(blob), ".long 0",
          "btf_func_count: .quad %d" % len(entries), "btf_funcs:"]
    o += [".quad 0x%x\n.long %d, 0" % (a, tid) for a, tid, _n, _c in entries]
    return "\n".join(o) + "\n"


def main():
    try:
        run(sys.argv[1:])
    except OSError as e:
        sys.exit("btfaddr: %s" % e)
    except (ELFError, DWARFError) as e:
        sys.exit("btfaddr: %s: %s" % (sys.argv[3] if len(sys.argv) > 3 else "?", e))


def run(args):
    if args[:1] == ["--empty"] and len(args) == 2:
        with open(args[1], "w") as f:
            f.write(emit_s(b"", None, []))
        return
    if len(args) < 7:
        sys.exit(__doc__.split("\n\n")[0])
    root, pahole, elf, nm, out_btf, out_s, out_addrs = args[:7]
    with open(pahole, "rb") as f:
        try:
            blob = Blob(f.read())
        except (struct.error, ValueError, IndexError, btfsig.BTFError) as e:
            sys.exit("btfaddr: %s: not a BTF blob pahole wrote: %s" % (pahole, e))
    syms = read_nm(nm)
    addrs = [a for a, _n in syms]
    count = collections.Counter(n for _a, n in syms)
    shared = {n for n, c in count.items() if c > 1}
    funcs = collections.defaultdict(list)          # name -> [FUNC id]
    for tid in range(1, len(blob.types)):
        kind, name_off = blob.types[tid][:2]
        if kind == K.K_FUNC:
            funcs[blob.name(name_off)].append(tid)
    conv = Dwarf2Btf(blob)
    entries, added = [], 0
    for cu, name, pc, die in definitions(elf, root, shared, set(args[7:])):
        addr, sym = symbol_at(syms, addrs, pc)
        if sym != name or pc - addr > 64:
            continue                               # a clone's code: not `name`
        key = conv.proto_key(die)
        tid = next((t for t in funcs[name] if blob.proto_key(t) == key), None)
        if tid is None:
            proto = conv.proto_id(die)
            tid = blob.add(name, K.K_FUNC, 1 if attr(die, "DW_AT_external") else 0, proto)
            funcs[name].append(tid)
            blob.added_keys[tid] = key
            added += 1
        entries.append((addr, tid, name, cu))
    entries.sort()
    data = blob.bytes()
    with open(out_btf, "wb") as f:
        f.write(data)
    with open(out_s, "w") as f:
        f.write(emit_s(data, out_btf, entries))
    with open(out_addrs, "w") as f:
        f.writelines("%x %d %s %s\n" % e for e in entries)
    print("btfaddr: %d functions share %d names: %d FUNCs added, %d addresses" %
          (len(entries), len({e[2] for e in entries}), added, len(entries)))


if __name__ == "__main__":
    main()
