package versions_test

import (
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/conda"
	"github.com/pinbot-dev/pinbot/versions/pep440"
	"github.com/pinbot-dev/pinbot/versions/poetry"
)

func TestNewUpperInclusive(t *testing.T) {
	s := pep440.Scheme{}
	on := versions.Policy{Strategy: versions.Inclusive, AddCap: true}
	off := versions.Policy{Strategy: versions.Inclusive}
	tests := []struct {
		name, in, target string
		p                versions.Policy
		want             string
		narrows          bool
		conflict         bool
		reason           string // substring
	}{
		{"the seed: cap below newest", ">=0.58,<=0.66.0", "0.67.0", on, ">=0.58,<=0.67.0", false, false, "newer than the cap <=0.66.0"},
		{"cap equal", ">=0.58,<=0.67.0", "0.67.0", on, ">=0.58,<=0.67.0", false, false, "already admits"},
		{"cap equal, shorter spelling", ">=0.58,<=0.67", "0.67.0", on, ">=0.58,<=0.67", false, false, "already admits"},
		{"never lowered", ">=0.58,<=0.70.0", "0.67.0", on, ">=0.58,<=0.70.0", false, false, "never lowered"},
		{"exclusive cap reached", ">=0.58,<0.66", "0.67.0", on, ">=0.58,<=0.67.0", false, false, "not admitted by <0.66"},
		{"exclusive cap above: narrows", ">0.57,<1", "0.67.0", on, ">0.57,<=0.67.0", true, false, "narrows"},
		{"no cap", ">=0.57", "0.67.0", on, ">=0.57,<=0.67.0", false, false, "no upper bound"},
		{"no cap, spaced style kept", ">=1.19.5, !=1.20", "1.26.4", on, ">=1.19.5, !=1.20, <=1.26.4", false, false, ""},
		{"no constraint at all", "", "0.67.0", on, "<=0.67.0", false, false, ""},
		{"no cap, add-cap off", ">=0.57", "0.67.0", off, ">=0.57", false, false, "add-cap is off"},
		{"spaces inside the clause kept", "numba >= 0.51.0, < 0.60"[6:], "0.67.0", on, ">= 0.51.0, <= 0.67.0", false, false, ""},
		{"exclusion hits the target", ">=0.58,!=0.67.0,<=0.66.0", "0.67.0", on, ">=0.58,!=0.67.0,<=0.66.0", false, true, "!=0.67.0 excludes"},
		{"lower bound above target", ">=0.70", "0.67.0", on, ">=0.70", false, true, ">=0.70 excludes"},
		{"exact pin", "==0.4.13", "0.4.30", on, "==0.4.13", false, false, "exact pin"},
		{"compatible release admits", "~=2.16", "2.19.0", on, "~=2.16", false, false, "already admits"},
		{"compatible release excludes: expanded", "~=2.16", "3.0.0", on, ">=2.16,<=3.0.0", false, false, "the operator ~= was expanded into >=2.16,<=3.0.0 to keep the lower bound"},
		{"prefix pin excludes: expanded", "==2.16.*", "2.17.0", on, ">=2.16,<=2.17.0", false, false, "the prefix match .* was expanded"},
		{"compatible release beside a cap", "~=2.16,<2.20", "3.0.0", on, "~=2.16,<2.20", false, true, "beside another cap"},
		{"two caps", ">=1,<3,<=2.5", "2.6", on, ">=1,<3,<=2.5", false, false, "2 upper bounds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := s.ParseConstraint(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			m, err := versions.NewUpper(s, c, tt.target, tt.p)
			if err != nil {
				t.Fatal(err)
			}
			if m.Text != tt.want || m.Narrows != tt.narrows || m.Conflict != tt.conflict || m.Changed != (tt.want != tt.in) {
				t.Errorf("NewUpper(%q, %s) = %+v, want text %q narrows %v conflict %v", tt.in, tt.target, m, tt.want, tt.narrows, tt.conflict)
			}
			if !strings.Contains(m.Reason, tt.reason) {
				t.Errorf("reason %q does not mention %q", m.Reason, tt.reason)
			}
			// Idempotent: a second move to the same target changes nothing.
			c2, err := s.ParseConstraint(m.Text)
			if err != nil {
				t.Fatal(err)
			}
			if m2, err := versions.NewUpper(s, c2, tt.target, tt.p); err != nil || m2.Changed {
				t.Errorf("second NewUpper(%q) = %+v, %v; want no change", m.Text, m2, err)
			}
		})
	}
}

func TestNewUpperErrors(t *testing.T) {
	s := pep440.Scheme{}
	c, _ := s.ParseConstraint(">=1")
	if _, err := versions.NewUpper(s, c, "not a version", versions.Policy{Strategy: versions.Inclusive}); err == nil {
		t.Error("invalid target: want an error")
	}
	if _, err := versions.NewUpper(s, c, "1.0", versions.Policy{Strategy: "sideways"}); err == nil {
		t.Error("unknown strategy: want an error")
	}
}

func TestNewUpperStrategies(t *testing.T) {
	s := pep440.Scheme{}
	type want struct {
		text                string
		narrows, conflict   bool
		raisesLower, lowers bool
		reason              string
	}
	tests := []struct {
		in, target string
		strategy   versions.Strategy
		addCap     bool
		want       want
	}{
		// exclusive: "<" the next boundary at the pin's own precision.
		{">=0.59,<0.62", "0.62.1", versions.Exclusive, true, want{text: ">=0.59,<0.63", reason: "not admitted by <0.62"}},
		{">=2,<3", "3.1.0", versions.Exclusive, true, want{text: ">=2,<4"}},
		{">=0.58,<=0.66.0", "0.67.0", versions.Exclusive, true, want{text: ">=0.58,<0.67.1", reason: "newer than the cap"}},
		{">=0.57", "0.67.0", versions.Exclusive, true, want{text: ">=0.57,<0.68", reason: "no upper bound"}},
		{"", "6.33.0", versions.Exclusive, true, want{text: "<6.34"}},
		{">0.57,<1", "0.67.0", versions.Exclusive, true, want{text: ">0.57,<1", reason: "never lowered"}},
		{">=0.58, < 0.66", "0.67.0", versions.Exclusive, true, want{text: ">=0.58, < 0.68"}},
		{"==0.4.13", "0.4.30", versions.Exclusive, true, want{text: "==0.4.13", reason: "does not move exact pins"}},
		{"~=2.16", "3.1.0", versions.Exclusive, true, want{text: ">=2.16,<3.2", reason: "expanded into >=2.16,<3.2"}},
		{">=0.57", "0.68.0rc1", versions.Exclusive, true, want{text: ">=0.57,<0.69"}},
		// preserve: keep the operator.
		{">=0.58,<=0.66.0", "0.67.0", versions.Preserve, true, want{text: ">=0.58,<=0.67.0"}},
		{">=0.59,<0.62", "0.62.1", versions.Preserve, true, want{text: ">=0.59,<0.63"}},
		{">0.57,<1", "0.67.0", versions.Preserve, true, want{text: ">0.57,<1", reason: "never lowered"}},
		{"==0.4.13", "0.4.30", versions.Preserve, true, want{text: "==0.4.30", raisesLower: true, reason: "raises the lower bound"}},
		{"== 0.4.13", "0.4.30", versions.Preserve, true, want{text: "== 0.4.30", raisesLower: true}},
		{"==0.67.0", "0.67.0", versions.Preserve, true, want{text: "==0.67.0", reason: "admits"}},
		{"==0.70.0", "0.67.0", versions.Preserve, true, want{text: "==0.70.0", reason: "does not move a pin down"}},
		{"==2.15.1+cu121", "2.16.0", versions.Preserve, true, want{text: "==2.15.1+cu121", conflict: true, reason: "local build"}},
		{"==20251209+cdb525d2e", "20260301+abc1234", versions.Preserve, true, want{text: "==20260301+abc1234", raisesLower: true}},
		{"~=2.16", "3.1.0", versions.Preserve, true, want{text: "~=3.1", raisesLower: true, reason: "~=2.16 becomes ~=3.1"}},
		{"~=1.4.5", "1.5.2", versions.Preserve, true, want{text: "~=1.5.2", raisesLower: true}},
		{"~=2.16", "2.19.0", versions.Preserve, true, want{text: "~=2.16", reason: "already admits"}},
		{"==0.61.*", "0.62.1", versions.Preserve, true, want{text: "==0.62.*", raisesLower: true}},
		{"~=0.66.0", "0.68.0.dev0", versions.Preserve, true, want{text: "~=0.68.0.dev0", raisesLower: true}},
		{"~=2.16,!=3.1.0", "3.1.0", versions.Preserve, true, want{text: "~=2.16,!=3.1.0", conflict: true, reason: "!=3.1.0 excludes"}},
		{">=0.57", "0.67.0", versions.Preserve, true, want{text: ">=0.57,<=0.67.0"}},
		{">= 0.51", "0.67.0", versions.Inclusive, true, want{text: ">= 0.51, <= 0.67.0"}},
		{">= 0.51", "0.67.0", versions.Exclusive, true, want{text: ">= 0.51, < 0.68"}},
		{">=0.57", "0.67.0", versions.Preserve, false, want{text: ">=0.57", reason: "add-cap is off"}},
		{"~=2.16,<2.20", "3.1.0", versions.Preserve, true, want{text: "~=3.1,<3.2", raisesLower: true}},
		{"===1.0", "2.0", versions.Preserve, true, want{text: "===1.0", reason: "==="}},
		{"~=2.16", "2.15.0", versions.Preserve, true, want{text: "~=2.16", conflict: true, reason: "excludes"}},
		{"==0.70.*", "0.67.0", versions.Preserve, true, want{text: "==0.70.*", conflict: true, reason: "excludes"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.strategy)+" "+tt.in+" "+tt.target, func(t *testing.T) {
			p := versions.Policy{Strategy: tt.strategy, AddCap: tt.addCap}
			c, err := s.ParseConstraint(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			m, err := versions.NewUpper(s, c, tt.target, p)
			if err != nil {
				t.Fatal(err)
			}
			w := tt.want
			if m.Text != w.text || m.Narrows != w.narrows || m.Conflict != w.conflict || m.RaisesLower != w.raisesLower || m.Lowers != w.lowers || m.Changed != (w.text != tt.in) {
				t.Errorf("NewUpper(%q, %s, %s) = %+v, want %+v", tt.in, tt.target, tt.strategy, m, w)
			}
			if !strings.Contains(m.Reason, w.reason) {
				t.Errorf("reason %q does not mention %q", m.Reason, w.reason)
			}
			c2, err := s.ParseConstraint(m.Text)
			if err != nil {
				t.Fatal(err)
			}
			if m2, err := versions.NewUpper(s, c2, tt.target, p); err != nil || m2.Changed {
				t.Errorf("second NewUpper(%q) = %+v, %v; want no change", m.Text, m2, err)
			}
		})
	}
}

func TestNewUpperYanked(t *testing.T) {
	s := pep440.Scheme{}
	yanked := func(v string) bool { return v == "0.67.1" }
	tests := []struct {
		in       string
		strategy versions.Strategy
		follow   bool
		want     string
		lowers   bool
		reason   string
	}{
		{">=0.58,<=0.67.1", versions.Inclusive, false, ">=0.58,<=0.67.1", false, "was yanked"},
		{">=0.58,<=0.67.1", versions.Inclusive, true, ">=0.58,<=0.67.0", true, "lowered to <=0.67.0"},
		{">=0.58,<=0.67.1", versions.Exclusive, true, ">=0.58,<0.67.1", true, "yanked: follow"},
		{"==0.67.1", versions.Preserve, false, "==0.67.1", false, "was yanked"},
		{"==0.67.1", versions.Inclusive, true, "==0.67.0", true, "moved down"},
		{">=0.58,<=0.68.0", versions.Inclusive, true, ">=0.58,<=0.68.0", false, "never lowered"},
	}
	for _, tt := range tests {
		c, _ := s.ParseConstraint(tt.in)
		p := versions.Policy{Strategy: tt.strategy, AddCap: true, FollowYanked: tt.follow}
		m, err := versions.NewUpperYanked(s, c, "0.67.0", p, yanked)
		if err != nil {
			t.Fatal(err)
		}
		if m.Text != tt.want || m.Lowers != tt.lowers || m.Yanked != strings.Contains(tt.in, "0.67.1") || !strings.Contains(m.Reason, tt.reason) {
			t.Errorf("NewUpperYanked(%q, %s, follow %v) = %+v, want %q lowers %v reason %q", tt.in, tt.strategy, tt.follow, m, tt.want, tt.lowers, tt.reason)
		}
	}
}

func TestReleaseArithmetic(t *testing.T) {
	for _, tt := range []struct {
		v    string
		n    int
		next string
	}{
		{"0.62.1", 2, "0.63"}, {"3.1.0", 1, "4"}, {"0.67.0", 3, "0.67.1"}, {"1", 3, "1.0.1"},
		{"1!2.0.post1", 2, "1!2.1"}, {"v1.2.3", 2, "v1.3"}, {"2.16.0rc1", 2, "2.17"}, {"20251209+abc", 1, "20251210"},
	} {
		if got, ok := versions.NextRelease(tt.v, tt.n); !ok || got != tt.next {
			t.Errorf("NextRelease(%q, %d) = %q, %v; want %q", tt.v, tt.n, got, ok, tt.next)
		}
	}
	if _, ok := versions.NextRelease("abc", 1); ok {
		t.Error("NextRelease(abc) ok")
	}
	for _, tt := range []struct{ v, want string }{
		{"1.2.3", "2"}, {"0.2.3", "0.3"}, {"0.0.3", "0.0.4"}, {"0.0", "0.1"}, {"0", "1"}, {"0.56.0", "0.57"},
	} {
		if got, _ := versions.CaretUpper(tt.v); got != tt.want {
			t.Errorf("CaretUpper(%q) = %q, want %q", tt.v, got, tt.want)
		}
	}
	for _, tt := range []struct{ v, want string }{{"1.2.3", "1.3"}, {"1.2", "1.3"}, {"1", "2"}} {
		if got, _ := versions.TildeUpper(tt.v); got != tt.want {
			t.Errorf("TildeUpper(%q) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestBounds(t *testing.T) {
	s := pep440.Scheme{}
	for _, tt := range []struct{ in, lower, upper string }{
		{">=0.58,<=0.66.0", ">=0.58", "<=0.66.0"},
		{">0.57,<1", ">0.57", "<1"},
		{">=0.57", ">=0.57", ""},
		{"", "", ""},
		{"~=2.16", ">=2.16", "<3"},
		{"==0.61.*", ">=0.61", "<0.62"},
		{"==1.2.3", ">=1.2.3", "<=1.2.3"},
		{">=1,>=1.5,!=1.6,<3,<=2.5", ">=1.5", "<=2.5"},
	} {
		c, err := s.ParseConstraint(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		lo, up, ok := versions.Bounds(s, c)
		if !ok || lo.String() != tt.lower || up.String() != tt.upper {
			t.Errorf("Bounds(%q) = %q, %q, %v; want %q, %q", tt.in, lo, up, ok, tt.lower, tt.upper)
		}
	}
	// Poetry's 1.*.* is the prefix 1.
	if c, err := (poetry.Scheme{}).ParseConstraint("1.*.*"); err != nil {
		t.Fatal(err)
	} else if lo, up, ok := versions.Bounds(poetry.Scheme{}, c); !ok || lo.String() != ">=1" || up.String() != "<2" {
		t.Errorf("Bounds(1.*.*) = %q, %q, %v; want >=1, <2", lo, up, ok)
	}
	if versions.CompareUpper(s, versions.Bound{Op: versions.LT, Version: "0.68"}, versions.Bound{Op: versions.LE, Version: "0.67.0"}) <= 0 {
		t.Error("<0.68 should admit more than <=0.67.0")
	}
	if versions.CompareUpper(s, versions.Bound{}, versions.Bound{Op: versions.LE, Version: "9"}) <= 0 {
		t.Error("no cap should admit the most")
	}
	if versions.CompareLower(s, versions.Bound{Op: versions.GT, Version: "1"}, versions.Bound{Op: versions.GE, Version: "1"}) <= 0 {
		t.Error(">1 should be stricter than >=1")
	}
}

// TestNewUpperPreserveOtherSchemes checks that preserve is generic over the
// clause shapes of the other schemes: conda prefix and fuzzy pins, Poetry
// carets, and never moves one down.
func TestNewUpperPreserveOtherSchemes(t *testing.T) {
	p := versions.Policy{Strategy: versions.Preserve, AddCap: true}
	for _, tt := range []struct {
		s              versions.Scheme
		in, target     string
		want           string
		conflict, move bool
	}{
		{conda.Scheme{}, "0.61.*", "0.62.1", "0.62.*", false, true},
		{conda.Scheme{}, "0.47*", "0.49.0", "0.49*", false, true},
		{conda.Scheme{}, "=0.50", "0.51.0", "=0.51", false, true},
		{conda.Scheme{}, "=0.70", "0.67.0", "=0.70", true, false},
		{conda.Scheme{}, "2021.6.0", "2022.1.0", "2022.1.0", false, true},
		{conda.Scheme{}, ">=1.22.3,<2.5", "2.6.0", ">=1.22.3,<2.7", false, true},
		{poetry.Scheme{}, "^0.70.0", "0.67.0", "^0.70.0", true, false},
		{poetry.Scheme{}, "~1.2", "1.4.1", "~1.4", false, true},
	} {
		c, err := tt.s.ParseConstraint(tt.in)
		if err != nil {
			t.Fatalf("%s %q: %v", tt.s.Name(), tt.in, err)
		}
		m, err := versions.NewUpper(tt.s, c, tt.target, p)
		if err != nil {
			t.Fatalf("%s %q: %v", tt.s.Name(), tt.in, err)
		}
		if m.Text != tt.want || m.Conflict != tt.conflict || m.Changed != tt.move || m.RaisesLower != (tt.move && !strings.Contains(tt.in, "<")) {
			t.Errorf("%s NewUpper(%q, %s) = %+v, want %q conflict %v", tt.s.Name(), tt.in, tt.target, m, tt.want, tt.conflict)
		}
	}
}

// TestNewUpperExpandsOneClauseRanges: under inclusive and exclusive a range
// written as one clause (~=, ^, ~, a prefix match, conda's =) that shuts the
// newest release out is rewritten into two clauses in its scheme's syntax: its
// own lower bound and the strategy's cap. The lower bound is the old one
// (Bounds), nothing is narrowed or raised, the reason says the operator was
// expanded, and preserve still moves the operator as before.
func TestNewUpperExpandsOneClauseRanges(t *testing.T) {
	pep, po, co := pep440.Scheme{}, poetry.Scheme{}, conda.Scheme{}
	tests := []struct {
		s                    versions.Scheme
		in, target           string
		inclusive, exclusive string
		preserve             string
		reason               string // in the inclusive reason
	}{
		// PEP 440: ~= at two and three parts, a prefix match, spaces kept.
		{pep, "~=0.9", "1.1.0", ">=0.9,<=1.1.0", ">=0.9,<1.2", "~=1.1", "the operator ~= was expanded into >=0.9,<=1.1.0 to keep the lower bound"},
		{pep, "~=2.16.1", "2.17.0", ">=2.16.1,<=2.17.0", ">=2.16.1,<2.17.1", "~=2.17.0", "the operator ~="},
		{pep, "==0.61.*", "0.62.1", ">=0.61,<=0.62.1", ">=0.61,<0.63", "==0.62.*", "the prefix match .*"},
		{pep, "~= 1.23.5", "1.26.4", ">= 1.23.5, <= 1.26.4", ">= 1.23.5, < 1.26.5", "~= 1.26.4", "~= 1.23.5 caps below 1.26.4"},
		{pep, "~=2.16,!=2.17.0", "3.1.0", ">=2.16,<=3.1.0,!=2.17.0", ">=2.16,<3.2,!=2.17.0", "~=3.1,!=2.17.0", "expanded into >=2.16,<=3.1.0"},
		// Poetry: ^ (major and zero-major), ~, ~=, prefix matches with and without =.
		{po, "^3.7", "4.0.0", ">=3.7,<=4.0.0", ">=3.7,<4.1", "^4.0", "the operator ^ was expanded into >=3.7,<=4.0.0 to keep the lower bound"},
		{po, "^0.56.0", "0.67.0", ">=0.56.0,<=0.67.0", ">=0.56.0,<0.67.1", "^0.67.0", "the operator ^"},
		{po, "~1.2", "1.4.1", ">=1.2,<=1.4.1", ">=1.2,<1.5", "~1.4", "the operator ~ was"},
		{po, "~=1.2", "2.1.0", ">=1.2,<=2.1.0", ">=1.2,<2.2", "~=2.1", "the operator ~="},
		{po, "1.2.*", "1.3.0", ">=1.2,<=1.3.0", ">=1.2,<1.4", "1.3.*", "the prefix match .*"},
		{po, "=1.2.*", "1.3.0", ">=1.2,<=1.3.0", ">=1.2,<1.4", "=1.3.*", "the prefix match .*"},
		{po, "1.*.*", "2.1.0", ">=1,<=2.1.0", ">=1,<3", "2.*", "the prefix match .*"},
		{po, "^ 3.8", "4.1.0", ">= 3.8, <= 4.1.0", ">= 3.8, < 4.2", "^ 4.1", "the operator ^"},
		// conda: prefix matches, the fuzzy =, ~=.
		{co, "0.61.*", "0.62.1", ">=0.61,<=0.62.1", ">=0.61,<0.63", "0.62.*", "the prefix match .*"},
		{co, "0.47*", "0.49.0", ">=0.47,<=0.49.0", ">=0.47,<0.50", "0.49*", "the prefix match *"},
		{co, "=0.50", "0.51.0", ">=0.50,<=0.51.0", ">=0.50,<0.52", "=0.51", "the fuzzy match ="},
		{co, "=1.5.3", "1.7.2", ">=1.5.3,<=1.7.2", ">=1.5.3,<1.7.3", "=1.7.2", "the fuzzy match ="},
		{co, "=0.61.*", "0.62.1", ">=0.61,<=0.62.1", ">=0.61,<0.63", "=0.62.*", "the prefix match .*"},
		{co, "~=0.61", "1.0.0", ">=0.61,<=1.0.0", ">=0.61,<1.1", "~=1.0", "the operator ~="},
	}
	for _, tt := range tests {
		for _, st := range []struct {
			strategy versions.Strategy
			want     string
		}{{versions.Inclusive, tt.inclusive}, {versions.Exclusive, tt.exclusive}, {versions.Preserve, tt.preserve}} {
			t.Run(tt.s.Name()+" "+tt.in+" "+string(st.strategy), func(t *testing.T) {
				p := versions.Policy{Strategy: st.strategy, AddCap: true}
				c, err := tt.s.ParseConstraint(tt.in)
				if err != nil {
					t.Fatal(err)
				}
				m, err := versions.NewUpper(tt.s, c, tt.target, p)
				if err != nil {
					t.Fatal(err)
				}
				preserve := st.strategy == versions.Preserve
				if m.Text != st.want || !m.Changed || m.Conflict || m.Narrows || m.RaisesLower != preserve {
					t.Fatalf("NewUpper(%q, %s) = %+v, want %q", tt.in, tt.target, m, st.want)
				}
				nc, err := tt.s.ParseConstraint(m.Text)
				if err != nil {
					t.Fatal(err)
				}
				if !preserve {
					if !strings.Contains(m.Reason, "to keep the lower bound (cap: "+string(st.strategy)+")") ||
						st.strategy == versions.Inclusive && !strings.Contains(m.Reason, tt.reason) {
						t.Errorf("reason %q", m.Reason)
					}
					oldLo, _, ok1 := versions.Bounds(tt.s, c)
					newLo, _, ok2 := versions.Bounds(tt.s, nc)
					if !ok1 || !ok2 || versions.CompareLower(tt.s, oldLo, newLo) != 0 {
						t.Errorf("lower bound %v became %v", oldLo, newLo)
					}
				}
				if m2, err := versions.NewUpper(tt.s, nc, tt.target, p); err != nil || m2.Changed {
					t.Errorf("second NewUpper(%q) = %+v, %v; want no change", m.Text, m2, err)
				}
			})
		}
	}
}

// TestNewUpperOneClauseRangesLeftAlone: a one-clause range that admits the
// newest release, one whose lower end is above it, one beside another cap
// and conda's bare version (an exact match, not a range) are not expanded.
func TestNewUpperOneClauseRangesLeftAlone(t *testing.T) {
	pep, po, co := pep440.Scheme{}, poetry.Scheme{}, conda.Scheme{}
	for _, tt := range []struct {
		s          versions.Scheme
		in, target string
		conflict   bool
		reason     string
	}{
		{po, "^3.7", "3.9.2", false, "^3.7 already admits 3.9.2"},
		{pep, "~=0.9", "0.12.0", false, "already admits"},
		{co, "0.61.*", "0.61.2", false, "already admits"},
		{co, "=0.50", "0.50.1", false, "already admits"},
		{po, "^0.70.0", "0.67.0", true, "^0.70.0 excludes 0.67.0"},
		{pep, "~=2.16", "2.15.0", true, "~=2.16 excludes 2.15.0"},
		{co, "0.70.*", "0.67.0", true, "excludes"},
		{pep, "~=2.16,<2.20", "3.1.0", true, "beside another cap"},
		{po, "^1.0,~1.2", "2.1.0", true, "beside another cap"},
		{co, "0.61", "0.62.1", false, "exact pin 0.61"},
		{pep, "~=2.16,!=3.1.0", "3.1.0", true, "!=3.1.0 excludes"},
		{co, "**", "0.1", true, "cannot tell the version it starts at"},
	} {
		for _, st := range []versions.Strategy{versions.Inclusive, versions.Exclusive} {
			c, err := tt.s.ParseConstraint(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			m, err := versions.NewUpper(tt.s, c, tt.target, versions.Policy{Strategy: st, AddCap: true})
			if err != nil {
				t.Fatal(err)
			}
			if m.Changed || m.Text != tt.in || m.Conflict != tt.conflict || !strings.Contains(m.Reason, tt.reason) {
				t.Errorf("%s NewUpper(%q, %s, %s) = %+v, want it left alone (conflict %v, %q)", tt.s.Name(), tt.in, tt.target, st, m, tt.conflict, tt.reason)
			}
		}
	}
}

// FuzzNewUpper moves constraints read from hostile pin files with every
// strategy of every scheme: NewUpper never panics; what it writes parses and
// admits the target (where it cannot, it returns an error, which the plan
// reports as "not edited"); and an expanded one-clause range keeps its lower
// bound and is left alone by a second run.
func FuzzNewUpper(f *testing.F) {
	for _, seed := range []string{"^3.7", "~=0.9", "~= 1.23.5", "==0.61.*", "0.47*", "=0.50", "~1.2", "^ 3.8", "1.2.*", "~=2.16,!=2.17.0", "^1.2 !=1.3.0", "~=2.16,<2.20", ">=0.58,<=0.66.0"} {
		f.Add(seed, "4.0.0", uint8(0))
	}
	schemes := []versions.Scheme{pep440.Scheme{}, poetry.Scheme{}, conda.Scheme{}}
	f.Fuzz(func(t *testing.T, text, target string, pick uint8) {
		s := schemes[int(pick)%len(schemes)]
		st := versions.Strategies[int(pick/3)%len(versions.Strategies)]
		c, err := s.ParseConstraint(text)
		if err != nil || !s.Valid(target) {
			return
		}
		p := versions.Policy{Strategy: st, AddCap: pick&0x80 != 0}
		m, err := versions.NewUpper(s, c, target, p)
		if err != nil || !m.Changed {
			return
		}
		nc, err := s.ParseConstraint(m.Text)
		if err != nil || !s.Match(target, nc) {
			t.Fatalf("%s NewUpper(%q, %q, %s) = %+v: %v", s.Name(), text, target, st, m, err)
		}
		if !strings.Contains(m.Reason, " was expanded into ") {
			return
		}
		if m.RaisesLower || m.Narrows {
			t.Fatalf("%s NewUpper(%q, %q, %s) = %+v", s.Name(), text, target, st, m)
		}
		oldLo, _, ok1 := versions.Bounds(s, c)
		newLo, _, ok2 := versions.Bounds(s, nc)
		if ok1 && (!ok2 || versions.CompareLower(s, oldLo, newLo) != 0) {
			t.Fatalf("%s NewUpper(%q, %q, %s) = %q: lower bound %v became %v", s.Name(), text, target, st, m.Text, oldLo, newLo)
		}
		if m2, err := versions.NewUpper(s, nc, target, p); err != nil || m2.Changed {
			t.Fatalf("%s second NewUpper(%q, %q, %s) = %+v, %v", s.Name(), m.Text, target, st, m2, err)
		}
	})
}
