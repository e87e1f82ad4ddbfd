package pep440_test

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/pinbot-dev/pinbot/versions/pep440"
)

// specPattern is the version pattern of the specification's appendix
// (https://packaging.python.org/en/latest/specifications/version-specifiers/#appendix-parsing-version-strings-with-regular-expressions),
// anchored, case-insensitive, in Go's syntax. Parse is hand-written; this is
// the oracle FuzzParse holds it to.
var specPattern = regexp.MustCompile(`^(?i)v?` +
	`(?:(?:([0-9]+)!)?` +
	`([0-9]+(?:\.[0-9]+)*)` +
	`([-_\.]?(alpha|a|beta|b|preview|pre|c|rc)[-_\.]?([0-9]+)?)?` +
	`((?:-([0-9]+))|(?:[-_\.]?(post|rev|r)[-_\.]?([0-9]+)?))?` +
	`([-_\.]?(dev)[-_\.]?([0-9]+)?)?)` +
	`(?:\+([a-z0-9]+(?:[-_\.][a-z0-9]+)*))?$`)

// oracleParse normalises s with specPattern, as the specification describes,
// or returns "" when it does not match.
func oracleParse(s string) string {
	t := strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f })
	for _, r := range t {
		if r >= 0x80 {
			return ""
		}
	}
	m := specPattern.FindStringSubmatch(t)
	if m == nil {
		return ""
	}
	n := func(d string) string {
		if d = strings.TrimLeft(d, "0"); d == "" {
			return "0"
		}
		return d
	}
	var b strings.Builder
	if m[1] != "" && n(m[1]) != "0" {
		b.WriteString(n(m[1]) + "!")
	}
	for i, r := range strings.Split(m[2], ".") {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(n(r))
	}
	if m[3] != "" {
		l := map[string]string{"alpha": "a", "a": "a", "beta": "b", "b": "b"}[strings.ToLower(m[4])]
		if l == "" {
			l = "rc"
		}
		b.WriteString(l + n(m[5]))
	}
	switch {
	case m[7] != "":
		b.WriteString(".post" + n(m[7]))
	case m[6] != "":
		b.WriteString(".post" + n(m[9]))
	}
	if m[10] != "" {
		b.WriteString(".dev" + n(m[12]))
	}
	if m[13] != "" {
		var parts []string
		for _, p := range strings.FieldsFunc(strings.ToLower(m[13]), func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
			if strings.Trim(p, "0123456789") == "" {
				p = n(p)
			}
			parts = append(parts, p)
		}
		b.WriteString("+" + strings.Join(parts, "."))
	}
	return b.String()
}

// FuzzParse checks Parse against the specification's regular expression:
// the same strings are versions, with the same normal form, and the normal
// form parses to an equal version. Seeds are in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, v := range packagingVersions {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := oracleParse(s)
		v, err := pep440.Parse(s)
		switch {
		case want == "" && err == nil:
			t.Fatalf("Parse(%q) = %s, but the pattern does not match", s, v)
		case want != "" && err != nil:
			t.Fatalf("Parse(%q): %v, but the pattern reads %s", s, err, want)
		case err != nil:
			return
		case v.String() != want:
			t.Fatalf("Parse(%q) = %s, want %s", s, v, want)
		}
		w, err := pep440.Parse(v.String())
		if err != nil || w.Compare(v) != 0 || w.String() != v.String() {
			t.Fatalf("Parse(%q) = %s does not round-trip: %v %v", s, v, w, err)
		}
	})
}

// FuzzCompare checks that Compare is a total preorder that agrees with Valid,
// and that a version satisfies ==, <= and >= of another as Compare says.
func FuzzCompare(f *testing.F) {
	f.Add("1.0", "1.0.0", "1.0.post1")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		ab, ba := s.Compare(a, b), s.Compare(b, a)
		if ab != -ba || ab < -1 || ab > 1 || s.Compare(a, a) != 0 {
			t.Fatalf("Compare(%q, %q) = %d, Compare(%q, %q) = %d", a, b, ab, b, a, ba)
		}
		va, vb := s.Valid(a), s.Valid(b)
		if !va && !vb && ab != 0 || !va && vb && ab != -1 || va && !vb && ab != 1 {
			t.Fatalf("Compare(%q, %q) = %d with Valid %v, %v", a, b, ab, va, vb)
		}
		bc, ac := s.Compare(b, c), s.Compare(a, c)
		if ab <= 0 && bc <= 0 && ac > 0 || ab >= 0 && bc >= 0 && ac < 0 {
			t.Fatalf("Compare not transitive on %q, %q, %q", a, b, c)
		}
		if !va || !vb {
			return
		}
		pb, _ := pep440.Parse(b)
		if pb.Local() != "" {
			return // <= and >= take no local label
		}
		pa, _ := pep440.Parse(a)
		public := pa.Compare(pb)
		if pa.Local() != "" {
			ap, _ := pep440.Parse(pa.Public())
			public = ap.Compare(pb)
		}
		for op, want := range map[string]bool{"==": public == 0, "<=": public <= 0, ">=": public >= 0} {
			c, err := s.ParseConstraint(op + pb.String())
			if err != nil {
				t.Fatalf("ParseConstraint(%q): %v", op+pb.String(), err)
			}
			if got := s.Match(a, c); got != want {
				t.Fatalf("Match(%q, %q) = %v, want %v", a, op+pb.String(), got, want)
			}
		}
	})
}
