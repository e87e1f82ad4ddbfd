package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/all"
	"github.com/pinbot-dev/pinbot/versions/pep440"
	"github.com/pinbot-dev/pinbot/versions/poetry"
	"github.com/pinbot-dev/pinbot/versions/semver"
)

// schemes are the schemes these tests need, whether or not versions/all lists
// them yet.
func schemes() map[string]versions.Scheme {
	m := all.Schemes()
	m[pep440.Name], m[poetry.Name], m[semver.Name] = pep440.Scheme{}, poetry.Scheme{}, semver.Scheme{}
	return m
}

func pypi(vs ...string) []plan.Lookup {
	var rs []sources.Release
	for _, v := range vs {
		y := strings.HasSuffix(v, "!yanked")
		rs = append(rs, rel(strings.TrimSuffix(v, "!yanked")))
		rs[len(rs)-1].Yanked = y
	}
	return []plan.Lookup{{Source: "pypi", Releases: rs}}
}

func afters(p plan.Plan) []string {
	var out []string
	for _, pp := range p.Pins {
		s := pp.Pin.With(pp.New)
		if pp.Changed {
			s += " (changed)"
		}
		if pp.RaisesLower {
			s += " (raises lower)"
		}
		out = append(out, s)
	}
	return out
}

func TestMakeStrategies(t *testing.T) {
	ps := []pins.Pin{
		pin("pyproject.toml", 53, "numba>=0.58,<=0.66.0", ">=0.58,<=0.66.0"),
		pin("pyproject.toml", 54, "numba>0.57,<1", ">0.57,<1"),
		pin("requirements.txt", 3, "numba==0.61.0", "==0.61.0"),
		pin("requirements.txt", 4, "numba~=0.61.0", "~=0.61.0"),
		pin("requirements.txt", 5, "numba>=0.57", ">=0.57"),
	}
	poetryPin := pin("pyproject.toml", 14, "numba^0.56.0", "^0.56.0")
	poetryPin.Scheme = "poetry"
	ps = append(ps, poetryPin)
	tests := []struct {
		strategy versions.Strategy
		want     []string
	}{
		// One-clause ranges are expanded and keep their lower bound; an
		// exact pin is not moved.
		{versions.Inclusive, []string{
			"numba>=0.58,<=0.67.0 (changed)", "numba>0.57,<=0.67.0 (changed)", "numba==0.61.0", "numba>=0.61.0,<=0.67.0 (changed)",
			"numba>=0.57,<=0.67.0 (changed)", "numba>=0.56.0,<=0.67.0 (changed)"}},
		{versions.Exclusive, []string{
			"numba>=0.58,<0.67.1 (changed)", "numba>0.57,<1", "numba==0.61.0", "numba>=0.61.0,<0.67.1 (changed)",
			"numba>=0.57,<0.68 (changed)", "numba>=0.56.0,<0.67.1 (changed)"}},
		{versions.Preserve, []string{
			"numba>=0.58,<=0.67.0 (changed)", "numba>0.57,<1", "numba==0.67.0 (changed) (raises lower)", "numba~=0.67.0 (changed) (raises lower)",
			"numba>=0.57,<=0.67.0 (changed)", "numba^0.67.0 (changed) (raises lower)"}},
	}
	for _, tt := range tests {
		pkg := plan.Package{Name: "numba", Policy: versions.Policy{Strategy: tt.strategy, AddCap: true}}
		p := plan.Make(pkg, ps, pypi("0.66.0", "0.67.0"), schemes())
		if p.Status != plan.Bump || p.Err != nil {
			t.Fatalf("%s: plan = %+v", tt.strategy, p)
		}
		if diff := cmp.Diff(tt.want, afters(p)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.strategy, diff)
		}
	}
}

func TestMakeYanked(t *testing.T) {
	ps := []pins.Pin{pin("pyproject.toml", 53, "numba>=0.58,<=0.67.1", ">=0.58,<=0.67.1")}
	lookups := pypi("0.66.0", "0.67.0", "0.67.1!yanked")
	pkg := plan.Package{Name: "numba", Policy: versions.Policy{Strategy: versions.Inclusive, AddCap: true}}
	p := plan.Make(pkg, ps, lookups, schemes())
	if p.Status != plan.Current || !p.Pins[0].Yanked || p.Pins[0].Changed || !strings.Contains(p.Pins[0].Reason, "yanked") {
		t.Errorf("yanked: report: %+v", p.Pins[0])
	}
	pkg.FollowYanked = true
	p = plan.Make(pkg, ps, lookups, schemes())
	if p.Status != plan.Bump || !p.Pins[0].Lowers || p.Pins[0].New != ">=0.58,<=0.67.0" {
		t.Errorf("yanked: follow: %+v", p.Pins[0])
	}
}

func TestMakeGoModule(t *testing.T) {
	mod := func(v string) pins.Pin {
		return pins.Pin{File: "go.mod", Line: 5, Key: "require golang.org/x/mod", Package: "golang.org/x/mod",
			Text: "golang.org/x/mod " + v, TextStart: 100, Span: pins.Span{Start: 117, End: 117 + len(v)}, Constraint: v,
			Source: "goproxy", Scheme: "semver"}
	}
	ps := []pins.Pin{mod("v0.41.0"), mod("v0.42.0")}
	ps[1].File = "tools/go.mod"
	lookups := []plan.Lookup{{Source: "goproxy", Releases: []sources.Release{rel("v0.41.0"), rel("v0.42.0"), rel("v0.43.0-rc.1")}}}
	pkg := plan.Package{Name: "golang.org/x/mod", Policy: versions.Policy{Strategy: versions.Inclusive, AddCap: true}}
	p := plan.Make(pkg, ps, lookups, schemes())
	want := []string{"golang.org/x/mod v0.42.0 (changed) (raises lower)", "golang.org/x/mod v0.42.0"}
	if p.Target != "v0.42.0" || p.Status != plan.Bump {
		t.Fatalf("plan = %+v", p)
	}
	if diff := cmp.Diff(want, afters(p)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func describeDrift(ds []plan.Drift) []string {
	var out []string
	for _, d := range ds {
		var at []string
		for _, p := range d.Pins {
			at = append(at, fmt.Sprintf("%s:%d", p.File, p.Line))
		}
		out = append(out, fmt.Sprintf("[%s] %s %s: %s", d.Marker, d.Lower, d.Upper, strings.Join(at, " ")))
	}
	return out
}

func TestDriftAndUnify(t *testing.T) {
	ps := []pins.Pin{
		pin("pyproject.toml", 53, "numba>=0.58,<=0.66.0", ">=0.58,<=0.66.0"),
		pin("pyproject.toml", 81, "numba>=0.58,<=0.66.0", ">=0.58,<=0.66.0"),
		pin("requirements.txt", 3, "numba>=0.57", ">=0.57"),
		pin("requirements.txt", 4, "numba", ""),
		pin("requirements.txt", 5, "numba>=0.50,<0.60; python_version < '3.9'", ">=0.50,<0.60"),
		pin("requirements.txt", 6, "numba~=0.67.0", "~=0.67.0"),
	}
	pkg := plan.Package{Name: "numba", Policy: versions.Policy{Strategy: versions.Inclusive, AddCap: false}}
	p := plan.Make(pkg, ps, pypi("0.66.0", "0.67.0"), schemes())
	wantDrift := []string{
		"[] >=0.58 <=0.67.0: pyproject.toml:53 pyproject.toml:81",
		"[] >=0.57 : requirements.txt:3",
		"[]  : requirements.txt:4",
		"[] >=0.67.0 <0.68: requirements.txt:6",
	}
	if diff := cmp.Diff(wantDrift, describeDrift(p.Drift)); diff != "" {
		t.Errorf("drift (-want +got):\n%s", diff)
	}

	pkg.Unify = true
	p = plan.Make(pkg, ps, pypi("0.66.0", "0.67.0"), schemes())
	want := []string{
		"numba>=0.58,<=0.67.0 (changed)",
		"numba>=0.58,<=0.67.0 (changed)",
		"numba>=0.58 (changed) (raises lower)", // add-cap is off: no cap is added
		"numba>=0.58 (changed) (raises lower)",
		"numba>=0.50,<=0.67.0; python_version < '3.9' (changed)", // its own marker group: alone
		"numba~=0.67.0", // one clause for both bounds: kept
	}
	if diff := cmp.Diff(want, afters(p)); diff != "" {
		t.Errorf("unify (-want +got):\n%s", diff)
	}
	if !strings.Contains(p.Pins[5].Reason, "not unified") || !strings.Contains(p.Pins[2].Reason, "unified with the package's other pins to >=0.58,<=0.67.0") {
		t.Errorf("reasons: %q / %q", p.Pins[5].Reason, p.Pins[2].Reason)
	}

	// With add-cap on, every pin reaches one range; a second plan changes nothing.
	pkg.Policy.AddCap = true
	ps = ps[:4]
	p = plan.Make(pkg, ps, pypi("0.66.0", "0.67.0"), schemes())
	want = []string{
		"numba>=0.58,<=0.67.0 (changed)", "numba>=0.58,<=0.67.0 (changed)",
		"numba>=0.58,<=0.67.0 (changed) (raises lower)", "numba>=0.58,<=0.67.0 (changed) (raises lower)",
	}
	if diff := cmp.Diff(want, afters(p)); diff != "" {
		t.Errorf("unify with add-cap (-want +got):\n%s", diff)
	}
	if len(p.Drift) != 0 {
		t.Errorf("drift after unify: %v", describeDrift(p.Drift))
	}
	for i := range ps {
		ps[i].Text = p.Pins[i].Pin.With(p.Pins[i].New)
		ps[i] = pin(ps[i].File, ps[i].Line, ps[i].Text, p.Pins[i].New)
	}
	if p2 := plan.Make(pkg, ps, pypi("0.66.0", "0.67.0"), schemes()); p2.Status != plan.Current {
		t.Errorf("second unify: %+v", afters(p2))
	}
}

// TestDriftAndUnifyExpanded: a one-clause range the plan expands keeps its own
// lower bound (no raises_lower, no narrows), so drift reports it as its own
// range; with unify it is separate bounds like any other and is brought to the
// package's range, which raises its lower bound and says so. A one-clause
// range that admits the target keeps its shape.
func TestDriftAndUnifyExpanded(t *testing.T) {
	caret := pin("pyproject.toml", 14, `numba = "^0.56.0"`, "^0.56.0")
	caret.Scheme = "poetry"
	ps := []pins.Pin{
		pin("pyproject.toml", 53, "numba>=0.58,<=0.66.0", ">=0.58,<=0.66.0"),
		caret,
		pin("requirements.txt", 6, "numba~=0.67.0", "~=0.67.0"),
	}
	pkg := plan.Package{Name: "numba", Policy: versions.Policy{Strategy: versions.Inclusive, AddCap: true}}
	p := plan.Make(pkg, ps, pypi("0.66.0", "0.67.0"), schemes())
	want := []string{"numba>=0.58,<=0.67.0 (changed)", `numba = ">=0.56.0,<=0.67.0" (changed)`, "numba~=0.67.0"}
	if diff := cmp.Diff(want, afters(p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if pp := p.Pins[1]; pp.Narrows || pp.RaisesLower || pp.Conflict || !strings.Contains(pp.Reason, "the operator ^ was expanded into >=0.56.0,<=0.67.0 to keep the lower bound") {
		t.Errorf("expanded pin: %+v", pp)
	}
	wantDrift := []string{
		"[] >=0.58 <=0.67.0: pyproject.toml:53",
		"[] >=0.56.0 <=0.67.0: pyproject.toml:14",
		"[] >=0.67.0 <0.68: requirements.txt:6",
	}
	if diff := cmp.Diff(wantDrift, describeDrift(p.Drift)); diff != "" {
		t.Errorf("drift (-want +got):\n%s", diff)
	}

	pkg.Unify = true
	p = plan.Make(pkg, ps, pypi("0.66.0", "0.67.0"), schemes())
	want = []string{"numba>=0.58,<=0.67.0 (changed)", `numba = ">=0.58,<=0.67.0" (changed) (raises lower)`, "numba~=0.67.0"}
	if diff := cmp.Diff(want, afters(p)); diff != "" {
		t.Errorf("unify (-want +got):\n%s", diff)
	}
	if r := p.Pins[1].Reason; !strings.Contains(r, "expanded into >=0.56.0,<=0.67.0") || !strings.Contains(r, "unified with the package's other pins to >=0.58,<=0.67.0; this raises the lower bound") {
		t.Errorf("unified expanded pin: reason %q", r)
	}
	if !strings.Contains(p.Pins[2].Reason, "not unified: ~=0.67.0 is one clause for both bounds") {
		t.Errorf("kept pin: reason %q", p.Pins[2].Reason)
	}
}

func TestMakeUnknownScheme(t *testing.T) {
	ps := []pins.Pin{pin("pyproject.toml", 53, "numba>=0.58", ">=0.58")}
	ps[0].Scheme = "nonesuch"
	p := plan.Make(numba, ps, pypi("0.67.0"), map[string]versions.Scheme{"pep440": pep440.Scheme{}})
	if p.Status != plan.Error || !strings.Contains(fmt.Sprint(p.Err), `no version scheme`) {
		t.Errorf("plan = %+v", p)
	}
}

// TestDriftGroups: pins are compared for drift only with pins that apply under
// the same condition and are, like them, build or runtime requirements.
func TestDriftGroups(t *testing.T) {
	mk := func(file string, line int, text, c, cond string, build bool) pins.Pin {
		p := pin(file, line, text, c)
		p.Condition, p.Build = cond, build
		return p
	}
	tests := []struct {
		name  string
		pins  []pins.Pin
		drift int // ranges reported
	}{
		{"two files disagree", []pins.Pin{
			mk("pyproject.toml", 53, "numba>=0.58,<=0.66.0", ">=0.58,<=0.66.0", "", false),
			mk("environment.yml", 24, "numba>=0.57", ">=0.57", "", false)}, 2},
		{"one file, dependencies vs extra (editing.md §4.1)", []pins.Pin{
			mk("pyproject.toml", 53, "numba>0.57,<1", ">0.57,<1", "", false),
			mk("pyproject.toml", 84, "numba>=0.57", ">=0.57", "", false)}, 2},
		{"selector branches", []pins.Pin{
			mk("meta.yaml", 13, "numba >=0.58,<=0.66.0", ">=0.58,<=0.66.0", "linux", false),
			mk("meta.yaml", 14, "numba >=0.59,<0.62", ">=0.59,<0.62", "osx", false)}, 0},
		{"build vs run", []pins.Pin{
			mk("pyproject.toml", 2, "numba>=0.59", ">=0.59", "", true),
			mk("pyproject.toml", 53, "numba>=0.58,<=0.66.0", ">=0.58,<=0.66.0", "", false)}, 0},
		{"build pins among themselves", []pins.Pin{
			mk("meta.yaml", 13, "numba >=0.58", ">=0.58", "", true),
			mk("recipe.yaml", 20, "numba >=0.59", ">=0.59", "", true)}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plan.Make(numba, tt.pins, pypi("0.67.0"), schemes())
			if len(p.Drift) != tt.drift {
				t.Errorf("drift = %+v, want %d ranges", p.Drift, tt.drift)
			}
		})
	}
}
