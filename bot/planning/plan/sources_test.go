package plan_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions/all"
)

// stumpyPins are the numba pins of stumpy's tree: its environment file
// follows the numba channel (its first), pixi's table in pyproject.toml
// conda-forge, the PyPI pins pypi.
func stumpyPins() []pins.Pin {
	env := pin("environment.yml", 8, "numba>=0.61.2,<=0.65.1", ">=0.61.2,<=0.65.1")
	env.Source, env.Scheme = "numba", "conda"
	env.SourceAt = pins.Place{Line: 2, Col: 5, Key: "channels[0]"}
	pixi := pin("pyproject.toml", 79, `numba = ">=0.61.2,<=0.65.1"`, ">=0.61.2,<=0.65.1")
	pixi.Source, pixi.Scheme = "conda-forge", "conda"
	pixi.SourceAt = pins.Place{Line: 70, Col: 13, Key: "tool.pixi.workspace.channels[0]"}
	return []pins.Pin{
		env,
		pin("pyproject.toml", 42, "numba >= 0.61.2,<=0.65.1", ">= 0.61.2,<=0.65.1"),
		pixi,
		pin("requirements.txt", 3, "numba>=0.61.2,<=0.65.1", ">=0.61.2,<=0.65.1"),
	}
}

// TestMakeFailedSource: a source that cannot be asked fails the pins that
// follow it, each saying where its file names the source, and no others:
// the package is planned from the sources that answered, with a warning.
// A source with no acceptable release fails its pins alike. When every pin
// fails, or a required source does, the package is an error.
func TestMakeFailedSource(t *testing.T) {
	notFound := fmt.Errorf("GET https://api.anaconda.org/package/numba/numba: 404 Not Found: %w", sources.ErrNotFound)
	lookups := []plan.Lookup{
		{Source: "conda-forge", Releases: condaHistory()},
		{Source: "numba", Err: notFound},
		{Source: "pypi", Releases: pypiHistory()},
	}
	p := plan.Make(numba, stumpyPins(), lookups, all.Schemes())
	if p.Status != plan.Bump || p.Target != "0.67.0" || p.Err != nil || p.Reason != "conda-forge has 0.67.0, pypi has 0.67.0 → 0.67.0" {
		t.Fatalf("plan %+v", p)
	}
	failure := "environment.yml:2:5: channels[0]: numba: cannot be asked: " + notFound.Error()
	env := p.Pins[0]
	if env.Changed || env.Failed != failure || env.Reason != "not edited: "+failure || env.Held {
		t.Errorf("environment.yml pin %+v", env)
	}
	for _, pp := range p.Pins[1:] {
		if !pp.Changed || pp.New != strings.Replace(pp.Pin.Constraint, "0.65.1", "0.67.0", 1) || pp.Failed != "" {
			t.Errorf("%s:%d: %+v, want moved to 0.67.0", pp.Pin.File, pp.Pin.Line, pp)
		}
	}
	want := []string{failure + " (the numba pins that follow it are left as written; the package's other pins are planned)"}
	var got []string
	for _, w := range p.Warnings {
		got = append(got, w.Error())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got)\n%s", diff)
	}

	// A label channel whose label has no release: the same, said so.
	dev := stumpyPins()
	dev[0].Source = "numba/label/dev"
	devLookups := []plan.Lookup{lookups[0], {Source: "numba/label/dev", Releases: []sources.Release{rel("0.68.0rc1")}}, lookups[2]}
	p = plan.Make(numba, dev, devLookups, all.Schemes())
	if p.Status != plan.Bump || !strings.HasSuffix(p.Pins[0].Reason, "channels[0]: numba/label/dev: no acceptable release among 1 (0 yanked, 1 pre-releases, 0 without files, 0 invalid)") {
		t.Errorf("label channel: %s %q", p.Status, p.Pins[0].Reason)
	}

	// Every pin's source failed: the package is an error, as before.
	p = plan.Make(numba, stumpyPins()[:1], lookups[1:2], all.Schemes())
	if p.Status != plan.Error || p.Err == nil || p.Err.Error() != "numba: "+notFound.Error() || len(p.Warnings) != 0 {
		t.Errorf("only a failed source: %+v", p)
	}
	// A failed source the gate requires fails the package.
	req := gated(plan.Gate{Require: []string{"numba", "pypi"}})
	req.Gate.Schemes["numba"] = "conda"
	p = plan.Make(req, stumpyPins(), lookups, all.Schemes())
	if p.Status != plan.Error || !errors.Is(p.Err, sources.ErrNotFound) {
		t.Errorf("a required source failed: %+v", p)
	}
}

// TestMakeHeldBack: a pin whose own source has a newer release than the
// target says so, naming the release it is measured against and the
// source that set the target, and why that source is asked; the other
// words of its reason are measured against the target.
func TestMakeHeldBack(t *testing.T) {
	env := pin("environment.yml", 24, "numba>=0.57", ">=0.57")
	env.Source, env.Scheme = "conda-forge", "conda"
	ps := []pins.Pin{
		pin("pyproject.toml", 53, "numba>=0.58,<=0.66.0", ">=0.58,<=0.66.0"),
		pin("pyproject.toml", 60, "numba>=0.58,<=0.65.1", ">=0.58,<=0.65.1"),
		env,
	}
	lookups := []plan.Lookup{{Source: "pypi", Releases: pypiHistory()}, {Source: "conda-forge", Releases: condaHistory()[:2]}}
	p := plan.Make(numba, ps, lookups, all.Schemes())
	held := "0.67.0 is on pypi, but the target is 0.66.0: conda-forge has not published 0.67.0 (environment.yml governs numba through conda-forge)"
	want := []string{
		held + "; cap <=0.66.0 already admits the target",
		held + "; 0.66.0 is newer than the cap <=0.65.1",
		"no upper bound: capped at <=0.66.0",
	}
	for i, w := range want {
		if got := p.Pins[i].Reason; got != w {
			t.Errorf("pin %d reason\n%q\nwant\n%q", i, got, w)
		}
	}

	// A gate holding the target back on the pin's own source says why.
	minAge := gated(plan.Gate{MinAge: 3 * 24 * 3600e9})
	young := append(pypiHistory()[:2], wheels("0.67.0", now.Add(-30*3600e9), allWheels...))
	p = plan.Make(minAge, ps[:1], []plan.Lookup{{Source: "pypi", Releases: young}}, all.Schemes())
	if r := p.Pins[0].Reason; r != "0.67.0 is on pypi, but the target is 0.66.0: 0.67.0 is 1 day old, min-age 3d; cap <=0.66.0 already admits the target" {
		t.Errorf("min-age: %q", r)
	}
	// A yanked release on the source that sets the target: its reason.
	yanked := condaHistory()
	yanked[2].Yanked = true
	p = plan.Make(numba, ps, []plan.Lookup{lookups[0], {Source: "conda-forge", Releases: yanked}}, all.Schemes())
	if r := p.Pins[0].Reason; !strings.HasPrefix(r, "0.67.0 is on pypi, but the target is 0.66.0: 0.67.0 is yanked on conda-forge (environment.yml governs numba through conda-forge); ") {
		t.Errorf("yanked on conda-forge: %q", r)
	}
}

// TestMakeOrder: the plan, its reasons, warnings and errors name the sources
// in one order whatever order the lookups come in.
func TestMakeOrder(t *testing.T) {
	failed := errors.New("502 Bad Gateway")
	for _, tt := range []struct {
		name    string
		pkg     plan.Package
		lookups []plan.Lookup
	}{
		{"no gate", numba, []plan.Lookup{
			{Source: "conda-forge", Releases: condaHistory()}, {Source: "numba", Releases: condaHistory()[:2]}, {Source: "pypi", Releases: pypiHistory()}}},
		{"required sources", gated(plan.Gate{Require: []string{"pypi", "conda-forge"}}), []plan.Lookup{
			{Source: "conda-forge", Releases: condaHistory()}, {Source: "numba", Releases: condaHistory()[:2]}, {Source: "pypi", Releases: pypiHistory()}}},
		{"a failed source", numba, []plan.Lookup{
			{Source: "conda-forge", Releases: condaHistory()}, {Source: "numba", Err: failed}, {Source: "pypi", Releases: pypiHistory()[:2]}}},
		{"all failed", numba, []plan.Lookup{
			{Source: "conda-forge", Err: failed}, {Source: "numba", Err: failed}, {Source: "pypi", Err: errors.New("timeout")}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var first string
			for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}} {
				var ls []plan.Lookup
				for _, i := range order {
					ls = append(ls, tt.lookups[i])
				}
				p := plan.Make(tt.pkg, stumpyPins(), ls, all.Schemes())
				got := fmt.Sprintf("%s %s %q %v %v\n", p.Status, p.Target, p.Reason, p.Err, p.Warnings)
				for _, pp := range p.Pins {
					got += pp.Reason + "\n"
				}
				if first == "" {
					first = got
					t.Log(got)
				} else if got != first {
					t.Errorf("lookups in order %v:\n%s\nfirst order:\n%s", order, got, first)
				}
			}
		})
	}
	// Sources with one version are named in name order.
	p := plan.Make(gated(plan.Gate{Require: []string{"pypi", "conda-forge"}}), stumpyPins()[1:2],
		[]plan.Lookup{{Source: "pypi", Releases: pypiHistory()}, {Source: "conda-forge", Releases: condaHistory()}}, all.Schemes())
	if p.Reason != "conda-forge and pypi have 0.67.0" {
		t.Errorf("reason %q", p.Reason)
	}
}
