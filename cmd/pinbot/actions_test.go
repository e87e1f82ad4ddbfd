package main

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// In GitHub Actions stdout carries only the format asked for: workflow
// commands go to stderr, ::add-mask:: only for what pinbot minted and never
// to a regular file, and annotations are escaped like any other text.

// commandLines returns the lines of out that are workflow commands.
func commandLines(out string) []string {
	var cmds []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "::") {
			cmds = append(cmds, l)
		}
	}
	return cmds
}

// checkStdout asserts that stdout holds no workflow command and, for JSON,
// is one JSON document and nothing else.
func checkStdout(t *testing.T, format, out string) {
	t.Helper()
	if cmds := commandLines(out); len(cmds) > 0 {
		t.Errorf("workflow commands on stdout: %q", cmds)
	}
	if format != "json" {
		return
	}
	var doc map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%.500s", err, out)
	}
	if dec.More() {
		t.Errorf("stdout holds more than the JSON document:\n%.500s", out)
	}
}

// actionsVars sets what a runner sets.
func (e *runTestEnv) actionsVars() {
	e.vars["GITHUB_ACTIONS"] = "true"
	e.vars["GITHUB_STEP_SUMMARY"] = filepath.Join(e.dir, "..", "summary.md")
	e.vars["GITHUB_OUTPUT"] = filepath.Join(e.dir, "..", "output.txt")
}

// TestActionsRunStdout: pinbot run in Actions, in every format, a dry run
// and a publish from a check job's report: stdout is the report alone (a
// JSON report redirected to a file parses), the annotations are on stderr,
// and the token and the webhook URL, given through the environment, appear
// nowhere, not even in an ::add-mask:: line.
func TestActionsRunStdout(t *testing.T) {
	blocked := "::warning file=pyproject.toml,line=53,title=pinbot%3A a check failed for numba::"
	for _, tt := range []struct {
		name, format string
		args         []string
		code         int
	}{
		{"json", "json", nil, exitCheck},
		{"text", "text", nil, exitCheck},
		{"markdown", "markdown", nil, exitCheck},
		{"dry run json", "json", []string{"--dry-run"}, exitCheck},
		{"dry run markdown", "markdown", []string{"--dry-run"}, exitCheck},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newRunEnv(t, testConfig)
			e.actionsVars()
			runHooks.adjust = blockNumba
			code, out, stderr := e.run(append([]string{"--format", tt.format}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			checkStdout(t, tt.format, out)
			if !strings.Contains(stderr, blocked) {
				t.Errorf("no annotation on stderr:\n%s", stderr)
			}
			e.checkSecrets(t)
		})
	}
	t.Run("publish json", func(t *testing.T) {
		e := newPublishEnv(t)
		report := writeReport(t, e.checkJob(t))
		e.actionsVars()
		code, out, stderr := e.run("--verdicts", report, "--format", "json")
		if code != exitCheck {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		checkStdout(t, "json", out)
		if !strings.Contains(stderr, "::warning file=pyproject.toml,line=53,title=pinbot%3A a check failed for numba::") {
			t.Errorf("no annotation on stderr:\n%s", stderr)
		}
		e.checkSecrets(t)
	})
	t.Run("release code beside secrets", func(t *testing.T) {
		// unpinned-pkg is pinned nowhere: nothing is probed, but the run is
		// set to.
		e := newRunEnv(t, "packages:\n  unpinned-pkg:\n    probes:\n      - path: unpinned_pkg\n        expect: module\n")
		e.actionsVars()
		code, out, stderr := e.run("--dry-run", "--format", "json", "--python", "/nonexistent/python3")
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		checkStdout(t, "json", out)
		if !strings.Contains(stderr, "::warning title=pinbot%3A release code runs beside secrets::") {
			t.Errorf("no annotation on stderr:\n%s", stderr)
		}
		e.checkSecrets(t)
	})
}

// TestActionsFleetPlanStdout: fleet plan in Actions prints the matrix alone
// on stdout, a failed prefetch's warning on stderr, and echoes the token
// nowhere.
func TestActionsFleetPlanStdout(t *testing.T) {
	e := newRunEnv(t, testConfig)
	addFleet(e, 5)
	e.actionsVars()
	// A watched package with checks that no index knows: its prefetch fails.
	defaults := filepath.Join(t.TempDir(), "fleet.yml")
	os.WriteFile(defaults, []byte("packages:\n  nosuchpkg:\n    probes:\n      - {path: nosuchpkg.f, expect: exists}\n"), 0o644)
	code, out, stderr := e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab", "--defaults", defaults, "--cache-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	checkStdout(t, "json", out)
	if m := planOutput(t, out); len(m.Include) == 0 {
		t.Errorf("matrix %s", out)
	}
	if !strings.Contains(stderr, "::warning title=pinbot fleet plan::prefetching the checks' artifacts failed") {
		t.Errorf("no annotation on stderr:\n%s", stderr)
	}
	e.checkSecrets(t)
}

// TestActionsFleetReport: fleet report in Actions prints the dashboard alone
// on stdout, warns on stderr of a file that is not a report, with the
// terminal escapes in its name escaped, and echoes the webhook nowhere.
func TestActionsFleetReport(t *testing.T) {
	e := newRunEnv(t, testConfig)
	dir := fleetReports(t, e)
	hostile := "junk-\x1b]0;pwned\x07-\x1b[2J.json"
	if err := os.WriteFile(filepath.Join(dir, hostile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.actionsVars()
	code, out, stderr := e.pinbot(t.Context(), "fleet", "report", "--reports", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	checkStdout(t, "markdown", out)
	if !strings.Contains(out, "## numba 0.67.0") {
		t.Errorf("no dashboard on stdout:\n%s", out)
	}
	warned := false
	for _, l := range commandLines(stderr) {
		if strings.ContainsAny(l, "\x1b\x07") {
			t.Errorf("a raw escape reaches a workflow command: %q", l)
		}
		if strings.HasPrefix(l, "::warning title=pinbot fleet report::") && strings.Contains(l, `junk-\x1b]0;pwned\x07-\x1b[2J.json: skipped`) {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no escaped warning for the hostile file on stderr:\n%q", stderr)
	}
	e.checkSecrets(t)
}

// minted returns the credentials the fake GitHub was sent from the from-th
// on: the App's JWTs and its installation tokens, which pinbot made itself.
func (e *runTestEnv) minted(from int) []string {
	return e.gh.Credentials()[from:]
}

// TestActionsAppMasks: a run as a GitHub App masks, on stderr, each JWT it
// signs and each installation token it mints, and nothing it was given
// (the App's key); stdout holds no workflow command. With stderr a regular
// file (2> log.txt) no ::add-mask:: is written at all, by run or fleet plan.
func TestActionsAppMasks(t *testing.T) {
	e, keyLines := appEnv(t)
	code, out, stderr := e.run("--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	checkStdout(t, "json", out)
	minted := e.minted(0)
	var jwts, tokens int
	for _, cred := range minted {
		switch {
		case strings.HasPrefix(cred, "eyJ"):
			jwts++
		case strings.HasPrefix(cred, "ghs_"):
			tokens++
		}
		if !strings.Contains(stderr, "::add-mask::"+cred+"\n") {
			t.Errorf("%.12s… was not masked on stderr:\n%.2000s", cred, stderr)
		}
	}
	if jwts == 0 || tokens == 0 {
		t.Errorf("credentials used %d JWTs, %d installation tokens: want both", jwts, tokens)
	}
	e.checkSecrets(t, keyLines...)
	e.checkMinted(t, minted...)

	// stderr a regular file: masks would be written to disk, and the
	// runner does not read them there.
	log := filepath.Join(t.TempDir(), "log.txt")
	e.setup = func(f *Factory) {
		file, err := os.Create(log)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { file.Close() })
		f.Stderr = file
	}
	from := len(e.gh.Credentials())
	code, out, _ = e.run("--format", "json")
	data, _ := os.ReadFile(log)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, data)
	}
	checkStdout(t, "json", out)
	if len(e.minted(from)) == 0 {
		t.Fatal("the second run minted nothing")
	}
	if strings.Contains(string(data), "::add-mask::") {
		t.Errorf("::add-mask:: written to a regular file:\n%s", data)
	}
	for _, cred := range e.minted(from) {
		if strings.Contains(string(data)+out, cred) {
			t.Errorf("%.12s… in the output", cred)
		}
	}

	addFleet(e, 3)
	e.gh.AddApp(31, mustKey(t, e), 3100, "lab/svc001")
	code, out, _ = e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab", "--app-id", "31")
	data, _ = os.ReadFile(log)
	if code != 0 {
		t.Fatalf("fleet plan: exit %d\n%s\n%s", code, out, data)
	}
	checkStdout(t, "json", out)
	if strings.Contains(string(data), "::add-mask::") {
		t.Errorf("fleet plan wrote ::add-mask:: to a regular file:\n%s", data)
	}
	// And on a stderr the runner reads, fleet plan masks what it mints.
	e.setup = nil
	from = len(e.gh.Credentials())
	code, out, stderr = e.pinbot(t.Context(), "fleet", "plan", "--owner", "lab", "--app-id", "31")
	if code != 0 {
		t.Fatalf("fleet plan: exit %d\n%s\n%s", code, out, stderr)
	}
	checkStdout(t, "json", out)
	for _, cred := range e.minted(from) {
		if !strings.Contains(stderr, "::add-mask::"+cred+"\n") {
			t.Errorf("fleet plan did not mask %.12s…", cred)
		}
	}
	e.checkMinted(t, e.minted(0)...)
}

// mustKey returns the public key of the App key in e's environment.
func mustKey(t *testing.T, e *runTestEnv) *rsa.PublicKey {
	t.Helper()
	block, _ := pem.Decode([]byte(e.vars["PINBOT_APP_PRIVATE_KEY"]))
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return &key.PublicKey
}
