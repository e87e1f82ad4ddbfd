package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/fleet"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// What the fleet takes from its jobs, and from GitHub's listing, is
// untrusted: a report is bound to the repository it was made for, its links
// and texts cannot reach beyond their cells, the dashboard's hidden records
// survive any cut and any report, and the matrix holds only real
// repository names.

// runReport writes, at path, a report as the fleet's publishing jobs leave
// it: pinbot run's document for repo with pkgs, pulls and api requests.
func runReport(t testing.TB, path, repo string, requests int, pulls []fleet.Pull, pkgs ...report.Package) {
	t.Helper()
	var rb bytes.Buffer
	report.JSON(&rb, &report.Report{Packages: pkgs, Repository: repo, APIRequests: requests})
	if pulls == nil {
		pulls = []fleet.Pull{}
	}
	doc := map[string]any{"schema": 1, "report": json.RawMessage(rb.Bytes()), "notified": false, "failures": []string{}, "pull_requests": pulls}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func numbaAt(status string) report.Package {
	return report.Package{Name: "numba", Status: status, Newest: "0.67.0", Admits: "0.66.0", Behind: 1, Reason: "pypi has 0.67.0"}
}

// nonGET counts the requests of the fake GitHub that were not reads.
func nonGET(e *runTestEnv) int {
	n := 0
	for _, r := range e.gh.Requests() {
		if r.Method != http.MethodGet {
			n++
		}
	}
	return n
}

// reportToIssue runs fleet report over dir, keeping the dashboard in an
// issue of lab/.github.
func reportToIssue(t *testing.T, e *runTestEnv, dir string) {
	t.Helper()
	if code, out, stderr := e.pinbot(t.Context(), "fleet", "report", "--reports", dir, "--issue-repo", "lab/.github"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestFleetReportBoundToRepository: a report is the report of the
// repository its file is named for (OWNER__NAME.json, as the fleet
// workflow names it). lab/a's job, which ran release code, wrote a report
// claiming lab/b: it is refused with a warning naming both, and lab/b's
// own report is shown, however the files sort. A file named for no
// repository is skipped with a warning.
func TestFleetReportBoundToRepository(t *testing.T) {
	e := newRunEnv(t, testConfig)
	dir := t.TempDir()
	forged := numbaAt("blocked")
	forged.Reason = "forged by lab/a's job"
	runReport(t, filepath.Join(dir, "pinbot-fleet-report-1", "lab__a.json"), "lab/b", 1, nil, forged)
	runReport(t, filepath.Join(dir, "pinbot-fleet-report-2", "lab__b.json"), "lab/b", 1, nil, numbaAt("bump"))
	runReport(t, filepath.Join(dir, "pinbot-fleet-report-2", "LAB__C.json"), "lab/c", 1, nil, numbaAt("current"))
	runReport(t, filepath.Join(dir, "report.json"), "lab/d", 1, nil, numbaAt("blocked"))
	code, out, stderr := e.pinbot(t.Context(), "fleet", "report", "--reports", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "| lab/b | bumped |") || strings.Contains(out, "forged") || strings.Contains(out, "lab/d") {
		t.Errorf("lab/b's row is not its own report's:\n%s", out)
	}
	// GitHub's names are case-insensitive: LAB__C.json is lab/c's.
	if !strings.Contains(out, "2 repositories") || !strings.Contains(out, "Current: lab/c.") {
		t.Errorf("dashboard:\n%s", out)
	}
	for _, want := range []string{
		filepath.Join("pinbot-fleet-report-1", "lab__a.json") + ": skipped: it claims to be the report of lab/b, but it is lab/a's",
		"report.json: skipped: its name does not say whose report it is (OWNER__NAME.json, as the fleet workflow names them)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no warning %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "is reported in") {
		t.Errorf("lab/b's own report was skipped as a duplicate:\n%s", stderr)
	}
}

// TestFleetReportPullLinks: a pull request is linked only when its URL is
// the repository's own pull request of that number on the configured
// GitHub host (GITHUB_SERVER_URL, else https://github.com); otherwise the
// dashboard shows the number, unlinked.
func TestFleetReportPullLinks(t *testing.T) {
	e := newRunEnv(t, testConfig)
	dir := t.TempDir()
	reports := []struct {
		repo, url string
	}{
		{"lab/a", "https://github.com/lab/a/pull/3"},
		{"lab/b", "https://github.com/lab/other/pull/3"},        // another repository's
		{"lab/c", "https://evil.example/lab/c/pull/3"},          // another host
		{"lab/d", "https://github.com/lab/d/pull/4"},            // another number
		{"lab/e", "https://github.com/lab/e/issues/3"},          // not a pull request
		{"lab/f", "https://github.com/lab/f/pull/3?x=)[y](z)"},  // more than the pull request
		{"lab/g", "https://ghe.example.com/lab/g/pull/3"},       // GitHub Enterprise Server's
		{"lab/h", "https://github.com/lab/h/pull/3/../../../x"}, // climbing out
	}
	for _, r := range reports {
		runReport(t, filepath.Join(dir, strings.Replace(r.repo, "/", "__", 1)+".json"), r.repo, 1,
			[]fleet.Pull{{Package: "numba", Action: "opened", Number: 3, URL: r.url}}, numbaAt("bump"))
	}
	links := func() map[string]string {
		t.Helper()
		code, out, stderr := e.pinbot(t.Context(), "fleet", "report", "--reports", dir)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		cells := map[string]string{}
		for _, m := range regexp.MustCompile(`(?m)^\| (lab/\w) \| bumped \| 0\.66\.0 \| 1 \| ([^|]*) \|`).FindAllStringSubmatch(out, -1) {
			cells[m[1]] = m[2]
		}
		if len(cells) != len(reports) {
			t.Fatalf("%d rows, want %d:\n%s", len(cells), len(reports), out)
		}
		return cells
	}
	got := links()
	for _, r := range reports {
		want := "#&#8203;3"
		if r.repo == "lab/a" {
			want = "[#3](https://github.com/lab/a/pull/3)"
		}
		if got[r.repo] != want {
			t.Errorf("%s (%s): %q, want %q", r.repo, r.url, got[r.repo], want)
		}
	}
	e.vars["GITHUB_SERVER_URL"] = "https://ghe.example.com"
	got = links()
	if got["lab/g"] != "[#3](https://ghe.example.com/lab/g/pull/3)" || got["lab/a"] != "#&#8203;3" {
		t.Errorf("on GitHub Enterprise Server: lab/g %q, lab/a %q", got["lab/g"], got["lab/a"])
	}
}

// TestFleetReportForgedRecord: a held package's reason that holds the
// dashboard's hidden record of what Slack was told (for the state the fleet
// is about to reach) is shown as text and never read back as the record:
// when the fleet changes, Slack hears of it.
func TestFleetReportForgedRecord(t *testing.T) {
	e := newRunEnv(t, testConfig)
	e.gh.AddRepo("lab/.github", "main", nil)
	told := len(e.slack.Messages())
	dir := t.TempDir()
	held := numbaAt("held")
	write := func(b string) {
		runReport(t, filepath.Join(dir, "lab__a.json"), "lab/a", 1, nil, held)
		runReport(t, filepath.Join(dir, "lab__b.json"), "lab/b", 1, nil, numbaAt(b))
	}
	// The state the fleet reaches when lab/b is blocked.
	write("blocked")
	rs, _, err := fleet.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	next, _ := fleet.Summarize(rs)
	held.Hold = "waiting " + fleet.NotifiedLine(next.State()) + " for numba-cuda"
	write("bump")
	reportToIssue(t, e, dir)
	body := e.gh.Issues("lab/.github")[0].Body
	if n := strings.Count(body, "<!--"); n != 3 || !strings.Contains(body, "waiting <!-") {
		t.Errorf("the body holds %d hidden lines, want 3 (the marker, the state, what Slack was told), and the reason as text:\n%s", n, body)
	}
	write("blocked")
	reportToIssue(t, e, dir)
	if msgs := e.slack.Messages()[told:]; len(msgs) != 2 || !strings.Contains(string(msgs[1]), "1 blocked") {
		t.Errorf("Slack heard %d messages, want 2: the forged record was read back\n%s", len(msgs), msgs)
	}
}

// TestFleetReportCut: a dashboard longer than GitHub allows an issue keeps
// its hidden records (so Slack is not told again of a fleet that did not
// change) and cuts its tables instead, saying how many rows it left out; a
// run that changes nothing writes nothing.
func TestFleetReportCut(t *testing.T) {
	e := newRunEnv(t, testConfig)
	e.gh.AddRepo("lab/.github", "main", nil)
	told := len(e.slack.Messages())
	dir := t.TempDir()
	const n = 400
	write := func(requests int) {
		for i := range n {
			p := numbaAt("blocked")
			p.Reason = fmt.Sprintf("checks failed on 0.67.0 in service %03d: ", i) + strings.Repeat("the probe numba-unique-ids failed; ", 10)
			runReport(t, filepath.Join(dir, fmt.Sprintf("lab__svc%03d.json", i)), fmt.Sprintf("lab/svc%03d", i), requests+i, nil, p)
		}
	}
	write(10)
	reportToIssue(t, e, dir)
	body := e.gh.Issues("lab/.github")[0].Body
	rows := len(regexp.MustCompile(`(?m)^\| lab/svc\d{3} \| blocked \|`).FindAllString(body, -1))
	m := regexp.MustCompile(`…and (\d+) more rows, left out to fit GitHub's limit on an issue's length`).FindStringSubmatch(body)
	if len(body) > 65536 || m == nil || m[1] != fmt.Sprint(n-rows) || rows < 50 {
		t.Errorf("%d bytes, %d rows shown, note %q:\n%.3000s", len(body), rows, m, body)
	}
	// The chart comes after the table: the body was not cut at its end.
	if strings.Contains(body, "Cut to fit") || !strings.Contains(body, "```mermaid") {
		t.Errorf("the body was cut at its end:\n%s", body[len(body)-500:])
	}
	if msgs := e.slack.Messages()[told:]; len(msgs) != 1 {
		t.Fatalf("Slack heard %d messages, want 1", len(msgs))
	}
	// The next run's reports count other requests; nothing else changed.
	write(20)
	before := nonGET(e)
	reportToIssue(t, e, dir)
	if msgs := e.slack.Messages()[told:]; len(msgs) != 1 || nonGET(e) != before {
		t.Errorf("an unchanged fleet: Slack heard %d messages, want 1; %d writes, want none", len(msgs), nonGET(e)-before)
	}
}

// TestFleetReportNoWrite: a run whose reports differ from the last only in
// what no reader of the dashboard needs (the GitHub requests each job made)
// writes nothing to GitHub.
func TestFleetReportNoWrite(t *testing.T) {
	e := newRunEnv(t, testConfig)
	e.gh.AddRepo("lab/.github", "main", nil)
	dir := t.TempDir()
	write := func(requests int) {
		runReport(t, filepath.Join(dir, "lab__a.json"), "lab/a", requests, []fleet.Pull{{Package: "numba", Action: "opened", Number: 2,
			URL: "https://github.com/lab/a/pull/2"}}, numbaAt("bump"))
		runReport(t, filepath.Join(dir, "lab__b.json"), "lab/b", requests, nil, numbaAt("current"))
	}
	write(12)
	for i := range 2 {
		before := nonGET(e)
		reportToIssue(t, e, dir)
		if i == 1 && nonGET(e) != before {
			t.Errorf("an unchanged fleet made %d writes", nonGET(e)-before)
		}
		write(17)
	}
}

// TestRunVerdictsOtherRepository: pinbot run --verdicts refuses a report
// made for another repository (exit 2 naming both, before any request); a
// report that names the repository in another case, or none, is taken.
func TestRunVerdictsOtherRepository(t *testing.T) {
	base := newPublishEnv(t).checkJob(t)
	if base["repository"] != testRepo {
		t.Fatalf("the check job's report names %v", base["repository"])
	}
	for _, tt := range []struct {
		name string
		repo any
		code int
		want string
	}{
		{"another repository", "pymc-devs/other", exitUsage, "is the report of pymc-devs/other, not of " + testRepo},
		{"not a repository", "pymc-devs/..", exitUsage, `repository: "pymc-devs/..": not owner/name`},
		{"another case", strings.ToUpper(testRepo), exitCheck, ""},
		{"none", nil, exitCheck, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newPublishEnv(t)
			rep := map[string]any{}
			for k, v := range base {
				rep[k] = v
			}
			if tt.repo == nil {
				delete(rep, "repository")
			} else {
				rep["repository"] = tt.repo
			}
			code, out, stderr := e.run("--verdicts", writeReport(t, rep))
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, want %d and %q\n%s\n%s", code, tt.code, tt.want, out, stderr)
			}
			if tt.code == exitUsage {
				if n := len(e.gh.Requests()) + e.slack.Calls() + len(e.pypi.Requests()); n != 0 {
					t.Errorf("%d requests made after a report for another repository", n)
				}
			} else if len(e.gh.Pulls(testRepo)) != 1 {
				t.Errorf("pull requests %+v", e.gh.Pulls(testRepo))
			}
		})
	}
}

// TestFleetPlanNames: the matrix holds only names GitHub allows for a
// repository of the owner asked for; a listing's other names are skipped
// with a warning naming each.
func TestFleetPlanNames(t *testing.T) {
	e := newRunEnv(t, testConfig)
	good := []string{"lab/Good.v2_x-y", "lab/good", "lab/" + strings.Repeat("a", 100)}
	for _, full := range good {
		e.gh.AddRepo(full, "main", nil)
	}
	bad := []string{"lab/$(touch${IFS}pwned)", "lab/../../etc", "lab/..", "lab/.", "lab/with space", "lab/new\nline", "lab/-flag",
		"lab/" + strings.Repeat("a", 101), "lab/ünï"}
	for _, full := range bad {
		e.gh.AddRepo(full, "main", nil)
	}
	e.gh.AddRepo("lab/stolen", "main", nil)
	e.gh.SetRepoMeta("lab/stolen", fakes.RepoMeta{FullName: "other/stolen"})
	e.gh.AddRepo("lab/nameless", "main", nil)
	e.gh.SetRepoMeta("lab/nameless", fakes.RepoMeta{FullName: "lab"})
	code, out, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var got []string
	for _, j := range planOutput(t, out).Include {
		got = append(got, strings.Fields(j.Repositories)...)
	}
	if strings.Join(got, " ") != "lab/Good.v2_x-y lab/"+strings.Repeat("a", 100)+" lab/good" {
		t.Errorf("matrix %s", out)
	}
	for _, full := range append(bad, "lab") {
		want := fmt.Sprintf("%q: not a repository name GitHub allows", full)
		if len(full) > 80 {
			want = fmt.Sprintf("%q", full[:80])
			want = want[:len(want)-1] + "…\": not a repository name GitHub allows"
		}
		// The log quotes the message again.
		if q := strconv.Quote(want); !strings.Contains(stderr, q[1:len(q)-1]) {
			t.Errorf("no warning %s:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stderr, `\"other/stolen\": not a repository of lab`) {
		t.Errorf("no warning for another owner's repository:\n%s", stderr)
	}
}

// TestFleetPlanOutputLimit: a matrix larger than a job may output (1 MB,
// counted in UTF-16 as GitHub counts it) fails the plan with an error that
// says so and what to do, and writes no output.
func TestFleetPlanOutputLimit(t *testing.T) {
	e := newRunEnv(t, testConfig)
	for i := range 5200 {
		e.gh.AddRepo(fmt.Sprintf("lab/%04d-%s", i, strings.Repeat("x", 95)), "main", nil)
	}
	output := filepath.Join(t.TempDir(), "output")
	e.vars["GITHUB_OUTPUT"] = output
	code, out, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab")
	if code != exitFailure || out != "" || !strings.Contains(stderr, "more than the 1 MB GitHub allows a job's outputs") ||
		!strings.Contains(stderr, "--topic, --include or --exclude") {
		t.Errorf("exit %d, %d bytes of stdout\n%.2000s", code, len(out), stderr)
	}
	if _, err := os.Stat(output); err == nil {
		t.Error("the plan wrote its outputs")
	}
}
