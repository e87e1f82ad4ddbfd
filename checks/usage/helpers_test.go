package usage_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
	"unicode/utf8"

	"github.com/pinbot-dev/pinbot/checks/usage"
)

// find runs Find over files (path -> source) watching pkgs (default numba).
func find(t testing.TB, files map[string]string, pkgs ...string) *usage.Result {
	t.Helper()
	fsys := fstest.MapFS{}
	for p, s := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(s)}
	}
	if len(pkgs) == 0 {
		pkgs = []string{"numba"}
	}
	var ps []usage.Package
	for _, p := range pkgs {
		ps = append(ps, usage.Package{Name: p})
	}
	res, err := usage.Find(context.Background(), fsys, usage.Options{Packages: ps})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// show renders a reference compactly: "3:5 call numba.njit (numba) [p g] (1 k=cache)".
func show(r usage.Ref) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d:%d %s %s", r.Line, r.Col, r.Kind, r.Name)
	if r.Module != "" && r.Module != r.Name {
		fmt.Fprintf(&b, " <%s>", r.Module)
	} else if r.Module == "" {
		b.WriteString(" <>")
	}
	if r.Private {
		b.WriteString(" private")
	}
	if r.Guarded {
		b.WriteString(" guarded")
	}
	if c := r.Call; c != nil {
		fmt.Fprintf(&b, " (%d", c.Positional)
		for _, k := range c.Keywords {
			fmt.Fprintf(&b, " %s=", k)
		}
		if c.Star {
			b.WriteString(" *")
		}
		if c.DoubleStar {
			b.WriteString(" **")
		}
		if c.Bound {
			b.WriteString(" bound")
		}
		b.WriteString(")")
	}
	return b.String()
}

// refsOf returns the references of one file's source, shown.
func refsOf(t testing.TB, src string, pkgs ...string) []string {
	t.Helper()
	res := find(t, map[string]string{"m.py": src}, pkgs...)
	for _, w := range res.Warnings {
		t.Errorf("warning: %v", w)
	}
	var out []string
	for _, r := range res.Refs {
		if err := checkPosition([]byte(src), r); err != nil {
			t.Error(err)
		}
		out = append(out, show(r))
	}
	return out
}

// checkPosition says what is wrong with where r points in src: the place
// must be in the file and hold the name's last segment as written, or,
// for a call of a name bound by an import's "as", that name, or the string
// literal that names it.
func checkPosition(src []byte, r usage.Ref) error {
	lines := pyLines(src)
	if r.Line < 1 || r.Line > len(lines) || r.Col < 1 || r.Col > len(lines[r.Line-1]) {
		return fmt.Errorf("%v: outside the file", r)
	}
	at := lines[r.Line-1][r.Col-1:]
	last := r.Name[strings.LastIndexByte(r.Name, '.')+1:]
	ident := identAt(at)
	switch {
	case ident == last:
		return nil
	case ident != "" && (r.Kind == usage.Call || r.Kind == usage.Base):
		return nil // a name bound to it: j = numba.njit; j(f), or class C(Alias)
	case len(at) > 0 && (at[0] == '"' || at[0] == '\'' || strings.ContainsRune("rRbBuUfF", rune(at[0])) && ident != "" && len(at) > len(ident) && (at[len(ident)] == '"' || at[len(ident)] == '\'')):
		return nil // a string literal whose text cannot be pointed into
	}
	return fmt.Errorf("%v: the text there is %q, not %s", r, string(at[:min(len(at), 20)]), last)
}

// pyLines splits src into lines as Python reads them: each ends at \n,
// \r\n or a lone \r, which it keeps.
func pyLines(src []byte) [][]byte {
	var lines [][]byte
	start := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\n':
			lines = append(lines, src[start:i+1])
			start = i + 1
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			lines = append(lines, src[start:i+1])
			start = i + 1
		}
	}
	return append(lines, src[start:])
}

// identAt returns the identifier b starts with.
func identAt(b []byte) string {
	i := 0
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if r == '_' || unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc)) {
			i += n
			continue
		}
		break
	}
	return string(b[:i])
}
