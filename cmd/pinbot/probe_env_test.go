package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// The pymc-devs/pytensor#2351 story, rebuilt: numba 0.63.0b1 declares only
// numpy>=1.22 and overloads np.row_stack when numba.np.arrayobj is imported;
// numpy 2.5.x removed row_stack. numba 0.62.0 (the baseline) caps numpy <2.5.

func numpyRelease(version string, rowStack bool) fakes.Release {
	src := "__version__ = " + `"` + version + `"` + "\n"
	if rowStack {
		src += "\ndef row_stack(arrays):\n    return list(arrays)\n"
	}
	fn, data := fakes.Wheel("numpy", version, "py3-none-any", map[string][]byte{"numpy/__init__.py": []byte(src)})
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

func storyNumba(version, numpyReq string) fakes.Release {
	fn, data := fakes.WheelMeta("numba", version, "py3-none-any", []string{"Requires-Dist: " + numpyReq}, map[string][]byte{
		"numba/__init__.py":    []byte("__version__ = \"" + version + "\"\n"),
		"numba/np/__init__.py": nil,
		// What numba.np.arrayobj does at import: register overloads of numpy functions.
		"numba/np/arrayobj.py": []byte("import numpy as np\n\n_OVERLOADED = [np.row_stack]\n"),
	})
	return fakes.Release{Version: version, Artifacts: map[string][]byte{fn: data}}
}

const storyConfig = `packages:
  numba:
    prereleases: true
    probes:
      - name: numba.np.arrayobj imports
        path: numba.np.arrayobj
        expect: module
`

type envReport struct {
	Packages []struct {
		Name, Status, Newest, Reason, Hold string
		Pins                               []struct{ Before, After string }
		Checks                             []struct {
			Kind, Name, Baseline, Candidate, Detail, Verdict string
			OK                                               bool
			Environment                                      *struct {
				Python              string
				Candidate, Baseline []struct{ Name, Version string }
				Changes             []struct{ Name, From, To string }
				Constraints         []string
				Reused              bool
			}
		}
	}
}

func dynamicOnly(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("PINBOT_INTEGRATION") != "" {
			t.Fatal("python3 is not installed")
		}
		t.Skip("python3 is not installed")
	}
	return py
}

func runJSON(t *testing.T, e *env, wantCode int, args ...string) envReport {
	t.Helper()
	code, out, stderr := e.run(append([]string{"check", "--dir", e.dir, "--format", "json"}, args...)...)
	var rep envReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != wantCode {
		t.Fatalf("exit %d (want %d), %v\n%s\n%s", code, wantCode, err, out, stderr)
	}
	return rep
}

// envEntries lists the probe environments in the cache with the time each was
// made (pinbot-env.json's "created").
func envEntries(t *testing.T, cache string) map[string]string {
	t.Helper()
	out := map[string]string{}
	dirs, _ := filepath.Glob(filepath.Join(cache, "probe-envs", "envs", "*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "pinbot-env.json"))
		if err != nil {
			continue
		}
		var meta struct{ Created string }
		json.Unmarshal(b, &meta)
		out[filepath.Base(d)] = meta.Created
	}
	return out
}

func distVersion(ds []struct{ Name, Version string }, name string) string {
	for _, d := range ds {
		if strings.EqualFold(d.Name, name) {
			return d.Version
		}
	}
	return ""
}

// TestCheckProbeEnvironmentFollowsDependencies is #21's story through pinbot
// check with one cache: run 1 passes; numpy 2.5.2 is published; run 2 blocks,
// naming numpy 2.5.2; run 3, with nothing new, blocks again from the cache
// without resolving or building anything.
func TestCheckProbeEnvironmentFollowsDependencies(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	py := dynamicOnly(t)
	e := newEnv(t)
	cache := t.TempDir()
	e.vars["PINBOT_CACHE_DIR"] = cache
	e.pypi.Add("numpy", numpyRelease("2.4.6", true))
	e.pypi.Add("numba", storyNumba("0.62.0", "numpy>=1.22,<2.5"), storyNumba("0.63.0b1", "numpy>=1.22"))
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.60,<=0.62.0\"]\n"))
	e.file(".pinbot.yml", []byte(storyConfig))

	// Run 1: numpy 2.4.6 is the newest; the beta passes.
	rep := runJSON(t, e, 0, "--python", py)
	p := rep.Packages[0]
	if p.Status != "bump" || p.Newest != "0.63.0b1" || len(p.Checks) != 1 || p.Checks[0].Verdict != "ok" {
		t.Fatalf("run 1: %+v", p)
	}
	env := p.Checks[0].Environment
	if env == nil || env.Reused || distVersion(env.Candidate, "numpy") != "2.4.6" || distVersion(env.Candidate, "numba") != "0.63.0b1" ||
		distVersion(env.Baseline, "numba") != "0.62.0" || len(env.Changes) != 0 || !strings.Contains(env.Python, "3.") {
		t.Fatalf("run 1 environment %+v", env)
	}
	run1 := envEntries(t, cache)
	if len(run1) != 2 {
		t.Fatalf("run 1 made %v, want the baseline's and the candidate's environments", run1)
	}

	// numpy 2.5.2 is published, without row_stack.
	e.pypi.Add("numpy", numpyRelease("2.4.6", true), numpyRelease("2.5.2", false))
	rep = runJSON(t, e, exitCheck, "--python", py)
	p = rep.Packages[0]
	if p.Status != "blocked" || p.Pins[0].After != p.Pins[0].Before {
		t.Fatalf("run 2: %+v", p)
	}
	c := p.Checks[0]
	for _, want := range []string{"row_stack", "numba 0.63.0b1 fails with numpy 2.5.2 (new since the last run); numba declares numpy>=1.22 with no cap",
		"the last run passed with numpy 2.4.6"} {
		if c.Verdict != "blocked" || !strings.Contains(c.Detail, want) {
			t.Errorf("run 2 check %q lacks %q", c.Detail, want)
		}
	}
	env = c.Environment
	if env == nil || env.Reused || distVersion(env.Candidate, "numpy") != "2.5.2" || distVersion(env.Baseline, "numpy") != "2.4.6" ||
		len(env.Changes) != 1 || env.Changes[0].Name != "numpy" || env.Changes[0].From != "2.4.6" || env.Changes[0].To != "2.5.2" {
		t.Fatalf("run 2 environment %+v", env)
	}
	run2 := envEntries(t, cache)
	if len(run2) != 3 {
		t.Errorf("run 2 environments %v, want the two of run 1 and one for the new resolution", run2)
	}
	for name, created := range run1 {
		if run2[name] != created {
			t.Errorf("run 2 rebuilt %s", name)
		}
	}
	// The text report and the Markdown (the pull request body) say it too.
	_, text, _ := e.run("check", "--dir", e.dir, "--python", py)
	_, md, _ := e.run("check", "--dir", e.dir, "--python", py, "--format", "markdown")
	t.Logf("run 2, text report:\n%s", text)
	for _, out := range []string{text, md} {
		if !strings.Contains(out, "numpy 2.4.6 → 2.5.2") || !strings.Contains(out, "numba 0.63.0b1 fails with numpy 2.5.2") {
			t.Errorf("report lacks the dependency that moved:\n%s", out)
		}
	}

	// Run 3: nothing new. Every index page answers 304; nothing is
	// downloaded, resolved or built, and the verdict stands.
	e.pypi.ResetLog()
	rep = runJSON(t, e, exitCheck, "--python", py)
	p = rep.Packages[0]
	c = p.Checks[0]
	if p.Status != "blocked" || c.Verdict != "blocked" || !strings.Contains(c.Detail, "numba 0.63.0b1 fails with numpy 2.5.2 (new since 20") ||
		!strings.Contains(c.Detail, "numba declares numpy>=1.22 with no cap; it passed with numpy 2.4.6 until then") ||
		c.Environment == nil || !c.Environment.Reused {
		t.Fatalf("run 3: %+v", p)
	}
	if run3 := envEntries(t, cache); len(run3) != 3 || !mapsEqual(run3, run2) {
		t.Errorf("run 3 environments %v, want run 2's %v untouched", run3, run2)
	}
	var pages []string
	for _, r := range e.pypi.Log() {
		if strings.HasPrefix(r.Path, "/packages/") {
			t.Errorf("run 3 downloaded %s", r.Path)
		}
		if strings.HasPrefix(r.Path, "/simple/") {
			pages = append(pages, r.Path)
			if !r.Conditional || r.Status != 304 {
				t.Errorf("run 3 asked for %s: conditional %v, status %d; want 304", r.Path, r.Conditional, r.Status)
			}
		}
	}
	slices.Sort(pages)
	if !slices.Contains(pages, "/simple/numpy/") || !slices.Contains(pages, "/simple/numba/") {
		t.Errorf("run 3 revalidated %q", pages)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestCheckProbeEnvironmentProjectConstraints: the project pins numpy<2.5, so
// its users keep numpy 2.4.6 and the bump goes through; with
// probe-environment: {constraints: none} the probe sees numpy 2.5.2 and
// blocks; a project pin no release satisfies holds the bump with pip's
// message.
func TestCheckProbeEnvironmentProjectConstraints(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	py := dynamicOnly(t)
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numpy", numpyRelease("2.4.6", true), numpyRelease("2.5.2", false))
	e.pypi.Add("numba", storyNumba("0.62.0", "numpy>=1.22,<2.5"), storyNumba("0.63.0b1", "numpy>=1.22"))
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\n  \"numba>=0.60,<=0.62.0\",\n  \"numpy<2.5\",\n]\n"))
	e.file(".pinbot.yml", []byte(storyConfig))

	_, md, _ := e.run("check", "--dir", e.dir, "--python", py, "--format", "markdown")
	if !strings.Contains(md, "project constraints: `numpy<2.5 (pyproject.toml:5)`") {
		t.Errorf("markdown does not name the constraints:\n%s", md)
	}
	rep := runJSON(t, e, 0, "--python", py, "--write")
	p := rep.Packages[0]
	if p.Status != "bump" || p.Newest != "0.63.0b1" || p.Checks[0].Verdict != "ok" {
		t.Fatalf("with numpy<2.5: %+v", p)
	}
	env := p.Checks[0].Environment
	if env == nil || distVersion(env.Candidate, "numpy") != "2.4.6" || !slices.Equal(env.Constraints, []string{"numpy<2.5 (pyproject.toml:5)"}) {
		t.Fatalf("environment %+v", env)
	}
	if got := e.read("pyproject.toml"); !strings.Contains(got, `"numba>=0.60,<=0.63.0b1"`) || !strings.Contains(got, `"numpy<2.5"`) {
		t.Errorf("--write wrote %q", got)
	}

	// Without the project's constraints the probe gets what a bare install
	// gets: numpy 2.5.2, and the import fails.
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\n  \"numba>=0.60,<=0.62.0\",\n  \"numpy<2.5\",\n]\n"))
	e.file(".pinbot.yml", []byte(storyConfig+"    probe-environment: {constraints: none}\n"))
	rep = runJSON(t, e, exitCheck, "--python", py)
	if p := rep.Packages[0]; p.Status != "blocked" || distVersion(p.Checks[0].Environment.Candidate, "numpy") != "2.5.2" ||
		len(p.Checks[0].Environment.Constraints) != 0 {
		t.Errorf("constraints: none: %+v", p)
	}

	// A pin no release satisfies: held, with pip's message; the exit code is
	// not changed and nothing is written.
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\n  \"numba>=0.60,<=0.62.0\",\n  \"numpy<2\",\n]\n"))
	e.file(".pinbot.yml", []byte(storyConfig))
	rep = runJSON(t, e, 0, "--python", py, "--write")
	p = rep.Packages[0]
	if p.Status != "held" || !strings.Contains(p.Hold, "held by the project's constraints: numba 0.63.0b1 cannot be installed with the project's constraints numpy<2 (pyproject.toml:5)") ||
		!strings.Contains(p.Hold, "(constraint) numpy<2") || p.Pins[0].After != p.Pins[0].Before {
		t.Fatalf("unresolvable: %+v", p)
	}
	if len(p.Checks) != 1 || !strings.Contains(p.Checks[0].Detail, "held:") ||
		!strings.Contains(p.Checks[0].Detail, "numba 0.63.0b1 depends on numpy>=1.22") || !strings.Contains(p.Checks[0].Detail, "(constraint) numpy<2") {
		t.Errorf("held check %+v", p.Checks)
	}
	if got := e.read("pyproject.toml"); !strings.Contains(got, `"numba>=0.60,<=0.62.0"`) {
		t.Errorf("a held package was written: %q", got)
	}
	_, text, _ := e.run("check", "--dir", e.dir, "--python", py)
	t.Logf("held, text report:\n%s", text)
}

// TestRunVerdictsHeld: in the two-job layout the check job's report records
// that the project's pins hold the target back, and pinbot run --verdicts
// holds it too, without running anything, opening no pull request and
// keeping the exit code.
func TestRunVerdictsHeld(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	py := dynamicOnly(t)
	e := newRunEnvFiles(t, storyConfig+"github:\n  author: {name: pinbot, email: pinbot@example.com}\n", map[string]string{
		"pyproject.toml":     "[project]\nname = \"x\"\ndependencies = [\n  \"numba>=0.60,<=0.62.0\",\n  \"numpy<2\",\n]\n",
		"sub/pyproject.toml": "[project]\nname = \"sub\"\ndependencies = []\n",
	})
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numpy", numpyRelease("2.4.6", true), numpyRelease("2.5.2", false))
	e.pypi.Add("numba", storyNumba("0.62.0", "numpy>=1.22,<2.5"), storyNumba("0.63.0b1", "numpy>=1.22"))
	code, out, stderr := e.pinbot(t.Context(), "check", "--dir", e.dir, "--format", "json", "--python", py)
	if code != 0 {
		t.Fatalf("check job: exit %d\n%s\n%s", code, out, stderr)
	}
	var rep struct{ Packages []report.Package }
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	p := rep.Packages[0]
	if p.Status != "held" || len(p.Verdicts) != 1 || p.Verdicts[0].Blocked || !strings.Contains(p.Verdicts[0].Held, "(constraint) numpy<2") {
		t.Fatalf("check job: %+v", p)
	}
	path := filepath.Join(t.TempDir(), "report.json")
	os.WriteFile(path, []byte(out), 0o644)
	code, out, stderr = e.run("--verdicts", path, "--format", "json")
	if code != 0 {
		t.Fatalf("publisher: exit %d\n%s\n%s", code, out, stderr)
	}
	if pulls := e.gh.Pulls(testRepo); len(pulls) != 0 {
		t.Errorf("a held package got a pull request: %+v", pulls)
	}
	if !strings.Contains(out, `"status": "held"`) || !strings.Contains(out, "(constraint) numpy<2") {
		t.Errorf("publisher report:\n%s\n%s", out, stderr)
	}
}
