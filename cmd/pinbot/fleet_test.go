package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pinbot-dev/pinbot/fleet"
	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// addFleet adds the organisation lab with n repositories to the fake
// GitHub: even ones carry the topic ml, every fifth is archived, every
// seventh a fork. It returns the names a plan with --topic ml keeps.
func addFleet(e *runTestEnv, n int) []string {
	var want []string
	for i := range n {
		full := fmt.Sprintf("lab/svc%03d", i)
		e.gh.AddRepo(full, "main", map[string]string{"README.md": "hi\n"})
		m := fakes.RepoMeta{Archived: i%5 == 0, Fork: i%7 == 0}
		if i%2 == 0 {
			m.Topics = []string{"ml", "python"}
		}
		e.gh.SetRepoMeta(full, m)
		if i%2 == 0 && !m.Archived && !m.Fork {
			want = append(want, full)
		}
	}
	return want
}

// planOutput parses fleet plan's stdout.
func planOutput(t *testing.T, out string) fleet.Matrix {
	t.Helper()
	var m fleet.Matrix
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("stdout is not a matrix: %v\n%s", err, out)
	}
	return m
}

// TestFleetPlan lists an organisation of 250 repositories (three pages)
// after one request for the owner, keeps the unarchived non-forks with the
// topic, spreads them evenly over --max-jobs batches, and writes the
// matrix and the count to GITHUB_OUTPUT.
func TestFleetPlan(t *testing.T) {
	e := newRunEnv(t, testConfig)
	want := addFleet(e, 250)
	output := filepath.Join(t.TempDir(), "output")
	e.vars["GITHUB_OUTPUT"] = output
	code, out, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab", "--topic", "ml", "--max-jobs", "16")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	m := planOutput(t, out)
	var got []string
	sizes := map[int]bool{}
	for i, j := range m.Include {
		if j.Batch != i+1 {
			t.Errorf("batch %d numbered %d", i+1, j.Batch)
		}
		rs := strings.Fields(j.Repositories)
		got = append(got, rs...)
		sizes[len(rs)] = true
		var short []string
		for _, r := range rs {
			short = append(short, strings.TrimPrefix(r, "lab/"))
		}
		if j.Names != strings.Join(short, ",") {
			t.Errorf("batch %d names %q", j.Batch, j.Names)
		}
	}
	if !slices.Equal(got, want) || len(m.Include) != 16 || len(sizes) > 2 {
		t.Errorf("%d batches of sizes %v: %d repositories, want %d", len(m.Include), sizes, len(got), len(want))
	}
	var paths []string
	for _, r := range e.gh.Requests() {
		paths = append(paths, r.Method+" "+r.Path)
	}
	if want := []string{"GET /users/lab", "GET /orgs/lab/repos", "GET /orgs/lab/repos", "GET /orgs/lab/repos"}; !slices.Equal(paths, want) {
		t.Errorf("requests %v, want %v", paths, want)
	}
	o, _ := os.ReadFile(output)
	if !strings.Contains(string(o), "matrix="+strings.TrimSpace(out)+"\n") || !strings.Contains(string(o), fmt.Sprintf("count=%d\n", len(want))) ||
		!strings.Contains(string(o), "cache-key=pinbot-fleet-none\n") {
		t.Errorf("outputs:\n%s", o)
	}
}

// TestFleetPlanMaxJobs: more repositories than --max-jobs share the jobs;
// --forks keeps forks, --exclude drops by name.
func TestFleetPlanMaxJobs(t *testing.T) {
	e := newRunEnv(t, testConfig)
	addFleet(e, 10)
	code, out, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab", "--max-jobs", "3", "--forks", "--exclude", "svc00[12]")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// 10 minus svc000 and svc005 (archived) and the two excluded: 6 in 3 batches.
	m := planOutput(t, out)
	want := []string{"lab/svc003 lab/svc004", "lab/svc006 lab/svc007", "lab/svc008 lab/svc009"}
	var got []string
	for _, j := range m.Include {
		got = append(got, j.Repositories)
	}
	if !slices.Equal(got, want) {
		t.Errorf("batches %q, want %q", got, want)
	}
}

// TestFleetPlanErrors: an owner that does not exist is exit 2 naming it; so
// are bad flags, before any request.
func TestFleetPlanErrors(t *testing.T) {
	e := newRunEnv(t, testConfig)
	addFleet(e, 3)
	code, _, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "nobody")
	if code != exitUsage || !strings.Contains(stderr, "nobody: no such organisation or user") {
		t.Errorf("missing owner: exit %d\n%s", code, stderr)
	}
	before := len(e.gh.Requests())
	for _, args := range [][]string{
		{"--owner", "lab", "--max-jobs", "257"},
		{"--owner", "lab/x"},
		{"--owner", "lab", "--include", "[a-"},
		{"--owner", "lab", "--defaults", filepath.Join(t.TempDir(), "missing.yml")},
		{},
	} {
		if code, _, stderr := e.pinbot(t.Context(), append([]string{"fleet", "plan"}, args...)...); code != exitUsage {
			t.Errorf("%q: exit %d\n%s", args, code, stderr)
		}
	}
	if len(e.gh.Requests()) != before {
		t.Errorf("bad flags made requests")
	}
	delete(e.vars, "GITHUB_TOKEN")
	if code, _, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab"); code != exitUsage || !strings.Contains(stderr, "no GitHub token") {
		t.Errorf("no token: exit %d\n%s", code, stderr)
	}
}

// TestFleetPlanApp lists the App installation's repositories, private ones
// included, with tokens minted for the owner's installation.
func TestFleetPlanApp(t *testing.T) {
	e := newRunEnv(t, testConfig)
	addFleet(e, 20)
	e.gh.SetRepoMeta("lab/svc002", fakes.RepoMeta{Topics: []string{"ml"}, Private: true})
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	e.gh.AddApp(31, &key.PublicKey, 3100, "lab/svc001")
	e.vars["PINBOT_APP_PRIVATE_KEY"] = string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	delete(e.vars, "GITHUB_TOKEN")
	code, out, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab", "--app-id", "31", "--topic", "ml")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	m := planOutput(t, out)
	if len(m.Include) != 7 || m.Include[0].Repositories != "lab/svc002" {
		t.Errorf("matrix %s", out)
	}
	var paths []string
	for _, r := range e.gh.Requests() {
		paths = append(paths, r.Method+" "+r.Path)
	}
	if want := []string{"GET /orgs/lab/installation", "POST /app/installations/3100/access_tokens", "GET /installation/repositories"}; !slices.Equal(paths, want) {
		t.Errorf("requests %v", paths)
	}
	if code, _, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "elsewhere", "--app-id", "31"); code != exitUsage || !strings.Contains(stderr, "elsewhere") {
		t.Errorf("no installation: exit %d\n%s", code, stderr)
	}
}

// TestFleetPlanSecondaryLimit: a 403 secondary limit with Retry-After on the
// listing is waited out and the plan completes; one asking for longer than
// pinbot waits fails with an error that says so.
func TestFleetPlanSecondaryLimit(t *testing.T) {
	e := newRunEnv(t, testConfig)
	want := addFleet(e, 150)
	e.gh.Fail("GET", `^/orgs/lab/repos$`, fakes.SecondaryLimit(403))
	code, out, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab", "--topic", "ml")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if n := len(strings.Fields(strings.Join(func() []string {
		var s []string
		for _, j := range planOutput(t, out).Include {
			s = append(s, j.Repositories)
		}
		return s
	}(), " "))); n != len(want) {
		t.Errorf("%d repositories, want %d", n, len(want))
	}
	if !slices.Contains(e.waits, 60*time.Second) || !strings.Contains(stderr, "retrying request") {
		t.Errorf("waits %v\n%s", e.waits, stderr)
	}
	long := fakes.SecondaryLimit(403)
	long.Header["Retry-After"] = "3600"
	e.gh.Fail("GET", `^/orgs/lab/repos$`, long)
	code, _, stderr = e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab")
	if code != exitFailure || !strings.Contains(stderr, "secondary rate limit (GitHub asks to wait 1h0m0s); pinbot stopped waiting, run again later") {
		t.Errorf("long wait: exit %d\n%s", code, stderr)
	}
}

// primaryLimit is GitHub's answer once no requests remain (the primary rate
// limit): status with x-ratelimit-remaining 0 and the reset in epoch seconds.
func primaryLimit(status int, reset time.Time) fakes.Fault {
	return fakes.Fault{Status: status, Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Used": "5000",
		"X-RateLimit-Reset": fmt.Sprint(reset.Unix())},
		Body: `{"message":"API rate limit exceeded for user ID 1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit"}`}
}

// TestFleetPlanRateLimitReset: the listing meets the primary rate limit (a
// 403 or 429 with no requests remaining): pinbot waits until
// x-ratelimit-reset, a second past it, and the plan completes. A reset
// further away than pinbot waits (2 minutes) fails the plan at once, with an
// error that says until when.
func TestFleetPlanRateLimitReset(t *testing.T) {
	for _, status := range []int{http.StatusForbidden, http.StatusTooManyRequests} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			e := newRunEnv(t, testConfig)
			want := addFleet(e, 150)
			e.gh.Fail("GET", `^/orgs/lab/repos$`, primaryLimit(status, time.Now().Add(45*time.Second)))
			code, out, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab", "--topic", "ml")
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			var got []string
			for _, j := range planOutput(t, out).Include {
				got = append(got, strings.Fields(j.Repositories)...)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%d repositories, want %d", len(got), len(want))
			}
			// The reset is whole seconds: 44 to 45 s away, and a second more.
			if len(e.waits) != 1 || e.waits[0] < 45*time.Second || e.waits[0] > 46*time.Second || !strings.Contains(stderr, "retrying request") {
				t.Errorf("waits %v, want one of 45 to 46 s\n%s", e.waits, stderr)
			}

			e.waits = nil
			reset := time.Now().Add(time.Hour)
			e.gh.Fail("GET", `^/orgs/lab/repos$`, primaryLimit(status, reset))
			code, _, stderr = e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab")
			msg := "rate limit exhausted until " + reset.UTC().Format(time.RFC3339) + "; pinbot stopped waiting, run again later"
			if strings.Contains(stderr, "reset -") || status == http.StatusForbidden && !regexp.MustCompile(`\[rate reset in (59m\d\d|60m00)s\]`).MatchString(stderr) {
				t.Errorf("the error counts down to the reset wrongly:\n%s", stderr)
			}
			if code != exitFailure || !strings.Contains(stderr, msg) || !strings.Contains(stderr, "longer than pinbot waits (2m0s)") {
				t.Errorf("reset in an hour: exit %d, want 1 and %q\n%s", code, msg, stderr)
			}
			if len(e.waits) != 0 {
				t.Errorf("waited %v for a reset in an hour", e.waits)
			}
		})
	}
}

const fleetDefaultsYAML = `packages:
  numba: {}
  llvmlite: {}
pull-requests:
  labels: [dependencies]
`

// TestFleetDefaults: check --defaults guards a repository with its own
// configuration merged over the fleet's, and one with none with the
// defaults alone; the report names its repository.
func TestFleetDefaults(t *testing.T) {
	e := newEnv(t)
	defaults := filepath.Join(t.TempDir(), "fleet.yml")
	os.WriteFile(defaults, []byte(fleetDefaultsYAML), 0o644)
	e.file("pyproject.toml", []byte("[project]\nname = \"a\"\ndependencies = [\"numba>=0.58,<=0.66.0\", \"llvmlite<=0.48.0\"]\n"))
	type rep struct {
		Repository string
		Packages   []struct {
			Name, Status string
			Pins         []struct{ After string }
		}
	}
	check := func(args ...string) rep {
		t.Helper()
		code, out, stderr := e.run(append([]string{"check", "--dir", e.dir, "--format", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d\n%s", args, code, stderr)
		}
		var r rep
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	afters := func(r rep) map[string]string {
		m := map[string]string{}
		for _, p := range r.Packages {
			m[p.Name] = p.Pins[0].After
		}
		return m
	}
	// No configuration of its own: the defaults alone.
	e.vars["GITHUB_REPOSITORY"] = "lab/from-env"
	r := check("--defaults", defaults)
	if got := afters(r); got["numba"] != "numba>=0.58,<=0.67.0" || got["llvmlite"] != "llvmlite<=0.49.0" || r.Repository != "lab/from-env" {
		t.Errorf("defaults alone: %v, repository %q", got, r.Repository)
	}
	// Its own configuration overrides numba's cap strategy and keeps
	// llvmlite watched from the defaults.
	e.file(".pinbot.yml", []byte("packages:\n  Numba: {cap: exclusive}\n"))
	r = check("--defaults", defaults, "--repository", "lab/a")
	if got := afters(r); got["numba"] != "numba>=0.58,<0.67.1" || got["llvmlite"] != "llvmlite<=0.49.0" || r.Repository != "lab/a" {
		t.Errorf("merged: %v, repository %q", got, r.Repository)
	}
	// Without the defaults, only what the repository names.
	if got := afters(check()); len(got) != 1 || got["numba"] != "numba>=0.58,<0.67.1" {
		t.Errorf("without defaults: %v", got)
	}
	os.WriteFile(defaults, []byte("packages:\n  numba: {cap: sideways}\n"), 0o644)
	if code, _, stderr := e.run("check", "--dir", e.dir, "--defaults", defaults); code != exitUsage || !strings.Contains(stderr, "fleet.yml:2:16: packages.numba.cap") {
		t.Errorf("bad defaults: exit %d\n%s", code, stderr)
	}
	// A name GitHub does not allow is refused as the fleet's listings and
	// reports refuse it.
	for _, bad := range []string{"no-slash", "lab/..", "lab/a b", "lab/-x", "lab/a/b"} {
		if code, _, stderr := e.run("check", "--dir", e.dir, "--repository", bad); code != exitUsage || !strings.Contains(stderr, "expected owner/name as GitHub allows them") {
			t.Errorf("--repository %q: exit %d\n%s", bad, code, stderr)
		}
	}
}

// TestFleetSharedCache: fleet plan --cache-dir downloads the wheel the
// defaults' checks read for numba's target once; a check that uses that
// directory downloads it no more (only its own baseline's), where a check
// with an empty cache downloads it.
func TestFleetSharedCache(t *testing.T) {
	e := newPublishEnv(t)
	addFleet(e, 3)
	defaults := filepath.Join(t.TempDir(), "fleet.yml")
	os.WriteFile(defaults, []byte("packages:\n  numba:\n    probes:\n      - preset: numba-unique-ids\n"), 0o644)
	os.Remove(filepath.Join(e.dir, ".pinbot.yml"))
	target := func(from int) int {
		n := 0
		for _, r := range e.pypi.Requests()[from:] {
			if strings.HasSuffix(r, "/numba-0.68.0-py3-none-any.whl") {
				n++
			}
		}
		return n
	}
	shared := t.TempDir()
	output := filepath.Join(t.TempDir(), "output")
	e.vars["GITHUB_OUTPUT"] = output
	code, _, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab", "--defaults", defaults, "--cache-dir", shared)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, stderr)
	}
	if n := target(0); n != 1 {
		t.Fatalf("the plan fetched numba 0.68.0's wheel %d times, want 1\n%s", n, stderr)
	}
	if o, _ := os.ReadFile(output); !strings.Contains(string(o), "cache-key=pinbot-fleet-") || strings.Contains(string(o), "cache-key=pinbot-fleet-none") {
		t.Errorf("outputs %s", o)
	}
	for i, cache := range []string{shared, t.TempDir()} {
		from := len(e.pypi.Requests())
		delete(e.vars, "PINBOT_CACHE_DIR")
		e.vars["PINBOT_CACHE_DIR"] = cache
		code, out, stderr := e.pinbot(t.Context(), "check", "--dir", e.dir, "--format", "json", "--static", "--defaults", defaults)
		if code != exitCheck {
			t.Fatalf("check: exit %d\n%s\n%s", code, out, stderr)
		}
		want := []int{0, 1}[i]
		if n := target(from); n != want {
			t.Errorf("check with cache %d fetched the target's wheel %d times, want %d", i, n, want)
		}
		if e.wheelsFetched() == 0 {
			t.Error("no wheel was fetched at all")
		}
	}
}

// TestFleetSharedCacheDynamic: a check job whose probes run dynamically
// (real pip, the fake index) and that restores fleet plan's --cache-dir as
// PINBOT_CACHE_DIR installs numba 0.68.0 from the stored wheel: it asks the
// index for no byte of it, and the probe still runs in an environment with
// numba 0.68.0 and blocks it as before. A job with an empty cache downloads
// the wheel; one whose stored wheel was tampered with does not use it.
func TestFleetSharedCacheDynamic(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	py := dynamicOnly(t)
	e := newPublishEnv(t)
	addFleet(e, 3)
	defaults := filepath.Join(t.TempDir(), "fleet.yml")
	os.WriteFile(defaults, []byte("packages:\n  numba:\n    probes:\n      - preset: numba-unique-ids\n"), 0o644)
	os.Remove(filepath.Join(e.dir, ".pinbot.yml"))
	const file = "/numba-0.68.0-py3-none-any.whl"
	target := func(from int) int {
		n := 0
		for _, r := range e.pypi.Requests()[from:] {
			if strings.HasSuffix(r, file) {
				n++
			}
		}
		return n
	}
	shared := t.TempDir()
	code, _, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab", "--defaults", defaults, "--cache-dir", shared)
	if code != 0 || target(0) != 1 {
		t.Fatalf("plan: exit %d, fetched numba 0.68.0's wheel %d times, want once\n%s", code, target(0), stderr)
	}
	stored, _ := filepath.Glob(filepath.Join(shared, "artifacts", "sha256", "*", "*", strings.TrimPrefix(file, "/")))
	if len(stored) != 1 {
		t.Fatalf("the plan stored %q", stored)
	}
	type checkReport struct {
		Packages []struct {
			Name   string
			Checks []struct {
				Name, Verdict string
				Environment   *struct {
					Candidate []struct{ Name, Version string }
				}
			}
		}
	}
	check := func(cache string) int {
		t.Helper()
		from := len(e.pypi.Requests())
		e.vars["PINBOT_CACHE_DIR"] = cache
		code, out, stderr := e.pinbot(t.Context(), "check", "--dir", e.dir, "--format", "json", "--python", py, "--defaults", defaults)
		var rep checkReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitCheck {
			t.Fatalf("check: exit %d, want 3: %v\n%s\n%s", code, err, out, stderr)
		}
		// numba 0.68.0 drops _unique_ids: blocked, in a dynamic
		// environment holding it.
		blocked := false
		for _, p := range rep.Packages {
			for _, c := range p.Checks {
				if p.Name == "numba" && c.Verdict == "blocked" && c.Environment != nil && distVersion(c.Environment.Candidate, "numba") == "0.68.0" {
					blocked = true
				}
			}
		}
		if !blocked {
			t.Errorf("no dynamic probe blocked numba 0.68.0:\n%s", out)
		}
		return target(from)
	}
	if n := check(shared); n != 0 {
		t.Errorf("the job with the plan's cache fetched numba 0.68.0's wheel %d times, want 0", n)
	}
	if n := check(t.TempDir()); n != 1 {
		t.Errorf("the job with an empty cache fetched numba 0.68.0's wheel %d times, want 1", n)
	}
	// A restored cache whose wheel was changed is checked, not trusted:
	// the job downloads the index's file (into a fresh environment cache,
	// so that pip installs again).
	tampered := t.TempDir()
	if out, err := exec.Command("cp", "-a", filepath.Join(shared, "artifacts"), tampered).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	copied, _ := filepath.Glob(filepath.Join(tampered, "artifacts", "sha256", "*", "*", strings.TrimPrefix(file, "/")))
	if len(copied) != 1 {
		t.Fatalf("copied %q", copied)
	}
	f, _ := os.OpenFile(copied[0], os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte("tampered"))
	f.Close()
	if n := check(tampered); n != 1 {
		t.Errorf("the job with a tampered wheel in its cache fetched numba 0.68.0's wheel %d times, want 1", n)
	}
}

// TestFleetSharedCacheGroup: with numba and llvmlite a group in the fleet
// defaults (llvmlite has no checks of its own), fleet plan --cache-dir also
// stores the llvmlite wheel numba's dynamic probes install beside it, at
// the group's target (0.50.1: numba 0.68.0 requires llvmlite<0.51, so not
// the newest, 0.51.0); a check job restoring that cache installs it from
// the store (real pip: the index gets no request for it) beside numba
// 0.68.0, which still blocks. A job whose stored llvmlite wheel was
// tampered with downloads the index's file, and still takes numba's from
// the store.
func TestFleetSharedCacheGroup(t *testing.T) {
	t.Parallel() // slow (environments, subprocesses): overlaps the other tests
	py := dynamicOnly(t)
	e := newRunEnv(t, probedConfig)
	e.pypi.Add("numba", numbaWithLLVM("0.66.0", "llvmlite>=0.49", false), numbaWithLLVM("0.67.0", "llvmlite>=0.49", false),
		numbaWithLLVM("0.68.0", "llvmlite<0.51,>=0.50", true))
	e.pypi.Add("llvmlite", llvmliteWheel("0.49.0"), llvmliteWheel("0.50.1"), llvmliteWheel("0.51.0"))
	addFleet(e, 3)
	defaults := filepath.Join(t.TempDir(), "fleet.yml")
	os.WriteFile(defaults, []byte("packages:\n  numba:\n    probes:\n      - preset: numba-unique-ids\n  llvmlite: {}\n"+
		"groups:\n  numba-stack: [numba, llvmlite]\n"), 0o644)
	os.Remove(filepath.Join(e.dir, ".pinbot.yml"))
	const numbaFile, llvmFile = "numba-0.68.0-py3-none-any.whl", "llvmlite-0.50.1-py3-none-any.whl"
	fetched := func(from int, file string) int {
		n := 0
		for _, r := range e.pypi.Requests()[from:] {
			if strings.HasSuffix(r, "/"+file) {
				n++
			}
		}
		return n
	}
	shared := t.TempDir()
	code, _, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab", "--defaults", defaults, "--cache-dir", shared)
	if code != 0 || fetched(0, numbaFile) != 1 || fetched(0, llvmFile) != 1 || fetched(0, "llvmlite-0.51.0-py3-none-any.whl") != 0 {
		t.Fatalf("plan: exit %d, fetched numba 0.68.0's wheel %d times, llvmlite 0.50.1's %d times and 0.51.0's %d times, want once, once, never\n%s",
			code, fetched(0, numbaFile), fetched(0, llvmFile), fetched(0, "llvmlite-0.51.0-py3-none-any.whl"), stderr)
	}
	check := func(cache string) (numba, llvmlite int) {
		t.Helper()
		from := len(e.pypi.Requests())
		e.vars["PINBOT_CACHE_DIR"] = cache
		code, out, stderr := e.pinbot(t.Context(), "check", "--dir", e.dir, "--format", "json", "--python", py, "--defaults", defaults)
		var rep struct {
			Packages []struct {
				Name   string
				Checks []struct {
					Verdict     string
					Environment *struct {
						Candidate []struct{ Name, Version string }
					}
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitCheck {
			t.Fatalf("check: exit %d, want 3: %v\n%s\n%s", code, err, out, stderr)
		}
		// numba 0.68.0 drops _unique_ids: blocked, in a dynamic
		// environment holding it and llvmlite 0.50.1.
		together := false
		for _, p := range rep.Packages {
			for _, c := range p.Checks {
				if p.Name == "numba" && c.Verdict == "blocked" && c.Environment != nil &&
					distVersion(c.Environment.Candidate, "numba") == "0.68.0" && distVersion(c.Environment.Candidate, "llvmlite") == "0.50.1" {
					together = true
				}
			}
		}
		if !together {
			t.Errorf("no dynamic probe blocked numba 0.68.0 with llvmlite 0.50.1 beside it:\n%s", out)
		}
		return fetched(from, numbaFile), fetched(from, llvmFile)
	}
	if numba, llvmlite := check(shared); numba != 0 || llvmlite != 0 {
		t.Errorf("the job with the plan's cache fetched numba 0.68.0's wheel %d times and llvmlite 0.50.1's %d times, want neither", numba, llvmlite)
	}
	// A stored member wheel that was changed is checked, not trusted (a
	// fresh environment cache, so that pip installs again).
	tampered := t.TempDir()
	if out, err := exec.Command("cp", "-a", filepath.Join(shared, "artifacts"), tampered).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	copied, _ := filepath.Glob(filepath.Join(tampered, "artifacts", "sha256", "*", "*", llvmFile))
	if len(copied) != 1 {
		t.Fatalf("copied %q", copied)
	}
	f, _ := os.OpenFile(copied[0], os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte("tampered"))
	f.Close()
	if numba, llvmlite := check(tampered); numba != 0 || llvmlite != 1 {
		t.Errorf("the job with a tampered llvmlite wheel fetched numba 0.68.0's wheel %d times and llvmlite 0.50.1's %d times, want 0 and 1", numba, llvmlite)
	}
}

// TestRunReportsRepositoryAndRequests: pinbot run's JSON report names its
// repository and counts the GitHub requests made for it.
func TestRunReportsRepositoryAndRequests(t *testing.T) {
	e := newRunEnv(t, testConfig)
	code, out, stderr := e.run("--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var doc struct {
		Report struct {
			Repository  string `json:"repository"`
			APIRequests int    `json:"api_requests"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Report.Repository != testRepo || doc.Report.APIRequests != len(e.gh.Requests()) || doc.Report.APIRequests < 5 {
		t.Errorf("repository %q, api_requests %d, the fake saw %d", doc.Report.Repository, doc.Report.APIRequests, len(e.gh.Requests()))
	}
}

// fleetReports writes a fleet's reports, each named for its repository as
// the fleet workflow names them: pinbot run's for the test repository (a
// pull request for numba), pinbot check's for lab/other (numba current),
// and a file that is not a report.
func fleetReports(t *testing.T, e *runTestEnv) string {
	t.Helper()
	dir := t.TempDir()
	code, out, stderr := e.run("--format", "json")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	os.WriteFile(filepath.Join(dir, "pymc-devs__pytensor.json"), []byte(out), 0o644)
	other := newEnv(t)
	other.pypi = e.pypi
	other.vars["PINBOT_PYPI_URL"] = e.pypi.URL
	other.file("requirements.txt", []byte("numba<=0.67.0\n"))
	code, out, stderr = other.run("check", "--dir", other.dir, "--format", "json", "--repository", "lab/other")
	if code != 0 {
		t.Fatalf("check: exit %d\n%s", code, stderr)
	}
	os.MkdirAll(filepath.Join(dir, "batch-2"), 0o755)
	os.WriteFile(filepath.Join(dir, "batch-2", "lab__other.json"), []byte(out), 0o644)
	os.WriteFile(filepath.Join(dir, "batch-2", "lab__junk.json"), []byte(`{"not": "a report"}`), 0o644)
	return dir
}

// TestFleetReport: the dashboard goes to stdout, the step summary and one
// issue updated in place; Slack hears once per change of the fleet's state;
// a file that is not a report is named and skipped.
func TestFleetReport(t *testing.T) {
	e := newRunEnv(t, testConfig)
	dir := fleetReports(t, e)
	e.gh.AddRepo("lab/.github", "main", nil)
	told := len(e.slack.Messages()) // the run's own message
	summary := filepath.Join(t.TempDir(), "summary.md")
	e.vars["GITHUB_STEP_SUMMARY"] = summary
	report := func() (string, string) {
		t.Helper()
		code, out, stderr := e.pinbot(t.Context(), "fleet", "report", "--reports", dir, "--issue-repo", "lab/.github")
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		return out, stderr
	}
	// The issue is opened through a secondary limit, waited out.
	e.gh.Fail("POST", `^/repos/lab/\.github/issues$`, fakes.SecondaryLimit(403))
	out, stderr := report()
	if !slices.Contains(e.waits, 60*time.Second) {
		t.Errorf("waits %v: want Retry-After's 60s", e.waits)
	}
	for _, want := range []string{"## numba 0.67.0", "**1 bumped, 1 current**", "| pymc-devs/pytensor | bumped | 0.66.0 | 1 | [#1](https://github.com/pymc-devs/pytensor/pull/1) |",
		"```mermaid\nxychart-beta", `x-axis ["pymc-devs/pytensor"]`} {
		if !strings.Contains(out, want) {
			t.Errorf("dashboard lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, filepath.Join("batch-2", "lab__junk.json")+": skipped: not a pinbot report") {
		t.Errorf("no warning for the junk file:\n%s", stderr)
	}
	if s, _ := os.ReadFile(summary); !strings.Contains(string(s), "## numba 0.67.0") {
		t.Errorf("step summary %q", s)
	}
	issues := e.gh.Issues("lab/.github")
	if len(issues) != 1 || issues[0].Title != "pinbot: the fleet" || !strings.Contains(issues[0].Body, "## numba 0.67.0") ||
		!slices.Equal(issues[0].Labels, []string{"pinbot"}) {
		t.Fatalf("issues %+v", issues)
	}
	msgs := e.slack.Messages()[told:]
	if len(msgs) != 1 || !strings.Contains(string(msgs[0]), "numba 0.67.0: 1 bumped") {
		t.Fatalf("slack %s", msgs)
	}

	// Nothing changed: no write, no second issue, no second message.
	writes := func() int {
		n := 0
		for _, r := range e.gh.Requests() {
			if r.Method != http.MethodGet {
				n++
			}
		}
		return n
	}
	before := writes()
	report()
	if writes() != before || len(e.gh.Issues("lab/.github")) != 1 || len(e.slack.Messages()) != told+1 {
		t.Errorf("an unchanged fleet: %d writes, %d issues, %d messages", writes()-before, len(e.gh.Issues("lab/.github")), len(e.slack.Messages())-told)
	}

	// lab/other falls behind: the issue is updated in place, Slack hears once.
	data, _ := os.ReadFile(filepath.Join(dir, "batch-2", "lab__other.json"))
	os.WriteFile(filepath.Join(dir, "batch-2", "lab__other.json"), []byte(strings.Replace(string(data), `"status": "current"`, `"status": "blocked"`, 1)), 0o644)
	report()
	issues = e.gh.Issues("lab/.github")
	if len(issues) != 1 || !strings.Contains(issues[0].Body, "| lab/other | blocked |") {
		t.Errorf("issues %+v", issues)
	}
	if msgs := e.slack.Messages()[told:]; len(msgs) != 2 || !strings.Contains(string(msgs[1]), "1 bumped, 1 blocked") ||
		!strings.Contains(string(msgs[1]), "https://github.com/lab/.github/issues/1") {
		t.Errorf("slack %s", msgs)
	}
	e.checkSecrets(t)
}

// TestFleetReportSlackFailure: a failed webhook fails the run (exit 1) and
// is not recorded as told, so the next run tells again.
func TestFleetReportSlackFailure(t *testing.T) {
	e := newRunEnv(t, testConfig)
	dir := fleetReports(t, e)
	e.gh.AddRepo("lab/.github", "main", nil)
	told := len(e.slack.Messages()) // the run's own message
	e.slack.Fail(fakes.Fault{Status: 404, Body: "channel_not_found"})
	code, _, stderr := e.pinbot(t.Context(), "fleet", "report", "--reports", dir, "--issue-repo", "lab/.github")
	if code != exitFailure || !strings.Contains(stderr, "404 channel_not_found") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if n := len(e.gh.Issues("lab/.github")); n != 1 {
		t.Fatalf("%d issues", n)
	}
	code, _, stderr = e.pinbot(t.Context(), "fleet", "report", "--reports", dir, "--issue-repo", "lab/.github")
	if code != 0 || len(e.slack.Messages()) != told+1 {
		t.Errorf("second run: exit %d, %d messages\n%s", code, len(e.slack.Messages())-told, stderr)
	}
	// And then it knows: no third message.
	e.pinbot(t.Context(), "fleet", "report", "--reports", dir, "--issue-repo", "lab/.github")
	if len(e.slack.Messages()) != told+1 {
		t.Errorf("third run: %d messages", len(e.slack.Messages())-told)
	}
}
