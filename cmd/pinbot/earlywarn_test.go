package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

const earlyConfig = "packages:\n  numba:\n    probes:\n      - preset: numba-unique-ids\n"

// earlyEnv is a repository capping numba at 0.66.0 with the numba-unique-ids
// probe; PyPI has 0.66.0 and 0.67.0, which keep _unique_ids, and the
// pre-releases given.
func earlyEnv(t *testing.T, config string, pre ...fakes.Release) *env {
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numba", append([]fakes.Release{numbaRelease("0.66.0", false), numbaRelease("0.67.0", false)}, pre...)...)
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"))
	e.file(".pinbot.yml", []byte(config))
	return e
}

// checkJSON runs pinbot check --format json --static and returns numba's
// entry, asserting the exit code.
func checkNumba(t *testing.T, e *env, code int) report.Package {
	t.Helper()
	got, out, stderr := e.run("check", "--dir", e.dir, "--format", "json", "--static")
	if got != code {
		t.Fatalf("exit %d, want %d\n%s\n%s", got, code, out, stderr)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Packages {
		if p.Name == "numba" {
			return p
		}
	}
	t.Fatalf("no numba in\n%s", out)
	return report.Package{}
}

// TestCheckEarlyWarning: numba 0.68.0rc1 drops _unique_ids. The probes run
// against it as against a target, compared with 0.67.0 (what the caps admit
// once they move); the JSON report carries the verdict in prerelease, the
// cap moves to 0.67.0 and no further, and the exit code is the bump's (a
// pre-release blocks nothing).
func TestCheckEarlyWarning(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	e := earlyEnv(t, earlyConfig, numbaRelease("0.68.0rc1", true), numbaRelease("0.67.0rc1", true))
	p := checkNumba(t, e, 0)
	if p.Status != "bump" || p.Newest != "0.67.0" || p.Pins[0].After != "numba>=0.58,<=0.67.0" {
		t.Errorf("the pre-release moved the plan: %s %s %+v", p.Status, p.Newest, p.Pins)
	}
	pr := p.Prerelease
	if pr == nil {
		t.Fatalf("no prerelease in %+v", p)
	}
	if pr.Version != "0.68.0rc1" || pr.Source != "pypi" || pr.Baseline != "0.67.0" || pr.Verdict != "blocked" ||
		!strings.HasPrefix(pr.Reason, "fails probe ") || !strings.Contains(pr.Reason, "_unique_ids") ||
		!strings.HasSuffix(pr.Reason, "): the cap will hold when 0.68.0 ships") {
		t.Errorf("prerelease %+v", pr)
	}
	blocked := false
	for _, c := range pr.Checks {
		if c.Kind == "probe" && c.Verdict == "blocked" && c.Baseline == "pass" && c.Candidate == "fail" && strings.Contains(c.Detail, "_unique_ids") {
			blocked = true
		}
	}
	if !blocked {
		t.Errorf("no blocked probe in the pre-release's checks: %+v", pr.Checks)
	}
	// The text and Markdown reports say it too.
	_, text, _ := e.run("check", "--dir", e.dir, "--static")
	if !strings.Contains(text, "early warning: numba 0.68.0rc1 (pypi): blocked: fails probe") {
		t.Errorf("text:\n%s", text)
	}
	_, md, _ := e.run("check", "--dir", e.dir, "--static", "--format", "markdown")
	if !strings.Contains(md, "**Early warning:** numba 0.68.0rc1 (pypi): fails probe") || !strings.Contains(md, "| Check | Result | Baseline | Pre-release | Detail |") {
		t.Errorf("markdown:\n%s", md)
	}
}

// TestCheckEarlyWarningCases: a pre-release that passes is ok; none newer
// than the target, or early-warning: false, or no checks, gives no
// prerelease; a pre-release only a conda label channel has cannot be read
// by the checks, which is a warning, never ok.
func TestCheckEarlyWarningCases(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	t.Run("passes", func(t *testing.T) {
		config := "packages:\n  numba:\n    probes:\n      - path: numba.core.bytecode.FunctionIdentity._unique_ids\n        expect: iterator\n"
		p := checkNumba(t, earlyEnv(t, config, numbaRelease("0.68.0b1", false)), 0)
		if pr := p.Prerelease; pr == nil || pr.Version != "0.68.0b1" || pr.Verdict != "ok" || pr.Reason != "passes every check against 0.67.0" {
			t.Errorf("prerelease %+v", pr)
		}
	})
	t.Run("undecided", func(t *testing.T) {
		// The preset's run snippet needs Python, which static probing
		// does not run: the pre-release is not ok, it is a warning.
		p := checkNumba(t, earlyEnv(t, earlyConfig, numbaRelease("0.68.0b1", false)), 0)
		if pr := p.Prerelease; pr == nil || pr.Verdict != "warning" || !strings.Contains(pr.Reason, "the checks could not see everything: probe from_function") {
			t.Errorf("prerelease %+v", pr)
		}
	})
	t.Run("none newer than the target", func(t *testing.T) {
		if p := checkNumba(t, earlyEnv(t, earlyConfig, numbaRelease("0.67.0rc1", true)), 0); p.Prerelease != nil {
			t.Errorf("prerelease %+v", p.Prerelease)
		}
	})
	t.Run("early-warning: false", func(t *testing.T) {
		e := earlyEnv(t, earlyConfig+"    early-warning: false\n", numbaRelease("0.68.0rc1", true))
		if p := checkNumba(t, e, 0); p.Prerelease != nil {
			t.Errorf("prerelease %+v", p.Prerelease)
		}
	})
	t.Run("no checks", func(t *testing.T) {
		e := earlyEnv(t, "packages:\n  numba: {}\n", numbaRelease("0.68.0rc1", true))
		if p := checkNumba(t, e, 0); p.Prerelease != nil {
			t.Errorf("prerelease %+v", p.Prerelease)
		}
	})
	t.Run("the target blocked too", func(t *testing.T) {
		// 0.67.0 fails: the caps stay at 0.66.0, the pre-release is
		// compared with it.
		e := earlyEnv(t, earlyConfig, numbaRelease("0.68.0rc1", true))
		e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", true), numbaRelease("0.68.0rc1", true))
		p := checkNumba(t, e, exitCheck)
		if pr := p.Prerelease; p.Status != "blocked" || pr == nil || pr.Baseline != "0.66.0" || pr.Verdict != "blocked" {
			t.Errorf("%s, prerelease %+v", p.Status, pr)
		}
	})
	t.Run("a conda label channel", func(t *testing.T) {
		c := fakes.NewConda(t)
		c.Add("conda-forge", "numba", fakes.CondaFile{Version: "0.66.0"}, fakes.CondaFile{Version: "0.67.0"})
		c.Add("numba", "numba", fakes.CondaFile{Version: "0.67.0"}, fakes.CondaFile{Version: "0.68.0rc2", Labels: []string{"dev"}},
			fakes.CondaFile{Version: "0.69.0dev0", Labels: []string{"main"}}) // not the label: does not count
		e := earlyEnv(t, earlyConfig+"sources:\n  conda:\n    channels: [conda-forge, numba/label/dev]\n")
		e.vars["PINBOT_CONDA_URL"] = c.URL
		p := checkNumba(t, e, 0)
		if pr := p.Prerelease; pr == nil || pr.Version != "0.68.0rc2" || pr.Source != "numba/label/dev" || pr.Verdict != "warning" ||
			!strings.Contains(pr.Reason, "on numba/label/dev only, and the checks read PyPI's wheels") {
			t.Errorf("prerelease %+v", pr)
		}
		// PyPI has the same pre-release: its wheels are checked.
		e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", false), numbaRelease("0.68.0rc2", true))
		p = checkNumba(t, e, 0)
		if pr := p.Prerelease; pr == nil || pr.Version != "0.68.0rc2" || pr.Source != "pypi" || pr.Verdict != "blocked" {
			t.Errorf("prerelease %+v", pr)
		}
	})
}

// TestRunVerdictsEarlyWarning: in the two-job layout the check job runs the
// pre-release's checks, and pinbot run --verdicts announces its early
// warning from the report without reading a wheel; a recorded early warning
// for another baseline is not taken (a warning, no announcement).
func TestRunVerdictsEarlyWarning(t *testing.T) {
	setup := func(t *testing.T) *runTestEnv {
		e := newRunEnv(t, probedConfig)
		e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
		e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", false), numbaRelease("0.68.0rc1", true))
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
	pre, _ := numbaEntry(t, rep)["prerelease"].(map[string]any)
	if pre["version"] != "0.68.0rc1" || pre["verdict"] != "blocked" || pre["baseline"] != "0.67.0" {
		t.Fatalf("the check job's prerelease: %v", pre)
	}
	fetched := e.wheelsFetched()
	if code, out, stderr := e.run("--verdicts", writeReport(t, rep)); code != 0 {
		t.Fatalf("publish: exit %d\n%s\n%s", code, out, stderr)
	}
	if n := e.wheelsFetched() - fetched; n != 0 {
		t.Errorf("the publisher fetched %d wheels", n)
	}
	if msgs := e.slack.Messages(); len(msgs) != 1 || !strings.Contains(string(msgs[0]), "numba 0.68.0rc1 fails probe FunctionIdentity._unique_ids is an iterator") {
		t.Errorf("slack %s", msgs)
	}

	pre["baseline"] = "0.58.0"
	e = setup(t)
	code, out, stderr = e.run("--verdicts", writeReport(t, rep))
	if code != 0 || !strings.Contains(out, "early warning: numba 0.68.0rc1 (pypi): warning: the checks could not judge it: the report") ||
		!strings.Contains(out, "judged numba 0.68.0rc1 against 0.58.0, this run compares with 0.67.0") {
		t.Fatalf("another baseline: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, m := range e.slack.Messages() {
		if strings.Contains(string(m), "early warning") {
			t.Errorf("an early warning the publisher could not match was announced: %s", m)
		}
	}
}

// TestCheckEarlyWarningConda: a package whose pins are conda pins is
// checked against conda packages, and so is its pre-release: numba's
// 0.68.0rc1 on numba/label/dev, read from the label channel, compared with
// conda-forge's 0.67.0.
func TestCheckEarlyWarningConda(t *testing.T) {
	c := fakes.NewConda(t)
	c.Add("conda-forge", "numba", condaNumbaPackage("0.66.0", false), condaNumbaPackage("0.67.0", false))
	rc := condaNumbaPackage("0.68.0rc1", true)
	rc.Labels = []string{"dev"}
	c.Add("numba", "numba", rc)
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.vars["PINBOT_CONDA_URL"] = c.URL
	e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", false))
	e.file("environment.yml", []byte("channels: [conda-forge]\ndependencies:\n  - numba >=0.60,<=0.66.0\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba:\n    probes:\n      - path: numba.core.bytecode.FunctionIdentity._unique_ids\n        expect: iterator\n"+
		"sources:\n  conda:\n    channels: [conda-forge, numba/label/dev]\n"))
	p := checkNumba(t, e, 0)
	pr := p.Prerelease
	if p.Status != "bump" || p.Newest != "0.67.0" || pr == nil {
		t.Fatalf("%s %s, prerelease %+v", p.Status, p.Newest, pr)
	}
	if pr.Version != "0.68.0rc1" || pr.Source != "numba/label/dev" || pr.Baseline != "0.67.0" || pr.Verdict != "blocked" ||
		len(pr.Checks) == 0 || !strings.Contains(pr.Checks[0].Detail, "read numba-0.68.0rc1-py312h6e6e5ba_0.conda (baseline numba-0.67.0-py312h6e6e5ba_0.conda)") {
		t.Errorf("prerelease %+v", pr)
	}
}

// TestCheckEarlyWarningUnseen: a source of pre-releases that fails to
// answer is a warning in the report, so that no early warning does not
// read as no pre-release; a channel that does not have the package is no
// failure.
func TestCheckEarlyWarningUnseen(t *testing.T) {
	c := fakes.NewConda(t)
	c.Add("conda-forge", "numba", fakes.CondaFile{Version: "0.66.0"}, fakes.CondaFile{Version: "0.67.0"})
	e := earlyEnv(t, earlyConfig+"sources:\n  conda:\n    channels: [conda-forge, numba/label/dev]\n")
	e.vars["PINBOT_CONDA_URL"] = c.URL
	warnings := func() []string {
		t.Helper()
		code, out, stderr := e.run("check", "--dir", e.dir, "--format", "json", "--static")
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		var rep report.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		for _, p := range rep.Packages {
			if p.Name == "numba" && (p.Status != "bump" || p.Prerelease != nil) {
				t.Errorf("numba %s, prerelease %+v", p.Status, p.Prerelease)
			}
		}
		return rep.Warnings
	}
	// The label channel does not have numba (404): nothing to say.
	if w := warnings(); len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
	c.Fail("/package/numba/numba", repeat(fakes.Fault{Status: 500, Body: "Internal Server Error"}, 8)...)
	w := warnings()
	if len(w) != 1 || !strings.HasPrefix(w[0], "numba: early warning: asking numba/label/dev failed (") ||
		!strings.Contains(w[0], "500") || !strings.HasSuffix(w[0], "a pre-release there would go unseen") {
		t.Errorf("warnings %q, want one saying the label channel failed", w)
	}
}

// gateClock is the time of the early-warning gate runs: ten days after the
// fake PyPI's default upload, so that 0.66.0 and 0.67.0 pass a min-age of
// 3d while a pre-release uploaded hours before does not.
var gateClock = fakes.DefaultUpload.Add(10 * 24 * time.Hour)

// numbaWheel is numbaRelease with one wheel of the given tags (a platform's
// wheel instead of py3-none-any), uploaded at up (zero: the default).
func numbaWheel(version, tags string, drop bool, up time.Time) fakes.Release {
	fn, data := fakes.Wheel("numba", version, tags, map[string][]byte{
		"numba/__init__.py":      nil,
		"numba/core/__init__.py": nil,
		"numba/core/bytecode.py": numbaBytecode(drop),
	})
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}, Uploaded: up}
}

// checkNumbaAt is checkNumba with the run's clock at now.
func checkNumbaAt(t *testing.T, e *env, now time.Time) report.Package {
	t.Helper()
	e.setup = func(f *Factory) { f.Now = func() time.Time { return now } }
	return checkNumba(t, e, 0)
}

// TestCheckEarlyWarningGates: the early warning holds a pre-release to the
// package's release gates as a target is held: one younger than min-age,
// or without a wheel for a platform the package needs, is not checked
// (its code is not run) and prerelease_skipped says which and why; the
// newest pre-release that passes is checked instead. require does not hold
// a pre-release back. Without gates nothing changes.
func TestCheckEarlyWarningGates(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	young := gateClock.Add(-2 * time.Hour)
	skip := func(p report.Package) string {
		var out []string
		for _, s := range p.PrereleaseSkipped {
			out = append(out, s.Version+" ("+s.Source+"): "+s.Reason)
		}
		return strings.Join(out, "; ")
	}
	t.Run("younger than min-age", func(t *testing.T) {
		e := earlyEnv(t, earlyConfig+"    min-age: 3d\n", numbaWheel("0.68.0rc1", "py3-none-any", true, young))
		p := checkNumbaAt(t, e, gateClock)
		if p.Status != "bump" || p.Newest != "0.67.0" || p.Prerelease != nil || skip(p) != "0.68.0rc1 (pypi): 0.68.0rc1 is 2 hours old, min-age 3d" {
			t.Errorf("%s %s, prerelease %+v, skipped %q", p.Status, p.Newest, p.Prerelease, skip(p))
		}
		_, text, _ := e.run("check", "--dir", e.dir, "--static")
		if !strings.Contains(text, "early warning: numba 0.68.0rc1 (pypi): not checked (the package's gates): 0.68.0rc1 is 2 hours old, min-age 3d") {
			t.Errorf("text:\n%s", text)
		}
		// Four days on it is old enough: checked, and blocked.
		p = checkNumbaAt(t, e, gateClock.Add(4*24*time.Hour))
		if pr := p.Prerelease; pr == nil || pr.Version != "0.68.0rc1" || pr.Verdict != "blocked" || p.PrereleaseSkipped != nil {
			t.Errorf("prerelease %+v, skipped %q", pr, skip(p))
		}
	})
	t.Run("an older pre-release past min-age is checked", func(t *testing.T) {
		e := earlyEnv(t, earlyConfig+"    min-age: 3d\n", numbaRelease("0.68.0rc1", true), numbaWheel("0.68.0rc2", "py3-none-any", true, young))
		p := checkNumbaAt(t, e, gateClock)
		if pr := p.Prerelease; pr == nil || pr.Version != "0.68.0rc1" || pr.Verdict != "blocked" || skip(p) != "0.68.0rc2 (pypi): 0.68.0rc2 is 2 hours old, min-age 3d" {
			t.Errorf("prerelease %+v, skipped %q", pr, skip(p))
		}
	})
	t.Run("no wheel for a required platform", func(t *testing.T) {
		e := earlyEnv(t, earlyConfig+"    platforms: [linux-64]\n", numbaRelease("0.68.0rc1", true),
			numbaWheel("0.68.0rc2", "cp312-cp312-macosx_11_0_arm64", true, time.Time{}))
		p := checkNumbaAt(t, e, gateClock)
		if pr := p.Prerelease; pr == nil || pr.Version != "0.68.0rc1" || pr.Verdict != "blocked" || skip(p) != "0.68.0rc2 (pypi): 0.68.0rc2 has no wheel for linux-64" {
			t.Errorf("prerelease %+v, skipped %q", pr, skip(p))
		}
		// python: a wheel for CPython 3.13 only does not serve 3.12.
		e = earlyEnv(t, earlyConfig+"    python: [\"3.12\"]\n", numbaWheel("0.68.0rc1", "cp313-cp313-manylinux_2_17_x86_64", true, time.Time{}))
		p = checkNumbaAt(t, e, gateClock)
		if p.Prerelease != nil || skip(p) != "0.68.0rc1 (pypi): 0.68.0rc1 has no wheel for Python 3.12" {
			t.Errorf("prerelease %+v, skipped %q", p.Prerelease, skip(p))
		}
	})
	t.Run("require does not hold a pre-release back", func(t *testing.T) {
		// conda-forge's main channel carries no pre-release: the target
		// waits for it, the early warning does not.
		c := fakes.NewConda(t)
		c.Add("conda-forge", "numba", fakes.CondaFile{Version: "0.66.0", Subdir: "linux-64"}, fakes.CondaFile{Version: "0.67.0", Subdir: "linux-64"})
		e := earlyEnv(t, earlyConfig+"    require: [pypi, conda-forge]\n    platforms: [linux-64]\n", numbaRelease("0.68.0rc1", true))
		e.vars["PINBOT_CONDA_URL"] = c.URL
		p := checkNumbaAt(t, e, gateClock)
		if pr := p.Prerelease; p.Newest != "0.67.0" || pr == nil || pr.Version != "0.68.0rc1" || pr.Source != "pypi" || pr.Verdict != "blocked" || p.PrereleaseSkipped != nil {
			t.Errorf("target %s, prerelease %+v, skipped %q", p.Newest, pr, skip(p))
		}
		// The gates still apply on the sources that have pre-releases.
		e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", false),
			numbaWheel("0.68.0rc1", "cp312-cp312-macosx_11_0_arm64", true, time.Time{}))
		p = checkNumbaAt(t, e, gateClock)
		if p.Prerelease != nil || skip(p) != "0.68.0rc1 (pypi): 0.68.0rc1 has no wheel for linux-64" {
			t.Errorf("prerelease %+v, skipped %q", p.Prerelease, skip(p))
		}
	})
	t.Run("no gates", func(t *testing.T) {
		// Young, and without a linux wheel: checked as before.
		e := earlyEnv(t, earlyConfig, numbaRelease("0.68.0rc1", true), numbaWheel("0.68.0rc2", "cp312-cp312-macosx_11_0_arm64", true, young))
		p := checkNumbaAt(t, e, gateClock)
		if pr := p.Prerelease; pr == nil || pr.Version != "0.68.0rc2" || pr.Verdict != "blocked" || p.PrereleaseSkipped != nil {
			t.Errorf("prerelease %+v, skipped %q", pr, skip(p))
		}
		_, out, _ := e.run("check", "--dir", e.dir, "--static", "--format", "json")
		if strings.Contains(out, "prerelease_skipped") {
			t.Errorf("prerelease_skipped without gates:\n%s", out)
		}
	})
}

// TestRunEarlyWarningMinAge: a pre-release younger than min-age is not
// announced; once old enough it is checked and announced, once.
func TestRunEarlyWarningMinAge(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	e := newRunEnv(t, strings.Replace(probedConfig, "dashboard: false\n", "    min-age: 3d\ndashboard: false\n", 1))
	e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", false), numbaWheel("0.68.0rc1", "py3-none-any", true, gateClock.Add(-2*time.Hour)))
	now := gateClock
	e.now = func() time.Time { return now }
	early := func() []string {
		var out []string
		for _, m := range e.slack.Messages() {
			if strings.Contains(string(m), "0.68.0rc1") {
				out = append(out, string(m))
			}
		}
		return out
	}
	code, out, stderr := e.run("--static")
	if code != 0 || !strings.Contains(out, "early warning: numba 0.68.0rc1 (pypi): not checked (the package's gates): 0.68.0rc1 is 2 hours old, min-age 3d") {
		t.Fatalf("first run: exit %d\n%s\n%s", code, out, stderr)
	}
	if m := early(); len(m) != 0 {
		t.Errorf("a pre-release younger than min-age was announced: %q", m)
	}
	now = gateClock.Add(4 * 24 * time.Hour)
	if code, out, stderr := e.run("--static"); code != 0 || !strings.Contains(out, "early warning: numba 0.68.0rc1 (pypi): blocked") {
		t.Fatalf("second run: exit %d\n%s\n%s", code, out, stderr)
	}
	if m := early(); len(m) != 1 || !strings.Contains(m[0], "numba 0.68.0rc1 fails probe") {
		t.Errorf("once old enough, announced %q", m)
	}
	now = now.Add(24 * time.Hour)
	if code, out, stderr := e.run("--static"); code != 0 {
		t.Fatalf("third run: exit %d\n%s\n%s", code, out, stderr)
	}
	if m := early(); len(m) != 1 {
		t.Errorf("announced again: %d messages", len(m))
	}
}
