package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// pytensorStack puts numba, numpy and llvmlite on the fake PyPI as they
// stood when pytensor's stale numba cap held numpy back: numba 0.65.1
// requires numpy<2.5 and llvmlite 0.48, numba 0.67.0 numpy<2.6 and
// llvmlite 0.50.
func pytensorStack(e *env) {
	e.pypi.Add("numba",
		fakes.Release{Version: "0.65.1", RequiresDist: []string{"llvmlite<0.49,>=0.48.0dev0", "numpy<2.5,>=1.24", `scipy>=1.0; extra == "cuda"`}},
		fakes.Release{Version: "0.66.0", RequiresDist: []string{"llvmlite<0.50,>=0.49.0dev0", "numpy<2.5,>=1.24"}},
		fakes.Release{Version: "0.67.0", RequiresDist: []string{"llvmlite<0.51,>=0.50.0dev0", "numpy<2.6,>=1.24"}},
		fakes.Release{Version: "0.68.0rc1", RequiresDist: []string{"llvmlite<0.52,>=0.51.0dev0", "numpy<2.7,>=1.24"}})
	e.pypi.Add("numpy", fakes.Release{Version: "2.4.1"}, fakes.Release{Version: "2.5.0"}, fakes.Release{Version: "2.5.1"}, fakes.Release{Version: "2.6.0rc1"})
	e.pypi.Add("llvmlite", fakes.Release{Version: "0.48.0"}, fakes.Release{Version: "0.49.0"}, fakes.Release{Version: "0.50.0"}, fakes.Release{Version: "0.51.0"})
	e.pypi.Add("scipy", fakes.Release{Version: "1.16.0"})
}

// TestCheckHoldsBack: the cost of a stale cap, in every report format. A
// cap at 0.65.1 holds numpy below 2.5.1 and llvmlite below 0.51.0; the
// target 0.67.0 would admit numpy<2.6 and llvmlite up to 0.50.0. scipy,
// required only for an extra, does not count.
func TestCheckHoldsBack(t *testing.T) {
	e := newEnv(t)
	pytensorStack(e)
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.65.1\", \"numpy\"]\n"))
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := []report.HoldBack{
		{Package: "llvmlite", Constraint: "<0.49", RequiredBy: "numba 0.65.1", Newest: "0.51.0",
			Reason: "numba 0.65.1, the newest release the caps admit, holds llvmlite<0.49 while llvmlite 0.51.0 is out; numba 0.67.0 admits llvmlite<0.51 (up to 0.50.0)"},
		{Package: "numpy", Constraint: "<2.5", RequiredBy: "numba 0.65.1", Newest: "2.5.1",
			Reason: "numba 0.65.1, the newest release the caps admit, holds numpy<2.5 while numpy 2.5.1 is out; numba 0.67.0 admits numpy<2.6"},
	}
	p := decodeReport(t, out)["numba"]
	if diff := cmp.Diff(want, p.HoldsBack); diff != "" {
		t.Errorf("holds_back (-want +got)\n%s", diff)
	}
	// The JSON keys are the contract's.
	for _, key := range []string{`"holds_back": [`, `"package": "numpy"`, `"constraint": "<2.5"`, `"required_by": "numba 0.65.1"`, `"newest": "2.5.1"`} {
		if !strings.Contains(out, key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	if strings.Contains(out, "scipy") {
		t.Error("an extras-only requirement counted")
	}
	_, text, _ := e.run("check", "--dir", e.dir)
	if !strings.Contains(text, "  holds back numpy: numba 0.65.1, the newest release the caps admit, holds numpy<2.5 while numpy 2.5.1 is out; numba 0.67.0 admits numpy<2.6\n") {
		t.Errorf("text report:\n%s", text)
	}
	_, md, _ := e.run("check", "--dir", e.dir, "--format", "markdown")
	if !strings.Contains(md, "**What the caps cost:** they hold back 2 packages.") || !strings.Contains(md, "- `numpy`: numba 0.65.1, the newest release the caps admit, holds numpy&lt;2.5 while numpy 2.5.1 is out; numba 0.67.0 admits numpy&lt;2.6\n") {
		t.Errorf("Markdown report:\n%s", md)
	}

	// Once the cap admits the target, it holds nothing back.
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.67.0\"]\n"))
	_, out, _ = e.run("check", "--dir", e.dir, "--format", "json")
	if p := decodeReport(t, out)["numba"]; p.Status != "current" || p.HoldsBack == nil || len(p.HoldsBack) != 0 || !strings.Contains(out, `"holds_back": []`) {
		t.Errorf("current numba: %+v", p)
	}
}

// TestCheckHoldsBackMarkers: python_version markers are read against the
// configured Python; with none configured, the marker is shown.
func TestCheckHoldsBackMarkers(t *testing.T) {
	for _, tt := range []struct{ config, constraint string }{
		{"packages:\n  numba:\n    python: [\"3.12\"]\n", "<2.5"},
		{"packages:\n  numba:\n", `<2.5; python_version >= "3.10"`},
	} {
		e := newEnv(t)
		pytensorStack(e)
		e.pypi.Add("numba",
			fakes.Release{Version: "0.65.1", RequiresDist: []string{`numpy<2.0; python_version < "3.10"`, `numpy<2.5; python_version >= "3.10"`}},
			fakes.Release{Version: "0.67.0", RequiresDist: []string{`numpy<2.6; python_version >= "3.10"`}})
		e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba<=0.65.1\"]\n"))
		e.file(".pinbot.yml", []byte(tt.config))
		code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		p := decodeReport(t, out)["numba"]
		if len(p.HoldsBack) != 1 || p.HoldsBack[0].Constraint != tt.constraint {
			t.Errorf("%s: holds_back %+v, want one with constraint %q", tt.config, p.HoldsBack, tt.constraint)
		}
	}
}

// TestCheckHoldsBackUnknown: when a release's metadata cannot be read (a
// simple index whose files offer no PEP 658 metadata, a dependency that
// cannot be looked up), the cost is not guessed: a warning says why.
func TestCheckHoldsBackUnknown(t *testing.T) {
	e := newEnv(t)
	pytensorStack(e)
	// sdists only: the simple API offers no metadata file.
	e.pypi.Add("numba", fakes.Release{Version: "0.65.1", Wheels: []string{}, RequiresDist: []string{"numpy<2.5"}},
		fakes.Release{Version: "0.67.0", Wheels: []string{}, RequiresDist: []string{"numpy<2.6"}})
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba<=0.65.1\"]\n"))
	e.file(".pinbot.yml", []byte("sources:\n  pypi:\n    api: simple\n"))
	e.vars["PINBOT_PYPI_URL"] = e.pypi.URL + "/simple/"
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if strings.Contains(out, `"holds_back"`) || !strings.Contains(out, "numba: what its caps cost is unknown: numba 0.65.1: no file on") {
		t.Errorf("unreadable metadata:\n%s", out)
	}

	// With wheels the metadata is read; a dependency whose releases cannot
	// be had is named in a warning, one the index does not have is
	// skipped (nothing there to hold back), and the others are reported.
	e.pypi.Add("numba", fakes.Release{Version: "0.65.1", RequiresDist: []string{"numpy<2.5", "nosuchdep<1", "llvmlite<0.49"}},
		fakes.Release{Version: "0.67.0", RequiresDist: []string{"numpy<2.6", "nosuchdep<2", "llvmlite<0.51"}})
	e.pypi.Remove("nosuchdep")
	e.pypi.Fail("/simple/llvmlite/", repeatFault(fakes.Fault{Status: 500}, 8)...)
	_, out, _ = e.run("check", "--dir", e.dir, "--format", "json")
	p := decodeReport(t, out)["numba"]
	if len(p.HoldsBack) != 1 || p.HoldsBack[0].Package != "numpy" || !strings.Contains(out, "numba: whether its caps hold llvmlite back is unknown") ||
		strings.Contains(out, "nosuchdep") {
		t.Errorf("dependencies that cannot be looked up: %+v\n%s", p.HoldsBack, out)
	}
}

// TestRunHoldsBackBody: the pull request body says what the cap costs.
func TestRunHoldsBackBody(t *testing.T) {
	e := newRunEnv(t, testConfig)
	pytensorStack(e.env)
	e.pypi.Add("numba",
		fakes.Release{Version: "0.66.0", RequiresDist: []string{"numpy<2.5,>=1.24"}},
		fakes.Release{Version: "0.67.0", RequiresDist: []string{"numpy<2.6,>=1.24"}})
	code, out, stderr := e.run()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	p := e.gh.Pulls(testRepo)
	if len(p) != 1 || !strings.Contains(p[0].Body, "**What the caps cost:** they hold back 1 package.") ||
		!strings.Contains(p[0].Body, "- `numpy`: numba 0.66.0, the newest release the caps admit, holds numpy&lt;2.5 while numpy 2.5.1 is out; numba 0.67.0 admits numpy&lt;2.6") {
		t.Fatalf("pull requests %+v", p)
	}
}

func repeatFault(f fakes.Fault, n int) []fakes.Fault {
	out := make([]fakes.Fault, n)
	for i := range out {
		out[i] = f
	}
	return out
}

// TestCheckHoldsBackConda reads the cost of a conda cap from the depends
// the channel lists for each build, with conda's version order; the
// interpreter is not a cost.
func TestCheckHoldsBackConda(t *testing.T) {
	e := newEnv(t)
	c := fakes.NewConda(t)
	e.vars["PINBOT_CONDA_URL"] = c.URL
	c.Add("conda-forge", "numba",
		fakes.CondaFile{Version: "0.65.1", Depends: []string{"llvmlite >=0.48.0,<0.49.0a0", "numpy >=1.24,<2.5", "python >=3.12,<3.13.0a0", "python_abi 3.12.* *_cp312"}},
		fakes.CondaFile{Version: "0.67.0", Depends: []string{"llvmlite >=0.50.0,<0.51.0a0", "numpy >=1.24,<2.6", "python >=3.13,<3.14.0a0", "python_abi 3.13.* *_cp313"}, Build: "py313h6e6e5ba_0"})
	c.Add("conda-forge", "numpy", fakes.CondaFile{Version: "2.4.1", Depends: []string{}}, fakes.CondaFile{Version: "2.5.1", Depends: []string{}})
	c.Add("conda-forge", "llvmlite", fakes.CondaFile{Version: "0.48.0", Depends: []string{}}, fakes.CondaFile{Version: "0.50.1", Depends: []string{}})
	c.Add("conda-forge", "python", fakes.CondaFile{Version: "3.12.4", Depends: []string{}}, fakes.CondaFile{Version: "3.13.1", Depends: []string{}})
	e.file("environment.yml", []byte("name: x\nchannels: [conda-forge]\ndependencies:\n  - numba<=0.65.1\n"))
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	p := decodeReport(t, out)["numba"]
	var got []string
	for _, h := range p.HoldsBack {
		got = append(got, h.Package+h.Constraint+" "+h.Newest)
	}
	if diff := cmp.Diff([]string{"llvmlite<0.49.0a0 0.50.1", "numpy<2.5 2.5.1"}, got); diff != "" {
		t.Errorf("holds_back (-want +got)\n%s\n%s", diff, out)
	}
}
