package plan_test

import (
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/bot/planning/plan"
	"github.com/pinbot-dev/pinbot/pins"
	"github.com/pinbot-dev/pinbot/sources"
	"github.com/pinbot-dev/pinbot/versions/all"
)

var now = time.Date(2026, 8, 21, 12, 0, 0, 0, time.UTC)

// wheels returns a PyPI release uploaded at up with an sdist and wheels for
// the given tags (python-abi-platform).
func wheels(v string, up time.Time, tags ...string) sources.Release {
	r := sources.Release{Version: v, Time: up, Files: []sources.File{{Name: "numba-" + v + ".tar.gz", Kind: sources.KindSdist, Time: up}}}
	for _, tag := range tags {
		p := strings.SplitN(tag, "-", 3)
		r.Files = append(r.Files, sources.File{Name: "numba-" + v + "-" + tag + ".whl", Kind: sources.KindWheel, Time: up,
			Tags: []sources.Tag{{Python: p[0], ABI: p[1], Platform: p[2]}}, RequiresPython: ">=3.10"})
	}
	return r
}

// builds returns a conda release with a file in each subdir.
func builds(v string, up time.Time, subdirs ...string) sources.Release {
	r := sources.Release{Version: v, Time: up}
	for _, sd := range subdirs {
		r.Files = append(r.Files, sources.File{Name: "numba-" + v + "-py312_0.conda", Kind: sources.KindConda, Subdir: sd, Time: up})
	}
	return r
}

var (
	allWheels = []string{"cp312-cp312-manylinux_2_17_x86_64", "cp312-cp312-macosx_11_0_arm64", "cp312-cp312-win_amd64"}
	allSubdir = []string{"linux-64", "osx-arm64", "win-64"}
	old       = now.Add(-60 * 24 * time.Hour)
)

func pypiHistory() []sources.Release {
	return []sources.Release{wheels("0.65.1", old, allWheels...), wheels("0.66.0", old, allWheels...), wheels("0.67.0", old, allWheels...)}
}

func condaHistory() []sources.Release {
	return []sources.Release{builds("0.65.1", old, allSubdir...), builds("0.66.0", old, allSubdir...), builds("0.67.0", old, allSubdir...)}
}

func gated(g plan.Gate) plan.Package {
	pkg := numba
	g.Now = now
	g.Schemes = map[string]string{"conda-forge": "conda", "pypi": "pep440"}
	pkg.Gate = g
	return pkg
}

func TestGate(t *testing.T) {
	ps := []pins.Pin{pin("pyproject.toml", 53, "numba>=0.58,<=0.65.1", ">=0.58,<=0.65.1")}
	require := []string{"pypi", "conda-forge"}
	tests := []struct {
		name         string
		gate         plan.Gate
		pypi, conda  []sources.Release
		want, reason string
	}{
		{
			name: "no rule: the newest", gate: plan.Gate{MinAge: time.Hour},
			want: "0.67.0", reason: "pypi has 0.67.0",
		},
		{
			name: "PyPI ahead of conda-forge", gate: plan.Gate{Require: require},
			conda: condaHistory()[:2],
			want:  "0.66.0", reason: "conda-forge has only 0.66.0, pypi has 0.67.0 → 0.66.0",
		},
		{
			name: "both have it", gate: plan.Gate{Require: require},
			want: "0.67.0", reason: "conda-forge and pypi have 0.67.0",
		},
		{
			name: "younger than min-age", gate: plan.Gate{MinAge: 3 * 24 * time.Hour},
			pypi: append(pypiHistory()[:2], wheels("0.67.0", now.Add(-30*time.Hour), allWheels...)),
			want: "0.66.0", reason: "pypi has 0.67.0; 0.67.0 is 1 day old, min-age 3d → 0.66.0",
		},
		{
			name: "young on conda-forge only", gate: plan.Gate{Require: require, MinAge: 12 * time.Hour},
			conda: append(condaHistory()[:2], builds("0.67.0", now.Add(-5*time.Hour), allSubdir...)),
			want:  "0.66.0", reason: "conda-forge and pypi have 0.67.0; 0.67.0 is 5 hours old on conda-forge, min-age 12h → 0.66.0",
		},
		{
			name: "a yanked newest release", gate: plan.Gate{Require: []string{"pypi"}},
			pypi: append(pypiHistory(), sources.Release{Version: "0.67.1", Yanked: true, YankedReason: "broken wheel for py3.14", Files: wheels("0.67.1", old).Files}),
			want: "0.67.0", reason: "pypi has 0.67.0; 0.67.1 is yanked (broken wheel for py3.14) → 0.67.0",
		},
		{
			name: "no wheel for a platform", gate: plan.Gate{Platforms: []string{"linux-64", "osx-arm64"}},
			pypi: append(pypiHistory()[:2], wheels("0.67.0", old, "cp312-cp312-manylinux_2_17_x86_64")),
			want: "0.66.0", reason: "pypi has 0.67.0; 0.67.0 has no wheel for osx-arm64 → 0.66.0",
		},
		{
			name: "sdist only", gate: plan.Gate{Platforms: []string{"linux-64"}},
			pypi: append(pypiHistory()[:2], wheels("0.67.0", old)),
			want: "0.66.0", reason: "pypi has 0.67.0; 0.67.0 has no wheel for linux-64 → 0.66.0",
		},
		{
			name: "no wheel for a Python version", gate: plan.Gate{Platforms: []string{"linux-64"}, Python: []string{"3.12", "3.13"}},
			pypi: []sources.Release{wheels("0.66.0", old, "cp312-cp312-manylinux_2_17_x86_64", "cp313-cp313-manylinux_2_17_x86_64"), wheels("0.67.0", old, "cp313-cp313-manylinux_2_17_x86_64")},
			want: "0.66.0", reason: "pypi has 0.67.0; 0.67.0 has no wheel for linux-64 and Python 3.12 → 0.66.0",
		},
		{
			name: "abi3 and pure wheels serve", gate: plan.Gate{Platforms: []string{"linux-64", "osx-arm64"}, Python: []string{"3.12"}},
			pypi: []sources.Release{wheels("0.67.0", old, "cp39-abi3-manylinux2014_x86_64", "py3-none-any")},
			want: "0.67.0", reason: "pypi has 0.67.0",
		},
		{
			name: "no conda-forge build for a platform", gate: plan.Gate{Require: require, Platforms: []string{"osx-arm64"}},
			conda: append(condaHistory()[:2], builds("0.67.0", old, "linux-64", "win-64")),
			want:  "0.66.0", reason: "conda-forge and pypi have 0.67.0; 0.67.0 has no conda-forge build for osx-arm64 → 0.66.0",
		},
		{
			name: "noarch serves every platform", gate: plan.Gate{Require: require, Platforms: []string{"osx-arm64", "win-64"}},
			conda: []sources.Release{builds("0.67.0", old, "noarch")},
			want:  "0.67.0", reason: "conda-forge and pypi have 0.67.0",
		},
		{
			name: "conda spelling mapped to the pins' release", gate: plan.Gate{Require: require},
			pypi:  []sources.Release{wheels("0.66.0", old, allWheels...), wheels("0.67.0", old, allWheels...)},
			conda: []sources.Release{builds("0.66", old, allSubdir...)},
			want:  "0.66.0", reason: "conda-forge has only 0.66, pypi has 0.67.0 → 0.66.0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.pypi == nil {
				tt.pypi = pypiHistory()
			}
			if tt.conda == nil {
				tt.conda = condaHistory()
			}
			lookups := []plan.Lookup{{Source: "pypi", Releases: tt.pypi}}
			if len(tt.gate.Require) > 1 {
				lookups = append(lookups, plan.Lookup{Source: "conda-forge", Releases: tt.conda})
			}
			p := plan.Make(gated(tt.gate), ps, lookups, all.Schemes())
			if p.Target != tt.want || p.Reason != tt.reason || p.Err != nil {
				t.Errorf("target %q (%v)\nreason %q\nwant   %q", p.Target, p.Err, p.Reason, tt.reason)
			}
		})
	}
}

func TestGateNothingPasses(t *testing.T) {
	ps := []pins.Pin{pin("pyproject.toml", 53, "numba>=0.58,<=0.65.1", ">=0.58,<=0.65.1")}
	g := plan.Gate{Require: []string{"pypi", "conda-forge"}, Platforms: []string{"win-64"}}
	lookups := []plan.Lookup{
		{Source: "pypi", Releases: pypiHistory()},
		{Source: "conda-forge", Releases: []sources.Release{builds("0.66.0", old, "linux-64"), builds("0.67.0", old, "linux-64")}},
	}
	p := plan.Make(gated(g), ps, lookups, all.Schemes())
	want := "no release passes the gates on conda-forge: 0.67.0 has no conda-forge build for win-64; 0.66.0 has no conda-forge build for win-64"
	if p.Status != plan.Error || p.Target != "" || p.Err == nil || !strings.Contains(p.Err.Error(), want) {
		t.Errorf("plan %+v\nwant error %q", p, want)
	}
	for _, pp := range p.Pins {
		if pp.Changed {
			t.Error("a pin moved without a target")
		}
	}
}

// TestGateCondaPins plans conda pins (an environment.yml's) that also require
// PyPI: versions compare with conda's scheme.
func TestGateCondaPins(t *testing.T) {
	p := pin("environment.yml", 7, "numba >=0.58,<=0.65.1", ">=0.58,<=0.65.1")
	p.Source, p.Scheme = "conda-forge", "conda"
	g := plan.Gate{Require: []string{"conda-forge", "pypi"}}
	lookups := []plan.Lookup{
		{Source: "conda-forge", Releases: condaHistory()},
		{Source: "pypi", Releases: pypiHistory()[:2]},
	}
	got := plan.Make(gated(g), []pins.Pin{p}, lookups, all.Schemes())
	if got.Target != "0.66.0" || got.Reason != "conda-forge has 0.67.0, pypi has only 0.66.0 → 0.66.0" || got.Newest["pypi"] != "0.66.0" {
		t.Errorf("plan %+v", got)
	}
	// The conda pin is measured against conda-forge's 0.67.0, which PyPI,
	// required, holds back.
	want := "0.67.0 is on conda-forge, but the target is 0.66.0: pypi has not published 0.67.0 (the configuration requires pypi); 0.66.0 is newer than the cap <=0.65.1"
	if r := got.Pins[0].Reason; r != want {
		t.Errorf("pin reason %q\nwant       %q", r, want)
	}
}
