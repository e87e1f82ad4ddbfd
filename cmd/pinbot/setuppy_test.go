package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// tfpTree is a repository shaped like tensorflow/probability: its
// requirements only in setup.py (TF_PACKAGE = 'tensorflow >= 2.16' in the
// release arm of an if, used in extras_require), no other pin file.
func tfpTree(t *testing.T) (*env, string) {
	e := newEnv(t)
	e.pypi.Add("jax", fakes.Release{Version: "0.4.30"}, fakes.Release{Version: "0.8.0"})
	e.pypi.Add("jaxlib", fakes.Release{Version: "0.4.30"}, fakes.Release{Version: "0.8.0"})
	setup := string(corpus.Read(t, "tensorflow__probability__setup.py"))
	e.file("setup.py", []byte(setup))
	e.file("tensorflow_probability/python/version.py", []byte("__version__ = '0.26.0.dev'\n"))
	e.file("README.md", []byte("# TensorFlow Probability\n"))
	return e, setup
}

// containsAll fails the test for each of wants that out does not hold.
func containsAll(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestCheckSetupPy: pinbot check reads tensorflow/probability's setup.py
// without running it and plans its TensorFlow pin (no cap yet: add-cap
// gives it one); --write rewrites only those bytes; a second run changes
// nothing.
func TestCheckSetupPy(t *testing.T) {
	e, setup := tfpTree(t)
	code, out, stderr := e.run("check", "--dir", e.dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	containsAll(t, out,
		"1 package: 1 bump, 0 blocked, 0 held, 0 current\n",
		"tensorflow: bump (target 2.20.0)\n",
		"setup.py:58  tensorflow >= 2.16 → tensorflow >= 2.16, <= 2.20.0  no upper bound: capped at <=2.20.0\n",
		"\nnext: run with --write to apply the new caps (pinbot check --write)\n",
	)
	if strings.Contains(out, "no pins of watched packages found") || strings.Contains(out, "every cap admits") {
		t.Errorf("the setup.py pin was not found:\n%s", out)
	}

	code, out, stderr = e.run("check", "--dir", e.dir, "--write")
	if code != 0 || !strings.Contains(out, "\nwrote setup.py\n") {
		t.Fatalf("--write: exit %d\n%s\n%s", code, out, stderr)
	}
	want := strings.Replace(setup, "  TF_PACKAGE = 'tensorflow >= 2.16'\n", "  TF_PACKAGE = 'tensorflow >= 2.16, <= 2.20.0'\n", 1)
	if got := e.read("setup.py"); got != want {
		t.Errorf("setup.py rewritten as\n%s", got)
	}
	code, out, _ = e.run("check", "--dir", e.dir, "--write", "--format", "json")
	var rep struct {
		Packages []struct{ Name, Status string }
		Written  []string
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("second run: exit %d, %v\n%s", code, err, out)
	}
	if len(rep.Written) != 0 || len(rep.Packages) != 1 || rep.Packages[0].Status != "current" {
		t.Errorf("second run: %+v", rep)
	}
	if got := e.read("setup.py"); got != want {
		t.Errorf("the second run changed setup.py:\n%s", got)
	}

	// jax and jaxlib, unpinned in the jax extra, get caps once watched.
	e.file(".pinbot.yml", []byte("packages:\n  jax: {}\n  jaxlib: {}\n"))
	code, out, _ = e.run("check", "--dir", e.dir, "--write")
	if code != 0 || !strings.Contains(out, "setup.py:117  jax → jax<=0.8.0") {
		t.Errorf("jax: exit %d\n%s", code, out)
	}
	if got := e.read("setup.py"); !strings.Contains(got, "\n        'jax': ['jax<=0.8.0', 'jaxlib<=0.8.0'],\n") {
		t.Errorf("the jax extra rewritten as\n%s", got)
	}
}

// TestCheckSetupPyKwargs: umap's setup(**configuration), a module-level
// dict literal: its numba pin is planned and rewritten in place.
func TestCheckSetupPyKwargs(t *testing.T) {
	e := newEnv(t)
	setup := string(corpus.Read(t, "lmcinnes__umap__setup.py"))
	e.file("setup.py", []byte(setup))
	e.file(".pinbot.yml", []byte("packages:\n  numba:\n    add-cap: false\n  tensorflow: {}\n"))
	code, out, stderr := e.run("check", "--dir", e.dir, "--write")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	containsAll(t, out,
		"numba: current (target 0.67.0)\n",
		"setup.py:51  numba >= 0.51.2",
		"setup.py:66  tensorflow >= 2.1 → tensorflow >= 2.1, <= 2.20.0",
		"\nwrote setup.py\n",
	)
	want := strings.Replace(setup, `["tensorflow >= 2.1"]`, `["tensorflow >= 2.1, <= 2.20.0"]`, 1)
	if got := e.read("setup.py"); got != want {
		t.Errorf("setup.py rewritten as\n%s", got)
	}
}

// TestCheckSetupPySkipped: what setup.py computes at run time is listed,
// with the reason, beside the pins that are read; a requirements file the
// setup.py reads is found by discovery and read itself.
func TestCheckSetupPySkipped(t *testing.T) {
	e := newEnv(t)
	e.file("setup.py", []byte(`import os
from setuptools import setup

suffix = "-cpu" if os.environ.get("CPU") else ""
with open("requirements.txt") as f:
    REQUIRED = f.read().splitlines()

setup(
    install_requires=REQUIRED,
    extras_require={
        "tf": ["tensorflow" + suffix + ">=2.16"],
        "jit": ["numba>=0.58,<=0.66.0", "numba\x3e=0.58"],
    },
)
`))
	e.file("requirements.txt", []byte("protobuf>=5.29.3,<=5.29.3\n"))
	code, out, stderr := e.run("check", "--dir", e.dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	containsAll(t, out,
		"2 packages: 2 bump, 0 blocked, 0 held, 0 current; 2 warnings\n",
		"setup.py:12  numba>=0.58,<=0.66.0 → numba>=0.58,<=0.67.0  0.67.0 is newer than the cap <=0.66.0\n",
		// The escaped literal, reported and left alone.
		"setup.py:12  numba>=0.58                                  not edited: string with escape sequences\n",
		"requirements.txt:1  protobuf>=5.29.3,<=5.29.3 → protobuf>=5.29.3,<=6.33.0",
		"warning: setup.py:6:16: install_requires: read from another file at run time (requirements.txt) (entry skipped; the file's other pins are read)\n",
		"warning: setup.py:11:16: extras_require.tf[0]: built at run time by string concatenation (\"tensorflow\" + suffix + \">=2.16\") (entry skipped; the file's other pins are read)\n",
	)
	before := e.read("setup.py")
	if code, out, stderr := e.run("check", "--dir", e.dir, "--write"); code != 0 {
		t.Fatalf("--write: exit %d\n%s\n%s", code, out, stderr)
	}
	want := strings.Replace(before, `"numba>=0.58,<=0.66.0"`, `"numba>=0.58,<=0.67.0"`, 1)
	if got := e.read("setup.py"); got != want {
		t.Errorf("--write: setup.py rewritten as\n%s", got)
	}
}

// TestInitSetupPy: pinbot init reads setup.py like any pin file: on a tree
// shaped like tensorflow/probability it finds TensorFlow (and jax, jaxlib)
// pinned there, uncapped, so it proposes no cap.
func TestInitSetupPy(t *testing.T) {
	e, _ := tfpTree(t)
	code, out, stderr := e.run("init", "--dir", e.dir)
	if code != 0 || !strings.Contains(out, "1 pin file(s) found") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	written := e.read(".pinbot.yml")
	for _, want := range []string{
		"  # tensorflow is pinned at setup.py:58\n  tensorflow:\n",
		"#   - setup.py   # tensorflow, jax, jaxlib (setuppy)\n",
		"  tensorflow:\n    cap: inclusive",
		"    add-cap: false\n",
	} {
		if !strings.Contains(written, want) {
			t.Errorf("init wrote no %q:\n%s", want, written)
		}
	}
}

// TestCheckSetupPyNotPython3: a setup.py that is not Python 3 (a Python 2
// relic, a project template) is a warning that its requirements are not
// read; the run goes on, the other pin files are planned, and nothing in it
// is written.
func TestCheckSetupPyNotPython3(t *testing.T) {
	e := newEnv(t)
	py2 := "from setuptools import setup\nprint 'building'\nsetup(install_requires=['numba<=0.66.0'])\n"
	e.file("legacy/setup.py", []byte(py2))
	e.file("requirements.txt", []byte("numba>=0.58,<=0.66.0\n"))
	e.file(".pinbot.yml", []byte(numbaOnly))
	code, out, stderr := e.run("check", "--dir", e.dir, "--write")
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{
		"warning: legacy/setup.py:2:7: setup(): not Python 3 that pinbot can read (it reads setup.py without running it), so its requirements are not read",
		"requirements.txt:1  numba>=0.58,<=0.66.0 → numba>=0.58,<=0.67.0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if got := e.read("legacy/setup.py"); got != py2 {
		t.Errorf("setup.py rewritten:\n%s", got)
	}
}
