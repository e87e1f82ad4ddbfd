"""Answers version questions with pypa/packaging, one JSON request per line.

The differential test of versions/pep440 (differential_test.go) starts this
once and sends every question through it, so a whole batch costs one Python
process. Requests and answers, one JSON value per line:

  ["version", v]      -> [valid, normalised or ""]
  ["compare", a, b]   -> -1, 0 or 1 (both must be valid)
  ["spec", s]         -> true when SpecifierSet(s) parses
  ["match", v, s]     -> SpecifierSet(s, prereleases=True).contains(v)
  ["clause", v, s]    -> Specifier(s, prereleases=True).contains(v)

Anything the library raises comes back as {"error": "..."}.
"""

import json
import sys

import packaging
from packaging.specifiers import InvalidSpecifier, Specifier, SpecifierSet
from packaging.version import InvalidVersion, Version


def answer(req):
    op = req[0]
    if op == "about":
        return packaging.__version__
    if op == "version":
        try:
            return [True, str(Version(req[1]))]
        except InvalidVersion:
            return [False, ""]
    if op == "compare":
        a, b = Version(req[1]), Version(req[2])
        return (a > b) - (a < b)
    if op == "spec":
        try:
            SpecifierSet(req[1])
            return True
        except InvalidSpecifier:
            return False
    if op == "match":
        return SpecifierSet(req[2], prereleases=True).contains(req[1])
    if op == "clause":
        return Specifier(req[2], prereleases=True).contains(req[1])
    raise ValueError("unknown request %r" % (op,))


def main():
    for line in sys.stdin:
        try:
            out = answer(json.loads(line))
        except Exception as e:  # report, keep serving
            out = {"error": "%s: %s" % (type(e).__name__, e)}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
