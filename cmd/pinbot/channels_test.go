package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// stumpyTree writes stumpy's pin files (the corpus's verbatim copies): an
// environment.yml whose channels are [numba, conda-forge], a pyproject.toml
// with PyPI pins and pixi's conda-forge pins, a requirements.txt.
func stumpyTree(e *env) {
	for _, f := range []string{"environment.yml", "pyproject.toml", "requirements.txt"} {
		e.file(f, corpus.Read(e.t, "stumpy-dev__stumpy__"+f))
	}
	e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n"))
}

// checkExit runs pinbot check --format json, requires the exit code and
// returns the report.
func checkExit(t *testing.T, e *env, want int) report.Report {
	t.Helper()
	code, rep, stderr := checkJSON(t, e)
	if code != want {
		t.Fatalf("exit %d, want %d\n%+v\n%s", code, want, rep, stderr)
	}
	return rep
}

// pinsByFile maps "FILE:LINE" (the line in two digits) to the pins of p.
func pinsByFile(p report.Package) map[string]report.Pin {
	m := map[string]report.Pin{}
	for _, pin := range p.Pins {
		m[fmt.Sprintf("%s:%02d", pin.File, pin.Line)] = pin
	}
	return m
}

// remove deletes a file of the repository.
func (e *env) remove(name string) {
	if err := os.Remove(filepath.Join(e.dir, filepath.FromSlash(name))); err != nil {
		e.t.Fatal(err)
	}
}

// TestCheckFileChannels: stumpy's environment file names the numba channel
// first, which no configuration lists. pinbot asks it as a conda channel on
// the configured host without being told, and plans every pin: the numba
// channel's 0.66.0 is the target, and the PyPI and conda-forge pins say
// what holds them below their sources' 0.67.0.
func TestCheckFileChannels(t *testing.T) {
	e, c := sourcesEnv(t)
	c.Add("numba", "numba", condaNumba("0.66.0")...)
	stumpyTree(e)
	rep := checkExit(t, e, 0)
	if len(rep.Errors) != 0 || len(rep.Warnings) != 0 || len(rep.Packages) != 1 {
		t.Fatalf("errors %q, warnings %q, packages %d", rep.Errors, rep.Warnings, len(rep.Packages))
	}
	p := rep.Packages[0]
	wantSources := map[string]string{"numba": "0.66.0", "conda-forge": "0.67.0", "pypi": "0.67.0"}
	if p.Status != "bump" || p.Newest != "0.66.0" || p.Error != "" || !cmp.Equal(p.Sources, wantSources) ||
		p.Reason != "conda-forge has 0.67.0, numba has 0.66.0, pypi has 0.67.0 → 0.66.0" {
		t.Fatalf("numba %+v", p)
	}
	held := func(src string) string {
		return "0.67.0 is on " + src + ", but the target is 0.66.0: numba has not published 0.67.0 (environment.yml governs numba through numba); no upper bound: capped at <=0.66.0"
	}
	want := map[string]report.Pin{
		"environment.yml:08":  {After: "numba>=0.61.2,<=0.66.0", Reason: "no upper bound: capped at <=0.66.0"},
		"pyproject.toml:42":   {After: "numba >= 0.61.2, <= 0.66.0", Reason: held("pypi")},
		"pyproject.toml:79":   {After: `numba = ">=0.61.2,<=0.66.0"`, Reason: held("conda-forge")},
		"requirements.txt:03": {After: "numba>=0.61.2,<=0.66.0", Reason: held("pypi")},
	}
	got := map[string]report.Pin{}
	for k, pin := range pinsByFile(p) {
		got[k] = report.Pin{After: pin.After, Reason: pin.Reason}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pins (-want +got)\n%s", diff)
	}
	asked := false
	for _, r := range c.Log() {
		asked = asked || r.Path == "/package/numba/numba"
	}
	if !asked {
		t.Error("the numba channel was not asked")
	}
}

// TestCheckFileChannelUnasked: a channel the host does not have (anaconda.org
// answers 404) fails only the pins it governs, each saying where the file
// names the channel; the package is planned from its other pins and
// sources, with a warning, and exits 0. When its pins are all the package
// has, the package is an error.
func TestCheckFileChannelUnasked(t *testing.T) {
	e, _ := sourcesEnv(t) // no numba channel on the fake host
	stumpyTree(e)
	rep := checkExit(t, e, 0)
	p := rep.Packages[0]
	if p.Status != "bump" || p.Newest != "0.67.0" || p.Error != "" || len(rep.Errors) != 0 || p.Sources["numba"] != "" {
		t.Fatalf("numba %+v, errors %q", p, rep.Errors)
	}
	const where = "environment.yml:2:5: channels[0]: numba: cannot be asked: "
	env := pinsByFile(p)["environment.yml:08"]
	if env.After != env.Before || !strings.HasPrefix(env.Reason, "not edited: "+where) || !strings.Contains(env.Reason, "404") {
		t.Errorf("environment.yml pin %+v", env)
	}
	if len(rep.Warnings) != 1 || !strings.HasPrefix(rep.Warnings[0], where) ||
		!strings.HasSuffix(rep.Warnings[0], "(the numba pins that follow it are left as written; the package's other pins are planned)") {
		t.Errorf("warnings %q", rep.Warnings)
	}
	for _, k := range []string{"pyproject.toml:42", "pyproject.toml:79", "requirements.txt:03"} {
		if pin := pinsByFile(p)[k]; !strings.HasSuffix(strings.TrimSuffix(pin.After, `"`), "0.67.0") || pin.Before == pin.After {
			t.Errorf("%s: %+v, want capped at 0.67.0", k, pin)
		}
	}
	_, text, _ := e.runWith(context.Background(), "", "check", "--dir", e.dir)
	if !strings.Contains(text, where) {
		t.Errorf("text report does not say the channel cannot be asked:\n%s", text)
	}

	// The environment file alone: no pin of numba can be planned.
	e.remove("pyproject.toml")
	e.remove("requirements.txt")
	rep = checkExit(t, e, exitFailure)
	if p := rep.Packages[0]; p.Status != "error" || !strings.HasPrefix(p.Error, "numba: ") || !strings.Contains(p.Error, "404") {
		t.Errorf("environment file alone: %+v", p)
	}
}

// TestCheckFileChannelOtherHost: a channel a file names on another host is
// never asked; its pins say so, and the others are planned.
func TestCheckFileChannelOtherHost(t *testing.T) {
	e, _ := sourcesEnv(t)
	e.file("environment.yml", []byte("channels:\n  - https://conda.example.com/private\n  - conda-forge\ndependencies:\n  - numba>=0.58,<=0.65.1\n"))
	e.file("requirements.txt", []byte("numba>=0.58,<=0.65.1\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n"))
	rep := checkExit(t, e, 0)
	p := rep.Packages[0]
	env := pinsByFile(p)["environment.yml:05"]
	if p.Status != "bump" || env.After != env.Before ||
		env.Reason != "not edited: environment.yml:2:5: channels[0]: https://conda.example.com/private: cannot be asked: https://conda.example.com/private is a channel on another host: pinbot asks channels only on the configured conda host (sources.conda.url, sources.conda.repodata-url)" {
		t.Errorf("numba %s, environment.yml pin %+v", p.Status, env)
	}
}

// TestCheckLabelChannel: numba's docs environment installs llvmlite from
// the numba/label/dev channel, which is asked without configuration and
// counts only that label's files; a label without a release of the
// package fails its pins alone.
func TestCheckLabelChannel(t *testing.T) {
	e, c := sourcesEnv(t)
	c.Add("numba", "llvmlite", fakes.CondaFile{Version: "0.49.0"},
		fakes.CondaFile{Version: "0.50.0", Labels: []string{"dev"}}, fakes.CondaFile{Version: "0.51.0", Labels: []string{"dev"}})
	e.file("docs/environment.yml", corpus.Read(t, "numba__numba__docs__environment.yml"))
	e.file(".pinbot.yml", []byte("packages:\n  llvmlite: {}\n"))
	rep := checkExit(t, e, 0)
	p := rep.Packages[0]
	// =0.50 is a fuzzy match (0.50*): expanded into its lower bound and the
	// cap, as any one-clause range is.
	if p.Status != "bump" || p.Sources["numba/label/dev"] != "0.51.0" || p.Pins[0].Before != "llvmlite=0.50" || p.Pins[0].After != "llvmlite>=0.50,<=0.51.0" {
		t.Errorf("llvmlite %+v", p)
	}

	// A requirements file pins llvmlite too; the dev label has none.
	c.Add("numba", "llvmlite", fakes.CondaFile{Version: "0.49.0"})
	e.file("requirements.txt", []byte("llvmlite>=0.48,<=0.48.0\n"))
	rep = checkExit(t, e, 0)
	p = rep.Packages[0]
	r := pinsByFile(p)["docs/environment.yml:09"].Reason
	if p.Status != "bump" || p.Newest != "0.49.0" ||
		!strings.HasPrefix(r, "not edited: docs/environment.yml:6:5: channels[0]: numba/label/dev: no acceptable release among 1 (") {
		t.Errorf("llvmlite %s %s, docs pin %q", p.Status, p.Newest, r)
	}
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool {
		return strings.HasPrefix(w, "docs/environment.yml:6:5: channels[0]: numba/label/dev: ")
	}) {
		t.Errorf("warnings %q", rep.Warnings)
	}
}
