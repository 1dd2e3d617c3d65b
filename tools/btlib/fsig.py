"""fsig.py — funcgraph-args / funcgraph-retval text from signatures, as
trace/fsig.c prints it (fsig_format_args, fsig_format_ret).

A `char *` argument with funcgraph-args-string: the string captured at the
call travels in the entry event (trace/fsig.h's records: u8 word, u8 len |
STR_CUT, len bytes), so a dump and gdb print the text the guest prints;
without a record, the pointer.
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


STR_MAX = 32                          # FSIG_STR_MAX
STR_CUT = 0x80                        # FSIG_STR_CUT


def strings(strs):
    """{word: (bytes, went_on)} of an entry's captured strings; a record cut
    short ends them (fsig.c's find_str; the first record of a word wins)."""
    out, at = {}, 0
    while at + 2 <= len(strs):
        n = strs[at + 1] & ~STR_CUT
        if at + 2 + n > len(strs):
            break
        out.setdefault(strs[at], (bytes(strs[at + 2:at + 2 + n]), bool(strs[at + 1] & STR_CUT)))
        at += 2 + n
    return out


def _str(text, went_on):
    """put_str(): `"text"`, `...` after it if it went on; non-printables,
    `"` and `\\` as \\xNN."""
    body = "".join(chr(c) if 0x20 <= c <= 0x7e and c not in (0x22, 0x5c) else "\\x%02x" % c
                   for c in text)
    return '"' + body + '"' + ("..." if went_on else "")


def _value(kind, size, w, text=None):
    if kind == STR and text is not None:
        return _str(*text)
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
    return _hex(w[0])                 # PTR, STR without a captured string


def format_args(sig, words, strs=b""):
    """The argument list without parentheses; strs: the entry's captured
    strings (Event.strs)."""
    texts = strings(strs)
    if sig is None:
        return ", ".join(_hex(w) for w in words)
    out, w = [], 0
    for name, kind, size in sig.params:
        need = _words_for(kind, size)
        if need > len(words) - w:
            out.append("...")          # Linux's mark past the recorded registers
            break
        out.append((name + "=" if name else "") + _value(kind, size, words[w:w + need],
                                                          texts.get(w)))
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
