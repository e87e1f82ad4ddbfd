package semver_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/semver"
)

var s = semver.Scheme{}

var validTests = []struct {
	in   string
	want bool
}{
	{"v1.2.3", true},
	{"v0.42.0", true},
	{"v1.2", true}, // shorthand, as x/mod/semver accepts it
	{"v1", true},
	{"v2.1.0-pre+meta", true},
	{"v2.0.1+incompatible", true},
	{"v0.0.0-20260724033716-83e58baca724", true},
	{"v0.0.2-0.20260224065243-f9bba28c51a4", true},

	{"1.2.3", false}, // the v is required
	{"", false},
	{"v", false},
	{"v1.2.3.4", false},
	{"v01.2.3", false},
	{"v1.2.3-", false},
	{"V1.2.3", false},
	{" v1.2.3", false},
	{">=v1.2.3", false},
}

func TestValid(t *testing.T) {
	for _, tt := range validTests {
		if got := s.Valid(tt.in); got != tt.want {
			t.Errorf("Valid(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

var compareTests = []struct {
	a, b string
	want int
}{
	{"v1.2.3", "v1.2.3", 0},
	{"v1.2", "v1.2.0", 0},
	{"v1", "v1.0.0", 0},
	{"v1.2.3", "v1.10.0", -1},
	{"v1.2.3-rc.1", "v1.2.3", -1},
	{"v1.2.3-alpha", "v1.2.3-beta", -1},
	{"v1.2.3-rc.2", "v1.2.3-rc.10", -1},
	{"v1.0.0+a", "v1.0.0+b", 0}, // build metadata is ignored
	{"v2.0.0+incompatible", "v2.0.0", 0},
	{"v0.0.0-20260724033716-83e58baca724", "v0.0.1", -1},
	{"v0.0.2-0.20260224065243-f9bba28c51a4", "v0.0.1", 1},
	{"v0.0.2-0.20260224065243-f9bba28c51a4", "v0.0.2", -1},
	{"1.2.3", "v0.0.1", -1}, // invalid sorts lowest
	{"1.2.3", "bogus", 0},
	{"", "v0.0.0", -1},
}

func TestCompare(t *testing.T) {
	for _, tt := range compareTests {
		if got := s.Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := s.Compare(tt.b, tt.a); got != -tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

var prereleaseTests = []struct {
	in   string
	want bool
}{
	{"v1.2.3-rc.1", true},
	{"v2.1.0-pre+meta", true},
	{"v0.0.0-20260724033716-83e58baca724", true},
	{"v0.0.2-0.20260224065243-f9bba28c51a4", true},
	{"v1.2.4-pre.0.20260224065243-f9bba28c51a4", true},
	{"v1.2.3", false},
	{"v2.0.1+incompatible", false},
	{"v1.0.0+build", false},
	{"1.2.3-rc.1", false}, // invalid
}

func TestPrerelease(t *testing.T) {
	for _, tt := range prereleaseTests {
		if got := s.Prerelease(tt.in); got != tt.want {
			t.Errorf("Prerelease(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseConstraint(t *testing.T) {
	tests := []struct {
		in                   string
		version              string
		start, end, verStart int
	}{
		{"v1.2.3", "v1.2.3", 0, 6, 0},
		{" v0.42.0 ", "v0.42.0", 1, 8, 1},
		{"v0.0.0-20260724033716-83e58baca724", "v0.0.0-20260724033716-83e58baca724", 0, 34, 0},
		{"v2.0.1+incompatible", "v2.0.1+incompatible", 0, 19, 0},
	}
	for _, tt := range tests {
		c, err := s.ParseConstraint(tt.in)
		if err != nil {
			t.Errorf("ParseConstraint(%q): %v", tt.in, err)
			continue
		}
		want := versions.Clause{Op: versions.Exact, Version: tt.version, Start: tt.start, End: tt.end, VersionStart: tt.verStart}
		if c.Text != tt.in || c.Or || len(c.Clauses) != 1 || c.Clauses[0] != want {
			t.Errorf("ParseConstraint(%q) = %+v, want one clause %+v", tt.in, c, want)
		}
	}
}

func TestParseConstraintErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		msg    string
	}{
		{"", 0, "expected a version"},
		{"  ", 2, "expected a version"},
		{">=v1.2.3", 0, "without an operator"},
		{"=v1.2.3", 0, "without an operator"},
		{"v1.2.3,v1.3.0", 6, "one version"},
		{"v1.2.3 v1.3.0", 6, "one version"},
		{"v1.2.3|v1.3.0", 6, "one version"},
		{"1.2.3", 0, "start with v"},
		{" v1.2.3.4", 1, "invalid Go module version"},
	}
	for _, tt := range tests {
		_, err := s.ParseConstraint(tt.in)
		var se *versions.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseConstraint(%q) = %v, want a *versions.SyntaxError", tt.in, err)
			continue
		}
		if se.Offset != tt.offset || !strings.Contains(se.Msg, tt.msg) {
			t.Errorf("ParseConstraint(%q) error at %d %q, want at %d %q", tt.in, se.Offset, se.Msg, tt.offset, tt.msg)
		}
	}
}

var matchTests = []struct {
	c, v string
	want bool
}{
	{"v1.2.3", "v1.2.3", true},
	{"v1.2.3", "v1.2", false},
	{"v1.2", "v1.2.0", true},
	{"v1.2.3", "v1.9.0", true}, // a minimum: later versions satisfy it
	{"v1.2.3", "v1.2.2", false},
	{"v1.2.3", "v1.2.4-rc.1", true},
	{"v1.2.3", "v1.2.3-rc.1", false},
	{"v0.42.0", "v1.0.0", true}, // v0 and v1 share the module path
	{"v1.2.3", "v2.0.0", false}, // v2 is another module path (/v2)
	{"v1.2.3", "v2.0.0+incompatible", true},
	{"v2.0.0+incompatible", "v3.1.0+incompatible", true},
	{"v2.0.0+incompatible", "v2.1.0", false},
	{"v2.1.0", "v2.5.0", true},
	{"v2.1.0", "v3.0.0", false},
	{"v0.0.0-20260724033716-83e58baca724", "v0.0.0-20260801000000-000000000000", true},
	{"v1.2.3", "1.9.0", false}, // invalid
}

func TestMatch(t *testing.T) {
	for _, tt := range matchTests {
		c, err := s.ParseConstraint(tt.c)
		if err != nil {
			t.Errorf("ParseConstraint(%q): %v", tt.c, err)
			continue
		}
		if got := s.Match(tt.v, c); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.v, tt.c, got, tt.want)
		}
	}
	// The empty constraint admits every valid version; an operator clause none.
	if !s.Match("v0.1.0", versions.Constraint{}) {
		t.Error("Match(v0.1.0, empty) = false")
	}
	ge := versions.Constraint{Clauses: []versions.Clause{{Op: versions.GE, Version: "v0.1.0"}}}
	if s.Match("v0.2.0", ge) {
		t.Error("Match(v0.2.0, >=v0.1.0) = true, want false: go.mod has no operators")
	}
}

// TestNewUpper checks that versions.NewUpper leaves a go.mod requirement as it
// is: it never appends a cap that go.mod cannot hold.
func TestNewUpper(t *testing.T) {
	for _, tt := range []struct{ in, target, reason string }{
		{"v0.41.0", "v0.42.0", "admits"},
		{"v0.42.0", "v0.41.0", "does not move"},
		{"v1.2.3", "v2.0.0", "does not move"},
	} {
		c, err := s.ParseConstraint(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		for _, addCap := range []bool{false, true} {
			m, err := versions.NewUpper(s, c, tt.target, versions.Policy{Strategy: versions.Inclusive, AddCap: addCap})
			if err != nil {
				t.Fatalf("NewUpper(%q, %s): %v", tt.in, tt.target, err)
			}
			if m.Changed || m.Text != tt.in || m.Conflict || !strings.Contains(m.Reason, tt.reason) {
				t.Errorf("NewUpper(%q, %s, add-cap %v) = %+v, want unchanged, reason with %q", tt.in, tt.target, addCap, m, tt.reason)
			}
		}
	}
}

func TestName(t *testing.T) {
	if s.Name() != "semver" || semver.Name != "semver" {
		t.Errorf("Name() = %q", s.Name())
	}
}
