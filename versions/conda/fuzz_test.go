package conda_test

import (
	"strings"
	"testing"
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
		for _, spec := range []string{b, "==" + b, "<=" + b, ">=" + b} {
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
		if cons, err := s.ParseConstraint(b + ".*"); err == nil && !s.Match(b, cons) {
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
		if c.Or != strings.Contains(text, "|") {
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
