"""graphcmp.py — function_graph call trees from two tracers, compared.

Two texts are read into the same tree of calls:
  - baretrace's `cat trace` under function_graph with funcgraph-args and
    funcgraph-retval (trace/graph_output.c, values as trace/fsig.c prints
    them: signed integers in decimal, unsigned ones and pointers in hex,
    "(float)", `char *` as a quoted string with \\xNN escapes, at most
    STR_MAX - 1 = 31 characters and "..." after the quote if cut);
  - uftrace's `replay -f none` of a recording made with `-a -R .@retval`
    (values as DWARF gives their types: integers in decimal, pointers in hex
    or as "&symbol", doubles as "%f", strings quoted but not escaped except
    \\n and the like, cut to about 100 characters with "..." inside the
    quotes; every function's return register as an integer).
A call is (name, arguments, return value, children, returned); a call left
by a longjmp has no return.  Both are then projected onto the same set of
functions (a function outside the set disappears and its calls move up to
its caller, as set_ftrace_filter shows them) and compared call by call.

Values are compared by what each side can know (the signature comes from
the guest's BTF, tools/btlib's reader in btfsig.py):
  integers exactly, cut to the type's size (the host's return register
  beyond a 32-bit type's size is not defined by the ABI, and uftrace reads
  it whole); pointers only as NULL or not (host and guest addresses
  differ); strings as far as both printed them; floating point not at all
  (the guest records integer argument registers only).
"""
import fnmatch
import re

from btfsig import VOID, INT, UINT, BOOL, ENUM, PTR, STR, FLOAT

M64 = (1 << 64) - 1
CLONE = re.compile(r"\.(constprop|isra|part|cold|lto_priv)\.\d+.*$")


class Call:
    __slots__ = ("name", "args", "ret", "children", "returned", "line", "typed")

    def __init__(self, name, args, line, typed=True):
        self.name, self.args, self.line = name, args, line
        self.ret, self.children, self.returned = None, [], False
        # False: the guest printed raw words (no signature for this address).
        self.typed = typed

    def __repr__(self):
        return "%s(%s)%s" % (self.name, ", ".join(map(str, self.args or [])),
                             " = %s" % self.ret if self.returned else "")


# ---- values -----------------------------------------------------------------

class Val:
    """One printed value: kind 'int' (v), 'str' (s, cut), 'ptr' (v or None
    for "&sym": not NULL), 'float', 'raw' (anything else, text)."""
    __slots__ = ("kind", "v", "cut", "text")

    def __init__(self, kind, v=None, cut=False, text=""):
        self.kind, self.v, self.cut, self.text = kind, v, cut, text

    def __str__(self):
        return self.text

    def __eq__(self, o):
        return (self.kind, self.v, self.cut) == (o.kind, o.v, o.cut)


def _num(text):
    try:
        return int(text, 0)
    except ValueError:
        return None


def _escaped(body, style):
    """A string's bytes from its printed body: baretrace writes \\xNN,
    uftrace \\n \\t \\r \\\\ and the rest raw."""
    if style == "guest":
        return re.sub(r"\\x([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), body)
    return re.sub(r"\\([ntr\\])", lambda m: {"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}[m.group(1)],
                  body)


def guest_value(text):
    text = text.strip()
    m = re.fullmatch(r'"(.*)"(\.\.\.)?', text, re.S)
    if m:
        return Val("str", _escaped(m.group(1), "guest"), bool(m.group(2)), text)
    if text == "(float)":
        return Val("float", text=text)
    n = _num(text)
    if n is not None:
        return Val("int", n, text=text)
    return Val("raw", text=text)


def host_value(text):
    text = text.strip()
    if text == '"NULL"':                   # uftrace's NULL `char *`
        return Val("int", 0, text=text)
    if text.startswith('"') and text.endswith('"') and len(text) >= 2:
        body = text[1:-1]
        cut = body.endswith("...")
        return Val("str", _escaped(body[:-3] if cut else body, "host"), cut, text)
    if text.startswith("&"):
        return Val("ptr", None, text=text)
    m = re.fullmatch(r"'(.)'", text)
    if m:
        return Val("int", ord(m.group(1)), text=text)
    if re.fullmatch(r"-?\d+\.\d+(e[-+]\d+)?|-?nan|-?inf", text):
        return Val("float", text=text)
    n = _num(text)
    if n is not None:
        return Val("int", n, text=text)
    return Val("raw", text=text)


# ---- parsing ------------------------------------------------------------------

class Tree:
    """Builds the call tree from (indent, kind, name, args, ret) lines:
    kind 'open' (name(args) {), 'leaf' (name(args); with ret or None) or
    'close' (} with name, ret).  A line at or above an open call's indent
    ends it without a return (a longjmp passed it)."""

    def __init__(self):
        self.roots, self.stack = [], []       # stack: (indent, Call)

    def _unwind(self, indent):
        while self.stack and self.stack[-1][0] >= indent:
            self.stack.pop()

    def call(self, indent, name, args, line, leaf=False, ret=None, returned=False, typed=True):
        self._unwind(indent)
        c = Call(name, args, line, typed)
        (self.stack[-1][1].children if self.stack else self.roots).append(c)
        if leaf:
            c.ret, c.returned = ret, returned
        else:
            self.stack.append((indent, c))
        return c

    def close(self, indent, name, ret):
        self._unwind(indent + 1)
        if self.stack and self.stack[-1][0] == indent:
            _, c = self.stack.pop()
            if name is None or c.name == name:
                c.ret, c.returned = ret, True
            # else: another function's exit at this depth (uftrace's second
            # return of setjmp): the open call was left by a longjmp.


def split_args(text, style):
    """The argument texts of "a, b, ..." (guest: "n=v, ..."; names dropped).
    Guest strings escape quotes; uftrace's do not, so a quote ends a host
    string only where what follows is ", " or the end."""
    out, i, n = [], 0, len(text)
    while i < n:
        j = i
        if style == "guest":
            m = re.match(r"[A-Za-z_][A-Za-z_0-9]*=", text[i:])
            if m:
                j = i + m.end()
        if j < n and text[j] == '"':
            k = j + 1
            while True:
                k = text.find('"', k)
                if k < 0:
                    k = n - 1
                    break
                tail = text[k + 1:]
                if style == "guest" and tail.startswith("..."):
                    k += 3
                    tail = tail[3:]
                if tail == "" or tail.startswith(", "):
                    break
                k += 1
            out.append(text[j:k + 1])
            i = k + 3
        else:
            k = text.find(", ", j)
            k = n if k < 0 else k
            out.append(text[j:k])
            i = k + 2
    return out


GUEST_CLOSE = re.compile(r"^\}(?: /\* (\S+)(?: ret=(\S+))? \*/)?$")
GUEST_LEAF = re.compile(r"^([^\s(]+)\((.*)\);(?: /\* ret=(\S+) \*/)?$")
GUEST_OPEN = re.compile(r"^([^\s(]+)\((.*)\) \{$")


def typed(args):
    """Did the guest print these arguments with a signature ("a=1, ...")?
    Without one (trace/fsig.c: no BTF for the address: a GCC clone, a
    function without DWARF) it prints the raw argument words, unnamed."""
    return args == "" or re.match(r"[A-Za-z_][A-Za-z_0-9]*=", args) is not None


def parse_guest(text):
    """baretrace's function_graph text -> list of root Calls (one CPU's
    task: lines of other CPUs are the caller's to leave out)."""
    t = Tree()
    for no, line in enumerate(text.split("\n"), 1):
        if line.startswith("#") or "|" not in line or "=>" in line or "==========" in line:
            continue
        body = line.split("|", 1)[1]
        if not body.startswith("  "):
            continue
        body = body[2:]
        stripped = body.lstrip(" ")
        indent = len(body) - len(stripped)
        if stripped.startswith("/*"):
            continue                              # trace_marker and the like
        m = GUEST_CLOSE.match(stripped)
        if m:
            t.close(indent, m.group(1), guest_value(m.group(2)) if m.group(2) else None)
            continue
        m = GUEST_LEAF.match(stripped)
        if m:
            t.call(indent, m.group(1), [guest_value(a) for a in split_args(m.group(2), "guest")],
                   no, leaf=True, returned=True,
                   ret=guest_value(m.group(3)) if m.group(3) else None, typed=typed(m.group(2)))
            continue
        m = GUEST_OPEN.match(stripped)
        if m:
            t.call(indent, m.group(1), [guest_value(a) for a in split_args(m.group(2), "guest")], no,
                   typed=typed(m.group(2)))
    return t.roots


HOST_CLOSE = re.compile(r"^\}(?: = (\S+);)? /\* (\S+) \*/$")
HOST_LEAF = re.compile(r"^([^\s(]+)\((.*)\)(?: = ([^\s;()\"]+))?;$")
HOST_OPEN = re.compile(r"^([^\s(]+)\((.*)\) \{$")


def parse_host(text):
    """uftrace replay -f none (recorded with -a -R .@retval) -> root Calls.
    Its closing summary ("uftrace stopped tracing with remaining
    functions") and event lines are left out."""
    t = Tree()
    for no, line in enumerate(text.split("\n"), 1):
        if line.startswith("uftrace stopped") or line.startswith("===="):
            break
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if not stripped or stripped.startswith("/*"):
            continue
        m = HOST_CLOSE.match(stripped)
        if m:
            t.close(indent, m.group(2), host_value(m.group(1)) if m.group(1) else None)
            continue
        m = HOST_LEAF.match(stripped)
        if m:
            t.call(indent, m.group(1), [host_value(a) for a in split_args(m.group(2), "host")],
                   no, leaf=True, returned=True,
                   ret=host_value(m.group(3)) if m.group(3) else None)
            continue
        m = HOST_OPEN.match(stripped)
        if m:
            t.call(indent, m.group(1), [host_value(a) for a in split_args(m.group(2), "host")], no)
    return t.roots


# ---- projection -----------------------------------------------------------------

def base_name(name):
    """A GCC clone's function: foo for foo.constprop.0, foo.isra.0, ..."""
    return CLONE.sub("", name)


def project(calls, keep):
    """The calls `keep(name)` accepts, each with its kept descendants; the
    others' kept descendants take their place (set_ftrace_filter's view)."""
    out = []
    for c in calls:
        kids = project(c.children, keep)
        if keep(c.name):
            n = Call(c.name, c.args, c.line)
            n.ret, n.returned, n.children, n.typed = c.ret, c.returned, kids, c.typed
            out.append(n)
        else:
            out.extend(kids)
    return out


def glob_keep(globs):
    return lambda name: any(fnmatch.fnmatchcase(name, g) for g in globs)


def count(calls):
    return sum(1 + count(c.children) for c in calls)


def names(calls, acc=None):
    acc = set() if acc is None else acc
    for c in calls:
        acc.add(c.name)
        names(c.children, acc)
    return acc


# ---- comparison --------------------------------------------------------------

def _cut(v, size, signed):
    bits = 8 * size if 0 < size < 8 else 64
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


class Stats:
    def __init__(self):
        self.calls = self.ints = self.ptrs = self.strs = 0
        self.skipped = {}

    def skip(self, why):
        self.skipped[why] = self.skipped.get(why, 0) + 1


def compare_value(g, h, ty, st, strings):
    """None if guest value g and host value h agree for type ty (kind, size),
    else a reason."""
    kind, size = ty
    if kind == FLOAT:
        st.skip("floating point (not in the recorded argument words)")
        return None
    if kind in (PTR, STR) and not (kind == STR and strings and g.kind == "str"):
        gnull = g.kind == "int" and g.v == 0
        hnull = h.kind == "int" and h.v == 0
        if g.kind == "str" or h.kind == "str":   # a string printed: not NULL
            gnull = gnull and g.kind != "str"
            hnull = hnull and h.kind != "str"
        st.ptrs += 1
        return None if gnull == hnull else "NULL on one side only"
    if kind == STR:
        if h.kind != "str":
            st.skip("char * the host printed as a pointer")
            return None
        a, b = g.v, h.v
        n = min(len(a), len(b))
        if (g.cut or h.cut) and a[:n] == b[:n]:
            st.strs += 1
            return None
        st.strs += 1
        return None if (a, g.cut) == (b, h.cut) or a == b else "strings differ"
    if kind in (INT, UINT, BOOL, ENUM):
        if g.kind != "int" or h.kind != "int":
            return "not an integer on both sides"
        signed = kind in (INT, ENUM)
        st.ints += 1
        return None if _cut(g.v, size, signed) == _cut(h.v, size, signed) else "values differ"
    st.skip("aggregate or unknown type")
    return None


def compare_trees(guest, host, sigs, strings_in=frozenset(), unstable=None, limit=20):
    """Differences between two projected trees (lists of strings, at most
    `limit`), and the Stats of what was compared.  sigs: name -> Sig (from
    the guest's BTF) or None; strings_in: functions whose `char *`
    arguments are compared as strings (the others only as NULL or not);
    unstable: {(caller, function): why} whose values are not compared
    (the call and its return still are)."""
    unstable = unstable or {}
    diffs, st = [], Stats()

    def where(path):
        return " > ".join(path)

    def walk(gs, hs, path, caller=None):
        for i in range(max(len(gs), len(hs))):
            if len(diffs) >= limit:
                return
            g = gs[i] if i < len(gs) else None
            h = hs[i] if i < len(hs) else None
            if g is None or h is None:
                c = g or h
                diffs.append("%s: call #%d %s only in the %s trace (line %d)" %
                             (where(path), i + 1, c.name, "guest" if g else "host", c.line))
                return
            if base_name(g.name) != base_name(h.name):
                diffs.append("%s: call #%d is %s in the guest (line %d), %s on the host (line %d)" %
                             (where(path), i + 1, g.name, g.line, h.name, h.line))
                return
            st.calls += 1
            here = path + ["%s#%d" % (g.name, i + 1)]
            d = compare_call(g, h, caller)
            if d:
                diffs.append("%s: %s (guest line %d: %r; host line %d: %r)" %
                             (where(here), d, g.line, g, h.line, h))
            walk(g.children, h.children, here, g.name)

    def compare_call(g, h, caller):
        if g.returned != h.returned:
            return "returns on one side only"
        why = unstable.get((caller and base_name(caller), base_name(g.name)))
        if why:
            st.skip(why)
            return None
        sig = sigs.get(g.name)
        if g.name != base_name(g.name) or sig is None or not g.typed:
            st.skip("no signature (GCC clone, or no BTF for the address)")
            return None
        strings = g.name in strings_in
        for n, ty in enumerate(sig.params):
            if n >= len(g.args) or g.args[n].text == "...":
                st.skip("argument beyond the recorded words")
                break
            if n >= len(h.args):
                return "argument %d missing on the host" % (n + 1)
            why = compare_value(g.args[n], h.args[n], ty, st, strings)
            if why:
                return "argument %d: %s" % (n + 1, why)
        if g.returned and sig.ret[0] != VOID:
            if g.ret is None or h.ret is None:
                return "return value missing on one side"
            why = compare_value(g.ret, h.ret, sig.ret, st, False)
            if why:
                return "return value: %s" % why
        return None

    walk(guest, host, [])
    return diffs, st
