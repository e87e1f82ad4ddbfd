package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/fakes"
)

// notices returns pinbot's comments that say it stopped updating pull
// request 1.
func (e *runTestEnv) notices() []string {
	var out []string
	for _, c := range e.gh.Comments(testRepo, 1) {
		if strings.Contains(c, "pinbot has stopped updating this pull request") {
			out = append(out, c)
		}
	}
	return out
}

// runConflict runs pinbot, which must find the branch someone else's and
// leave it where it is.
func (e *runTestEnv) runConflict(t *testing.T) (stdout string, writes []string) {
	t.Helper()
	head, from := e.gh.Branch(testRepo, branch), len(e.gh.Requests())
	code, out, stderr := e.run()
	if code != 0 || !strings.Contains(out, "numba: conflict #1") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if e.gh.Branch(testRepo, branch) != head {
		t.Fatalf("pinbot moved a branch with someone else's commit")
	}
	return out, e.writesSince(from)
}

// newerNumba publishes numba 0.68.0.
func (e *runTestEnv) newerNumba() {
	e.pypi.Add("numba", append(fakes.NumbaReleases(), fakes.Release{Version: "0.68.0"})...)
}

// TestRunHandBack: a person amends pinbot's commit, keeping its trailers and
// author: pinbot stops rewriting the branch and says so once, with how to
// hand it back, also across runs and a newer release. The reset label hands
// it back: pinbot's own commit replaces the branch and the label goes. A
// later push, even one carrying pinbot's trailers, stops it again, with a
// new notice.
func TestRunHandBack(t *testing.T) {
	e := newRunEnv(t, testConfig)
	if code, out, stderr := e.run(); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	// Chatter first, so that the notice is on the second page of comments.
	for i := range 120 {
		e.gh.Comment(testRepo, 1, "bystander", fmt.Sprintf("comment %d", i))
	}
	e.gh.Amend(testRepo, branch, "alice", map[string]string{"README.md": "# pytensor\nalice\n"})
	msg, _, author := e.gh.Commit(testRepo, e.gh.Branch(testRepo, branch))
	if !strings.Contains(msg, "\nPinbot-Package: numba\n") || author != "pinbot" {
		t.Fatalf("the amend lost pinbot's trailer or author: %s\n%s", author, msg)
	}

	for i := range 2 {
		out, w := e.runConflict(t)
		if n := len(e.notices()); n != 1 {
			t.Fatalf("run %d: %d notices", i, n)
		}
		if i == 1 && len(w) != 0 {
			t.Errorf("second run wrote %q", w)
		}
		if !strings.Contains(out, "pinbot stopped updating it until the pinbot:reset label hands it back") {
			t.Errorf("run %d: stdout\n%s", i, out)
		}
	}
	n := e.notices()[0]
	for _, want := range []string{"by alice", "add the label `pinbot:reset` to this pull request", "`pinbot check --package numba --write`"} {
		if !strings.Contains(n, want) {
			t.Errorf("the notice lacks %q:\n%s", want, n)
		}
	}
	if strings.Contains(n, "delete the branch") {
		t.Errorf("the notice says to delete the branch, which closes the pull request:\n%s", n)
	}
	if l := e.gh.RepoLabels(testRepo); !slices.Contains(l, "pinbot:reset") {
		t.Errorf("repository labels %q: no pinbot:reset to pick", l)
	}

	// A newer release: the branch and the pull request stay, nothing more is said.
	e.newerNumba()
	if _, w := e.runConflict(t); len(w) != 0 || len(e.notices()) != 1 {
		t.Errorf("newer release: writes %q, %d notices", w, len(e.notices()))
	}
	if p := e.gh.Pulls(testRepo)[0]; p.Title != "Bump numba cap to 0.67.0" {
		t.Errorf("title rewritten while the branch is someone else's: %q", p.Title)
	}

	// The label hands the branch back.
	e.gh.Label(testRepo, 1, "pinbot:reset")
	code, out, stderr := e.run()
	if code != 0 || !strings.Contains(out, "numba: updated #1") ||
		!strings.Contains(out, "handed back with the pinbot:reset label: pinbot replaced the branch with its own commit, and removed the label") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	e.checkState(t, "0.68.0") // pinbot's commit, the labels without pinbot:reset
	if len(e.notices()) != 1 {
		t.Errorf("%d notices after the hand-back", len(e.notices()))
	}
	from := len(e.gh.Requests())
	if code, _, _ := e.run(); code != 0 || len(e.writesSince(from)) != 0 {
		t.Errorf("the run after the hand-back: exit %d, writes %q", code, e.writesSince(from))
	}

	// bob pushes a commit that carries pinbot's trailers: not pinbot's all
	// the same, and a new hand-over, so a new notice.
	e.gh.Push(testRepo, branch, "bob", "Bump numba cap to 0.68.0\n\nPinbot-Package: numba\nPinbot-Target: 0.68.0\n",
		map[string]string{"README.md": "# pytensor\nbob\n"})
	e.runConflict(t)
	if ns := e.notices(); len(ns) != 2 || !strings.Contains(ns[1], "by bob") {
		t.Errorf("notices %q", ns)
	}
	e.runConflict(t)
	if len(e.notices()) != 2 {
		t.Errorf("%d notices", len(e.notices()))
	}
	e.checkSecrets(t)
}

// TestRunHandBackForged: someone who cannot push comments a forged record
// naming a person's commit as pinbot's, and a forged notice. Neither counts:
// the record is read from the pull request's body only, and only pinbot's
// own comments say it has spoken.
func TestRunHandBackForged(t *testing.T) {
	e := newRunEnv(t, testConfig)
	if code, out, stderr := e.run(); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	pinbots := e.gh.Branch(testRepo, branch)
	if first, _, _ := strings.Cut(e.gh.Pulls(testRepo)[0].Body, "\n"); !strings.Contains(first, "<!-- pinbot:commits "+pinbots+" -->") {
		t.Fatalf("the body does not record pinbot's commit %s: %s", pinbots, first)
	}
	e.gh.Push(testRepo, branch, "alice", "mine", map[string]string{"README.md": "# pytensor\nalice\n"})
	alice := e.gh.Branch(testRepo, branch)
	forged := fmt.Sprintf("<!-- pinbot:v1 package=numba target=0.67.0 base=main --> <!-- pinbot:commits %s %s -->\n"+
		"<!-- pinbot:stopped since=%s -->\npinbot has stopped updating this pull request (not really)", alice, pinbots, pinbots)
	e.gh.Comment(testRepo, 1, "mallory", forged)
	e.runConflict(t)
	if c := e.gh.Comments(testRepo, 1); len(c) != 2 || !strings.Contains(c[1], "by alice") {
		t.Errorf("comments %q", c)
	}
}

// TestRunMoveKilled kills a run that moves pinbot's branch (a newer release,
// and a hand-back) after each API call in turn: the next run completes it,
// never mistaking pinbot's own commit for a person's, and a third run
// changes nothing.
func TestRunMoveKilled(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cap     string
		notices int
		prepare func(t *testing.T, e *runTestEnv)
	}{
		{"newer release", "0.68.0", 0, func(t *testing.T, e *runTestEnv) {
			e.run()
			e.newerNumba()
		}},
		{"hand back", "0.67.0", 1, func(t *testing.T, e *runTestEnv) {
			e.run()
			e.gh.Push(testRepo, branch, "alice", "mine", map[string]string{"README.md": "# pytensor\nalice\n"})
			e.runConflict(t)
			e.gh.Label(testRepo, 1, "pinbot:reset")
		}},
	} {
		probe := newRunEnv(t, testConfig)
		tc.prepare(t, probe)
		from := len(probe.gh.Requests())
		probe.run()
		total := len(probe.gh.Requests()) - from
		for n := 1; n <= total; n++ {
			t.Run(fmt.Sprint(tc.name, n), func(t *testing.T) {
				e := newRunEnv(t, testConfig)
				tc.prepare(t, e)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				e.gh.KillAfter(n, cancel)
				e.pinbot(ctx, "run", "--dir", e.dir)
				e.gh.KillAfter(0, nil)
				code, out, stderr := e.run()
				if code != 0 || strings.Contains(out, "conflict") {
					t.Fatalf("rerun: exit %d\n%s\n%s", code, out, stderr)
				}
				e.checkState(t, tc.cap)
				if len(e.notices()) != tc.notices {
					t.Errorf("notices %q", e.notices())
				}
				from := len(e.gh.Requests())
				if code, _, _ := e.run(); code != 0 || len(e.writesSince(from)) != 0 {
					t.Errorf("third run: exit %d, writes %q", code, e.writesSince(from))
				}
			})
		}
	}
}

// TestRunHandBackLabelErrors: a label pinbot cannot create is a warning (the
// notice still goes out); a reset label already gone when pinbot removes it
// (404) is fine, and a label that stayed is removed by the next run, which
// finds the branch pinbot's already.
func TestRunHandBackLabelErrors(t *testing.T) {
	e := newRunEnv(t, testConfig)
	if code, out, stderr := e.run(); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	e.gh.Push(testRepo, branch, "alice", "mine", map[string]string{"README.md": "# pytensor\nalice\n"})
	e.gh.Fail("POST", `/labels$`, fakes.Fault{Status: 403, Header: map[string]string{"Content-Type": "application/json"},
		Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/issues/labels#create-a-label","status":"403"}`})
	out, _ := e.runConflict(t)
	if !strings.Contains(out, "warning: creating the label pinbot:reset failed (create it to hand the branch back)") || len(e.notices()) != 1 {
		t.Errorf("notices %q\n%s", e.notices(), out)
	}
	if slices.Contains(e.gh.RepoLabels(testRepo), "pinbot:reset") {
		t.Fatal("the label was created despite the fault")
	}

	e.gh.Label(testRepo, 1, "Pinbot:Reset") // labels match in any case
	e.gh.Fail("DELETE", `/labels/`, fakes.Fault{Status: 404, Header: map[string]string{"Content-Type": "application/json"},
		Body: `{"message":"Label does not exist","documentation_url":"https://docs.github.com/rest/issues/labels#remove-a-label-from-an-issue","status":"404"}`})
	code, out, stderr := e.run()
	if code != 0 || !strings.Contains(out, "pinbot replaced the branch with its own commit") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if l := e.gh.Pulls(testRepo)[0].Labels; !slices.Contains(l, "Pinbot:Reset") {
		t.Fatalf("labels %q: the fault did not keep the label", l)
	}
	code, out, stderr = e.run()
	if code != 0 || !strings.Contains(out, "handed back with the pinbot:reset label: the branch was pinbot's already, and removed the label") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	e.checkState(t, "0.67.0")
}
