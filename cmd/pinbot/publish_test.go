package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/report"
)

const probedConfig = "packages:\n  numba:\n    probes:\n      - preset: numba-unique-ids\ndashboard: false\n" +
	"pull-requests:\n  labels: [dependencies, numba]\n  reviewers: [ricardoV94, pymc-devs/core]\n  assignees: [ricardoV94]\n" +
	"github:\n  author: {name: pinbot, email: pinbot@example.com}\n"

// newPublishEnv is a run environment whose numba releases the probes can
// read: 0.66.0 (the baseline) and 0.67.0 keep _unique_ids, 0.68.0 drops it.
func newPublishEnv(t *testing.T) *runTestEnv {
	e := newRunEnv(t, probedConfig)
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	e.pypi.Add("numba", numbaRelease("0.66.0", false), numbaRelease("0.67.0", false), numbaRelease("0.68.0", true))
	return e
}

// checkJob runs the check job (static probes: no secret is needed or used)
// and returns its report.
func (e *runTestEnv) checkJob(t *testing.T) map[string]any {
	t.Helper()
	code, out, stderr := e.pinbot(t.Context(), "check", "--dir", e.dir, "--format", "json", "--static")
	if code != exitCheck {
		t.Fatalf("check: exit %d, want 3\n%s\n%s", code, out, stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// writeReport writes the report where the publisher reads it.
func writeReport(t *testing.T, rep any) string {
	t.Helper()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// numbaEntry returns numba's entry of a report.
func numbaEntry(t *testing.T, rep map[string]any) map[string]any {
	t.Helper()
	for _, p := range rep["packages"].([]any) {
		if p := p.(map[string]any); p["name"] == "numba" {
			return p
		}
	}
	t.Fatal("no numba in the report")
	return nil
}

// wheelsFetched counts the wheel downloads the fake PyPI served.
func (e *runTestEnv) wheelsFetched() int {
	n := 0
	for _, r := range e.pypi.Requests() {
		if strings.HasSuffix(r, ".whl") {
			n++
		}
	}
	return n
}

// TestRunVerdicts drives the two-job layout through the CLI: the check job's
// report records the verdict on every candidate, and `pinbot run --verdicts`
// publishes from it without reading a wheel (no probe, no scan), making the
// same draft pull request, Slack message and exit code as a run that checks
// itself.
func TestRunVerdicts(t *testing.T) {
	e := newPublishEnv(t)
	rep := e.checkJob(t)
	var got struct {
		Packages []report.Package
	}
	b, _ := json.Marshal(rep)
	json.Unmarshal(b, &got)
	want := []report.Verdict{{Version: "0.68.0", Baseline: "0.66.0", Blocked: true}, {Version: "0.67.0", Baseline: "0.66.0"}}
	if diff := cmp.Diff(want, got.Packages[0].Verdicts); diff != "" {
		t.Fatalf("verdicts (-want +got):\n%s", diff)
	}
	path := writeReport(t, rep)
	fetched := e.wheelsFetched()
	code, out, stderr := e.run("--verdicts", path)
	if code != exitCheck {
		t.Fatalf("publish: exit %d, want 3\n%s\n%s", code, out, stderr)
	}
	if n := e.wheelsFetched() - fetched; n != 0 {
		t.Errorf("the publisher fetched %d wheels: it ran checks", n)
	}
	if strings.Contains(stderr, "release code runs beside secrets") {
		t.Errorf("the publisher warned about release code:\n%s", stderr)
	}
	pulls := e.gh.Pulls(testRepo)
	if len(pulls) != 1 || !pulls[0].Draft || pulls[0].Title != "Bump numba cap to 0.67.0 (a check failed)" ||
		!strings.Contains(pulls[0].Body, "unique") {
		t.Fatalf("pull requests %+v", pulls)
	}
	if diff := cmp.Diff(e.want("0.67.0"), e.gh.Files(testRepo, branch)); diff != "" {
		t.Errorf("branch tree (-want +got):\n%s", diff)
	}
	msgs := e.slack.Messages()
	if len(msgs) != 1 || !strings.Contains(string(msgs[0]), "numba: a check failed") {
		t.Errorf("slack %s", msgs)
	}
	e.checkSecrets(t)

	// A run that checks itself, beside the token, makes the same pull request.
	self := newPublishEnv(t)
	if code, out, stderr := self.run("--static"); code != exitCheck {
		t.Fatalf("self-checking run: exit %d\n%s\n%s", code, out, stderr)
	}
	sp := self.gh.Pulls(testRepo)
	if len(sp) != 1 || sp[0].Title != pulls[0].Title || sp[0].Draft != pulls[0].Draft {
		t.Fatalf("self-checking run made %+v,\npublisher %+v", sp, pulls)
	}
	// The bodies record the commits each run pushed, whose hashes hold the
	// second they were made at: equal but for those.
	commits := regexp.MustCompile(`pinbot:commits [0-9a-f ]+`)
	selfBody := commits.ReplaceAllString(strings.ReplaceAll(sp[0].Body, self.pypi.URL, e.pypi.URL), "pinbot:commits SHA")
	if diff := cmp.Diff(selfBody, commits.ReplaceAllString(pulls[0].Body, "pinbot:commits SHA")); diff != "" {
		t.Errorf("bodies differ (-self +publisher):\n%s", diff)
	}
	if diff := cmp.Diff(self.gh.Files(testRepo, branch), e.gh.Files(testRepo, branch)); diff != "" {
		t.Errorf("trees differ (-self +publisher):\n%s", diff)
	}
}

// TestRunVerdictsTampered: a report from a job where hostile code ran can say
// whether the candidate this run planned is blocked, and nothing else.
func TestRunVerdictsTampered(t *testing.T) {
	base := newPublishEnv(t).checkJob(t)
	clone := func() map[string]any {
		var c map[string]any
		b, _ := json.Marshal(base)
		json.Unmarshal(b, &c)
		return c
	}

	t.Run("pins and target rewritten", func(t *testing.T) {
		// The report claims 99.0 passed and rewrites every pin to admit it;
		// the publisher's own plan targets 0.68.0, and only the verdict on
		// 0.68.0 (forged to pass) is taken.
		rep := clone()
		p := numbaEntry(t, rep)
		p["newest"], p["status"] = "99.0", "bump"
		for _, pin := range p["pins"].([]any) {
			pin.(map[string]any)["after"] = "numba<=99.0"
		}
		p["verdicts"] = []any{
			map[string]any{"version": "99.0", "baseline": "0.66.0", "blocked": false},
		}
		e := newPublishEnv(t)
		code, out, stderr := e.run("--verdicts", writeReport(t, rep))
		if code != 1 || len(e.writes()) != 0 || len(e.gh.Pulls(testRepo)) != 0 {
			t.Fatalf("exit %d, writes %q\n%s\n%s", code, e.writes(), out, stderr)
		}
		if !strings.Contains(stderr, "judged 99.0 of numba, not 0.68.0, the release this run plans: not checked, not bumped without its checks") {
			t.Errorf("stderr does not say why:\n%s", stderr)
		}
		if msgs := e.slack.Messages(); len(msgs) != 1 || !strings.Contains(string(msgs[0]), "not bumped without its checks") {
			t.Errorf("slack %s", msgs)
		}

		p["verdicts"] = []any{map[string]any{"version": "0.68.0", "baseline": "0.66.0", "blocked": false}}
		e = newPublishEnv(t)
		if code, out, stderr := e.run("--verdicts", writeReport(t, rep)); code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		if diff := cmp.Diff(e.want("0.68.0"), e.gh.Files(testRepo, branch)); diff != "" {
			t.Errorf("branch tree (-want +got):\n%s", diff)
		}
	})

	t.Run("another baseline", func(t *testing.T) {
		rep := clone()
		numbaEntry(t, rep)["verdicts"] = []any{map[string]any{"version": "0.68.0", "baseline": "0.58.0", "blocked": false}}
		e := newPublishEnv(t)
		code, _, stderr := e.run("--verdicts", writeReport(t, rep))
		if code != 1 || len(e.writes()) != 0 || !strings.Contains(stderr, "judged numba 0.68.0 against 0.58.0, this run compares with 0.66.0") {
			t.Errorf("exit %d, writes %q\n%s", code, e.writes(), stderr)
		}
	})

	t.Run("no fallback tried", func(t *testing.T) {
		// A check job that judged only the target (--no-install tries no
		// older release): the publisher does not guess at 0.67.0.
		rep := clone()
		numbaEntry(t, rep)["verdicts"] = []any{map[string]any{"version": "0.68.0", "baseline": "0.66.0", "blocked": true}}
		e := newPublishEnv(t)
		code, out, stderr := e.run("--verdicts", writeReport(t, rep))
		if code != exitCheck || len(e.writes()) != 0 || !strings.Contains(out, "checks failed on 0.68.0 and on every release tried after 0.66.0: caps left as they are") {
			t.Errorf("exit %d, writes %q\n%s\n%s", code, e.writes(), out, stderr)
		}
		if msgs := e.slack.Messages(); len(msgs) != 1 || !strings.Contains(string(msgs[0]), "numba: a check failed") {
			t.Errorf("slack %s", msgs)
		}
	})

	t.Run("no verdicts", func(t *testing.T) {
		rep := clone()
		delete(numbaEntry(t, rep), "verdicts")
		e := newPublishEnv(t)
		code, _, stderr := e.run("--verdicts", writeReport(t, rep))
		if code != 1 || len(e.writes()) != 0 || !strings.Contains(stderr, "judged no release of numba, not 0.68.0") {
			t.Errorf("exit %d, writes %q\n%s", code, e.writes(), stderr)
		}
	})

	t.Run("a package not in the plan", func(t *testing.T) {
		rep := clone()
		rep["packages"] = append(rep["packages"].([]any), map[string]any{"name": "evil-pkg", "status": "bump", "newest": "6.6.6",
			"pins":     []any{map[string]any{"file": "pyproject.toml", "line": 1, "before": "", "after": "evil-pkg==6.6.6"}},
			"verdicts": []any{map[string]any{"version": "6.6.6", "baseline": "", "blocked": false}}})
		e := newPublishEnv(t)
		code, out, stderr := e.run("--verdicts", writeReport(t, rep))
		if code != exitCheck {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		if pulls := e.gh.Pulls(testRepo); len(pulls) != 1 || pulls[0].Head != branch {
			t.Errorf("pull requests %+v", pulls)
		}
		if !strings.Contains(stderr, "the report names packages this run does not plan") || !strings.Contains(stderr, "evil-pkg") {
			t.Errorf("no warning about evil-pkg:\n%s", stderr)
		}
		if strings.Contains(e.gh.Files(testRepo, branch)["pyproject.toml"], "evil") {
			t.Error("evil-pkg was written")
		}
	})

	for _, tt := range []struct{ name, data, want string }{
		{"malformed JSON", "{\"schema\": 1,\n \"packages\": [{\"name\": \"numba\",]}", "report.json:2:32: not valid JSON"},
		{"not a report", `{"hello": "world"}`, "not a report of pinbot check --format json"},
		{"a bad version", `{"schema": 1, "packages": [{"name": "numba", "verdicts": [{"version": "0.68.0\n::add-mask::x"}]}]}`, "is not a version"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newPublishEnv(t)
			path := filepath.Join(t.TempDir(), "report.json")
			os.WriteFile(path, []byte(tt.data), 0o644)
			code, out, stderr := e.run("--verdicts", path)
			if code != exitUsage || !strings.Contains(stderr, "--verdicts: ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d\n%s\n%s", code, out, stderr)
			}
			if n := len(e.gh.Requests()) + e.slack.Calls() + len(e.pypi.Requests()); n != 0 {
				t.Errorf("%d requests made after a bad report", n)
			}
		})
	}

	t.Run("probe flags", func(t *testing.T) {
		e := newPublishEnv(t)
		path := writeReport(t, base)
		for _, flag := range [][]string{{"--static"}, {"--python", "python3"}, {"--no-install"}, {"--probe-timeout", "1m"}} {
			code, _, stderr := e.run(append([]string{"--verdicts", path}, flag...)...)
			if code != exitUsage || !strings.Contains(stderr, flag[0]+": --verdicts runs no probe") {
				t.Errorf("%v: exit %d\n%s", flag, code, stderr)
			}
		}
	})
}

// TestRunWarnsReleaseCode: a run with a secret in its environment and probes
// that run Python says so once, on stderr (and as an Actions annotation); a
// static run, a run without secrets and a publisher do not.
func TestRunWarnsReleaseCode(t *testing.T) {
	const warning = "release code runs beside secrets: the probes of unpinned-pkg"
	cfg := "packages:\n  unpinned-pkg:\n    probes:\n      - path: unpinned_pkg\n        expect: module\n"
	// unpinned-pkg is pinned nowhere: nothing is probed, but the run is set to.
	for _, tt := range []struct {
		name  string
		args  []string
		unset []string
		want  int
	}{
		{"token and probes", []string{"--python", "/nonexistent/python3"}, nil, 1},
		{"webhook only", []string{"--python", "/nonexistent/python3"}, []string{"GITHUB_TOKEN"}, 1},
		{"static", []string{"--static"}, nil, 0},
		{"no secret", []string{"--python", "/nonexistent/python3"}, []string{"GITHUB_TOKEN", "SLACK_WEBHOOK_URL"}, 0},
		{"publisher", []string{"--verdicts", writeReport(t, map[string]any{"schema": 1, "packages": []any{}})}, nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newRunEnv(t, cfg)
			e.vars["GITHUB_ACTIONS"] = "true"
			for _, k := range tt.unset {
				delete(e.vars, k)
			}
			code, out, stderr := e.run(append([]string{"--dry-run"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			// The log's warning, and the annotation beside it on stderr.
			if n := strings.Count(stderr, "level=WARN msg=\""+warning); n != tt.want {
				t.Errorf("%d warnings, want %d:\n%s", n, tt.want, stderr)
			}
			if n := strings.Count(stderr, "::warning title=pinbot%3A release code runs beside secrets::"); n != tt.want {
				t.Errorf("%d annotations, want %d:\n%s", n, tt.want, stderr)
			}
			if tt.want > 0 && (!strings.Contains(stderr, "pinbot run --verdicts report.json") || strings.Contains(stderr, testToken)) {
				t.Errorf("the warning does not say how to split the jobs, or shows the token:\n%s", stderr)
			}
		})
	}
}
