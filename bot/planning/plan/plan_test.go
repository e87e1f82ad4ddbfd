package plan_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions"
	"github.com/pinbot-dev/pinbot/versions/all"
)

func rel(v string, opts ...string) sources.Release {
	r := sources.Release{Version: v, Files: []sources.File{{Name: "x.whl"}}}
	for _, o := range opts {
		switch o {
		case "yanked":
			r.Yanked = true
		case "nofiles":
			r.Files = nil
		}
	}
	return r
}

func pin(file string, line int, text, constraint string) pins.Pin {
	start := strings.Index(text, constraint)
	if constraint == "" {
		start = len(text)
	}
	return pins.Pin{File: file, Line: line, Key: "k", Package: "numba", Text: text, Constraint: constraint,
		TextStart: 100, Span: pins.Span{Start: 100 + start, End: 100 + start + len(constraint)}, Source: "pypi", Scheme: "pep440"}
}

var numba = plan.Package{Name: "numba", Policy: versions.Policy{Strategy: versions.Inclusive, AddCap: true}}

func TestMake(t *testing.T) {
	history := []sources.Release{rel("0.66.0"), rel("0.67.0"), rel("0.67.0rc1"), rel("0.68.0.dev0"), rel("0.61.1", "nofiles"), rel("0.67.1", "yanked")}
	ps := []pins.Pin{
		pin("pyproject.toml", 53, "numba>=0.58,<=0.66.0", ">=0.58,<=0.66.0"),
		pin("pyproject.toml", 81, "numba>=0.58,<=0.66.0", ">=0.58,<=0.66.0"),
		pin("requirements.txt", 3, "numba", ""),
		pin("setup.cfg", 9, "numba>=0.58,<=0.67.0", ">=0.58,<=0.67.0"),
	}
	p := plan.Make(numba, ps, []plan.Lookup{{Source: "pypi", Releases: history}}, all.Schemes())
	if p.Status != plan.Bump || p.Target != "0.67.0" || p.Newest["pypi"] != "0.67.0" || p.Reason != "pypi has 0.67.0" || p.Err != nil {
		t.Fatalf("plan = %+v", p)
	}
	want := []struct {
		after   string
		changed bool
	}{
		{"numba>=0.58,<=0.67.0", true},
		{"numba>=0.58,<=0.67.0", true},
		{"numba<=0.67.0", true},
		{"numba>=0.58,<=0.67.0", false},
	}
	for i, w := range want {
		pp := p.Pins[i]
		if got := pp.Pin.With(pp.New); got != w.after || pp.Changed != w.changed {
			t.Errorf("pin %d: %q changed=%v, want %q changed=%v (%s)", i, got, pp.Changed, w.after, w.changed, pp.Reason)
		}
	}

	// Opting in to pre-releases makes the dev release the target.
	pre := numba
	pre.Prereleases = true
	if p := plan.Make(pre, ps, []plan.Lookup{{Source: "pypi", Releases: history}}, all.Schemes()); p.Target != "0.68.0.dev0" {
		t.Errorf("with prereleases: target %q", p.Target)
	}
}

func TestMakeCurrent(t *testing.T) {
	ps := []pins.Pin{pin("pyproject.toml", 53, "numba>=0.58,<=0.67.0", ">=0.58,<=0.67.0")}
	p := plan.Make(numba, ps, []plan.Lookup{{Source: "pypi", Releases: []sources.Release{rel("0.67.0")}}}, all.Schemes())
	if p.Status != plan.Current || p.Pins[0].Changed {
		t.Fatalf("plan = %+v", p)
	}
}

// TestMakeUnreadableConstraint plans a package one of whose pins has a
// constraint the scheme cannot read: that pin is left as written with a
// warning naming its place, and the package's other pins still move.
func TestMakeUnreadableConstraint(t *testing.T) {
	ps := []pins.Pin{
		pin("pyproject.toml", 9, "numba>>0.58", ">>0.58"),
		pin("requirements.txt", 2, "numba>=0.58,<=0.66.0", ">=0.58,<=0.66.0"),
	}
	p := plan.Make(numba, ps, []plan.Lookup{{Source: "pypi", Releases: []sources.Release{rel("0.67.0")}}}, all.Schemes())
	if p.Status != plan.Bump || p.Err != nil {
		t.Fatalf("plan = %+v, want a bump", p)
	}
	if len(p.Warnings) != 1 || !strings.HasPrefix(p.Warnings[0].Error(), "pyproject.toml:9: ") || !strings.Contains(p.Warnings[0].Error(), `">>0.58" does not parse`) {
		t.Errorf("warnings %v", p.Warnings)
	}
	if bad := p.Pins[0]; bad.Changed || !strings.Contains(bad.Reason, "does not parse") {
		t.Errorf("unreadable pin: %+v", bad)
	}
	if good := p.Pins[1]; !good.Changed || good.New != ">=0.58,<=0.67.0" {
		t.Errorf("other pin: %+v", good)
	}
}

func TestMakeErrors(t *testing.T) {
	ps := []pins.Pin{pin("pyproject.toml", 53, "numba>=0.58,<=0.66.0", ">=0.58,<=0.66.0")}
	tests := []struct {
		name    string
		lookups []plan.Lookup
		pins    []pins.Pin
		want    string
	}{
		{"source failed", []plan.Lookup{{Source: "pypi", Err: errors.New("503 Service Unavailable")}}, ps, "pypi: 503"},
		{"nothing acceptable", []plan.Lookup{{Source: "pypi", Releases: []sources.Release{rel("1.0rc1"), rel("0.9", "yanked")}}}, ps,
			"no acceptable release among 2 (1 yanked, 1 pre-releases"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plan.Make(numba, tt.pins, tt.lookups, all.Schemes())
			if p.Status != plan.Error || p.Err == nil || !strings.Contains(p.Err.Error(), tt.want) {
				t.Fatalf("plan = %+v, want error %q", p, tt.want)
			}
			for _, pp := range p.Pins {
				if pp.Changed {
					t.Errorf("a failed plan changes %s", pp.Pin.Text)
				}
			}
		})
	}
}

func TestMakeSeveralSources(t *testing.T) {
	ps := []pins.Pin{pin("pyproject.toml", 53, "numba>=0.58,<=0.65.0", ">=0.58,<=0.65.0")}
	ps = append(ps, ps[0])
	ps[1].Source = "mirror"
	p := plan.Make(numba, ps, []plan.Lookup{
		{Source: "pypi", Releases: []sources.Release{rel("0.67.0")}},
		{Source: "mirror", Releases: []sources.Release{rel("0.66.0")}},
	}, all.Schemes())
	if p.Target != "0.66.0" || p.Reason != "mirror has 0.66.0, pypi has 0.67.0 → 0.66.0" {
		t.Fatalf("plan = %+v", p)
	}
}

// TestMakeMajor: a cap on a major-version boundary that moves to admit the
// next major version is marked, with the bounds, and its reason says so; a
// cap moving inside a major version and a cap added where there was none are
// not; a pin reverted loses the mark.
func TestMakeMajor(t *testing.T) {
	protobuf := plan.Package{Name: "protobuf", Policy: versions.Policy{Strategy: versions.Preserve, AddCap: true}}
	ps := []pins.Pin{
		pin("requirements.txt", 2, "protobuf>=5.29.3,<7", ">=5.29.3,<7"),
		pin("pyproject.toml", 9, "protobuf<=6.31.1", "<=6.31.1"),
		pin("setup.cfg", 4, "protobuf>=6", ">=6"),
		pin("env.txt", 1, "protobuf<=7.0.0", "<=7.0.0"),
	}
	for i := range ps {
		ps[i].Package = "protobuf"
	}
	p := plan.Make(protobuf, ps, []plan.Lookup{{Source: "pypi", Releases: []sources.Release{rel("6.33.0"), rel("7.34.0")}}}, all.Schemes())
	if p.Status != plan.Bump || p.Target != "7.34.0" {
		t.Fatalf("plan = %+v", p)
	}
	for i, want := range []string{"<7 → <8", "<=6.31.1 → <=7.34.0", "", ""} {
		pp := p.Pins[i]
		got := ""
		if pp.Major != nil {
			got = pp.Major.From.String() + " → " + pp.Major.To.String()
		}
		if got != want || !pp.Changed {
			t.Errorf("%s: major %q, want %q (changed %v: %s)", pp.Pin.Text, got, want, pp.Changed, pp.Reason)
		}
		if says := strings.Contains(pp.Reason, "crosses a major version ("+want+")"); says != (want != "") {
			t.Errorf("%s: reason %q", pp.Pin.Text, pp.Reason)
		}
	}
	p.Revert(0, "not moved: no hashes")
	if p.Pins[0].Major != nil {
		t.Error("a reverted pin keeps its major mark")
	}
	p.HoldAll("its group cannot move")
	for _, pp := range p.Pins {
		if pp.Major != nil {
			t.Errorf("%s: held, yet marked major", pp.Pin.Text)
		}
	}
}
