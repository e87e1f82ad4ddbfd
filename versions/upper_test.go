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
		{"compatible release excludes", "~=2.16", "3.0.0", on, "~=2.16", false, true, "caps below"},
		{"prefix pin excludes", "==2.16.*", "2.17.0", on, "==2.16.*", false, true, "caps below"},
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
		{"~=2.16", "3.1.0", versions.Exclusive, true, want{text: "~=2.16", conflict: true, reason: "cap: preserve"}},
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
