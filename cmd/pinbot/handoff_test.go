package main

import (
	"slices"
	"strings"
	"testing"
)

// TestRunReviewerNotCollaborator: GitHub refuses a review request naming a
// non-collaborator (422) whole; pinbot asks the others alone, warns about
// the one refused, and the pull request is still opened (exit 0).
func TestRunReviewerNotCollaborator(t *testing.T) {
	e := newRunEnv(t, testConfig)
	e.gh.Outsider("ricardoV94")
	code, out, stderr := e.run()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	p := e.gh.Pulls(testRepo)
	if len(p) != 1 || !slices.Equal(p[0].Reviewers, []string{"pymc-devs/core"}) {
		t.Fatalf("pull requests %+v", p)
	}
	const warning = "warning: #1: GitHub would not request a review from ricardoV94: reviews may only be requested from collaborators"
	if !strings.Contains(out, "numba: opened #1") || !strings.Contains(out, warning) {
		t.Errorf("stdout:\n%s", out)
	}
	if msgs := e.slack.Messages(); len(msgs) != 1 || !strings.Contains(string(msgs[0]), "would not request a review from ricardoV94") {
		t.Errorf("slack %s", msgs)
	}
	// The next run asks again (the reviewer may have been given access) and
	// warns again, changing nothing else.
	before := len(e.writes())
	code, out, _ = e.run("--format", "json")
	if code != 0 || !strings.Contains(out, `"warnings": [`) {
		t.Errorf("exit %d\n%s", code, out)
	}
	if w := e.writes()[before:]; len(w) != 1 { // ricardoV94 asked alone, refused
		t.Errorf("second run wrote %q", w)
	}
	e.checkSecrets(t)
}
