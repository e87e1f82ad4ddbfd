package versions_test

import (
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/pep440"
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
