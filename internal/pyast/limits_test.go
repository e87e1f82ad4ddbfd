package pyast

import (
	"strings"
	"testing"
)

// TestLinear checks that the parser reads each token a bounded number of
// times, on the inputs that make it backtrack (a statement starting with
// the name match, a with statement starting with a parenthesis): no input
// costs more than linear time.
func TestLinear(t *testing.T) {
	for name, src := range map[string]string{
		"match calls":      strings.Repeat("match(x, y, z)\n", 5000),
		"match subscripts": strings.Repeat("match[a, b] = c\n", 5000),
		"long subject":     "match (" + strings.Repeat("a, ", 20000) + "b)\n",
		"with tuples":      strings.Repeat("with (a, b, c) as d: pass\n", 5000),
		"with calls":       "with (" + strings.Repeat("f(a), ", 20000) + "b)[0]: pass\n",
		"nested parens":    strings.Repeat("match "+strings.Repeat("(", 150)+"x"+strings.Repeat(")", 150)+"\n", 200),
	} {
		_, steps, err := parse("t.py", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := len(scanAll(src))
		if limit := 2*n + 10; steps > limit {
			t.Errorf("%s: %d steps for %d tokens, want at most %d", name, steps, n, limit)
		}
	}
}

// TestHugeInputs parses 10 MB sources, one long expression and many lines,
// and a deep left-nested tree (a + a + ... of 650,000 terms) and a long elif
// chain, and walks them.
func TestHugeInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("10 MB inputs")
	}
	const size = 10 << 20
	for name, src := range map[string]string{
		"one expression": "x = [" + strings.Repeat("'abc', 12345, f(x), ", size/20) + "]\n",
		"many lines":     strings.Repeat("if a.b(c, d=1):\n    x = y[0] + 2\n", size/32),
		"deep sum":       "x = " + strings.Repeat("a + ", size/16) + "a\n",
		"elif chain":     "if x: pass\n" + strings.Repeat("elif x: pass\n", size/52),
	} {
		mod, err := Parse("t.py", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := 0
		Inspect(mod, func(Node) bool { n++; return true })
		if n < size/200 {
			t.Errorf("%s: only %d nodes", name, n)
		}
		if err := checkSpans(mod, len(src)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// scanAll returns every token of src, up to tEOF or tError.
func scanAll(src string) []token {
	s := newScanner(src, 0)
	var toks []token
	for {
		toks = s.more(toks)
		if k := toks[len(toks)-1].kind; k == tEOF || k == tError {
			return toks
		}
	}
}
