package pyast

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzSeeds are tricky inputs for FuzzParse, besides testdata/syntax and
// testdata/fuzz/FuzzParse.
var fuzzSeeds = []string{
	"", "\n", "\\\r\n", "\\", "\xef\xbb\xbf", "x\x00", "\r", "\x0c\n", "\t\n    x",
	`f"{f"{f"{x}"}"}"`, `f"{x:{y:{z}}}"`, `f"{x=!r:^{w}}"`, "f'''{\n x # c\n}'''", `rf"\{x}\N{BULLET}"`,
	`f"{'\n'}"`, `f"{x!r=}"`, `f"{{}}"`, `f"\{"`, `f"{)}"`, "f\"{\\\n}\"",
	"match x:\n case [1, *_, {'k': v, **r}] | C(a, b=2) as z if z: pass\n",
	"match = case = type = _ = 1\nmatch(x)\ntype X[T: int = str] = list[T]\n",
	"with (a as b, c):\n pass\nwith (a, b) as c: pass\n",
	"def f(a, /, b=1, *c: *Ts, d, e=2, **f) -> g: ...\n",
	"lambda *, a: (yield)\n[x async for x in y if (z := x)]\n",
	"try: pass\nexcept* E as e: raise F from e\nfinally: pass\n",
	"@a\n@b.c(d)\nclass E[T](F, metaclass=G): pass\n",
	"x = 0x_1f + 0o17 + 0b1 + 1_0.5e-1_0j + 1if x else 2\n",
	"\"\\N{LATIN SMALL LETTER A}\\U0001F600\\ud800\\777\" b'\\xff'\n",
	"if x:\n\tif y:\n        pass\n", "if x:\n  a\n b\n", "  x", "(((((",
	"print 'x'\n", "except X, e:", "`x`", "0777", "1__0", "\"\"\"unterminated",
}

// FuzzParse checks that Parse never panics or runs away on any input, and
// that what it accepts is a tree whose spans nest within the source and
// whose names sit where their text is.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("testdata/syntax/*.py")
	for _, path := range files {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		mod, steps, err := parse("f.py", src)
		if n := len(scanAll(string(src))); steps > 2*n+10 {
			t.Fatalf("%d parser steps for %d tokens", steps, n)
		}
		if err != nil {
			se, ok := err.(*SyntaxError)
			if !ok {
				t.Fatalf("error %T %v, want *SyntaxError", err, err)
			}
			if strings.HasPrefix(se.Msg, "internal error") {
				t.Fatalf("%v", err)
			}
			lines := strings.Count(string(src), "\n") + strings.Count(string(src), "\r") + 1
			if se.Line < 1 || se.Line > lines || se.Col < 1 || se.Col > len(src)+1 {
				t.Fatalf("error at %d:%d outside the source: %v", se.Line, se.Col, err)
			}
			return
		}
		if err := checkSpans(mod, len(src)); err != nil {
			t.Fatal(err)
		}
		Inspect(mod, func(n Node) bool {
			switch n := n.(type) {
			case *Name:
				if string(src[n.Pos():n.End()]) != n.Id {
					t.Fatalf("Name %q spans %q", n.Id, src[n.Pos():n.End()])
				}
			case *Attribute:
				if end := int(n.AttrPos) + len(n.Attr); end > len(src) || string(src[n.AttrPos:end]) != n.Attr {
					t.Fatalf("Attribute name %q not at %d", n.Attr, n.AttrPos)
				}
			case *Constant:
				for _, p := range n.Parts {
					if p.Pos > p.BodyPos || p.BodyPos > p.BodyEnd || p.BodyEnd > p.End || p.Pos < n.Pos() || p.End > n.End() {
						t.Fatalf("string part %+v outside its constant [%d,%d)", p, n.Pos(), n.End())
					}
				}
			}
			return true
		})
	})
}
