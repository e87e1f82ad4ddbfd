"""Dump what Python's own parser says each file binds, for TestScanAgreesWithAST.

Usage: python astnames.py OUT.json FILE_OR_DIR...  (directories are not recursed)
For each file that parses: the names bound at module level (also inside if/try/
for/while/with/match blocks) and, per top-level class, the names bound in its
body; and the line spans (def/class line, last line) of top-level defs, classes
and methods, the last definition of a name in source order winning.
"""
import ast
import json
import os
import sys


def bound(body):
    names, spans = set(), {}

    def targets(t):
        if isinstance(t, ast.Name):
            names.add(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                targets(e)
        elif isinstance(t, ast.Starred):
            targets(t.value)

    def visit(stmts):
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(s.name)
                spans[s.name] = [s.lineno, s.end_lineno]
            elif isinstance(s, ast.Assign):
                for t in s.targets:
                    targets(t)
            elif isinstance(s, ast.AnnAssign):
                targets(s.target)
            elif isinstance(s, ast.Import):
                for a in s.names:
                    names.add(a.asname or a.name.split(".")[0])
            elif isinstance(s, ast.ImportFrom):
                for a in s.names:
                    if a.name != "*" and s.module != "__future__":
                        names.add(a.asname or a.name)
            elif isinstance(s, (ast.If, ast.While)):
                visit(s.body)
                visit(s.orelse)
            elif isinstance(s, (ast.For, ast.AsyncFor)):
                targets(s.target)
                visit(s.body)
                visit(s.orelse)
            elif isinstance(s, (ast.With, ast.AsyncWith)):
                for it in s.items:
                    if it.optional_vars is not None:
                        targets(it.optional_vars)
                visit(s.body)
            elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
                visit(s.body)
                for h in s.handlers:
                    visit(h.body)
                visit(s.orelse)
                visit(s.finalbody)
            elif type(s).__name__ == "Match":
                for c in s.cases:
                    visit(c.body)

    visit(body)
    return sorted(names), spans


def main():
    out = {}
    files = []
    for arg in sys.argv[2:]:
        if os.path.isdir(arg):
            files += [os.path.join(arg, f) for f in sorted(os.listdir(arg)) if f.endswith(".py")]
        else:
            files.append(arg)
    for p in files:
        try:
            with open(p, encoding="utf-8") as f:
                tree = ast.parse(f.read())
        except Exception:
            continue
        top, spans = bound(tree.body)
        classes = {}
        for s in tree.body:
            if isinstance(s, ast.ClassDef):
                names, cspans = bound(s.body)
                classes[s.name] = {"names": names, "spans": cspans}
        out[p] = {"names": top, "spans": spans, "classes": classes}
    with open(sys.argv[1], "w") as f:
        json.dump(out, f)


main()
