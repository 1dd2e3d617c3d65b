"""btfsig.py — function signatures from a raw BTF blob (pahole -J's
--btf_encode_detached output, build/ARCH/kernel.btf), classified as
trace/fsig.c classifies them for printing.

BTF layout (Linux's Documentation/bpf/btf.rst): a header (magic 0xeb9f,
version, flags, hdr_len, then type_off/type_len/str_off/str_len relative to
the header's end), then the types, each a 12-byte struct btf_type (name_off,
info: vlen bits 0-15, kind bits 24-28, kind_flag bit 31; size or type)
followed by kind-specific data; type ids count from 1.

signatures(blob) -> {name: Sig or None}: None where several FUNCs share the
name with different prototypes (static functions of different files);
func_signatures(blob) -> {FUNC type id: (name, Sig)}, each FUNC's own (the
image's address table, build/ARCH/kernel.btf.addrs, names the FUNC of each
such function: tools/btfaddr.py)."""
import struct

VOID, INT, UINT, BOOL, ENUM, PTR, STR, OTHER, FLOAT, STRUCT, UNION = range(11)

K_INT, K_PTR, K_ARRAY, K_STRUCT, K_UNION, K_ENUM, K_FWD, K_TYPEDEF, K_VOLATILE, \
    K_CONST, K_RESTRICT, K_FUNC, K_FUNC_PROTO, K_VAR, K_DATASEC, K_FLOAT, \
    K_DECL_TAG, K_TYPE_TAG, K_ENUM64 = range(1, 20)
MODIFIERS = (K_TYPEDEF, K_VOLATILE, K_CONST, K_RESTRICT, K_TYPE_TAG)


class BTFError(Exception):
    pass


class Sig:
    __slots__ = ("ret", "params")

    def __init__(self, ret, params):
        self.ret, self.params = ret, params          # (kind, size) each

    def __eq__(self, o):
        return (self.ret, self.params) == (o.ret, o.params)


def _extra(kind, vlen):
    """Bytes of kind-specific data after a struct btf_type."""
    per = {K_INT: (4, 0), K_ARRAY: (12, 0), K_STRUCT: (0, 12), K_UNION: (0, 12),
           K_ENUM: (0, 8), K_FUNC_PROTO: (0, 8), K_VAR: (4, 0), K_DATASEC: (0, 12),
           K_DECL_TAG: (4, 0), K_ENUM64: (0, 12)}.get(kind, (0, 0))
    return per[0] + per[1] * vlen


def parse(blob):
    """[None, (kind, name_off, vlen, size_or_type, data offset), ...] and the
    string section."""
    if len(blob) < 24:
        raise BTFError("shorter than a BTF header")
    magic, _ver, _flags, hdr_len = struct.unpack_from("<HBBI", blob, 0)
    if magic != 0xeb9f:
        raise BTFError("not BTF (magic 0x%04x)" % magic)
    type_off, type_len, str_off, str_len = struct.unpack_from("<IIII", blob, 8)
    base = hdr_len
    if base + max(type_off + type_len, str_off + str_len) > len(blob):
        raise BTFError("sections past the blob's end")
    strings = blob[base + str_off:base + str_off + str_len]
    types, off, end = [None], base + type_off, base + type_off + type_len
    while off < end:
        name_off, info, sot = struct.unpack_from("<III", blob, off)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        types.append((kind, name_off, vlen, sot, off + 12))
        off += 12 + _extra(kind, vlen)
    return types, strings


def _name(strings, off):
    return strings[off:strings.index(b"\0", off)].decode("utf-8", "replace")


def signatures(blob):
    """{name: Sig or None}; BTFError for a blob that is not well-formed."""
    out = {}
    for name, sig in func_signatures(blob).values():
        if name in out and out[name] != sig:
            out[name] = None
        elif name not in out:
            out[name] = sig
    return out


def func_signatures(blob):
    """{FUNC type id: (name, Sig)}; BTFError for a blob that is not
    well-formed."""
    try:
        return _func_signatures(blob)
    except (struct.error, ValueError, IndexError) as e:
        raise BTFError("malformed BTF: %s" % e)


def _func_signatures(blob):
    types, strings = parse(blob)

    def skip(tid):
        for _ in range(64):
            if tid == 0 or tid >= len(types) or types[tid][0] not in MODIFIERS:
                return tid
            tid = types[tid][3]
        return 0

    def is_char(tid):
        tid = skip(tid)
        if tid == 0 or types[tid][0] != K_INT or types[tid][3] != 1:
            return False
        enc = (struct.unpack_from("<I", blob, types[tid][4])[0] >> 24) & 0xf
        return bool(enc & 2) or _name(strings, types[tid][1]) == "char"

    def classify(tid):
        tid = skip(tid)
        if tid == 0 or tid >= len(types):
            return (VOID, 0)
        kind, _n, _v, size, data = types[tid]
        if kind == K_INT:
            enc = (struct.unpack_from("<I", blob, data)[0] >> 24) & 0xf
            if size > 8:
                return (OTHER, size)
            if enc & 4:
                return (BOOL, size)
            return (INT if enc & 1 else UINT, size)
        if kind == K_PTR:
            return (STR if is_char(size) else PTR, 8)
        if kind in (K_ENUM, K_ENUM64):
            return (ENUM, size)
        if kind == K_FLOAT:
            return (FLOAT, size)
        if kind == K_STRUCT:
            return (STRUCT, size)
        if kind == K_UNION:
            return (UNION, size)
        return (OTHER, 0)

    out = {}
    for tid, (kind, name_off, _vlen, proto, _data) in enumerate(types[1:], 1):
        if kind != K_FUNC or proto >= len(types) or types[proto][0] != K_FUNC_PROTO:
            continue
        _k, _n, vlen, ret, data = types[proto]
        params = []
        for i in range(vlen):
            _pn, ptype = struct.unpack_from("<II", blob, data + 8 * i)
            if ptype == 0:                    # a trailing "..."
                break
            params.append(classify(ptype))
        out[tid] = (_name(strings, name_off), Sig(classify(ret), params))
    return out
