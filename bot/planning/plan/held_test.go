package plan_test

import (
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/all"
)

// TestHeld: a cap the strategy does not rewrite and that shuts out the target
// holds the package (status held, not current), with the reason and the
// configuration that would move it; current means every pin admits the
// target.
func TestHeld(t *testing.T) {
	poetry := func(c string) pins.Pin {
		p := pin("pyproject.toml", 12, `numba = "`+c+`"`, c)
		p.Scheme = "poetry"
		return p
	}
	releases := []plan.Lookup{{Source: "pypi", Releases: []sources.Release{rel("0.56.4"), rel("0.66.0"), rel("0.67.0"), rel("0.67.1", "yanked")}}}
	tests := []struct {
		name   string
		pkg    plan.Package
		pins   []pins.Pin
		status plan.Status
		held   []bool
		fix    string
		hold   string // a part of Plan.Hold
	}{
		{"poetry caret: expanded, not held", numba, []pins.Pin{poetry("^0.56.0")}, plan.Bump, []bool{false}, "", ""},
		{"poetry caret beside another cap", numba, []pins.Pin{poetry("^0.56.0,<0.60")}, plan.Held, []bool{true}, "cap: preserve",
			`pyproject.toml:12 numba = "^0.56.0,<0.60" shuts out 0.67.0: ^0.56.0 caps below 0.67.0 beside another cap; the inclusive strategy expands a one-clause range only when it is the pin's only cap (cap: preserve moves both)`},
		{"exact pin", numba, []pins.Pin{pin("requirements.txt", 3, "numba==0.66.0", "==0.66.0")}, plan.Held, []bool{true}, "cap: preserve",
			"requirements.txt:3 numba==0.66.0 shuts out 0.67.0: exact pin ==0.66.0; the inclusive strategy does not move exact pins (cap: preserve does)"},
		{"compatible release: expanded, not held", numba, []pins.Pin{pin("requirements.txt", 3, "numba~=0.56.0", "~=0.56.0")}, plan.Bump, []bool{false}, "", ""},
		{"an exclusion no strategy moves", numba, []pins.Pin{pin("requirements.txt", 3, "numba!=0.67.0", "!=0.67.0")}, plan.Held, []bool{true}, "", "!=0.67.0 excludes 0.67.0"},
		{"yanked exact pin", numba, []pins.Pin{pin("requirements.txt", 3, "numba==0.67.1", "==0.67.1")}, plan.Held, []bool{true}, "yanked: follow", "(yanked: follow moves it to 0.67.0)"},
		{"preserve moves it", plan.Package{Name: "numba", Policy: versions.Policy{Strategy: versions.Preserve, AddCap: true}},
			[]pins.Pin{poetry("^0.56.0")}, plan.Bump, []bool{false}, "", ""},
		{"a pin that moves beside a held one", numba,
			[]pins.Pin{pin("pyproject.toml", 3, "numba<=0.66.0", "<=0.66.0"), pin("requirements.txt", 3, "numba==0.66.0", "==0.66.0")},
			plan.Bump, []bool{false, true}, "", ""},
		{"current: every pin admits the target", numba,
			[]pins.Pin{pin("pyproject.toml", 3, "numba<=0.67.0", "<=0.67.0"), pin("requirements.txt", 3, "numba>=0.50", ">=0.50")},
			plan.Current, []bool{false, false}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pkg := tt.pkg
			pkg.Policy.AddCap = false // the second current pin has no cap and keeps none
			p := plan.Make(pkg, tt.pins, releases, all.Schemes())
			if p.Status != tt.status || !strings.Contains(p.Hold, tt.hold) || (tt.status != plan.Held) != (p.Hold == "") {
				t.Fatalf("status %s, hold %q; want %s with %q", p.Status, p.Hold, tt.status, tt.hold)
			}
			for i, want := range tt.held {
				if p.Pins[i].Held != want {
					t.Errorf("pin %d held = %v, want %v (%s)", i, p.Pins[i].Held, want, p.Pins[i].Reason)
				}
			}
			if tt.fix != "" && p.Pins[0].Fix != tt.fix {
				t.Errorf("fix = %q, want %q", p.Pins[0].Fix, tt.fix)
			}
		})
	}
}

// TestHeldSkipped: a pin pinbot does not edit (a compiled lock file) that
// shuts out the target holds the package too, with its skip reason and no
// configuration to move it.
func TestHeldSkipped(t *testing.T) {
	p0 := pin("requirements.txt", 4, "numba==0.66.0", "==0.66.0")
	p0.Skip = "compiled by pip-compile: regenerate it from its .in"
	p := plan.Make(numba, []pins.Pin{p0}, []plan.Lookup{{Source: "pypi", Releases: []sources.Release{rel("0.66.0"), rel("0.67.0")}}}, all.Schemes())
	if p.Status != plan.Held || !p.Pins[0].Held || p.Pins[0].Fix != "" || !strings.Contains(p.Hold, "regenerate it from its .in") {
		t.Errorf("plan = %s %q %+v", p.Status, p.Hold, p.Pins[0])
	}
}

// TestRevertHolds: a moved pin reverted after the plan (its new hashes could
// not be had) leaves the package held when it shuts out the target, current
// when it already admitted it.
func TestRevertHolds(t *testing.T) {
	lookups := []plan.Lookup{{Source: "pypi", Releases: []sources.Release{rel("0.66.0"), rel("0.67.0")}}}
	preserve := plan.Package{Name: "numba", Policy: versions.Policy{Strategy: versions.Preserve, AddCap: true}}
	p := plan.Make(preserve, []pins.Pin{pin("requirements.txt", 3, "numba==0.66.0", "==0.66.0")}, lookups, all.Schemes())
	if p.Status != plan.Bump {
		t.Fatalf("status %s", p.Status)
	}
	p.Revert(0, "not edited: no hashes")
	if p.Status != plan.Held || !p.Pins[0].Held || p.Pins[0].Changed || !strings.Contains(p.Hold, "no hashes") {
		t.Errorf("after revert: %s %q %+v", p.Status, p.Hold, p.Pins[0])
	}
	inclusive := plan.Make(numba, []pins.Pin{pin("pyproject.toml", 3, "numba>0.57,<1", ">0.57,<1")}, lookups, all.Schemes())
	if inclusive.Status != plan.Bump || !inclusive.Pins[0].Narrows {
		t.Fatalf("status %s", inclusive.Status)
	}
	inclusive.Revert(0, "not edited")
	if inclusive.Status != plan.Current || inclusive.Pins[0].Held {
		t.Errorf("a reverted pin that admits the target: %s %+v", inclusive.Status, inclusive.Pins[0])
	}
	inclusive.SetHeld("no probe environment for 0.67.0")
	if inclusive.Status != plan.Held || inclusive.Hold != "no probe environment for 0.67.0" {
		t.Errorf("SetHeld: %s %q", inclusive.Status, inclusive.Hold)
	}
}

// TestHoldAll: a package held for a cause outside its pins (its group has
// no consistent set) moves nothing; Hold gives what else shut the target
// out, then the cause; a package that was current stays current.
func TestHoldAll(t *testing.T) {
	lookups := []plan.Lookup{{Source: "pypi", Releases: []sources.Release{rel("0.66.0"), rel("0.67.0")}}}
	p := plan.Make(numba, []pins.Pin{pin("pyproject.toml", 3, "numba<=0.66.0", "<=0.66.0"), pin("requirements.txt", 3, "numba==0.66.0", "==0.66.0")}, lookups, all.Schemes())
	if p.Status != plan.Bump {
		t.Fatalf("status %s", p.Status)
	}
	p.HoldAll("group numba-stack: no consistent set")
	want := "requirements.txt:3 numba==0.66.0 shuts out 0.67.0: exact pin ==0.66.0; the inclusive strategy does not move exact pins (cap: preserve does); group numba-stack: no consistent set"
	if p.Status != plan.Held || p.Hold != want || p.Pins[0].Changed || !p.Pins[0].Held || p.Pins[0].Reason != "not moved: group numba-stack: no consistent set" {
		t.Errorf("held: %s %q %+v", p.Status, p.Hold, p.Pins[0])
	}
	current := plan.Make(numba, []pins.Pin{pin("pyproject.toml", 3, "numba<=0.67.0", "<=0.67.0")}, lookups, all.Schemes())
	current.HoldAll("group numba-stack: no consistent set")
	if current.Status != plan.Current || current.Hold != "" {
		t.Errorf("current: %s %q", current.Status, current.Hold)
	}
}
