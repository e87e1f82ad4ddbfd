package poetry_test

import (
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/poetry"
)

var s = poetry.Scheme{}

func TestParseConstraint(t *testing.T) {
	tests := []struct {
		in      string
		clauses []string // op|version
		or      bool
	}{
		{"^0.56.0", []string{"^|0.56.0"}, false},
		{"~1.2", []string{"~|1.2"}, false},
		{"2.8.2", []string{"|2.8.2"}, false},
		{"1.2.*", []string{"|1.2.*"}, false},
		{"*", nil, false},
		{"", nil, false},
		{">=3.9,<3.11", []string{">=|3.9", "<|3.11"}, false},
		{">= 1.2, < 1.5", []string{">=|1.2", "<|1.5"}, false},
		{">=1.2 <1.5", []string{">=|1.2", "<|1.5"}, false},
		{"^1.0 || ^2.0", []string{"^|1.0", "^|2.0"}, true},
		{"=1.2.3", []string{"==|1.2.3"}, false},
		{"~=2.16", []string{"~=|2.16"}, false},
		{"!=1.5.*", []string{"!=|1.5.*"}, false},
		// What poetry-core accepts beyond PEP 440.
		{">3.7,", []string{">|3.7"}, false},
		{">3.7 , || <3.6 , ", []string{">|3.7", "<|3.6"}, true},
		{"v2.*", []string{"|v2.*"}, false},
		{"2.0a1.*", []string{"|2.0a1.*"}, false},
		{"^1.2.3-beta.2", []string{"^|1.2.3-beta.2"}, false},
		{">=1.0+local", []string{">=|1.0+local"}, false},
		{"^    3.8", []string{"^|3.8"}, false},
		{"x", nil, false},
		{">=1.0,*", []string{">=|1.0"}, false},
		{">dev", []string{">|dev"}, false},
		{"~=2", []string{"~=|2"}, false},
	}
	for _, tt := range tests {
		c, err := s.ParseConstraint(tt.in)
		if err != nil {
			t.Errorf("ParseConstraint(%q): %v", tt.in, err)
			continue
		}
		var got []string
		for _, cl := range c.Clauses {
			got = append(got, string(cl.Op)+"|"+cl.Version)
			if !strings.HasSuffix(tt.in[cl.Start:cl.End], cl.Version) || tt.in[cl.VersionStart:cl.End] != cl.Version {
				t.Errorf("ParseConstraint(%q): clause %+v spans %q", tt.in, cl, tt.in[cl.Start:cl.End])
			}
		}
		if strings.Join(got, " ") != strings.Join(tt.clauses, " ") || c.Or != tt.or {
			t.Errorf("ParseConstraint(%q) = %v or=%v, want %v or=%v", tt.in, got, c.Or, tt.clauses, tt.or)
		}
	}
	for _, bad := range []string{"^", ">=", "^1.0 ||", ",1", ">=1.*", "abc", "^*", "<>1.0", "===1.0", "1.2 - 2.0",
		"1.0+local.*", "^1.0 |||| ^2.0", ">=1.0,,<2", "> =1.0", "DEV", ">=1.0 .*"} {
		if _, err := s.ParseConstraint(bad); err == nil {
			t.Errorf("ParseConstraint(%q): no error", bad)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		c, v string
		want bool
	}{
		{"^0.56.0", "0.56.4", true},
		{"^0.56.0", "0.57.0", false},
		{"^0.56.0", "0.55.0", false},
		{"^1.2.3", "1.9.0", true},
		{"^1.2.3", "2.0.0", false},
		{"^0.0.3", "0.0.4", false},
		{"^0", "0.9", true},
		{"~1.2.3", "1.2.9", true},
		{"~1.2.3", "1.3.0", false},
		{"~1", "1.9", true},
		{"2.8.2", "2.8.2", true},
		{"2.8.2", "2.8.3", false},
		{"1.3", "1.3.0", true},
		{"1.2.*", "1.2.7", true},
		{"1.2.*", "1.3.0", false},
		{"*", "99", true},
		{">=3.9,<3.11", "3.10.4", true},
		{">=1.2 <1.5", "1.5", false},
		{"^1.0 || ^2.0", "2.3", true},
		{"^1.0 || ^2.0", "3.0", false},
		{"^0.56.0", "0.57.0rc1", false},
		{"^0.56.0", "not a version", false},
		{">3.7,", "3.8", true},
		{"v2.*", "2.5", true},
		{"2.0a1.*", "2.0a1.post1", true},
		{"2.0a1.*", "2.0a2", false},
		{"^1.2.3-beta.2", "1.2.3b3", true},
		{"^1.2.3-beta.2", "1.2.3b1", false},
		{">=1.0+local", "1.0+local", true},
		{">=1.0+local", "1.0", false},
		{">=1.0+local", "1.0.post1", true},
		{">dev", "0.0.1", true},
		{"~=2", "2.0.5", true},
		{"~=2", "2.1", false},
		{"1.0+ubuntu-1", "1.0+ubuntu.1", true},
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

// TestNewUpper checks the cap strategies on Poetry constraints: preserve keeps
// the caret, tilde and bare-version shapes (raising the lower bound), the
// others expand a caret into its lower bound and their cap, in Poetry's comma
// syntax, and leave an exact version alone.
func TestNewUpper(t *testing.T) {
	tests := []struct {
		in, target string
		strategy   versions.Strategy
		want       string
		conflict   bool
		raises     bool
	}{
		{"^0.56.0", "0.67.0", versions.Preserve, "^0.67.0", false, true},
		{"^1.2", "2.3.1", versions.Preserve, "^2.3", false, true},
		{"^0.56.0", "0.56.9", versions.Preserve, "^0.56.0", false, false},
		{"~1.2.3", "1.4.0", versions.Preserve, "~1.4.0", false, true},
		{"2.8.2", "2.20.0", versions.Preserve, "2.20.0", false, true},
		{"*", "0.67.0", versions.Preserve, "<=0.67.0", false, false},
		{"^0.56.0", "0.67.0", versions.Inclusive, ">=0.56.0,<=0.67.0", false, false},
		{"^1.2 !=1.3.0", "2.3.1", versions.Exclusive, ">=1.2,<2.4 !=1.3.0", false, false},
		{"2.8.2", "2.20.0", versions.Inclusive, "2.8.2", false, false},
		{">=0.56,<0.60", "0.67.0", versions.Inclusive, ">=0.56,<=0.67.0", false, false},
		{">=0.56 <0.60", "0.67.0", versions.Exclusive, ">=0.56 <0.68", false, false},
		{"^1.0 || ^2.0", "3.0", versions.Preserve, "^1.0 || ^2.0", false, false},
	}
	for _, tt := range tests {
		c, err := s.ParseConstraint(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		p := versions.Policy{Strategy: tt.strategy, AddCap: true}
		m, err := versions.NewUpper(s, c, tt.target, p)
		if err != nil {
			t.Fatalf("NewUpper(%q, %s): %v", tt.in, tt.target, err)
		}
		if m.Text != tt.want || m.Conflict != tt.conflict || m.RaisesLower != tt.raises {
			t.Errorf("NewUpper(%q, %s, %s) = %+v, want %q conflict %v raises %v", tt.in, tt.target, tt.strategy, m, tt.want, tt.conflict, tt.raises)
		}
		c2, _ := s.ParseConstraint(m.Text)
		if m2, err := versions.NewUpper(s, c2, tt.target, p); err != nil || m2.Changed {
			t.Errorf("second NewUpper(%q) = %+v, %v", m.Text, m2, err)
		}
	}
}

func TestScheme(t *testing.T) {
	if s.Name() != "poetry" || !s.Valid("1.0.post1") || s.Valid("^1") || s.Compare("2.16.0rc1", "2.16.0") >= 0 || !s.Prerelease("1.0a1") {
		t.Error("scheme basics")
	}
}

func FuzzParseConstraint(f *testing.F) {
	for _, seed := range []string{"^0.56.0", ">=1.2 <1.5", "^1.0 || ^2.0", "1.2.*", "*", "=1.2.3", "~1"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := s.ParseConstraint(text)
		if err != nil {
			return
		}
		for _, cl := range c.Clauses {
			if cl.Start < 0 || cl.End > len(text) || cl.VersionStart < cl.Start || text[cl.VersionStart:cl.End] != cl.Version {
				t.Fatalf("ParseConstraint(%q): bad span %+v", text, cl)
			}
		}
		s.Match("1.0", c)
	})
}

// TestNewUpperPoetryGrammar checks caps on what poetry-core accepts beyond
// PEP 440: a trailing comma, a local label in a lower bound, a v prefix.
func TestNewUpperPoetryGrammar(t *testing.T) {
	p := versions.Policy{Strategy: versions.Inclusive, AddCap: true}
	for _, tt := range []struct{ in, want string }{
		{">3.7,", ">3.7,<=3.12.0,"},
		{">=3.0+cpu", ">=3.0+cpu,<=3.12.0"},
		{">=v3.0,<v3.11", ">=v3.0,<=3.12.0"},
	} {
		c, err := s.ParseConstraint(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		m, err := versions.NewUpper(s, c, "3.12.0", p)
		if err != nil || m.Text != tt.want {
			t.Errorf("NewUpper(%q) = %q, %v; want %q", tt.in, m.Text, err, tt.want)
		}
	}
}
