package conda_test

import (
	"strings"
	"testing"
	"unicode"
)

// FuzzCompare checks that Compare is a total preorder that agrees with Valid
// and with the == and prefix clauses. Seeds are in testdata/fuzz/FuzzCompare.
func FuzzCompare(f *testing.F) {
	f.Add("0.4", "0.4.0", "1.1dev1")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		ab, ba := s.Compare(a, b), s.Compare(b, a)
		if ab != -ba || ab < -1 || ab > 1 {
			t.Fatalf("Compare(%q, %q) = %d but Compare(%q, %q) = %d", a, b, ab, b, a, ba)
		}
		if s.Compare(a, a) != 0 {
			t.Fatalf("Compare(%q, %q) != 0", a, a)
		}
		va, vb := s.Valid(a), s.Valid(b)
		switch {
		case !va && !vb && ab != 0, !va && vb && ab != -1, va && !vb && ab != 1:
			t.Fatalf("Compare(%q, %q) = %d with Valid %v, %v", a, b, ab, va, vb)
		}
		// Transitivity.
		bc, ac := s.Compare(b, c), s.Compare(a, c)
		if ab <= 0 && bc <= 0 && ac > 0 || ab >= 0 && bc >= 0 && ac < 0 {
			t.Fatalf("Compare(%q, %q) = %d, Compare(%q, %q) = %d, Compare(%q, %q) = %d", a, b, ab, b, c, bc, a, c, ac)
		}
		if !va || !vb {
			return
		}
		// A valid version is a valid constraint, and == agrees with Compare.
		// (A version with "*" is a pattern when bare, and ".*" after an
		// operator strips or is refused.)
		var specs []string
		bs := strings.TrimFunc(b, func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f })
		if !strings.Contains(b, "*") {
			specs = []string{bs, "==" + bs, "<=" + bs, ">=" + bs}
		}
		for _, spec := range specs {
			cons, err := s.ParseConstraint(spec)
			if err != nil {
				t.Fatalf("ParseConstraint(%q): %v", spec, err)
			}
			got := s.Match(a, cons)
			want := ab == 0
			switch spec[:min(2, len(spec))] {
			case "<=":
				want = ab <= 0
			case ">=":
				want = ab >= 0
			}
			if got != want {
				t.Fatalf("Match(%q, %q) = %v, but Compare = %d", a, spec, got, ab)
			}
		}
		// A version matches its own prefix, when the prefix parses.
		if cons, err := s.ParseConstraint(bs + ".*"); err == nil && !strings.Contains(b, "*") && !s.Match(b, cons) {
			t.Fatalf("Match(%q, %q) = false", b, b+".*")
		}
		if s.Prerelease(a) && !strings.ContainsFunc(strings.ToLower(a), func(r rune) bool { return r >= 'a' && r <= 'z' }) {
			t.Fatalf("Prerelease(%q) without a letter", a)
		}
	})
}

// FuzzParseConstraint checks that ParseConstraint never panics, that every
// clause's span is its operator and version as written, and that Match never
// panics on what it returns. Seeds are in testdata/fuzz/FuzzParseConstraint.
func FuzzParseConstraint(f *testing.F) {
	f.Add(">=1.22.3,<2.5", "2.6.0")
	f.Fuzz(func(t *testing.T, text, v string) {
		c, err := s.ParseConstraint(text)
		if err != nil {
			return
		}
		if c.Text != text {
			t.Fatalf("Text = %q, want %q", c.Text, text)
		}
		last := 0
		for _, k := range c.Clauses {
			if k.Start < last || k.Start > k.VersionStart || k.VersionStart > k.End || k.End > len(text) {
				t.Fatalf("%q: clause %+v out of range or order", text, k)
			}
			last = k.End
			gap := text[k.Start+len(k.Op) : k.VersionStart]
			if text[k.Start:k.End] != string(k.Op)+gap+k.Version || strings.Trim(gap, " \t") != "" || k.Version == "" {
				t.Fatalf("%q: clause %+v has span %q", text, k, text[k.Start:k.End])
			}
		}
		// "|" is an alternative unless it is inside a regular expression.
		outside := text
		for i := len(c.Clauses) - 1; i >= 0; i-- {
			if k := c.Clauses[i]; k.Pattern {
				outside = outside[:k.Start] + outside[k.End:]
			}
		}
		if c.Or != strings.Contains(outside, "|") {
			t.Fatalf("%q: Or = %v", text, c.Or)
		}
		s.Match(v, c)
		// Parsing is deterministic and a replaced clause keeps the rest.
		if len(c.Clauses) > 0 {
			k := c.Clauses[0]
			if c.Replace(k, text[k.Start:k.End]) != text {
				t.Fatalf("%q: Replace with the same text changed it", text)
			}
		}
	})
}
