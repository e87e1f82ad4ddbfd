"""Dump Python files' syntax trees in the canonical form pyast's
differential test compares with (see cpython_test.go).

Reads file paths, one a line, on stdin (or with --sources, sources
themselves, each after a line "SOURCE name length"). For each file prints "FILE path",
then "SKIP reason", "ERROR line col message" or one line per node in
pre-order, children in ast's _fields order, then "END". With --hash, the
node lines are replaced by "HASH sha256", the hash of those lines, each
ending in a newline.
A node line is: Kind position scalar-fields; position is
line:col-end_line:end_col (col in UTF-8 bytes, 0-based as ast gives it)
or "-" for nodes ast gives no position and for the literal parts of
f-strings (whose positions Python 3.11 does not compute).
"""
import ast
import hashlib
import io
import struct
import sys
import tokenize

SCALARS = {"name", "asname", "module", "level", "id", "attr", "arg", "conversion",
           "simple", "is_async", "kwd_attrs", "rest", "ctx", "op", "ops"}
SKIP = {"type_comment", "kind", "type_ignores"}


def const(v):
    if v is None or v is True or v is False or v is Ellipsis:
        return repr(v)
    if isinstance(v, str):
        return "str:" + v.encode("utf-8", "surrogatepass").hex()
    if isinstance(v, bytes):
        return "bytes:" + v.hex()
    if isinstance(v, int):
        return "int:%d" % v
    if isinstance(v, float):
        return "float:" + struct.pack(">d", v).hex()
    if isinstance(v, complex):
        return "imag:" + struct.pack(">d", v.imag).hex()
    raise TypeError(type(v))


def scalar(v):
    if v is None:
        return "None"
    if isinstance(v, ast.AST):
        return type(v).__name__
    if isinstance(v, list):
        return ",".join(scalar(x) for x in v)
    return str(v)


def is_scalar(kind, f):
    return f in SCALARS or (f == "names" and kind in ("Global", "Nonlocal"))


def dump(node, out, structural=False):
    kind = type(node).__name__
    if structural or not hasattr(node, "lineno"):
        pos = "-"
    else:
        pos = "%d:%d-%d:%d" % (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
    fields = []
    for f in node._fields:
        if f in SKIP:
            continue
        if kind == "Constant" and f == "value":
            fields.append("value=" + const(node.value))
        elif is_scalar(kind, f):
            fields.append("%s=%s" % (f, scalar(getattr(node, f))))
        elif kind == "MatchSingleton":
            fields.append("value=" + repr(node.value))
    out.append(" ".join([kind, pos] + fields))
    for f in node._fields:
        if f in SKIP or is_scalar(kind, f) or kind in ("Constant", "MatchSingleton"):
            continue
        v = getattr(node, f)
        inner = kind == "JoinedStr" or (kind == "FormattedValue" and f == "format_spec")
        if isinstance(v, list):
            for x in v:
                if x is None:
                    out.append("nil")
                else:
                    dump(x, out, inner)
        elif v is None:
            out.append("nil")
        else:
            dump(v, out, inner)


def verdict(w, name, src, hash_only):
    """Writes the FILE ... END record of one source."""
    w.write("FILE %s\n" % name)
    try:
        enc, _ = tokenize.detect_encoding(io.BytesIO(src).readline)
        if enc not in ("utf-8", "utf-8-sig"):
            w.write("SKIP encoding %s\n" % enc)
        else:
            try:
                tree = ast.parse(src, name)
            except (SyntaxError, ValueError) as e:
                w.write("ERROR %s %s %s\n" % (getattr(e, "lineno", 0), getattr(e, "offset", 0),
                                               str(getattr(e, "msg", e)).replace("\n", " ")))
            else:
                out = []
                dump(tree, out)
                text = "\n".join(out) + "\n"
                if hash_only:
                    w.write("HASH %s\n" % hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest())
                else:
                    w.write(text)
    except (SyntaxError, RecursionError, MemoryError) as e:
        w.write("SKIP %s\n" % type(e).__name__)
    w.write("END\n")


def main():
    hash_only = "--hash" in sys.argv[1:]
    w = sys.stdout
    if "--sources" in sys.argv[1:]:
        r = sys.stdin.buffer
        while True:
            header = r.readline()
            if not header:
                break
            _, name, n = header.decode().split()
            verdict(w, name, r.read(int(n)), hash_only)
        return
    for line in sys.stdin:
        path = line.rstrip("\n")
        try:
            with open(path, "rb") as f:
                src = f.read()
        except OSError as e:
            w.write("FILE %s\nSKIP %s\nEND\n" % (path, type(e).__name__))
            continue
        verdict(w, path, src, hash_only)


if __name__ == "__main__":
    sys.setrecursionlimit(100000)
    main()
