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
	"github.com/pinbot-dev/pinbot/sources/conda"
	"github.com/pinbot-dev/pinbot/web"
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
// channel, first of the file's list, has numba (conda-forge, the next, has
// it too: the first wins), so its 0.66.0 is the target, and the PyPI and
// conda-forge pins say what holds them below their sources' 0.67.0.
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

// numpyOn adds numpy 2.4.1 and 2.5.1 to the fake conda channels named,
// and 2.4.1, 2.5.1 and 2.6.0 to the fake PyPI.
func numpyOn(e *env, c *fakes.Conda, channels ...string) {
	for _, ch := range channels {
		c.Add(ch, "numpy", fakes.CondaFile{Version: "2.4.1"}, fakes.CondaFile{Version: "2.5.1"})
	}
	e.pypi.Add("numpy", fakes.Release{Version: "2.4.1"}, fakes.Release{Version: "2.5.1"}, fakes.Release{Version: "2.6.0"})
}

// asked reports whether the fake conda host was asked for path.
func asked(c *fakes.Conda, path string) bool {
	return slices.ContainsFunc(c.Log(), func(r fakes.Request) bool { return r.Path == path })
}

// TestCheckFileChannelFallthrough: conda takes a package from the first of
// the environment file's channels that has it. stumpy's numba comes from the
// numba channel (TestCheckFileChannels); numpy, which the numba channel does
// not have (404), from conda-forge, the next: conda-forge governs the
// environment file's numpy pin, as it does pixi's, and the report names it
// (sources, the reasons of the pins it holds below PyPI's 2.6.0), never the
// numba channel.
func TestCheckFileChannelFallthrough(t *testing.T) {
	e, c := sourcesEnv(t)
	c.Add("numba", "numba", condaNumba("0.66.0")...)
	numpyOn(e, c, "conda-forge")
	stumpyTree(e)
	e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n  numpy: {}\n"))
	rep := checkExit(t, e, 0)
	if len(rep.Errors) != 0 || len(rep.Warnings) != 0 {
		t.Fatalf("errors %q, warnings %q", rep.Errors, rep.Warnings)
	}
	numba, numpy := pkgOf(rep, "numba"), pkgOf(rep, "numpy")
	if numba.Newest != "0.66.0" || !cmp.Equal(numba.Sources, map[string]string{"numba": "0.66.0", "conda-forge": "0.67.0", "pypi": "0.67.0"}) {
		t.Errorf("numba %+v", numba)
	}
	if numpy.Status != "bump" || numpy.Newest != "2.5.1" || !cmp.Equal(numpy.Sources, map[string]string{"conda-forge": "2.5.1", "pypi": "2.6.0"}) ||
		numpy.Reason != "conda-forge has 2.5.1, pypi has 2.6.0 → 2.5.1" {
		t.Fatalf("numpy %+v", numpy)
	}
	held := "2.6.0 is on pypi, but the target is 2.5.1: conda-forge has not published 2.6.0 (environment.yml and pyproject.toml govern numpy through conda-forge); no upper bound: capped at <=2.5.1"
	want := map[string]report.Pin{
		"environment.yml:06":  {After: "numpy>=1.24,<=2.5.1", Reason: "no upper bound: capped at <=2.5.1"},
		"pyproject.toml:40":   {After: "numpy >= 1.24, <= 2.5.1", Reason: held},
		"pyproject.toml:77":   {After: `numpy = ">=1.24,<=2.5.1"`, Reason: "no upper bound: capped at <=2.5.1"},
		"requirements.txt:01": {After: "numpy>=1.24,<=2.5.1", Reason: held},
	}
	got := map[string]report.Pin{}
	for k, pin := range pinsByFile(numpy) {
		got[k] = report.Pin{After: pin.After, Reason: pin.Reason}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("numpy pins (-want +got)\n%s", diff)
	}
	if !asked(c, "/package/numba/numpy") || !asked(c, "/package/conda-forge/numpy") {
		t.Errorf("the channels asked for numpy: %v", c.Requests())
	}
}

// TestCheckFileChannelUnasked: a channel the host does not have (anaconda.org
// answers 404, for a channel as for a package it lacks) passes stumpy's
// environment file's pins to its next channel, conda-forge. When no channel
// of the list has the package, its pins fail alone, saying where the file
// names its channels and what each said; the package is planned from its
// other pins and sources, with a warning, and exits 0. When its pins are all
// the package has, the package is an error.
func TestCheckFileChannelUnasked(t *testing.T) {
	e, c := sourcesEnv(t) // no numba channel on the fake host
	stumpyTree(e)
	rep := checkExit(t, e, 0)
	p := rep.Packages[0]
	env := pinsByFile(p)["environment.yml:08"]
	if p.Status != "bump" || p.Newest != "0.67.0" || len(rep.Warnings) != 0 || p.Sources["numba"] != "" ||
		env.After != "numba>=0.61.2,<=0.67.0" || env.Reason != "no upper bound: capped at <=0.67.0" {
		t.Fatalf("numba %+v, warnings %q", p, rep.Warnings)
	}
	if !asked(c, "/package/numba/numba") {
		t.Error("the numba channel was not asked first")
	}

	// numpy is on PyPI alone.
	numpyOn(e, c)
	e.file(".pinbot.yml", []byte("packages:\n  numpy: {}\n"))
	rep = checkExit(t, e, 0)
	p = rep.Packages[0]
	const where = "environment.yml:2:5: channels: numba, conda-forge: cannot be asked: none of them has numpy (numba: "
	env = pinsByFile(p)["environment.yml:06"]
	if p.Status != "bump" || p.Newest != "2.6.0" || p.Error != "" || env.After != env.Before ||
		!strings.HasPrefix(env.Reason, "not edited: "+where) || !strings.Contains(env.Reason, "; conda-forge: ") || strings.Count(env.Reason, "404") != 2 {
		t.Fatalf("numpy %+v\nenvironment.yml pin %+v", p, env)
	}
	// pixi's pins follow conda-forge alone: its 404 is theirs.
	pixi := pinsByFile(p)["pyproject.toml:77"]
	if pixi.After != pixi.Before || !strings.HasPrefix(pixi.Reason, "not edited: pyproject.toml:70:13: tool.pixi.workspace.channels[0]: conda-forge: cannot be asked: ") {
		t.Errorf("pixi pin %+v", pixi)
	}
	if len(rep.Warnings) != 2 || !strings.HasPrefix(rep.Warnings[0], where) ||
		!strings.HasSuffix(rep.Warnings[0], "(the numpy pins that follow it are left as written; the package's other pins are planned)") {
		t.Errorf("warnings %q", rep.Warnings)
	}
	for _, k := range []string{"pyproject.toml:40", "requirements.txt:01"} {
		if pin := pinsByFile(p)[k]; !strings.HasSuffix(pin.After, "2.6.0") {
			t.Errorf("%s: %+v, want capped at 2.6.0", k, pin)
		}
	}
	_, text, _ := e.runWith(context.Background(), "", "check", "--dir", e.dir)
	if !strings.Contains(text, where) {
		t.Errorf("text report does not say no channel has numpy:\n%s", text)
	}

	// The environment file alone: no pin of numpy can be planned.
	e.remove("pyproject.toml")
	e.remove("requirements.txt")
	rep = checkExit(t, e, exitFailure)
	if p := rep.Packages[0]; p.Status != "error" || !strings.HasPrefix(p.Error, "numba, conda-forge: none of them has numpy (numba: ") {
		t.Errorf("environment file alone: %+v", p)
	}
}

// TestCheckFileChannelError: a channel that fails (an error status, after
// the retries) is an error for the pins it governs, naming it: they are not
// passed to the next channel, which has the package, since the failing
// channel may well have it too. The package's other pins are planned.
func TestCheckFileChannelError(t *testing.T) {
	e, c := sourcesEnv(t)
	c.Add("numba", "numba", condaNumba("0.66.0")...)
	for range web.DefaultPolicy.Attempts {
		c.Fail("/package/numba/numba", fakes.Fault{Status: 503, Body: "<html>unavailable</html>"})
	}
	stumpyTree(e)
	rep := checkExit(t, e, 0)
	p := rep.Packages[0]
	env := pinsByFile(p)["environment.yml:08"]
	const where = "environment.yml:2:5: channels[0]: numba: cannot be asked: "
	if p.Status != "bump" || p.Newest != "0.67.0" || p.Sources["numba"] != "" || env.After != env.Before ||
		!strings.HasPrefix(env.Reason, "not edited: "+where) || !strings.Contains(env.Reason, "503") {
		t.Fatalf("numba %+v\nenvironment.yml pin %+v", p, env)
	}
	if len(rep.Warnings) != 1 || !strings.HasPrefix(rep.Warnings[0], where) {
		t.Errorf("warnings %q", rep.Warnings)
	}
	for _, k := range []string{"pyproject.toml:42", "pyproject.toml:79", "requirements.txt:03"} {
		if pin := pinsByFile(p)[k]; !strings.HasSuffix(strings.TrimSuffix(pin.After, `"`), "0.67.0") {
			t.Errorf("%s: %+v, want capped at 0.67.0", k, pin)
		}
	}
}

// TestCheckFileChannelNamed: a pin that names its channel follows that
// channel only, whatever its file's list says: conda-forge::numba takes
// conda-forge's 0.67.0 though the numba channel, first in the list, has
// 0.66.0; numba::numpy and a pixi table's channel = "numba" fail on the
// numba channel's 404, at the pin, though conda-forge has numpy.
func TestCheckFileChannelNamed(t *testing.T) {
	e, c := sourcesEnv(t)
	c.Add("numba", "numba", condaNumba("0.66.0")...)
	numpyOn(e, c, "conda-forge")
	e.file("environment.yml", []byte("channels: [numba, conda-forge]\ndependencies:\n  - conda-forge::numba>=0.61.2\n  - numba::numpy>=1.24\n"))
	e.file("pixi.toml", []byte("[workspace]\nchannels = [\"numba\", \"conda-forge\"]\n[dependencies]\nnumpy = { version = \">=1.24\", channel = \"numba\" }\n"))
	e.file("requirements.txt", []byte("numpy>=1.24\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n  numpy: {}\n"))
	rep := checkExit(t, e, 0)
	numba, numpy := pkgOf(rep, "numba"), pkgOf(rep, "numpy")
	if numba.Status != "bump" || numba.Newest != "0.67.0" || !cmp.Equal(numba.Sources, map[string]string{"conda-forge": "0.67.0"}) ||
		numba.Pins[0].After != "conda-forge::numba>=0.61.2,<=0.67.0" {
		t.Errorf("numba %+v", numba)
	}
	if asked(c, "/package/numba/numba") {
		t.Error("the numba channel was asked for conda-forge::numba")
	}
	for k, want := range map[string]string{
		"environment.yml:04": "not edited: environment.yml:4:5: dependencies[1]: numba: cannot be asked: ",
		"pixi.toml:04":       "not edited: pixi.toml:4:41: dependencies.numpy.channel: numba: cannot be asked: ",
	} {
		if pin := pinsByFile(numpy)[k]; pin.After != pin.Before || !strings.HasPrefix(pin.Reason, want) || !strings.Contains(pin.Reason, "404") {
			t.Errorf("%s: %+v, want %q", k, pin, want)
		}
	}
	if numpy.Status != "bump" || numpy.Newest != "2.6.0" || !cmp.Equal(numpy.Sources, map[string]string{"pypi": "2.6.0"}) {
		t.Errorf("numpy %+v", numpy)
	}
}

// TestCheckConfiguredChannels: a recipe names no channel; its pins follow
// the configured channels as conda-build follows its -c options, the first
// that has the package governing: pysam is on bioconda, not conda-forge.
func TestCheckConfiguredChannels(t *testing.T) {
	e, c := sourcesEnv(t)
	c.Add("bioconda", "pysam", fakes.CondaFile{Version: "0.22.1"}, fakes.CondaFile{Version: "0.23.0"})
	e.file("recipe/recipe.yaml", []byte("package:\n  name: x\n  version: 1.0\nrequirements:\n  run:\n    - pysam >=0.22,<=0.22.1\n    - numba >=0.61\n"))
	e.file(".pinbot.yml", []byte("sources:\n  conda:\n    channels: [conda-forge, bioconda]\npackages:\n  pysam: {}\n  numba: {}\n"))
	rep := checkExit(t, e, 0)
	pysam, numba := pkgOf(rep, "pysam"), pkgOf(rep, "numba")
	if pysam.Status != "bump" || !cmp.Equal(pysam.Sources, map[string]string{"bioconda": "0.23.0"}) || pysam.Pins[0].After != "pysam >=0.22,<=0.23.0" {
		t.Errorf("pysam %+v", pysam)
	}
	if !cmp.Equal(numba.Sources, map[string]string{"conda-forge": "0.67.0"}) || asked(c, "/package/bioconda/numba") {
		t.Errorf("numba %+v: conda-forge, the first configured channel, has it", numba)
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

// TestCheckFileChannelListBound: the channels of a list after the one that
// has the package are never asked, and count for nothing against the
// channels a run may name (conda.MaxNamed): a list of conda-forge and 16
// more leaves room for numba::numba elsewhere.
func TestCheckFileChannelListBound(t *testing.T) {
	e, c := sourcesEnv(t)
	c.Add("numba", "numba", condaNumba("0.66.0")...)
	var chs []string
	for i := range conda.MaxNamed {
		chs = append(chs, fmt.Sprintf("c%02d", i))
	}
	e.file("environment.yml", []byte("channels: [conda-forge, "+strings.Join(chs, ", ")+"]\ndependencies:\n  - numba>=0.61.2\n"))
	e.file("tools/environment.yml", []byte("channels: [conda-forge]\ndependencies:\n  - numba::numba>=0.61.2\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n"))
	rep := checkExit(t, e, 0)
	p := rep.Packages[0]
	if len(rep.Warnings) != 0 || !cmp.Equal(p.Sources, map[string]string{"conda-forge": "0.67.0", "numba": "0.66.0"}) {
		t.Errorf("numba %+v, warnings %q", p, rep.Warnings)
	}
	if asked(c, "/package/c00/numba") {
		t.Error("a channel after the one that has numba was asked")
	}
}
