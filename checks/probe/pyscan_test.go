package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// summary renders a scope as one line per binding: name kind[@start-end] {cond}
// plus details, sorted, so a scan reads as a specification.
func summary(sc *pyScope, prefix string) []string {
	var out []string
	kinds := map[bindKind]string{bDef: "def", bClass: "class", bAssign: "assign", bAnnotated: "annotated", bImport: "import", bFrom: "from", bOther: "other"}
	for name, bs := range sc.names {
		for _, b := range bs {
			s := fmt.Sprintf("%s%s %s@%d-%d", prefix, name, kinds[b.kind], b.start, b.end)
			if b.cond != "" {
				s += " {" + b.cond + "}"
			}
			switch b.kind {
			case bDef:
				s += fmt.Sprintf(" (%s)", squashSpaces(b.params))
				if b.returns != "" {
					s += " -> " + b.returns
				}
				if len(b.decorators) > 0 {
					s += " @" + strings.Join(b.decorators, " @")
				}
				if b.generator {
					s += " gen"
				}
			case bClass:
				s += " (" + b.bases + ")"
				if len(b.decorators) > 0 {
					s += " @" + strings.Join(b.decorators, " @")
				}
				out = append(out, summary(b.body, prefix+name+".")...)
			case bAssign:
				s += " = " + squashSpaces(b.value)
			case bImport:
				s += " " + b.module
			case bFrom:
				s += " " + b.module + ":" + b.attr
			}
			out = append(out, s)
		}
	}
	for obj, attrs := range sc.attrSets {
		for attr, bs := range attrs {
			out = append(out, fmt.Sprintf("%s%s.%s set@%d = %s", prefix, obj, attr, bs[0].line, bs[0].value))
		}
	}
	for name, line := range sc.deleted {
		out = append(out, fmt.Sprintf("%sdel %s@%d", prefix, name, line))
	}
	for _, d := range sc.dynamic {
		out = append(out, prefix+"dynamic: "+d)
	}
	for _, b := range sc.stars {
		s := fmt.Sprintf("%sstar@%d %s", prefix, b.line, b.module)
		if b.cond != "" {
			s += " {" + b.cond + "}"
		}
		out = append(out, s)
	}
	for _, b := range sc.allOps {
		out = append(out, fmt.Sprintf("%s__all__ %s@%d %s", prefix, b.attr, b.line, b.value))
	}
	for attr, lines := range sc.selfAttrs {
		out = append(out, fmt.Sprintf("%sself.%s@%v", prefix, attr, lines))
	}
	if sc.typeOnly != nil && sc.typeOnly != sc {
		for _, l := range summary(sc.typeOnly, prefix) {
			out = append(out, "TYPE_CHECKING "+l)
		}
	}
	sort.Strings(out)
	return out
}

func TestScanPython(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"numba bytecode", bytecodeGood, nil}, // golden below
		{"strings hide code", `A = """
def fake():
    class X: pass
"""
B = 'it''s' "a \"quoted\" # not a comment"
C = f"{x["a"]:>{width}} {'}'} {{literal}}"
D = rb'\'' + b"""'''"""
def real(): return 1
`, []string{
			`A assign@1-4 = """ def fake(): class X: pass """`,
			`B assign@5-5 = 'it''s' "a \"quoted\" # not a comment"`,
			`C assign@6-6 = f"{x["a"]:>{width}} {'}'} {{literal}}"`,
			`D assign@7-7 = rb'\'' + b"""'''"""`,
			`real def@8-8 ()`,
		}},
		{"continuations and inline bodies", "x = (1,\n     2)  # c\ny = 1 + \\\n    2\nclass A: a = 1; b = 2\nif x: z = 1\nw = 3; v: int = 4; u: str\n",
			[]string{
				"A class@5-5 ()", "A.a assign@5-5 = 1", "A.b assign@5-5 = 2",
				"u annotated@7-7", "v assign@7-7 = 4", "w assign@7-7 = 3",
				"x assign@1-2 = (1, 2)", "y assign@3-4 = 1 + 2", "z assign@6-6 {inside if at line 6} = 1",
			}},
		{"if TYPE_CHECKING never runs, its else always does", `from typing import TYPE_CHECKING
import typing as t
from typing_extensions import TYPE_CHECKING as TC
if TYPE_CHECKING:
    from x import A
    if y:
        B = 1
else:
    A = None
if t.TYPE_CHECKING: C = 1
elif z:
    D = 1
else:
    D = 2
if TC:
    class E:
        e = 1
if x:
    F = 1
elif TC:
    F = 2
else:
    F = 3
class K:
    if TYPE_CHECKING:
        k: int = 0
    else:
        k = 1
if not TYPE_CHECKING:
    G = 1
for TC in y:
    pass
if TC:
    H = 1
`, []string{
			"TYPE_CHECKING from@1-1 typing:TYPE_CHECKING", "t import@2-2 typing", "TC from@3-3 typing_extensions:TYPE_CHECKING",
			"TYPE_CHECKING A from@5-5 {under if TYPE_CHECKING at line 4} x:A",
			"TYPE_CHECKING B assign@7-7 {under if TYPE_CHECKING at line 4} = 1",
			"A assign@9-9 = None",
			"TYPE_CHECKING C assign@10-10 {under if TYPE_CHECKING at line 10} = 1",
			"D assign@12-12 {inside elif at line 11} = 1", "D assign@14-14 {inside else at line 13} = 2",
			"TYPE_CHECKING E class@16-17 {under if TYPE_CHECKING at line 15} ()", "TYPE_CHECKING E.e assign@17-17 = 1",
			"F assign@19-19 {inside if at line 18} = 1", "TYPE_CHECKING F assign@21-21 {under elif TYPE_CHECKING at line 20} = 2",
			"F assign@23-23 {inside else at line 22} = 3",
			"K class@24-28 ()", "TYPE_CHECKING K.k assign@26-26 {under if TYPE_CHECKING at line 25} = 0", "K.k assign@28-28 = 1",
			"G assign@30-30 {inside if at line 29} = 1",
			"TC other@31-31 {inside for at line 31}", "H assign@34-34 {inside if at line 33} = 1",
		}},
		{"conditionals", "try:\n    import a.b\nexcept ImportError:\n    a = None\nelse:\n    pass\nfinally:\n    f = 1\nwith open(p) as fh:\n    g = 2\nfor i, (j, k) in x:\n    pass\nwhile False:\n    h = 1\nmatch cmd:\n    case 1:\n        m = 1\nmatch = 5\n",
			[]string{
				"a assign@4-4 {inside except at line 3} = None", "a import@2-2 {inside try at line 1} a",
				"f assign@8-8 = 1", "fh other@9-9", "g assign@10-10 = 2",
				"h assign@14-14 {inside while at line 13} = 1",
				"i other@11-11 {inside for at line 11}", "j other@11-11 {inside for at line 11}", "k other@11-11 {inside for at line 11}",
				"m assign@17-17 {inside match at line 15} = 1", "match assign@18-18 = 5",
			}},
		{"decorators, classes, generators", "@a.b(c,\n     d)\n@property\ndef p(self): ...\n\nclass K[T](Base, metaclass=M):\n    '''doc'''\n    @classmethod\n    async def m(cls, x: int = 1, *a, **k) -> 'K':\n        async for y in z:\n            yield y\n    def outer(self):\n        def inner():\n            yield 1\n        return inner\n\n    # trailing comment\n\nK.extra = 5\n",
			[]string{
				"K class@6-15 (Base, metaclass=M)", "K.extra set@19 = 5",
				"K.m def@8-11 (cls, x: int = 1, *a, **k) -> 'K' @classmethod gen",
				"K.outer def@12-15 (self)",
				"p def@1-4 (self) @a.b(c, d) @property",
			}},
		{"imports", "import os, os.path as osp\nfrom . import x, y as z\nfrom ..pkg.mod import (\n    A,\n    B as C,\n)\nfrom __future__ import annotations\nfrom m import *\n",
			[]string{
				"A from@3-6 ..pkg.mod:A", "C from@3-6 ..pkg.mod:B", "star@8 m",
				"os import@1-1 os", "osp import@1-1 os.path", "x from@2-2 .:x", "z from@2-2 .:y",
			}},
		{"run-time names", "globals()['X'] = 1\nsetattr(C, 'y', 2)\ndef __getattr__(name):\n    global G\n    G = 1\ndel Z\n(n := 10)\ntype Point = tuple[int, int]\nf = lambda x=1: x\na, *b = c = 1, 2\nx += 1\nsys.modules[__name__] = M\n",
			[]string{
				"Point other@8-8", "__getattr__ def@3-5 (name)", "a other@10-10", "b other@10-10",
				"c assign@10-10 = 1, 2", "del Z@6",
				"dynamic: names set at run time (line 12: sys.modules[__name__] = M)",
				"dynamic: names set at run time (line 1: globals()['X'] = 1)",
				"dynamic: names set at run time (line 2: setattr(C, 'y', 2))",
				"f assign@9-9 = lambda x=1: x", "n other@7-7",
			}},
		{"__all__ and self attributes", "__all__ = ['a']\n__all__ += ['b']\n__all__.extend(['c'])\n__all__.append('d')\n__all__.remove('a')\n__all__[0] = 'x'\n__all__ += [n for n in globals()]\n" +
			"try:\n    from .x import *\nexcept ImportError:\n    pass\n" +
			"class C:\n    def __init__(me, a, /):\n        me.a = a; me.b, (me.c, *me.d) = 1, (2, 3)\n        me.e: int = 1\n        me.f: int\n        me.g += 1\n        me.h <<= 1\n        if me.i == 1: me.j = 2\n        x = me.k = 3\n        other.l = 1\n        me.m.n = 1\n        def inner(self):\n            self.o = 1\n    @staticmethod\n    def s(me):\n        me.p = 1\n    @classmethod\n    def c(cls):\n        cls.q = 1\n    def lam(self): f = lambda: setattr(self, 'r', 1); self.s = lambda x=1: x\n",
			[]string{
				"__all__ assign@1-1 = ['a']", "__all__ +=@2 ['b']", "__all__ extend@3 ['c']", "__all__ append@4 'd'",
				"__all__ remove@5 'a'", "__all__ other@6 ", "__all__ +=@7 [n for n in globals()]",
				"star@9 .x {inside try at line 8}",
				"C class@12-31 ()", "C.__init__ def@13-24 (me, a, /)", "C.s def@25-27 (me) @staticmethod", "C.c def@28-30 (cls) @classmethod",
				"C.lam def@31-31 (self)",
				"C.self.a@[14]", "C.self.b@[14]", "C.self.c@[14]", "C.self.d@[14]", "C.self.e@[15]", "C.self.g@[17]",
				"C.self.h@[18]", "C.self.j@[19]", "C.self.k@[20]", "C.self.s@[31]",
			}},
		{"tabs and CRLF", "class A:\r\n\tx = 1\r\n\tdef f(self):\r\n\t\treturn 1\r\ny = 2\r\n",
			[]string{"A class@1-4 ()", "A.f def@3-4 (self)", "A.x assign@2-2 = 1", "y assign@5-5 = 2"}},
	}
	for _, tt := range tests {
		f, err := scanPython(tt.src)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := summary(f.top, "")
		if tt.want == nil {
			checkGolden(t, filepath.Join("testdata", "scan_bytecode.golden"), strings.Join(got, "\n")+"\n")
			continue
		}
		sort.Strings(tt.want)
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s:\n got:\n\t%s\nwant:\n\t%s", tt.name, strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
		}
	}
	if f, _ := scanPython("def __getattr__(name):\n    global G\n"); f.globals["G"] != 2 {
		t.Errorf("globals = %v", f.globals)
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("differs from %s (check, then go test -update):\n%s", path, got)
	}
}

func TestScanBroken(t *testing.T) {
	for src, want := range map[string]string{
		"x = '''never closed\n":  "unterminated string starting at line 1",
		"x = 'no end\ny = 2\n":   "unterminated string starting at line 1",
		"x = (1,\n":              "unclosed bracket in the statement at line 1",
		"f'{x' + 1\n":            "unterminated string",
		"def f(:\n  pass\nz=1\n": "unclosed bracket in the statement at line 1",
	} {
		f, err := scanPython(src)
		if err != nil {
			t.Fatal(err)
		}
		if f.broken != want && !(want != "" && strings.HasPrefix(f.broken, want)) {
			t.Errorf("%q: broken = %q, want %q", src, f.broken, want)
		}
	}
}

func TestSourceOfDef(t *testing.T) {
	f, _ := scanPython(bytecodeGood)
	b := f.top.names["FunctionIdentity"][0].body.names["from_function"][0]
	src := f.source(b.start, b.end)
	if !strings.HasPrefix(src, "    @classmethod\n    def from_function(cls, pyfunc):") || !strings.HasSuffix(src, "        return self") {
		t.Errorf("source:\n%s", src)
	}
}
