package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/bot/publishing/dashboard"
	"github.com/pinbot-dev/pinbot/bot/publishing/state"
	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/escape/inerttest"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

const dashConfig = `packages:
  numba:
    probes:
      - preset: numba-unique-ids
  protobuf: {}
dashboard:
  title: Pins of pytensor
  labels: [pins, dependencies]
`

const dashMarker = "<!-- pinbot:issue dashboard/main -->"

// newDashEnv is pytensor's checkout with a protobuf==5.29.3 pin (held) and
// numba's probes; PyPI has numba 0.66.0 and 0.67.0, which keep
// _unique_ids, and 0.68.0rc1, which drops it.
func newDashEnv(t *testing.T, config string) *runTestEnv {
	e := newRunEnvFiles(t, config, map[string]string{"requirements.txt": "protobuf==5.29.3\n"})
	e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", false), numbaRelease("0.68.0rc1", true))
	return e
}

// dashboard returns the repository's one issue, failing unless there is
// exactly one.
func (e *runTestEnv) dashboard(t *testing.T) fakes.IssueInfo {
	t.Helper()
	issues := e.gh.Issues(testRepo)
	if len(issues) != 1 {
		t.Fatalf("%d issues, want one dashboard: %+v", len(issues), issues)
	}
	return issues[0]
}

// issueWrites are the writes to issues (not to pull requests' labels and
// assignees) since the from-th request.
func (e *runTestEnv) issueWrites(from int) []string {
	re := regexp.MustCompile(`^(POST /repos/[^/]+/[^/]+/issues|PATCH /repos/[^/]+/[^/]+/issues/\d+)$`)
	var out []string
	for _, w := range e.writesSince(from) {
		if re.MatchString(w) {
			out = append(out, w)
		}
	}
	return out
}

// TestRunDashboard drives the pin dashboard through pinbot run: one issue,
// opened on the first run and updated in place by every later one that
// finds something new (closed by a person or stripped of its label, it is
// still found, never duplicated), listing each package's pins, target per
// source, status, checks with their evidence, pull request, early warning
// and what changed since the run before; the same content goes to the step
// summary. A pre-release whose checks fail is announced on Slack once.
func TestRunDashboard(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	e := newDashEnv(t, dashConfig)
	summary := filepath.Join(e.dir, "..", "summary.md")
	e.vars["GITHUB_ACTIONS"] = "true"
	e.vars["GITHUB_STEP_SUMMARY"] = summary

	code, out, stderr := e.run("--static", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var doc struct {
		Report    report.Report `json:"report"`
		Dashboard struct {
			Action, URL string
			Number      int
		} `json:"dashboard"`
	}
	if err := json.NewDecoder(strings.NewReader(out[strings.Index(out, "{"):])).Decode(&doc); err != nil { // annotations follow
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Dashboard.Action != "opened" || doc.Dashboard.Number != 2 || doc.Dashboard.URL != "https://github.com/"+testRepo+"/issues/2" {
		t.Errorf("dashboard in the JSON: %+v", doc.Dashboard)
	}
	is := e.dashboard(t)
	if is.Number != 2 || is.Title != "Pins of pytensor" || !slices.Equal(is.Labels, []string{"pins", "dependencies"}) || is.State != "open" ||
		!strings.HasPrefix(is.Body, dashMarker+"\n<!-- pinbot:state ") {
		t.Errorf("issue %d %q %v %s:\n%.200s", is.Number, is.Title, is.Labels, is.State, is.Body)
	}
	for _, want := range []string{
		"pinbot keeps this issue up to date from `pinbot run` of `pymc-devs/pytensor` (base branch `main`): a run that finds something new rewrites it",
		"| numba | ⬆️ bump | 0.66.0 (1 behind) | 0.67.0 | [#1](https://github.com/pymc-devs/pytensor/pull/1) | ❌ 0.68.0rc1 blocked |",
		"| protobuf | ⏸️ held | 5.29.3 (1 behind) | 6.33.0 |  |  |",
		"No earlier run is recorded",
		"### numba: bump",
		"Pull request: [#1](https://github.com/pymc-devs/pytensor/pull/1)\n",
		"Target: **0.67.0** (newest: pypi 0.67.0)",
		"| `pyproject.toml:53` | `numba>=0.58,<=0.66.0` | `numba>=0.58,<=0.67.0` |", // pins: file:line and constraint
		"| `sub/pyproject.toml:3` | `numba>=0.57` | `numba>=0.57,<=0.67.0` |",
		"| probe `FunctionIdentity._unique_ids is an iterator` | ✅ ok | pass | pass | ok: found \\_unique\\_ids = itertools.count(1)", // a verdict with its evidence
		"| probe `from_function takes its unique_id from a swapped-in iterator` | ⚠️ warning |",
		"**Early warning:** numba 0.68.0rc1 (pypi): fails probe FunctionIdentity.\\_unique\\_ids is an iterator",
		"the cap will hold when 0.68.0 ships",
		"| Check | Result | Baseline | Pre-release | Detail |",
		"### protobuf: held",
		"> **Held:** requirements.txt:1 protobuf==5.29.3 shuts out 6.33.0",
	} {
		if !strings.Contains(is.Body, want) {
			t.Errorf("dashboard lacks %q:\n%s", want, is.Body)
		}
	}
	inerttest.Markdown(t, is.Body, "https://github.com/"+testRepo+"/pull/")
	s, _ := os.ReadFile(summary)
	visible := is.Body[strings.Index(is.Body, "pinbot keeps"):]
	if !strings.HasPrefix(string(s), "# Pins of pytensor\n\n") || !strings.Contains(string(s), visible) || strings.Contains(string(s), "pinbot:state") {
		t.Errorf("the step summary is not the dashboard:\n%s", s)
	}
	msgs := e.slack.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d slack messages", len(msgs))
	}
	for _, want := range []string{"1 early warning", ":crystal_ball:",
		"numba 0.68.0rc1 fails probe FunctionIdentity._unique_ids is an iterator (",
		"): the cap will hold when 0.68.0 ships",
		"probe FunctionIdentity._unique_ids is an iterator: pass at 0.67.0, fail at 0.68.0rc1",
		"No pull request is opened and no cap moves for a pre-release"} {
		if !strings.Contains(string(msgs[0]), want) {
			t.Errorf("slack message lacks %q:\n%s", want, msgs[0])
		}
	}

	// Second run, nothing new: the issue is left as it is, the early
	// warning is not repeated.
	before := len(e.gh.Requests())
	if code, out, stderr := e.run("--static"); code != 0 || !strings.Contains(out, "dashboard: unchanged #2") {
		t.Fatalf("second run: exit %d\n%s\n%s", code, out, stderr)
	}
	if w := e.issueWrites(before); len(w) != 0 {
		t.Errorf("second run's issue writes %q", w)
	}
	if e.dashboard(t).Body != is.Body {
		t.Errorf("second dashboard:\n%s", e.dashboard(t).Body)
	}
	if n := len(e.slack.Messages()); n != 1 {
		t.Errorf("second run sent %d messages", n-1)
	}

	// rc2 fails too, and protobuf 6.34.0 is out: news, listed as changes.
	e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", false), numbaRelease("0.68.0rc1", true), numbaRelease("0.68.0rc2", true))
	e.pypi.Add("protobuf", fakes.Release{Version: "5.29.3"}, fakes.Release{Version: "6.33.0"}, fakes.Release{Version: "6.34.0"})
	if code, out, stderr := e.run("--static"); code != 0 {
		t.Fatalf("third run: exit %d\n%s\n%s", code, out, stderr)
	}
	is = e.dashboard(t)
	for _, want := range []string{"- numba: early warning on 0.68.0rc2: blocked", "- protobuf: target 6.33.0 → 6.34.0", "❌ 0.68.0rc2 blocked"} {
		if !strings.Contains(is.Body, want) {
			t.Errorf("third dashboard lacks %q:\n%s", want, is.Body)
		}
	}
	msgs = e.slack.Messages()
	if len(msgs) != 2 || !strings.Contains(string(msgs[1]), "numba 0.68.0rc2 fails probe") || strings.Contains(string(msgs[1]), "0.68.0rc1 fails") {
		t.Errorf("third run's message:\n%s", msgs[len(msgs)-1])
	}

	// A person closes the dashboard: it stays closed, and is still the one
	// pinbot updates when protobuf 6.35.0 is out.
	e.gh.EditIssue(testRepo, 2, "closed", nil)
	e.pypi.Add("protobuf", fakes.Release{Version: "5.29.3"}, fakes.Release{Version: "6.33.0"}, fakes.Release{Version: "6.34.0"}, fakes.Release{Version: "6.35.0"})
	if code, _, stderr := e.run("--static"); code != 0 {
		t.Fatalf("after a close: exit %d\n%s", code, stderr)
	}
	if is := e.dashboard(t); is.State != "closed" || !strings.Contains(is.Body, "- protobuf: target 6.34.0 → 6.35.0") {
		t.Errorf("closed dashboard: %s\n%s", is.State, is.Body)
	}
	// ... and strips its labels: found by search, the labels come back.
	e.gh.EditIssue(testRepo, 2, "", []string{})
	if code, _, stderr := e.run("--static"); code != 0 {
		t.Fatalf("after the labels went: exit %d\n%s", code, stderr)
	}
	if is := e.dashboard(t); !slices.Equal(is.Labels, []string{"pins", "dependencies"}) {
		t.Errorf("labels %v", is.Labels)
	}

	// The cache is lost (as in a job that keeps none): the issue's hidden
	// line still says what was announced and what the last run saw, so
	// nothing is said or written again.
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	before = len(e.gh.Requests())
	if code, _, stderr := e.run("--static"); code != 0 {
		t.Fatalf("without the cache: exit %d\n%s", code, stderr)
	}
	if n := len(e.slack.Messages()); n != 3 {
		t.Errorf("without the cache, %d new messages: %s", n-3, e.slack.Messages()[n-1])
	}
	if w := e.writesSince(before); len(w) != 0 {
		t.Errorf("without the cache, writes %q", w)
	}
	e.checkSecrets(t)
}

// TestRunDashboardOff: dashboard: false keeps no issue; the step summary
// still shows the dashboard. A run of some packages (--package) does not
// touch the issue, which would lose the others; a dry run prints it.
func TestRunDashboardOff(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	e := newDashEnv(t, dashConfig+"dashboard: false\n")
	e.file(".pinbot.yml", []byte(strings.Replace(dashConfig, "dashboard:\n  title: Pins of pytensor\n  labels: [pins, dependencies]\n", "dashboard: false\n", 1)))
	summary := filepath.Join(e.dir, "..", "summary.md")
	e.vars["GITHUB_ACTIONS"] = "true"
	e.vars["GITHUB_STEP_SUMMARY"] = summary
	if code, out, stderr := e.run("--static"); code != 0 || strings.Contains(out, "dashboard:") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if n := len(e.gh.Issues(testRepo)); n != 0 {
		t.Errorf("dashboard: false opened %d issues", n)
	}
	if s, _ := os.ReadFile(summary); !strings.HasPrefix(string(s), "# pinbot dashboard\n") || !strings.Contains(string(s), "## Overview") {
		t.Errorf("step summary:\n%s", s)
	}

	e = newDashEnv(t, dashConfig)
	if code, _, stderr := e.run("--static", "--package", "numba"); code != 0 {
		t.Fatalf("--package: exit %d\n%s", code, stderr)
	}
	if n := len(e.gh.Issues(testRepo)); n != 0 {
		t.Errorf("a run of one package opened %d issues", n)
	}

	e = newDashEnv(t, dashConfig)
	code, out, stderr := e.run("--static", "--dry-run")
	if code != 0 || !strings.Contains(out, "=== dashboard issue (dry run): Pins of pytensor\n") || !strings.Contains(out, "| numba | ⬆️ bump |") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, stderr)
	}
	if w := e.writes(); len(w) != 0 { // it reads which pull requests are open
		t.Errorf("a dry run wrote %q", w)
	}
}

// TestRunDashboardRefused: a token without issues: write fails the run
// (exit 1) with what to do, after the pull requests were made.
func TestRunDashboardRefused(t *testing.T) {
	e := newDashEnv(t, dashConfig)
	e.gh.Fail("POST", `^/repos/`+regexp.QuoteMeta(testRepo)+`/issues$`, fakes.Fault{Status: 403,
		Body: `{"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest/issues/issues#create-an-issue"}`})
	code, out, stderr := e.run("--static")
	if code != 1 || !strings.Contains(stderr, "dashboard: github: opening the issue dashboard/main") ||
		!strings.Contains(stderr, "(the token needs the issues: write permission)") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if p := e.gh.Pulls(testRepo); len(p) != 1 {
		t.Errorf("pull requests %+v", p)
	}
	e.checkSecrets(t)
}

// recorded returns the state the dashboard issue's hidden line carries.
func (e *runTestEnv) recorded(t *testing.T) state.Scope {
	t.Helper()
	sc, ok := dashboard.Recorded(e.dashboard(t).Body)
	if !ok {
		t.Fatalf("the dashboard carries no state:\n%.300s", e.dashboard(t).Body)
	}
	return sc
}

// step runs pinbot run with args, wanting exit code want, and returns its
// stdout, its GitHub writes and how many Slack messages it sent.
func (e *runTestEnv) step(t *testing.T, want int, args ...string) (out string, writes []string, messages int) {
	t.Helper()
	from, sent := len(e.gh.Requests()), len(e.slack.Messages())
	code, out, stderr := e.run(args...)
	if code != want {
		t.Fatalf("run %q: exit %d, want %d\n%s\n%s", args, code, want, out, stderr)
	}
	return out, e.writesSince(from), len(e.slack.Messages()) - sent
}

// TestRunWritesOnlyNews: a run that finds what the last one found makes no
// GitHub write at all: the dashboard issue is left as it is though its
// hidden state carries the last run's time, and the open pull request is
// neither edited nor pushed to. A run that finds something new writes
// just that (the dashboard, whose state's times then advance), and a
// notify.remind reminder that falls due is recorded in the issue. Without
// the cache, the issue's record still says it all.
func TestRunWritesOnlyNews(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	e := newDashEnv(t, dashConfig+"notify:\n  remind: weekly\n")
	now := time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC)
	e.now = func() time.Time { return now }
	issue := "PATCH /repos/" + testRepo + "/issues/2"

	if _, w, n := e.step(t, 0, "--static"); !slices.Contains(w, "POST /repos/"+testRepo+"/issues") || !slices.Contains(w, "POST /repos/"+testRepo+"/pulls") || n != 1 {
		t.Fatalf("first run: writes %q, %d messages", w, n)
	}
	first := e.dashboard(t).Body

	now = now.Add(time.Hour)
	out, w, n := e.step(t, 0, "--static")
	if len(w) != 0 || n != 0 || !strings.Contains(out, "dashboard: unchanged #2") {
		t.Errorf("an identical run: writes %q, %d messages\n%s", w, n, out)
	}
	if e.dashboard(t).Body != first {
		t.Errorf("the dashboard changed")
	}

	// protobuf 6.34.0 is out: the dashboard says so, and only it is
	// written; its record is this run's.
	now = now.Add(time.Hour)
	e.pypi.Add("protobuf", fakes.Release{Version: "5.29.3"}, fakes.Release{Version: "6.33.0"}, fakes.Release{Version: "6.34.0"})
	if _, w, n := e.step(t, 0, "--static"); !slices.Equal(w, []string{issue}) || n != 1 {
		t.Errorf("a new protobuf: writes %q, %d messages", w, n)
	}
	body := e.dashboard(t).Body
	for _, want := range []string{"As of the run of 2026-09-01 10:00 UTC.", "Since the run of 2026-09-01 09:00 UTC:\n\n- protobuf: target 6.33.0 → 6.34.0\n",
		"| protobuf | ⏸️ held | 5.29.3 (2 behind) | 6.34.0 |", "Pull request: [#1](https://github.com/pymc-devs/pytensor/pull/1)\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("dashboard lacks %q:\n%s", want, body)
		}
	}
	sc := e.recorded(t)
	if !sc.Updated.Equal(now) || !sc.SeenAt.Equal(now) || sc.Seen["protobuf"].Target != "6.34.0" || !sc.Alerted["held:protobuf"].At.Equal(now) {
		t.Errorf("recorded %+v", sc)
	}
	now = now.Add(time.Hour)
	if _, w, n := e.step(t, 0, "--static"); len(w) != 0 || n != 0 {
		t.Errorf("the next identical run: writes %q, %d messages", w, n)
	}

	// A week on, the hold is reminded; the issue records when.
	alerted := now.Add(-time.Hour)
	now = now.Add(7 * 24 * time.Hour)
	if _, w, n := e.step(t, 0, "--static"); !slices.Equal(w, []string{issue}) || n != 1 ||
		!strings.Contains(string(e.slack.Messages()[len(e.slack.Messages())-1]), "Reminder: unchanged since it was alerted on 2026-09-01.") {
		t.Errorf("a reminder: writes %q, %d messages", w, n)
	}
	if sc := e.recorded(t); !sc.Alerted["held:protobuf"].At.Equal(now) || sc.Alerted["held:protobuf"].At.Equal(alerted) || !sc.Updated.Equal(now) {
		t.Errorf("after the reminder, recorded %+v", sc)
	}
	now = now.Add(time.Hour)
	if _, w, n := e.step(t, 0, "--static"); len(w) != 0 || n != 0 {
		t.Errorf("after the reminder: writes %q, %d messages", w, n)
	}

	// The cache is lost: the issue's record says what was seen and alerted.
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	now = now.Add(time.Hour)
	if _, w, n := e.step(t, 0, "--static"); len(w) != 0 || n != 0 {
		t.Errorf("without the cache: writes %q, %d messages", w, n)
	}
	e.checkSecrets(t)
}

// TestRunVerdictsWritesOnlyNews: the two-job layout publishing the same
// check report twice writes nothing the second time: not the draft pull
// request a failed check made (title, body, draft state, labels,
// reviewers, assignees, branch), not the dashboard.
func TestRunVerdictsWritesOnlyNews(t *testing.T) {
	e := newPublishEnv(t)
	e.file(".pinbot.yml", []byte(strings.Replace(probedConfig, "dashboard: false\n", "", 1)))
	now := time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC)
	e.now = func() time.Time { return now }
	path := writeReport(t, e.checkJob(t))
	if _, w, _ := e.step(t, exitCheck, "--verdicts", path); !slices.Contains(w, "POST /repos/"+testRepo+"/issues") {
		t.Fatalf("first run: writes %q", w)
	}
	if p := e.gh.Pulls(testRepo); len(p) != 1 || !p[0].Draft {
		t.Fatalf("pull requests %+v", p)
	}
	now = now.Add(time.Hour)
	if out, w, n := e.step(t, exitCheck, "--verdicts", path); len(w) != 0 || n != 0 || !strings.Contains(out, "numba: unchanged #1") {
		t.Errorf("the same report again: writes %q, %d messages\n%s", w, n, out)
	}
}
