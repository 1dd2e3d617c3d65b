"""fsig.py — funcgraph-args / funcgraph-retval text from signatures, as
trace/fsig.c prints it (fsig_format_args, fsig_format_ret).

A `char *` argument with funcgraph-args-string: the guest reads the string
from its memory when it prints.  A reader of guest memory (read_str, the
gdb extension has one) gives the same text; without one (a dump: the host
has only the buffer) it prints as its pointer.
"""
VOID, INT, UINT, BOOL, ENUM, PTR, STR, OTHER, FLOAT, STRUCT, UNION = range(11)
AGGREGATES = (OTHER, STRUCT, UNION)
WORD = 8
M64 = 2 ** 64 - 1


def _hex(v):
    return "0x%x" % (v & M64)


def _cut(v, size):
    return v & ((1 << (size * 8)) - 1) if size and size < WORD else v


def _cut_signed(v, size):
    v &= M64
    bits = size * 8 if size and size < WORD else 64
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _words_for(kind, size):
    if kind == FLOAT:
        return 0
    if kind in AGGREGATES and WORD < size <= 2 * WORD:
        return 2
    return 1


STR_MAX = 32                          # trace/fsig.c: bytes of a string read


def _str(p, read_str):
    """put_str(): `"text"` of at most STR_MAX bytes, `...` after it if no NUL
    in them, non-printables, `"` and `\\` as \\xNN; the pointer if
    read_str(p, STR_MAX) gives None (a fault, or not ordinary memory)."""
    s = read_str(p & M64, STR_MAX)
    if s is None:
        return _hex(p)
    text = s.split(b"\0", 1)[0]
    body = "".join(chr(c) if 0x20 <= c <= 0x7e and c not in (0x22, 0x5c) else "\\x%02x" % c
                   for c in text)
    return '"' + body + '"' + ("" if s.endswith(b"\0") else "...")


def _value(kind, size, w, read_str=None):
    if kind == STR and read_str:
        return _str(w[0], read_str)
    if kind in (INT, ENUM):
        return str(_cut_signed(w[0], size))
    if kind in (UINT, BOOL):          # Linux: not BTF_INT_SIGNED, hex
        return _hex(_cut(w[0], size))
    if kind == FLOAT:
        return "(float)"
    if kind in AGGREGATES:
        parts = [_hex(_cut(w[0], size) if size <= WORD else w[0])]
        parts += [_hex(w[i]) for i in range(1, _words_for(kind, size))]
        prefix = {STRUCT: "(STRUCT)", UNION: "(UNION)"}.get(kind, "")
        return prefix + "[" + ":".join(parts) + "]"
    return _hex(w[0])                 # PTR, STR without a reader


def format_args(sig, words, read_str=None):
    """The argument list without parentheses.  read_str(addr, n): at most n
    bytes of guest memory from addr, up to and with the first NUL, or None;
    given only when funcgraph-args-string is on."""
    if sig is None:
        return ", ".join(_hex(w) for w in words)
    out, w = [], 0
    for name, kind, size in sig.params:
        need = _words_for(kind, size)
        if need > len(words) - w:
            out.append("...")          # Linux's mark past the recorded registers
            break
        out.append((name + "=" if name else "") + _value(kind, size, words[w:w + need], read_str))
        w += need
    return ", ".join(out)


def format_ret(sig, raw, hex_only):
    """"ret=..." or "" for a void function."""
    if sig is not None and sig.ret[0] == VOID:
        return ""
    if sig is None:
        # Linux's guess for an untyped register: bit 31 set with the upper
        # half clear is an int, sign-extended.
        v = raw & M64
        v = v - 2 ** 32 if v >> 31 == 1 else (v - 2 ** 64 if v >> 63 else v)
        if not hex_only and -4095 <= v <= -1:
            return "ret=%d" % v
        return "ret=" + _hex(raw)
    kind, size = sig.ret
    if kind == FLOAT:
        return "ret=(float)"
    can_err = kind in (INT, ENUM) or size == WORD
    sv = _cut_signed(raw, size) if kind in (INT, ENUM) else _cut(raw, size)
    if sv >= 2 ** 63:
        sv -= 2 ** 64
    if not hex_only and can_err and -4095 <= sv <= -1:
        return "ret=%d" % sv
    return "ret=" + _hex(_cut(raw, size))
