package pyast

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func mustParse(t testing.TB, src string) *Module {
	t.Helper()
	mod, err := Parse("t.py", []byte(src))
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return mod
}

// find returns the first node of type T that Inspect meets.
func find[T Node](n Node) T {
	var found T
	done := false
	Inspect(n, func(x Node) bool {
		if v, ok := x.(T); ok && !done {
			found, done = v, true
		}
		return !done
	})
	return found
}

func at(mod *Module, p Pos) string {
	pos := mod.File.Position(p)
	return fmt.Sprintf("%d:%d", pos.Line, pos.Column)
}

// TestPositions checks the positions the usage finder reports: names,
// attribute names, definitions, imports, calls and their arguments.
func TestPositions(t *testing.T) {
	src := "import numba.core.bytecode as bc\n" +
		"from numba.core.bytecode import FunctionIdentity\n" +
		"bc.FunctionIdentity._unique_ids = _RandomUidIter()\n" +
		"@decorator\n" +
		"async def f(a, *, b=1):\n" +
		"    ctx._get_live_operation_count(x, key=2)\n"
	mod := mustParse(t, src)
	imp := mod.Body[1].(*ImportFrom)
	if got := at(mod, imp.ModulePos); got != "2:6" || imp.Module != "numba.core.bytecode" {
		t.Errorf("ImportFrom module %q at %s, want numba.core.bytecode at 2:6", imp.Module, got)
	}
	if a := imp.Names[0]; at(mod, a.Pos()) != "2:33" || at(mod, a.End()) != "2:49" {
		t.Errorf("alias at %s-%s, want 2:33-2:49", at(mod, a.Pos()), at(mod, a.End()))
	}
	assign := mod.Body[2].(*Assign)
	attr := assign.Targets[0].(*Attribute)
	if attr.Attr != "_unique_ids" || at(mod, attr.AttrPos) != "3:21" || at(mod, attr.Pos()) != "3:1" || attr.Ctx != Store {
		t.Errorf("Attribute %q at %s, name at %s, ctx %s; want _unique_ids at 3:1, name at 3:21, Store",
			attr.Attr, at(mod, attr.Pos()), at(mod, attr.AttrPos), attr.Ctx)
	}
	inner := attr.Value.(*Attribute)
	if inner.Attr != "FunctionIdentity" || at(mod, inner.AttrPos) != "3:4" || at(mod, inner.End()) != "3:20" {
		t.Errorf("inner Attribute %q name at %s, end %s; want FunctionIdentity at 3:4, end 3:20", inner.Attr, at(mod, inner.AttrPos), at(mod, inner.End()))
	}
	if n := inner.Value.(*Name); n.Id != "bc" || at(mod, n.Pos()) != "3:1" || at(mod, n.End()) != "3:3" {
		t.Errorf("Name %q at %s-%s, want bc at 3:1-3:3", n.Id, at(mod, n.Pos()), at(mod, n.End()))
	}
	fn := mod.Body[3].(*FunctionDef)
	if at(mod, fn.Pos()) != "4:1" || at(mod, fn.DefPos) != "5:1" || at(mod, fn.NamePos) != "5:11" || !fn.IsAsync {
		t.Errorf("FunctionDef at %s, def at %s, name at %s; want 4:1 (the decorator), 5:1, 5:11", at(mod, fn.Pos()), at(mod, fn.DefPos), at(mod, fn.NamePos))
	}
	if at(mod, fn.Args.Pos()) != "5:13" || at(mod, fn.Args.End()) != "5:22" {
		t.Errorf("Arguments at %s-%s, want 5:13-5:22", at(mod, fn.Args.Pos()), at(mod, fn.Args.End()))
	}
	call := find[*Call](fn)
	if m := call.Func.(*Attribute); at(mod, m.AttrPos) != "6:9" {
		t.Errorf("method name at %s, want 6:9", at(mod, m.AttrPos))
	}
	if len(call.Args) != 1 || len(call.Keywords) != 1 || call.Keywords[0].Arg != "key" || at(mod, call.Keywords[0].Pos()) != "6:38" {
		t.Errorf("call args %d keywords %v", len(call.Args), call.Keywords)
	}
	if at(mod, call.End()) != "6:44" || at(mod, fn.End()) != "6:44" {
		t.Errorf("call ends at %s, def at %s; want 6:44", at(mod, call.End()), at(mod, fn.End()))
	}
}

// TestFilePosition checks line and column for each kind of line break and
// with a byte-order mark, which counts as bytes of line 1 (as go/token
// counts bytes).
func TestFilePosition(t *testing.T) {
	for _, tc := range []struct {
		src  string
		off  Pos
		want string
	}{
		{"a\nb", 2, "t.py:2:1"},
		{"a\r\nb", 3, "t.py:2:1"},
		{"a\rb", 2, "t.py:2:1"},
		{"a\r\rb", 3, "t.py:3:1"},
		{"\xef\xbb\xbfab", 4, "t.py:1:5"},
		{"é = 1", 3, "t.py:1:4"},
		{"a\n", 2, "t.py:2:1"},
		{"ab", 99, "t.py:1:3"},
	} {
		mod := mustParse(t, tc.src)
		if got := mod.File.Position(tc.off).String(); got != tc.want {
			t.Errorf("%q: Position(%d) = %s, want %s", tc.src, tc.off, got, tc.want)
		}
	}
	mod := mustParse(t, "x = 1\r\ny = 2\rz = 3\n")
	if mod.File.LineCount() != 4 || mod.File.LineStart(2) != 7 || mod.File.LineStart(3) != 13 || mod.File.Name() != "t.py" {
		t.Errorf("LineCount %d, LineStart(2) %d, LineStart(3) %d", mod.File.LineCount(), mod.File.LineStart(2), mod.File.LineStart(3))
	}
	if z := mod.Body[2].(*Assign).Targets[0]; at(mod, z.Pos()) != "3:1" {
		t.Errorf("z at %s, want 3:1", at(mod, z.Pos()))
	}
}

// TestStrings checks decoded values and the parts of string literals, which
// the setup.py reader rewrites in place.
func TestStrings(t *testing.T) {
	for _, tc := range []struct {
		src, value string
		kind       ConstKind
	}{
		{`"plain"`, "plain", ConstStr},
		{`'single' "double"`, "singledouble", ConstStr},
		{`"\n\t\\\'\"\a\b\f\v\r"`, "\n\t\\'\"\a\b\f\v\r", ConstStr},
		{`"\101\0\777\x41\u00e9\U0001F600"`, "A\x00\u01ffA\u00e9\U0001F600", ConstStr},
		{`"\N{LATIN SMALL LETTER A}\N{latin small letter b}\N{LF}\N{CJK UNIFIED IDEOGRAPH-4E00}\N{HANGUL SYLLABLE GAG}\N{BOM}"`,
			"ab\n\u4e00\uac01\ufeff", ConstStr},
		{`"\ud800"`, "\xed\xa0\x80", ConstStr},
		{`"\q\d"`, `\q\d`, ConstStr},
		{"\"a\\\nb\"", "ab", ConstStr},
		{"'''a\r\nb\rc'''", "a\nb\nc", ConstStr},
		{`r"\d\n\""`, `\d\n\"`, ConstStr},
		{"r'''a\r\n\\\r\nb'''", "a\n\\\nb", ConstStr},
		{`u"x"`, "x", ConstStr},
		{`b"\x00\xff\777"`, "\x00\xff\xff", ConstBytes},
		{`b"\u00e9\N{X}"`, `\u00e9\N{X}`, ConstBytes},
		{`rb"\x00" b'a'`, `\x00a`, ConstBytes},
		{"\"\xff\xfe invalid UTF-8\"", "\xff\xfe invalid UTF-8", ConstStr},
	} {
		mod := mustParse(t, tc.src)
		c := mod.Body[0].(*ExprStmt).Value.(*Constant)
		if c.Value != tc.value || c.Kind != tc.kind {
			t.Errorf("%s: value %q kind %d, want %q kind %d", tc.src, c.Value, c.Kind, tc.value, tc.kind)
		}
	}

	src := "x = 'a' r\"b\\d\" '''c\nd''' \"e\\n\""
	mod := mustParse(t, src)
	c := mod.Body[0].(*Assign).Value.(*Constant)
	type part struct {
		text, body, prefix, quote string
		escapes, multiline        bool
	}
	var got []part
	for _, p := range c.Parts {
		got = append(got, part{src[p.Pos:p.End], src[p.BodyPos:p.BodyEnd], p.Prefix, p.Quote, p.Escapes, p.Multiline})
	}
	want := []part{
		{`'a'`, "a", "", "'", false, false},
		{`r"b\d"`, `b\d`, "r", `"`, true, false},
		{"'''c\nd'''", "c\nd", "", "'''", false, true},
		{`"e\n"`, `e\n`, "", `"`, true, false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parts of %q:\n got %+v\nwant %+v", src, got, want)
	}

	js := mustParse(t, `f"a{x}" "b"`).Body[0].(*ExprStmt).Value.(*JoinedStr)
	if len(js.Parts) != 2 || js.Parts[0].Prefix != "f" || js.Parts[0].BodyPos != 2 || js.Parts[0].BodyEnd != 6 || js.Parts[1].Pos != 8 {
		t.Errorf("f-string parts %+v", js.Parts)
	}
}

// TestRewriteBody is what the setup.py reader does: replace the body of a
// simple literal in place and read the new value back.
func TestRewriteBody(t *testing.T) {
	src := "setup(\n    install_requires=['numba>=0.59,<0.61', \"numpy\"],\n)\n"
	mod := mustParse(t, src)
	var c *Constant
	Inspect(mod, func(n Node) bool {
		if k, ok := n.(*Constant); ok && k.Kind == ConstStr && strings.HasPrefix(k.Value, "numba") {
			c = k
		}
		return true
	})
	p := c.Parts[0]
	if len(c.Parts) != 1 || p.Escapes || p.Multiline || strings.ContainsAny(p.Prefix, "rRbBfF") {
		t.Fatalf("not a simple literal: %+v", c.Parts)
	}
	edited := src[:p.BodyPos] + "numba>=0.59,<0.62" + src[p.BodyEnd:]
	if !strings.Contains(edited, "['numba>=0.59,<0.62', \"numpy\"]") {
		t.Fatalf("edited source %q", edited)
	}
	again := find[*List](mustParse(t, edited))
	if v := again.Elts[0].(*Constant).Value; v != "numba>=0.59,<0.62" {
		t.Errorf("rewritten value %q", v)
	}
}

// TestComments checks that comments are kept with their positions,
// including those inside brackets and f-string fields.
func TestComments(t *testing.T) {
	src := "x = 1  # one\n# two\ny = [\n  1,  # pinbot: ignore\n]\nz = f\"{a # in a field\n}\"\n"
	mod := mustParse(t, src)
	var got []string
	for _, c := range mod.Comments {
		got = append(got, fmt.Sprintf("%s %s", at(mod, c.Pos()), c.Text))
		if src[c.Pos():c.End()] != c.Text {
			t.Errorf("comment %q does not span %q", c.Text, src[c.Pos():c.End()])
		}
	}
	want := []string{"1:8 # one", "2:1 # two", "4:7 # pinbot: ignore", "6:10 # in a field"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("comments\n got %q\nwant %q", got, want)
	}
}

// TestInspect checks the order of the walk: source order, f(nil) after
// the children, and children skipped when f returns false.
func TestInspect(t *testing.T) {
	mod := mustParse(t, "@d\ndef f(a=1, *, b=2) -> r:\n    g(x, k=y, *z)\n    return a if c else b\n")
	var got []string
	Inspect(mod, func(n Node) bool {
		switch n := n.(type) {
		case nil:
			got = append(got, ")")
		case *Name:
			got = append(got, n.Id)
		case *Constant:
			got = append(got, n.Value)
		case *Call:
			got = append(got, "call")
			return false
		default:
			got = append(got, strings.TrimPrefix(fmt.Sprintf("%T", n), "*pyast."))
		}
		return true
	})
	want := "Module FunctionDef d ) Arguments Arg ) 1 ) Arg ) 2 ) ) r ) ExprStmt call ) Return IfExp a ) c ) b ) ) ) ) )"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("Inspect order\n got %s\nwant %s", s, want)
	}
	var none *Module
	Inspect(none, func(Node) bool { t.Error("Inspect visited a nil Module"); return true })
	call := find[*Call](mod)
	var kinds []string
	for _, k := range Children(call) {
		kinds = append(kinds, fmt.Sprintf("%T", k))
	}
	if s := strings.Join(kinds, " "); s != "*pyast.Name *pyast.Name *pyast.Keyword *pyast.Starred" {
		t.Errorf("Children(call) = %s, want the arguments as written", s)
	}
}

// checkSpans verifies that every node's span lies within the source and
// within its parent's, and that siblings come in source order (a
// replacement field's {x=} text excepted, which starts after the brace the
// field starts at, as in CPython).
func checkSpans(mod *Module, size int) error {
	var err error
	var stack []Node
	Inspect(mod, func(n Node) bool {
		if err != nil {
			return false
		}
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if n.Pos() < 0 || n.End() > Pos(size) || n.Pos() > n.End() {
			err = fmt.Errorf("%T [%d,%d) outside the source [0,%d)", n, n.Pos(), n.End(), size)
			return false
		}
		if len(stack) > 0 {
			if p := stack[len(stack)-1]; n.Pos() < p.Pos() || n.End() > p.End() {
				err = fmt.Errorf("%T [%d,%d) outside its parent %T [%d,%d)", n, n.Pos(), n.End(), p, p.Pos(), p.End())
				return false
			}
		}
		if _, js := n.(*JoinedStr); !js {
			kids := Children(n)
			for i := 1; i < len(kids); i++ {
				if kids[i].Pos() < kids[i-1].Pos() {
					err = fmt.Errorf("children of %T out of order: %T at %d after %T at %d", n, kids[i], kids[i].Pos(), kids[i-1], kids[i-1].Pos())
					return false
				}
			}
		}
		stack = append(stack, n)
		return true
	})
	return err
}

// TestSpans checks the span invariants on the hand-written syntax files.
func TestSpans(t *testing.T) {
	files, _ := filepath.Glob("testdata/syntax/*.py")
	if len(files) == 0 {
		t.Fatal("no testdata/syntax files")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		mod, err := Parse(f, src)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkSpans(mod, len(src)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestConcurrentParse parses in several goroutines at once, as the usage
// finder does (run with -race): Parse shares no state but the table of
// Unicode names, built once.
func TestConcurrentParse(t *testing.T) {
	files, _ := filepath.Glob("testdata/syntax/*.py")
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			for _, f := range files {
				src, err := os.ReadFile(f)
				if err == nil {
					_, err = Parse(f, src)
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
