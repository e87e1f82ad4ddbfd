package github

import (
	"slices"
	"strings"
	"testing"
)

const (
	shaA = "0123456789abcdef0123456789abcdef01234567"
	shaB = "89abcdef0123456789abcdef0123456789abcdef"
)

// TestRecorded: only a first line of exactly pinbot's form, for the
// change's package and base, records commits; text that looks like a record
// anywhere else, or a line with anything more, records none.
func TestRecorded(t *testing.T) {
	ch := Change{Package: "numba", Target: "0.68.0", Base: "main"}
	v1 := "<!-- pinbot:v1 package=numba target=0.67.0 base=main -->"
	rec := func(shas ...string) string { return " <!-- pinbot:commits " + strings.Join(shas, " ") + " -->" }
	draft := " <!-- pinbot:draft reason=check-failed -->"
	sha256 := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"one", v1 + rec(shaA) + "\nbody", []string{shaA}},
		{"two, newest first", v1 + rec(shaB, shaA) + "\nbody", []string{shaB, shaA}},
		{"with the failure draft", v1 + rec(shaA) + draft + "\n", []string{shaA}},
		{"sha-256", v1 + rec(sha256), []string{sha256}},
		{"none recorded", v1 + "\nbody", nil},
		{"a record on the second line", v1 + "\n" + v1 + rec(shaA), nil},
		{"a record quoted in the text", "text\n" + v1 + rec(shaA) + "\n", nil},
		{"three", v1 + rec(shaA, shaB, shaA) + "\n", nil},
		{"upper case", v1 + rec(strings.ToUpper(shaA)) + "\n", nil},
		{"short", v1 + rec(shaA[:12]) + "\n", nil},
		{"after the draft", v1 + draft + rec(shaA) + "\n", nil},
		{"twice", v1 + rec(shaA) + rec(shaB) + "\n", nil},
		{"text after", v1 + rec(shaA) + " hi\n", nil},
		{"text before", " " + v1 + rec(shaA) + "\n", nil},
		{"a carriage return", v1 + rec(shaA) + "\r\n", nil},
		{"another package", strings.Replace(v1, "numba", "llvmlite", 1) + rec(shaA), nil},
		{"another base", strings.Replace(v1, "main", "dev", 1) + rec(shaA), nil},
		{"a package that swallows the record", "<!-- pinbot:v1 package=numba target=0.67.0 base=main --> <!-- pinbot:commits " + shaA + " --> base=main -->", nil},
	} {
		if got := recorded(tc.body, ch); !slices.Equal(got, tc.want) {
			t.Errorf("%s: recorded(%q) = %q, want %q", tc.name, tc.body, got, tc.want)
		}
	}
}

// TestWithMarker: the body pinbot writes reads back as what it recorded.
func TestWithMarker(t *testing.T) {
	ch := Change{Package: "numba", Target: "0.67.0", Base: "main", Body: "<!-- pinbot:v1 package=numba target=0.67.0 base=main --> <!-- pinbot:commits " + shaB + " -->\n"}
	for _, commits := range [][]string{nil, {shaA}, {shaA, shaB}} {
		for _, failed := range []bool{false, true} {
			body := withMarker(ch, commits, failed)
			m, ok := parseMarker(body)
			if !ok || m.Target != "0.67.0" || !slices.Equal(m.Commits, commits) || m.FailureDraft != failed || madeDraft(body) != failed {
				t.Errorf("withMarker(%q, %v) = %q: read back %+v, %v", commits, failed, body, m, ok)
			}
			if got := recorded(body, ch); !slices.Equal(got, commits) {
				t.Errorf("recorded %q, want %q", got, commits)
			}
		}
	}
}

// FuzzMarker: whatever a body holds, reading its marker does not panic, and a
// marker that reads writes a line that reads back the same.
func FuzzMarker(f *testing.F) {
	f.Add("<!-- pinbot:v1 package=numba target=0.67.0 base=main --> <!-- pinbot:commits " + shaA + " " + shaB + " --> <!-- pinbot:draft reason=check-failed -->\nbody")
	f.Add("<!-- pinbot:v1 package=g target=numba==0.67.0,llvmlite==0.50.1 base=release/1.x -->")
	f.Fuzz(func(t *testing.T, body string) {
		m, ok := parseMarker(body)
		if !ok {
			return
		}
		line := m.String()
		again, ok := parseMarker(line + "\n" + body)
		if !ok || again.Package != m.Package || again.Target != m.Target || again.Base != m.Base ||
			!slices.Equal(again.Commits, m.Commits) || again.FailureDraft != m.FailureDraft {
			t.Fatalf("%q read %+v; its line %q reads %+v, %v", body, m, line, again, ok)
		}
		if len(m.Commits) > 2 || strings.Contains(line, "\n") {
			t.Fatalf("%q read %+v", body, m)
		}
	})
}
