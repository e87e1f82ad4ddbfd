package pyast

import (
	"errors"
	"strings"
	"testing"
)

// parseBody parses src and prints its statements with sexpr, "; "
// between them.
func parseBody(t *testing.T, src string) string {
	t.Helper()
	mod, err := Parse("t.py", []byte(src))
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	var parts []string
	for _, s := range mod.Body {
		parts = append(parts, sexpr(s))
	}
	return strings.Join(parts, "; ")
}

// TestParse checks the tree of each construct. The differential tests
// check Python 3.11's constructs against CPython; here the reference is
// the Python 3.13 grammar, for the soft keywords, PEP 701 f-strings, PEP
// 695 and 696 type parameters, and match patterns.
func TestParse(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		// Soft keywords are names wherever a name may be.
		{"match = 1", "Assign(match:Store 1)"},
		{"match(x)", "Expr(Call(match x))"},
		{"print(match)", "Expr(Call(print match))"},
		{"match.x = 2", "Assign(Attribute[x Store](match) 2)"},
		{"match[0] = 3", "Assign(Subscript[Store](match 0) 3)"},
		{"match * 2", "Expr(BinOp[Mult](match 2))"},
		{"match -x", "Expr(BinOp[Sub](match x))"},
		{"match -x:\n    case 1: pass", "Match(UnaryOp[USub](x) MatchCase(MatchValue(1) Pass))"},
		{"match(x):\n    case 1: pass", "Match(x MatchCase(MatchValue(1) Pass))"},
		{"match[x]: int", "AnnAssign(Subscript[Store](match x) int)"},
		{"match: int = 1", "AnnAssign[simple](match:Store int 1)"},
		{"match, case = 1, 2", "Assign(Tuple[Store](match:Store case:Store) Tuple(1 2))"},
		{"case = 1", "Assign(case:Store 1)"},
		{"type = int", "Assign(type:Store int)"},
		{"type(x)", "Expr(Call(type x))"},
		{"type: int", "AnnAssign[simple](type:Store int)"},
		{"_ = 1", "Assign(_:Store 1)"},
		{"def match(case, _, type): return type", "FunctionDef[match](Arguments[case _ type](Arg[case] Arg[_] Arg[type]) Return(type))"},
		{"import match\nfrom case import type as _", "Import(Alias[match]); ImportFrom[case](Alias[type as _])"},

		// PEP 695 type statements and parameters, PEP 696 defaults.
		{"type X = int", "TypeAlias(X:Store int)"},
		{"type X[T] = list[T]", "TypeAlias(X:Store TypeVar[T] Subscript(list T))"},
		{"type X[T = int, *Ts = *tuple[int], **P = [int]] = list[T]",
			"TypeAlias(X:Store TypeVar[T](int) TypeVarTuple[Ts](Starred(Subscript(tuple int))) ParamSpec[P](List(int)) Subscript(list T))"},
		{"def f[T](x: T) -> T: pass", "FunctionDef[f](TypeVar[T] Arguments[x](Arg[x](T)) T Pass)"},
		{"def f[T: (int, str) = int](): pass", "FunctionDef[f](TypeVar[T](Tuple(int str) int) Arguments Pass)"},
		{"class C[T: int, *Ts, **P,](Base): pass", "ClassDef[C](TypeVar[T](int) TypeVarTuple[Ts] ParamSpec[P] Base Pass)"},
		{"async def f[T](): pass", "AsyncFunctionDef[f](TypeVar[T] Arguments Pass)"},

		// PEP 701 f-strings: quotes reused inside fields, backslashes,
		// comments and line breaks in fields, nested format specs.
		{`f"{f"{x}"}"`, "Expr(JoinedStr(FormattedValue(JoinedStr(FormattedValue(x)))))"},
		{`f"{'\n'.join(a)}"`, `Expr(JoinedStr(FormattedValue(Call(Attribute[join]("\n") a))))`},
		{"f\"{x # comment\n}\"", "Expr(JoinedStr(FormattedValue(x)))"},
		{"f\"{1 +\n 2}\"", "Expr(JoinedStr(FormattedValue(BinOp[Add](1 2))))"},
		{`f"{"a" "b"}"`, `Expr(JoinedStr(FormattedValue("ab")))`},
		{`f"{x:{y:{z}}}"`, "Expr(JoinedStr(FormattedValue(x JoinedStr(FormattedValue(y JoinedStr(FormattedValue(z)))))))"},
		{`f"{x=}"`, `Expr(JoinedStr("x=" FormattedValue[r](x)))`},
		{`f"{x = !s:>{w}}"`, `Expr(JoinedStr("x = " FormattedValue[s](x JoinedStr(">" FormattedValue(w)))))`},
		{`f"{x=:>10}"`, `Expr(JoinedStr("x=" FormattedValue(x JoinedStr(">10"))))`},
		{`f"a{{b}}c"`, `Expr(JoinedStr("a{b}c"))`},
		{`f"{x!r:>10}"`, `Expr(JoinedStr(FormattedValue[r](x JoinedStr(">10"))))`},
		{`f"{x!a}{y!s}"`, `Expr(JoinedStr(FormattedValue[a](x) FormattedValue[s](y)))`},
		{`f"\{x}"`, `Expr(JoinedStr("\\" FormattedValue(x)))`},
		{`f"\N{BULLET} {x}"`, `Expr(JoinedStr("• " FormattedValue(x)))`},
		{`rf"\{x}\n"`, `Expr(JoinedStr("\\" FormattedValue(x) "\\n"))`},
		{`f"{x:=5}"`, `Expr(JoinedStr(FormattedValue(x JoinedStr("=5"))))`},
		{`f"{(x:=5)}"`, "Expr(JoinedStr(FormattedValue(NamedExpr(x:Store 5))))"},
		{`f'{a["b"]}'`, `Expr(JoinedStr(FormattedValue(Subscript(a "b"))))`},
		{`f"{x}" "y" f"z{w}"`, `Expr(JoinedStr(FormattedValue(x) "yz" FormattedValue(w)))`},
		{`f"{x:}"`, "Expr(JoinedStr(FormattedValue(x JoinedStr)))"},
		{`f"{*a, b}"`, "Expr(JoinedStr(FormattedValue(Tuple(Starred(a) b))))"},
		{`f""`, "Expr(JoinedStr)"},
		{`"" f"" ""`, "Expr(JoinedStr)"},
		{"f'''{\nx\n!r}'''", "Expr(JoinedStr(FormattedValue[r](x)))"},
		{`f"{x!r:{'a'}}"`, `Expr(JoinedStr(FormattedValue[r](x JoinedStr(FormattedValue("a")))))`},
		{`f"{yield}"`, "Expr(JoinedStr(FormattedValue(Yield)))"},

		// Match statements: every kind of pattern.
		{"match x:\n case _: pass", "Match(x MatchCase(MatchAs Pass))"},
		{"match x:\n case y: pass", "Match(x MatchCase(MatchAs[y] Pass))"},
		{"match x:\n case a.b: pass", "Match(x MatchCase(MatchValue(Attribute[b](a)) Pass))"},
		{"match x:\n case -1 | 2.5 | 1+2j | -1-2j: pass",
			"Match(x MatchCase(MatchOr(MatchValue(UnaryOp[USub](1)) MatchValue(2.5) MatchValue(BinOp[Add](1 2j)) MatchValue(BinOp[Sub](UnaryOp[USub](1) 2j))) Pass))"},
		{`match x:` + "\n" + ` case "a" "b" | b"c": pass`, `Match(x MatchCase(MatchOr(MatchValue("ab") MatchValue(b"c")) Pass))`},
		{"match x:\n case None | True | False: pass", "Match(x MatchCase(MatchOr(MatchSingleton[None] MatchSingleton[True] MatchSingleton[False]) Pass))"},
		{"match x:\n case [a, *rest] | (a, *_) | (): pass",
			"Match(x MatchCase(MatchOr(MatchSequence(MatchAs[a] MatchStar[rest]) MatchSequence(MatchAs[a] MatchStar[]) MatchSequence) Pass))"},
		{"match x:\n case a, *b, c: pass", "Match(x MatchCase(MatchSequence(MatchAs[a] MatchStar[b] MatchAs[c]) Pass))"},
		{"match x:\n case (a): pass", "Match(x MatchCase(MatchAs[a] Pass))"},
		{"match x:\n case (a,): pass", "Match(x MatchCase(MatchSequence(MatchAs[a]) Pass))"},
		{"match x:\n case {'k': v, 1: _, a.b: c, **rest}: pass",
			`Match(x MatchCase(MatchMapping[**rest]("k" MatchAs[v] 1 MatchAs Attribute[b](a) MatchAs[c]) Pass))`},
		{"match x:\n case {}: pass", "Match(x MatchCase(MatchMapping Pass))"},
		{"match x:\n case Point(1, y=2) | a.B(): pass",
			"Match(x MatchCase(MatchOr(MatchClass[y](Point MatchValue(1) MatchValue(2)) MatchClass(Attribute[B](a))) Pass))"},
		{"match x:\n case [1, 2] as pair if pair: pass", "Match(x MatchCase(MatchAs[pair](MatchSequence(MatchValue(1) MatchValue(2))) pair Pass))"},
		{"match x:\n case f\"{y}\": pass", "Match(x MatchCase(MatchValue(JoinedStr(FormattedValue(y))) Pass))"},
		{"match *a, b:\n case _: pass", "Match(Tuple(Starred(a) b) MatchCase(MatchAs Pass))"},
		{"match x,:\n case _: pass", "Match(Tuple(x) MatchCase(MatchAs Pass))"},

		// Statements.
		{"x = y = 1", "Assign(x:Store y:Store 1)"},
		{"a, *b = c", "Assign(Tuple[Store](a:Store Starred[Store](b:Store)) c)"},
		{"[a, (b, c)] = d", "Assign(List[Store](a:Store Tuple[Store](b:Store c:Store)) d)"},
		{"() = []", "Assign(Tuple[Store] List)"},
		{"x += 1; x @= m", "AugAssign[Add](x:Store 1); AugAssign[MatMult](x:Store m)"},
		{"(x): int = 1", "AnnAssign(x:Store int 1)"},
		{"x.y: int", "AnnAssign(Attribute[y Store](x) int)"},
		{"x = yield", "Assign(x:Store Yield)"},
		{"x = yield from y", "Assign(x:Store YieldFrom(y))"},
		{"del a, b[0], (c.d, [e])", "Delete(a:Del Subscript[Del](b 0) Tuple[Del](Attribute[d Del](c) List[Del](e:Del)))"},
		{"global a, b\nnonlocal c", "Global[a b]; Nonlocal[c]"},
		{"assert x, 'm'", `Assert(x "m")`},
		{"raise E from e", "Raise(E e)"},
		{"raise", "Raise"},
		{"return *a, b", "Return(Tuple(Starred(a) b))"},
		{"import a.b as c, d", "Import(Alias[a.b as c] Alias[d])"},
		{"from . import (a as b, c,)", "ImportFrom[.](Alias[a as b] Alias[c])"},
		{"from ...a . b import *", "ImportFrom[...a.b](Alias[*])"},
		{"from .... import x", "ImportFrom[....](Alias[x])"},
		{"def f(a, b=1, /, c=2, *args, d, e=3, **kw) -> R: pass",
			"FunctionDef[f](Arguments[a b / c *args d e **kw](Arg[a] Arg[b] 1 Arg[c] 2 Arg[args] Arg[d] Arg[e] 3 Arg[kw]) R Pass)"},
		{"def f(*, a): pass", "FunctionDef[f](Arguments[* a](Arg[a]) Pass)"},
		{"def f(*args: *Ts): pass", "FunctionDef[f](Arguments[*args](Arg[args](Starred(Ts))) Pass)"},
		{"@d1\n@d2.x(1)\nclass C(B, metaclass=M, **kw): pass",
			"ClassDef[C](d1 Call(Attribute[x](d2) 1) B Keyword[metaclass](M) Keyword(kw) Pass)"},
		{"if a: pass\nelif b: pass\nelse: pass", "If(a Pass If(b Pass Pass))"},
		{"for x, in y: pass\nelse: pass", "For(Tuple[Store](x:Store) y Pass Pass)"},
		{"async def f():\n async for x in y: pass\n async with a as b: pass",
			"AsyncFunctionDef[f](Arguments AsyncFor(x:Store y Pass) AsyncWith(WithItem(a b:Store) Pass))"},
		{"while x: pass\nelse: pass", "While(x Pass Pass)"},
		{"try: pass\nexcept E as e: pass\nexcept: pass\nelse: pass\nfinally: pass",
			"Try(Pass ExceptHandler[e](E Pass) ExceptHandler(Pass) Pass Pass)"},
		{"try: pass\nexcept* E: pass", "TryStar(Pass ExceptHandler(E Pass))"},
		{"with (a as b, c):\n pass", "With(WithItem(a b:Store) WithItem(c) Pass)"},
		{"with (a, b) as c: pass", "With(WithItem(Tuple(a b) c:Store) Pass)"},
		{"with (a): pass", "With(WithItem(a) Pass)"},
		{"with (a)[0]: pass", "With(WithItem(Subscript(a 0)) Pass)"},

		// Expressions.
		{"a if b else c", "Expr(IfExp(a b c))"},
		{"lambda x, /, y=1, *a, z, **k: 0", "Expr(Lambda(Arguments[x / y *a z **k](Arg[x] Arg[y] 1 Arg[a] Arg[z] Arg[k]) 0))"},
		{"lambda: (yield)", "Expr(Lambda(Arguments Yield))"},
		{"(x := 1)", "Expr(NamedExpr(x:Store 1))"},
		{"a or b and not c", "Expr(BoolOp[Or](a BoolOp[And](b UnaryOp[Not](c))))"},
		{"a < b not in c is not d", "Expr(Compare[Lt NotIn IsNot](a b c d))"},
		{"-a ** -b", "Expr(UnaryOp[USub](BinOp[Pow](a UnaryOp[USub](b))))"},
		{"a | b ^ c & d << e + f * g @ h", "Expr(BinOp[BitOr](a BinOp[BitXor](b BinOp[BitAnd](c BinOp[LShift](d BinOp[Add](e BinOp[MatMult](BinOp[Mult](f g) h)))))))"},
		{"a - b - c", "Expr(BinOp[Sub](BinOp[Sub](a b) c))"},
		{"await x ** 2", "Expr(BinOp[Pow](Await(x) 2))"},
		{"f(a, *b, c=1, **d)", "Expr(Call(f a Starred(b) Keyword[c](1) Keyword(d)))"},
		{"f(a=1, *b)", "Expr(Call(f Keyword[a](1) Starred(b)))"},
		{"f(x for x in y)", "Expr(Call(f GeneratorExp(x Comprehension(x:Store y))))"},
		{"[x async for x in y if a if b for z in x]", "Expr(ListComp(x Comprehension[async](x:Store y a b) Comprehension(z:Store x)))"},
		{"{k: v for k, v in d}", "Expr(DictComp(k v Comprehension(Tuple[Store](k:Store v:Store) d)))"},
		{"{1: 2, **a}", "Expr(Dict(1 2 a))"},
		{"{*a, b}", "Expr(Set(Starred(a) b))"},
		{"a[1:2, ::3, ...]", "Expr(Subscript(a Tuple(Slice(1 2) Slice(3) ...)))"},
		{"a[*b]", "Expr(Subscript(a Tuple(Starred(b))))"},
		{"a[:]", "Expr(Subscript(a Slice))"},
		{"(1,)", "Expr(Tuple(1))"},
		{"1_000 + 0x_FF + 0o7 + 0b1 + 1.5e-3 + 2j", "Expr(BinOp[Add](BinOp[Add](BinOp[Add](BinOp[Add](BinOp[Add](1_000 0x_FF) 0o7) 0b1) 1.5e-3) 2j))"},
		{"1if x else 2", "Expr(IfExp(1 x 2))"},
		{"x = ...", "Assign(x:Store ...)"},
		{`"a" 'b' """c"""`, `Expr("abc")`},
		{`b"\x00" rb"\d"`, `Expr(b"\x00\\d")`},

		// Layout: continuations, brackets, tabs, form feeds, CRLF, lone CR,
		// a byte-order mark, no final newline, blank and comment lines.
		{"x = 1 + \\\n    2", "Assign(x:Store BinOp[Add](1 2))"},
		{"x = (1 +\n  2)", "Assign(x:Store BinOp[Add](1 2))"},
		{"if x:\n\ty = 1\n\tif y:\n\t\tz = 2\n", "If(x Assign(y:Store 1) If(y Assign(z:Store 2)))"},
		{"if x:\n    y = 1\n\x0c\n    z = 2\n", "If(x Assign(y:Store 1) Assign(z:Store 2))"},
		{"x = 1\r\nif x:\r\n    y = 2\r\n", "Assign(x:Store 1); If(x Assign(y:Store 2))"},
		{"x = 1\rif x:\r    y = 2\r", "Assign(x:Store 1); If(x Assign(y:Store 2))"},
		{"\xef\xbb\xbfx = 1", "Assign(x:Store 1)"},
		{"if x:\n    pass\n  # odd comment\n\n    y = 2", "If(x Pass Assign(y:Store 2))"},
		{"café = π", "Assign(café:Store π)"},
		{"# -*- coding: latin-1 -*-\nx = 'é'", `Assign(x:Store "é")`},
		{"", ""},
		{"\n\n# only a comment\n", ""},
	} {
		if got := parseBody(t, tc.src); got != tc.want {
			t.Errorf("Parse(%q)\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// TestParseErrors checks that invalid input is a *SyntaxError at the right
// place: Python 2, misplaced tokens, bad layout, bad literals, and the
// limits on nesting.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		src       string
		line, col int
		msg       string
	}{
		// Python 2.
		{`print "hello"`, 1, 7, "invalid syntax"},
		{"try:\n    pass\nexcept X, e:\n    pass", 3, 9, "invalid syntax"},
		{`exec "code"`, 1, 6, "invalid syntax"},
		{"`x`", 1, 1, "invalid character '`' (U+0060)"},
		{"1 <> 2", 1, 4, "invalid syntax"},
		{"x = 0777", 1, 5, "leading zeros in decimal integer literals are not permitted"},
		{`x = ur"x"`, 1, 7, "invalid syntax"},
		{"raise E, 'msg'", 1, 8, "invalid syntax"},

		// Calls and parameters.
		{"def f(x, y=1, z): pass", 1, 15, "parameter without a default follows parameter with a default"},
		{"f(x=1, y)", 1, 8, "positional argument follows keyword argument"},
		{"f(**k, *a)", 1, 8, "iterable argument unpacking follows keyword argument unpacking"},
		{"f(**k, a)", 1, 8, "positional argument follows keyword argument unpacking"},
		{"f(x for x in y, 1)", 1, 3, "Generator expression must be parenthesized"},
		{"class A(x for x in y): pass", 1, 9, "Generator expression must be parenthesized"},
		{"f(a.b=1)", 1, 3, "expression cannot contain assignment"},
		{"def f(*): pass", 1, 7, "named arguments must follow bare *"},
		{"def f(*, **k): pass", 1, 7, "named arguments must follow bare *"},
		{"def f(**k, a): pass", 1, 12, "parameters cannot follow var-keyword parameter"},
		{"def f(/): pass", 1, 7, "at least one parameter must precede /"},
		{"def f(a, /, b, /): pass", 1, 16, "/ may appear only once"},
		{"def f(*a, /): pass", 1, 11, "/ must be ahead of *"},
		{"def f(*a=1): pass", 1, 9, "var-positional parameter cannot have default value"},
		{"lambda x: yield", 1, 11, "invalid syntax"},

		// Targets.
		{"x + 1 = 2", 1, 1, "cannot assign to expression"},
		{"f() = 1", 1, 1, "cannot assign to function call"},
		{"x = yield = 1", 1, 5, "cannot assign to yield expression"},
		{"del f()", 1, 5, "cannot delete function call"},
		{"del *a", 1, 5, "invalid syntax"},
		{"del (a, *b)", 1, 9, "cannot delete starred"},
		{"(a, b) += 1", 1, 1, "'tuple' is an illegal expression for augmented assignment"},
		{"[a]: int", 1, 1, "only single target (not list) can be annotated"},
		{"a, b: int", 1, 1, "only single target (not tuple) can be annotated"},
		{"a := 1", 1, 3, "invalid syntax"},
		{"for f() in x: pass", 1, 5, "cannot assign to function call"},
		{"with a as f(): pass", 1, 11, "cannot assign to function call"},

		// Blocks and layout.
		{"if x:\npass", 2, 1, "expected an indented block"},
		{"  x = 1", 1, 3, "unexpected indent"},
		{"if x:\n    a\n  b", 3, 3, "unindent does not match any outer indentation level"},
		{"if x:\n        a\n\tb", 3, 2, "inconsistent use of tabs and spaces in indentation"},
		{"try:\n    pass\nx = 1", 3, 1, "expected 'except' or 'finally' block"},
		{"try:\n    pass\nexcept ValueError:\n    pass\nexcept* TypeError:\n    pass", 5, 1, "cannot have both 'except' and 'except*' on the same 'try'"},
		{"match x:\n    pass", 2, 5, "invalid syntax"},
		{"case 1: pass", 1, 6, "invalid syntax"},
		{"@dec\nx = 1", 2, 1, "invalid syntax"},
		{"async x = 1", 1, 7, "invalid syntax"},
		{"if x: if y: pass", 1, 7, "invalid syntax"},
		{"x = 1 \\ y", 1, 8, "unexpected character after line continuation character"},
		{"x = 1 \\", 1, 7, "unexpected EOF while parsing"},
		{"x = (1,", 1, 5, "'(' was never closed"},
		{"x = )", 1, 5, "unmatched ')'"},
		{"x = (]", 1, 6, "closing parenthesis ']' does not match opening parenthesis '('"},
		{"x = (1,\n]", 2, 1, "closing parenthesis ']' does not match opening parenthesis '(' on line 1"},
		{"x = 1\x00", 1, 6, "source code cannot contain null bytes"},

		// Literals.
		{`s = "abc`, 1, 5, "unterminated string literal (detected at line 1)"},
		{"s = \"\"\"abc\n", 1, 5, "unterminated triple-quoted string literal (detected at line 2)"},
		{`b"é"`, 1, 3, "bytes can only contain ASCII literal characters"},
		{`"\x4"`, 1, 2, `truncated \xXX escape`},
		{`"\N{NO SUCH NAME}"`, 1, 2, "unknown Unicode character name"},
		{`"\U00110000"`, 1, 2, "illegal Unicode character"},
		{`"a" b"b"`, 1, 1, "cannot mix bytes and nonbytes literals"},
		{`f"{x}" b"b"`, 1, 1, "cannot mix bytes and nonbytes literals"},
		{"1__0", 1, 3, "invalid decimal literal"},
		{"x = 1_", 1, 7, "invalid decimal literal"},
		{"0x", 1, 3, "invalid hexadecimal literal"},
		{"0b2", 1, 3, "invalid digit '2' in binary literal"},
		{"0o8", 1, 3, "invalid digit '8' in octal literal"},
		{"1abc", 1, 2, "invalid decimal literal"},
		{"x = $", 1, 5, "invalid character '$' (U+0024)"},
		{"€ = 1", 1, 1, "invalid character '€' (U+20AC)"},
		{"y = \u200b2", 1, 5, "invalid non-printable character U+200B"},
		{"x\xff = 1", 1, 2, "invalid UTF-8 byte 0xff in identifier"},

		// f-strings.
		{`f"{x!}"`, 1, 6, "f-string: missing conversion character"},
		{`f"{x!z}"`, 1, 6, "f-string: invalid conversion character"},
		{`f"{x! r}"`, 1, 7, "f-string: conversion type must come right after the exclamation mark"},
		{`f"{}"`, 1, 4, "f-string: valid expression required before '}'"},
		{`f"}"`, 1, 3, "f-string: single '}' is not allowed"},
		{`f"{"`, 1, 4, "f-string: expecting '}'"},
		{`f"{x"`, 1, 5, "f-string: expecting '}'"},
		{`f"{x:{y:{z:{w}}}}"`, 1, 12, "f-string: expressions nested too deeply"},
		{`f"{lambda: 1}"`, 1, 11, "invalid syntax"},
		{`f"{)}"`, 1, 4, "f-string: unmatched ')'"},
		{"f\"{x:\n}\"", 1, 6, "newlines are not allowed in format specifiers"},
		{"f\"abc\n\"", 1, 1, "unterminated f-string literal"},

		// Match patterns.
		{"match x:\n    case 1 + 2: pass", 2, 14, "imaginary number required in complex literal"},
		{"match x:\n    case 1j + 2j: pass", 2, 10, "real number required in complex literal"},
		{"match x:\n    case a as _: pass", 2, 15, "cannot use '_' as a target"},
		{"match x:\n    case C(a=1, 2): pass", 2, 17, "positional patterns follow keyword patterns"},
		{"match x:\n    case {a: 1}: pass", 2, 12, "invalid syntax"},
		{"match x:\n    case *a: pass", 2, 12, "invalid syntax"},

		// Other expressions.
		{"x = 1 if 2", 1, 11, "expected 'else'"},
		{"a[]", 1, 3, "invalid syntax"},
		{"a[x:=1:2]", 1, 7, "invalid syntax"},
		{"{x := 1: 2}", 1, 8, "invalid syntax"},
		{"(*a)", 1, 2, "cannot use starred expression here"},
		{"[*a for a in b]", 1, 2, "iterable unpacking cannot be used in comprehension"},
		{"[x for x in y if a := 1]", 1, 20, "invalid syntax"},
		{"import a.b as c.d", 1, 16, "invalid syntax"},
		{"from x import a,", 1, 17, "trailing comma not allowed without surrounding parentheses"},
		{"from x import", 1, 14, "invalid syntax"},
		{"type X[] = int", 1, 8, "invalid syntax"},
		{"def f[*Ts: int](): pass", 1, 10, "cannot use bound with TypeVarTuple"},

		// Limits.
		{strings.Repeat("(", 201) + strings.Repeat(")", 201), 1, 201, "too many nested parentheses"},
		{nestedIfs(100), 101, 101, "too many levels of indentation"},
		{strings.Repeat("-", 5000) + "1", 1, 3001, "too many nested expressions"},
		{strings.Repeat(`f"{`, 150) + "x" + strings.Repeat(`}"`, 150), 1, 448, "too many nested f-strings"},
	} {
		_, err := Parse("t.py", []byte(tc.src))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, want a *SyntaxError", tc.src, err)
			continue
		}
		if se.Line != tc.line || se.Col != tc.col || !strings.Contains(se.Msg, tc.msg) || se.Filename != "t.py" {
			t.Errorf("Parse(%.60q):\n got %d:%d %q (%s)\nwant %d:%d %q", tc.src, se.Line, se.Col, se.Msg, se.Filename, tc.line, tc.col, tc.msg)
		}
	}
}

// nestedIfs is n if statements, each in the one before.
func nestedIfs(n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		sb.WriteString(strings.Repeat(" ", i) + "if x:\n")
	}
	sb.WriteString(strings.Repeat(" ", n) + "pass\n")
	return sb.String()
}

// TestLimitsAccepted checks that the limits are not lower than CPython's:
// what CPython accepts at its limits pyast accepts.
func TestLimitsAccepted(t *testing.T) {
	for name, src := range map[string]string{
		"200 brackets":   strings.Repeat("(", 200) + strings.Repeat(")", 200),
		"99 blocks":      nestedIfs(99),
		"2000 unary":     strings.Repeat("-", 2000) + "1",
		"1000 not":       strings.Repeat("not ", 1000) + "1",
		"1000 ternaries": strings.Repeat("1 if 1 else ", 1000) + "1",
		"1000 lambdas":   strings.Repeat("lambda: ", 1000) + "1",
		"3 fields":       `f"{x:{y:{z}}}"`,
		"149 f-strings":  strings.Repeat(`f"{`, 149) + "x" + strings.Repeat(`}"`, 149),
	} {
		if _, err := Parse("t.py", []byte(src)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestKeyword checks the keyword switch against the table of keywords.
func TestKeyword(t *testing.T) {
	for s, k := range keywords {
		if got := keyword(s); got != k {
			t.Errorf("keyword(%q) = %v, want %v", s, got, k)
		}
	}
	for _, s := range []string{"match", "case", "type", "_", "print", "exec", "Nonee", "none", "A", "yields", "z"} {
		if got := keyword(s); got != tName {
			t.Errorf("keyword(%q) = %v, want a name", s, got)
		}
	}
}
