package main

import (
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/progress"
)

// terminal makes every run of e see a terminal (or none) on stdout and
// stderr.
func terminal(e *env, yes bool) {
	e.setup = func(f *Factory) { f.Terminal = func(io.Writer) bool { return yes } }
}

var ansiRE = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestCheckTextForPeople: the text report opens with the summary line and
// ends with the next step, before and after --write; logs are warnings only
// unless -v.
func TestCheckTextForPeople(t *testing.T) {
	e := newEnv(t)
	e.file("pyproject.toml", []byte("[project]\ndependencies = [\"numba>=0.58,<=0.66.0\", \"tensorflow>=2.19,<=2.19.1\", \"protobuf>=5.29.3,<=6.33.0\"]\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba: {}\n  tensorflow: {}\n  protobuf: {}\n"))

	code, out, stderr := e.run("check", "--dir", e.dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "3 packages: 2 bump, 0 blocked, 0 held, 1 current" {
		t.Errorf("first line %q, want the summary\n%s", lines[0], out)
	}
	if last := lines[len(lines)-1]; last != "next: run with --write to apply the new caps (pinbot check --write)" {
		t.Errorf("last line %q, want the next step\n%s", last, out)
	}
	if stderr != "" {
		t.Errorf("logs without -v, when nothing went wrong:\n%s", stderr)
	}
	if ansiRE.MatchString(out) {
		t.Errorf("colour off a terminal:\n%q", out)
	}

	code, out, _ = e.run("check", "--dir", e.dir, "--write")
	if code != 0 || !strings.HasSuffix(out, "\nwrote pyproject.toml\n\nnext: review the rewritten files and commit them\n") {
		t.Errorf("--write: exit %d\n%s", code, out)
	}
	code, out, _ = e.run("check", "--dir", e.dir)
	if code != 0 || !strings.HasPrefix(out, "3 packages: 0 bump, 0 blocked, 0 held, 3 current\n") ||
		!strings.HasSuffix(out, "\nnext: nothing to do: every cap admits the newest release\n") {
		t.Errorf("after --write: exit %d\n%s", code, out)
	}

	// -v logs every step; without it the warnings still show.
	if _, _, stderr := e.run("check", "-v", "--dir", e.dir); !strings.Contains(stderr, "level=INFO msg=\"looking up releases\"") {
		t.Errorf("-v lacks the info logs:\n%s", stderr)
	}
	e.pypi.Remove("tensorflow")
	code, out, stderr = e.run("check", "--dir", e.dir)
	if code != exitFailure || strings.Contains(stderr, "level=INFO") || !strings.Contains(stderr, "level=WARN msg=\"lookup failed\" package=tensorflow") {
		t.Errorf("exit %d; stderr:\n%s", code, stderr)
	}
	if !strings.HasPrefix(out, "3 packages: 0 bump, 0 blocked, 0 held, 2 current, 1 error\n") ||
		!strings.HasSuffix(out, "\nnext: fix the errors of tensorflow above and run again\n") {
		t.Errorf("with an error:\n%s", out)
	}
	// JSON and Markdown carry neither line.
	for _, format := range []string{"json", "markdown"} {
		if _, out, _ := e.run("check", "--dir", e.dir, "--format", format); strings.Contains(out, "next:") || strings.Contains(out, "3 packages") {
			t.Errorf("%s output has the text report's lines:\n%s", format, out)
		}
	}
}

// TestCheckNoWatchedPins: when no pin of a watched package is found, the
// report says so and what to do, not that every cap admits the newest
// release.
func TestCheckNoWatchedPins(t *testing.T) {
	e := newEnv(t)
	e.file("requirements.txt", []byte("requests>=2\n"))
	code, out, stderr := e.run("check", "--dir", e.dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	want := "0 packages: 0 bump, 0 blocked, 0 held, 0 current\n\nno pins of watched packages found\n\n" +
		"next: no pin of a watched package was found: watch the packages this repository pins (pinbot init writes a .pinbot.yml watching them)\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestCheckUncappedOnly: when no pin of a watched package has a cap and
// add-cap is off (umap's numba >= 0.51.2, as pinbot init configures it), the
// next step says so, not that every cap admits the newest release, and
// the JSON marks each such pin uncapped; one capped pin beside them brings
// the usual line back.
func TestCheckUncappedOnly(t *testing.T) {
	e := newEnv(t)
	e.file("requirements.txt", []byte("numba >= 0.51.2\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba:\n    add-cap: false\n"))
	code, out, stderr := e.run("check", "--dir", e.dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.HasSuffix(out, "\nnext: nothing to do: no pin of a watched package has a cap, and add-cap is off (add-cap: true caps them at the newest release)\n") {
		t.Errorf("uncapped only:\n%s", out)
	}
	_, out, _ = e.run("check", "--dir", e.dir, "--format", "json")
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != 1 || len(rep.Packages[0].Pins) != 1 || !rep.Packages[0].Pins[0].Uncapped || rep.Packages[0].Status != "current" {
		t.Errorf("report %+v", rep.Packages)
	}
	e.file("requirements-dev.txt", []byte("numba>=0.58,<=0.67.0\n"))
	if _, out, _ := e.run("check", "--dir", e.dir); !strings.HasSuffix(out, "\nnext: nothing to do: every cap admits the newest release\n") {
		t.Errorf("with a capped pin beside:\n%s", out)
	}
}

// TestCheckColor: on a terminal the text report is coloured, unless
// NO_COLOR is set; JSON never is.
func TestCheckColor(t *testing.T) {
	e := newEnv(t)
	e.file("pyproject.toml", corpus.Read(t, "pymc-devs__pytensor__pyproject.toml"))
	terminal(e, true)
	_, out, _ := e.run("check", "--dir", e.dir)
	if !strings.Contains(out, "numba: \x1b[32mbump\x1b[0m (target 0.67.0)") {
		t.Errorf("no colour on a terminal:\n%q", out)
	}
	terminal(e, false)
	_, plain, _ := e.run("check", "--dir", e.dir)
	if ansiRE.ReplaceAllString(out, "") != plain {
		t.Errorf("coloured and plain reports differ beyond colour:\n%s\n%s", out, plain)
	}
	terminal(e, true)
	e.vars["NO_COLOR"] = "1"
	if _, out, _ := e.run("check", "--dir", e.dir); out != plain {
		t.Errorf("NO_COLOR: %q", out)
	}
	delete(e.vars, "NO_COLOR")
	if _, out, _ := e.run("check", "--dir", e.dir, "--format", "json"); ansiRE.MatchString(out) {
		t.Errorf("colour in JSON:\n%s", out)
	}
}

// TestCheckProgress: on a terminal, stderr shows each download the checks
// make with its size and how it ended; off a terminal, nothing.
func TestCheckProgress(t *testing.T) {
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	base, cand := numbaRelease("0.66.0", false), numbaRelease("0.67.0", false)
	e.pypi.Add("numba", base, cand)
	e.file("pyproject.toml", []byte("[project]\ndependencies = [\"numba>=0.58,<=0.66.0\"]\n"))
	e.file(".pinbot.yml", []byte("packages:\n  numba:\n    probes:\n      - preset: numba-unique-ids\n"))
	_, data := artifactPath(cand)
	fn := "numba-0.67.0-py3-none-any.whl"

	terminal(e, false)
	if code, out, stderr := e.run("check", "--dir", e.dir, "--static", "--no-cache"); code != 0 || stderr != "" {
		t.Errorf("off a terminal: exit %d, stderr:\n%s\n%s", code, stderr, out)
	}
	terminal(e, true)
	code, out, stderr := e.run("check", "--dir", e.dir, "--static")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"downloading " + fn + " (" + progress.Size(int64(len(data))) + ")…\n", "  downloading " + fn + ": done, " + progress.Size(int64(len(data))) + " in "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// Cached: no download, no line.
	if _, _, stderr := e.run("check", "--dir", e.dir, "--static"); strings.Contains(stderr, "downloading") {
		t.Errorf("a cached artifact was shown as downloaded:\n%s", stderr)
	}
}

// TestCheckProgressInstall: on a terminal, stderr shows each probe
// environment being installed and how long it took.
func TestCheckProgressInstall(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	py := dynamicOnly(t)
	e := newEnv(t)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numpy", numpyRelease("2.4.6", true))
	e.pypi.Add("numba", storyNumba("0.62.0", "numpy>=1.22,<2.5"), storyNumba("0.63.0b1", "numpy>=1.22"))
	e.file("pyproject.toml", []byte("[project]\nname = \"x\"\ndependencies = [\"numba>=0.60,<=0.62.0\"]\n"))
	e.file(".pinbot.yml", []byte(storyConfig))
	terminal(e, true)
	code, out, stderr := e.run("check", "--dir", e.dir, "--python", py)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, v := range []string{"0.62.0", "0.63.0b1"} {
		label := "installing numba==" + v + " into a probe environment"
		if !strings.Contains(stderr, label+"…\n") || !strings.Contains(stderr, "  "+label+": done in ") {
			t.Errorf("stderr lacks the install of %s:\n%s", v, stderr)
		}
	}
}

// TestRunTextForPeople: pinbot run's text output opens with the summary and
// ends with the next steps: the pull request to review, the draft to see
// when a check failed, or, in a dry run, the real run.
func TestRunTextForPeople(t *testing.T) {
	e := newRunEnv(t, testConfig)
	code, out, stderr := e.run()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	url := "https://github.com/" + testRepo + "/pull/1"
	if !strings.HasPrefix(out, "1 package: 1 bump, 0 blocked, 0 held, 0 current\n") || !strings.HasSuffix(out, "\nnext: review the pull request "+url+"\n") {
		t.Errorf("run:\n%s", out)
	}

	e = newRunEnv(t, testConfig)
	runHooks.adjust = blockNumba
	_, out, _ = e.run("--fail-on", "never")
	if !strings.HasPrefix(out, "1 package: 0 bump, 1 blocked, 0 held, 0 current\n") ||
		!strings.HasSuffix(out, "\nnext: see the draft pull request "+url+"\nnext: read the failed checks of numba above: their caps stay at the newest release that passed\n") {
		t.Errorf("blocked:\n%s", out)
	}

	e = newRunEnv(t, testConfig)
	_, out, _ = e.run("--dry-run")
	if !strings.HasSuffix(out, "\nnext: run without --dry-run to open or update the pull requests above\n") {
		t.Errorf("dry run:\n%s", out)
	}
}
