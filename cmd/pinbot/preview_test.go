package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// aPull is an entry of a run's pull_requests (--format json).
type aPull struct {
	Package, Action, URL, Detail string
	Number                       int
	Draft                        bool
}

// pulls runs pinbot with --format json and args and returns its
// pull_requests; a dry run must write nothing.
func (e *runTestEnv) pulls(t *testing.T, args ...string) []aPull {
	t.Helper()
	from := len(e.gh.Requests())
	code, out, stderr := e.run(append([]string{"--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("%q: exit %d\n%s\n%s", args, code, out, stderr)
	}
	var doc struct {
		Pulls []aPull `json:"pull_requests"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%q: %v\n%s", args, err, out)
	}
	if w := e.writesSince(from); len(args) > 0 && args[0] == "--dry-run" && len(w) != 0 {
		t.Errorf("a dry run wrote %q", w)
	}
	if len(doc.Pulls) != 1 {
		t.Fatalf("%q: pull_requests %+v, want one", args, doc.Pulls)
	}
	return doc.Pulls
}

// preview asserts that a dry run says it would do action to pull request
// number (0: none yet), and then that the run does it (done), to the same
// pull request when there is one.
func (e *runTestEnv) preview(t *testing.T, action string, number int, done string) aPull {
	t.Helper()
	dry := e.pulls(t, "--dry-run")[0]
	if dry.Action != action || dry.Number != number {
		t.Errorf("dry run: %s #%d (%s), want %s #%d", dry.Action, dry.Number, dry.Detail, action, number)
	}
	real := e.pulls(t)[0]
	if real.Action != done || (number != 0 && real.Number != number) {
		t.Errorf("run after the dry run's %s: %s #%d (%s), want %s #%d", dry.Action, real.Action, real.Number, real.Detail, done, number)
	}
	return dry
}

// closedNumba opens pinbot's pull request for numba 0.67.0 and closes it
// without merging, after edit (when set) has changed its body.
func (e *runTestEnv) closedNumba(t *testing.T, edit func(body string) string) {
	t.Helper()
	if code, out, stderr := e.run(); code != 0 || !strings.Contains(out, "opened #1") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	e.gh.ClosePull(testRepo, 1)
	if edit != nil {
		p := e.gh.Pulls(testRepo)[0]
		e.gh.EditPull(testRepo, 1, p.Title, edit(p.Body))
	}
}

// TestRunClosedForTarget: a pull request closed without merging is left
// closed for the target pinbot recorded it for, and only for that one: the
// marker on its first line, or, once a person rewrote the body, the title
// pinbot gave it. A dry run says what the run then does.
func TestRunClosedForTarget(t *testing.T) {
	notes := "\n\nFrom numba 0.68.0's release notes: \"Python 3.14 support\" " +
		"(https://github.com/numba/numba/compare/0.67.0...0.68.0).\n"
	t.Run("recorded", func(t *testing.T) {
		e := newRunEnv(t, testConfig)
		e.closedNumba(t, func(body string) string { return body + notes })
		if code, out, _ := e.run("--dry-run"); code != 0 || strings.Contains(out, "numba: would open or update") ||
			!strings.Contains(out, "would: leave #1 closed\n") || !strings.Contains(out, "detail: #1 for numba 0.67.0 was closed without merging\n") {
			t.Errorf("the dry run's Slack message speaks of the closed pull request: exit %d\n%s", code, out)
		}
		if p := e.preview(t, "closed-respected", 1, "closed-respected"); p.Detail != "#1 for numba 0.67.0 was closed without merging" {
			t.Errorf("detail %q", p.Detail)
		}
		if n := len(e.gh.Pulls(testRepo)); n != 1 {
			t.Errorf("%d pull requests", n)
		}
	})
	t.Run("the release notes mention the target", func(t *testing.T) {
		// Edited in the web interface: CRLF line ends, which the strict
		// marker does not read; the title pinbot gave it names 0.67.0.
		e := newRunEnv(t, testConfig)
		e.closedNumba(t, func(body string) string { return strings.ReplaceAll(body+notes, "\n", "\r\n") })
		e.newerNumba()
		e.preview(t, "open", 0, "opened")
		if p := e.gh.Pulls(testRepo); len(p) != 2 || p[1].State != "open" || p[1].Title != "Bump numba cap to 0.68.0" {
			t.Errorf("pull requests %+v", p)
		}
	})
	t.Run("an older target", func(t *testing.T) {
		e := newRunEnv(t, testConfig)
		e.closedNumba(t, nil)
		e.newerNumba()
		e.preview(t, "open", 0, "opened")
		e.checkState(t, "0.68.0")
	})
	t.Run("the body rewritten by a person", func(t *testing.T) {
		// No marker left: the title pinbot gave it records the target. A
		// marker quoted further down is not pinbot's record.
		e := newRunEnv(t, testConfig)
		e.closedNumba(t, func(string) string {
			return "Not now: our numba extensions need porting first.\r\n\r\n" +
				"<!-- pinbot:v1 package=numba target=0.68.0 base=main -->\r\n"
		})
		e.preview(t, "closed-respected", 1, "closed-respected")
		e.newerNumba()
		e.preview(t, "open", 0, "opened")
		e.checkState(t, "0.68.0")
	})
}

// TestRunDryRunStopped: on a branch someone else pushed to, a dry run says
// what the run says, conflict, and that it would update the pull request
// once the pinbot:reset label hands the branch back; an ordinary open pull
// request previews as update.
func TestRunDryRunStopped(t *testing.T) {
	e := newRunEnv(t, testConfig)
	if code, out, stderr := e.run(); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	e.preview(t, "update", 1, "unchanged")
	e.newerNumba()
	if p := e.preview(t, "update", 1, "updated"); p.Draft || p.URL != "https://github.com/pymc-devs/pytensor/pull/1" {
		t.Errorf("dry run %+v", p)
	}

	e.gh.Push(testRepo, branch, "alice", "Also bump llvmlite", map[string]string{"README.md": "# pytensor\nalice\n"})
	head := e.gh.Branch(testRepo, branch)
	if code, out, _ := e.run("--dry-run"); code != 0 || !strings.Contains(out, "numba: #1 needs a human") ||
		strings.Contains(out, "numba: would open or update") || !strings.Contains(out, "would: leave #1 alone\ndetail: pinbot/main/numba has a commit pinbot did not make") {
		t.Errorf("the dry run's Slack message does not say what the run's would: exit %d\n%s", code, out)
	}
	for i := range 2 { // before pinbot said so on the pull request, and after
		p := e.preview(t, "conflict", 1, "conflict")
		if !strings.Contains(p.Detail, "has a commit pinbot did not make ("+head[:12]+" by alice); pinbot stopped updating it until the pinbot:reset label hands it back") {
			t.Errorf("run %d: detail %q", i, p.Detail)
		}
	}
	if n := len(e.notices()); n != 1 {
		t.Errorf("%d notices", n)
	}
	code, out, stderr := e.run("--dry-run", "--format", "markdown")
	if code != 0 || !strings.Contains(out, "## Pull request (dry run, would leave #1 alone): Bump numba cap to 0.68.0") {
		t.Errorf("markdown: exit %d\n%s\n%s", code, out, stderr)
	}

	e.gh.Label(testRepo, 1, "pinbot:reset")
	e.preview(t, "update", 1, "updated")
	e.checkState(t, "0.68.0")
}
