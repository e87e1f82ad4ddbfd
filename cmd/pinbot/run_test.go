package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pinbot-dev/pinbot/bot/report"
	"github.com/pinbot-dev/pinbot/internal/corpus"
	"github.com/pinbot-dev/pinbot/internal/fakes"
	"github.com/pinbot-dev/pinbot/web"
)

const (
	testRepo  = "pymc-devs/pytensor"
	testToken = "ghp_T0pS3cretPinbotTestToken0000000000"
	branch    = "pinbot/main/numba"
)

const testConfig = `packages:
  numba: {}
dashboard: false
pull-requests:
  labels: [dependencies, numba]
  reviewers: [ricardoV94, pymc-devs/core]
  assignees: [ricardoV94]
github:
  author: {name: pinbot, email: pinbot@example.com}
`

// runEnv is a repository checkout plus fake PyPI, GitHub and Slack.
type runTestEnv struct {
	*env
	gh      *fakes.GitHub
	slack   *fakes.Slack
	base    map[string]string // the base branch's files, as checked out
	outputs []string          // everything pinbot printed, for the secrets check
	mu      sync.Mutex
	waits   []time.Duration // web.Transport and Slack waits
	clock   *fakeClock
	// now, when set, is the run's clock (the factory's Now).
	now func() time.Time
}

type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
		c.sleeps = append(c.sleeps, d)
	}
	return ctx.Err()
}

func newRunEnv(t *testing.T, config string) *runTestEnv {
	return newRunEnvFiles(t, config, nil)
}

// newRunEnvFiles is newRunEnv with extra files in the checkout and the base
// branch.
func newRunEnvFiles(t *testing.T, config string, extra map[string]string) *runTestEnv {
	e := &runTestEnv{env: newEnv(t), gh: fakes.NewGitHub(t), slack: fakes.NewSlack(t), clock: &fakeClock{now: time.Now()}}
	e.base = map[string]string{
		"pyproject.toml":     string(corpus.Read(t, "pymc-devs__pytensor__pyproject.toml")),
		"sub/pyproject.toml": "[project]\nname = \"sub\"\ndependencies = [\"numba>=0.57\"]\n",
		"README.md":          "# pytensor\n",
		".pinbot.yml":        config,
	}
	for name, data := range extra {
		e.base[name] = data
	}
	for name, data := range e.base {
		e.file(name, []byte(data))
	}
	e.gh.AddRepo(testRepo, "main", e.base)
	e.gh.AddToken(testToken, "pinbot-user")
	e.vars["GITHUB_REPOSITORY"] = testRepo
	e.vars["GITHUB_API_URL"] = e.gh.URL
	e.vars["GITHUB_TOKEN"] = testToken
	e.vars["SLACK_WEBHOOK_URL"] = e.slack.URL
	// Its own cache, and with it its own memory of held packages.
	e.vars["PINBOT_CACHE_DIR"] = t.TempDir()
	runHooks.clock = e.clock
	runHooks.sleep = e.sleep
	runHooks.adjust = nil
	t.Cleanup(func() { runHooks.clock, runHooks.sleep, runHooks.adjust = nil, nil, nil })
	return e
}

func (e *runTestEnv) sleep(ctx context.Context, d time.Duration) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.waits = append(e.waits, d)
	return ctx.Err()
}

// pinbot runs pinbot under ctx with -v (every log line) and records output.
func (e *runTestEnv) pinbot(ctx context.Context, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	f := newFactory(&stdout, &stderr, func(k string) string { return e.vars[k] })
	if e.now != nil {
		f.Now = e.now
	}
	f.HTTPClient = func() *http.Client {
		p := web.DefaultPolicy
		p.BaseDelay, p.MaxDelay, p.Timeout = time.Millisecond, 5*time.Millisecond, 5*time.Second
		tr := web.NewTransport(e.router(), p, web.UserAgent("test"), f.Log)
		tr.Sleep = e.sleep
		return &http.Client{Transport: tr}
	}
	if e.setup != nil {
		e.setup(f)
	}
	code := run(ctx, append([]string{"-v"}, args...), f)
	e.outputs = append(e.outputs, stdout.String(), stderr.String())
	return code, stdout.String(), stderr.String()
}

func (e *runTestEnv) run(args ...string) (int, string, string) {
	return e.pinbot(context.Background(), append([]string{"run", "--dir", e.dir}, args...)...)
}

// want is the pyproject.toml the pull request should carry.
func (e *runTestEnv) want(cap string) map[string]string {
	files := maps(e.base)
	files["pyproject.toml"] = strings.ReplaceAll(e.base["pyproject.toml"], `"numba>=0.58,<=0.66.0"`, `"numba>=0.58,<=`+cap+`"`)
	files["sub/pyproject.toml"] = strings.Replace(e.base["sub/pyproject.toml"], `"numba>=0.57"`, `"numba>=0.57,<=`+cap+`"`, 1)
	return files
}

func maps(m map[string]string) map[string]string {
	c := map[string]string{}
	for k, v := range m {
		c[k] = v
	}
	return c
}

// checkState asserts the repository holds exactly one open pull request from
// the branch, whose tree is the base plus the rewritten files at cap, and that
// the base branch is untouched.
func (e *runTestEnv) checkState(t *testing.T, cap string) {
	t.Helper()
	if diff := cmp.Diff(e.base, e.gh.Files(testRepo, "main")); diff != "" {
		t.Errorf("base branch changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(e.want(cap), e.gh.Files(testRepo, branch)); diff != "" {
		t.Errorf("branch tree (-want +got):\n%s", diff)
	}
	var open []fakes.PullInfo
	for _, p := range e.gh.Pulls(testRepo) {
		if p.State == "open" {
			open = append(open, p)
		}
	}
	if len(open) != 1 {
		t.Fatalf("%d open pull requests, want 1: %+v", len(open), e.gh.Pulls(testRepo))
	}
	p := open[0]
	if p.Head != branch || p.Base != "main" || p.Title != "Bump numba cap to "+cap || !strings.Contains(p.Body, "target="+cap) {
		t.Errorf("pull request %+v", p)
	}
	slices.Sort(p.Labels)
	slices.Sort(p.Reviewers)
	if !slices.Equal(p.Labels, []string{"dependencies", "numba"}) || !slices.Equal(p.Assignees, []string{"ricardoV94"}) ||
		!slices.Equal(p.Reviewers, []string{"pymc-devs/core", "ricardoV94"}) {
		t.Errorf("labels %v, assignees %v, reviewers %v", p.Labels, p.Assignees, p.Reviewers)
	}
	msg, parents, author := e.gh.Commit(testRepo, e.gh.Branch(testRepo, branch))
	if len(parents) != 1 || parents[0] != e.gh.Branch(testRepo, "main") || author != "pinbot" ||
		!strings.Contains(msg, "pyproject.toml:53: numba>=0.58,<=0.66.0 -> numba>=0.58,<="+cap) {
		t.Errorf("commit by %s, parents %v, message:\n%s", author, parents, msg)
	}
}

// writes returns the content-creating requests to the fake GitHub.
func (e *runTestEnv) writes() []string { return e.writesSince(0) }

// writesSince returns the content-creating requests to the fake GitHub from
// the from-th on, a GraphQL request with its mutation's name.
func (e *runTestEnv) writesSince(from int) []string {
	var w []string
	for _, r := range e.gh.Requests()[from:] {
		if r.Method != http.MethodGet {
			w = append(w, r.Method+" "+r.Path)
		}
		for _, m := range []string{"convertPullRequestToDraft", "markPullRequestReadyForReview"} {
			if r.Path == "/graphql" && strings.Contains(r.Body, m) {
				w[len(w)-1] += " " + m
			}
		}
	}
	return w
}

// checkSecrets asserts that the token, the webhook URL and the extra
// secrets, given through the environment, appear nowhere: not in requests,
// logs, reports, Actions files, nor in ::add-mask:: lines (the runner masks
// what it was given itself).
func (e *runTestEnv) checkSecrets(t *testing.T, extra ...string) {
	t.Helper()
	secrets := append([]string{testToken, e.slack.URL, fakes.SlackWebhookPath}, extra...)
	for _, s := range e.seen() {
		for _, line := range strings.Split(s, "\n") {
			for _, secret := range secrets {
				if strings.Contains(line, secret) {
					t.Errorf("secret %.12s… leaked in: %.300s", secret, line)
				}
			}
		}
	}
}

// checkMinted asserts that credentials pinbot made itself (an App's JWT, an
// installation token) appear in ::add-mask:: lines only.
func (e *runTestEnv) checkMinted(t *testing.T, minted ...string) {
	t.Helper()
	for _, s := range e.seen() {
		for _, line := range strings.Split(s, "\n") {
			if strings.HasPrefix(line, "::add-mask::") {
				continue
			}
			for _, secret := range minted {
				if strings.Contains(line, secret) {
					t.Errorf("minted secret %.12s… leaked in: %.300s", secret, line)
				}
			}
		}
	}
}

// seen returns all that pinbot showed anyone: its output, the requests'
// paths, queries, bodies and headers, the Slack messages, the pull
// requests and the Actions files.
func (e *runTestEnv) seen() []string {
	var all []string
	all = append(all, e.outputs...)
	for _, r := range e.gh.Requests() {
		all = append(all, r.Path, r.Query, r.Body, fmt.Sprint(r.Header))
	}
	all = append(all, e.slack.Bodies()...)
	for _, p := range e.gh.Pulls(testRepo) {
		all = append(all, p.Body, p.Title)
	}
	for _, name := range []string{"summary.md", "output.txt"} {
		if b, err := os.ReadFile(filepath.Join(e.dir, "..", name)); err == nil {
			all = append(all, string(b))
		}
	}
	return all
}

func TestRunLifecycle(t *testing.T) {
	e := newRunEnv(t, testConfig)

	// First run: one pull request with every file, labels, reviewers, assignees.
	code, out, stderr := e.run()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	e.checkState(t, "0.67.0")
	if !strings.Contains(out, "numba: opened #1 https://github.com/pymc-devs/pytensor/pull/1 (pinbot/main/numba)") {
		t.Errorf("stdout:\n%s", out)
	}
	body := e.gh.Pulls(testRepo)[0].Body
	for _, want := range []string{"`pyproject.toml:53`", "`numba>=0.58,<=0.67.0`", "`sub/pyproject.toml:3`",
		"[numba 0.67.0](" + e.pypi.URL + "/project/numba/0.67.0/)", // PINBOT_PYPI_URL: a mirror
		"pinbot check --package numba", "No probe or symbol scan"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "GITHUB_TOKEN") {
		t.Errorf("a PAT outside Actions got the GITHUB_TOKEN note")
	}
	msgs := e.slack.Messages()
	if len(msgs) != 1 || !strings.Contains(string(msgs[0]), "numba: opened #1 for 0.67.0") || !strings.Contains(string(msgs[0]), "https://github.com/pymc-devs/pytensor/pull/1") {
		t.Errorf("slack messages %s", msgs)
	}
	if ws := e.writes(); len(ws) != 7 { // tree, commit, ref, pull, labels, assignees, reviewers
		t.Errorf("writes %v", ws)
	}
	if e.read("pyproject.toml") != e.base["pyproject.toml"] {
		t.Error("run wrote the working tree")
	}

	// Second run: nothing to write, nothing to say.
	before := len(e.gh.Requests())
	code, _, stderr = e.run()
	if code != 0 {
		t.Fatalf("second run: exit %d\n%s", code, stderr)
	}
	for _, r := range e.gh.Requests()[before:] {
		if r.Method != http.MethodGet {
			t.Errorf("second run wrote: %s %s", r.Method, r.Path)
		}
	}
	if len(e.slack.Messages()) != 1 {
		t.Errorf("second run sent a message")
	}
	e.checkState(t, "0.67.0")

	// A reviewer reviewed (and dropped off the requested list): not asked again.
	e.gh.Review(testRepo, 1, "ricardoV94")
	before = len(e.gh.Requests())
	e.run()
	for _, r := range e.gh.Requests()[before:] {
		if r.Method != http.MethodGet {
			t.Errorf("run after review wrote: %s %s", r.Method, r.Path)
		}
	}

	// A new release moves the same branch and rewrites the same pull request.
	e.pypi.Add("numba", append(fakes.NumbaReleases(), fakes.Release{Version: "0.68.0"})...)
	code, out, stderr = e.run()
	if code != 0 || !strings.Contains(out, "numba: updated #1") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if n := len(e.gh.Pulls(testRepo)); n != 1 {
		t.Errorf("%d pull requests after a new release, want 1", n)
	}
	e.gh.Review(testRepo, 1, "nobody") // keep the reviewer check simple below
	if f := e.gh.Files(testRepo, branch); f["pyproject.toml"] != e.want("0.68.0")["pyproject.toml"] {
		t.Errorf("branch not moved to 0.68.0")
	}
	if p := e.gh.Pulls(testRepo)[0]; p.Title != "Bump numba cap to 0.68.0" || !strings.Contains(p.Body, "target=0.68.0") {
		t.Errorf("pull request not rewritten: %+v", p)
	}
	if msgs := e.slack.Messages(); len(msgs) != 2 || !strings.Contains(string(msgs[1]), "numba: updated #1 for 0.68.0") {
		t.Errorf("slack messages %s", msgs)
	}

	// Someone pushes to the branch: pinbot comments once and does not clobber.
	e.gh.Push(testRepo, branch, "alice", "Also bump llvmlite", map[string]string{"README.md": "# pytensor\nnote\n"})
	head := e.gh.Branch(testRepo, branch)
	e.pypi.Add("numba", append(fakes.NumbaReleases(), fakes.Release{Version: "0.68.0"}, fakes.Release{Version: "0.69.0"})...)
	for i := range 2 {
		code, out, stderr = e.run()
		if code != 0 || !strings.Contains(out, "numba: conflict #1") {
			t.Fatalf("run %d: exit %d\n%s\n%s", i, code, out, stderr)
		}
	}
	if e.gh.Branch(testRepo, branch) != head {
		t.Errorf("pinbot moved a branch with someone else's commit")
	}
	if c := e.gh.Comments(testRepo, 1); len(c) != 1 || !strings.Contains(c[0], "a commit pinbot did not make") || !strings.Contains(c[0], "alice") {
		t.Errorf("comments %q", c)
	}
	if p := e.gh.Pulls(testRepo)[0]; p.Title != "Bump numba cap to 0.68.0" {
		t.Errorf("title rewritten despite the conflict: %q", p.Title)
	}
	e.checkSecrets(t)
}

func TestRunClosedAndMerged(t *testing.T) {
	e := newRunEnv(t, testConfig)
	if code, _, stderr := e.run(); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// Closed without merging: respected, for the same target.
	e.gh.ClosePull(testRepo, 1)
	before := len(e.gh.Requests())
	code, out, _ := e.run()
	if code != 0 || len(e.gh.Pulls(testRepo)) != 1 || !strings.Contains(out, "closed-respected") {
		t.Errorf("closed PR reopened: exit %d\n%s", code, out)
	}
	for _, r := range e.gh.Requests()[before:] {
		if r.Method != http.MethodGet {
			t.Errorf("wrote after a close: %s %s", r.Method, r.Path)
		}
	}
	// ... unless configured.
	e.file(".pinbot.yml", []byte(testConfig+"  \npull-requests-x: 1\n")) // a config error must not slip through
	if code, _, stderr := e.run(); code != 2 {
		t.Errorf("bad config: exit %d\n%s", code, stderr)
	}
	e.file(".pinbot.yml", []byte(strings.Replace(testConfig, "pull-requests:\n", "pull-requests:\n  reopen-closed: true\n", 1)))
	code, out, stderr := e.run()
	if code != 0 || len(e.gh.Pulls(testRepo)) != 2 || !strings.Contains(out, "opened #2") {
		t.Fatalf("reopen-closed: exit %d\n%s\n%s", code, out, stderr)
	}
	// Merged: the checkout now has the caps; nothing happens.
	e.gh.MergePull(testRepo, 2)
	for name, data := range e.gh.Files(testRepo, "main") {
		if name != ".pinbot.yml" {
			e.file(name, []byte(data))
		}
	}
	before = len(e.gh.Requests())
	code, out, stderr = e.run()
	if code != 0 || len(e.gh.Requests()) != before+1 { // GET repo for the default branch; that is all
		t.Errorf("after merge: exit %d, %d requests\n%s\n%s", code, len(e.gh.Requests())-before, out, stderr)
	}
	e.checkSecrets(t)
}

// TestRunKilled kills the run after each API call in turn and checks that the
// next run completes it: one pull request with the right content.
func TestRunKilled(t *testing.T) {
	probe := newRunEnv(t, testConfig)
	if code, _, stderr := probe.run(); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	total := len(probe.gh.Requests())
	for n := 1; n <= total; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			e := newRunEnv(t, testConfig)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			e.gh.KillAfter(n, cancel)
			code, _, _ := e.pinbot(ctx, "run", "--dir", e.dir)
			if code == 0 && n < total {
				t.Errorf("killed after call %d of %d: exit 0", n, total)
			}
			e.gh.KillAfter(0, nil)
			code, out, stderr := e.run()
			if code != 0 {
				t.Fatalf("rerun: exit %d\n%s\n%s", code, out, stderr)
			}
			e.checkState(t, "0.67.0")
			if c := e.gh.Comments(testRepo, 1); len(c) != 0 {
				t.Errorf("comments %q", c)
			}
		})
	}
}

func TestRunRateLimits(t *testing.T) {
	for _, status := range []int{403, 429} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			e := newRunEnv(t, testConfig)
			e.gh.Fail("POST", `/pulls$`, fakes.SecondaryLimit(status))
			e.gh.Fail("POST", `/git/trees$`, fakes.SecondaryLimit(status))
			e.gh.Fail("GET", `/git/ref/`, fakes.SecondaryLimit(status))
			code, out, stderr := e.run()
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			e.checkState(t, "0.67.0")
			long := 0
			for _, w := range e.waits {
				if w >= time.Minute {
					long++
				}
			}
			if long != 3 {
				t.Errorf("waits %v: want three of Retry-After's 60s", e.waits)
			}
			if !strings.Contains(stderr, "retrying request") {
				t.Errorf("retries not logged:\n%s", stderr)
			}
			// Pacing: content-creating requests at most 80 a minute.
			if len(e.clock.sleeps) == 0 {
				t.Errorf("no pacing between content-creating requests")
			}
			e.checkSecrets(t)
		})
	}
}

func TestRunRefExists(t *testing.T) {
	e := newRunEnv(t, testConfig)
	// A run killed right after creating the branch...
	ctx, cancel := context.WithCancel(context.Background())
	probe := newRunEnv(t, testConfig)
	probe.run()
	refCall := slices.IndexFunc(probe.gh.Requests(), func(r fakes.GitHubRequest) bool { return r.Method == "POST" && strings.HasSuffix(r.Path, "/git/refs") })
	e.gh.KillAfter(refCall+1, cancel)
	e.pinbot(ctx, "run", "--dir", e.dir)
	cancel()
	e.gh.KillAfter(0, nil)
	if e.gh.Branch(testRepo, branch) == "" {
		t.Fatal("the branch was not created")
	}
	// ...then a stale read says the branch is not there: creating it gets 422.
	e.gh.Fail("GET", `/git/ref/heads/pinbot/`, fakes.Fault{Status: 404, Body: `{"message":"Not Found","documentation_url":"https://docs.github.com/rest/git/refs#get-a-reference","status":"404"}`})
	code, out, stderr := e.run()
	if code != 0 || !strings.Contains(stderr, "branch exists already") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	statuses := map[int]int{}
	for _, r := range e.gh.Requests() {
		statuses[r.Status]++
	}
	if statuses[422] != 1 {
		t.Errorf("statuses %v: want one 422", statuses)
	}
	e.checkState(t, "0.67.0")
}

func TestRunSlack(t *testing.T) {
	t.Run("429 then ok", func(t *testing.T) {
		e := newRunEnv(t, testConfig)
		e.slack.Fail(fakes.Fault{Status: 429, Header: map[string]string{"Retry-After": "3"}, Body: "rate_limited"})
		code, out, stderr := e.run()
		if code != 0 || len(e.slack.Messages()) != 1 || !slices.Contains(e.waits, 3*time.Second) {
			t.Errorf("exit %d, %d messages, waits %v\n%s\n%s", code, len(e.slack.Messages()), e.waits, out, stderr)
		}
		e.checkSecrets(t)
	})
	t.Run("404 channel_not_found", func(t *testing.T) {
		e := newRunEnv(t, testConfig)
		e.slack.Fail(fakes.Fault{Status: 404, Body: "channel_not_found"})
		code, out, stderr := e.run()
		if code != 1 || !strings.Contains(stderr, "slack webhook: 404 channel_not_found") {
			t.Errorf("exit %d\n%s\n%s", code, out, stderr)
		}
		e.checkState(t, "0.67.0") // the pull request was still made
		if e.slack.Calls() != 1 {
			t.Errorf("%d webhook calls: a 404 must not be retried", e.slack.Calls())
		}
		e.checkSecrets(t)
	})
	t.Run("notify filter", func(t *testing.T) {
		e := newRunEnv(t, testConfig+"notify:\n  on: [failure, error]\n")
		if code, _, stderr := e.run(); code != 0 || e.slack.Calls() != 0 {
			t.Errorf("exit %d, %d webhook calls\n%s", code, e.slack.Calls(), stderr)
		}
	})
}

// blockNumba marks numba blocked with a failed probe, as the checks will.
func blockNumba(r *report.Report) {
	for i := range r.Packages {
		if r.Packages[i].Name == "numba" {
			r.Packages[i].Status = "blocked"
			r.Packages[i].Checks = []report.Check{{Kind: "probe", Name: "unique-ids", OK: false, Baseline: "0.66.0: pass",
				Candidate: "0.68.0: fail", Detail: "FunctionIdentity._unique_ids is gone"}}
		}
	}
}

func TestRunBlocked(t *testing.T) {
	e := newRunEnv(t, testConfig)
	runHooks.adjust = blockNumba
	code, out, stderr := e.run()
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, stderr)
	}
	p := e.gh.Pulls(testRepo)
	if len(p) != 1 || !p[0].Draft || p[0].Title != "Bump numba cap to 0.67.0 (a check failed)" ||
		!strings.Contains(p[0].Body, "FunctionIdentity.\\_unique\\_ids is gone") && !strings.Contains(p[0].Body, "FunctionIdentity._unique_ids is gone") {
		t.Fatalf("pull requests %+v", p)
	}
	msgs := e.slack.Messages()
	if len(msgs) != 1 || !strings.Contains(string(msgs[0]), "numba: a check failed") || !strings.Contains(string(msgs[0]), "opened draft #1") {
		t.Errorf("slack %s", msgs)
	}

	t.Run("alert-only", func(t *testing.T) {
		e := newRunEnv(t, strings.Replace(testConfig, "pull-requests:\n", "pull-requests:\n  on-failure: alert-only\n", 1))
		runHooks.adjust = blockNumba
		code, out, stderr := e.run()
		if code != 3 || len(e.gh.Pulls(testRepo)) != 0 || len(e.writes()) != 0 {
			t.Fatalf("exit %d, %d PRs\n%s\n%s", code, len(e.gh.Pulls(testRepo)), out, stderr)
		}
		if msgs := e.slack.Messages(); len(msgs) != 1 || !strings.Contains(string(msgs[0]), "on-failure: alert-only") {
			t.Errorf("slack %s", msgs)
		}
	})
}

func TestRunDryRun(t *testing.T) {
	e := newRunEnv(t, testConfig)
	delete(e.vars, "GITHUB_TOKEN")
	code, out, stderr := e.run("--dry-run")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"=== pull request (dry run): Bump numba cap to 0.67.0", "branch: pinbot/main/numba -> main",
		"file: pyproject.toml", "file: sub/pyproject.toml", "--- body", "#### Reproduce locally", "=== slack message (dry run)", "would open or update"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}
	if n := len(e.gh.Requests()); n != 0 || e.slack.Calls() != 0 {
		t.Errorf("dry run made %d GitHub and %d Slack calls", n, e.slack.Calls())
	}
	e.checkSecrets(t)
}

func TestRunActions(t *testing.T) {
	e := newRunEnv(t, testConfig)
	summary, output := filepath.Join(e.dir, "..", "summary.md"), filepath.Join(e.dir, "..", "output.txt")
	e.vars["GITHUB_ACTIONS"] = "true"
	e.vars["GITHUB_STEP_SUMMARY"] = summary
	e.vars["GITHUB_OUTPUT"] = output
	e.vars["GITHUB_TOKEN"] = "ghs_" + testToken[4:] // shaped like the workflow's token
	e.gh.AddToken(e.vars["GITHUB_TOKEN"], "github-actions[bot]")
	runHooks.adjust = blockNumba
	code, out, stderr := e.run()
	if code != 3 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	checkStdout(t, "text", out)
	if !strings.Contains(stderr, "::warning file=pyproject.toml,line=53,title=pinbot%3A a check failed for numba::") {
		t.Errorf("no annotation:\n%s", stderr)
	}
	s, _ := os.ReadFile(summary)
	if !strings.Contains(string(s), "### numba: blocked") || !strings.Contains(string(s), "Pull request: [#1 (draft)](https://github.com/pymc-devs/pytensor/pull/1)\n") {
		t.Errorf("step summary:\n%s", s)
	}
	o, _ := os.ReadFile(output)
	if want := "pull-requests=[{\"package\":\"numba\",\"action\":\"opened\",\"number\":1,\"url\":\"https://github.com/pymc-devs/pytensor/pull/1\"}]\nfailures=0\nblocked=1\n"; string(o) != want {
		t.Errorf("outputs:\n%s\nwant\n%s", o, want)
	}
	if p := e.gh.Pulls(testRepo); !strings.Contains(p[0].Body, "made with the workflow's `GITHUB_TOKEN`") {
		t.Errorf("no GITHUB_TOKEN note in the body")
	}
	e.checkSecrets(t, e.vars["GITHUB_TOKEN"])
}

// appEnv is a run environment where pinbot authenticates as a GitHub App
// in Actions; it returns the key's lines worth looking for.
func appEnv(t *testing.T) (*runTestEnv, []string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	e := newRunEnv(t, testConfig+"  app: {id: 4242}\n")
	e.gh.AddApp(4242, &key.PublicKey, 777, testRepo)
	delete(e.vars, "GITHUB_TOKEN")
	e.vars["PINBOT_APP_PRIVATE_KEY"] = pemKey
	e.actionsVars()
	keyLines := strings.Split(strings.TrimSpace(pemKey), "\n")
	return e, []string{keyLines[1], keyLines[len(keyLines)/2]}
}

func TestRunApp(t *testing.T) {
	e, keyLines := appEnv(t)
	code, out, stderr := e.run()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "::add-mask::ghs_fakeInstallation777Token1\n") {
		t.Errorf("the installation token was not masked:\n%.500s", stderr)
	}
	if p := e.gh.Pulls(testRepo); len(p) != 1 || strings.Contains(p[0].Body, "GITHUB_TOKEN") {
		t.Errorf("pulls %+v", p)
	}
	e.checkSecrets(t, keyLines...)
	e.checkMinted(t, "ghs_fakeInstallation777Token1")
}

func TestRunUsage(t *testing.T) {
	e := newRunEnv(t, testConfig)
	delete(e.vars, "GITHUB_TOKEN")
	if code, _, stderr := e.run(); code != 2 || !strings.Contains(stderr, "no GitHub token: set GITHUB_TOKEN") {
		t.Errorf("no token: exit %d\n%s", code, stderr)
	}
	e.vars["GITHUB_TOKEN"] = testToken
	delete(e.vars, "GITHUB_REPOSITORY")
	if code, _, stderr := e.run(); code != 2 || !strings.Contains(stderr, "no repository") {
		t.Errorf("no repo: exit %d\n%s", code, stderr)
	}
	for _, args := range [][]string{{"--repo", "nope"}, {"--workflow-token", "maybe"}, {"--format", "xml"}} {
		if code, _, stderr := e.run(args...); code != 2 {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
		}
	}
	e.vars["GITHUB_TOKEN"] = "ghp_wrong"
	if code, _, stderr := e.run("--repo", testRepo); code != 1 || !strings.Contains(stderr, "401 Bad credentials") {
		t.Errorf("bad token: exit %d\n%s", code, stderr)
	}
}

func TestRunStaleCheckoutJSON(t *testing.T) {
	e := newRunEnv(t, testConfig)
	// The checkout is not the base branch: refuse, report, exit 1.
	e.file("sub/pyproject.toml", []byte("[project]\nname = \"sub\"\ndependencies = [\"numba>=0.56\"]\n"))
	code, out, stderr := e.run("--format", "json")
	if code != 1 || len(e.writes()) != 0 {
		t.Fatalf("exit %d, writes %v\n%s\n%s", code, e.writes(), out, stderr)
	}
	for _, want := range []string{`"schema": 1`, `"report": {`, `"pull_requests": []`, `"notified": true`,
		"numba: github: sub/pyproject.toml: the checkout differs from the base branch main"} {
		if !strings.Contains(out, want) {
			t.Errorf("json lacks %q:\n%s", want, out)
		}
	}
	if msgs := e.slack.Messages(); len(msgs) != 1 || !strings.Contains(string(msgs[0]), "numba: pull request failed") {
		t.Errorf("slack %s", msgs)
	}
	e.checkSecrets(t)
}

// blockAll marks every package whose caps move blocked, with a failed probe.
func blockAll(r *report.Report) {
	for i := range r.Packages {
		if r.Packages[i].Status == "bump" {
			r.Packages[i].Status = "blocked"
			r.Packages[i].Checks = []report.Check{{Kind: "probe", Name: "smoke", OK: false, Baseline: "pass", Candidate: "fail", Detail: "ImportError"}}
		}
	}
}

// runSteps runs pinbot once per adjust (nil: the checks pass), checking each
// exit code and the writes of the last run.
func (e *runTestEnv) runSteps(t *testing.T, steps ...func(*report.Report)) (out string, writes []string) {
	t.Helper()
	for _, adjust := range steps {
		runHooks.adjust = adjust
		from := len(e.gh.Requests())
		code, stdout, stderr := e.run()
		if want := map[bool]int{true: 3, false: 0}[adjust != nil]; code != want {
			t.Fatalf("exit %d, want %d\n%s\n%s", code, want, stdout, stderr)
		}
		out, writes = stdout, e.writesSince(from)
	}
	return out, writes
}
