package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// TestCheckUnknownPackage: --package naming a package neither watched nor
// pinned anywhere is a usage error that lists the watched packages; one
// pinned but not watched is watched for the run, one watched but not
// pinned is no error.
func TestCheckUnknownPackage(t *testing.T) {
	e := newEnv(t)
	e.file("pyproject.toml", []byte("[project]\ndependencies = [\"numba>=0.58,<=0.66.0\", \"llvmlite<=0.48.0\"]\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n  protobuf: {}\n"))
	for _, cmd := range [][]string{{"check"}, {"run", "--dry-run"}} {
		code, out, stderr := e.run(append(cmd, "--dir", e.dir, "--package", "numbaa", "--package", "numba")...)
		if code != exitUsage || out != "" ||
			!strings.Contains(stderr, "pinbot: --package numbaa: neither watched nor pinned in any pin file (watched packages: numba, protobuf)") {
			t.Errorf("%s: exit %d\nstdout %s\nstderr %s", cmd[0], code, out, stderr)
		}
	}
	for _, name := range []string{"llvmlite", "protobuf", "Numba"} {
		if code, out, stderr := e.run("check", "--dir", e.dir, "--package", name); code != exitOK {
			t.Errorf("--package %s: exit %d\n%s\n%s", name, code, out, stderr)
		}
	}
}

// TestCheckTimeout: --timeout bounds the whole run whatever the network
// limits: with the index hanging on numba and the default limits (45 s a
// request), `pinbot check --timeout 1s` ends at once, reports llvmlite
// planned and numba failed by the timeout, writes nothing, and exits 1
// saying why.
func TestCheckTimeout(t *testing.T) {
	h := newHostile(t, "packages:\n  numba: {}\n  llvmlite: {}\n")
	h.pypi.Fail("/pypi/numba/json", repeat(fakes.Fault{Hang: time.Minute}, 4)...)
	before := h.read("pyproject.toml")
	start := time.Now()
	code, out, stderr := h.check("--format", "json", "--write", "--timeout", "1s")
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("took %s: --timeout did not end the run", took) // a bound, not a speed target
	}
	if code != exitFailure || !strings.Contains(stderr, "pinbot: the run took longer than --timeout 1s: the report is what was done by then; nothing was written") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	pkgs := h.packages(out)
	if p := pkgs["numba"]; p.Status != "error" || !strings.Contains(p.Error, "pypi: the run took longer than --timeout 1s") {
		t.Errorf("numba = %+v, want an error saying the timeout ended it", p)
	}
	if p := pkgs["llvmlite"]; p.Status != "bump" {
		t.Errorf("llvmlite = %+v, want it planned", p)
	}
	if h.read("pyproject.toml") != before {
		t.Error("a run --timeout ended wrote a file")
	}
	if code, _, stderr := h.run("check", "--dir", h.dir, "--timeout", "-1s"); code != exitUsage || !strings.Contains(stderr, "--timeout: expected a positive duration") {
		t.Errorf("--timeout -1s: exit %d\n%s", code, stderr)
	}
}

// TestRunTimeout: pinbot run --timeout ends a run whose index hangs,
// reporting what was done, with no pull request for the package it cut
// off, and exits 1 whatever --fail-on says.
func TestRunTimeout(t *testing.T) {
	e := newRunEnv(t, testConfig)
	e.pypi.Fail("/pypi/numba/json", repeat(fakes.Fault{Hang: time.Minute}, 4)...)
	code, out, stderr := e.run("--timeout", "500ms", "--fail-on", "never")
	if code != exitFailure || !strings.Contains(stderr, "pinbot: the run took longer than --timeout 500ms: the report and the pull requests listed are what was done by then") {
		t.Errorf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.HasPrefix(out, "1 package: 0 bump, 0 blocked, 0 held, 0 current, 1 error\n") || !strings.Contains(out, "--timeout 500ms") {
		t.Errorf("report:\n%s", out)
	}
	if p := e.gh.Pulls(testRepo); len(p) != 0 {
		t.Errorf("pull requests %+v", p)
	}
}

// TestDefaultRequestWorstCase: with no network settings, the HTTP client's
// policy fails a request to a hung index in well under a minute, computed
// from the defaults; the configuration's network keys set it.
func TestDefaultRequestWorstCase(t *testing.T) {
	f := newFactory(nil, nil, func(string) string { return "" })
	if got := f.policy().WorstCase(); got >= time.Minute {
		t.Errorf("a hung index fails a request after up to %s with the defaults, want well under a minute", got)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, ".pinbot.yml")
	os.WriteFile(path, []byte("network:\n  attempt-timeout: 300ms\n  request-timeout: 1s\n"), 0o644)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Network = cfg.Network
	if got := f.policy().WorstCase(); got != time.Second {
		t.Errorf("with request-timeout 1s: worst case %s", got)
	}
}
