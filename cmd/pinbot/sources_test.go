package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/web"
)

// The gating scenarios run `pinbot check --format json` against a fake PyPI
// and a fake conda-forge, with pins in pyproject.toml and a configuration that
// requires both sources.

// clock is the time of the gating runs: numba 0.67.0 (uploaded 2026-08-11
// 14:00 on the fake PyPI) is 22 hours old.
var clock = time.Date(2026, 8, 12, 12, 0, 0, 0, time.UTC)

const gatedPyproject = "[project]\nname = \"demo\"\ndependencies = [\"numba>=0.58,<=0.65.1\"]\n"

// condaNumba is numba on the fake conda-forge: every version up to last, for
// linux-64, osx-arm64 and win-64, uploaded a day after PyPI's.
func condaNumba(last string) []fakes.CondaFile {
	var out []fakes.CondaFile
	for _, r := range fakes.NumbaReleases() {
		if r.NoFiles || strings.ContainsAny(r.Version, "abr") || strings.Contains(r.Version, "dev") {
			continue
		}
		for _, sd := range []string{"linux-64", "osx-arm64", "win-64"} {
			out = append(out, fakes.CondaFile{Version: r.Version, Subdir: sd, Uploaded: r.Uploaded.Add(20 * time.Hour)})
		}
		if r.Version == last {
			break
		}
	}
	return out
}

// sourcesEnv is newEnv with a fake conda host serving conda-forge.
func sourcesEnv(t *testing.T) (*env, *fakes.Conda) {
	e := newEnv(t)
	c := fakes.NewConda(t)
	c.Add("conda-forge", "numba", condaNumba("0.67.0")...)
	e.vars["PINBOT_CONDA_URL"] = c.URL
	return e, c
}

// runWith runs pinbot like env.run, with ctx and the fixed clock; the user
// cache directory is userCacheDir ("" for none, so that only --cache-dir or
// PINBOT_CACHE_DIR turn the HTTP cache on).
func (e *env) runWith(ctx context.Context, userCacheDir string, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	f := newFactory(&stdout, &stderr, func(k string) string { return e.vars[k] })
	f.Now = func() time.Time { return clock }
	f.UserCacheDir = func() (string, error) {
		if userCacheDir == "" {
			return "", errors.New("no user cache directory in tests")
		}
		return userCacheDir, nil
	}
	f.HTTPClient = func() *http.Client {
		p := web.DefaultPolicy
		p.BaseDelay, p.MaxDelay, p.Timeout = time.Millisecond, 5*time.Millisecond, 2*time.Second
		return &http.Client{Transport: f.cache(web.NewTransport(nil, p, web.UserAgent("test"), f.Log))}
	}
	code := run(ctx, args, f)
	return code, stdout.String(), stderr.String()
}

func decodeReport(t *testing.T, out string) map[string]report.Package {
	t.Helper()
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := map[string]report.Package{}
	for _, p := range rep.Packages {
		m[p.Name] = p
	}
	return m
}

func TestCheckGating(t *testing.T) {
	macWheels := []string{"cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64", "cp312-cp312-macosx_11_0_arm64"}
	tests := []struct {
		name   string
		config string
		setup  func(e *env, c *fakes.Conda)
		newest string // the target
		reason string
		after  string
		srcs   map[string]string
	}{
		{
			name:   "PyPI ahead of conda-forge",
			config: "packages:\n  numba:\n    require: [pypi, conda-forge]\n",
			setup:  func(e *env, c *fakes.Conda) { c.Add("conda-forge", "numba", condaNumba("0.66.0")...) },
			newest: "0.66.0", reason: "conda-forge has only 0.66.0, pypi has 0.67.0 → 0.66.0", after: "numba>=0.58,<=0.66.0",
			srcs: map[string]string{"pypi": "0.67.0", "conda-forge": "0.66.0"},
		},
		{
			name:   "a yanked newest release",
			config: "packages:\n  numba:\n    require: [pypi, conda-forge]\n",
			setup: func(e *env, c *fakes.Conda) {
				e.pypi.Add("numba", append(fakes.NumbaReleases(), fakes.Release{Version: "0.67.1", Yanked: true, YankedReason: "segfaults on import"})...)
				c.Add("conda-forge", "numba", append(condaNumba("0.67.0"), fakes.CondaFile{Version: "0.67.1", Subdir: "linux-64"})...)
			},
			newest: "0.67.0", reason: "conda-forge has 0.67.1, pypi has only 0.67.0; 0.67.1 is yanked on pypi (segfaults on import) → 0.67.0", after: "numba>=0.58,<=0.67.0",
			srcs: map[string]string{"pypi": "0.67.0", "conda-forge": "0.67.1"},
		},
		{
			name:   "a release younger than min-age",
			config: "packages:\n  numba:\n    require: [pypi, conda-forge]\n    min-age: 3d\n",
			newest: "0.66.0", reason: "conda-forge and pypi have 0.67.0; 0.67.0 is 22 hours old on pypi, min-age 3d → 0.66.0", after: "numba>=0.58,<=0.66.0",
			srcs: map[string]string{"pypi": "0.67.0", "conda-forge": "0.67.0"},
		},
		{
			name:   "no wheel for a required platform",
			config: "packages:\n  numba:\n    require: [pypi, conda-forge]\n    platforms: [linux-64, osx-arm64]\n    python: [\"3.12\"]\n",
			setup: func(e *env, c *fakes.Conda) {
				rs := fakes.NumbaReleases()
				for i := range rs {
					if rs[i].Version == "0.66.0" {
						rs[i].Wheels = macWheels
					}
				}
				e.pypi.Add("numba", rs...)
			},
			newest: "0.66.0", reason: "conda-forge and pypi have 0.67.0; 0.67.0 has no wheel for osx-arm64 and Python 3.12 → 0.66.0", after: "numba>=0.58,<=0.66.0",
			srcs: map[string]string{"pypi": "0.67.0", "conda-forge": "0.67.0"},
		},
		{
			name:   "every gate passes",
			config: "packages:\n  numba:\n    require: [pypi, conda-forge]\n    platforms: [linux-64]\n    min-age: 1h\n",
			newest: "0.67.0", reason: "conda-forge and pypi have 0.67.0", after: "numba>=0.58,<=0.67.0",
			srcs: map[string]string{"pypi": "0.67.0", "conda-forge": "0.67.0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, c := sourcesEnv(t)
			if tt.setup != nil {
				tt.setup(e, c)
			}
			e.file("pyproject.toml", []byte(gatedPyproject))
			e.file(".pinbot.yml", []byte(tt.config))
			code, out, stderr := e.runWith(context.Background(), "", "check", "--dir", e.dir, "--format", "json")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			p := decodeReport(t, out)["numba"]
			if p.Newest != tt.newest || p.Reason != tt.reason || p.Status != "bump" {
				t.Errorf("newest %q status %q\nreason %q\nwant   %q", p.Newest, p.Status, p.Reason, tt.reason)
			}
			if len(p.Pins) != 1 || p.Pins[0].After != tt.after {
				t.Errorf("pins %+v, want after %q", p.Pins, tt.after)
			}
			if len(p.Sources) != len(tt.srcs) {
				t.Errorf("sources %v, want %v", p.Sources, tt.srcs)
			}
			for k, v := range tt.srcs {
				if p.Sources[k] != v {
					t.Errorf("sources %v, want %v", p.Sources, tt.srcs)
				}
			}
		})
	}
}

// TestCheckSourceFaultsGated injects a fault per source into a run over three
// packages: each ends in a retry or in that package's error, and the other
// packages are still reported.
func TestCheckSourceFaultsGated(t *testing.T) {
	const doc = "[project]\nname = \"demo\"\ndependencies = [\"numba>=0.58,<=0.65.1\", \"llvmlite<=0.48.0\", \"protobuf>=5.29.3,<6\"]\n"
	const cfg = "packages:\n  numba:\n    require: [pypi, conda-forge]\n  llvmlite:\n    require: [pypi, conda-forge]\n  protobuf: {}\n"
	tests := []struct {
		name      string
		path      string
		faults    []fakes.Fault
		wantError string // numba's error; "" for success after a retry
	}{
		{name: "conda 500 then 200", path: "/package/conda-forge/numba", faults: []fakes.Fault{{Status: 500, Body: "<html>Internal Server Error</html>"}}},
		{name: "conda 429 with Retry-After then 200", path: "/package/conda-forge/numba", faults: []fakes.Fault{{Status: 429, Header: map[string]string{"Retry-After": "0"}, Body: "terms of service rate limit"}}},
		{name: "conda truncated then 200", path: "/package/conda-forge/numba", faults: []fakes.Fault{{Truncate: true}}},
		{name: "conda hung then 200", path: "/package/conda-forge/numba", faults: []fakes.Fault{{Hang: 10 * time.Second}}},
		{name: "conda truncated JSON", path: "/package/conda-forge/numba", faults: []fakes.Fault{{Body: `{"name": "numba", "files": [`}}, wantError: "invalid JSON (truncated or corrupt response)"},
		{name: "conda HTML with 200", path: "/package/conda-forge/numba", faults: []fakes.Fault{{Body: "<!DOCTYPE html><html>maintenance</html>"}}, wantError: "expected JSON, got an HTML"},
		{name: "conda 404", path: "/package/conda-forge/numba", faults: []fakes.Fault{{Status: 404, Body: `{"error": "not found"}`}}, wantError: "404"},
		{name: "pypi HTML with 200", path: "/pypi/numba/json", faults: []fakes.Fault{{Body: "<!DOCTYPE html><html>maintenance</html>"}}, wantError: "expected JSON, got an HTML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, c := sourcesEnv(t)
			c.Add("conda-forge", "llvmlite", fakes.CondaFile{Version: "0.49.0"})
			e.file("pyproject.toml", []byte(doc))
			e.file(".pinbot.yml", []byte(cfg))
			if strings.HasPrefix(tt.path, "/pypi/") {
				e.pypi.Fail(tt.path, tt.faults...)
			} else {
				c.Fail(tt.path, tt.faults...)
			}
			code, out, stderr := e.runWith(context.Background(), "", "check", "--dir", e.dir, "--format", "json")
			rep := decodeReport(t, out)
			if rep["llvmlite"].Status != "bump" || rep["protobuf"].Status == "error" || len(rep) != 3 {
				t.Errorf("the other packages were not reported: %+v", rep)
			}
			numba := rep["numba"]
			if tt.wantError == "" {
				if code != 0 || numba.Status != "bump" || numba.Newest != "0.67.0" {
					t.Errorf("exit %d, numba %+v\n%s", code, numba, stderr)
				}
				return
			}
			if code != 1 || numba.Status != "error" || !strings.Contains(numba.Error, tt.wantError) {
				t.Errorf("exit %d, numba %+v; want error %q", code, numba, tt.wantError)
			}
		})
	}
}

func TestCheckCancel(t *testing.T) {
	e, c := sourcesEnv(t)
	e.file("pyproject.toml", []byte(gatedPyproject))
	e.file(".pinbot.yml", []byte("packages:\n  numba:\n    require: [pypi, conda-forge]\n"))
	c.Fail("/package/conda-forge/numba", fakes.Fault{Hang: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(c.Requests()) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel() // Ctrl-C while the lookup hangs
	}()
	start := time.Now()
	code, out, stderr := e.runWith(ctx, "", "check", "--dir", e.dir, "--format", "json")
	if code != 1 || out != "" || !strings.Contains(stderr, "pinbot: interrupted") {
		t.Errorf("exit %d\nstdout %q\nstderr %s", code, out, stderr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the run took %v to stop", d)
	}
}

func TestCheckSimpleAndShards(t *testing.T) {
	e, c := sourcesEnv(t)
	e.file("pyproject.toml", []byte(gatedPyproject))
	e.file(".pinbot.yml", []byte("sources:\n  pypi:\n    api: simple\n  conda:\n    repodata-url: "+c.URL+"\npackages:\n  numba:\n    require: [pypi, conda-forge]\n    platforms: [osx-arm64]\n"))
	e.vars["PINBOT_PYPI_URL"] = e.pypi.URL + "/simple/"
	rs := fakes.NumbaReleases()
	for i := range rs {
		if rs[i].Version <= "0.66.0" {
			rs[i].Wheels = []string{"cp312-cp312-manylinux_2_17_x86_64", "cp312-cp312-macosx_11_0_arm64"}
		}
	}
	e.pypi.Add("numba", rs...)
	c.Add("conda-forge", "numba", condaNumba("0.66.0")...)
	code, out, stderr := e.runWith(context.Background(), "", "check", "--dir", e.dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	p := decodeReport(t, out)["numba"]
	if p.Newest != "0.66.0" || p.Reason != "conda-forge has only 0.66.0, pypi has 0.67.0; 0.67.0 has no wheel for osx-arm64 → 0.66.0" {
		t.Errorf("numba %+v", p)
	}
	var simple, shards int
	for _, p := range e.pypi.Requests() {
		if strings.HasPrefix(p, "/simple/") {
			simple++
		}
	}
	for _, p := range c.Requests() {
		if strings.Contains(p, "/shards/") {
			shards++
		}
		if strings.Contains(p, "/linux-64/") || strings.Contains(p, "/win-64/") {
			t.Errorf("a subdir no package requires was read: %s", p)
		}
	}
	if simple != 1 || shards != 1 {
		t.Errorf("%d simple API requests, %d shards (osx-arm64; noarch has none)", simple, shards)
	}
}

// TestCheckCache runs twice on one cache directory: the second run makes only
// conditional requests, answered 304.
func TestCheckCache(t *testing.T) {
	for _, how := range []string{"flag", "env", "user cache dir", "off"} {
		t.Run(how, func(t *testing.T) {
			e, c := sourcesEnv(t)
			e.file("pyproject.toml", []byte(gatedPyproject))
			e.file(".pinbot.yml", []byte("packages:\n  numba:\n    require: [pypi, conda-forge]\n"))
			dir := t.TempDir()
			args := []string{"check", "--dir", e.dir, "--format", "json"}
			userDir := ""
			switch how {
			case "flag":
				args = append(args, "--cache-dir", dir+"/pinbot")
			case "env":
				e.vars["PINBOT_CACHE_DIR"] = dir + "/pinbot"
			case "user cache dir":
				userDir = dir
			case "off":
				args = append(args, "--no-cache", "--cache-dir", dir+"/pinbot")
			}
			var outs []string
			for range 2 {
				code, out, stderr := e.runWith(context.Background(), userDir, args...)
				if code != 0 {
					t.Fatalf("exit %d\n%s", code, stderr)
				}
				outs = append(outs, out)
			}
			if outs[0] != outs[1] {
				t.Error("the cached run reports differently")
			}
			if how != "off" {
				if _, err := os.Stat(dir + "/pinbot"); err != nil {
					t.Errorf("no cache under the user cache dir: %v", err)
				}
			}
			for _, log := range [][]fakes.Request{e.pypi.Log(), c.Log()} {
				second := log[len(log)/2:]
				for _, r := range second {
					if r.Conditional != (how != "off") || (how != "off" && r.Status != http.StatusNotModified) {
						t.Errorf("second run: %+v", r)
					}
				}
			}
		})
	}
}

// BenchmarkCheckWarmCache runs `pinbot check` over three packages, each
// required on PyPI and conda-forge (numba with 2,000 conda files), on a warm
// HTTP cache: every request is conditional and answered 304.
//
//	go test ./cmd/pinbot -run '^$' -bench CheckWarmCache -benchtime 20x
func BenchmarkCheckWarmCache(b *testing.B) {
	e := &env{dir: b.TempDir(), pypi: fakes.NewPyPI(b)}
	e.pypi.Add("numba", fakes.NumbaReleases()...)
	e.pypi.Add("llvmlite", fakes.Release{Version: "0.48.0"}, fakes.Release{Version: "0.49.0"})
	e.pypi.Add("tensorflow", fakes.Release{Version: "2.19.1"}, fakes.Release{Version: "2.20.0"}, fakes.Release{Version: "2.21.0rc0"})
	c := fakes.NewConda(b)
	c.Add("conda-forge", "numba", append(fakes.CondaHistory(2000), condaNumba("0.67.0")...)...)
	c.Add("conda-forge", "llvmlite", fakes.CondaFile{Version: "0.48.0"}, fakes.CondaFile{Version: "0.49.0"})
	c.Add("conda-forge", "tensorflow", fakes.CondaFile{Version: "2.19.1"}, fakes.CondaFile{Version: "2.20.0"})
	e.vars = map[string]string{"PINBOT_PYPI_URL": e.pypi.URL, "PINBOT_CONDA_URL": c.URL}
	files := map[string]string{"pyproject.toml": "[project]\nname = \"demo\"\ndependencies = [\"numba>=0.58,<=0.65.1\", \"llvmlite<=0.48.0\", \"tensorflow>=2.19,<=2.19.1\"]\n", ".pinbot.yml": "packages:\n  numba:\n    require: [pypi, conda-forge]\n  llvmlite:\n    require: [pypi, conda-forge]\n  tensorflow:\n    require: [pypi, conda-forge]\n"}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(e.dir, name), []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	args := []string{"check", "--dir", e.dir, "--format", "json", "--cache-dir", b.TempDir()}
	if code, _, stderr := e.runWith(context.Background(), "", args...); code != 0 { // fill the cache
		b.Fatalf("exit %d\n%s", code, stderr)
	}
	e.pypi.ResetLog()
	c.ResetLog()
	for b.Loop() {
		if code, _, stderr := e.runWith(context.Background(), "", args...); code != 0 {
			b.Fatalf("exit %d\n%s", code, stderr)
		}
	}
	log := append(e.pypi.Log(), c.Log()...)
	var bytes int64
	for _, r := range log {
		if !r.Conditional || r.Status != http.StatusNotModified {
			b.Fatalf("a warm run made an unconditional or uncached request: %+v", r)
		}
		bytes += r.Bytes
	}
	b.ReportMetric(float64(len(log))/float64(b.N), "requests/op")
	b.ReportMetric(float64(bytes)/float64(b.N), "body-B/op")
}

func TestNewSources(t *testing.T) {
	cfg := config.Default()
	cfg.Sources.Conda.Channels = []string{"conda-forge", "bioconda"}
	env := map[string]string{"GOPROXY": "ftp://nope", "PINBOT_CONDA_URL": "http://conda.test", "PINBOT_GOPROXY_URL": ""}
	srcs, _ := newSources(cfg, http.DefaultClient, 0, func(k string) string { return env[k] })
	for name, want := range map[string]string{"pypi": "pypi", "conda-forge": "conda-forge", "bioconda": "bioconda", "conda": "conda-forge", "goproxy": "goproxy"} {
		if s, ok := srcs[name]; !ok || s.Name() != want {
			t.Errorf("source %q = %v, want one named %q", name, s, want)
		}
	}
	// A GOPROXY that does not parse fails the lookups that need it, not the run.
	if _, err := srcs["goproxy"].Releases(context.Background(), "golang.org/x/mod"); err == nil || !strings.Contains(err.Error(), "GOPROXY") {
		t.Errorf("goproxy lookup: %v", err)
	}

	// Environment overrides of the configured URLs.
	var stdout, stderr bytes.Buffer
	f := newFactory(&stdout, &stderr, func(k string) string { return env[k] })
	env["PINBOT_GOPROXY_URL"] = "http://goproxy.test"
	cfg, err := f.loadConfig(t.TempDir(), "")
	if err != nil || cfg.Sources.Conda.URL != "http://conda.test" || cfg.Sources.GoProxy.URL != "http://goproxy.test" {
		t.Errorf("loadConfig = %+v, %v", cfg.Sources, err)
	}
}

// TestCheckCondaEnvironment plans pytensor's environment.yml and pyproject.toml
// together: the conda pin follows conda-forge (the file's first channel), the
// PyPI pins follow pypi, and the target is one both sources have.
//
// conda-forge is a release behind PyPI, so pyproject.toml's <=0.66.0 caps do
// not move: their reason says that PyPI has 0.67.0 and what holds the target
// (not "already admits the newest release"), and the cost of the caps is
// measured against PyPI's 0.67.0, which the target waiting for conda-forge
// does not make go away.
func TestCheckCondaEnvironment(t *testing.T) {
	e, c := sourcesEnv(t)
	pytensorStack(e)
	c.Add("conda-forge", "numba", condaNumba("0.66.0")...)
	e.file("environment.yml", corpus.Read(t, "pymc-devs__pytensor__environment.yml"))
	e.file("pyproject.toml", corpus.Read(t, "pymc-devs__pytensor__pyproject.toml"))
	e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n"))
	code, out, stderr := e.runWith(context.Background(), "", "check", "--dir", e.dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	p := decodeReport(t, out)["numba"]
	if p.Newest != "0.66.0" || p.Sources["conda-forge"] != "0.66.0" || p.Sources["pypi"] != "0.67.0" {
		t.Errorf("numba %+v", p)
	}
	files := map[string]string{}
	for _, pin := range p.Pins {
		files[pin.File] = pin.After
	}
	if files["environment.yml"] != "numba>=0.57,<=0.66.0" || files["pyproject.toml"] != "numba>=0.58,<=0.66.0" {
		t.Errorf("pins %+v", p.Pins)
	}
	if p.Reason != "conda-forge has 0.66.0, pypi has 0.67.0 → 0.66.0" {
		t.Errorf("reason %q", p.Reason)
	}
	const held = "0.67.0 is on pypi, but the target is 0.66.0: conda-forge has not published 0.67.0 (environment.yml governs numba through conda-forge); cap <=0.66.0 already admits the target"
	for _, pin := range p.Pins {
		want := held
		if pin.File == "environment.yml" {
			want = "no upper bound: capped at <=0.66.0" // measured against its own source's newest
		}
		if pin.Reason != want {
			t.Errorf("%s:%d reason\n%q\nwant\n%q", pin.File, pin.Line, pin.Reason, want)
		}
	}
	want := []report.HoldBack{
		{Package: "llvmlite", Constraint: "<0.50", RequiredBy: "numba 0.66.0", Newest: "0.51.0",
			Reason: "numba 0.66.0, the newest release the caps admit, holds llvmlite<0.50 while llvmlite 0.51.0 is out; numba 0.67.0 admits llvmlite<0.51 (up to 0.50.0)"},
		{Package: "numpy", Constraint: "<2.5", RequiredBy: "numba 0.66.0", Newest: "2.5.1",
			Reason: "numba 0.66.0, the newest release the caps admit, holds numpy<2.5 while numpy 2.5.1 is out; numba 0.67.0 admits numpy<2.6"},
	}
	if diff := cmp.Diff(want, p.HoldsBack); diff != "" {
		t.Errorf("holds_back (-want +got)\n%s", diff)
	}
	_, text, _ := e.runWith(context.Background(), "", "check", "--dir", e.dir)
	if !strings.Contains(text, "  holds back numpy: numba 0.66.0, the newest release the caps admit, holds numpy<2.5") {
		t.Errorf("text report without the cost of the caps:\n%s", text)
	}
}
