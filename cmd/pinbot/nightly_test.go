package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pinbot-dev/pinbot/bot/publishing/state"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/config"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// router returns the base transport that sends e's routes to their fakes
// (nil when there are none): pinbot asks the real service's URL, such as
// the scientific-python preset's index, and the fake answers it.
func (e *env) router() http.RoundTripper {
	if len(e.routes) == 0 {
		return nil
	}
	return routeTripper(e.routes)
}

// routeTripper maps URL prefixes to a fake's base URL. The response names
// the request as it was sent, so that what the page links resolves against
// the real URL, and is routed again.
type routeTripper map[string]string

func (rt routeTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	for prefix, to := range rt {
		rest, ok := strings.CutPrefix(req.URL.String(), prefix)
		if !ok {
			continue
		}
		u, err := url.Parse(to + rest)
		if err != nil {
			return nil, err
		}
		routed := req.Clone(req.Context())
		routed.URL, routed.Host = u, u.Host
		resp, err := http.DefaultTransport.RoundTrip(routed)
		if resp != nil {
			resp.Request = req
		}
		return resp, err
	}
	return http.DefaultTransport.RoundTrip(req)
}

// nightlyProbe is numba's probe the nightly tests run: static probing
// decides it (no run snippet).
const nightlyProbe = "packages:\n  numba:\n    probes:\n      - path: numba.core.bytecode.FunctionIdentity._unique_ids\n        expect: iterator\n"

// day is a day of November 2026, when the nightly builds are uploaded.
func day(d int) time.Time { return time.Date(2026, 11, d, 3, 0, 0, 0, time.UTC) }

// tfRelease is a wheel of project (tensorflow, tf-nightly) whose
// tensorflow module has convert_variables_to_constants_v2, unless gone.
func tfRelease(project, version string, gone bool) fakes.Release {
	api := []byte("def convert_variables_to_constants_v2(func):\n    return func\n")
	if gone {
		api = []byte("# moved\n")
	}
	fn, data := fakes.Wheel(project, version, "py3-none-any", map[string][]byte{
		"tensorflow/__init__.py": nil, "tensorflow/python/__init__.py": nil, "tensorflow/python/framework/__init__.py": nil,
		"tensorflow/python/framework/convert_to_constants.py": api,
	})
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

// nightlyBuild is a numba nightly build, uploaded on the day its version
// says; drop removes _unique_ids.
func nightlyBuild(version string, drop bool, up time.Time) fakes.Release {
	r := numbaRelease(version, drop)
	r.Uploaded = up
	return r
}

// nightlyEnv is a repository capping numba at 0.66.0 (PyPI has 0.66.0 and
// 0.67.0, the target: both keep _unique_ids) whose early warning reads the
// nightly source early-warning names, and a fake index serving nightly
// builds.
func nightlyEnv(t *testing.T, earlyWarning string, builds ...fakes.Release) (*env, *fakes.PyPI) {
	nightly := fakes.NewPyPI(t)
	nightly.Add("numba", builds...)
	e := earlyEnv(t, nightlyProbe+"    early-warning: "+strings.ReplaceAll(earlyWarning, "NIGHTLY", nightly.URL)+"\n")
	return e, nightly
}

// checkNightly runs pinbot check --static --format json and returns the
// report's numba entry and warnings, asserting exit 0: a nightly changes
// no exit code.
func checkNightly(t *testing.T, e *env, pkg string) (report.Package, []string) {
	t.Helper()
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json", "--static")
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, stderr)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Packages {
		if p.Name == pkg {
			return p, rep.Warnings
		}
	}
	t.Fatalf("no %s in\n%s", pkg, out)
	return report.Package{}, nil
}

// wantNightly checks a nightly against what the tests expect of it.
func wantNightly(t *testing.T, n *report.Nightly, version, source, verdict string, uploaded time.Time) {
	t.Helper()
	if n == nil {
		t.Fatal("no nightly in the report")
	}
	if n.Version != version || n.Source != source || n.Verdict != verdict || !n.Uploaded.Equal(uploaded) || n.Baseline != "0.67.0" {
		t.Errorf("nightly %s (%s) %s uploaded %v against %s, want %s (%s) %s uploaded %v against 0.67.0; reason %q",
			n.Version, n.Source, n.Verdict, n.Uploaded, n.Baseline, version, source, verdict, uploaded, n.Reason)
	}
	switch verdict {
	case "blocked":
		if !strings.HasPrefix(n.Reason, "fails probe numba.core.bytecode.FunctionIdentity._unique_ids (passes at 0.67.0, fails at "+version+": ") ||
			strings.Contains(n.Reason, "ships") ||
			n.FirstFailing == nil || n.FirstFailing.Version != version || n.LastPassing != nil {
			t.Errorf("blocked nightly: reason %q, first failing %v, last passing %v", n.Reason, n.FirstFailing, n.LastPassing)
		}
	case "ok":
		if n.Reason != "passes every check against 0.67.0" || n.FirstFailing != nil || n.LastPassing == nil || n.LastPassing.Version != version {
			t.Errorf("passing nightly: reason %q, first failing %v, last passing %v", n.Reason, n.FirstFailing, n.LastPassing)
		}
	}
}

// TestCheckNightlySources drives each kind of nightly source through pinbot
// check against fakes serving builds as the real indexes do: the newest
// build newer than the target is checked with the package's probes against
// 0.67.0 (what the caps admit once they move), the cap moves to 0.67.0 and
// no further, and the exit code is the bump's.
func TestCheckNightlySources(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	builds := []fakes.Release{nightlyBuild("0.69.0.dev20261124", false, day(24)), nightlyBuild("0.69.0.dev20261130", true, day(30)),
		nightlyBuild("0.69.0.dev20261117", false, day(17))}
	t.Run("scientific-python, JSON form", func(t *testing.T) {
		e, nightly := nightlyEnv(t, "{nightly: scientific-python}", builds...)
		e.routes = map[string]string{"https://pypi.anaconda.org/scientific-python-nightly-wheels": nightly.URL}
		p, _ := checkNightly(t, e, "numba")
		if p.Status != "bump" || p.Newest != "0.67.0" || p.Pins[0].After != "numba>=0.58,<=0.67.0" {
			t.Errorf("the nightly moved the plan: %s %s %+v", p.Status, p.Newest, p.Pins)
		}
		wantNightly(t, p.Nightly, "0.69.0.dev20261130", config.ScientificPythonNightlyIndex, "blocked", day(30))
		if reqs := strings.Join(nightly.Requests(), " "); !strings.Contains(reqs, "/simple/numba/") || !strings.Contains(reqs, "numba-0.69.0.dev20261130-py3-none-any.whl") {
			t.Errorf("the index was asked %s", reqs)
		}
		// The text and Markdown reports say it too.
		_, text, _ := e.run("check", "--dir", e.dir, "--static")
		if !strings.Contains(text, "early warning: numba nightly 0.69.0.dev20261130 ("+config.ScientificPythonNightlyIndex+"): blocked since 0.69.0.dev20261130 (first failing seen): fails probe") {
			t.Errorf("text:\n%s", text)
		}
		_, md, _ := e.run("check", "--dir", e.dir, "--static", "--format", "markdown")
		if !strings.Contains(md, "**Early warning:** numba nightly 0.69.0.dev20261130 (") || !strings.Contains(md, "| Check | Result | Baseline | Nightly | Detail |") {
			t.Errorf("markdown:\n%s", md)
		}
	})
	t.Run("scientific-python, HTML form", func(t *testing.T) {
		// anaconda.org's simple API answers PEP 503 HTML: no upload times.
		e, nightly := nightlyEnv(t, "{nightly: scientific-python}", builds...)
		nightly.HTMLOnly = true
		e.routes = map[string]string{"https://pypi.anaconda.org/scientific-python-nightly-wheels": nightly.URL}
		p, _ := checkNightly(t, e, "numba")
		wantNightly(t, p.Nightly, "0.69.0.dev20261130", config.ScientificPythonNightlyIndex, "blocked", time.Time{})
	})
	t.Run("an index with local labels", func(t *testing.T) {
		// PyTorch's nightly index: a local version label per variant.
		e, _ := nightlyEnv(t, "{nightly: {index: NIGHTLY/simple}}", nightlyBuild("0.69.0.dev20261129+cpu", true, day(29)),
			nightlyBuild("0.69.0.dev20261130+cpu", false, day(30)))
		p, _ := checkNightly(t, e, "numba")
		wantNightly(t, p.Nightly, "0.69.0.dev20261130+cpu", p.Nightly.Source, "ok", day(30))
		if !strings.HasSuffix(p.Nightly.Source, "/simple") || !strings.HasPrefix(p.Nightly.Source, "http://127.0.0.1") {
			t.Errorf("source %q", p.Nightly.Source)
		}
	})
	t.Run("a find-links page", func(t *testing.T) {
		e, nightly := nightlyEnv(t, "{nightly: {find-links: 'NIGHTLY"+fakes.FindLinksPath+"'}}", builds...)
		p, _ := checkNightly(t, e, "numba")
		wantNightly(t, p.Nightly, "0.69.0.dev20261130", nightly.URL+fakes.FindLinksPath, "blocked", time.Time{})
	})
	t.Run("tf-nightly under its own name", func(t *testing.T) {
		e := newEnv(t)
		e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
		e.pypi.Add("tensorflow", tfRelease("tensorflow", "2.19.1", false), tfRelease("tensorflow", "2.20.0", false))
		e.pypi.Add("tf-nightly", tfRelease("tf-nightly", "2.21.0.dev20261129", false), tfRelease("tf-nightly", "2.21.0.dev20261130", true))
		e.file("requirements.txt", []byte("tensorflow>=2.18,<=2.20.0\n"))
		e.file(".pinbot.yml", []byte("packages:\n  tensorflow:\n    probes:\n      - path: tensorflow.python.framework.convert_to_constants.convert_variables_to_constants_v2\n"+
			"        expect: callable\n    early-warning: {nightly: {project: tf-nightly}}\n"))
		p, _ := checkNightly(t, e, "tensorflow")
		n := p.Nightly
		if p.Status != "current" || n == nil || n.Version != "2.21.0.dev20261130" || n.Distribution != "tf-nightly" || n.Source != "tf-nightly on pypi" ||
			n.Baseline != "2.20.0" || n.Verdict != "blocked" || len(n.Checks) == 0 || !strings.Contains(n.Checks[0].Detail, "read tf_nightly-2.21.0.dev20261130-py3-none-any.whl (baseline tensorflow-2.20.0-py3-none-any.whl)") {
			t.Errorf("%s, nightly %+v", p.Status, n)
		}
		_, text, _ := e.run("check", "--dir", e.dir, "--static")
		if !strings.Contains(text, "early warning: tensorflow nightly 2.21.0.dev20261130 as tf-nightly (tf-nightly on pypi): blocked") {
			t.Errorf("text:\n%s", text)
		}
	})
	t.Run("a conda label channel", func(t *testing.T) {
		// numba's dev builds are conda packages: they are read as conda
		// packages, compared with conda-forge's 0.67.0, though the pins
		// are PyPI pins.
		c := fakes.NewConda(t)
		c.Add("conda-forge", "numba", condaNumbaPackage("0.66.0", false), condaNumbaPackage("0.67.0", false))
		dev := func(v string, drop bool, up time.Time) fakes.CondaFile {
			f := condaNumbaPackage(v, drop)
			f.Labels, f.Uploaded = []string{"dev"}, up
			return f
		}
		c.Add("numba", "numba", dev("0.69.0dev20261124", false, day(24)), dev("0.69.0dev20261130", true, day(30)))
		e := earlyEnv(t, nightlyProbe+"    early-warning: {nightly: {channel: numba/label/dev}}\n")
		e.vars["PINBOT_CONDA_URL"] = c.URL
		p, _ := checkNightly(t, e, "numba")
		wantNightly(t, p.Nightly, "0.69.0dev20261130", "numba/label/dev", "blocked", day(30))
		if n := p.Nightly; len(n.Checks) == 0 || !strings.Contains(n.Checks[0].Detail, "read numba-0.69.0dev20261130-py312h6e6e5ba_0.conda (baseline numba-0.67.0-py312h6e6e5ba_0.conda)") {
			t.Errorf("checks %+v", n.Checks)
		}
	})
}

// TestCheckNightlyUnseen: a nightly source that does not answer is a
// report warning, and nothing else changes (the plan, the exit code); one
// without the package, or whose every build the gates hold back, says so.
func TestCheckNightlyUnseen(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	e, nightly := nightlyEnv(t, "{nightly: {index: NIGHTLY/simple}}", nightlyBuild("0.69.0.dev20261130", true, day(30)))
	nightly.Fail("/simple/numba/", repeat(fakes.Fault{Status: 503, Body: "Service Unavailable"}, 8)...)
	p, warnings := checkNightly(t, e, "numba")
	if p.Status != "bump" || p.Newest != "0.67.0" || p.Nightly != nil {
		t.Errorf("%s %s, nightly %+v", p.Status, p.Newest, p.Nightly)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "numba: early warning: the nightly source "+nightly.URL+"/simple did not answer (") ||
		!strings.Contains(warnings[0], "503") {
		t.Errorf("warnings %q", warnings)
	}
	// The JSON report says which source did not answer (pinbot run keeps
	// what earlier runs saw of it).
	if u := p.NightlyUnseen; u == nil || u.Source != nightly.URL+"/simple" || "numba: early warning: "+u.Reason != warnings[0] {
		t.Errorf("nightly_unseen %+v", u)
	}
	e, nightly = nightlyEnv(t, "{nightly: {index: NIGHTLY/simple}}")
	nightly.Remove("numba")
	if p, warnings := checkNightly(t, e, "numba"); len(warnings) != 1 || !strings.Contains(warnings[0], "the nightly source "+nightly.URL+"/simple has no build of numba (") ||
		p.NightlyUnseen != nil {
		t.Errorf("no numba: warnings %q, nightly_unseen %+v", warnings, p.NightlyUnseen)
	}
	// The only build is for Linux; the package needs macOS wheels.
	e, nightly = nightlyEnv(t, "{nightly: {index: NIGHTLY/simple}}\n    platforms: [osx-arm64]",
		numbaWheel("0.69.0.dev20261130", "cp312-cp312-manylinux_2_17_x86_64", true, day(30)))
	if p, warnings := checkNightly(t, e, "numba"); p.Nightly != nil || len(warnings) != 1 || warnings[0] != "numba: early warning: no nightly build on "+nightly.URL+
		"/simple newer than the target passes the package's gates (0.69.0.dev20261130 has no wheel for osx-arm64)" {
		t.Errorf("gated: nightly %+v, warnings %q", p.Nightly, warnings)
	}
}

// TestCheckNightlyGates: a nightly build is held to the package's
// platforms and python gates, not to min-age: a build two hours old is
// checked under min-age: 3d, while a build whose only wheel is for
// CPython 3.13 is held back, with why, from a package that needs 3.12
// (an older build that serves it is checked instead).
func TestCheckNightlyGates(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	young := gateClock.Add(-2 * time.Hour)
	t.Run("min-age does not apply", func(t *testing.T) {
		e, nightly := nightlyEnv(t, "{nightly: {index: NIGHTLY/simple}}\n    min-age: 3d", numbaWheel("0.69.0.dev20261130", "py3-none-any", true, young))
		e.setup = func(f *Factory) { f.Now = func() time.Time { return gateClock } }
		p, warnings := checkNightly(t, e, "numba")
		if p.Status != "bump" || p.Newest != "0.67.0" || len(warnings) != 0 {
			t.Errorf("the target under min-age: %s %s, warnings %q", p.Status, p.Newest, warnings)
		}
		wantNightly(t, p.Nightly, "0.69.0.dev20261130", nightly.URL+"/simple", "blocked", young)
		if n := p.Nightly; n != nil && len(n.Skipped) != 0 {
			t.Errorf("skipped %+v", n.Skipped)
		}
	})
	t.Run("python", func(t *testing.T) {
		e, nightly := nightlyEnv(t, "{nightly: {index: NIGHTLY/simple}}\n    python: [\"3.12\"]",
			numbaWheel("0.69.0.dev20261130", "cp313-cp313-manylinux_2_17_x86_64", true, day(30)))
		p, warnings := checkNightly(t, e, "numba")
		if p.Nightly != nil || len(warnings) != 1 || warnings[0] != "numba: early warning: no nightly build on "+nightly.URL+
			"/simple newer than the target passes the package's gates (0.69.0.dev20261130 has no wheel for Python 3.12)" {
			t.Errorf("held back: nightly %+v, warnings %q", p.Nightly, warnings)
		}
		// An older build that serves 3.12 is checked; the newer is listed.
		nightly.Add("numba", numbaWheel("0.69.0.dev20261130", "cp313-cp313-manylinux_2_17_x86_64", true, day(30)),
			nightlyBuild("0.69.0.dev20261124", true, day(24)))
		p, _ = checkNightly(t, e, "numba")
		wantNightly(t, p.Nightly, "0.69.0.dev20261124", nightly.URL+"/simple", "blocked", day(24))
		if n := p.Nightly; n == nil || len(n.Skipped) != 1 || n.Skipped[0].Version != "0.69.0.dev20261130" || n.Skipped[0].Reason != "0.69.0.dev20261130 has no wheel for Python 3.12" {
			t.Errorf("skipped %+v", p.Nightly)
		}
		_, text, _ := e.run("check", "--dir", e.dir, "--static")
		if !strings.Contains(text, "early warning: numba nightly 0.69.0.dev20261130 ("+nightly.URL+"/simple): not checked (the package's gates): 0.69.0.dev20261130 has no wheel for Python 3.12") {
			t.Errorf("text:\n%s", text)
		}
	})
}

// TestCheckNightlyChecks: a nightly build is checked with every check the
// package has, not only its probes: the usage checks of the project's own
// code (pytensor's monkeypatch of FunctionIdentity._unique_ids, which the
// build drops) and the symbol scans (a forbidden export the build's wheel
// bundles), each against the target.
func TestCheckNightlyChecks(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	t.Run("usage", func(t *testing.T) {
		e := newEnv(t)
		e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
		e.pypi.Add("numba", usageNumba("0.66.0", false), usageNumba("0.67.0", false))
		nightly := fakes.NewPyPI(t)
		nightly.Add("numba", usageNumba("0.69.0.dev20261130", true))
		e.file("pyproject.toml", []byte("[project]\nname = \"pytensor\"\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"))
		e.file("pytensor/link/numba/cache.py", []byte(pytensorCache))
		e.file(".pinbot.yml", []byte("packages:\n  numba:\n    early-warning: {nightly: {index: "+nightly.URL+"/simple}}\n"))
		p, _ := checkNightly(t, e, "numba")
		n := p.Nightly
		if p.Status != "bump" || p.Newest != "0.67.0" || n == nil || n.Verdict != "blocked" || n.Baseline != "0.67.0" ||
			!strings.HasPrefix(n.Reason, "fails usage ") || !strings.Contains(n.Reason, "pytensor/link/numba/cache.py:22") {
			t.Fatalf("%s %s, nightly %+v", p.Status, p.Newest, n)
		}
		var c *report.Check
		for i := range n.Checks {
			if n.Checks[i].Kind == "usage" {
				c = &n.Checks[i]
			}
		}
		if c == nil || c.Verdict != "blocked" || len(c.Broken) != 1 || c.Broken[0].Name != "numba.core.bytecode.FunctionIdentity._unique_ids" ||
			!strings.HasPrefix(c.Detail, "pytensor/link/numba/cache.py:22 replaces numba.core.bytecode.FunctionIdentity._unique_ids: passes at 0.67.0, missing at 0.69.0.dev20261130") {
			t.Errorf("the nightly's usage check %+v", c)
		}
	})
	t.Run("symbols", func(t *testing.T) {
		e := newEnv(t)
		e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
		clean := map[string][]byte{"cryptography/hazmat/bindings/_openssl.abi3.so": genLibrary(t, "cffi_", false)}
		base, _, _ := cryptographyRelease("1.9", clean)
		target, _, _ := cryptographyRelease("2.0", clean)
		e.pypi.Add("cryptography", base, target)
		bundled, _, _ := cryptographyRelease("2.1.0.dev20261130", map[string][]byte{"cryptography/.libs/libssl-5a1b2c3d.so.1.1": genLibrary(t, "SSL_", false)})
		nightly := fakes.NewPyPI(t)
		nightly.Add("cryptography", bundled)
		e.file("requirements.txt", []byte("cryptography>=1.7,<=1.9\n"))
		e.file(".pinbot.yml", []byte("packages:\n  cryptography:\n    symbols:\n      forbid: [\"SSL_*\"]\n"+
			"      wheel: {platform: manylinux_x86_64, python: \"3.12\"}\n    early-warning: {nightly: {index: "+nightly.URL+"/simple}}\n"))
		p, _ := checkNightly(t, e, "cryptography")
		n := p.Nightly
		if p.Status != "bump" || p.Newest != "2.0" || n == nil || n.Version != "2.1.0.dev20261130" || n.Verdict != "blocked" || n.Baseline != "2.0" ||
			!strings.HasPrefix(n.Reason, "fails symbols ") {
			t.Fatalf("%s %s, nightly %+v", p.Status, p.Newest, n)
		}
		if len(n.Checks) != 1 || n.Checks[0].Kind != "symbols" || n.Checks[0].Verdict != "blocked" ||
			!strings.Contains(n.Checks[0].Detail, "libssl-5a1b2c3d.so.1.1 exports 4 symbols matching SSL_*") {
			t.Errorf("the nightly's checks %+v", n.Checks)
		}
	})
}

// TestCheckNightlyConstraints: a nightly build is probed with the
// project's constraints, as a target is (#21's story): numba's nightly
// declares numpy>=1.22 with no cap, numpy 2.5.2 drops what its import
// uses, and the project pins numpy<2.5, so its users keep numpy 2.4.6 and
// the nightly passes; with probe-environment: {constraints: none} it gets
// numpy 2.5.2 and fails.
func TestCheckNightlyConstraints(t *testing.T) {
	py := dynamicOnly(t)
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numpy", numpyRelease("2.4.6", true), numpyRelease("2.5.2", false))
	e.pypi.Add("numba", storyNumba("0.62.0", "numpy>=1.22,<2.5"))
	nightly := fakes.NewPyPI(t)
	nightly.Add("numba", storyNumba("0.64.0.dev20261130", "numpy>=1.22"))
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\n  \"numba>=0.60,<=0.62.0\",\n  \"numpy<2.5\",\n]\n"))
	config := "packages:\n  numba:\n    probes:\n      - name: numba.np.arrayobj imports\n        path: numba.np.arrayobj\n        expect: module\n" +
		"    early-warning: {nightly: {index: " + nightly.URL + "/simple}}\n"
	e.file(".pinbot.yml", []byte(config))
	nightlyOf := func() *report.Nightly {
		t.Helper()
		code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json", "--python", py)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		var rep report.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if n := rep.Packages[0].Nightly; n != nil && len(n.Checks) == 1 && n.Checks[0].Environment != nil {
			return n
		}
		t.Fatalf("no nightly probed in an environment:\n%s\n%s", out, stderr)
		return nil
	}
	n := nightlyOf()
	env := n.Checks[0].Environment
	if n.Version != "0.64.0.dev20261130" || n.Baseline != "0.62.0" || n.Verdict != "ok" ||
		distVersion(asDists(env.Candidate), "numpy") != "2.4.6" || !slices.Equal(env.Constraints, []string{"numpy<2.5 (pyproject.toml:5)"}) {
		t.Errorf("with the project's numpy<2.5: %s against %s: %s (%s), environment %+v", n.Version, n.Baseline, n.Verdict, n.Reason, env)
	}
	e.file(".pinbot.yml", []byte(config+"    probe-environment: {constraints: none}\n"))
	n = nightlyOf()
	if env := n.Checks[0].Environment; n.Verdict != "blocked" || distVersion(asDists(env.Candidate), "numpy") != "2.5.2" || len(env.Constraints) != 0 {
		t.Errorf("constraints: none: %s (%s), environment %+v", n.Verdict, n.Reason, env)
	}
}

// groupNightlyEnv is a repository whose numba and llvmlite move together
// (a group), with numba's probe; llvmliteNightly is llvmlite's
// early-warning value ("" for none).
func groupNightlyEnv(t *testing.T, llvmliteNightly string) (*env, *fakes.PyPI) {
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", false))
	e.pypi.Add("llvmlite", llvmliteWheel("0.49.0"), llvmliteWheel("0.50.0"))
	nightly := fakes.NewPyPI(t)
	nightly.Add("numba", nightlyBuild("0.69.0.dev20261130", true, day(30)))
	nightly.Add("llvmlite", llvmliteWheel("0.51.0.dev20261130"))
	e.file("requirements.txt", []byte("numba>=0.58,<=0.67.0\nllvmlite>=0.48,<=0.50.0\n"))
	config := nightlyProbe + "    early-warning: {nightly: {index: " + nightly.URL + "/simple}}\n  llvmlite:\n"
	if llvmliteNightly != "" {
		config += "    early-warning: " + strings.ReplaceAll(llvmliteNightly, "NIGHTLY", nightly.URL) + "\n"
	}
	e.file(".pinbot.yml", []byte(config+"groups:\n  numba-stack: [numba, llvmlite]\n"))
	return e, nightly
}

// TestCheckNightlyGroupDynamic: jax and jaxlib's case with numba and
// llvmlite: both nightlies come from one index, so numba's nightly is
// probed (in Python, installed) with llvmlite's beside it, each from its
// own file: the probes' index (the fake PyPI) has neither, so an install
// that asked it would fail. The baseline's environment is the index's
// numba 0.67.0 and llvmlite at its baseline (the release its cap admits).
func TestCheckNightlyGroupDynamic(t *testing.T) {
	dynamicOnly(t)
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	e, nightly := groupNightlyEnv(t, "{nightly: {index: NIGHTLY/simple}}")
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var n *report.Nightly
	for _, p := range rep.Packages {
		switch {
		case p.Name == "numba":
			n = p.Nightly
		case p.Nightly != nil:
			t.Errorf("%s has a nightly of its own without checks: %+v", p.Name, p.Nightly)
		}
	}
	if n == nil || n.Verdict != "blocked" || len(n.Beside) != 1 || n.Beside[0] != "llvmlite 0.51.0.dev20261130 (nightly, from the same source)" {
		t.Fatalf("nightly %+v\n%s", n, stderr)
	}
	env := n.Checks[0].Environment
	if env == nil || distVersion(asDists(env.Candidate), "numba") != "0.69.0.dev20261130" || distVersion(asDists(env.Candidate), "llvmlite") != "0.51.0.dev20261130" ||
		distVersion(asDists(env.Baseline), "numba") != "0.67.0" || distVersion(asDists(env.Baseline), "llvmlite") != "0.50.0" {
		t.Errorf("environments %+v", env)
	}
	if reqs := strings.Join(nightly.Requests(), " "); !strings.Contains(reqs, "llvmlite-0.51.0.dev20261130-py3-none-any.whl") {
		t.Errorf("llvmlite's nightly wheel was not fetched from its index: %s", reqs)
	}
}

// TestCheckNightlyGroupApart: a member whose nightlies come from nowhere
// (or from another source) is installed at its target, and the report
// says so.
func TestCheckNightlyGroupApart(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	for name, llvmlite := range map[string]string{"no nightly": "", "another source": "{nightly: {find-links: 'NIGHTLY" + fakes.FindLinksPath + "'}}"} {
		t.Run(name, func(t *testing.T) {
			e, _ := groupNightlyEnv(t, llvmlite)
			p, _ := checkNightly(t, e, "numba")
			if n := p.Nightly; n == nil || n.Verdict != "blocked" || len(n.Beside) != 1 || n.Beside[0] != "llvmlite 0.50.0 (its target: no nightly from the same source)" {
				t.Errorf("nightly %+v", n)
			}
			_, text, _ := e.run("check", "--dir", e.dir, "--static")
			if !strings.Contains(text, "    installed beside it: llvmlite 0.50.0 (its target: no nightly from the same source)\n") {
				t.Errorf("text:\n%s", text)
			}
		})
	}
}

func asDists(ds []report.Distribution) []struct{ Name, Version string } {
	out := make([]struct{ Name, Version string }, len(ds))
	for i, d := range ds {
		out[i].Name, out[i].Version = d.Name, d.Version
	}
	return out
}

// nightlyMessages are the Slack messages that speak of numba's nightly.
func (e *runTestEnv) nightlyMessages() []string {
	var out []string
	for _, m := range e.slack.Messages() {
		if strings.Contains(string(m), "numba nightly") {
			out = append(out, string(m))
		}
	}
	return out
}

// TestRunNightlyWeeks: six weekly runs of pinbot run against a nightly index
// whose builds pass, start failing, keep failing, are out of reach for two
// weeks (nightlyDown), and pass again. Slack hears of the first failure and of the fix,
// once each; the report and the dashboard say since when; pinbot check,
// with the same cache, reads the window; nothing opens a pull request or
// changes the exit code.
func TestRunNightlyWeeks(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	nightly := fakes.NewPyPI(t)
	config := nightlyProbe + "    add-cap: false\n    early-warning: {nightly: {index: " + nightly.URL + "/simple}}\n"
	e := newRunEnv(t, config)
	e.pypi.Add("numba", numbaRelease("0.65.0", false), numbaRelease("0.66.0", false))
	var builds []fakes.Release
	week := func(b fakes.Release) (string, string) {
		t.Helper()
		builds = append(builds, b)
		nightly.Add("numba", builds...)
		code, out, stderr := e.run("--static")
		if code != 0 {
			t.Fatalf("exit %d, want 0\n%s\n%s", code, out, stderr)
		}
		if pulls := e.gh.Pulls(testRepo); len(pulls) != 0 {
			t.Fatalf("a pull request was opened: %+v", pulls)
		}
		return out, stderr
	}
	line := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "  early warning: numba nightly ") {
				return strings.TrimPrefix(l, "  early warning: numba nightly ")
			}
		}
		return ""
	}
	src := " (" + nightly.URL + "/simple): "

	out, _ := week(nightlyBuild("0.69.0.dev20261117", false, day(17)))
	if l := line(out); l != "0.69.0.dev20261117"+src+"ok: passes every check against 0.66.0" || len(e.nightlyMessages()) != 0 {
		t.Fatalf("week 1: %q, messages %q", l, e.nightlyMessages())
	}
	out, _ = week(nightlyBuild("0.69.0.dev20261124", true, day(24)))
	msgs := e.nightlyMessages()
	if l := line(out); !strings.HasPrefix(l, "0.69.0.dev20261124"+src+"blocked since 0.69.0.dev20261124 (first failing seen), last passing 0.69.0.dev20261117: fails probe ") ||
		len(msgs) != 1 || !strings.Contains(msgs[0], "numba nightly 0.69.0.dev20261124 ("+nightly.URL+"/simple): blocked since 0.69.0.dev20261124 (first failing seen), last passing 0.69.0.dev20261117") {
		t.Fatalf("week 2: %q, messages %q", l, msgs)
	}
	out, _ = week(nightlyBuild("0.69.0.dev20261130", true, day(30)))
	if l := line(out); !strings.HasPrefix(l, "0.69.0.dev20261130"+src+"blocked since 0.69.0.dev20261124 (first failing seen), last passing 0.69.0.dev20261117: ") ||
		len(e.nightlyMessages()) != 1 {
		t.Fatalf("week 3: %q, messages %q", l, e.nightlyMessages())
	}
	if is := e.gh.Issues(testRepo); len(is) != 1 || !strings.Contains(is[0].Body, "❌ nightly 0.69.0.dev20261130 blocked since 0.69.0.dev20261124") {
		t.Fatalf("week 3: the dashboard %+v", is)
	}
	// pinbot check, with run's cache, reads the window; it writes no state.
	statePath := filepath.Join(e.vars["PINBOT_CACHE_DIR"], stateFile)
	before, err := os.ReadFile(statePath)
	if err != nil || !strings.Contains(string(before), `"first_failing"`) {
		t.Fatalf("state %s: %v", before, err)
	}
	code, checkOut, stderr := e.pinbot(t.Context(), "check", "--dir", e.dir, "--static")
	if code != 0 || !strings.Contains(line(checkOut), "blocked since 0.69.0.dev20261124 (first failing seen), last passing 0.69.0.dev20261117") {
		t.Fatalf("check: exit %d\n%s\n%s", code, checkOut, stderr)
	}
	if after, _ := os.ReadFile(statePath); string(after) != string(before) {
		t.Errorf("pinbot check changed the state file")
	}
	// The index is down for two weeks: a warning, and nothing else changes.
	e.nightlyDown(t, "numba", nightly.URL+"/simple", "❌ nightly 0.69.0.dev20261130 blocked since 0.69.0.dev20261124", func() {
		nightly.Fail("/simple/numba/", unavailable...)
	})
	// A job without the cache: the dashboard's record remembers, and a
	// build failing as before is no change.
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	out, _ = week(nightlyBuild("0.69.0.dev20261207", true, day(7).AddDate(0, 1, 0)))
	if l := line(out); !strings.Contains(l, "blocked since 0.69.0.dev20261124 (first failing seen), last passing 0.69.0.dev20261117") || len(e.nightlyMessages()) != 1 {
		t.Fatalf("week 5: %q, messages %q", l, e.nightlyMessages())
	}
	if body := e.dashboard(t).Body; strings.Contains(changesOf(body), "nightly") ||
		!strings.Contains(body, "❌ nightly 0.69.0.dev20261207 blocked since 0.69.0.dev20261124") {
		t.Errorf("week 5: the dashboard\n%s", body)
	}
	out, _ = week(nightlyBuild("0.69.0.dev20261214", false, day(14).AddDate(0, 1, 0)))
	msgs = e.nightlyMessages()
	if l := line(out); l != "0.69.0.dev20261214"+src+"ok: passes every check against 0.66.0" || len(msgs) != 2 ||
		!strings.Contains(msgs[1], "numba nightly passes again on 0.69.0.dev20261214") || !strings.Contains(msgs[1], "It failed from 0.69.0.dev20261124 (first failing seen)") {
		t.Fatalf("week 6: %q, messages %q", l, msgs)
	}
	if c := changesOf(e.dashboard(t).Body); !strings.Contains(c, "- numba: nightly 0.69.0.dev20261214: ok (was blocked)") {
		t.Errorf("week 6: the changes\n%s", c)
	}
	week(nightlyBuild("0.69.0.dev20261221", false, day(21).AddDate(0, 1, 0)))
	if len(e.nightlyMessages()) != 2 {
		t.Errorf("a passing build after the fix was alerted: %q", e.nightlyMessages())
	}
}

// changesOf is the Changes section of a dashboard's body.
func changesOf(body string) string {
	_, c, _ := strings.Cut(body, "\n## Changes\n")
	c, _, _ = strings.Cut(c, "\n## ")
	return c
}

// TestRunVerdictsNightly: in the two-job layout the check job runs the
// nightly's checks, and pinbot run --verdicts takes its verdict from the
// report, for the same build it finds itself, fetching no wheel; a report
// of another build is not taken (a warning, no alert).
func TestRunVerdictsNightly(t *testing.T) {
	nightly := fakes.NewPyPI(t)
	nightly.Add("numba", nightlyBuild("0.69.0.dev20261130", true, day(30)))
	setup := func(t *testing.T) *runTestEnv {
		e := newRunEnv(t, nightlyProbe+"    early-warning: {nightly: {index: "+nightly.URL+"/simple}}\ndashboard: false\n")
		e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", false))
		return e
	}
	e := setup(t)
	code, out, stderr := e.pinbot(t.Context(), "check", "--dir", e.dir, "--format", "json", "--static")
	if code != 0 {
		t.Fatalf("check: exit %d\n%s\n%s", code, out, stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	n, _ := numbaEntry(t, rep)["nightly"].(map[string]any)
	if n["version"] != "0.69.0.dev20261130" || n["verdict"] != "blocked" || n["baseline"] != "0.67.0" || n["uploaded"] != "2026-11-30T03:00:00Z" {
		t.Fatalf("the check job's nightly: %v", n)
	}
	nightly.ResetLog()
	if code, out, stderr := e.run("--verdicts", writeReport(t, rep)); code != 0 || !strings.Contains(out, "early warning: numba nightly 0.69.0.dev20261130") {
		t.Fatalf("publish: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, r := range nightly.Requests() {
		if strings.HasSuffix(r, ".whl") {
			t.Errorf("the publisher fetched %s", r)
		}
	}
	if msgs := e.nightlyMessages(); len(msgs) != 1 || !strings.Contains(msgs[0], "blocked since 0.69.0.dev20261130 (first failing seen)") {
		t.Errorf("slack %q", msgs)
	}

	// The report judged another build of the same version.
	n["uploaded"] = "2026-11-29T03:00:00Z"
	e = setup(t)
	code, out, stderr = e.run("--verdicts", writeReport(t, rep))
	if code != 0 || !strings.Contains(out, "early warning: numba nightly 0.69.0.dev20261130 ("+nightly.URL+"/simple): warning: the checks could not judge it: the report") ||
		!strings.Contains(out, "not 0.69.0.dev20261130 uploaded 2026-11-30T03:00:00Z, the build this run found") {
		t.Fatalf("another build: exit %d\n%s\n%s", code, out, stderr)
	}
	if msgs := e.nightlyMessages(); len(msgs) != 0 {
		t.Errorf("a nightly the publisher could not match was alerted: %q", msgs)
	}
}

// TestFleetReportNightly: pinbot fleet report carries each repository's
// nightly, its verdict and since when, from the reports the fleet's jobs
// wrote.
func TestFleetReportNightly(t *testing.T) {
	e, _ := nightlyEnv(t, "{nightly: {index: NIGHTLY/simple}}", nightlyBuild("0.69.0.dev20261130", true, day(30)))
	code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json", "--static", "--repository", "lab/a")
	if code != 0 {
		t.Fatalf("check: exit %d\n%s\n%s", code, out, stderr)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab__a.json"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = e.run("fleet", "report", "--reports", dir)
	if code != 0 {
		t.Fatalf("fleet report: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "Nightly builds:\n\n| repository | nightly | verdict | first failing | last passing | why |") ||
		!strings.Contains(out, "| lab/a | `0.69.0.dev20261130 (http://127.0.0.1:") || !strings.Contains(out, "/simple)` | `blocked` | `0.69.0.dev20261130` | – | `fails probe ") {
		t.Errorf("fleet dashboard:\n%s", out)
	}
}

// A nightlyKind is one kind of nightly source, as the run tests set it up:
// its early-warning value, the fakes behind it, and how the report names
// it.
type nightlyKind struct {
	name, earlyWarning string
	// serve puts the builds where the kind's source reads them (the
	// index fake, or a conda channel) and points pinbot at them; the
	// function it returns makes the source fail to answer the next run.
	serve  func(t *testing.T, e *env, nightly *fakes.PyPI, builds ...fakes.Release) (down func())
	source func(nightly *fakes.PyPI) string
}

// unavailable are the answers of a nightly source that is down for one
// run: more than the run's retries, none left for the next.
var unavailable = repeat(fakes.Fault{Status: 503, Body: "Service Unavailable"}, 4)

// nightlyKinds are the numba nightly sources of the run tests.
var nightlyKinds = []nightlyKind{
	{"scientific-python, JSON form", "{nightly: scientific-python}",
		func(t *testing.T, e *env, nightly *fakes.PyPI, builds ...fakes.Release) func() {
			nightly.Add("numba", builds...)
			e.routes = map[string]string{"https://pypi.anaconda.org/scientific-python-nightly-wheels": nightly.URL}
			return func() { nightly.Fail("/simple/numba/", unavailable...) }
		}, func(*fakes.PyPI) string { return config.ScientificPythonNightlyIndex }},
	{"scientific-python, HTML form", "{nightly: scientific-python}",
		func(t *testing.T, e *env, nightly *fakes.PyPI, builds ...fakes.Release) func() {
			nightly.Add("numba", builds...)
			nightly.HTMLOnly = true
			e.routes = map[string]string{"https://pypi.anaconda.org/scientific-python-nightly-wheels": nightly.URL}
			return func() { nightly.Fail("/simple/numba/", unavailable...) }
		}, func(*fakes.PyPI) string { return config.ScientificPythonNightlyIndex }},
	{"an index", "{nightly: {index: NIGHTLY/simple}}",
		func(t *testing.T, e *env, nightly *fakes.PyPI, builds ...fakes.Release) func() {
			nightly.Add("numba", builds...)
			return func() { nightly.Fail("/simple/numba/", unavailable...) }
		},
		func(nightly *fakes.PyPI) string { return nightly.URL + "/simple" }},
	{"a find-links page", "{nightly: {find-links: 'NIGHTLY" + fakes.FindLinksPath + "'}}",
		func(t *testing.T, e *env, nightly *fakes.PyPI, builds ...fakes.Release) func() {
			nightly.Add("numba", builds...)
			return func() { nightly.Fail(fakes.FindLinksPath, unavailable...) }
		},
		func(nightly *fakes.PyPI) string { return nightly.URL + fakes.FindLinksPath }},
	{"a conda label channel", "{nightly: {channel: numba/label/dev}}",
		func(t *testing.T, e *env, _ *fakes.PyPI, builds ...fakes.Release) func() {
			c := fakes.NewConda(t)
			c.Add("conda-forge", "numba", condaNumbaPackage("0.65.0", false), condaNumbaPackage("0.66.0", false))
			var dev []fakes.CondaFile
			for _, b := range builds {
				// The wheel's bytecode says whether the build drops
				// _unique_ids; the conda package carries the same.
				drop := !strings.Contains(string(wheelMember(t, b, "numba/core/bytecode.py")), "_unique_ids = ")
				f := condaNumbaPackage(strings.Replace(b.Version, ".dev", "dev", 1), drop)
				f.Labels, f.Uploaded = []string{"dev"}, b.Uploaded
				dev = append(dev, f)
			}
			c.Add("numba", "numba", dev...)
			e.vars["PINBOT_CONDA_URL"] = c.URL
			return func() { c.Fail("/package/numba/numba", unavailable...) }
		}, func(*fakes.PyPI) string { return "numba/label/dev" }},
}

// wheelMember is a member of a fake release's only wheel.
func wheelMember(t *testing.T, r fakes.Release, name string) []byte {
	t.Helper()
	for _, data := range r.Artifacts {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			if f.Name == name {
				rc, _ := f.Open()
				b, _ := io.ReadAll(rc)
				rc.Close()
				return b
			}
		}
	}
	t.Fatalf("no %s in %s", name, r.Version)
	return nil
}

// TestRunNightlySources drives each kind of nightly source through pinbot
// run, week by week: a build that passes; one that starts failing, alerted
// once with since when, in the text report and in Slack; a later one
// failing the same way, not alerted; two weeks the source is down, a
// warning and nothing else (nightlyDown); a build that passes again,
// alerted as a fix. No pull request is opened and the exit code stays 0.
func TestRunNightlySources(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	for _, k := range nightlyKinds {
		t.Run(k.name, func(t *testing.T) {
			nightly := fakes.NewPyPI(t)
			ew := strings.ReplaceAll(k.earlyWarning, "NIGHTLY", nightly.URL)
			e := newRunEnv(t, nightlyProbe+"    add-cap: false\n    early-warning: "+ew+"\n")
			e.pypi.Add("numba", numbaRelease("0.65.0", false), numbaRelease("0.66.0", false))
			conda := func(v string) string { // a version as the kind's source spells it
				if k.name == "a conda label channel" {
					return strings.Replace(v, ".dev", "dev", 1)
				}
				return v
			}
			var builds []fakes.Release
			var down func()
			week := func(b fakes.Release) (string, string) {
				t.Helper()
				builds = append(builds, b)
				down = k.serve(t, e.env, nightly, builds...)
				code, out, stderr := e.run("--static")
				if code != 0 {
					t.Fatalf("%s: exit %d, want 0\n%s\n%s", b.Version, code, out, stderr)
				}
				if pulls := e.gh.Pulls(testRepo); len(pulls) != 0 {
					t.Fatalf("pull requests %+v", pulls)
				}
				return out, "  early warning: numba nightly " + conda(b.Version) + " (" + k.source(nightly) + "): "
			}
			v0, v1 := conda("0.69.0.dev20261117"), conda("0.69.0.dev20261124")
			if out, line := week(nightlyBuild("0.69.0.dev20261117", false, day(17))); !strings.Contains(out, line+"ok: passes every check against 0.66.0\n") ||
				len(e.nightlyMessages()) != 0 {
				t.Fatalf("passing: messages %q\n%s", e.nightlyMessages(), out)
			}
			out, line := week(nightlyBuild("0.69.0.dev20261124", true, day(24)))
			if !strings.Contains(out, line+"blocked since "+v1+" (first failing seen), last passing "+v0+": fails probe ") {
				t.Fatalf("starts failing:\n%s", out)
			}
			if msgs := e.nightlyMessages(); len(msgs) != 1 || !strings.Contains(msgs[0], "numba nightly "+v1+" ("+k.source(nightly)+"): blocked since "+v1) {
				t.Errorf("slack %q", msgs)
			}
			out, line = week(nightlyBuild("0.69.0.dev20261130", true, day(30)))
			if !strings.Contains(out, line+"blocked since "+v1+" (first failing seen), last passing "+v0+": ") {
				t.Fatalf("keeps failing:\n%s", out)
			}
			if msgs := e.nightlyMessages(); len(msgs) != 1 {
				t.Errorf("the same failure alerted again: %q", msgs)
			}
			e.nightlyDown(t, "numba", k.source(nightly), "❌ nightly "+conda("0.69.0.dev20261130")+" blocked since "+v1, down)
			out, line = week(nightlyBuild("0.69.0.dev20261201", false, day(1).AddDate(0, 1, 0)))
			if !strings.Contains(out, line+"ok: passes every check against 0.66.0\n") {
				t.Fatalf("passes again:\n%s", out)
			}
			v3 := conda("0.69.0.dev20261201")
			if msgs := e.nightlyMessages(); len(msgs) != 2 || !strings.Contains(msgs[1], "numba nightly passes again on "+v3+" ("+k.source(nightly)+")") ||
				!strings.Contains(msgs[1], "It failed from "+v1+" (first failing seen)") {
				t.Errorf("slack %q", msgs)
			}
			if c := changesOf(e.dashboard(t).Body); !strings.Contains(c, "- numba: nightly "+v3+": ok (was blocked)") {
				t.Errorf("the changes after the fix:\n%s", c)
			}
		})
	}
}

// nightlyDown runs pinbot run twice with pkg's nightly source down (fail
// makes it so for one run): each time a warning, and nothing else changes:
// no message, no nightly in the report, the dashboard's overview still
// showing overview and its changes saying nothing of the nightly, and what
// the issue and the state file record of it (the window, the verdict the
// next run compares with, the alerts) as it was. The second run writes
// nothing to GitHub: it changes nothing.
func (e *runTestEnv) nightlyDown(t *testing.T, pkg, source, overview string, fail func()) {
	t.Helper()
	was := e.recorded(t)
	for run := 1; run <= 2; run++ {
		fail()
		from, sent := len(e.gh.Requests()), len(e.slack.Messages())
		code, out, stderr := e.run("--static")
		if code != 0 || strings.Contains(out, "  early warning: "+pkg+" nightly ") ||
			!strings.Contains(out, "warning: "+pkg+": early warning: the nightly source "+source+" did not answer (") {
			t.Fatalf("down, run %d: exit %d\n%s\n%s", run, code, out, stderr)
		}
		if n := len(e.slack.Messages()) - sent; n != 0 {
			t.Errorf("down, run %d: %d messages: %q", run, n, e.slack.Messages()[sent:])
		}
		if w := e.writesSince(from); run == 2 && len(w) != 0 {
			t.Errorf("down, run %d: GitHub writes %q", run, w)
		}
		body := e.dashboard(t).Body
		if !strings.Contains(body, overview) || strings.Contains(changesOf(body), "nightly") ||
			!strings.Contains(body, "\n## Warnings\n") || !strings.Contains(body, "\n- "+pkg+": early warning: the nightly source ") {
			t.Errorf("down, run %d: the dashboard, want %q in the overview\n%s", run, overview, body)
		}
		st, err := state.Open(filepath.Join(e.vars["PINBOT_CACHE_DIR"], stateFile))
		if err != nil {
			t.Fatal(err)
		}
		for where, sc := range map[string]state.Scope{"the dashboard's record": e.recorded(t), "the state file": st.Scope(testRepo + "@main")} {
			if d := cmp.Diff(was.Nightlies[pkg], sc.Nightlies[pkg]); d != "" {
				t.Errorf("down, run %d, %s: the nightly recorded changed (-before +now):\n%s", run, where, d)
			}
			if d := cmp.Diff(was.Seen[pkg], sc.Seen[pkg]); d != "" {
				t.Errorf("down, run %d, %s: what %s was seen as changed (-before +now):\n%s", run, where, pkg, d)
			}
			if d := cmp.Diff(was.Alerted, sc.Alerted); d != "" {
				t.Errorf("down, run %d, %s: the alerts recorded changed (-before +now):\n%s", run, where, d)
			}
		}
	}
}

// TestRunNightlyProject: tf-nightly, tensorflow's nightly under its own
// name on the package's index, through pinbot run, week by week as
// TestRunNightlySources drives the other kinds: it passes, starts
// failing (alerted once), keeps failing, is out of reach for two weeks
// (a warning, nothing else) and passes again.
func TestRunNightlyProject(t *testing.T) {
	e := newRunEnvFiles(t, "packages:\n  tensorflow:\n    probes:\n      - path: tensorflow.python.framework.convert_to_constants.convert_variables_to_constants_v2\n"+
		"        expect: callable\n    early-warning: {nightly: {project: tf-nightly}}\n", map[string]string{"requirements.txt": "tensorflow>=2.18,<=2.20.0\n"})
	e.pypi.Add("tensorflow", tfRelease("tensorflow", "2.19.1", false), tfRelease("tensorflow", "2.20.0", false))
	messages := func() []string {
		var msgs []string
		for _, m := range e.slack.Messages() {
			if strings.Contains(string(m), "tensorflow nightly") {
				msgs = append(msgs, string(m))
			}
		}
		return msgs
	}
	var builds []fakes.Release
	week := func(version string, gone bool) string {
		t.Helper()
		builds = append(builds, tfRelease("tf-nightly", version, gone))
		e.pypi.Add("tf-nightly", builds...)
		code, out, stderr := e.run("--static")
		if code != 0 || len(e.gh.Pulls(testRepo)) != 0 {
			t.Fatalf("%s: exit %d, pull requests %+v\n%s\n%s", version, code, e.gh.Pulls(testRepo), out, stderr)
		}
		return out
	}
	const line = "  early warning: tensorflow nightly "
	if out := week("2.21.0.dev20261117", false); !strings.Contains(out, line+"2.21.0.dev20261117 as tf-nightly (tf-nightly on pypi): ok: passes every check against 2.20.0\n") ||
		len(messages()) != 0 {
		t.Fatalf("passing: messages %q\n%s", messages(), out)
	}
	out := week("2.21.0.dev20261124", true)
	if !strings.Contains(out, line+"2.21.0.dev20261124 as tf-nightly (tf-nightly on pypi): blocked since 2.21.0.dev20261124 (first failing seen), last passing 2.21.0.dev20261117: fails probe ") {
		t.Fatalf("starts failing:\n%s", out)
	}
	if msgs := messages(); len(msgs) != 1 || !strings.Contains(msgs[0], "tensorflow nightly 2.21.0.dev20261124 as tf-nightly (tf-nightly on pypi): blocked") {
		t.Errorf("slack %q", msgs)
	}
	if out := week("2.21.0.dev20261130", true); !strings.Contains(out, line+"2.21.0.dev20261130 as tf-nightly (tf-nightly on pypi): blocked since 2.21.0.dev20261124 (first failing seen)") ||
		len(messages()) != 1 {
		t.Fatalf("keeps failing: messages %q\n%s", messages(), out)
	}
	e.nightlyDown(t, "tensorflow", "tf-nightly on pypi", "❌ nightly 2.21.0.dev20261130 blocked since 2.21.0.dev20261124", func() {
		e.pypi.Fail("/pypi/tf-nightly/json", unavailable...)
	})
	if out := week("2.21.0.dev20261201", false); !strings.Contains(out, line+"2.21.0.dev20261201 as tf-nightly (tf-nightly on pypi): ok: ") {
		t.Fatalf("passes again:\n%s", out)
	}
	if msgs := messages(); len(msgs) != 2 || !strings.Contains(msgs[1], "tensorflow nightly passes again on 2.21.0.dev20261201 (tf-nightly on pypi)") {
		t.Errorf("slack %q", msgs)
	}
}
