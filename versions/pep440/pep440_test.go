package pep440_test

import (
	"testing"

	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/pep440"
)

var s = pep440.Scheme{}

func TestCompare(t *testing.T) {
	// The spec's example order, and the traps from versions.md.
	order := []string{"1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12", "1.0b2.post345.dev456", "1.0b2.post345",
		"1.0rc1.dev456", "1.0rc1", "1.0", "1.0+abc.5", "1.0+abc.7", "1.0+5", "1.0.post456.dev34", "1.0.post456", "1.0.15", "1.1.dev1"}
	for i := 1; i < len(order); i++ {
		if got := s.Compare(order[i-1], order[i]); got != -1 {
			t.Errorf("Compare(%q, %q) = %d, want -1", order[i-1], order[i], got)
		}
		if got := s.Compare(order[i], order[i-1]); got != 1 {
			t.Errorf("Compare(%q, %q) = %d, want 1", order[i], order[i-1], got)
		}
	}
	tests := []struct {
		a, b string
		want int
	}{
		{"2.16", "2.16.0", 0},
		{"2.16.0-rc1", "2.16.0rc1", 0},
		{"1.0-1", "1.0.post1", 0},
		{"1!2.0", "6.33.0", 1},
		{"2.1.0+cu118", "2.1.0", 1},
		{"0.67.0", "0.66.0", 1},
		{"0.10.0", "0.9.0", 1},
		{"not-a-version", "0.1", -1},
		{"junk", "other junk", 0},
	}
	for _, tt := range tests {
		if got := s.Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestPrerelease(t *testing.T) {
	for v, want := range map[string]bool{
		"0.63.0b1": true, "0.67.0rc1": true, "0.68.0.dev0": true, "1.0rc1.post1": true, "2.0a1": true,
		"0.67.0": false, "1.0.post1": false, "2.1.0+cu118": false, "bogus": false,
	} {
		if got := s.Prerelease(v); got != want {
			t.Errorf("Prerelease(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestParseConstraint(t *testing.T) {
	tests := []struct {
		in   string
		want []versions.Clause
	}{
		{"", nil},
		{">=0.58,<=0.66.0", []versions.Clause{
			{Op: ">=", Version: "0.58", Start: 0, End: 6, VersionStart: 2},
			{Op: "<=", Version: "0.66.0", Start: 7, End: 15, VersionStart: 9}}},
		{" >= 0.51.0", []versions.Clause{{Op: ">=", Version: "0.51.0", Start: 1, End: 10, VersionStart: 4}}},
		{">=1.19.5, <=1.26", []versions.Clause{
			{Op: ">=", Version: "1.19.5", Start: 0, End: 8, VersionStart: 2},
			{Op: "<=", Version: "1.26", Start: 10, End: 16, VersionStart: 12}}},
		{"~=2.16", []versions.Clause{{Op: "~=", Version: "2.16", Start: 0, End: 6, VersionStart: 2}}},
		{"==2.16.*", []versions.Clause{{Op: "==", Version: "2.16.*", Start: 0, End: 8, VersionStart: 2}}},
		{"===2.16.0rc1", []versions.Clause{{Op: "===", Version: "2.16.0rc1", Start: 0, End: 12, VersionStart: 3}}},
		{"==0.4.22+cuda12.cudnn89", []versions.Clause{{Op: "==", Version: "0.4.22+cuda12.cudnn89", Start: 0, End: 23, VersionStart: 2}}},
		{">=3.20,!=4.21.0,<6", []versions.Clause{
			{Op: ">=", Version: "3.20", Start: 0, End: 6, VersionStart: 2},
			{Op: "!=", Version: "4.21.0", Start: 7, End: 15, VersionStart: 9},
			{Op: "<", Version: "6", Start: 16, End: 18, VersionStart: 17}}},
		// Empty items are skipped, as packaging's SpecifierSet (and pip) skip
		// them; a cap added to ">=1.0," lands before the comma.
		{">=1.0,", []versions.Clause{{Op: ">=", Version: "1.0", Start: 0, End: 5, VersionStart: 2}}},
		{">=1.0, ,<2", []versions.Clause{
			{Op: ">=", Version: "1.0", Start: 0, End: 5, VersionStart: 2},
			{Op: "<", Version: "2", Start: 8, End: 10, VersionStart: 9}}},
		{"=== foo", []versions.Clause{{Op: "===", Version: "foo", Start: 0, End: 7, VersionStart: 4}}},
		{"\u00a0==1.0\t", []versions.Clause{{Op: "==", Version: "1.0", Start: 2, End: 7, VersionStart: 4}}},
	}
	for _, tt := range tests {
		c, err := s.ParseConstraint(tt.in)
		if err != nil {
			t.Errorf("ParseConstraint(%q): %v", tt.in, err)
			continue
		}
		if len(c.Clauses) != len(tt.want) {
			t.Errorf("ParseConstraint(%q) = %+v, want %+v", tt.in, c.Clauses, tt.want)
			continue
		}
		for i := range tt.want {
			if c.Clauses[i] != tt.want[i] {
				t.Errorf("ParseConstraint(%q)[%d] = %+v, want %+v", tt.in, i, c.Clauses[i], tt.want[i])
			}
		}
	}
}

func TestParseConstraintErrors(t *testing.T) {
	for _, in := range []string{
		">=1.0 || <0.5", // the library's non-PEP OR
		">=1.0;<2", "> =1.0", "latest", "~=2", "<2.0+cu118", ">=", "1.0", ">=1.0 <2", ">=1.*",
		"==1.0 .*", "===a b", "===a;b", "==1.0+\u0130",
	} {
		if c, err := s.ParseConstraint(in); err == nil {
			t.Errorf("ParseConstraint(%q) = %+v, want an error", in, c.Clauses)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		v, c string
		want bool
	}{
		{"0.62.1", ">=0.59,<=0.62.1", true},
		{"0.62.1.post1", ">=0.59,<=0.62.1", false},
		{"0.63.0", ">=0.59,<=0.62.1", false},
		{"2.16.1", "==2.16.*", true},
		{"2.17.0", "==2.16.*", false},
		{"2.16.3", "~=2.16", true},
		{"3.0", "~=2.16", false},
		{"2.1.0+cu118", "==2.1.0", true},
		{"5.29.3", ">=3.20,!=4.21.0,<6", true},
		{"4.21.0", ">=3.20,!=4.21.0,<6", false},
		{"2.16.0rc1", "===2.16.0rc1", true},
		{"0.1", "", true},
		{"bogus", ">=0", false},
	}
	for _, tt := range tests {
		c, err := s.ParseConstraint(tt.c)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Match(tt.v, c); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.v, tt.c, got, tt.want)
		}
	}
}

func FuzzParseConstraint(f *testing.F) {
	for _, seed := range []string{">=0.58,<=0.66.0", " >= 0.51.0", "~=2.16", "==2.16.*", ">=3.20,!=4.21.0,<6", "===x", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := s.ParseConstraint(in)
		if err != nil {
			return
		}
		for _, cl := range c.Clauses {
			if in[cl.Start:cl.Start+len(cl.Op)] != string(cl.Op) || in[cl.VersionStart:cl.End] != cl.Version {
				t.Fatalf("clause %+v does not match its span in %q", cl, in)
			}
		}
		s.Match("1.0", c) // must not panic
	})
}

// TestNewUpperEmptyItems checks that a cap added to a set with a trailing
// comma lands before the comma, and that the result still parses.
func TestNewUpperEmptyItems(t *testing.T) {
	p := versions.Policy{Strategy: versions.Inclusive, AddCap: true}
	for _, tt := range []struct{ in, want string }{
		{">=0.58,", ">=0.58,<=0.67.0,"},
		{">=0.58, ,", ">=0.58, <=0.67.0, ,"},
		{">=0.58,<=0.66.0,", ">=0.58,<=0.67.0,"},
	} {
		c, err := s.ParseConstraint(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		m, err := versions.NewUpper(s, c, "0.67.0", p)
		if err != nil || m.Text != tt.want {
			t.Errorf("NewUpper(%q) = %q, %v; want %q", tt.in, m.Text, err, tt.want)
		}
	}
}

// TestMatchSpecification checks the cases the aquasecurity library pinbot
// used to wrap got wrong (issue 22): zero padding of prefix matches from the
// right operand, and a pre-release kept in the prefix of ~=.
func TestMatchSpecification(t *testing.T) {
	for _, tt := range []struct {
		v, c string
		want bool
	}{
		{"2", "==2.0.*", true},
		{"2rc1", "==2.0.*", true},
		{"2rc1", "!=2.0.*", false},
		{"1.1", "~=1.0a1", true},
		{"2!1.0.0", "==2!1.0.0.0.*", true},
		{"1.2.3b2", ">=1.2.3-beta.2", true},
		{"2.0", "===2.0", true},
		{"2.0", "===", false},
	} {
		if got := match(t, tt.v, tt.c); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.v, tt.c, got, tt.want)
		}
	}
}
