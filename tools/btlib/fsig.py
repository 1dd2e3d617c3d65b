"""fsig.py — funcgraph-args / funcgraph-retval text from signatures, as
trace/btf/fsig.c prints it (fsig_format_args, fsig_format_ret).

A `char *` argument with funcgraph-args-string: the string captured at the
call travels in the entry event (trace/btf/fsig.h's records: u8 word, u8 len |
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


MAX_WORDS = 32                        # FSIG_MAX_WORDS
AGG_WORDS = 8                         # FSIG_AGG_WORDS
MAX_REFS = 4                          # FSIG_MAX_REFS

# struct fsig_abi (trace/btf/fsig.h): (gprs, fprs, big_byref, pair_even, split_stops)
AAPCS64 = (8, 8, True, True, True)
SYSV = (6, 8, False, False, False)
ABI = {"arm64": AAPCS64, "x86_64": SYSV}


def plan(params, abi):
    """fsig.c's plan(): each parameter's (how, word, nwords), how one of
    "words", "float", "none"; an entry's words are the registers, then the
    stack words, then the by-reference aggregates' words."""
    gprs, fprs, byref, pair_even, split_stops = abi
    st = {"gpr": 0, "fpr": 0, "stack": 0}
    refs = []                          # indexes into out, in order
    out = []

    def one():
        if st["gpr"] < gprs:
            st["gpr"] += 1
            return ["words", st["gpr"] - 1, 1]
        st["stack"] += 1
        return ["words", gprs + st["stack"] - 1, 1]

    for _, kind, size in params:
        if kind == FLOAT:
            if st["fpr"] < fprs:
                st["fpr"] += 1
            else:
                st["stack"] += 2 if size > WORD else 1
            out.append(["float", 0, 0])
        elif kind in AGGREGATES and size > 2 * WORD:
            n = (size + WORD - 1) // WORD
            show = min(n, AGG_WORDS)
            if byref:
                one()
                if len(refs) == MAX_REFS:
                    out.append(["none", 0, 0])
                else:
                    refs.append(len(out))
                    out.append(["ref", 0, show])
            else:
                out.append(["words", gprs + st["stack"], show])
                st["stack"] += n
        elif kind in AGGREGATES and size > WORD:
            align16 = kind == OTHER and size == 2 * WORD
            if pair_even and align16:
                st["gpr"] += st["gpr"] & 1
            if st["gpr"] + 2 <= gprs:
                st["gpr"] += 2
                out.append(["words", st["gpr"] - 2, 2])
            else:
                if split_stops:
                    st["gpr"] = gprs
                if align16:
                    st["stack"] += st["stack"] & 1
                st["stack"] += 2
                out.append(["words", gprs + st["stack"] - 2, 2])
        else:
            out.append(one())
    at = gprs + st["stack"]
    for i in refs:
        out[i] = ["words", at, out[i][2]]
        at += out[i][2]
    for p in out:
        if p[0] == "words" and p[1] + p[2] > MAX_WORDS:
            p[0] = "none"
    return out


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
        parts += [_hex(x) for x in w[1:]]
        if size > len(w) * WORD:      # more than AGG_WORDS shown
            parts.append("...")
        prefix = {STRUCT: "(STRUCT)", UNION: "(UNION)"}.get(kind, "")
        return prefix + "[" + ":".join(parts) + "]"
    return _hex(w[0])                 # PTR, STR without a captured string


def arg_pairs(sig, words, strs=b"", abi=AAPCS64):
    """[(name, text)] of the parameters recorded, in order; a last
    (None, "...") where the words run out (Linux's mark past the recorded
    registers)."""
    texts = strings(strs)
    out = []
    for (name, kind, size), (how, w, n) in zip(sig.params, plan(sig.params, abi)):
        if how == "none" or (how == "words" and w + n > len(words)):
            out.append((None, "..."))
            break
        out.append((name, _value(kind, size, words[w:w + n], texts.get(w))))
    return out


def format_args(sig, words, strs=b"", abi=AAPCS64):
    """The argument list without parentheses; strs: the entry's captured
    strings (Event.strs); abi: the dump's arch's (ABI[arch])."""
    if sig is None:
        return ", ".join(_hex(w) for w in words)
    return ", ".join(t if n is None else (n + "=" if n else "") + t
                     for n, t in arg_pairs(sig, words, strs, abi))


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
